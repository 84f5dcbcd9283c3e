// Kernels --tile-verify-kernels accepts, and the remarks for what it cannot
// prove.
// RUN: tile-opt %s --tile-verify-kernels -split-input-file -verify-diagnostics | FileCheck %s

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
!g = !tile.buffer<?x?xf16, global>
!ring = !tile.buffer<4x128x64xf16, shared, #tile.layout<S[(4,128,64):(8192,64,1)], swizzle<3,3,3>>>

// A 4-stage ring: the stage is the same SSA value in the announcement and
// the copies, once per trip of a runtime loop; fences and waits in place.
// CHECK-LABEL: gpu.func @ring
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @ring(%a: !g, %b: !g, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %bytes = arith.constant 32768 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    %ra = tile.alloc_shared : !ring
    %rb = tile.alloc_shared : !ring
    scf.for %k = %c0 to %n step %c1 {
      %stage = arith.remui %k, %c4 : index
      %col = arith.muli %k, %c64 : index
      nvgpu.mbarrier.arrive.expect_tx %bars[%stage], %bytes : !bars
      tile.copy_async %a[0, %col] to %ra[%stage, 0, 0] sizes [128, 64]
          exec thread mbar(%bars[%stage] : !bars) : !g to !ring
      tile.copy_async %b[0, %col] to %rb[%stage, 0, 0] sizes [128, 64]
          exec thread mbar(%bars[%stage] : !bars) : !g to !ring
      nvgpu.mbarrier.try_wait.parity %bars[%stage], %false, %ticks : !bars
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// One CTA multicasts the whole tile to both (`rank == 0` guard: the bytes
// land once in each CTA); a two-trip constant loop of 4 KiB copies matches
// an 8 KiB announcement outside it; the filled tile is fenced before the
// TMA store, whose bulk group is waited on before the tile is rewritten.
// CHECK-LABEL: gpu.func @multicast_and_fence
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @multicast_and_fence(%in: !g, %out: !g, %v: f16) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %mask = arith.constant 3 : i16
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %first = arith.cmpi eq, %rank, %i0 : i32
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    scf.if %first {
      tile.copy_async %in[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0] : !bars) cta_mask(%mask) : !g to !s
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    scf.for %half = %c0 to %c2 step %c1 {
      %row = arith.muli %half, %c2 : index
      tile.copy_async %in[%row, 0] to %s[0, 0] sizes [32, 64] exec thread
          mbar(%bars[%c0] : !bars) : !g to !s
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
    tile.commit_group bulk
    tile.wait_group bulk, 0 {read}
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    llvm.store %v, %base : f16, !llvm.ptr<3>
    tile.fence proxy_async
    gpu.barrier
    tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
    tile.commit_group bulk
    tile.wait_group bulk, 0 {read}
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// What cannot be proven is a remark, not an error.
// CHECK-LABEL: gpu.func @unproven
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @unproven(%in: !g, %bytes: index, %mask: i16) kernel {
    %c0 = arith.constant 0 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    // expected-remark @+1 {{expect-tx accounting of this mbarrier not proven: its byte count is not a constant}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    tile.copy_async %in[0, 0] to %s[0, 0] sizes [64, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    %c8192 = arith.constant 8192 : index
    // expected-remark @+1 {{expect-tx accounting of this mbarrier not proven: a multicast copy's cta_mask is not a constant (each CTA of the mask receives the bytes)}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %c8192 : !bars
    tile.copy_async %in[0, 0] to %s[0, 0] sizes [64, 64] exec thread
        mbar(%bars[%c0] : !bars) cta_mask(%mask) : !g to !s
    gpu.return
  }
}

// -----

!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// Multicast halves by cluster rank (as the GEMM family loads B): CTA 0
// loads rows 0..63 and CTA 1 rows 64..127, each into both CTAs. The check
// adds the bytes up per CTA of the declared cluster: 8192 from each rank
// reach each CTA, 16384 announced on each. Proven, so no remark.
// CHECK-LABEL: gpu.func @multicast_halves_by_rank
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @multicast_halves_by_rank(%a: !g) kernel
      attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %both = arith.constant 3 : i16
    %bytes = arith.constant 16384 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    %rank_i32 = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %first = arith.cmpi eq, %rank, %c0 : index
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    scf.if %first {
      tile.copy_async %a[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0] : !bars) cta_mask(%both) : !g to !s
    } else {
      tile.copy_async %a[64, 0] to %s[64, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0] : !bars) cta_mask(%both) : !g to !s
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// A copy on each branch of one scf.if on a runtime flag: one of them runs,
// so the bytes of the two are not added up (a remark).
// CHECK-LABEL: gpu.func @either_branch
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @either_branch(%a: !g, %full: i1) kernel {
    %c0 = arith.constant 0 : index
    %bytes = arith.constant 16384 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    scf.if %full {
      // expected-remark @+1 {{expect-tx accounting of this mbarrier not proven: its announcements or copies sit on different branches of one scf.if, and its bytes per CTA are not added up: a branch condition is not a function of the cluster rank alone}}
      tile.copy_async %a[0, 0] to %s[0, 0] sizes [128, 64] exec thread
          mbar(%bars[%c0] : !bars) : !g to !s
    } else {
      tile.copy_async %a[0, 0] to %s[0, 0] sizes [128, 64] exec thread
          mbar(%bars[%c0] : !bars) {oob = #tile.oob<nan>} : !g to !s
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// A register accumulator's MMA (wgmma) is retired by its group's wait: the
// next K step may then reload its operands.
// CHECK-LABEL: gpu.func @wgmma_operands_reloaded
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @wgmma_operands_reloaded(%ga: !g) kernel {
    %c0 = arith.constant 0 : index
    %bytes = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %bars = nvgpu.mbarrier.create -> !bars
    %sa = tile.alloc_shared : !a
    %sb = tile.alloc_shared : !a
    %acc = tile.alloc_local : !acc
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    tile.copy_async %ga[0, 0] to %sa[0, 0] sizes [64, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !a
    tile.copy_async %ga[0, 0] to %sb[0, 0] sizes [64, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !a
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [64, 64, 64]
        exec warpgroup {transpose_b} : !acc, !a, !a
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    tile.copy_async %ga[0, 0] to %sa[0, 0] sizes [64, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !a
    tile.copy_async %ga[0, 0] to %sb[0, 0] sizes [64, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !a
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %true, %ticks : !bars
    gpu.return
  }
}

// -----

!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// A cta_group 2 load completes on this CTA's barrier unless mbar_cta names
// another CTA's: the first is counted here; the second is added up per CTA
// of a declared cluster, a remark without one.
// CHECK-LABEL: gpu.func @pair_loads
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @pair_loads(%in: !g, %leader: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 16384 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    tile.copy_async %in[0, 0] to %s[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) {cta_group = 2 : i32} : !g to !s
    %pair_bytes = arith.constant 32768 : index
    // expected-remark @+1 {{expect-tx accounting of this mbarrier not proven: its bytes per CTA are not added up: the kernel declares no known_cluster_size of at most 16 CTAs}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%c1], %pair_bytes : !bars
    tile.copy_async %in[0, 0] to %s[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c1] : !bars) mbar_cta(%leader) {cta_group = 2 : i32} : !g to !s
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// The thread that stores the tile also waits for its previous store, under
// the same guard (spelled twice, `%leader` and an equal `%first`): no thread
// takes the wait's skip and the copy's issue together, so the tile is not
// rewritten under the copy.
// CHECK-LABEL: gpu.func @wait_under_the_copy_guard
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @wait_under_the_copy_guard(%out: !g, %v: f16, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.if %leader {
        tile.wait_group bulk, 0 {read}
      }
      gpu.barrier
      llvm.store %v, %base : f16, !llvm.ptr<3>
      tile.fence proxy_async
      gpu.barrier
      scf.if %first {
        tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
        tile.commit_group bulk
      }
    }
    scf.if %leader {
      tile.wait_group bulk, 0
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<?x?xf16, global>
!s = !tile.buffer<64x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// A persistent kernel's tile loops: thread 0 announces and copies once per
// tile of its own runtime loop, the other threads wait in theirs. The
// waits are on another path: the bytes are matched per trip of the
// producer's loop, so this is proven (no remark).
// CHECK-LABEL: gpu.func @waits_in_another_loop
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @waits_in_another_loop(%in: !g, %tiles: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    %tid = gpu.thread_id x
    %producer = arith.cmpi eq, %tid, %c0 : index
    scf.if %producer {
      scf.for %t = %c0 to %tiles step %c1 {
        %row = arith.muli %t, %c2 : index
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
        tile.copy_async %in[%row, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%bars[%c0] : !bars) : !g to !s
      }
    } else {
      scf.for %t = %c0 to %tiles step %c1 {
        %bit = arith.remui %t, %c2 : index
        %parity = arith.cmpi ne, %bit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %bars[%c0], %parity, %ticks : !bars
      }
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<?x?xf16, global>
!s = !tile.buffer<64x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// The same loops run by the same threads one after the other: the waits
// are not another path, so the announcements of the first runtime loop are
// compared with the copies only over the whole loop, which is not proven.
// CHECK-LABEL: gpu.func @waits_in_a_later_loop
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @waits_in_a_later_loop(%in: !g, %tiles: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    scf.for %t = %c0 to %tiles step %c1 {
      %row = arith.muli %t, %c2 : index
      // expected-remark @+1 {{expect-tx accounting of this mbarrier not proven: it is inside a loop without a constant trip count that the other operations on the barrier are not in}}
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
      tile.copy_async %in[%row, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0] : !bars) : !g to !s
    }
    scf.for %t = %c0 to %tiles step %c1 {
      %bit = arith.remui %t, %c2 : index
      %parity = arith.cmpi ne, %bit, %c0 : index
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %parity, %ticks : !bars
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// Other threads' stores read by this thread's TMA store: fenced by the
// writers before the barrier, or by the reader after it.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @others_stores_fenced_by_writers(%out: !g, %v: f16) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    %tid = gpu.thread_id x
    %writer = arith.cmpi uge, %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %writer {
      llvm.store %v, %base : f16, !llvm.ptr<3>
      tile.fence proxy_async
    }
    scf.if %writer {
      llvm.store %v, %base : f16, !llvm.ptr<3>
      tile.fence proxy_async
    }
    gpu.barrier
    scf.if %leader {
      tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
      tile.commit_group bulk
    }
    scf.if %leader {
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
  gpu.func @others_stores_fenced_by_reader(%out: !g, %v: f16) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    %tid = gpu.thread_id x
    %writer = arith.cmpi uge, %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %writer {
      llvm.store %v, %base : f16, !llvm.ptr<3>
    }
    scf.if %writer {
      llvm.store %v, %base : f16, !llvm.ptr<3>
    }
    gpu.barrier
    scf.if %leader {
      tile.fence proxy_async
      tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
      tile.commit_group bulk
    }
    scf.if %leader {
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

// Each kernel-wide check of --tile-verify-kernels firing, with its numbers.
// RUN: tile-opt %s --tile-verify-kernels -split-input-file -verify-diagnostics

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>

// Expect-tx off by 2 bytes: two 16384-byte copies, 32766 announced.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @off_by_two(%a: !g, %b: !g) kernel {
    %c0 = arith.constant 0 : index
    %bytes = arith.constant 32766 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %sa = tile.alloc_shared : !s
    %sb = tile.alloc_shared : !s
    // expected-error @+1 {{announces 32766 bytes on this mbarrier but the copies completing on it in this phase bring 32768 bytes: the phase can complete before all the data lands}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    // expected-note @+1 {{completes 16384 bytes (a 128x64xf16 region)}}
    tile.copy_async %a[0, 0] to %sa[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    // expected-note @+1 {{completes 16384 bytes}}
    tile.copy_async %b[0, 0] to %sb[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    gpu.return
  }
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>

// 16 KiB announced, two 16 KiB copies on the barrier (a stage index that is
// the same SSA value counts as the same barrier).
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @half_announced(%a: !g, %b: !g, %stage: index) kernel {
    %bytes = arith.constant 16384 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %sa = tile.alloc_shared : !s
    %sb = tile.alloc_shared : !s
    // expected-error @+1 {{announces 16384 bytes on this mbarrier but the copies completing on it in this phase bring 32768 bytes}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%stage], %bytes : !bars
    // expected-note @+1 {{completes 16384 bytes}}
    tile.copy_async %a[0, 0] to %sa[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%stage] : !bars) : !g to !s
    // expected-note @+1 {{completes 16384 bytes}}
    tile.copy_async %b[0, 0] to %sb[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%stage] : !bars) : !g to !s
    gpu.return
  }
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>

// More announced than lands: the wait hangs. The second phase (after the
// wait) is compared on its own and is right.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @two_phases(%a: !g) kernel {
    %c0 = arith.constant 0 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %wrong = arith.constant 16400 : index
    %right = arith.constant 16384 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    // expected-error @+1 {{announces 16400 bytes on this mbarrier but the copies completing on it in this phase bring 16384 bytes: a wait on it never returns}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %wrong : !bars
    // expected-note @+1 {{completes 16384 bytes}}
    tile.copy_async %a[0, 0] to %s[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %right : !bars
    tile.copy_async %a[0, 0] to %s[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %true, %ticks : !bars
    gpu.return
  }
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>

// A copy on a barrier whose phase announces nothing.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @unannounced(%a: !g) kernel {
    %c0 = arith.constant 0 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    // expected-error @+1 {{copies complete 16384 bytes on an mbarrier whose phase announces none (no mbarrier.arrive.expect_tx): the phase can complete before the data lands}}
    tile.copy_async %a[0, 0] to %s[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// Missing proxy fence: threads fill the tile with ordinary stores, the TMA
// store reads it through the async proxy.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @missing_fence(%out: !g, %v: f16) kernel {
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    %tid = gpu.thread_id x
    %i = arith.index_cast %tid : index to i32
    %p = llvm.getelementptr %base[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
    // expected-note @+1 {{written here}}
    llvm.store %v, %p : f16, !llvm.ptr<3>
    gpu.barrier
    // expected-error @+1 {{reads a shared buffer through the async proxy that threads wrote with ordinary stores and no `tile.fence proxy_async` since: the copy or MMA may read stale bytes}}
    tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
    tile.commit_group bulk
    tile.wait_group bulk, 0 {read}
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// A loop whose next trip overwrites the tile before the previous trip's TMA
// store has finished reading it (no wait_group).
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @reused_before_read(%out: !g, %v: f16, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    scf.for %k = %c0 to %n step %c1 {
      // expected-error @+1 {{threads write a shared buffer that an asynchronous tile.copy_async may still be reading: commit its bulk group and wait for it first (`tile.commit_group bulk`, `tile.wait_group bulk, 0 {read}`)}}
      llvm.store %v, %base : f16, !llvm.ptr<3>
      tile.fence proxy_async
      // expected-note @+1 {{the asynchronous reader}}
      tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
      tile.commit_group bulk
    }
    gpu.return
  }
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>

// A TMA load overwrites an operand of an MMA whose commit was not waited on.
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @mma_operand_overwritten(%a: !g, %b: !g) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 32768 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    %sa = tile.alloc_shared : !s
    %sb = tile.alloc_shared : !s
    %taddr = tile.tmem_alloc 128 columns
    %acc = tile.tmem_buffer %taddr : !acc
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    tile.copy_async %a[0, 0] to %sa[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    tile.copy_async %b[0, 0] to %sb[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    // expected-note @+1 {{the asynchronous reader}}
    tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [128, 128, 64]
        exec thread {transpose_b} : !acc, !s, !s
    tile.mma_commit mbar(%bars[%c1] : !bars) exec thread
    // The next A tile, before the wait on barrier 1.
    %half = arith.constant 16384 : index
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %half : !bars
    // expected-error @+1 {{copy_async writes a shared buffer that an asynchronous tile.gemm_async may still be reading: commit it to an mbarrier and wait on that barrier first}}
    tile.copy_async %a[0, 0] to %sa[0, 0] sizes [128, 64] exec thread
        mbar(%bars[%c0] : !bars) : !g to !s
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %ticks : !bars
    tile.tmem_dealloc %taddr, 128 columns
    gpu.return
  }
}

// -----

// 544 tensor-memory columns allocated at once.
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @too_many_columns() kernel {
    // expected-note @+1 {{512 columns allocated here}}
    %a = tile.tmem_alloc 512 columns
    // expected-error @+1 {{allocates 32 tensor-memory columns while 512 are still allocated: 544 at once, more than the 512 an SM has (tcgen05.alloc would wait forever)}}
    %b = tile.tmem_alloc 32 columns
    tile.tmem_dealloc %b, 32 columns
    tile.tmem_dealloc %a, 512 columns
    gpu.return
  }
}

// -----

// Released on one branch only.
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @one_branch(%flag: i1) kernel {
    // expected-error @+1 {{allocates 256 tensor-memory columns that are not released on every path: a tile.tmem_dealloc of this address must follow it in its block, or in both branches of an scf.if (a loop may run no trip)}}
    %a = tile.tmem_alloc 256 columns
    scf.if %flag {
      // expected-note @+1 {{released here, which not every path reaches}}
      tile.tmem_dealloc %a, 256 columns
    }
    gpu.return
  }
}

// -----

// A release of another size than the allocation.
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @wrong_size() kernel {
    %a = tile.tmem_alloc 256 columns
    // expected-error @+1 {{releases 128 columns of an allocation of 256; tcgen05.dealloc must release what tcgen05.alloc allocated}}
    tile.tmem_dealloc %a, 128 columns
    gpu.return
  }
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// A commit of the other cta_group than the kernel's allocation.
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @mixed_groups() kernel {
    %c0 = arith.constant 0 : index
    %bars = nvgpu.mbarrier.create -> !bars
    // expected-note @+1 {{first tcgen05 operation (cta_group::2)}}
    %a = tile.tmem_alloc 128 columns {cta_group = 2 : i32}
    // expected-error @+1 {{tcgen05.commit uses cta_group::1 but the tcgen05 operations it would track use cta_group::2}}
    tile.mma_commit mbar(%bars[%c0] : !bars) exec thread
    tile.tmem_dealloc %a, 128 columns {cta_group = 2 : i32}
    gpu.return
  }
}

// -----

!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// Multicast halves by cluster rank with CTA 1's half 32 rows short: each
// CTA receives 8192 + 4096 bytes of the 16384 it announces.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @multicast_half_short(%a: !g) kernel
      attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %both = arith.constant 3 : i16
    %bytes = arith.constant 16384 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    %rank_i32 = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %first = arith.cmpi eq, %rank, %c0 : index
    // expected-error @+1 {{on CTA 0 of the cluster of 2, this mbarrier's phase announces 16384 bytes but the copies completing on it bring 12288 bytes: a wait on it never returns}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    scf.if %first {
      // expected-note @+1 {{completes 8192 bytes on CTA 0 when CTA 0 issues it}}
      tile.copy_async %a[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0] : !bars) cta_mask(%both) : !g to !s
    } else {
      // expected-note @+1 {{completes 4096 bytes on CTA 0 when CTA 1 issues it}}
      tile.copy_async %a[64, 0] to %s[64, 0] sizes [32, 64] exec thread
          mbar(%bars[%c0] : !bars) cta_mask(%both) : !g to !s
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// Without multicast each CTA receives only its own copy: CTA 1 announces
// the 16384 bytes of CTA 0's branch but loads 8192.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @per_rank_own_copy_short(%a: !g) kernel
      attributes {known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %bytes = arith.constant 16384 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %i1 = arith.constant 1 : i32
    %second = arith.cmpi eq, %rank, %i1 : i32
    // expected-error @+1 {{on CTA 1 of the cluster of 2, this mbarrier's phase announces 16384 bytes but the copies completing on it bring 8192 bytes: a wait on it never returns}}
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
    scf.if %second {
      // expected-note @+1 {{completes 8192 bytes on CTA 1 when CTA 1 issues it}}
      tile.copy_async %a[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0] : !bars) : !g to !s
    } else {
      tile.copy_async %a[0, 0] to %s[0, 0] sizes [128, 64] exec thread
          mbar(%bars[%c0] : !bars) : !g to !s
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// The wait is guarded by another thread than the one that issued the store
// (bulk groups are per thread): thread 0's copy may still read the tile.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @wait_by_another_thread(%out: !g, %v: f16, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %other = arith.cmpi eq, %tid, %c1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.if %other {
        tile.wait_group bulk, 0 {read}
      }
      gpu.barrier
      // expected-error @+1 {{threads write a shared buffer that an asynchronous tile.copy_async may still be reading}}
      llvm.store %v, %base : f16, !llvm.ptr<3>
      tile.fence proxy_async
      gpu.barrier
      scf.if %leader {
        // expected-note @+1 {{the asynchronous reader}}
        tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
        tile.commit_group bulk
      }
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// The thread that issued the store waits for it, but the other threads
// write the tile with no CTA barrier after that wait.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @written_before_the_issuers_wait_is_published(%out: !g, %v: f16, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.if %leader {
        tile.wait_group bulk, 0 {read}
      }
      // expected-error @+1 {{threads write a shared buffer that an asynchronous tile.copy_async may still be reading: the threads that issued it wait for it, but nothing orders this write after their wait (a CTA barrier, or an mbarrier they release after it)}}
      llvm.store %v, %base : f16, !llvm.ptr<3>
      tile.fence proxy_async
      gpu.barrier
      scf.if %leader {
        // expected-note @+1 {{the asynchronous reader}}
        tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
        tile.commit_group bulk
      }
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// Thread 0's store is waited for on one branch only: with %flag set nobody
// waits, and the other threads write the tile after the barrier.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @waited_on_one_branch_only(%out: !g, %v: f16, %flag: i1) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !s
    %base = tile.base_address %s : !s -> !llvm.ptr<3>
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      // expected-note @+1 {{the asynchronous reader}}
      tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
      tile.commit_group bulk
    }
    scf.if %flag {
    } else {
      tile.wait_group bulk, 0 {read}
    }
    gpu.barrier
    scf.if %leader {
    } else {
      // expected-error @+1 {{threads write a shared buffer that an asynchronous tile.copy_async may still be reading}}
      llvm.store %v, %base : f16, !llvm.ptr<3>
    }
    gpu.return
  }
}

// -----

!g = !tile.buffer<?x?xf16, global>
!s = !tile.buffer<64x64xf16, shared>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

// A persistent producer's tile loop announcing half the bytes it copies,
// the waits in the consumers' loop: still checked per trip.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @short_announcement_in_a_tile_loop(%in: !g, %tiles: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = arith.constant 4096 : index
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    %tid = gpu.thread_id x
    %producer = arith.cmpi eq, %tid, %c0 : index
    scf.if %producer {
      scf.for %t = %c0 to %tiles step %c1 {
        %row = arith.muli %t, %c2 : index
        // expected-error @+1 {{announces 4096 bytes on this mbarrier but the copies completing on it in this phase bring 8192 bytes}}
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
        // expected-note @+1 {{completes 8192 bytes (a 64x64xf16 region)}}
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

!g = !tile.buffer<64x64xf16, global>
!s = !tile.buffer<64x64xf16, shared>

// The writers (warps 1-3) store the tile and arrive at the barrier without
// a proxy fence; thread 0, which wrote nothing, TMA-stores it after the
// barrier without one either.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @others_stores_unfenced(%out: !g, %v: f16) kernel {
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
      // expected-note @+1 {{written here by the other threads}}
      llvm.store %v, %base : f16, !llvm.ptr<3>
    }
    gpu.barrier
    scf.if %leader {
      // expected-error @+1 {{reads a shared buffer through the async proxy that other threads wrote with ordinary stores, with no `tile.fence proxy_async` by them before the barrier that publishes the stores nor by this thread after it}}
      tile.copy_async %s[0, 0] to %out[0, 0] sizes [64, 64] exec thread : !s to !g
      tile.commit_group bulk
    }
    scf.if %leader {
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

// A register tile's store or load by some of its threads (a warp in a
// branch the others do not take) touches only the elements those threads
// hold. In the first kernel warp 0 writes its 16 rows of a staging tile and
// TMA-stores them; warp 1, once that store is issued (a named barrier
// hands over) and while it may still read rows 0..15, writes its rows
// 16..31: no conflict (counting the whole tile's 64 rows as written, the
// simulation would report one). In the second kernel each warp rewrites
// its rows every iteration without waiting for its own TMA store: a
// conflict, reported on the rows the warp writes (its 16, not the tile's
// 64).
// RUN: tile-opt --tile-verify-kernels --split-input-file --verify-diagnostics %s -o /dev/null

!acc = !tile.buffer<64x128xbf16, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!smem = !tile.buffer<64x128xbf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
!gmem = !tile.buffer<?x?xbf16, global>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @handoff [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%out: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %i32_1 = arith.constant 1 : i32
    %i32_32 = arith.constant 32 : i32
    %i32_64 = arith.constant 64 : i32
    %x = arith.constant 1.0 : bf16
    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %warp_i32 = arith.index_cast %warp : index to i32
    %own_bar = arith.addi %warp_i32, %i32_1 : i32
    %hand_bar = arith.constant 3 : i32
    %g = tile.from_memref %out : memref<?x?xbf16, 1> -> !gmem
    %s = tile.alloc_shared {alignment = 1024 : i64} : !smem
    %acc = tile.alloc_local : !acc
    %b = nvgpu.mbarrier.create -> !bar
    scf.if %lane0 {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
    }
    tile.fill %acc, %x : !acc, bf16
    %is0 = arith.cmpi eq, %warp, %c0 : index
    scf.if %is0 {
      tile.store %acc to %s[0, 0] : !acc to !smem
      tile.fence proxy_async
      nvvm.barrier id = %own_bar number_of_threads = %i32_32
      scf.if %lane0 {
        tile.copy_async %s[0, 0] to %g[0, 0] sizes [16, 128] exec thread : !smem to !gmem
        tile.commit_group bulk
      }
      nvvm.barrier.arrive id = %hand_bar number_of_threads = %i32_64
    } else {
      // After warp 0 has issued its TMA store, which may still read rows
      // 0..15: warp 1 writes rows 16..31.
      nvvm.barrier id = %hand_bar number_of_threads = %i32_64
      scf.if %lane0 {
        tile.wait_group bulk, 0 {read}
      }
      nvvm.barrier id = %own_bar number_of_threads = %i32_32
      tile.store %acc to %s[0, 0] : !acc to !smem
      tile.fence proxy_async
      nvvm.barrier id = %own_bar number_of_threads = %i32_32
      scf.if %lane0 {
        tile.copy_async %s[16, 0] to %g[16, 0] sizes [16, 128] exec thread : !smem to !gmem
        tile.commit_group bulk
      }
    }
    scf.if %lane0 {
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

// -----

// The same without the wait: the warp rewrites rows its own TMA store may
// still read.
!acc = !tile.buffer<64x128xbf16, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!smem = !tile.buffer<64x128xbf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
!gmem = !tile.buffer<?x?xbf16, global>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @no_wait [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%out: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %i32_32 = arith.constant 32 : i32
    %x = arith.constant 1.0 : bf16
    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %warp_i32 = arith.index_cast %warp : index to i32
    %g = tile.from_memref %out : memref<?x?xbf16, 1> -> !gmem
    %s = tile.alloc_shared {alignment = 1024 : i64} : !smem
    %acc = tile.alloc_local : !acc
    // A barrier group (unused) puts the kernel in the simulation's scope.
    %b = nvgpu.mbarrier.create -> !bar
    scf.if %lane0 {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
    }
    tile.fill %acc, %x : !acc, bf16
    scf.for %i = %c0 to %c2 step %c1 {
      nvvm.barrier id = %warp_i32 number_of_threads = %i32_32
      // expected-error @+2 {{threads write a shared buffer that an asynchronous tile.copy_async may still be reading}}
      // expected-error @+1 {{thread 0 (warpgroup 0, warp 0, lane 0) writes [0..15, 0..127] of the shared buffer on line}}
      tile.store %acc to %s[0, 0] : !acc to !smem
      tile.fence proxy_async
      nvvm.barrier id = %warp_i32 number_of_threads = %i32_32
      scf.if %lane0 {
        %is0 = arith.cmpi eq, %warp, %c0 : index
        scf.if %is0 {
          // expected-note @+2 {{the asynchronous reader}}
          // expected-note @+1 {{the reader}}
          tile.copy_async %s[0, 0] to %g[0, 0] sizes [16, 128] exec thread : !smem to !gmem
        }
        %is1 = arith.cmpi eq, %warp, %c1 : index
        scf.if %is1 {
          tile.copy_async %s[16, 0] to %g[16, 0] sizes [16, 128] exec thread : !smem to !gmem
        }
        %is2 = arith.cmpi eq, %warp, %c2 : index
        scf.if %is2 {
          tile.copy_async %s[32, 0] to %g[32, 0] sizes [16, 128] exec thread : !smem to !gmem
        }
        %is3 = arith.cmpi eq, %warp, %c3 : index
        scf.if %is3 {
          tile.copy_async %s[48, 0] to %g[48, 0] sizes [16, 128] exec thread : !smem to !gmem
        }
        tile.commit_group bulk
      }
    }
    scf.if %lane0 {
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

// `tile.sample_contents` on a 1-D integer memref argument: the pipeline
// simulation reads those elements where the kernel loads from it (sequence
// offsets, expert counts), so a loop whose trip count comes from memory is
// walked and a protocol bug in it is found; without the attribute the
// simulation says where it stopped. Stores and integer atomics on such an
// argument update what later reads find (a split-K tile's arrival counter).
// RUN: tile-opt --tile-verify-kernels=simulation-remarks --split-input-file --verify-diagnostics %s -o /dev/null

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// The block count is offsets[2] - offsets[0] = 5 (the last element: the
// memref's size is the sample's length, 3); the wait's parity never flips,
// so the second block's wait passes on the first block's phase.
gpu.module @sampled [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>,
      %offsets: memref<?xi32, 1> {tile.sample_contents = array<i64: 4, 7, 9>}) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %n = memref.dim %offsets, %c0 : memref<?xi32, 1>
    %last = arith.subi %n, %c1 : index
    %first_i32 = memref.load %offsets[%c0] : memref<?xi32, 1>
    %end_i32 = memref.load %offsets[%last] : memref<?xi32, 1>
    %count_i32 = arith.subi %end_i32, %first_i32 : i32
    %blocks = arith.index_castui %count_i32 : i32 to index
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      scf.for %j = %c0 to %blocks step %c1 {
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
        // expected-error @+1 {{passes on phase 0, which it already waited for: the parity did not flip}}
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
      }
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// The same kernel without the attribute: the loop's bound is unknown.
gpu.module @unsampled [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>, %offsets: memref<?xi32, 1>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %first_i32 = memref.load %offsets[%c0] : memref<?xi32, 1>
    %end_i32 = memref.load %offsets[%c1] : memref<?xi32, 1>
    %count_i32 = arith.subi %end_i32, %first_i32 : i32
    %blocks = arith.index_castui %count_i32 : i32 to index
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      // expected-remark @+1 {{pipeline simulation of @k stopped here}}
      scf.for %j = %c0 to %blocks step %c1 {
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
      }
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// An arrival counter (a split-K tile's): lane 0 adds 1 and the warp learns
// the count before it by a shuffle. The sample holds 0, so the first
// block's count finds 0 and the second 1 (its own update): only the second
// block takes the branch, and its wait without a flipped parity is found.
gpu.module @counted [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>,
      %counters: memref<?xi32, 1> {tile.sample_contents = array<i64: 0>}) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %all = arith.constant -1 : i32
    %clamp = arith.constant 31 : i32
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    scf.for %j = %c0 to %c2 step %c1 {
      %before_lane0 = scf.if %leader -> (i32) {
        %v = memref.atomic_rmw addi %i1, %counters[%c0] : (i32, memref<?xi32, 1>) -> i32
        scf.yield %v : i32
      } else {
        scf.yield %i0 : i32
      }
      %before = nvvm.shfl.sync idx %all, %before_lane0, %i0, %clamp : i32 -> i32
      %last = arith.cmpi eq, %before, %i1 : i32
      scf.if %last {
        scf.if %leader {
          nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
          tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
              mbar(%b[%c0] : !bar) : !gmem to !smem
        }
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
        // expected-error @+1 {{passes on phase 0, which it already waited for: the parity did not flip}}
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
      }
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// The same, with the counter stored back to 0 after each count (as the
// last part resets it): no block finds 1, the branch (and its bad wait) is
// never taken.
gpu.module @reset [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>,
      %counters: memref<?xi32, 1> {tile.sample_contents = array<i64: 0>}) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %all = arith.constant -1 : i32
    %clamp = arith.constant 31 : i32
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    scf.for %j = %c0 to %c2 step %c1 {
      %before_lane0 = scf.if %leader -> (i32) {
        %v = memref.atomic_rmw addi %i1, %counters[%c0] : (i32, memref<?xi32, 1>) -> i32
        memref.store %i0, %counters[%c0] : memref<?xi32, 1>
        scf.yield %v : i32
      } else {
        scf.yield %i0 : i32
      }
      %before = nvvm.shfl.sync idx %all, %before_lane0, %i0, %clamp : i32 -> i32
      %last = arith.cmpi eq, %before, %i1 : i32
      scf.if %last {
        scf.if %leader {
          nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
          tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
              mbar(%b[%c0] : !bar) : !gmem to !smem
        }
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
      }
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// A store of a value the run does not know makes the counter unknown: the
// branch on its count is not followed, and the simulation says so.
gpu.module @unknown_store [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>, %other: memref<?xi32, 1>,
      %counters: memref<?xi32, 1> {tile.sample_contents = array<i64: 1>}) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %all = arith.constant -1 : i32
    %clamp = arith.constant 31 : i32
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    %before_lane0 = scf.if %leader -> (i32) {
      %unknown = memref.load %other[%c0] : memref<?xi32, 1>
      memref.store %unknown, %counters[%c0] : memref<?xi32, 1>
      %v = memref.atomic_rmw addi %i1, %counters[%c0] : (i32, memref<?xi32, 1>) -> i32
      scf.yield %v : i32
    } else {
      scf.yield %i0 : i32
    }
    %before = nvvm.shfl.sync idx %all, %before_lane0, %i0, %clamp : i32 -> i32
    %last = arith.cmpi eq, %before, %i1 : i32
    // expected-remark @+1 {{pipeline simulation of @k stopped here: a branch on a value that is not an integer function of thread ids, loop counters and sizes}}
    scf.if %last {
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
      }
      nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
    }
    gpu.return
  }
}

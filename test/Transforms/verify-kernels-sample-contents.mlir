// `tile.sample_contents` on a 1-D integer memref argument: the pipeline
// simulation reads those elements where the kernel loads from it (sequence
// offsets, expert counts), so a loop whose trip count comes from memory is
// walked and a protocol bug in it is found; without the attribute the
// simulation says where it stopped.
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

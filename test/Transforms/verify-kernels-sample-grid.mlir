// `tile.sample_grid` on a persistent kernel: its CTAs read that grid size
// from gpu.grid_dim, so CTA 0 walks a few of its tiles at the sample sizes
// (here 200^3 / 4000000 = 2) and a protocol bug across tiles is found;
// without it the CTA would walk all 8 million tiles and the simulation
// says it stopped.
// RUN: tile-opt --tile-verify-kernels=simulation-remarks --split-input-file --verify-diagnostics %s -o /dev/null

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Each tile loads the tile and waits for it, but the wait's parity never
// flips: the second tile's wait passes on the first tile's phase.
gpu.module @sampled [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>, %sizes: memref<?x?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>,
                  tile.sample_grid = array<i64: 4000000, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %d0 = memref.dim %sizes, %c0 : memref<?x?x?xf16, 1>
    %d1 = memref.dim %sizes, %c1 : memref<?x?x?xf16, 1>
    %d2 = memref.dim %sizes, %c2 : memref<?x?x?xf16, 1>
    %d01 = arith.muli %d0, %d1 : index
    %tiles = arith.muli %d01, %d2 : index
    %first = gpu.block_id x
    %step = gpu.grid_dim x
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      scf.for %t = %first to %tiles step %step {
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

// The same kernel, correct (the parity from the CTA's own trip count),
// without the attribute: one CTA walks every tile.
gpu.module @unsampled [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{pipeline simulation of @k stopped here: more than 4 million steps at the sample sizes}}
  gpu.func @k(%in: memref<?x?xf16, 1>, %sizes: memref<?x?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %d0 = memref.dim %sizes, %c0 : memref<?x?x?xf16, 1>
    %d1 = memref.dim %sizes, %c1 : memref<?x?x?xf16, 1>
    %d2 = memref.dim %sizes, %c2 : memref<?x?x?xf16, 1>
    %d01 = arith.muli %d0, %d1 : index
    %tiles = arith.muli %d01, %d2 : index
    %first = gpu.block_id x
    %step = gpu.grid_dim x
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      %done = scf.for %t = %first to %tiles step %step
          iter_args(%trips = %c0) -> (index) {
        %bit = arith.remui %trips, %c2 : index
        %parity = arith.cmpi ne, %bit, %c0 : index
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
        nvgpu.mbarrier.try_wait.parity %b[%c0], %parity, %ticks : !bar
        %next = arith.addi %trips, %c1 : index
        scf.yield %next : index
      }
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// The correct kernel with the attribute: simulated (no remark), each CTA
// walking 2 tiles.
gpu.module @sampled_correct [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>, %sizes: memref<?x?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>,
                  tile.sample_grid = array<i64: 4000000, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %d0 = memref.dim %sizes, %c0 : memref<?x?x?xf16, 1>
    %d1 = memref.dim %sizes, %c1 : memref<?x?x?xf16, 1>
    %d2 = memref.dim %sizes, %c2 : memref<?x?x?xf16, 1>
    %d01 = arith.muli %d0, %d1 : index
    %tiles = arith.muli %d01, %d2 : index
    %first = gpu.block_id x
    %step = gpu.grid_dim x
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      %done = scf.for %t = %first to %tiles step %step
          iter_args(%trips = %c0) -> (index) {
        %bit = arith.remui %trips, %c2 : index
        %parity = arith.cmpi ne, %bit, %c0 : index
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
        nvgpu.mbarrier.try_wait.parity %b[%c0], %parity, %ticks : !bar
        %next = arith.addi %trips, %c1 : index
        scf.yield %next : index
      }
    }
    gpu.return
  }
}

// The pipeline simulation runs cooperative (ldgsts) copies: each thread of
// the exec scope copies a share of the region and completes its bytes on
// the mbarrier. A copy that only some of the scope's threads reach leaves
// the phase short of bytes, and every waiter hangs.
// RUN: tile-opt --tile-verify-kernels=simulation-remarks --split-input-file --verify-diagnostics %s -o /dev/null

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// The copy is shared by the CTA's 128 threads, but it sits under the
// leader's guard: only thread 0's share is copied.
gpu.module @guarded [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 16384 : index
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
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
      tile.copy_async %g[0, 0] to %s[0, 0] sizes [128, 64] exec cta
          mbar(%b[%c0] : !bar) : !gmem to !smem
    }
    gpu.barrier
    // expected-error @+1 {{the kernel deadlocks}}
    nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Every thread copies its share after the barrier's init is published:
// the phase completes and the tile is read after the wait.
gpu.module @shared_by_all [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 16384 : index
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
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
    }
    gpu.barrier
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [128, 64] exec cta
        mbar(%b[%c0] : !bar) : !gmem to !smem
    nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
    gpu.return
  }
}

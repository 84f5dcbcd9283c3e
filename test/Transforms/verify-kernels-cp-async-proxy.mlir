// cp.async (the ldgsts variant) writes shared memory through the generic
// proxy; a wgmma or TMA store reads it through the async proxy. The
// reading thread must fence (`tile.fence proxy_async`) after the bytes are
// known to have landed: after its mbarrier wait, or after its cp.async
// group wait. A TMA load needs no fence.
// RUN: tile-opt %s --tile-verify-kernels -split-input-file -verify-diagnostics -o /dev/null

!gmem = !tile.buffer<?x?xbf16, global>
!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Completed on an mbarrier, read by a wgmma right after the wait.
gpu.module @mbarrier_no_fence [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xbf16, 1>, %flag: i1) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 2048 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !gmem
    %a = tile.alloc_shared : !sh
    %s = tile.alloc_local : !acc
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
    }
    gpu.barrier
    tile.copy_async %g[0, 0] to %a[0, 0] sizes [64, 16] exec warpgroup
        mbar(%b[%c0] : !bar) : !gmem to !sh
    // expected-note @+1 {{the cp.async bytes are known to have landed here; fence after this}}
    nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
    // expected-error @+1 {{reads a shared buffer through the async proxy that cp.async copies wrote (through the generic proxy) with no `tile.fence proxy_async` since their bytes landed}}
    tile.gemm_async %s[0, 0], %a[0, 0], %a[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xbf16, global>
!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

// Completed through cp.async groups, published by a barrier, read by a
// wgmma: the fence belongs after the group wait (before the barrier) or
// after the barrier.
gpu.module @group_no_fence [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xbf16, 1>, %flag: i1) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !gmem
    %a = tile.alloc_shared : !sh
    %s = tile.alloc_local : !acc
    tile.copy_async %g[0, 0] to %a[0, 0] sizes [64, 16] exec warpgroup
        : !gmem to !sh
    tile.commit_group cp_async
    // expected-note @+1 {{the cp.async bytes are known to have landed here; fence after this}}
    tile.wait_group cp_async, 0
    gpu.barrier
    // expected-error @+1 {{reads a shared buffer through the async proxy that cp.async copies wrote}}
    tile.gemm_async %s[0, 0], %a[0, 0], %a[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xbf16, global>
!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Fenced after the mbarrier wait and after the group wait: proven. A TMA
// load (async proxy) read by a wgmma needs no fence.
gpu.module @fenced [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xbf16, 1>, %flag: i1) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 2048 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %phase1 = arith.constant true
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !gmem
    %a = tile.alloc_shared : !sh
    %t = tile.alloc_shared : !sh
    %c = tile.alloc_shared : !sh
    %s = tile.alloc_local : !acc
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
    }
    gpu.barrier
    tile.copy_async %g[0, 0] to %a[0, 0] sizes [64, 16] exec warpgroup
        mbar(%b[%c0] : !bar) : !gmem to !sh
    nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
    tile.fence proxy_async
    tile.gemm_async %s[0, 0], %a[0, 0], %a[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    tile.copy_async %g[0, 0] to %c[0, 0] sizes [64, 16] exec warpgroup
        : !gmem to !sh
    tile.commit_group cp_async
    tile.wait_group cp_async, 0
    tile.fence proxy_async
    gpu.barrier
    tile.gemm_async %s[0, 0], %c[0, 0], %c[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
      tile.copy_async %g[0, 0] to %t[0, 0] sizes [64, 16] exec thread
          mbar(%b[%c0] : !bar) : !gmem to !sh
    }
    nvgpu.mbarrier.try_wait.parity %b[%c0], %phase1, %ticks : !bar
    tile.gemm_async %s[0, 0], %t[0, 0], %t[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    gpu.return
  }
}

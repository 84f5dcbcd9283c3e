// C (64x128, f32) = A (64x64, bf16) · Bᵀ (B: 128x64, bf16) on one Hopper
// warpgroup: two TMA copies into swizzled shared tiles, one wgmma, a store.
!a_g = !tile.buffer<64x64xbf16, global>
!b_g = !tile.buffer<128x64xbf16, global>
!c_g = !tile.buffer<64x128xf32, global>
!a_s = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!b_s = !tile.buffer<128x64xbf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
// The wgmma accumulator: which thread of the warpgroup holds which element.
!acc = !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @hello [#nvvm.target<chip = "sm_90a">] {
  gpu.func @gemm_tile(%a: memref<64x64xbf16, 1>, %b: memref<128x64xbf16, 1>,
                      %c: memref<64x128xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 24576 : index  // what the two copies bring
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %ga = tile.from_memref %a : memref<64x64xbf16, 1> -> !a_g
    %gb = tile.from_memref %b : memref<128x64xbf16, 1> -> !b_g
    %gc = tile.from_memref %c : memref<64x128xf32, 1> -> !c_g
    %sa = tile.alloc_shared : !a_s
    %sb = tile.alloc_shared : !b_s
    %full = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {  // one thread issues both TMA copies
      nvgpu.mbarrier.init %full[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %full[%c0], %bytes : !bar
      tile.copy_async %ga[0, 0] to %sa[0, 0] sizes [64, 64] exec thread
          mbar(%full[%c0] : !bar) : !a_g to !a_s
      tile.copy_async %gb[0, 0] to %sb[0, 0] sizes [128, 64] exec thread
          mbar(%full[%c0] : !bar) : !b_g to !b_s
    }
    gpu.barrier
    nvgpu.mbarrier.try_wait.parity %full[%c0], %phase0, %ticks : !bar
    %acc = tile.alloc_local : !acc
    tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [64, 128, 64]
        exec warpgroup {transpose_b} : !acc, !a_s, !b_s
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    tile.store %acc to %gc[0, 0] : !acc to !c_g
    gpu.return
  }
}

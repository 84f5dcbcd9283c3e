// Swap-AB in a kernel to PTX: a 16 x 64 x 32 f16 gemm_async (no wgmma has
// M 16) is two m64n16k16 MMAs of C^T = B A^T, assembled by ptxas.
// REQUIRES: ptxas
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

!x = !tile.buffer<16x32xf16, shared, #tile.layout<S[(16,32):(32,1)], swizzle<2,3,3>>>
!w = !tile.buffer<64x32xf16, shared, #tile.layout<S[(64,32):(32,1)], swizzle<2,3,3>>>
!acc = !tile.buffer<16x64xf32, local, #tile.layout<S[(2,4,2,4,2,8):(4,1@tid_in_wg,1,32@tid_in_wg,2,4@tid_in_wg)]>>

// CHECK-LABEL: .entry swap_ab_kernel
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @swap_ab_kernel(%x: !x, %w: !w) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %acc = tile.alloc_local : !acc
    tile.gemm_async %acc[0, 0], %x[0, 0], %w[0, 0] sizes [16, 64, 32] exec warpgroup {transpose_b} : !acc, !x, !w
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    gpu.return
  }
}

// Swap-AB: C [16, 64] = A [16, 32] B^T has no wgmma of M 16, so dispatch
// computes C^T = B A^T: two m64n16k16 MMAs whose A descriptor starts from
// the op's B buffer (%arg1) and whose B descriptor from the op's A buffer
// (%arg0), both K-major with the 64-byte swizzle, a K step 32 bytes (2
// units) along each. C's layout is the accumulator fragment transposed, so
// its 8 registers are the fragment's in order. The lowering check reads
// the MMAs back as the swapped problem.
// RUN: tile-opt %s --tile-select-variants="chip=sm_90a" --tile-lower-variants=check=1 | FileCheck %s

!x = !tile.buffer<16x32xf16, shared, #tile.layout<S[(16,32):(32,1)], swizzle<2,3,3>>>
!w = !tile.buffer<64x32xf16, shared, #tile.layout<S[(64,32):(32,1)], swizzle<2,3,3>>>
!acc = !tile.buffer<16x64xf32, local, #tile.layout<S[(2,4,2,4,2,8):(4,1@tid_in_wg,1,32@tid_in_wg,2,4@tid_in_wg)]>>

// CHECK-LABEL: func.func @swap_ab
// CHECK-SAME: (%[[X:.+]]: !llvm.ptr<3>, %[[W:.+]]: !llvm.ptr<3>)
// CHECK: llvm.alloca %{{.+}} x !llvm.array<8 x f32>
// CHECK: llvm.ptrtoint %[[W]]
// CHECK: %[[ADESC:.+]] = arith.ori %{{.+}}, %{{.+}} : i64
// CHECK: llvm.ptrtoint %[[X]]
// CHECK: %[[BDESC:.+]] = arith.ori %{{.+}}, %{{.+}} : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[D0:.+]] = nvvm.wgmma.mma_async %[[ADESC]], %[[BDESC]], %{{.+}}, <m = 64, n = 16, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: %[[A1:.+]] = arith.addi %[[ADESC]], %{{.+}} : i64
// CHECK: %[[B1:.+]] = arith.addi %[[BDESC]], %{{.+}} : i64
// CHECK: nvvm.wgmma.mma_async %[[A1]], %[[B1]], %[[D0]], <m = 64, n = 16, k = 16>, D[<f32>, <one>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK-COUNT-8: llvm.store
// CHECK: return
func.func @swap_ab(%x: !x, %w: !w) {
  %acc = tile.alloc_local : !acc
  tile.gemm_async %acc[0, 0], %x[0, 0], %w[0, 0] sizes [16, 64, 32] exec warpgroup {transpose_b} : !acc, !x, !w
  return
}

// Two stages of one ring as A and B lower to one pointer: the check cannot
// tell the form from the descriptors' buffers and takes the one whose
// shapes match. M = 128 fits wgmma directly, but C is the fragment
// transposed, so this is swap-AB: two m64n128k16 MMAs (C^T is 64 x 128).
!ring = !tile.buffer<2x128x32xf16, shared, #tile.layout<S[(2,128,32):(4096,32,1)], swizzle<2,3,3>>>
!acc_t = !tile.buffer<128x64xf32, local, #tile.layout<S[(16,4,2,4,2,8):(4,1@tid_in_wg,1,32@tid_in_wg,2,4@tid_in_wg)]>>
// CHECK-LABEL: func.func @swap_ab_one_ring
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @swap_ab_one_ring(%s: !ring) {
  %acc = tile.alloc_local : !acc_t
  tile.gemm_async %acc[0, 0], %s[0, 0, 0], %s[1, 0, 0] sizes [128, 64, 32] exec warpgroup {transpose_b} : !acc_t, !ring, !ring
  return
}

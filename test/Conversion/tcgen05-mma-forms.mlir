// tcgen05.mma forms a user chooses: weight-stationary `.ws` (data paths D, E
// and G), an explicit instruction tile, the collector buffer, MN-major tf32
// through the 128-byte swizzle of 32-byte atoms, and the cta_group 2 M 128
// accumulator on the folded data path B. Instruction descriptors are pinned
// as computed by hand from the PTX ISA's field table; the PTX is assembled
// for sm_100a.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

!a64 = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!a32 = !tile.buffer<32x64xf16, shared, #tile.layout<S[(32,64):(64,1)], swizzle<3,3,3>>>
!a128 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!a16 = !tile.buffer<128x16xf16, shared, #tile.layout<S[(128,16):(16,1)], swizzle<1,3,3>>>
!b128 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!b256 = !tile.buffer<256x64xf16, shared, #tile.layout<S[(256,64):(64,1)], swizzle<3,3,3>>>
!b16 = !tile.buffer<128x16xf16, shared, #tile.layout<S[(128,16):(16,1)], swizzle<1,3,3>>>
// Data path E (M 64 .ws): N halves on lanes 0-63 / 64-127, 64 columns.
!accE = !tile.buffer<64x128xf32, tmem, #tile.layout<S[(64,2,64):(1@TLane,64@TLane,1@TCol)]>>
// Data path G (M 32 .ws): N quarters on the four 32-lane slabs.
!accG = !tile.buffer<32x256xf32, tmem, #tile.layout<S[(32,4,64):(1@TLane,32@TLane,1@TCol)]>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
// Data path B (M 128, cta_group 2): this CTA's 64 rows, N folded.
!accB = !tile.buffer<64x256xf32, tmem, #tile.layout<S[(64,2,128):(1@TLane,64@TLane,1@TCol)]>>
// tf32: A K-major (128B swizzle), B [K, N] N-contiguous with the 32-byte-atom
// 128-byte swizzle (swizzle<2,3,2> on 4-byte elements).
!atf = !tile.buffer<128x32xf32, shared, #tile.layout<S[(128,32):(32,1)], swizzle<3,2,3>>>
!btf = !tile.buffer<32x64xf32, shared, #tile.layout<S[(32,2,32):(32,1024,1)], swizzle<2,3,2>>>
!acc64 = !tile.buffer<128x64xf32, tmem, #tile.layout<S[(128,64):(1@TLane,1@TCol)]>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  // CHECK-LABEL: gpu.func @ws_m64
  // 0x04200010: f16 -> f32, N 128 (16 << 17), M 64 (4 << 24).
  // CHECK: arith.constant 69206032 : i32
  // CHECK-COUNT-4: nvvm.tcgen05.mma.ws {{.*}}kind = #nvvm.tcgen05_mma_kind<f16>
  // CHECK-NOT: nvvm.tcgen05.mma
  // PTX-LABEL: .func ws_m64
  // PTX-COUNT-4: tcgen05.mma.ws.cta_group::1.kind::f16
  gpu.func @ws_m64(%c: !accE, %a: !a64, %b: !b128) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [64, 128, 64] exec thread
        {transpose_b, weight_stationary} : !accE, !a64, !b128
    gpu.return
  }

  // CHECK-LABEL: gpu.func @ws_m32
  // 0x02400010: N 256 (32 << 17), M 32 (2 << 24).
  // CHECK: arith.constant 37748752 : i32
  // CHECK-COUNT-4: nvvm.tcgen05.mma.ws
  gpu.func @ws_m32(%c: !accG, %a: !a32, %b: !b256) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [32, 256, 64] exec thread
        {transpose_b, weight_stationary} : !accG, !a32, !b256
    gpu.return
  }

  // One .ws MMA filling B's collector buffer b2.
  // CHECK-LABEL: gpu.func @ws_collector
  // CHECK: nvvm.tcgen05.mma.ws {{.*}}collectorBBuffer = #nvvm.tcgen05_mma_collectorb<b2>, collectorOp = #nvvm.tcgen05_mma_collectorop<fill>
  // PTX-LABEL: .func ws_collector
  // PTX: tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::fill
  gpu.func @ws_collector(%c: !acc, %a: !a16, %b: !b16) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 16] exec thread
        {transpose_b, weight_stationary, collector_buffer = 2 : i32,
         collector = #tile.collector<fill>} : !acc, !a16, !b16
    gpu.return
  }

  // 128x128 as M128 x N64 instructions: two N tiles per K step.
  // CHECK-LABEL: gpu.func @instruction_shape_128x64
  // 0x08100010: N 64 (8 << 17), M 128.
  // CHECK: arith.constant 135266320 : i32
  // CHECK-COUNT-8: nvvm.tcgen05.mma {{.*}}ctaGroup = #nvvm.cta_group<cta_1>
  gpu.func @instruction_shape_128x64(%c: !acc, %a: !a128, %b: !b128) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64] exec thread
        {transpose_b, instruction_shape = array<i64: 128, 64>} : !acc, !a128, !b128
    gpu.return
  }

  // MN-major tf32 B: descriptor layout type 1 (bits 61-63), LBO 4096 B (the
  // next 32 N), SBO 512 B (the next 4 K rows), bit 46: 0x2000402001000000.
  // CHECK-LABEL: gpu.func @tf32_mn_major_b
  // CHECK: arith.constant 2305913515413602304 : i64
  // 0x08110910: tf32 A and B (2), B MN-major (bit 16), N 64, M 128.
  // CHECK: arith.constant 135334160 : i32
  // CHECK-COUNT-4: nvvm.tcgen05.mma {{.*}}kind = #nvvm.tcgen05_mma_kind<tf32>
  gpu.func @tf32_mn_major_b(%c: !acc64, %a: !atf, %b: !btf) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 64, 32] exec thread
        : !acc64, !atf, !btf
    gpu.return
  }

  // cta_group 2, M 128 for the pair: the accumulator on data path B.
  // CHECK-LABEL: gpu.func @pair_m128_folded
  // 0x08400010: N 256 (32 << 17), M 128 (8 << 24).
  // CHECK: arith.constant 138412048 : i32
  // CHECK-COUNT-4: nvvm.tcgen05.mma {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
  gpu.func @pair_m128_folded(%c: !accB, %a: !a64, %b: !b128) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 256, 64] exec thread
        {cta_group = 2 : i32, transpose_b} : !accB, !a64, !b128
    gpu.return
  }
}

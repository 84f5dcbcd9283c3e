// gemm_async lowered to tcgen05.mma, one function per kind and form: the
// shared descriptor constants (LBO, SBO, bit 46, swizzle) and instruction
// descriptors are pinned, then per MMA the descriptor start offsets
// (bytes >> 4), the tensor-memory addresses and the input-D flag. The PTX
// is assembled for sm_100a.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

// 128B-swizzled NVMMA tiles, K contiguous (K-major) or M/N contiguous.
!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!b16mn = !tile.buffer<64x128xf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
!bf16 = !tile.buffer<128x64xbf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!tf32 = !tile.buffer<128x32xf32, shared, #tile.layout<S[(128,32):(32,1)], swizzle<3,2,3>>>
!e4m3 = !tile.buffer<128x128xf8E4M3FN, shared, #tile.layout<S[(128,128):(128,1)], swizzle<3,4,3>>>
!s8 = !tile.buffer<128x128xi8, shared, #tile.layout<S[(128,128):(128,1)], swizzle<3,4,3>>>
!fp4 = !tile.buffer<128x256xf4E2M1FN, shared, #tile.layout<S[(128,256):(256,1)], swizzle<3,5,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
!acc512 = !tile.buffer<128x512xf32, tmem, #tile.layout<S[(128,512):(1@TLane,1@TCol)]>>
!acc256 = !tile.buffer<128x256xf32, tmem, #tile.layout<S[(128,256):(1@TLane,1@TCol)]>>
!acci = !tile.buffer<128x128xi32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
!atmem = !tile.buffer<128x64xf16, tmem, #tile.layout<S[(128,64):(1@TLane,1@TCol)] + 256@TCol>>
// Scale tiles as tcgen05.mma reads them: row r in lane r % 32 of every
// 32-lane partition (R[4:32@TLane]), column r / 32; K blocks in the bytes
// of a column, then the next group of columns (TCol counts bytes).
!sf8 = !tile.buffer<128x4xf8E8M0FNU, tmem, #tile.layout<S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane] + 1024@TCol>>
!sf8b = !tile.buffer<128x4xf8E8M0FNU, tmem, #tile.layout<S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane] + 1040@TCol>>
!sf8x8 = !tile.buffer<128x8xf8E8M0FNU, tmem, #tile.layout<S[(4,32,2,4):(4@TCol,1@TLane,16@TCol,1@TCol)] + R[4:32@TLane] + 1024@TCol>>
!sf8x8b = !tile.buffer<128x8xf8E8M0FNU, tmem, #tile.layout<S[(4,32,2,4):(4@TCol,1@TLane,16@TCol,1@TCol)] + R[4:32@TLane] + 1056@TCol>>
!sf43 = !tile.buffer<128x16xf8E4M3FN, tmem, #tile.layout<S[(4,32,4,4):(4@TCol,1@TLane,16@TCol,1@TCol)] + R[4:32@TLane] + 1024@TCol>>
!sf43b = !tile.buffer<128x16xf8E4M3FN, tmem, #tile.layout<S[(4,32,4,4):(4@TCol,1@TLane,16@TCol,1@TCol)] + R[4:32@TLane] + 1088@TCol>>
// A's scales broadcast along K (stride 0), byte 2 of columns 256..259.
!sf8bc = !tile.buffer<128x4xf8E8M0FNU, tmem, #tile.layout<S[(4,32,4):(4@TCol,1@TLane,0@TCol)] + R[4:32@TLane] + 1026@TCol>>
// cta_group 2: B's scales for all 256 N rows (8 columns; under layout B
// the two N halves in lanes 0-63 / 64-127, 4 columns), A's 64 rows of an
// M 128 pair in 2 columns.
!sfb256 = !tile.buffer<256x4xf8E8M0FNU, tmem, #tile.layout<S[(8,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane] + 1040@TCol>>
!sfb256h = !tile.buffer<256x4xf8E8M0FNU, tmem, #tile.layout<S[(2,4,32,4):(64@TLane,4@TCol,1@TLane,1@TCol)] + R[2:32@TLane] + 1040@TCol>>
!sfa64 = !tile.buffer<64x4xf8E8M0FNU, tmem, #tile.layout<S[(2,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane] + 1024@TCol>>
!e4m3h = !tile.buffer<64x128xf8E4M3FN, shared, #tile.layout<S[(64,128):(128,1)], swizzle<3,4,3>>>
!accf = !tile.buffer<64x256xf32, tmem, #tile.layout<S[(64,2,128):(1@TLane,64@TLane,1@TCol)]>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  // The gemm_async example: 128x64 (K-major) by 64x128 (N contiguous:
  // MN-major) f16 into tmem columns 256..383: 4 MMAs of K 16.
  // CHECK-LABEL: gpu.func @f16_128x128x64
  // CHECK-SAME: (%[[C:.*]]: i32, %[[A:.*]]: !llvm.ptr<3>, %[[B:.*]]: !llvm.ptr<3>)
  // CHECK: %[[AADDR:.*]] = llvm.ptrtoint %[[A]] : !llvm.ptr<3> to i32
  // 0x4000404000010000: swizzle 128B, SBO 1024 B, LBO 16 B (unread), bit 46.
  // CHECK: %[[ATPL:.*]] = arith.constant 4611756662049538048 : i64
  // CHECK: %[[ADESC:.*]] = arith.ori %{{.*}}, %[[ATPL]] : i64
  // CHECK: %[[BADDR:.*]] = llvm.ptrtoint %[[B]] : !llvm.ptr<3> to i32
  // 0x4000404002000000: MN-major B, LBO 8192 B (next 64 N), SBO 1024 B.
  // CHECK: %[[BTPL:.*]] = arith.constant 4611756662083026944 : i64
  // CHECK: %[[BDESC:.*]] = arith.ori %{{.*}}, %[[BTPL]] : i64
  // CHECK: %[[C256:.*]] = arith.constant 256 : i32
  // CHECK: %[[DADDR:.*]] = arith.addi %[[C]], %[[C256]] : i32
  // CHECK: %[[D:.*]] = llvm.inttoptr %[[DADDR]] : i32 to !llvm.ptr<6>
  // 0x08210010: f16 x f16 -> f32, B MN-major, N 128, M 128.
  // CHECK: %[[IDESC:.*]] = arith.constant 136380432 : i32
  // CHECK: %[[FALSE:.*]] = arith.constant false
  // CHECK: nvvm.tcgen05.mma %[[D]], %[[ADESC]], %[[BDESC]], %[[IDESC]], %[[FALSE]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
  // A advances 32 B (2 x 16 B), B 16 K rows (2048 B = 128 x 16 B).
  // CHECK: %[[A1OFF:.*]] = arith.constant 2 : i64
  // CHECK: %[[A1:.*]] = arith.addi %[[ADESC]], %[[A1OFF]] : i64
  // CHECK: %[[B1OFF:.*]] = arith.constant 128 : i64
  // CHECK: %[[B1:.*]] = arith.addi %[[BDESC]], %[[B1OFF]] : i64
  // CHECK: %[[TRUE:.*]] = arith.constant true
  // CHECK: nvvm.tcgen05.mma %{{.*}}, %[[A1]], %[[B1]], %{{.*}}, %[[TRUE]]
  // CHECK: arith.constant 4 : i64
  // CHECK: arith.constant 256 : i64
  // CHECK: nvvm.tcgen05.mma
  // CHECK: arith.constant 6 : i64
  // CHECK: arith.constant 384 : i64
  // CHECK: nvvm.tcgen05.mma
  // CHECK-NOT: nvvm.tcgen05.mma
  // CHECK: gpu.return
  // PTX-LABEL: f16_128x128x64
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
  gpu.func @f16_128x128x64(%c: !acc512, %a: !a16, %b: !b16mn) {
    tile.gemm_async %c[0, 256], %a[0, 0], %b[0, 0] sizes [128, 128, 64] exec thread
        : !acc512, !a16, !b16mn
    gpu.return
  }

  // bf16, B stored [N, K] (K-major), accumulate(%p): the first MMA takes %p.
  // CHECK-LABEL: gpu.func @bf16_accumulate
  // CHECK-SAME: %[[P:arg[0-9]+]]: i1)
  // 0x08200490: bf16 (format 1) for A and B, f32 D.
  // CHECK: %[[IDESC:.*]] = arith.constant 136316048 : i32
  // CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %[[P]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
  // CHECK-COUNT-3: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %true
  // CHECK-NOT: nvvm.tcgen05.mma
  gpu.func @bf16_accumulate(%c: !acc, %a: !bf16, %b: !bf16, %p: i1) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64] exec thread accumulate(%p) {transpose_b}
        : !acc, !bf16, !bf16
    gpu.return
  }

  // tf32 (f32 tiles): K 8 per MMA, 4 MMAs over one 128-byte row.
  // CHECK-LABEL: gpu.func @tf32
  // 0x08200910: format 2 for A and B.
  // CHECK: arith.constant 136317200 : i32
  // CHECK-COUNT-4: kind = #nvvm.tcgen05_mma_kind<tf32>
  // PTX-LABEL: tf32
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::tf32
  gpu.func @tf32(%c: !acc, %a: !tf32, %b: !tf32) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 32] exec thread {transpose_b}
        : !acc, !tf32, !tf32
    gpu.return
  }

  // fp8 e4m3: kind::f8f6f4, K 32, 4 MMAs.
  // CHECK-LABEL: gpu.func @e4m3
  // CHECK: arith.constant 136314896 : i32
  // CHECK-COUNT-4: kind = #nvvm.tcgen05_mma_kind<f8f6f4>
  // PTX-LABEL: e4m3
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4
  gpu.func @e4m3(%c: !acc, %a: !e4m3, %b: !e4m3) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 128] exec thread {transpose_b}
        : !acc, !e4m3, !e4m3
    gpu.return
  }

  // i8 (signless = s8) into i32: kind::i8, 0x082004A0 (Triton's s8 value).
  // CHECK-LABEL: gpu.func @s8
  // CHECK: arith.constant 136316064 : i32
  // CHECK-COUNT-4: kind = #nvvm.tcgen05_mma_kind<i8>
  // PTX-LABEL: s8
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::i8
  gpu.func @s8(%c: !acci, %a: !s8, %b: !s8) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 128] exec thread {transpose_b}
        : !acci, !s8, !s8
    gpu.return
  }

  // Block-scaled e4m3 with ue8m0 scales at columns 256.. (A) and 260.. (B):
  // one scale per row per MMA, bytes 0..3 of the columns = scale-factor ids
  // 0..3.
  // CHECK-LABEL: gpu.func @mxf8f6f4
  // 0x08A00000: e4m3 (0), ue8m0 (bit 23), ids 0.
  // CHECK: arith.constant 144703488 : i32
  // CHECK: %[[C256:.*]] = arith.constant 256 : i32
  // CHECK: %[[SFAADDR:.*]] = arith.addi %{{.*}}, %[[C256]] : i32
  // CHECK: %[[SFA:.*]] = llvm.inttoptr %[[SFAADDR]] : i32 to !llvm.ptr<6>
  // CHECK: %[[C260:.*]] = arith.constant 260 : i32
  // CHECK: %[[SFBADDR:.*]] = arith.addi %{{.*}}, %[[C260]] : i32
  // CHECK: %[[SFB:.*]] = llvm.inttoptr %[[SFBADDR]] : i32 to !llvm.ptr<6>
  // CHECK: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SFA]], %[[SFB]] {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>}
  // ids 1: 0x08A00000 | 1 << 29 | 1 << 4.
  // CHECK: arith.constant 681574416 : i32
  // CHECK: nvvm.tcgen05.mma.block_scale
  // CHECK: nvvm.tcgen05.mma.block_scale
  // CHECK: nvvm.tcgen05.mma.block_scale
  // CHECK-NOT: nvvm.tcgen05.mma
  // PTX-LABEL: mxf8f6f4
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale
  gpu.func @mxf8f6f4(%c: !acc, %a: !e4m3, %b: !e4m3, %sfa: !sf8, %sfb: !sf8b) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 128] exec thread
        scales(%sfa, %sfb : !sf8, !sf8b) {transpose_b}
        : !acc, !e4m3, !e4m3
    gpu.return
  }

  // Packed fp4 with ue8m0: kind::mxf4, K 64, two scales a row per MMA.
  // CHECK-LABEL: gpu.func @mxf4
  // 0x08A00480: formats 1, ue8m0.
  // CHECK: arith.constant 144704640 : i32
  // CHECK-COUNT-4: kind = #nvvm.block_scale_kind<mxf4>
  // PTX-LABEL: mxf4
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf4.block_scale
  gpu.func @mxf4(%c: !acc, %a: !fp4, %b: !fp4, %sfa: !sf8x8, %sfb: !sf8x8b) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 256] exec thread
        scales(%sfa, %sfb : !sf8x8, !sf8x8b) {transpose_b}
        : !acc, !fp4, !fp4
    gpu.return
  }

  // Packed fp4 with ue4m3 scales per 16 elements: kind::mxf4nvf4, block16.
  // CHECK-LABEL: gpu.func @mxf4nvf4
  // 0x08200480: formats 1, ue4m3 (bit 23 clear).
  // CHECK: arith.constant 136316032 : i32
  // CHECK-COUNT-4: {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>}
  // PTX-LABEL: mxf4nvf4
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
  gpu.func @mxf4nvf4(%c: !acc, %a: !fp4, %b: !fp4, %sfa: !sf43, %sfb: !sf43b) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 256] exec thread
        scales(%sfa, %sfb : !sf43, !sf43b) {transpose_b}
        : !acc, !fp4, !fp4
    gpu.return
  }

  // Block-scaled cta_group 2, the pair's M 256 x N 256 (layout A): this
  // CTA's 128 rows of A's scales at column 256, all 256 rows of B's at
  // 260..267; ids 0..3 per K step, the addresses fixed.
  // CHECK-LABEL: gpu.func @mxf8f6f4_pair
  // 0x10C00000: M 256 (bits 27-28 = 2), N 256 (bits 17-22 = 32), ue8m0.
  // CHECK: arith.constant 281018368 : i32
  // CHECK: %[[P256:.*]] = arith.constant 256 : i32
  // CHECK: arith.addi %{{.*}}, %[[P256]] : i32
  // CHECK: %[[P260:.*]] = arith.constant 260 : i32
  // CHECK: arith.addi %{{.*}}, %[[P260]] : i32
  // CHECK: nvvm.tcgen05.mma.block_scale {{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.block_scale_kind<mxf8f6f4>}
  // 0x30C00010: ids 1.
  // CHECK: arith.constant 817889296 : i32
  // CHECK-COUNT-3: nvvm.tcgen05.mma.block_scale
  // CHECK-NOT: nvvm.tcgen05.mma
  // PTX-LABEL: mxf8f6f4_pair
  // PTX-COUNT-4: tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale
  gpu.func @mxf8f6f4_pair(%c: !acc256, %a: !e4m3, %b: !e4m3, %sfa: !sf8, %sfb: !sfb256) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [256, 256, 128] exec thread
        scales(%sfa, %sfb : !sf8, !sfb256) {cta_group = 2 : i32, transpose_b}
        : !acc256, !e4m3, !e4m3
    gpu.return
  }

  // Block-scaled cta_group 2, the pair's M 128 x N 256 (layout B): C folded,
  // this CTA's 64 rows of A's scales in columns 256-257, B's N halves in
  // lanes 0-63 / 64-127 of columns 260..263.
  // CHECK-LABEL: gpu.func @mxf8f6f4_pair_m128
  // 0x08C00000, then ids 1: 0x28C00010.
  // CHECK: arith.constant 146800640 : i32
  // CHECK: nvvm.tcgen05.mma.block_scale {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
  // CHECK: arith.constant 683671568 : i32
  // PTX-LABEL: mxf8f6f4_pair_m128
  // PTX-COUNT-4: tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale
  gpu.func @mxf8f6f4_pair_m128(%c: !accf, %a: !e4m3h, %b: !e4m3, %sfa: !sfa64, %sfb: !sfb256h) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 256, 128] exec thread
        scales(%sfa, %sfb : !sfa64, !sfb256h) {cta_group = 2 : i32, transpose_b}
        : !accf, !e4m3h, !e4m3
    gpu.return
  }

  // A's scales broadcast along K: every MMA reads byte 2 (A id 2) of the
  // same columns; B's ids step 0..3.
  // CHECK-LABEL: gpu.func @mxf8f6f4_broadcast
  // 0x48A00000, 0x48A00010, 0x48A00020, 0x48A00030.
  // CHECK: arith.constant 1218445312 : i32
  // CHECK: %[[B256:.*]] = arith.constant 256 : i32
  // CHECK: %[[BSFA:.*]] = arith.addi %{{.*}}, %[[B256]] : i32
  // CHECK: %[[BSFAP:.*]] = llvm.inttoptr %[[BSFA]] : i32 to !llvm.ptr<6>
  // CHECK: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BSFAP]],
  // CHECK: arith.constant 1218445328 : i32
  // CHECK: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BSFAP]],
  // CHECK: arith.constant 1218445344 : i32
  // CHECK: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BSFAP]],
  // CHECK: arith.constant 1218445360 : i32
  // CHECK: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BSFAP]],
  // PTX-LABEL: mxf8f6f4_broadcast
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale
  gpu.func @mxf8f6f4_broadcast(%c: !acc, %a: !e4m3, %b: !e4m3, %sfa: !sf8bc, %sfb: !sf8b) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 128] exec thread
        scales(%sfa, %sfb : !sf8bc, !sf8b) {transpose_b}
        : !acc, !e4m3, !e4m3
    gpu.return
  }

  // cta_group 2: the pair's M 256 x N 256; this CTA holds A 128x64, B's
  // 128 N rows, C 128x256.
  // CHECK-LABEL: gpu.func @cta_group_2
  // 0x10400010: M 256 (bit 28), N 256 (bit 22), f32 D.
  // CHECK: arith.constant 272629776 : i32
  // CHECK-COUNT-4: {ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f16>}
  // PTX-LABEL: cta_group_2
  // PTX-COUNT-4: tcgen05.mma.cta_group::2.kind::f16
  gpu.func @cta_group_2(%c: !acc256, %a: !a16, %b: !a16) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [256, 256, 64] exec thread {cta_group = 2 : i32, transpose_b}
        : !acc256, !a16, !a16
    gpu.return
  }

  // A in tensor memory (columns 128..159, 2 f16 per column): +8 columns per
  // K step.
  // CHECK-LABEL: gpu.func @tmem_a
  // CHECK-SAME: (%[[C:.*]]: i32, %[[A:.*]]: i32, %{{.*}}: !llvm.ptr<3>)
  // CHECK: %[[C128:.*]] = arith.constant 128 : i32
  // CHECK: %[[AADDR:.*]] = arith.addi %[[A]], %[[C128]] : i32
  // CHECK: %[[AT:.*]] = llvm.inttoptr %[[AADDR]] : i32 to !llvm.ptr<6>
  // CHECK: nvvm.tcgen05.mma %{{.*}}, %[[AT]], %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
  // CHECK: arith.constant 136 : i32
  // CHECK: nvvm.tcgen05.mma
  // CHECK: arith.constant 144 : i32
  // CHECK: nvvm.tcgen05.mma
  // CHECK: arith.constant 152 : i32
  // CHECK: nvvm.tcgen05.mma
  // PTX-LABEL: tmem_a
  // PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], [%r{{[0-9]+}}]
  gpu.func @tmem_a(%c: !acc, %a: !atmem, %b: !a16) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64] exec thread {transpose_b}
        : !acc, !atmem, !a16
    gpu.return
  }

  // exec warp: the lane elect.sync picks issues the MMAs.
  // CHECK-LABEL: gpu.func @exec_warp
  // CHECK: %[[E:.*]] = nvvm.elect.sync -> i1
  // CHECK: scf.if %[[E]] {
  // CHECK-COUNT-4: nvvm.tcgen05.mma
  // CHECK: }
  // PTX-LABEL: exec_warp
  // PTX: elect.sync
  gpu.func @exec_warp(%c: !acc, %a: !a16, %b: !a16) {
    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64] exec warp {transpose_b}
        : !acc, !a16, !a16
    gpu.return
  }
}

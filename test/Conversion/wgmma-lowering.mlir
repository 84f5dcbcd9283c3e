// gemm_async into a register tile on sm_90a dispatches to wgmma: a 128 x
// 128 x 32 f16 op is 2 (M) x 2 (K) m64n128k16 MMAs after one fence, each
// output tile's K steps chained; A K-major with the 64-byte swizzle (SBO
// 512 B, LBO unread: 16 B; swizzle field 2 at bits 62-63), B MN-major with
// the 128-byte swizzle (LBO 4096 B between 64-column atoms, SBO 1024 B
// between 8-row K groups, field 1). A K step moves A by 32 B (2 units) and B
// by 2048 B (128); the second M tile starts 4096 B (256) into A. The
// runtime accumulate flag zeroes the registers before the fence and every
// MMA adds (scale-d 1).
// RUN: tile-opt %s --tile-select-variants="chip=sm_90a" --tile-lower-variants=check=1 | FileCheck %s

!a = !tile.buffer<128x32xf16, shared, #tile.layout<S[(128,32):(32,1)], swizzle<2,3,3>>>
!b = !tile.buffer<32x128xf16, shared, #tile.layout<S[(32,2,64):(64,2048,1)], swizzle<3,3,3>>>
// Two 64-row tiles of one warpgroup, 64 registers apart.
!acc = !tile.buffer<128x128xf32, local, #tile.layout<S[(2,4,2,8,16,4,2):(64,32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.+]]: !llvm.ptr<3>, %[[B:.+]]: !llvm.ptr<3>, %[[P:.+]]: i1)
// CHECK: %[[TILE:.+]] = llvm.alloca %{{.+}} x !llvm.array<128 x f32>
// CHECK: %[[ZERO:.+]] = llvm.mlir.zero : f32
// Tile 0, fragment register 0 is local register 0; tile 1's is 64.
// CHECK: llvm.getelementptr %[[TILE]][0, 0]
// CHECK: %[[R0:.+]] = llvm.load
// CHECK: llvm.select %[[P]], %[[R0]], %[[ZERO]] : i1, f32
// CHECK-COUNT-63: llvm.select %[[P]]
// CHECK: llvm.getelementptr %[[TILE]][0, 64]
// CHECK-COUNT-64: llvm.select %[[P]]
// Each tile's 64 inputs pinned before the fence (no instruction; LLVM
// cannot move the selects, or materialized zeros, past the fence), and the
// MMA chain starts from the pinned values.
// CHECK: %[[PIN0:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=f,){63}=f}},0,1,{{.+}},63"
// CHECK-NEXT: %[[PIN00:.+]] = llvm.extractvalue %[[PIN0]][0]
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=f,){63}=f}},0,1,{{.+}},63"
// CHECK: llvm.insertvalue %[[PIN00]], %{{.+}}[0]
// CHECK: %[[ADESC:.+]] = arith.ori %{{.+}}, %{{.+}} : i64
// CHECK: %[[BDESC:.+]] = arith.ori %{{.+}}, %{{.+}} : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.load
// CHECK: %[[D0:.+]] = nvvm.wgmma.mma_async %[[ADESC]], %[[BDESC]], %{{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: %[[A1:.+]] = arith.addi %[[ADESC]], %{{.+}} : i64
// CHECK: %[[B1:.+]] = arith.addi %[[BDESC]], %{{.+}} : i64
// CHECK: nvvm.wgmma.mma_async %[[A1]], %[[B1]], %[[D0]], <m = 64, n = 128, k = 16>
// CHECK: arith.constant 256 : i64
// CHECK: %[[D2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %[[BDESC]], %{{.+}}, <m = 64, n = 128, k = 16>
// CHECK: arith.constant 258 : i64
// CHECK: nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[D2]], <m = 64, n = 128, k = 16>
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-128: llvm.store
// CHECK-NOT: llvm.store
// CHECK: return
func.func @gemm(%a: !a, %b: !b, %p: i1) {
  %acc = tile.alloc_local : !acc
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 32] exec warpgroup accumulate(%p) : !acc, !a, !b
  return
}

// The descriptor templates, pinned as words.
// CHECK-LABEL: func.func @gemm_words
// CHECK: arith.constant -9223371899415756800 : i64
// CHECK: arith.constant 4611686293322072064 : i64
func.func @gemm_words(%a: !a, %b: !b) {
  %acc = tile.alloc_local : !acc
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 32] exec warpgroup : !acc, !a, !b
  return
}

// Overwrite (no flag): no select, the first K step has scale-d 0.
// f16 accumulators: n8 gives 2 packed f16x2 registers a thread.
!a8 = !tile.buffer<64x16xf16, shared, #tile.layout<S[(8,8,2,8):(128,8,64,1)]>>
!b8 = !tile.buffer<8x16xf16, shared, #tile.layout<S[(1,8,2,8):(128,8,64,1)]>>
!acc16 = !tile.buffer<64x8xf16, local, #tile.layout<S[(4,2,8,1,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// CHECK-LABEL: func.func @overwrite_f16
// CHECK-NOT: llvm.select
// CHECK: llvm.insertelement {{.+}} : vector<2xf16>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.+}}, <m = 64, n = 8, k = 16>, D[<f16>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(vector<2xf16>, vector<2xf16>)>
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @overwrite_f16(%a: !a8, %b: !b8) {
  %acc = tile.alloc_local : !acc16
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 8, 16] exec warpgroup {transpose_b} : !acc16, !a8, !b8
  return
}

// A in registers (the A fragment of a 64 x 32 f16 tile: two K steps of 8
// registers a thread, packed in pairs into four 32-bit registers): the
// registers are loaded and packed before the fence; each K step is one
// inline wgmma.mma_async (register A has no NVVM op) whose 32 f32
// accumulators are outputs tied to the inputs ("0".."31"), A's four
// registers "r" and B's descriptor "l"; the second step takes the first's
// results. B is K-major: imm-trans-b 0.
!ra = !tile.buffer<64x32xf16, local, #tile.layout<S[(4,2,8,4,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bk = !tile.buffer<64x32xf16, shared, #tile.layout<S[(64,32):(32,1)], swizzle<2,3,3>>>
!acc64 = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// CHECK-LABEL: func.func @register_a
// CHECK-SAME: (%[[B:.+]]: !llvm.ptr<3>, %[[P:.+]]: i1)
// CHECK: %[[ACC:.+]] = llvm.alloca %{{.+}} x !llvm.array<32 x f32>
// CHECK: %[[A:.+]] = llvm.alloca %{{.+}} x !llvm.array<16 x f16>
// CHECK-COUNT-32: llvm.select %[[P]]
// The accumulators, then A's registers, pinned before the fence by empty
// PTX statements (no instruction; LLVM cannot sink their definitions).
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=f,){31}=f}},0,1,{{.+}},31"
// CHECK: llvm.getelementptr %[[A]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<16 x f16>
// CHECK: llvm.getelementptr %[[A]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<16 x f16>
// CHECK: %[[A0:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: llvm.getelementptr %[[A]][0, 2]
// CHECK: %[[A1:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: %[[A2:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: %[[A3:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: llvm.getelementptr %[[A]][0, 8]
// CHECK: %[[A4:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: %[[A5:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: %[[A6:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: llvm.getelementptr %[[A]][0, 15]
// CHECK: %[[A7:.+]] = llvm.bitcast %{{.+}} : vector<2xf16> to i32
// CHECK: %[[PA:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,0,1,2,3" %[[A0]], %[[A1]], %[[A2]], %[[A3]]
// CHECK-NEXT: %[[PA0:.+]] = llvm.extractvalue %[[PA]][0]
// CHECK-NEXT: %[[PA1:.+]] = llvm.extractvalue %[[PA]][1]
// CHECK-NEXT: %[[PA2:.+]] = llvm.extractvalue %[[PA]][2]
// CHECK-NEXT: %[[PA3:.+]] = llvm.extractvalue %[[PA]][3]
// CHECK-NEXT: %[[PB:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,0,1,2,3" %[[A4]], %[[A5]], %[[A6]], %[[A7]]
// CHECK-NEXT: %[[PB0:.+]] = llvm.extractvalue %[[PB]][0]
// CHECK-NEXT: %[[PB1:.+]] = llvm.extractvalue %[[PB]][1]
// CHECK-NEXT: %[[PB2:.+]] = llvm.extractvalue %[[PB]][2]
// CHECK-NEXT: %[[PB3:.+]] = llvm.extractvalue %[[PB]][3]
// CHECK: %[[BDESC:.+]] = arith.ori %{{.+}}, %{{.+}} : i64
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[D0:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, {{.+}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 0;\0A}\0A", "{{(=f,){32}r}},r,r,r,l,0,1,{{.+}},30,31" %[[PA0]], %[[PA1]], %[[PA2]], %[[PA3]], %[[BDESC]], %{{.+}} : (i32, i32, i32, i32, i64, f32, {{.+}}) -> !llvm.struct<(f32,
// CHECK: %[[D00:.+]] = llvm.extractvalue %[[D0]][0]
// CHECK: %[[B1:.+]] = arith.addi %[[BDESC]], %{{.+}} : i64
// CHECK-NEXT: %[[D1:.+]] = llvm.inline_asm has_side_effects {{.+}} "{{(=f,){32}r}},r,r,r,l,0,{{.+}}" %[[PB0]], %[[PB1]], %[[PB2]], %[[PB3]], %[[B1]], %[[D00]],
// CHECK-NOT: llvm.inline_asm
// CHECK: %[[R0:.+]] = llvm.extractvalue %[[D1]][0]
// CHECK: llvm.store %[[R0]], %{{.+}} : f32, !llvm.ptr
// CHECK-COUNT-31: llvm.store
// CHECK-NOT: llvm.store
// CHECK: return
func.func @register_a(%b: !bk, %p: i1) {
  %a = tile.alloc_local : !ra
  %acc = tile.alloc_local : !acc64
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 32] exec warpgroup accumulate(%p) {transpose_b} : !acc64, !ra, !bk
  return
}

// Register A overwriting f16 accumulators: scale-d 0, the packed f16x2
// accumulators are i32 "=r" operands; B MN-major (imm-trans-b 1).
!ra16 = !tile.buffer<64x16xf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bmn = !tile.buffer<16x64xf16, shared, #tile.layout<S[(16,64):(64,1)], swizzle<3,3,3>>>
!acch = !tile.buffer<64x64xf16, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// CHECK-LABEL: func.func @register_a_f16_acc
// CHECK-NOT: llvm.select
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {$0, {{.+}}, $15}, {$16, $17, $18, $19}, $20, p, 1, 1, 1;\0A}\0A", "{{(=r,){16}r}},r,r,r,l,0,{{.+}},15" {{.+}} : (i32, i32, i32, i32, i64, {{(i32, ){15}i32}}) -> !llvm.struct<(i32,
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.bitcast %{{.+}} : i32 to vector<2xf16>
// CHECK-COUNT-32: llvm.store %{{.+}}, %{{.+}} : f16, !llvm.ptr
func.func @register_a_f16_acc(%b: !bmn) {
  %a = tile.alloc_local : !ra16
  %acc = tile.alloc_local : !acch
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 16] exec warpgroup : !acch, !ra16, !bmn
  return
}

// tf32 from registers: one element a 32-bit register (f32 bitcast to i32),
// thread t = 32w + 4q + r holding columns r, r + 4 of each 8-column K step
// in registers h, 2 + h; no imm-trans-b.
!ratf = !tile.buffer<64x8xf32, local, #tile.layout<S[(4,2,8,2,4):(32@tid_in_wg,1,4@tid_in_wg,2,1@tid_in_wg)]>>
!btf = !tile.buffer<64x8xf32, shared, #tile.layout<S[(64,8):(8,1)], swizzle<1,2,3>>>
// CHECK-LABEL: func.func @register_a_tf32
// CHECK: %[[T:.+]] = llvm.alloca %{{.+}} x !llvm.array<4 x f32>
// CHECK: llvm.getelementptr %[[T]][0, 0]
// CHECK: llvm.bitcast %{{.+}} : f32 to i32
// CHECK: llvm.getelementptr %[[T]][0, 1]
// CHECK: llvm.getelementptr %[[T]][0, 2]
// CHECK: llvm.getelementptr %[[T]][0, 3]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm {{.+}}wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.+}}, $36, p, 1, 1;\0A}\0A"
func.func @register_a_tf32(%b: !btf) {
  %a = tile.alloc_local : !ratf
  %acc = tile.alloc_local : !acc64
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 8] exec warpgroup {transpose_b} : !acc64, !ratf, !btf
  return
}

// fp8 from registers (e4m3 A, e5m2 B): LLVM has no fp8 type, so the
// register tile is i8 and four elements pack into each 32-bit register,
// the lowest column in the lowest byte: thread t = 32w + 4q + r holds
// columns 16j + 4r .. 16j + 4r + 3 of row 16w + 8h + q in register 2j + h
// of each 32-column K step (k32); fp8 has no imm-trans-b.
!ra8 = !tile.buffer<64x32xf8E4M3FN, local, #tile.layout<S[(4,2,8,2,4,4):(32@tid_in_wg,4,4@tid_in_wg,8,1@tid_in_wg,1)]>>
!bf8 = !tile.buffer<64x32xf8E5M2, shared, #tile.layout<S[(64,32):(32,1)], swizzle<1,4,3>>>
// CHECK-LABEL: func.func @register_a_fp8
// CHECK: %[[F8:.+]] = llvm.alloca %{{.+}} x !llvm.array<16 x i8>
// CHECK: llvm.getelementptr %[[F8]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<16 x i8>
// CHECK: llvm.getelementptr %[[F8]][0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<16 x i8>
// CHECK: %[[W0:.+]] = llvm.bitcast %{{.+}} : vector<4xi8> to i32
// CHECK: llvm.getelementptr %[[F8]][0, 4]
// CHECK: %[[W1:.+]] = llvm.bitcast %{{.+}} : vector<4xi8> to i32
// CHECK: %[[W2:.+]] = llvm.bitcast %{{.+}} : vector<4xi8> to i32
// CHECK: llvm.getelementptr %[[F8]][0, 15]
// CHECK: %[[W3:.+]] = llvm.bitcast %{{.+}} : vector<4xi8> to i32
// CHECK: %[[PW:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,0,1,2,3" %[[W0]], %[[W1]], %[[W2]], %[[W3]]
// CHECK-NEXT: %[[PW0:.+]] = llvm.extractvalue %[[PW]][0]
// CHECK-NEXT: %[[PW1:.+]] = llvm.extractvalue %[[PW]][1]
// CHECK-NEXT: %[[PW2:.+]] = llvm.extractvalue %[[PW]][2]
// CHECK-NEXT: %[[PW3:.+]] = llvm.extractvalue %[[PW]][3]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 {$0, {{.+}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1;\0A}\0A", "{{(=f,){32}r}},r,r,r,l,0,{{.+}},31" %[[PW0]], %[[PW1]], %[[PW2]], %[[PW3]], %{{.+}} : (i32, i32, i32, i32, i64, f32,
// CHECK-NOT: llvm.inline_asm
// CHECK: return
func.func @register_a_fp8(%b: !bf8) {
  %a = tile.alloc_local : !ra8
  %acc = tile.alloc_local : !acc64
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 32] exec warpgroup {transpose_b} : !acc64, !ra8, !bf8
  return
}

// After a wgmma wait, every accumulator tile defined there has its
// registers pinned (loaded, through one empty PTX statement, stored back):
// the values are the wait's, so LLVM cannot schedule a read of an MMA
// result above the wait that retires it (ptxas would then wait for the MMA
// still in flight and serialize the pipeline). A tile that is not an MMA
// accumulator is left alone; the bulk wait pins nothing.
!ov = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// CHECK-LABEL: func.func @wait_pins_accumulators
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-COUNT-32: llvm.load
// CHECK-NEXT: %[[PIN:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=f,){31}=f}},0,1,{{.+}},31"
// CHECK-NEXT: %[[W0:.+]] = llvm.extractvalue %[[PIN]][0]
// CHECK: %[[W31:.+]] = llvm.extractvalue %[[PIN]][31]
// CHECK-NEXT: llvm.store %[[W0]], %{{.+}} : f32, !llvm.ptr
// CHECK-COUNT-30: llvm.store
// CHECK-NEXT: llvm.store %[[W31]], %{{.+}} : f32, !llvm.ptr
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: llvm.inline_asm
// CHECK: return
func.func @wait_pins_accumulators(%b: !bf8) {
  %a = tile.alloc_local : !ra8
  %acc = tile.alloc_local : !acc64
  %other = tile.alloc_local : !ov
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 32] exec warpgroup {transpose_b} : !acc64, !ra8, !bf8
  tile.commit_group wgmma
  tile.wait_group wgmma, 1
  tile.wait_group bulk, 0
  return
}

// f16 accumulators: pinned in pairs, one 32-bit register each (the pairs
// wgmma packs), before the fence and after the wait.
// CHECK-LABEL: func.func @wait_pins_f16_accumulators
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=r,){15}=r}},0,1,{{.+}},15"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-32: llvm.load %{{.+}} : !llvm.ptr -> f16
// CHECK: %[[HPIN:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=r,){15}=r}},0,1,{{.+}},15"
// CHECK: llvm.extractvalue %[[HPIN]][15]
// CHECK-COUNT-32: llvm.store %{{.+}}, %{{.+}} : f16, !llvm.ptr
// CHECK: return
func.func @wait_pins_f16_accumulators(%b: !bmn) {
  %a = tile.alloc_local : !ra16
  %acc = tile.alloc_local : !acch
  tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 16] exec warpgroup : !acch, !ra16, !bmn
  tile.commit_group wgmma
  tile.wait_group wgmma, 0
  return
}

// RUN: tile-opt %s --tile-select-variants -split-input-file -verify-diagnostics

// Every tcgen05 (gemm_async) refusal names its rule: the predicates, then
// the planner's declines.

!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>

// On sm_90a, with the accumulator a kernel argument and a warpgroup issuer:
// each predicate says why.
gpu.module @hopper [#nvvm.target<chip = "sm_90a">] {
  gpu.func @kernel(%a: !a16, %c: !acc) kernel {
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: issuer — issued by a warpgroup; one thread issues tcgen05.mma (exec thread), or a warp that elects one lane (exec warp); rejected: tmem_address — the tensor-memory buffer C is a kernel argument; tensor memory is allocated in the kernel (tcgen05.alloc) and named with tile.tmem_buffer; rejected: tcgen05_target — tcgen05.mma needs one of sm_100a, sm_101a, not sm_90a}}
    // expected-note @+1 {{wgmma (priority 10): rejected: }}
    tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec warpgroup {transpose_b} : !acc, !a16, !a16
    gpu.return
  }
}

// -----

// Element types no kind takes.
!i16 = !tile.buffer<128x64xi16, shared>
!acci = !tile.buffer<128x128xi32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @types(%a: !i16, %c: !acci) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_100a}}
  // expected-note @+2 {{tcgen05 (priority 10): rejected: element_types — A elements are i16; tcgen05.mma takes f16, bf16, tf32 (f32), fp8 (e4m3, e5m2), fp6, fp4 (e2m1) or 8-bit integers}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acci, !i16, !i16
  return
}

// -----

// Shape rules: N = 8 with M 128.
!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!b8 = !tile.buffer<8x64xf16, shared, #tile.layout<S[(8,64):(64,1)], swizzle<3,3,3>>>
!acc8 = !tile.buffer<128x8xf32, tmem, #tile.layout<S[(128,8):(1@TLane,1@TCol)]>>
func.func @narrow_n(%a: !a16, %b: !b8, %c: !acc8) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_100a}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — N = 8: cta_group 1 M 128 MMAs have N a multiple of 16 in 16..256; no such N divides the region's 8}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 8, 64] exec thread {transpose_b} : !acc8, !a16, !b8
  return
}

// -----

// K not a multiple of the instruction's (tf32: 8).
!t32 = !tile.buffer<128x12xf32, shared>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @k_rule(%a: !t32, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — K = 12 is not a multiple of kind::tf32's instruction K = 8 (256 bits of a row)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 12] exec thread {transpose_b} : !acc, !t32, !t32
  return
}

// -----

// A plain row-major tile is not a canonical (core-matrix) layout.
!rm = !tile.buffer<128x64xf16, shared>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @not_canonical(%a: !rm, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — A element (1, 0) is at element 64; the descriptor (K-major, no swizzle, LBO 16 B, SBO 1024 B) reads element 8 there}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acc, !rm, !rm
  return
}

// -----

// A swizzled operand starting mid-atom (row 4).
!a256 = !tile.buffer<256x64xf16, shared, #tile.layout<S[(256,64):(64,1)], swizzle<3,3,3>>>
!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @mid_atom(%a: !a256, %b: !a16, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — A instruction tile at (0, 0) starts at byte 512, row 4 of a 128-byte swizzle atom: a swizzled operand starts on an atom's first row}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[4, 0], %b[0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acc, !a256, !a16
  return
}

// -----

// The accumulator off the M 128 data path (two rows per lane).
!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!bad = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(64,2,128):(1@TLane,128@TCol,1@TCol)]>>
func.func @data_path(%a: !a16, %c: !bad) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — C element (1, 0) is in lane 0, TCol 128; data path D (M 128) puts it in lane 1, TCol 0 (one element per 32-bit column)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !bad, !a16, !a16
  return
}

// -----

// A in tensor memory cannot be transposed.
!at = !tile.buffer<64x128xf16, tmem, #tile.layout<S[(64,128):(1@TLane,1@TCol)]>>
!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @tmem_a_transposed(%a: !at, %b: !a16, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — A in tensor memory is read K-major ([M, K], K along columns); transpose_a needs A in shared memory}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64] exec thread {transpose_a, transpose_b} : !acc, !at, !a16
  return
}

// -----

// Block-scaled e4m3 with ue4m3 scales: kind::mxf8f6f4 takes ue8m0 only.
!e4 = !tile.buffer<128x128xf8E4M3FN, shared, #tile.layout<S[(128,128):(128,1)], swizzle<3,4,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
!sf = !tile.buffer<128x4xf8E4M3FN, tmem, #tile.layout<S[(128,4):(1@TLane,1@TCol)]>>
func.func @scale_type(%a: !e4, %c: !acc, %sf: !sf) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — block-scaled e4m3 x e4m3 is kind::mxf8f6f4, whose scales are ue8m0, not ue4m3}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 128] exec thread scales(%sf, %sf : !sf, !sf) {transpose_b} : !acc, !e4, !e4
  return
}

// -----

// Scale factors one row a lane in a single column: tcgen05.mma reads row r
// from lane r % 32 of every 32-lane partition, column r / 32, so the
// copies in lanes 32.. (and rows 32.. in columns 1..3) are missing.
!e4 = !tile.buffer<128x128xf8E4M3FN, shared, #tile.layout<S[(128,128):(128,1)], swizzle<3,4,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
!sf = !tile.buffer<128x4xf8E8M0FNU, tmem, #tile.layout<S[(128,4):(1@TLane,1@TCol)]>>
func.func @scale_rows_per_lane(%a: !e4, %c: !acc, %sf: !sf) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — scale factors A (0, 0) is at lane 0 TCol 0; the instruction reads it from lane 32, TCol 0 (byte 0 of column 0)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 128] exec thread scales(%sf, %sf : !sf, !sf) {transpose_b} : !acc, !e4, !e4
  return
}

// -----

// Scales broadcast along K (stride 0) when one MMA reads two a row (mxf4):
// the instruction reads two consecutive bytes.
!f4 = !tile.buffer<128x256xf4E2M1FN, shared, #tile.layout<S[(128,256):(256,1)], swizzle<3,5,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
!sf = !tile.buffer<128x8xf8E8M0FNU, tmem, #tile.layout<S[(4,32,8):(4@TCol,1@TLane,0@TCol)] + R[4:32@TLane]>>
func.func @scale_broadcast_two(%a: !f4, %c: !acc, %sf: !sf) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — scale factors A are broadcast along K (K blocks 0 and 1 share TCol 0): an instruction reads 2 consecutive scale bytes a row, so each K block needs its own byte}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 256] exec thread scales(%sf, %sf : !sf, !sf) {transpose_b} : !acc, !f4, !f4
  return
}

// -----

// Scales starting at lane 4: each partition's copy starts at its lane 0.
!e4 = !tile.buffer<128x128xf8E4M3FN, shared, #tile.layout<S[(128,128):(128,1)], swizzle<3,4,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
!sf = !tile.buffer<128x4xf8E8M0FNU, tmem, #tile.layout<S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[3:32@TLane] + 4@TLane>>
func.func @scale_lane(%a: !e4, %c: !acc, %sf: !sf) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — scale factors A (0, 0) is in lane 4 at the lowest; an instruction reads each 32-lane partition's copy of the scales from its first lane (scale address lane 0)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 128] exec thread scales(%sf, %sf : !sf, !sf) {transpose_b} : !acc, !e4, !e4
  return
}

// -----

// Block-scaled cta_group 2, M 128 (data path B): B's scales must be folded
// like D, N half h in lanes 64h.. (partitions 2h, 2h+1); a tile with all
// 256 rows in every partition puts row 128 in column 8, not in lane 64 of
// column 4.
!e4h = !tile.buffer<64x128xf8E4M3FN, shared, #tile.layout<S[(64,128):(128,1)], swizzle<3,4,3>>>
!e4 = !tile.buffer<128x128xf8E4M3FN, shared, #tile.layout<S[(128,128):(128,1)], swizzle<3,4,3>>>
!accf = !tile.buffer<64x256xf32, tmem, #tile.layout<S[(64,2,128):(1@TLane,64@TLane,1@TCol)]>>
!sfa = !tile.buffer<64x4xf8E8M0FNU, tmem, #tile.layout<S[(2,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane]>>
!sfb = !tile.buffer<256x4xf8E8M0FNU, tmem, #tile.layout<S[(8,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane] + 16@TCol>>
func.func @pair_scales_unfolded(%a: !e4h, %b: !e4, %c: !accf, %sfa: !sfa, %sfb: !sfb) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — scale factors B (128, 0) is at lane 0 TCol 32, lane 32 TCol 32, lane 64 TCol 32, lane 96 TCol 32; the instruction reads it from lane 64, TCol 16 (byte 0 of column 4)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 256, 128] exec thread scales(%sfa, %sfb : !sfa, !sfb) {cta_group = 2 : i32, transpose_b} : !accf, !e4h, !e4
  return
}

// -----

// Descriptor starts are planned at compile time: a dynamic K offset is
// declined.
!a16 = !tile.buffer<128x128xf16, shared, #tile.layout<S[(128,2,64):(64,8192,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @dynamic_offset(%a: !a16, %c: !acc, %k: index) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — A region has a dynamic offset; descriptor starts and tensor-memory addresses are planned at compile time}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, %k], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acc, !a16, !a16
  return
}

// -----

// cta_group 2 M 128 with the 16-rows-per-warp accumulator of cta_group 1
// M 64: data path B folds N across the two 64-lane halves instead.
!a64 = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!b = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!warp16 = !tile.buffer<64x256xf32, tmem, #tile.layout<S[(4,16,256):(32@TLane,1@TLane,1@TCol)]>>
func.func @pair_m128_unfolded(%a: !a64, %b: !b, %c: !warp16) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — C element (0, 128) is in lane 0, TCol 128; data path B (M 128, cta_group 2) puts it in lane 64, TCol 0 (one element per 32-bit column)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 256, 64] exec thread {cta_group = 2 : i32, transpose_b} : !warp16, !a64, !b
  return
}

// -----

!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @ws_pair(%a: !a16, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — tcgen05.mma.ws is cta_group 1 only}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [256, 128, 64] exec thread {cta_group = 2 : i32, transpose_b, weight_stationary} : !acc, !a16, !a16
  return
}

// -----

!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @ws_n(%a: !a16, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — instruction_shape 128x32: N = 32: .ws MMAs have N 64, 128 or 256}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b, weight_stationary, instruction_shape = array<i64: 128, 32>} : !acc, !a16, !a16
  return
}

// -----

!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @instruction_shape_n(%a: !a16, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — instruction_shape 128x40: N = 40: cta_group 1 M 128 MMAs have N a multiple of 16 in 16..256}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b, instruction_shape = array<i64: 128, 40>} : !acc, !a16, !a16
  return
}

// -----

// MN-major tf32 with the ordinary 128-byte swizzle: tcgen05 has no such form.
!atf = !tile.buffer<128x32xf32, shared, #tile.layout<S[(128,32):(32,1)], swizzle<3,2,3>>>
!btf = !tile.buffer<32x64xf32, shared, #tile.layout<S[(32,2,32):(32,1024,1)], swizzle<3,2,3>>>
!acc = !tile.buffer<128x64xf32, tmem, #tile.layout<S[(128,64):(1@TLane,1@TCol)]>>
func.func @tf32_mn_major_128b(%a: !atf, %b: !btf, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — B is MN-major tf32 with the 128B swizzle; tcgen05 reads MN-major tf32 only with the 128-byte swizzle of 32-byte atoms (swizzle<2,3,2>, descriptor layout type 1)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 64, 32] exec thread : !acc, !atf, !btf
  return
}

// -----

// A runtime stage index must move the operand by whole swizzle atoms:
// stages 16512 bytes apart would change the 128-byte swizzle's phase.
!odd = !tile.buffer<2x128x64xf16, shared, #tile.layout<S[(2,128,64):(8256,64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @stage_off_the_swizzle_period(%a: !odd, %c: !acc, %s: index) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — A region's runtime index of dim 0 (S[(2,128,64):(8256,64,1)], swizzle<3,3,3>) steps 16512 bytes; a runtime index needs a multiple of 1024 bytes (a swizzle atom)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[%s, 0, 0], %a[%s, 0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acc, !odd, !odd
  return
}

// -----

// Offsets inside the region stay compile-time values for tcgen05.
!ring = !tile.buffer<2x128x64xf16, shared, #tile.layout<S[(2,128,64):(8192,64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @runtime_row_offset(%a: !ring, %c: !acc, %r: index) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement}}
  // expected-note @+2 {{tcgen05 (priority 10): declined — A region has a dynamic offset; descriptor starts and tensor-memory addresses are planned at compile time}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, %r, 0], %a[0, 0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acc, !ring, !ring
  return
}

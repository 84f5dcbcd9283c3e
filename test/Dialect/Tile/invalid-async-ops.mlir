// RUN: tile-opt %s -split-input-file -verify-diagnostics

!d = !tile.buffer<128x64xf16, shared>
func.func @region_out_of_bounds(%a: !d, %b: !d) {
  // expected-error @+1 {{'tile.copy_async' op destination region [64, 192) of dim 0 exceeds the shared buffer extent 128; only a global region may leave its buffer (TMA fills loads and clips stores there)}}
  tile.copy_async %a[0, 0] to %b[64, 0] sizes [128, 64] exec thread : !d to !d
  return
}

// -----

// The shared side of a TMA load stays inside its buffer.
func.func @shared_side_out_of_bounds(%g: !tile.buffer<128x64xf16, global>, %s: !tile.buffer<64x64xf16, shared>, %bar: !llvm.ptr<3>) {
  // expected-error @+1 {{'tile.copy_async' op destination region [0, 128) of dim 0 exceeds the shared buffer extent 64; only a global region may leave its buffer}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [128, 64] exec thread mbar(%bar) : !tile.buffer<128x64xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @shared_negative_offset(%a: !tile.buffer<128x64xf16, shared>, %g: !tile.buffer<128x64xf16, global>) {
  // expected-error @+1 {{'tile.copy_async' op source offset -8 of dim 0 is negative; only a global region may leave its buffer}}
  tile.copy_async %a[-8, 0] to %g[0, 0] sizes [64, 64] exec thread : !tile.buffer<128x64xf16, shared> to !tile.buffer<128x64xf16, global>
  return
}

// -----

// tcgen05.cp: a tensor-memory region stays inside its buffer.
func.func @tmem_out_of_bounds(%a: !tile.buffer<32x16xi8, shared>, %t: !tile.buffer<32x16xi8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>) {
  // expected-error @+1 {{'tile.copy_async' op destination region [8, 40) of dim 0 exceeds the tmem buffer extent 32; only a global region may leave its buffer}}
  tile.copy_async %a[0, 0] to %t[8, 0] sizes [32, 16] exec thread : !tile.buffer<32x16xi8, shared> to !tile.buffer<32x16xi8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
  return
}

// -----

// A store is clipped by the hardware; a fill mode would mean nothing.
func.func @oob_on_store(%s: !tile.buffer<64x64xf16, shared>, %g: !tile.buffer<100x64xf16, global>) {
  // expected-error @+1 {{'tile.copy_async' op oob fill applies to loads only: a store to global memory is clipped at the tensor's edge and takes no fill mode}}
  tile.copy_async %s[0, 0] to %g[64, 0] sizes [64, 64] exec thread {oob = #tile.oob<zero>} : !tile.buffer<64x64xf16, shared> to !tile.buffer<100x64xf16, global>
  return
}

// -----

func.func @rank(%a: !tile.buffer<128x64xf16, shared>, %b: !tile.buffer<8192xf16, shared>) {
  // expected-error @+1 {{'tile.copy_async' op destination buffer has rank 1 but the region has 2 sizes}}
  tile.copy_async %a[0, 0] to %b[0, 0] sizes [128, 64] exec thread : !tile.buffer<128x64xf16, shared> to !tile.buffer<8192xf16, shared>
  return
}

// -----

func.func @dtype(%a: !tile.buffer<64xf16, shared>, %b: !tile.buffer<64xbf16, shared>) {
  // expected-error @+1 {{'tile.copy_async' op source element type 'f16' differs from destination element type 'bf16'}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread : !tile.buffer<64xf16, shared> to !tile.buffer<64xbf16, shared>
  return
}

// -----

func.func @scopes(%a: !tile.buffer<64xf16, global>, %b: !tile.buffer<64xf16, global>) {
  // expected-error @+1 {{'tile.copy_async' op cannot copy global -> global; copy_async moves global -> shared, shared -> global, shared -> shared (cluster) and shared -> tmem}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread : !tile.buffer<64xf16, global> to !tile.buffer<64xf16, global>
  return
}

// -----

func.func @reduce_g2s(%a: !tile.buffer<64xf16, global>, %b: !tile.buffer<64xf16, shared>) {
  // expected-error @+1 {{'tile.copy_async' op reduce applies to shared -> global copies only}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread {reduce = #tile.reduce<max>} : !tile.buffer<64xf16, global> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @oob_nan_int(%a: !tile.buffer<64xi32, global>, %b: !tile.buffer<64xi32, shared>) {
  // expected-error @+1 {{'tile.copy_async' op oob = nan needs a floating-point element type, got 'i32'}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread {oob = #tile.oob<nan>} : !tile.buffer<64xi32, global> to !tile.buffer<64xi32, shared>
  return
}

// -----

func.func @cp_shape_g2s(%a: !tile.buffer<64xf16, global>, %b: !tile.buffer<64xf16, shared>) {
  // expected-error @+1 {{'tile.copy_async' op cp_shape, cp_multicast and src_format apply to shared -> tmem copies only}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread {cp_shape = #tile.cp_shape<shape_128x256b>} : !tile.buffer<64xf16, global> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @src_format_f16(%a: !tile.buffer<32x16xf16, shared>, %t: !tile.buffer<32x16xf16, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>) {
  // expected-error @+1 {{'tile.copy_async' op src_format decompresses into 8-bit containers; the element type is 'f16'}}
  tile.copy_async %a[0, 0] to %t[0, 0] sizes [32, 16] exec thread {src_format = #tile.cp_src_format<b6x16_p32>} : !tile.buffer<32x16xf16, shared> to !tile.buffer<32x16xf16, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
  return
}

// -----

func.func @remote_g2s(%a: !tile.buffer<64xf16, global>, %b: !tile.buffer<64xf16, shared>, %r: i32) {
  // expected-error @+1 {{'tile.copy_async' op remote_cta applies to shared -> shared copies only}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread remote_cta(%r) : !tile.buffer<64xf16, global> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @mbar_cta_store(%a: !tile.buffer<64xf16, shared>, %b: !tile.buffer<64xf16, global>, %bar: !llvm.ptr<3>, %r: i32) {
  // expected-error @+1 {{'tile.copy_async' op mbar_cta applies to global -> shared copies only (a TMA load signalling a barrier of its CTA pair)}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread mbar(%bar) mbar_cta(%r) {cta_group = 2 : i32} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, global>
  return
}

// -----

func.func @mbar_cta_no_mbar(%a: !tile.buffer<64xf16, global>, %b: !tile.buffer<64xf16, shared>, %r: i32) {
  // expected-error @+1 {{'tile.copy_async' op mbar_cta names the CTA of the copy's mbarrier, but the copy has no mbar}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread mbar_cta(%r) {cta_group = 2 : i32} : !tile.buffer<64xf16, global> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @mbar_cta_group_1(%a: !tile.buffer<64xf16, global>, %b: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %r: i32) {
  // expected-error @+1 {{'tile.copy_async' op mbar_cta needs cta_group = 2: only a .cta_group::2 load may signal a barrier in another CTA (its pair peer)}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread mbar(%bar) mbar_cta(%r) : !tile.buffer<64xf16, global> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @mask_s2s(%a: !tile.buffer<64xf16, shared>, %b: !tile.buffer<64xf16, shared>, %m: i16) {
  // expected-error @+1 {{'tile.copy_async' op cta_mask (multicast) applies to global -> shared copies only}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread cta_mask(%m) : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @cta_group(%a: !tile.buffer<64xf16, shared>, %b: !tile.buffer<64xf16, shared>) {
  // expected-error @+1 {{'tile.copy_async' op attribute 'cta_group' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 2}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec thread {cta_group = 3 : i32} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @exec(%a: !tile.buffer<64xf16, shared>, %b: !tile.buffer<64xf16, shared>) {
  // expected-error @+1 {{unknown execution scope 'grid'; expected thread, warp, warpgroup, cta or cluster}}
  tile.copy_async %a[0] to %b[0] sizes [64] exec grid : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @gemm_c_shared(%a: !tile.buffer<128x64xf16, shared>, %c: !tile.buffer<128x128xf32, shared>) {
  // expected-error @+1 {{'tile.gemm_async' op C must be in tensor memory (tcgen05) or registers (a local tile, wgmma), got shared}}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x64xf16, shared>, !tile.buffer<128x64xf16, shared>
  return
}

// -----

!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @gemm_b_region(%a: !tile.buffer<128x64xf16, shared>, %c: !acc) {
  // Without transpose_b, B's region is K x N = 64 x 128.
  // expected-error @+1 {{'tile.gemm_async' op B region [0, 128) of dim 1 exceeds the shared buffer extent 64}}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread : !acc, !tile.buffer<128x64xf16, shared>, !tile.buffer<128x64xf16, shared>
  return
}

// -----

!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @gemm_mixed(%a: !tile.buffer<128x64xf16, shared>, %b: !tile.buffer<128x64xbf16, shared>, %c: !acc) {
  // expected-error @+1 {{'tile.gemm_async' op A and B element types differ: 'f16' vs 'bf16'}}
  tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acc, !tile.buffer<128x64xf16, shared>, !tile.buffer<128x64xbf16, shared>
  return
}

// -----

!acc = !tile.buffer<128x128xi32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @gemm_acc_type(%a: !tile.buffer<128x64xf16, shared>, %c: !acc) {
  // expected-error @+1 {{'tile.gemm_async' op a floating-point MMA accumulates in f32 or f16, got 'i32'}}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b} : !acc, !tile.buffer<128x64xf16, shared>, !tile.buffer<128x64xf16, shared>
  return
}

// -----

// A misspelt config attribute is an error, not silently ignored.
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @gemm_unknown_attribute(%a: !tile.buffer<128x64xf16, shared>, %c: !acc) {
  // expected-error @+1 {{'tile.gemm_async' op has no attribute 'mma_n'; it knows a_static_offsets, b_static_offsets, c_static_offsets, collector, collector_buffer, cta_group, dispatch, exec, instruction_shape, sizes, transpose_a, transpose_b, variant, weight_stationary (other attributes need a dialect prefix, e.g. 'mydialect.mma_n')}}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b, mma_n = 64} : !acc, !tile.buffer<128x64xf16, shared>, !tile.buffer<128x64xf16, shared>
  return
}

// -----

// A dialect-prefixed discardable attribute is kept.
!d = !tile.buffer<128x64xf16, shared>
func.func @copy_prefixed_attribute(%a: !d, %b: !d) {
  tile.copy_async %a[0, 0] to %b[0, 0] sizes [128, 64] exec thread {mytool.tag = 3 : i32} : !d to !d
  return
}

// -----

!d = !tile.buffer<128x64xf16, shared>
func.func @copy_unknown_attribute(%a: !d, %b: !d) {
  // expected-error @+1 {{'tile.copy_async' op has no attribute 'multicast'}}
  tile.copy_async %a[0, 0] to %b[0, 0] sizes [128, 64] exec thread {multicast} : !d to !d
  return
}

// -----

!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @gemm_instruction_shape_rank(%a: !tile.buffer<128x64xf16, shared>, %c: !acc) {
  // expected-error @+1 {{'tile.gemm_async' op instruction_shape must be [M, N], two positive values}}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {transpose_b, instruction_shape = array<i64: 128>} : !acc, !tile.buffer<128x64xf16, shared>, !tile.buffer<128x64xf16, shared>
  return
}

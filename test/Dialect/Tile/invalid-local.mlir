// Register-resident (local) tiles: the layout names one warp's or one
// warpgroup's threads exactly once; fill and store check their operands.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @half_a_warpgroup() {
  // expected-error @+1 {{local layout S[(4,2,8,32,2,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)] does not cover the 128 threads of a warpgroup exactly once: after threads [0, 2) the next thread iter steps 4 threads (thread = tid_in_wg + 32 wid_in_wg + laneid)}}
  %acc = tile.alloc_local : !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,32,2,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
  return
}

// -----

func.func @two_warps() {
  // expected-error @+1 {{local layout S[(2,32,4):(1@wid_in_wg,1@laneid,1)] covers threads [0, 64); a register tile of a warpgroup names all 128 of its threads}}
  %acc = tile.alloc_local : !tile.buffer<64x4xf32, local, #tile.layout<S[(2,32,4):(1@wid_in_wg,1@laneid,1)]>>
  return
}

// -----

func.func @cta_axis() {
  // expected-error @+1 {{local layout S[(256,4):(1@tx,1)] uses axis tx; a register tile belongs to one warpgroup (tid_in_wg, wid_in_wg, laneid): index a CTA-wide tile's warpgroup part with offsets instead}}
  %acc = tile.alloc_local : !tile.buffer<256x4xf32, local, #tile.layout<S[(256,4):(1@tx,1)]>>
  return
}

// -----

func.func @shared_register() {
  // expected-error @+1 {{local layout S[(32,2,2):(1@laneid,1,1)] puts 4 elements of a thread in 3 registers}}
  %acc = tile.alloc_local : !tile.buffer<32x4xf32, local, #tile.layout<S[(32,2,2):(1@laneid,1,1)]>>
  return
}

// -----

func.func @too_big() {
  // expected-error @+1 {{a local buffer without a layout puts all 2048 elements in each thread; a register tile holds at most 1024 (give it a layout spreading it over threads)}}
  %acc = tile.alloc_local : !tile.buffer<32x64xf32, local>
  return
}

// -----

!frag = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @fill_type() {
  %acc = tile.alloc_local : !frag
  %x = arith.constant 0.0 : f16
  // expected-error @+1 {{'tile.fill' op fills 'f32' elements with a 'f16' value}}
  tile.fill %acc, %x : !frag, f16
  return
}

// -----

// Lanes along columns 0..31 of a destination split every 16 columns: a
// thread's elements are not its base plus constants.
!frag = !tile.buffer<2x32xf32, local, #tile.layout<S[(2,32):(1,1@laneid)]>>
func.func @threads_cross_a_split_dim() {
  %acc = tile.alloc_local : !frag
  %s = tile.alloc_shared : !tile.buffer<2x64xf32, shared, #tile.layout<S[(2,4,16):(16,32,1)]>>
  // expected-error @+1 {{'tile.store' op cannot place each thread's elements at its base address plus constants: layout S[(2,4,16):(16,32,1)] splits dim 1 every 16 elements, and the threads' coordinates 0..31 cross that step}}
  tile.store %acc to %s[0, 0] : !frag to !tile.buffer<2x64xf32, shared, #tile.layout<S[(2,4,16):(16,32,1)]>>
  return
}

// -----

// A runtime offset along a dim the layout splits into two steps.
!frag = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @runtime_offset_into_split_dim(%col: index) {
  %acc = tile.alloc_local : !frag
  %s = tile.alloc_shared : !tile.buffer<32x128xf32, shared, #tile.layout<S[(32,2,64):(64,2048,1)]>>
  // expected-error @+1 {{'tile.store' op cannot place each thread's elements at its base address plus constants: layout S[(32,2,64):(64,2048,1)] maps dim 1 through 2 steps; a runtime offset needs one stride}}
  tile.store %acc to %s[0, %col] : !frag to !tile.buffer<32x128xf32, shared, #tile.layout<S[(32,2,64):(64,2048,1)]>>
  return
}

// -----

!frag = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @outside(%out: memref<32x8xf32, 1>) {
  %acc = tile.alloc_local : !frag
  %g = tile.from_memref %out : memref<32x8xf32, 1> -> !tile.buffer<32x8xf32, global>
  // expected-error @+1 {{'tile.store' op destination region [7, 9) of dim 1 exceeds the global buffer extent 8}}
  tile.store %acc to %g[0, 7] : !frag to !tile.buffer<32x8xf32, global>
  return
}

// -----

!frag = !tile.buffer<32x2xi32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @int_to_float(%out: memref<32x8xf32, 1>) {
  %acc = tile.alloc_local : !frag
  %g = tile.from_memref %out : memref<32x8xf32, 1> -> !tile.buffer<32x8xf32, global>
  // expected-error @+1 {{'tile.store' op stores 'i32' elements into 'f32'; only a float tile converts (to another float type)}}
  tile.store %acc to %g[0, 0] : !frag to !tile.buffer<32x8xf32, global>
  return
}

// -----

// Row 2i + j in lane i + 64j: row 1 is not lane 1.
!rows = !tile.buffer<128x64xf32, local, #tile.layout<S[(128,64):(1@tid_in_wg,1)]>>
!paired = !tile.buffer<128x256xf32, tmem, #tile.layout<S[(64,2,256):(1@TLane,64@TLane,1@TCol)]>>
func.func @tmem_rows_not_lanes(%taddr: i32) {
  %acc = tile.tmem_buffer %taddr : !paired
  %r = tile.alloc_local : !rows
  // expected-error @+1 {{'tile.load' op cannot read the tensor-memory region with tcgen05.ld 32x32b: element (1, 0) of the region is not lane 1, column first + 0}}
  tile.load %acc[0, 0] to %r : !paired to !rows
  return
}

// -----

// Rows spread over the registers instead of the threads.
!rows = !tile.buffer<128x2xf32, local, #tile.layout<S[(128,2):(2,1)]>>
func.func @tmem_rows_not_threads(%taddr: i32) {
  %acc = tile.tmem_buffer %taddr : !tile.buffer<128x256xf32, tmem, #tile.layout<S[(128,256):(1@TLane,1@TCol)]>>
  %r = tile.alloc_local : !rows
  // expected-error @+1 {{'tile.load' op cannot read the tensor-memory region with tcgen05.ld 32x32b: the tile's layout must give row t to thread t of the warpgroup (tid_in_wg), as the lanes are read}}
  tile.load %acc[0, 0] to %r : !tile.buffer<128x256xf32, tmem, #tile.layout<S[(128,256):(1@TLane,1@TCol)]>> to !rows
  return
}

// -----

!rows = !tile.buffer<128x48xf32, local, #tile.layout<S[(128,48):(1@tid_in_wg,1)]>>
func.func @tmem_columns_not_power_of_two(%taddr: i32) {
  %acc = tile.tmem_buffer %taddr : !tile.buffer<128x256xf32, tmem, #tile.layout<S[(128,256):(1@TLane,1@TCol)]>>
  %r = tile.alloc_local : !rows
  // expected-error @+1 {{'tile.load' op cannot read the tensor-memory region with tcgen05.ld 32x32b: tcgen05.ld 32x32b reads 1 to 128 columns, a power of two, per thread; the tile has 48}}
  tile.load %acc[0, 0] to %r : !tile.buffer<128x256xf32, tmem, #tile.layout<S[(128,256):(1@TLane,1@TCol)]>> to !rows
  return
}

// -----

!frag = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @load_from_local() {
  %a = tile.alloc_local : !frag
  %b = tile.alloc_local : !frag
  // expected-error @+1 {{'tile.load' op loads registers from global, shared or tensor memory, not from another local tile}}
  tile.load %a[0, 0] to %b : !frag to !frag
  return
}

// -----

!frag = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @load_outside(%in: memref<32x8xf32, 1>) {
  %acc = tile.alloc_local : !frag
  %g = tile.from_memref %in : memref<32x8xf32, 1> -> !tile.buffer<32x8xf32, global>
  // expected-error @+1 {{'tile.load' op source region [7, 9) of dim 1 exceeds the global buffer extent 8}}
  tile.load %g[0, 7] to %acc : !tile.buffer<32x8xf32, global> to !frag
  return
}

// -----

!frag = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @load_int_to_float(%in: memref<32x8xi32, 1>) {
  %acc = tile.alloc_local : !frag
  %g = tile.from_memref %in : memref<32x8xi32, 1> -> !tile.buffer<32x8xi32, global>
  // expected-error @+1 {{'tile.load' op loads 'i32' elements into 'f32'; only a float source converts (to another float type)}}
  tile.load %g[0, 0] to %acc : !tile.buffer<32x8xi32, global> to !frag
  return
}

// -----

// fp8 registers are moved as bits: no conversion to or from a narrow float.
!frag = !tile.buffer<32x2xf32, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
func.func @store_f32_to_fp8(%out: memref<32x8xf8E4M3FN, 1>) {
  %acc = tile.alloc_local : !frag
  %g = tile.from_memref %out : memref<32x8xf8E4M3FN, 1> -> !tile.buffer<32x8xf8E4M3FN, global>
  // expected-error @+1 {{'tile.store' op stores 'f32' elements into 'f8E4M3FN'; floats of 8 bits or fewer are stored as they are (no conversion to or from them)}}
  tile.store %acc to %g[0, 0] : !frag to !tile.buffer<32x8xf8E4M3FN, global>
  return
}

// -----

!frag = !tile.buffer<32x4xf8E4M3FN, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
func.func @load_e5m2_into_e4m3(%in: memref<32x8xf8E5M2, 1>) {
  %a = tile.alloc_local : !frag
  %g = tile.from_memref %in : memref<32x8xf8E5M2, 1> -> !tile.buffer<32x8xf8E5M2, global>
  // expected-error @+1 {{'tile.load' op loads 'f8E5M2' elements into 'f8E4M3FN'; floats of 8 bits or fewer are loaded as they are (no conversion to or from them)}}
  tile.load %g[0, 0] to %a : !tile.buffer<32x8xf8E5M2, global> to !frag
  return
}

// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @from_memref_elt(%m: memref<8xf32, 1>) {
  // expected-error @+1 {{'tile.from_memref' op element type 'f16' differs from the memref's 'f32'}}
  %b = tile.from_memref %m : memref<8xf32, 1> -> !tile.buffer<8xf16, global>
  return
}

// -----

func.func @from_memref_shape(%m: memref<?x8xf32, 1>) {
  // expected-error @+1 {{'tile.from_memref' op buffer shape must equal the memref shape (dynamic dims included)}}
  %b = tile.from_memref %m : memref<?x8xf32, 1> -> !tile.buffer<4x8xf32, global>
  return
}

// -----

func.func @from_memref_space(%m: memref<8xf32, 3>) {
  // expected-error @+1 {{'tile.from_memref' op expects a global-memory memref, got memory space 3 : i64}}
  %b = tile.from_memref %m : memref<8xf32, 3> -> !tile.buffer<8xf32, global>
  return
}

// -----

func.func @from_memref_workgroup(%m: memref<8xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{'tile.from_memref' op expects a global-memory memref, got memory space #gpu.address_space<workgroup>}}
  %b = tile.from_memref %m : memref<8xf32, #gpu.address_space<workgroup>> -> !tile.buffer<8xf32, global>
  return
}

// -----

func.func @from_memref_strided(%m: memref<8x64xf32, strided<[128, 1]>>) {
  // expected-error @+1 {{'tile.from_memref' op memref is not dense row-major; give the buffer a #tile.layout matching its strides}}
  %b = tile.from_memref %m : memref<8x64xf32, strided<[128, 1]>> -> !tile.buffer<8x64xf32, global>
  return
}

// -----

func.func @from_memref_layout(%m: memref<8x64xf32, strided<[128, 1]>>) {
  // expected-error @+1 {{'tile.from_memref' op buffer layout S[(8,64):(64,1)] does not match the memref strides (S[(8,64):(128,1)])}}
  %b = tile.from_memref %m : memref<8x64xf32, strided<[128, 1]>> -> !tile.buffer<8x64xf32, global, #tile.layout<S[(8,64):(64,1)]>>
  return
}

// -----

func.func @from_memref_scope(%m: memref<8xf32, 1>) {
  // expected-error @+1 {{'tile.from_memref' op result #0 must be global tile buffer, but got '!tile.buffer<8xf32, shared>'}}
  %b = tile.from_memref %m : memref<8xf32, 1> -> !tile.buffer<8xf32, shared>
  return
}

// -----

func.func @alloc_underaligned() {
  // expected-error @+1 {{'tile.alloc_shared' op a swizzled tile needs alignment >= 1024 (one swizzle atom), got 128}}
  %s = tile.alloc_shared {alignment = 128 : i64} : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
  return
}

// -----

func.func @alloc_bad_alignment() {
  // expected-error @+1 {{'tile.alloc_shared' op alignment must be a power of two >= 16, got 24}}
  %s = tile.alloc_shared {alignment = 24 : i64} : !tile.buffer<16xf32, shared>
  return
}

// -----

// A dynamic shared offset keeps the buffer aligned: a multiple of its
// alignment (1024 for the 128B swizzle).
func.func @alloc_misaligned_offset() {
  // expected-error @+1 {{'tile.alloc_shared' op dynamic shared offset 512 is not a multiple of the buffer's alignment 1024}}
  %s = tile.alloc_shared {offset = 512 : i64} : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
  return
}

// -----

func.func @alloc_offset_outside_the_window() {
  // expected-error @+1 {{'tile.alloc_shared' op dynamic shared offset 4294967296 is outside the 32-bit shared window}}
  %s = tile.alloc_shared {offset = 4294967296 : i64} : !tile.buffer<16xf32, shared>
  return
}

// -----

func.func @alloc_not_shared() {
  // expected-error @+1 {{'tile.alloc_shared' op result #0 must be shared tile buffer, but got '!tile.buffer<16xf32, global>'}}
  %s = tile.alloc_shared : !tile.buffer<16xf32, global>
  return
}

// -----

func.func @tmem_buffer_scope(%a: i32) {
  // expected-error @+1 {{'tile.tmem_buffer' op result #0 must be tmem tile buffer, but got '!tile.buffer<16xf32, shared>'}}
  %t = tile.tmem_buffer %a : !tile.buffer<16xf32, shared>
  return
}

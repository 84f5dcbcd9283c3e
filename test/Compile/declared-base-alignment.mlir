// `tile.base_alignment` on a global memref argument: register-tile stores
// and loads through it (directly, or through a memref.reinterpret_cast at
// an offset that is a known multiple of elements) move the accumulator's
// element pairs as 8-byte vectors, and the manifest records the promise so
// the launch checks it. Without the promise, or at an offset of unknown
// alignment, the same accesses move one element at a time.
// RUN: tile-compile %s -o %t.ptx --manifest %t.json
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-LABEL: .entry declared(
// CHECK-NOT: {{(ld|st)}}.global.b32
// CHECK-COUNT-32: ld.global.v2.b32
// CHECK-NOT: {{(ld|st)}}.global.b32
// CHECK-COUNT-32: st.global.v2.b32
// CHECK-NOT: {{(ld|st)}}.global.b32
// CHECK-LABEL: .entry undeclared(
// CHECK-NOT: st.global.v2
// CHECK-COUNT-64: st.global.b32
// CHECK-LABEL: .entry unknown_offset(
// CHECK-NOT: st.global.v2
// CHECK-COUNT-64: st.global.b32
// CHECK-LABEL: .entry odd_multiple(
// CHECK-NOT: st.global.v2
// CHECK-COUNT-64: st.global.b32
// Runtime region offsets count as their known multiples (a tile index
// times the tile's size): the pairs stay vectors; a column offset of
// unknown alignment keeps them apart.
// CHECK-LABEL: .entry tile_offsets(
// CHECK-NOT: st.global.b32
// CHECK-COUNT-32: st.global.v2.b32
// CHECK-NOT: st.global.b32
// CHECK-LABEL: .entry unknown_column(
// CHECK-NOT: st.global.v2
// CHECK-COUNT-64: st.global.b32

// The promise is recorded on the argument (each kernel's arguments come
// before its name); a kernel without one records none.
// MANIFEST:      "alignment": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "by": "tile.load",
// MANIFEST-NEXT:     "bytes": 16,
// MANIFEST:          "by": "tile.store",
// MANIFEST-NEXT:     "bytes": 16,
// MANIFEST:      "name": "declared",
// MANIFEST-NOT:  "alignment"
// MANIFEST:      "name": "undeclared",
// MANIFEST:      "alignment": [
// MANIFEST:      "name": "unknown_offset",

!acc = !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!view = memref<64x128xf32, strided<[128, 1], offset: ?>, 1>
!slice = !tile.buffer<64x128xf32, global>

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // Slices %i and %i + 1 of a workspace of 64 x 128 tiles (8192 elements
  // each): one loaded, the other stored.
  gpu.func @declared(%w: memref<?x128xf32, 1> {tile.base_alignment = 16 : i64},
                     %i: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c8192 = arith.constant 8192 : index
    %offset = arith.muli %i, %c8192 : index
    %view = memref.reinterpret_cast %w to offset: [%offset], sizes: [64, 128], strides: [128, 1]
        : memref<?x128xf32, 1> to !view
    %g = tile.from_memref %view : !view -> !slice
    %next = arith.addi %offset, %c8192 : index
    %view2 = memref.reinterpret_cast %w to offset: [%next], sizes: [64, 128], strides: [128, 1]
        : memref<?x128xf32, 1> to !view
    %g2 = tile.from_memref %view2 : !view -> !slice
    %acc = tile.alloc_local : !acc
    tile.load %g[0, 0] to %acc : !slice to !acc
    tile.store %acc to %g2[0, 0] : !acc to !slice
    gpu.return
  }
  gpu.func @undeclared(%w: memref<?x128xf32, 1>, %i: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c8192 = arith.constant 8192 : index
    %offset = arith.muli %i, %c8192 : index
    %view = memref.reinterpret_cast %w to offset: [%offset], sizes: [64, 128], strides: [128, 1]
        : memref<?x128xf32, 1> to !view
    %g = tile.from_memref %view : !view -> !slice
    %acc = tile.alloc_local : !acc
    %x = arith.constant 1.0 : f32
    tile.fill %acc, %x : !acc, f32
    tile.store %acc to %g[0, 0] : !acc to !slice
    gpu.return
  }
  // An offset of any element count keeps only the element's alignment.
  gpu.func @unknown_offset(%w: memref<?x128xf32, 1> {tile.base_alignment = 16 : i64},
                           %offset: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %view = memref.reinterpret_cast %w to offset: [%offset], sizes: [64, 128], strides: [128, 1]
        : memref<?x128xf32, 1> to !view
    %g = tile.from_memref %view : !view -> !slice
    %acc = tile.alloc_local : !acc
    %x = arith.constant 1.0 : f32
    tile.fill %acc, %x : !acc, f32
    tile.store %acc to %g[0, 0] : !acc to !slice
    gpu.return
  }
  // A multiple of 1050625 elements (1025^2, odd): 4-byte aligned only.
  gpu.func @odd_multiple(%w: memref<?x128xf32, 1> {tile.base_alignment = 16 : i64},
                         %i: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %odd = arith.constant 1050625 : index
    %offset = arith.muli %i, %odd : index
    %view = memref.reinterpret_cast %w to offset: [%offset], sizes: [64, 128], strides: [128, 1]
        : memref<?x128xf32, 1> to !view
    %g = tile.from_memref %view : !view -> !slice
    %acc = tile.alloc_local : !acc
    %x = arith.constant 1.0 : f32
    tile.fill %acc, %x : !acc, f32
    tile.store %acc to %g[0, 0] : !acc to !slice
    gpu.return
  }
  // Tile (%i, %j) of 64 x 128 of a 256-column matrix.
  gpu.func @tile_offsets(%w: memref<1024x256xf32, 1> {tile.base_alignment = 16 : i64},
                         %i: index, %j: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %m0 = arith.muli %i, %c64 : index
    %n0 = arith.muli %j, %c128 : index
    %g = tile.from_memref %w : memref<1024x256xf32, 1> -> !tile.buffer<1024x256xf32, global>
    %acc = tile.alloc_local : !acc
    %x = arith.constant 1.0 : f32
    tile.fill %acc, %x : !acc, f32
    tile.store %acc to %g[%m0, %n0] : !acc to !tile.buffer<1024x256xf32, global>
    gpu.return
  }
  // The same at column %j: any element.
  gpu.func @unknown_column(%w: memref<1024x256xf32, 1> {tile.base_alignment = 16 : i64},
                           %i: index, %j: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c64 = arith.constant 64 : index
    %m0 = arith.muli %i, %c64 : index
    %g = tile.from_memref %w : memref<1024x256xf32, 1> -> !tile.buffer<1024x256xf32, global>
    %acc = tile.alloc_local : !acc
    %x = arith.constant 1.0 : f32
    tile.fill %acc, %x : !acc, f32
    tile.store %acc to %g[%m0, %j] : !acc to !tile.buffer<1024x256xf32, global>
    gpu.return
  }
}

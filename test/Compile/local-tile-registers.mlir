// A 64x256 f32 register tile (the wgmma m64n256 accumulator fragment: 128
// registers a thread) lowers to an alloca that LLVM promotes entirely:
// no local memory in the PTX, no stack frame and no spills in ptxas.
// RUN: tile-compile %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK-NOT: .local
// CHECK-NOT: __local_depot
// CHECK-COUNT-128: st.global.b32
// CHECK-NOT: st.global
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

!acc = !tile.buffer<64x256xf32, local, #tile.layout<S[(4,2,8,32,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  gpu.func @epilogue(%out: memref<64x256xf32, 1>, %x: f32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %acc = tile.alloc_local : !acc
    tile.fill %acc, %x : !acc, f32
    %g = tile.from_memref %out : memref<64x256xf32, 1> -> !tile.buffer<64x256xf32, global>
    tile.store %acc to %g[0, 0] : !acc to !tile.buffer<64x256xf32, global>
    gpu.return
  }
}

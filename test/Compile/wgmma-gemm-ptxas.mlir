// A K loop of wgmma GEMMs into one 64x256 f32 register accumulator (128
// registers a thread): each iteration's gemm_async chains 2 m64n256k16
// MMAs on one stage of a two-stage ring (64-byte swizzled tiles), commits a group and waits until at
// most one is in flight; the epilogue waits for all and stores. ptxas keeps
// the accumulator in registers (no stack, no spills) and pipelines the
// MMAs: it prints no "wgmma ... serialized" warning.
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.mma_async
// CHECK-COUNT-128: st.global.b32
// PTXAS-NOT: serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized

!ring_a = !tile.buffer<2x64x32xf16, shared, #tile.layout<S[(2,64,32):(2048,32,1)], swizzle<2,3,3>>>
!ring_b = !tile.buffer<2x256x32xf16, shared, #tile.layout<S[(2,256,32):(8192,32,1)], swizzle<2,3,3>>>
!acc = !tile.buffer<64x256xf32, local, #tile.layout<S[(4,2,8,32,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  gpu.func @k_loop(%out: memref<64x256xf32, 1>, %steps: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %sa = tile.alloc_shared : !ring_a
    %sb = tile.alloc_shared : !ring_b
    %acc = tile.alloc_local : !acc
    tile.fill %acc, %zero : !acc, f32
    scf.for %i = %c0 to %steps step %c1 {
      %stage = arith.remui %i, %c2 : index
      tile.gemm_async %acc[0, 0], %sa[%stage, 0, 0], %sb[%stage, 0, 0]
          sizes [64, 256, 32] exec warpgroup accumulate(%true) {transpose_b}
          : !acc, !ring_a, !ring_b
      tile.commit_group wgmma
      tile.wait_group wgmma, 1
    }
    tile.wait_group wgmma, 0
    %g = tile.from_memref %out : memref<64x256xf32, 1> -> !tile.buffer<64x256xf32, global>
    tile.store %acc to %g[0, 0] : !acc to !tile.buffer<64x256xf32, global>
    gpu.return
  }
}

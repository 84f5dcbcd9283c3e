// wgmma GEMMs with A in registers (the A fragment, filled by tile.load
// from global memory): each gemm_async chains 2 m64n256k16 MMAs (inline
// PTX: register A has no NVVM op) into a 64x256 f32 accumulator.
//   @a_resident  A loaded once, a K loop over a two-stage B ring keeping one
//                group in flight (wait_group 1);
//   @a_per_step  A reloaded every step, after wait_group 0 retired the
//                group that read it;
//   @a_fp8       e4m3 A (four elements a 32-bit register, bytes loaded
//                from global memory and packed) x e5m2 B: 2 m64n128k32
//                MMAs without imm-trans-b into a 64x128 f32 accumulator.
// ptxas keeps A and the accumulator in registers (no stack, no spills) and
// prints no "wgmma ... serialized" message: the accumulators are tied in
// place and A's registers are written only before the fence, while no MMA
// is in flight. (Rewriting them while one is, e.g. reloading A under
// wait_group 1, makes ptxas serialize: C7515.)
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: .entry a_resident(
// CHECK-COUNT-8: ld.global.b16
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{[{]}}[[D:%r[0-9]+]], {{.+}}}, {[[A0:%r[0-9]+]], [[A1:%r[0-9]+]], [[A2:%r[0-9]+]], [[A3:%r[0-9]+]]}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{[{]}}[[D]], {{.+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.mma_async
// CHECK-COUNT-128: st.global.b32
// CHECK-LABEL: .entry a_per_step(
// CHECK: ld.global.b16
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-LABEL: .entry a_fp8(
// CHECK: ld.global.b8
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2 {{[{]}}[[D8:%r[0-9]+]], {{.+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2 {{[{]}}[[D8]], {{.+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK-NOT: wgmma.mma_async
// PTXAS-NOT: serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized

!ra = !tile.buffer<64x32xf16, local, #tile.layout<S[(4,2,8,4,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!ring_b = !tile.buffer<2x256x32xf16, shared, #tile.layout<S[(2,256,32):(8192,32,1)], swizzle<2,3,3>>>
!acc = !tile.buffer<64x256xf32, local, #tile.layout<S[(4,2,8,32,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!ga = !tile.buffer<64x1024xf16, global>
!out = !tile.buffer<64x256xf32, global>

gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  gpu.func @a_resident(%a: memref<64x1024xf16, 1>, %out: memref<64x256xf32, 1>, %steps: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %g = tile.from_memref %a : memref<64x1024xf16, 1> -> !ga
    %sb = tile.alloc_shared : !ring_b
    %ra = tile.alloc_local : !ra
    %acc = tile.alloc_local : !acc
    tile.fill %acc, %zero : !acc, f32
    tile.load %g[0, 0] to %ra : !ga to !ra
    scf.for %i = %c0 to %steps step %c1 {
      %stage = arith.remui %i, %c2 : index
      tile.gemm_async %acc[0, 0], %ra[0, 0], %sb[%stage, 0, 0]
          sizes [64, 256, 32] exec warpgroup accumulate(%true) {transpose_b}
          : !acc, !ra, !ring_b
      tile.commit_group wgmma
      tile.wait_group wgmma, 1
    }
    tile.wait_group wgmma, 0
    %o = tile.from_memref %out : memref<64x256xf32, 1> -> !out
    tile.store %acc to %o[0, 0] : !acc to !out
    gpu.return
  }

  gpu.func @a_per_step(%a: memref<64x1024xf16, 1>, %out: memref<64x256xf32, 1>, %steps: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %g = tile.from_memref %a : memref<64x1024xf16, 1> -> !ga
    %sb = tile.alloc_shared : !ring_b
    %ra = tile.alloc_local : !ra
    %acc = tile.alloc_local : !acc
    tile.fill %acc, %zero : !acc, f32
    scf.for %i = %c0 to %steps step %c1 {
      %stage = arith.remui %i, %c2 : index
      %k = arith.muli %i, %c32 : index
      tile.load %g[0, %k] to %ra : !ga to !ra
      tile.gemm_async %acc[0, 0], %ra[0, 0], %sb[%stage, 0, 0]
          sizes [64, 256, 32] exec warpgroup accumulate(%true) {transpose_b}
          : !acc, !ra, !ring_b
      tile.commit_group wgmma
      tile.wait_group wgmma, 0
    }
    %o = tile.from_memref %out : memref<64x256xf32, 1> -> !out
    tile.store %acc to %o[0, 0] : !acc to !out
    gpu.return
  }

  gpu.func @a_fp8(%a: memref<64x64xf8E4M3FN, 1>, %out: memref<64x128xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %zero = arith.constant 0.0 : f32
    %g = tile.from_memref %a : memref<64x64xf8E4M3FN, 1> -> !tile.buffer<64x64xf8E4M3FN, global>
    %sb = tile.alloc_shared {alignment = 1024 : i64} : !tile.buffer<128x64xf8E5M2, shared, #tile.layout<S[(128,64):(64,1)], swizzle<2,4,3>>>
    %ra = tile.alloc_local : !tile.buffer<64x64xf8E4M3FN, local, #tile.layout<S[(4,2,8,2,2,4,4):(32@tid_in_wg,4,4@tid_in_wg,16,8,1@tid_in_wg,1)]>>
    %acc = tile.alloc_local : !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
    tile.load %g[0, 0] to %ra : !tile.buffer<64x64xf8E4M3FN, global> to !tile.buffer<64x64xf8E4M3FN, local, #tile.layout<S[(4,2,8,2,2,4,4):(32@tid_in_wg,4,4@tid_in_wg,16,8,1@tid_in_wg,1)]>>
    tile.gemm_async %acc[0, 0], %ra[0, 0], %sb[0, 0] sizes [64, 128, 64] exec warpgroup {transpose_b}
        : !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>,
          !tile.buffer<64x64xf8E4M3FN, local, #tile.layout<S[(4,2,8,2,2,4,4):(32@tid_in_wg,4,4@tid_in_wg,16,8,1@tid_in_wg,1)]>>,
          !tile.buffer<128x64xf8E5M2, shared, #tile.layout<S[(128,64):(64,1)], swizzle<2,4,3>>>
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    %o = tile.from_memref %out : memref<64x128xf32, 1> -> !tile.buffer<64x128xf32, global>
    tile.store %acc to %o[0, 0] : !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>> to !tile.buffer<64x128xf32, global>
    gpu.return
  }
}

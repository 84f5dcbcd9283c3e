// Scalar math in a tile.map region, compiled to PTX: each op one
// instruction (docs/RegisterCompute.md "Scalar functions"). math.absf and
// math.sqrt failed to lower before (convert-gpu-to-nvvm refuses
// llvm.intr.fabs / llvm.intr.sqrt): --tile-math-to-nvvm clears the sign
// bit (which LLVM turns back into abs.f32) and calls the sqrt.rn intrinsic;
// f16 sqrt goes through f32.
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-LABEL: .entry scalar_math(
// CHECK: abs.f32 [[ABS:%r[0-9]+]], [[X:%r[0-9]+]];
// CHECK: sqrt.rn.f32 [[ROOT:%r[0-9]+]], [[ABS]];
// CHECK: max.NaN.f32 [[MAX:%r[0-9]+]], [[ROOT]], [[X]];
// CHECK: min.f32 [[MIN:%r[0-9]+]], [[MAX]], [[ABS]];
// CHECK: fma.rn.f32 {{%r[0-9]+}}, [[MIN]], [[ABS]], [[ROOT]];
// CHECK-LABEL: .entry scalar_math_f16(
// CHECK: cvt.f32.f16
// CHECK: sqrt.rn.f32
// CHECK: cvt.rn.f16.f32
// CHECK-LABEL: .entry scalar_math_f64(
// CHECK: abs.f64
// CHECK: sqrt.rn.f64

!h = !tile.buffer<128x4xf16, local, #tile.layout<S[(128,4):(1@tid_in_wg,1)]>>
!d = !tile.buffer<128x4xf64, local, #tile.layout<S[(128,4):(1@tid_in_wg,1)]>>
!t = !tile.buffer<128x4xf32, local, #tile.layout<S[(128,4):(1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @scalar_math(%out: memref<128x4xf32, 1>, %c: f32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %x = tile.alloc_local : !t
    tile.fill %x, %c : !t, f32
    tile.map ins(%x : !t) outs(%x : !t) {
    ^bb0(%e: f32, %i: index, %j: index):
      %a = math.absf %e : f32
      %s = math.sqrt %a : f32
      %m = arith.maximumf %s, %e : f32
      %n = arith.minnumf %m, %a : f32
      %f = math.fma %n, %a, %s : f32
      tile.yield %f : f32
    }
    %g = tile.from_memref %out : memref<128x4xf32, 1> -> !tile.buffer<128x4xf32, global>
    tile.store %x to %g[0, 0] : !t to !tile.buffer<128x4xf32, global>
    gpu.return
  }
  gpu.func @scalar_math_f16(%out: memref<128x4xf16, 1>, %c: f16) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %x = tile.alloc_local : !h
    tile.fill %x, %c : !h, f16
    tile.map ins(%x : !h) outs(%x : !h) {
    ^bb0(%e: f16, %i: index, %j: index):
      %s = math.sqrt %e : f16
      tile.yield %s : f16
    }
    %g = tile.from_memref %out : memref<128x4xf16, 1> -> !tile.buffer<128x4xf16, global>
    tile.store %x to %g[0, 0] : !h to !tile.buffer<128x4xf16, global>
    gpu.return
  }
  gpu.func @scalar_math_f64(%out: memref<128x4xf64, 1>, %c: f64) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %x = tile.alloc_local : !d
    tile.fill %x, %c : !d, f64
    tile.map ins(%x : !d) outs(%x : !d) {
    ^bb0(%e: f64, %i: index, %j: index):
      %a = math.absf %e : f64
      %s = math.sqrt %a : f64
      tile.yield %s : f64
    }
    %g = tile.from_memref %out : memref<128x4xf64, 1> -> !tile.buffer<128x4xf64, global>
    tile.store %x to %g[0, 0] : !d to !tile.buffer<128x4xf64, global>
    gpu.return
  }
}

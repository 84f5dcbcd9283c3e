// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Every attribute, type and op of the tile dialect survives print -> parse.

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tile.dense = #tile.layout<S[(32,16):(16,1)]>
// CHECK-SAME: tile.exec = #tile.exec_scope<warpgroup>
// CHECK-SAME: tile.offsets = #tile.layout<S[8:1] + 4@TCol + 2>
// CHECK-SAME: tile.scope = #tile.memory_scope<tmem>
// CHECK-SAME: tile.single = #tile.layout<S[256:1]>
// CHECK-SAME: tile.swizzled = #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>
// CHECK-SAME: tile.threads = #tile.layout<S[(4,8,2):(1@warpid,4@laneid,1)] + R[(2,4):(1@tid_in_wg,8@wid_in_wg)] + 3@tx>
// CHECK-SAME: tile.warpx4 = #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>
func.func @layouts() attributes {
  tile.dense = #tile.layout<S[(32,16):(16,1)]>,
  tile.warpx4 = #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>,
  tile.swizzled = #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>,
  tile.single = #tile.layout<S[256:1@m]>,
  tile.offsets = #tile.layout<S[8:1] + 4@TCol + 2>,
  tile.threads = #tile.layout<S[(4,8,2):(1@warpid,4@laneid,1)] + R[(2,4):(1@tid_in_wg,8@wid_in_wg)] + 3@tx>,
  tile.scope = #tile.memory_scope<tmem>,
  tile.exec = #tile.exec_scope<warpgroup>
} {
  return
}

// CHECK-LABEL: func.func @buffer_types
// CHECK-SAME: !tile.buffer<?x?xf16, global>
// CHECK-SAME: !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
// CHECK-SAME: !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
// CHECK-SAME: !tile.buffer<128x256xf32, tmem, #tile.layout<S[(128,256):(1@TLane,1@TCol)] + 256@TCol>>
// CHECK-SAME: !tile.buffer<32x8xf32, local, #tile.layout<S[(32,8):(1@laneid,1)]>>
// CHECK-SAME: !tile.buffer<2x64xbf16, shared, #tile.layout<S[(2,64):(1@cta,1)]>>
// CHECK-SAME: !tile.buffer<16xi8, shared>
func.func @buffer_types(
    %g: !tile.buffer<?x?xf16, global>,
    %s: !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>,
    %t: !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>,
    %acc: !tile.buffer<128x256xf32, tmem, #tile.layout<S[(128,256):(1@TLane,1@TCol)] + 256@TCol>>,
    %r: !tile.buffer<32x8xf32, local, #tile.layout<S[(32,8):(1@laneid,1)]>>,
    %d: !tile.buffer<2x64xbf16, shared, #tile.layout<S[(2,64):(1@cta,1)]>>,
    %plain: !tile.buffer<16xi8, shared>) {
  return
}

// CHECK-LABEL: func.func @buffer_ops
// CHECK-SAME: (%[[MEM:.*]]: memref<?x?xf16, 1>, %[[STRIDED:.*]]: memref<8x64xf32, strided<[128, 1], offset: 4>>, %[[TADDR:.*]]: i32)
func.func @buffer_ops(%mem: memref<?x?xf16, 1>,
                      %strided: memref<8x64xf32, strided<[128, 1], offset: 4>>,
                      %taddr: i32) {
  // CHECK: %{{.*}} = tile.from_memref %[[MEM]] : memref<?x?xf16, 1> -> !tile.buffer<?x?xf16, global>
  %g = tile.from_memref %mem : memref<?x?xf16, 1> -> !tile.buffer<?x?xf16, global>
  // CHECK: tile.from_memref %[[STRIDED]] : memref<8x64xf32, strided<[128, 1], offset: 4>> -> !tile.buffer<8x64xf32, global, #tile.layout<S[(8,64):(128,1)] + 4>>
  %v = tile.from_memref %strided : memref<8x64xf32, strided<[128, 1], offset: 4>> -> !tile.buffer<8x64xf32, global, #tile.layout<S[(8,64):(128,1)] + 4>>
  // CHECK: tile.alloc_shared {alignment = 1024 : i64} : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
  %s = tile.alloc_shared {alignment = 1024 : i64} : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
  // CHECK: tile.alloc_shared : !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
  %u = tile.alloc_shared : !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
  // CHECK: tile.tmem_buffer %[[TADDR]] : !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
  %t = tile.tmem_buffer %taddr : !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
  return
}

// The GPU dialect's global address space is global memory too.
// CHECK-LABEL: func.func @gpu_global
// CHECK: tile.from_memref %{{.*}} : memref<64xf32, #gpu.address_space<global>> -> !tile.buffer<64xf32, global>
func.func @gpu_global(%m: memref<64xf32, #gpu.address_space<global>>) {
  %g = tile.from_memref %m : memref<64xf32, #gpu.address_space<global>> -> !tile.buffer<64xf32, global>
  return
}

// A local tile is one llvm.alloca of the thread's registers (the layout's
// memory cosize) in the entry block, accessed only at constant indices;
// tile.store adds the thread's digits (from tid.x) once and a constant per
// register.
// RUN: tile-opt %s --tile-lower-variants=check=1 | FileCheck %s

// The m16n8 fragment shape: thread t = 4q + r of a warp holds row q + 8h,
// columns 2r + e in register 2h + e.
!frag = !tile.buffer<16x8xf32, local, #tile.layout<S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>>

// CHECK-LABEL: func.func @fill_and_store
// CHECK: %[[ONE:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[TILE:.+]] = llvm.alloca %[[ONE]] x !llvm.array<4 x f32> {alignment = 16 : i64} : (i32) -> !llvm.ptr
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr
// CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[T:.+]] = llvm.zext %[[TID]] : i32 to i64
// q = (t / 4) % 8 steps one row: 32 elements of the 16x32 destination
// CHECK: %[[C4:.+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK: %[[Q:.+]] = llvm.udiv %[[T]], %[[C4]] : i64
// CHECK: %[[C8:.+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK: %[[QD:.+]] = llvm.urem %[[Q]], %[[C8]] : i64
// CHECK: %[[C32:.+]] = llvm.mlir.constant(32 : i64) : i64
// CHECK: llvm.mul %[[QD]], %[[C32]] : i64
// r = t % 4 steps two columns
// CHECK: %[[C1:.+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: llvm.udiv %[[T]], %[[C1]] : i64
// CHECK: llvm.mlir.constant(2 : i64) : i64
// Register 0 is (0, 0) -> element 16 (offset [0, 16]); register 1 is (0, 1);
// register 2 is (8, 0) -> 8 * 32 + 16; register 3 is (8, 1).
// CHECK: llvm.getelementptr %[[TILE]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// CHECK: llvm.mlir.constant(16 : i64)
// CHECK: llvm.getelementptr %[[TILE]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// CHECK: llvm.mlir.constant(17 : i64)
// CHECK: llvm.getelementptr %[[TILE]][0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// CHECK: llvm.mlir.constant(272 : i64)
// CHECK: llvm.getelementptr %[[TILE]][0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// CHECK: %[[LAST:.+]] = llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK: %[[HALF:.+]] = llvm.fptrunc %[[LAST]] : f32 to f16
// CHECK: llvm.mlir.constant(273 : i64)
// CHECK: llvm.store %[[HALF]], %{{.+}} : f16, !llvm.ptr<1>
// CHECK-NOT: llvm.store
func.func @fill_and_store(%out: memref<16x32xf16, 1>, %x: f32) {
  %acc = tile.alloc_local : !frag
  tile.fill %acc, %x : !frag, f32
  %g = tile.from_memref %out : memref<16x32xf16, 1> -> !tile.buffer<16x32xf16, global>
  tile.store %acc to %g[0, 16] : !frag to !tile.buffer<16x32xf16, global>
  return
}

// A runtime row offset is scaled by the row stride (64 elements) once.
// CHECK-LABEL: func.func @runtime_offset
// CHECK-SAME: %[[ROW:[a-z0-9]+]]: index
// CHECK: %[[R:.+]] = arith.index_cast %[[ROW]] : index to i64
// CHECK: %[[C64:.+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: llvm.mul %[[R]], %[[C64]] : i64
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
func.func @runtime_offset(%row: index) {
  %acc = tile.alloc_local : !frag
  %s = tile.alloc_shared : !tile.buffer<32x64xf32, shared>
  tile.store %acc to %s[%row, 8] : !frag to !tile.buffer<32x64xf32, shared>
  return
}

// tile.load is the converse: the same thread base and per-register
// constants, each element loaded from the source (f16 here) and widened
// into its f32 register.
// CHECK-LABEL: func.func @load
// CHECK: %[[TILE:.+]] = llvm.alloca %{{.+}} x !llvm.array<4 x f32>
// CHECK: nvvm.read.ptx.sreg.tid.x
// Register 2 is (8, 0): element 8 * 32 + 16 of the 16x32 source.
// CHECK: llvm.mlir.constant(16 : i64)
// CHECK: %[[V0:.+]] = llvm.load %{{.+}} : !llvm.ptr<1> -> f16
// CHECK: %[[W0:.+]] = llvm.fpext %[[V0]] : f16 to f32
// CHECK: %[[R0:.+]] = llvm.getelementptr %[[TILE]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// CHECK: llvm.store %[[W0]], %[[R0]] : f32, !llvm.ptr
// CHECK: llvm.mlir.constant(17 : i64)
// CHECK: llvm.getelementptr %[[TILE]][0, 1]
// CHECK: llvm.mlir.constant(272 : i64)
// CHECK: llvm.getelementptr %[[TILE]][0, 2]
// CHECK: llvm.mlir.constant(273 : i64)
// CHECK: llvm.getelementptr %[[TILE]][0, 3]
// CHECK-COUNT-4: llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK-NOT: llvm.load
func.func @load(%in: memref<16x32xf16, 1>, %out: memref<16x8xf32, 1>) {
  %frag = tile.alloc_local : !frag
  %g = tile.from_memref %in : memref<16x32xf16, 1> -> !tile.buffer<16x32xf16, global>
  tile.load %g[0, 16] to %frag : !tile.buffer<16x32xf16, global> to !frag
  %o = tile.from_memref %out : memref<16x8xf32, 1> -> !tile.buffer<16x8xf32, global>
  tile.store %frag to %o[0, 0] : !frag to !tile.buffer<16x8xf32, global>
  return
}

// A runtime row of a shared source, scaled by its row stride once.
// CHECK-LABEL: func.func @load_runtime_offset
// CHECK-SAME: %[[ROW:[a-z0-9]+]]: index
// CHECK: %[[R:.+]] = arith.index_cast %[[ROW]] : index to i64
// CHECK: %[[C64:.+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: llvm.mul %[[R]], %[[C64]] : i64
// CHECK-COUNT-4: llvm.load %{{.+}} : !llvm.ptr<3> -> f32
func.func @load_runtime_offset(%row: index) {
  %frag = tile.alloc_local : !frag
  %s = tile.alloc_shared : !tile.buffer<32x64xf32, shared>
  tile.load %s[%row, 8] to %frag : !tile.buffer<32x64xf32, shared> to !frag
  return
}

// bf16 and f16 hold neither each other: converted through f32.
!frag16 = !tile.buffer<16x8xf16, local, #tile.layout<S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>>
// CHECK-LABEL: func.func @load_bf16_into_f16
// CHECK: %[[V:.+]] = llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// CHECK: %[[W:.+]] = llvm.fpext %[[V]] : bf16 to f32
// CHECK: %[[H:.+]] = llvm.fptrunc %[[W]] : f32 to f16
// CHECK: llvm.store %[[H]], %{{.+}} : f16, !llvm.ptr
func.func @load_bf16_into_f16(%in: memref<16x8xbf16, 1>) {
  %frag = tile.alloc_local : !frag16
  %g = tile.from_memref %in : memref<16x8xbf16, 1> -> !tile.buffer<16x8xbf16, global>
  tile.load %g[0, 0] to %frag : !tile.buffer<16x8xbf16, global> to !frag16
  return
}

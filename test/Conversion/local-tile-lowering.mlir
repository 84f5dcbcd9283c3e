// A local tile is one llvm.alloca of the thread's registers (the layout's
// memory cosize) in the entry block, accessed only at constant indices;
// tile.store adds the thread's digits (from tid.x) once and a constant per
// run of consecutive registers: one vector store per run where the shared
// allocation's alignment allows, swizzled like the destination. (On sm_80,
// which has no stmatrix: the sm_90 stmatrix form of stores into shared
// memory is local-tile-stmatrix.mlir.)
// RUN: tile-opt %s --tile-select-variants="chip=sm_80" --tile-lower-variants="chip=sm_80 check=1" | FileCheck %s

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
// CHECK: llvm.store %[[HALF]], %{{.+}} {alignment = 2 : i64} : f16, !llvm.ptr<1>
// CHECK-NOT: llvm.store
func.func @fill_and_store(%out: memref<16x32xf16, 1>, %x: f32) {
  %acc = tile.alloc_local : !frag
  tile.fill %acc, %x : !frag, f32
  %g = tile.from_memref %out : memref<16x32xf16, 1> -> !tile.buffer<16x32xf16, global>
  tile.store %acc to %g[0, 16] : !frag to !tile.buffer<16x32xf16, global>
  return
}

// A runtime row offset is scaled by the row stride (64 elements) once.
// Registers 2h and 2h+1 are adjacent columns at an even offset (8 + 2r,
// rows 64 elements apart) in a 128-byte aligned tile: one 8-byte store each.
// CHECK-LABEL: func.func @runtime_offset
// CHECK-SAME: %[[ROW:[a-z0-9]+]]: index
// CHECK: %[[R:.+]] = arith.index_cast %[[ROW]] : index to i64
// CHECK: %[[C64:.+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: llvm.mul %[[R]], %[[C64]] : i64
// CHECK: llvm.insertelement
// CHECK: llvm.insertelement
// CHECK: llvm.mlir.constant(8 : i64) : i64
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// Register 2 is row 8: 8 * 64 + 8.
// CHECK: llvm.mlir.constant(520 : i64) : i64
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
func.func @runtime_offset(%row: index) {
  %acc = tile.alloc_local : !frag
  %s = tile.alloc_shared : !tile.buffer<32x64xf32, shared>
  tile.store %acc to %s[%row, 8] : !frag to !tile.buffer<32x64xf32, shared>
  return
}

// A 128-byte swizzled destination in 64-column atoms (f16 rows of 128
// bytes; atoms 1024 elements apart): at [0, 64] the registers land in atom 1
// (offset 1024 + 2r + 8 * 64 h), each pair one 4-byte store, and every
// address goes through x ^ ((x & 0x1c0) >> 3): 16-byte chunks XORed with the
// row modulo 8.
// CHECK-LABEL: func.func @swizzled_destination
// CHECK: llvm.mlir.constant(1024 : i64) : i64
// CHECK: %[[AT:.+]] = llvm.add %{{.+}}, %{{.+}} : i64
// CHECK: %[[MASK:.+]] = llvm.mlir.constant(448 : i64) : i64
// CHECK: %[[BITS:.+]] = llvm.and %[[AT]], %[[MASK]] : i64
// CHECK: %[[SHIFT:.+]] = llvm.mlir.constant(3 : i64) : i64
// CHECK: %[[MOVED:.+]] = llvm.lshr %[[BITS]], %[[SHIFT]] : i64
// CHECK: llvm.xor %[[AT]], %[[MOVED]] : i64
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK: llvm.mlir.constant(1536 : i64) : i64
// CHECK: llvm.xor
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
!halves = !tile.buffer<16x8xf16, local, #tile.layout<S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>>
!atoms = !tile.buffer<16x128xf16, shared, #tile.layout<S[(16,2,64):(64,1024,1)], swizzle<3,3,3>>>
func.func @swizzled_destination() {
  %acc = tile.alloc_local : !halves
  %s = tile.alloc_shared : !atoms
  tile.store %acc to %s[0, 64] : !halves to !atoms
  return
}

// Lanes 0..31 along columns of a destination split every 16 columns: with
// the lane spelled as two digits (16u + v), digit u steps a whole 16-column
// group (32 elements in memory) and v stays inside one, so every element is
// the thread's base plus a constant: the base adds u * 32 + v. (As one
// digit of 32 lanes the store is refused: invalid-local.mlir.)
!lanes2 = !tile.buffer<2x32xf32, local, #tile.layout<S[(2,2,16):(1,16@laneid,1@laneid)]>>
!split = !tile.buffer<2x64xf32, shared, #tile.layout<S[(2,4,16):(16,32,1)]>>
// CHECK-LABEL: func.func @thread_digit_steps_a_group
// CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[U:.+]] = llvm.urem %{{.+}}, %{{.+}} : i64
// CHECK: %[[C32:.+]] = llvm.mlir.constant(32 : i64) : i64
// CHECK: llvm.mul %[[U]], %[[C32]] : i64
// CHECK: %[[V:.+]] = llvm.urem %{{.+}}, %{{.+}} : i64
// CHECK: %[[C1:.+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: llvm.mul %[[V]], %[[C1]] : i64
// Register 1 (row 1) is 16 elements on.
// CHECK: llvm.mlir.constant(16 : i64) : i64
func.func @thread_digit_steps_a_group() {
  %acc = tile.alloc_local : !lanes2
  %s = tile.alloc_shared : !split
  tile.store %acc to %s[0, 0] : !lanes2 to !split
  return
}

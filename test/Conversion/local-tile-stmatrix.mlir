// tile.store of a register tile into shared memory on sm_90+ uses
// stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 (nvvm.stmatrix)
// when the destination's elements are 16-bit and each 8x8 block's rows are
// 16 contiguous, aligned bytes (StMatrixPlanner.h); otherwise the
// vector-store plan. Each lane supplies one row address per instruction:
// its row thread's digits (the warp's lane 4 (l % 8); transposed
// (l % 8) / 2) plus a constant per lane bit, through the swizzle.
// RUN: tile-opt %s --tile-select-variants="chip=sm_90a" --tile-lower-variants="chip=sm_90a check=1" | FileCheck %s

// The 64 x 64 f32 wgmma accumulator, converted to bf16 into a 128-byte
// swizzled 64 x 64 tile (rows of 128 bytes): 16 register pairs a thread,
// four stmatrix.x4. Instruction 0: pairs 0..3 (rows 0..7, columns 0..31):
// lane 8i + x gives row x of columns 8i..8i+7 (bit 3 of the lane: +8, bit
// 4: +16); instruction 2: rows 8..15 (+512).
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!c = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
// CHECK-LABEL: func.func @accumulator_to_swizzled
// CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[T:.+]] = llvm.zext %[[TID]] : i32 to i64
// CHECK: %[[M32:.+]] = llvm.mlir.constant(-32 : i64) : i64
// CHECK: %[[WARP:.+]] = llvm.and %[[T]], %[[M32]] : i64
// CHECK: %[[C7:.+]] = llvm.mlir.constant(7 : i64) : i64
// CHECK: %[[X:.+]] = llvm.and %[[T]], %[[C7]] : i64
// CHECK: %[[C2:.+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: %[[LANE:.+]] = llvm.shl %[[X]], %[[C2]] : i64
// CHECK: %[[ROWT:.+]] = llvm.add %[[WARP]], %[[LANE]] : i64
// CHECK: llvm.udiv %[[ROWT]]
// CHECK: %[[B3S:.+]] = llvm.lshr %[[T]], %{{.+}} : i64
// CHECK: %[[B3:.+]] = llvm.and %[[B3S]], %{{.+}} : i64
// CHECK: %[[B4S:.+]] = llvm.lshr %[[T]], %{{.+}} : i64
// CHECK: %[[B4:.+]] = llvm.and %[[B4S]], %{{.+}} : i64
// CHECK: llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[S8:.+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK: llvm.mul %[[B3]], %[[S8]] : i64
// CHECK: %[[S16:.+]] = llvm.mlir.constant(16 : i64) : i64
// CHECK: llvm.mul %[[B4]], %[[S16]] : i64
// CHECK: llvm.mlir.constant(448 : i64) : i64
// CHECK: llvm.xor
// CHECK: %[[P0:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, bf16
// CHECK: llvm.fptrunc %{{.+}} : f32 to bf16
// CHECK: llvm.fptrunc %{{.+}} : f32 to bf16
// CHECK: %[[W0:.+]] = llvm.bitcast %{{.+}} : vector<2xbf16> to i32
// CHECK: %[[W1:.+]] = llvm.bitcast %{{.+}} : vector<2xbf16> to i32
// CHECK: %[[W2:.+]] = llvm.bitcast %{{.+}} : vector<2xbf16> to i32
// CHECK: %[[W3:.+]] = llvm.bitcast %{{.+}} : vector<2xbf16> to i32
// CHECK: nvvm.stmatrix %[[P0]], %[[W0]], %[[W1]], %[[W2]], %[[W3]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: llvm.mlir.constant(32 : i64) : i64
// CHECK: nvvm.stmatrix
// CHECK: llvm.mlir.constant(512 : i64) : i64
// CHECK: nvvm.stmatrix
// CHECK: llvm.mlir.constant(544 : i64) : i64
// CHECK: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store %{{.+}}, %{{.+}} : {{.+}}, !llvm.ptr<3>
// CHECK: return
func.func @accumulator_to_swizzled() {
  %acc = tile.alloc_local : !acc
  %s = tile.alloc_shared {alignment = 1024 : i64} : !c
  tile.store %acc to %s[0, 0] : !acc to !c
  return
}

// Column-major destination (rows of the tile contiguous): lane (q, r)'s
// two columns are 64 elements apart, so the matrices are stored
// transposed: lane 8i + x supplies column 2(x/2) + x%2 of matrix i: lane
// bit 0 +64, bit 3 +512 (next 8 columns), bit 4 +1024; row thread
// (l % 8) / 2.
!acc32 = !tile.buffer<64x32xf16, local, #tile.layout<S[(4,2,8,4,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cm = !tile.buffer<64x32xf16, shared, #tile.layout<S[(64,32):(1,64)]>>
// CHECK-LABEL: func.func @accumulator_column_major
// CHECK: llvm.mlir.constant(7 : i64) : i64
// CHECK-NEXT: %[[X1:.+]] = llvm.and %{{.+}}, %{{.+}} : i64
// CHECK-NEXT: %[[ONE:.+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: llvm.lshr %[[X1]], %[[ONE]] : i64
// CHECK: llvm.mlir.constant(64 : i64) : i64
// CHECK: llvm.mlir.constant(512 : i64) : i64
// CHECK: llvm.mlir.constant(1024 : i64) : i64
// CHECK: nvvm.stmatrix %{{.+}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: nvvm.stmatrix %{{.+}}layout = #nvvm.mma_layout<col>
// CHECK-NOT: nvvm.stmatrix
// CHECK: return
func.func @accumulator_column_major() {
  %acc = tile.alloc_local : !acc32
  %s = tile.alloc_shared {alignment = 128 : i64} : !cm
  tile.store %acc to %s[0, 0] : !acc32 to !cm
  return
}

// A 24-column accumulator: the four pairs of rows 0..7 are columns 0, 8,
// 16 and then rows 8..15, not one step per lane bit: x2 (columns 0, 8),
// x2 (column 16, rows 0..7 and 8..15), x2.
!acc24 = !tile.buffer<64x24xf32, local, #tile.layout<S[(4,2,8,3,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!c24 = !tile.buffer<64x24xf16, shared, #tile.layout<S[(64,24):(24,1)]>>
// CHECK-LABEL: func.func @accumulator_24_columns
// CHECK-COUNT-3: nvvm.stmatrix %{{.+}}, %{{.+}}, %{{.+}} {{{.+}}layout = #nvvm.mma_layout<row>{{.+}}} : !llvm.ptr<3>, i32, i32
// CHECK-NOT: nvvm.stmatrix
func.func @accumulator_24_columns() {
  %acc = tile.alloc_local : !acc24
  %s = tile.alloc_shared {alignment = 16 : i64} : !c24
  tile.store %acc to %s[0, 0] : !acc24 to !c24
  return
}

// A runtime row offset moves the base by whole 64-element (128-byte) rows:
// still stmatrix. Fallbacks to the vector-store plan: a 32-bit
// destination, a global destination, rows of 68 elements (off 16-byte
// boundaries). (Chips without stmatrix: local-tile-lowering.mlir, sm_80.)
// CHECK-LABEL: func.func @runtime_row
// CHECK: nvvm.stmatrix
func.func @runtime_row(%row: index) {
  %acc = tile.alloc_local : !acc
  %s = tile.alloc_shared {alignment = 1024 : i64} : !tile.buffer<128x64xbf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
  tile.store %acc to %s[%row, 0] : !acc to !tile.buffer<128x64xbf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
  return
}

// CHECK-LABEL: func.func @f32_destination
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-LABEL: func.func @global_destination
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 2 : i64} : bf16, !llvm.ptr<1>
// CHECK-LABEL: func.func @rows_off_boundaries
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
func.func @f32_destination() {
  %acc = tile.alloc_local : !acc
  %s = tile.alloc_shared {alignment = 1024 : i64} : !tile.buffer<64x64xf32, shared>
  tile.store %acc to %s[0, 0] : !acc to !tile.buffer<64x64xf32, shared>
  return
}
func.func @global_destination(%out: memref<64x64xbf16, 1>) {
  %acc = tile.alloc_local : !acc
  %g = tile.from_memref %out : memref<64x64xbf16, 1> -> !tile.buffer<64x64xbf16, global>
  tile.store %acc to %g[0, 0] : !acc to !tile.buffer<64x64xbf16, global>
  return
}
func.func @rows_off_boundaries() {
  %acc = tile.alloc_local : !acc
  %s = tile.alloc_shared {alignment = 1024 : i64} : !tile.buffer<64x68xf16, shared>
  tile.store %acc to %s[0, 0] : !acc to !tile.buffer<64x68xf16, shared>
  return
}

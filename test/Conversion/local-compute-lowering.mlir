// tile.reduce, tile.map and tile.convert lowered through their variants
// (translation validation on): straight-line register code over the
// tiles' allocas, lane butterflies for the rows a quad holds, the
// coordinates as thread 0's plus a step per thread bit, packed cvt.
// RUN: tile-opt %s --tile-select-variants="chip=sm_90a" --tile-lower-variants="chip=sm_90a check=1" | FileCheck %s

!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
!p = !tile.buffer<64x16xbf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!q = !tile.buffer<64x16xf8E4M3FN, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

// Row h of the thread's quad: registers 4j + 2h + e (j, e in {0, 1}) as a
// tree, then lanes xor 1 and xor 2.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG: %[[ROWS:.+]] = llvm.alloca %{{.+}} x !llvm.array<2 x f32>
// CHECK-DAG: %[[S:.+]] = llvm.alloca %{{.+}} x !llvm.array<8 x f32>
// CHECK: llvm.getelementptr %[[S]][0, 0]
// CHECK: llvm.getelementptr %[[S]][0, 1]
// CHECK: llvm.getelementptr %[[S]][0, 4]
// CHECK: llvm.getelementptr %[[S]][0, 5]
// CHECK-COUNT-3: llvm.intr.maxnum
// CHECK: %[[ONE:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[X1:.+]] = nvvm.shfl.sync bfly %{{.+}}, %[[T:.+]], %[[ONE]], %{{.+}} : f32 -> f32
// CHECK: %[[M1:.+]] = llvm.intr.maxnum(%[[T]], %[[X1]])
// CHECK: %[[TWO:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[X2:.+]] = nvvm.shfl.sync bfly %{{.+}}, %[[M1]], %[[TWO]], %{{.+}} : f32 -> f32
// CHECK: %[[M2:.+]] = llvm.intr.maxnum(%[[M1]], %[[X2]])
// CHECK: %[[R0:.+]] = llvm.getelementptr %[[ROWS]][0, 0]
// CHECK: llvm.store %[[M2]], %[[R0]]
// CHECK: llvm.getelementptr %[[S]][0, 2]
// CHECK-COUNT-2: nvvm.shfl.sync bfly
// CHECK: llvm.getelementptr %[[ROWS]][0, 1]
// CHECK-NOT: nvvm.shfl.sync
// CHECK: return
func.func @row_max() {
  %s = tile.alloc_local : !acc
  %m = tile.alloc_local : !rows
  tile.reduce <max> %s dims [1] into %m : !acc into !rows
  return
}

// The causal mask reads the coordinates: row = 16w + 8h + q from thread
// bits 2..6 (steps 1, 2, 4, 16, 32), column 8j + 2r + e from bits 0, 1
// (steps 2, 4); each register reads the row maximum of its own h.
// CHECK-LABEL: func.func @causal
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: %[[T:.+]] = arith.remui %{{.+}}, %c128
// CHECK: %[[B6:.+]] = arith.shrui %[[T]], %c6
// CHECK: arith.muli %{{.+}}, %c32
// CHECK: %[[ROW:.+]] = arith.addi
// CHECK: %[[B1:.+]] = arith.shrui %[[T]], %c1
// CHECK: %[[COL:.+]] = arith.addi
// Register 2 (h = 1, e = 0): row + 8, column + 0, row maximum register 1.
// CHECK: %[[X:.+]] = llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK: llvm.load
// CHECK: llvm.load
// CHECK: llvm.getelementptr %{{.+}}[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<8 x f32>
// CHECK: llvm.getelementptr %{{.+}}[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x f32>
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: arith.addi %[[ROW]], %[[C8]] : index
// CHECK: arith.cmpi ugt
// CHECK: arith.select
func.func @causal() {
  %s = tile.alloc_local : !acc
  %m = tile.alloc_local : !rows
  tile.map ins(%s, %m : !acc, !rows) outs(%s : !acc) {
  ^bb0(%x: f32, %max: f32, %i: index, %j: index):
    %ninf = arith.constant 0xFF800000 : f32
    %d = arith.subf %x, %max : f32
    %future = arith.cmpi ugt, %j, %i : index
    %r = arith.select %future, %ninf, %d : f32
    tile.yield %r : f32
  }
  return
}

// The accumulator into the register-A layout: one packed cvt per register
// pair, nothing crossing threads.
// CHECK-LABEL: func.func @to_register_a
// CHECK-NOT: nvvm.shfl
// CHECK-COUNT-4: nvvm.convert.f32x2.to.bf16x2 %{{.+}}, %{{.+}} : vector<2xbf16>
// CHECK-NOT: nvvm.shfl
// CHECK: return
func.func @to_register_a() {
  %s = tile.alloc_local : !acc
  %p = tile.alloc_local : !p
  tile.convert %s to %p : !acc to !p
  return
}

// e4m3 with saturation: a -> the high byte, b -> the low one.
// CHECK-LABEL: func.func @to_e4m3
// CHECK: %[[LO:.+]] = llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK: %[[HI:.+]] = llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK: %[[W:.+]] = nvvm.convert.f32x2.to.f8x2 %[[HI]], %[[LO]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[B0:.+]] = llvm.trunc %[[W]] : i16 to i8
// CHECK: %[[B1:.+]] = llvm.trunc %{{.+}} : i16 to i8
// CHECK: llvm.store %[[B0]]
// CHECK: llvm.store %[[B1]]
func.func @to_e4m3() {
  %s = tile.alloc_local : !acc
  %q = tile.alloc_local : !q
  tile.convert %s to %q : !acc to !q
  return
}

// Lanes exchanged inside each warp (q's and r's thread bits swapped): each
// result register is one source register read from the lane
// ((l >> 3) & 3) | ((l & 7) << 2) by shfl.sync.idx, the lane built from
// the thread's lane bits once.
!swapped = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,1@tid_in_wg,4,8@tid_in_wg,1)]>>
// CHECK-LABEL: func.func @lanes_swapped
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK-COUNT-8: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK: return
func.func @lanes_swapped() {
  %s = tile.alloc_local : !acc
  %t = tile.alloc_local : !swapped
  tile.convert %s to %t : !acc to !swapped
  return
}

// An fp8 tile in another layout: its registers moved as they are (fp8 is
// an integer in registers), no conversion.
!q8 = !tile.buffer<32x2xf8E4M3FN, local, #tile.layout<S[(32,2):(1@laneid,1)]>>
!p8 = !tile.buffer<32x2xf8E4M3FN, local, #tile.layout<S[(16,2,2):(1@laneid,16@laneid,1)]>>
// CHECK-LABEL: func.func @fp8_layout_change
// CHECK-NOT: llvm.fpext
// CHECK-NOT: nvvm.convert
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.trunc %{{.+}} : i32 to i8
// CHECK: return
func.func @fp8_layout_change() {
  %a = tile.alloc_local : !q8
  %b = tile.alloc_local : !p8
  tile.convert %a to %b : !q8 to !p8
  return
}

// A guarded map: each guard register loaded once, then one branch per
// guard register around the output registers that read it (a row each).
// CHECK-LABEL: func.func @rescale_where_grown
// CHECK-DAG: %[[G:.+]] = llvm.alloca %{{.+}} x !llvm.array<2 x i1>
// CHECK-DAG: %[[O:.+]] = llvm.alloca %{{.+}} x !llvm.array<8 x f32>
// CHECK: %[[G0:.+]] = llvm.getelementptr %[[G]][0, 0]
// CHECK: %[[C0:.+]] = llvm.load %[[G0]] : !llvm.ptr -> i1
// CHECK: %[[G1:.+]] = llvm.getelementptr %[[G]][0, 1]
// CHECK: %[[C1:.+]] = llvm.load %[[G1]] : !llvm.ptr -> i1
// CHECK: scf.if %[[C0]] {
// CHECK-COUNT-4: arith.mulf
// CHECK-NOT: scf.if
// CHECK: llvm.getelementptr %[[O]][0, 5]
// CHECK: }
// CHECK-NEXT: scf.if %[[C1]] {
// CHECK-COUNT-4: arith.mulf
// CHECK: llvm.getelementptr %[[O]][0, 7]
// CHECK: }
// CHECK-NEXT: return
!grew = !tile.buffer<64x1xi1, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
func.func @rescale_where_grown() {
  %o = tile.alloc_local : !acc
  %alpha = tile.alloc_local : !rows
  %grew = tile.alloc_local : !grew
  tile.map ins(%o, %alpha : !acc, !rows) outs(%o : !acc) where(%grew : !grew) {
  ^bb0(%x: f32, %a: f32, %i: index, %j: index):
    %r = arith.mulf %x, %a : f32
    tile.yield %r : f32
  }
  return
}

// tile.map where(...) with guards of each broadcast: per element (a branch
// per output register), a column vector (one per column register a thread
// holds: 4), a scalar (one around every element); then assembled by ptxas.
// RUN: tile-opt %s --tile-select-variants="chip=sm_90a" --tile-lower-variants="chip=sm_90a check=1" > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: grep -c "scf.if" %t.mlir | FileCheck %s --check-prefix=BRANCHES
// RUN: tile-compile --check %s -o %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!flags = !tile.buffer<64x16xi1, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!one = !tile.buffer<1x1xi1, local, #tile.layout<S[(1,1):(0,0)]>>
!cols = !tile.buffer<1x16xi1, local, #tile.layout<S[(1,2,4,2):(0,2,1@tid_in_wg,1)] + R[32:4@tid_in_wg]>>
!g = !tile.buffer<64x16xf32, global>

// CHECK-LABEL: gpu.func @guards
// Per element: 8 branches of one store each.
// CHECK-COUNT-8: scf.if
// Scalar: one branch around the 8 registers (a load of the one guard
// register, then the first output register's store inside the branch).
// CHECK: %[[S:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i1
// CHECK-NEXT: scf.if %[[S]] {
// Columns: then 4 branches.
// CHECK-COUNT-4: scf.if
// CHECK: gpu.return
// 8 + 1 + 4 branches in all.
// BRANCHES: 13
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @guards(%p: memref<64x16xf32, 1>, %t: i1) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %gp = tile.from_memref %p : memref<64x16xf32, 1> -> !g
    %o = tile.alloc_local : !acc
    tile.load %gp[0, 0] to %o : !g to !acc
    %f = tile.alloc_local : !flags
    tile.map ins(%o : !acc) outs(%f : !flags) {
    ^bb0(%x: f32, %i: index, %j: index):
      %z = arith.constant 0.0 : f32
      %c = arith.cmpf ogt, %x, %z : f32
      tile.yield %c : i1
    }
    tile.map ins(%o : !acc) outs(%o : !acc) where(%f : !flags) {
    ^bb0(%x: f32, %i: index, %j: index):
      %y = arith.mulf %x, %x : f32
      tile.yield %y : f32
    }
    %s = tile.alloc_local : !one
    tile.fill %s, %t : !one, i1
    tile.map ins(%o : !acc) outs(%o : !acc) where(%s : !one) {
    ^bb0(%x: f32, %i: index, %j: index):
      %y = arith.addf %x, %x : f32
      tile.yield %y : f32
    }
    %c = tile.alloc_local : !cols
    tile.fill %c, %t : !cols, i1
    tile.map ins(%o : !acc) outs(%o : !acc) where(%c : !cols) {
    ^bb0(%x: f32, %i: index, %j: index):
      %one = arith.constant 1.0 : f32
      %y = arith.addf %x, %one : f32
      tile.yield %y : f32
    }
    tile.store %o to %gp[0, 0] : !acc to !g
    gpu.return
  }
}

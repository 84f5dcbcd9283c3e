// tile.map, tile.reduce and tile.convert print and parse back unchanged.
// RUN: tile-opt %s | tile-opt | FileCheck %s

!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
!p = !tile.buffer<64x16xbf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

// CHECK-LABEL: func.func @softmax_step
// CHECK: tile.reduce <max> %[[S:.+]] dims [1] into %[[M:.+]] : !tile.buffer<64x16xf32
// CHECK: tile.map ins(%[[S]], %[[M]] : !tile.buffer<64x16xf32, {{.+}}>, !tile.buffer<64x1xf32, {{.+}}+ R[4:1@tid_in_wg]>>) outs(%[[S]] : !tile.buffer<64x16xf32
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: index, %{{.+}}: index):
// CHECK: math.exp2
// CHECK: tile.yield %{{.+}} : f32
// CHECK: tile.reduce <add> %[[S]] dims [1] into %{{.+}} {dispatch = "warp_shuffle"}
// CHECK: tile.convert %[[S]] to %{{.+}} : !tile.buffer<64x16xf32, {{.+}}> to !tile.buffer<64x16xbf16
func.func @softmax_step() {
  %s = tile.alloc_local : !acc
  %m = tile.alloc_local : !rows
  %l = tile.alloc_local : !rows
  %p = tile.alloc_local : !p
  tile.reduce <max> %s dims [1] into %m : !acc into !rows
  tile.map ins(%s, %m : !acc, !rows) outs(%s : !acc) {
  ^bb0(%x: f32, %max: f32, %i: index, %j: index):
    %d = arith.subf %x, %max : f32
    %e = math.exp2 %d : f32
    tile.yield %e : f32
  }
  tile.reduce <add> %s dims [1] into %l {dispatch = "warp_shuffle"} : !acc into !rows
  tile.convert %s to %p : !acc to !p
  return
}

// A map without inputs: the coordinates alone (an iota).
// CHECK-LABEL: func.func @iota
// CHECK: tile.map outs(%{{.+}} : !tile.buffer<32x4xi32
func.func @iota() {
  %t = tile.alloc_local : !tile.buffer<32x4xi32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>
  tile.map outs(%t : !tile.buffer<32x4xi32, local, #tile.layout<S[(32,4):(1@laneid,1)]>>) {
  ^bb0(%i: index, %j: index):
    %c4 = arith.constant 4 : index
    %r = arith.muli %i, %c4 : index
    %f = arith.addi %r, %j : index
    %v = arith.index_cast %f : index to i32
    tile.yield %v : i32
  }
  return
}

// A guarded map: the `where` tile after the output.
// CHECK-LABEL: func.func @rescale_where_grown
// CHECK: tile.map ins(%{{.+}}, %{{.+}} : !tile.buffer<64x16xf32, {{.+}}>, !tile.buffer<64x1xf32, {{.+}}>) outs(%{{.+}} : !tile.buffer<64x16xf32, {{.+}}>) where(%{{.+}} : !tile.buffer<64x1xi1, {{.+}}>) {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: index, %{{.+}}: index):
// CHECK: arith.mulf
!grew = !tile.buffer<64x1xi1, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
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

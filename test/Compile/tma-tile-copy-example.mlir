// examples/tma_tile_copy.mlir: maps over tensors with runtime sizes. The
// manifest says which values the host takes from which memref (dims from
// sizes [1] and [0], the row stride from stride [0] times 2 bytes), and the
// coordinates in the PTX come from the block ids.
// RUN: tile-compile --check %tile_src_root/examples/tma_tile_copy.mlir --chip sm_90a -o %t.90.ptx --manifest %t.json
// RUN: FileCheck %s < %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.90.ptx
// RUN: tile-compile --check %tile_src_root/examples/tma_tile_copy.mlir -o %t.100.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.100.ptx -o %t.100.cubin %}

// CHECK: "tensor_maps": [
// CHECK: "dim_sources": [
// CHECK-NEXT: 1,
// CHECK-NEXT: 0
// CHECK-NEXT: ],
// CHECK-NEXT: "encode": [
// CHECK-NEXT: 2,
// CHECK-NEXT: -1,
// CHECK-NEXT: -1,
// CHECK-NEXT: -1,
// CHECK-NEXT: 64,
// CHECK-NEXT: 128,
// CHECK: "lowered_global_param": 1,
// CHECK-NEXT: "lowered_param": 14,
// CHECK: "stride_scales": [
// CHECK-NEXT: 2
// CHECK-NEXT: ],
// CHECK-NEXT: "stride_sources": [
// CHECK-NEXT: 0
// CHECK-NEXT: ]
// CHECK: "lowered_global_param": 8,
// CHECK-NEXT: "lowered_param": 15,

// The tile: the dynamic segment's base rounded up to 1024 bytes.
// PTX: mov.u32 {{%r[0-9]+}}, %ctaid.x;
// PTX: mov.b64 [[SEGMENT:%rd[0-9]+]], __tile_dynamic_shared;
// PTX: add.s64 [[TILE:%rd[0-9]+]], [[SEGMENT]], {{%rd[0-9]+}};
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {[[COL:%r[0-9]+]], [[ROW:%r[0-9]+]]}], [__mbarrier];
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [{{%rd[0-9]+}}, {[[COL]], [[ROW]]}], [[[TILE]]];

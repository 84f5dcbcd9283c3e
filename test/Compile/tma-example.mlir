// examples/tma_copy.mlir (8x256 f16 TMA round trip) through tile-compile: the
// manifest holds the 128B plan (TVM's golden encode arguments) for each of the
// two by-value tensor-map parameters, and ptxas accepts the PTX.
// RUN: tile-compile --check %tile_src_root/examples/tma_copy.mlir --chip sm_90a -o %t.90.ptx --manifest %t.json
// RUN: FileCheck %s < %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.90.ptx
// RUN: FileCheck %s --check-prefix=SMEM < %t.json
// RUN: tile-compile --check %tile_src_root/examples/tma_copy.mlir -o %t.100.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.100.ptx -o %t.100.cubin %}

// CHECK: "kind": "grid_constant",
// CHECK: "bytes": 128,
// CHECK: "tensor_maps": [
// CHECK-NEXT: {
// CHECK-NEXT: "bytes_per_issue": 4096,
// CHECK-NEXT: "data_type": "FLOAT16",
// CHECK-NEXT: "dim_sources": [
// CHECK: "encode": [
// CHECK-NEXT: 3,
// CHECK-NEXT: 64,
// CHECK-NEXT: 8,
// CHECK-NEXT: 4,
// CHECK-NEXT: 512,
// CHECK-NEXT: 128,
// CHECK-NEXT: 64,
// CHECK-NEXT: 8,
// CHECK-NEXT: 4,
// CHECK-NEXT: 1,
// CHECK-NEXT: 1,
// CHECK-NEXT: 1,
// CHECK-NEXT: 0,
// CHECK-NEXT: 3,
// CHECK-NEXT: 2,
// CHECK-NEXT: 0
// CHECK-NEXT: ],
// CHECK-NEXT: "global_arg": 0,
// CHECK-NEXT: "issues": 1,
// CHECK-NEXT: "lowered_global_param": 1,
// CHECK-NEXT: "lowered_param": 14,

// The 128B-swizzled tile is in the dynamic segment, whose 16-byte aligned
// base is rounded up to 1024 at run time (LLVM knows the low 4 bits are
// zero: the mask is 1008); the manifest asks for 4096 + 1008 bytes.
// SMEM: "dynamic_shared_bytes": 5104,
// SMEM: "static_shared_bytes": 8,
// PTX: .extern .shared .align 16 .b8 __tile_dynamic_shared[];
// PTX: .param .align 128 .b8 tma_copy_param_14[128],
// PTX: .param .align 128 .b8 tma_copy_param_15[128]
// PTX: mov.b64 [[SEGMENT:%rd[0-9]+]], __tile_dynamic_shared;
// PTX: cvt.u32.u64 [[BITS:%r[0-9]+]], [[SEGMENT]];
// PTX: neg.s32 [[NEGATED:%r[0-9]+]], [[BITS]];
// PTX: and.b32 {{%r[0-9]+}}, [[NEGATED]], 1008;
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group

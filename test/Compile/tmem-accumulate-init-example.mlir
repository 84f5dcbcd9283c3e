// examples/tmem_accumulate_init.mlir (tensor memory initialised by tcgen05.cp
// before accumulating): TMA loads the C tile into 128B-swizzled shared memory,
// tcgen05_cp copies it into the 128-lane accumulator with 8 x 128x256b, 32
// bytes (2 x 16 B) apart inside an atom row and 16 KiB (1024 x 16 B) apart
// across the two atom columns.
// RUN: tile-compile --check %tile_src_root/examples/tmem_accumulate_init.mlir -o %t.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s < %t.json
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// Descriptor = start field + 0x4000404000010000 (128B swizzle, SBO 1024 B,
// LBO 16 B) + the instruction's offset in 16-byte units; LLVM folds the
// add into the constant (into an `or` where the 1024-byte aligned tile
// leaves the low bits of the start field zero).
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538048;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM:%r[0-9]+]]], {{%rd[0-9]+}};
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538050;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM]]+8],
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538052;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM]]+16],
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538054;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM]]+24],
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049539072;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM]]+32],
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049539074;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM]]+40],
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049539076;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM]]+48],
// PTX: {{or|add}}.{{[sb]}}64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049539078;
// PTX-NEXT: tcgen05.cp.cta_group::1.128x256b [[[TMEM]]+56],
// PTX-NOT: tcgen05.cp.
// PTX: tcgen05.commit

// CHECK: "variant": "tma"
// CHECK: "variant": "tcgen05_cp"
// The 32 KiB accumulator tile is in the dynamic segment, with 1008 bytes
// to round its base up to 1024; the two barriers (16 bytes) and the
// tensor-memory address slot (4) are static.
// CHECK: "dynamic_shared_bytes": 33776,
// CHECK: "static_shared_bytes": 20,
// CHECK: "tensor_maps": [

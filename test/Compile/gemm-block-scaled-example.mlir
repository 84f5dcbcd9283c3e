// examples/gemm_block_scaled.mlir: four TMA loads (A, B, both scale tiles),
// the two scale tiles copied to every 32-lane partition of tensor memory by
// tcgen05.cp 32x128b.warpx4 (four 4-column groups each: scale (m, kb) in
// lane m % 32, column 256 + 4 (kb / 4) + m / 32, byte kb % 4),
// then 4 x tcgen05.mma.kind::mxf8f6f4.block_scale (K 32 each) whose
// instruction descriptors carry scale-factor ids 0..3:
// 0x08A00000 | id << 29 | id << 4.
// RUN: tile-compile --check %tile_src_root/examples/gemm_block_scaled.mlir -o %t.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s < %t.json
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

// PTX-COUNT-4: cp.async.bulk.tensor
// PTX: tcgen05.cp.cta_group::1.32x128b.warpx4 [[[T:%r[0-9]+]]+256],
// PTX: tcgen05.cp.cta_group::1.32x128b.warpx4 [[[T]]+260],
// PTX: tcgen05.cp.cta_group::1.32x128b.warpx4 [[[T]]+264],
// PTX: tcgen05.cp.cta_group::1.32x128b.warpx4 [[[T]]+268],
// PTX: tcgen05.cp.cta_group::1.32x128b.warpx4 [[[T]]+272],
// PTX: tcgen05.cp.cta_group::1.32x128b.warpx4 [[[T]]+284],
// PTX: mov.b32 [[I0:%r[0-9]+]], 144703488;
// PTX-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard [[[T]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I0]], [[[SFA:%r[0-9]+]]], [[[SFB:%r[0-9]+]]], {{%p[0-9]+}};
// PTX: mov.b32 [[I1:%r[0-9]+]], 681574416;
// PTX-NEXT: tcgen05.mma.{{.*}}, [[I1]], [[[SFA]]], [[[SFB]]],
// PTX: mov.b32 [[I2:%r[0-9]+]], 1218445344;
// PTX-NEXT: tcgen05.mma.{{.*}}, [[I2]], [[[SFA]]], [[[SFB]]],
// PTX: mov.b32 [[I3:%r[0-9]+]], 1755316272;
// PTX-NEXT: tcgen05.mma.{{.*}}, [[I3]], [[[SFA]]], [[[SFB]]],
// PTX-NOT: tcgen05.mma
// PTX: tcgen05.commit.cta_group::1

// CHECK-COUNT-4: "variant": "tma"
// CHECK-COUNT-2: "variant": "tcgen05_cp"
// CHECK: "variant": "tcgen05"

// examples/smem_to_tmem.mlir (32x16 u8 tile): the copy_async is dispatched to
// tcgen05_cp and becomes one 32x128b.warpx4 through a descriptor whose
// constant part is 0x0000400800010000 (SBO 128 B, LBO 16 B, no swizzle);
// the kernel assembles for sm_100a.
// RUN: tile-compile --check %tile_src_root/examples/smem_to_tmem.mlir -o %t.ptx --manifest %t.json --explain 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s < %t.json
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

// EXPLAIN: remark: selected tcgen05_cp (priority 10) on sm_100a

// PTX: fence.proxy.async.shared::cta;
// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// PTX: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// PTX: bfe.u64 [[FIELD:%rd[0-9]+]], {{%rd[0-9]+}}, 4, 14;
// PTX: or.b64 [[DESC:%rd[0-9]+]], {{%rd[0-9]+}}, 70403103981568;
// PTX: tcgen05.cp.cta_group::1.32x128b.warpx4 [{{%r[0-9]+}}], [[DESC]];
// PTX-NOT: tcgen05.cp.
// PTX: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX: tcgen05.ld.sync.aligned.32x32b.x4.b32
// PTX: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// CHECK: "block_dims": [
// CHECK-NEXT: 128,
// CHECK: "variant": "tcgen05_cp"

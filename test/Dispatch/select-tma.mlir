// RUN: tile-opt %s --tile-select-variants=explain -split-input-file -verify-diagnostics | FileCheck %s

!sw128 = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>

// The tma_copy example: 8x256 f16 into a 128B-swizzled tile and back; both
// directions go to tma (dsmem only copies shared -> shared).
// CHECK-LABEL: gpu.func @round_trip
// CHECK: tile.copy_async {{.*}} {variant = "tma"}
// CHECK: tile.copy_async {{.*}} {variant = "tma"}
gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  gpu.func @round_trip(%in: memref<8x256xf16, 1>, %out: memref<8x256xf16, 1>, %bar: !llvm.ptr<3>) kernel {
    %g = tile.from_memref %in : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %o = tile.from_memref %out : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %s = tile.alloc_shared : !sw128
    // expected-note @+4 {{ldgsts (priority 15): viable, lower priority}}
    // expected-remark @+3 {{selected tma (priority 20) on sm_90a}}
    // expected-note @+2 {{dsmem (priority 10): rejected: shared_to_shared — copies global -> shared; dsmem copies shared -> shared; rejected: has_remote_cta — no remote_cta operand: the destination CTA's rank is needed}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies global -> shared; tcgen05.cp copies shared -> tmem}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%bar)
        : !tile.buffer<8x256xf16, global> to !sw128
    // expected-note @+4 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> global; cp.async copies global -> shared}}
    // expected-remark @+3 {{selected tma (priority 20) on sm_90a}}
    // expected-note @+2 {{dsmem (priority 10): rejected: shared_to_shared — copies shared -> global; dsmem copies shared -> shared; rejected: has_remote_cta — no remote_cta operand: the destination CTA's rank is needed; rejected: has_mbar — no mbar operand: the destination CTA's mbarrier tracks completion}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies shared -> global; tcgen05.cp copies shared -> tmem}}
    tile.copy_async %s[0, 0] to %o[0, 0] sizes [8, 256] exec thread
        : !sw128 to !tile.buffer<8x256xf16, global>
    gpu.return
  }
}

// -----

// One 128x64 tile per CTA of a tensor with runtime sizes: SSA offsets.
// CHECK-LABEL: gpu.func @tile
// CHECK: tile.copy_async {{.*}} {variant = "tma"}
gpu.module @k [#nvvm.target<chip = "sm_100a">] {
  gpu.func @tile(%in: memref<?x?xf16, 1>, %bar: !llvm.ptr<3>, %row: index, %col: index) kernel {
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !tile.buffer<?x?xf16, global>
    %s = tile.alloc_shared : !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
    // expected-note @+4 {{ldgsts (priority 15): declined — 4-byte vectors: 4096 vectors over 1 thread are 4096 per thread (at most 256); give the copy more threads}}
    // expected-remark @+3 {{selected tma (priority 20) on sm_100a}}
    // expected-note @+2 {{dsmem (priority 10): rejected}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies global -> shared; tcgen05.cp copies shared -> tmem}}
    tile.copy_async %g[%row, %col] to %s[0, 0] sizes [128, 64] exec thread mbar(%bar)
        : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
    gpu.return
  }
}

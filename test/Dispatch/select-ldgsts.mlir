// RUN: tile-opt %s --tile-select-variants=explain -split-input-file -verify-diagnostics | FileCheck %s

!sw = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>

// A warpgroup shares the copy: tma needs one issuing thread, ldgsts takes it.
// CHECK-LABEL: gpu.func @warpgroup_copy
// CHECK: tile.copy_async {{.*}} {variant = "ldgsts"}
gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  gpu.func @warpgroup_copy(%in: memref<?x?xbf16, 1>, %bar: !llvm.ptr<3>, %row: index, %col: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tile.buffer<?x?xbf16, global>
    %s = tile.alloc_shared {alignment = 1024 : i64} : !sw
    // expected-remark @+4 {{selected ldgsts (priority 15) on sm_90a}}
    // expected-note @+3 {{tma (priority 20): rejected: single_thread — issued by a warpgroup; one thread issues tensor copies (exec thread)}}
    // expected-note @+2 {{dsmem (priority 10): rejected: shared_to_shared — copies global -> shared; dsmem copies shared -> shared; rejected: single_thread — issued by a warpgroup; one thread issues bulk copies (exec thread); rejected: has_remote_cta — no remote_cta operand: the destination CTA's rank is needed}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies global -> shared; tcgen05.cp copies shared -> tmem; rejected: single_thread — issued by a warpgroup; one thread issues tcgen05.cp (exec thread); rejected: tcgen05_target — tcgen05.cp needs one of sm_100a, sm_101a, not sm_90a}}
    tile.copy_async %g[%row, %col] to %s[0, 0] sizes [64, 64] exec warpgroup mbar(%bar)
        : !tile.buffer<?x?xbf16, global> to !sw
    gpu.return
  }
}

// -----

// Rows of 100 f16 are 200 bytes apart, which a tensor map refuses: the
// same one-thread copy goes to ldgsts (8-byte vectors fit the stride).
// CHECK-LABEL: gpu.func @odd_stride
// CHECK: tile.copy_async {{.*}} {variant = "ldgsts"}
gpu.module @k [#nvvm.target<chip = "sm_100a">] {
  gpu.func @odd_stride(%in: memref<8x100xf16, 1>, %bar: !llvm.ptr<3>) kernel {
    %g = tile.from_memref %in : memref<8x100xf16, 1> -> !tile.buffer<8x100xf16, global>
    %s = tile.alloc_shared : !tile.buffer<8x64xf16, shared>
    // expected-remark @+4 {{selected ldgsts (priority 15) on sm_100a}}
    // expected-note @+3 {{tma (priority 20): declined — globalStrides[0] = 200 bytes is not a multiple of 16}}
    // expected-note @+2 {{dsmem (priority 10): rejected: shared_to_shared — copies global -> shared; dsmem copies shared -> shared; rejected: has_remote_cta — no remote_cta operand: the destination CTA's rank is needed}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies global -> shared; tcgen05.cp copies shared -> tmem}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 64] exec thread mbar(%bar)
        : !tile.buffer<8x100xf16, global> to !tile.buffer<8x64xf16, shared>
    gpu.return
  }
}

// -----

// Forced: the 256 threads of a CTA (known_block_size) share the copy.
// CHECK-LABEL: gpu.func @forced
// CHECK: tile.copy_async {{.*}} {dispatch = "ldgsts", variant = "ldgsts"}
gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  gpu.func @forced(%in: memref<128x64xf32, 1>, %bar: !llvm.ptr<3>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %g = tile.from_memref %in : memref<128x64xf32, 1> -> !tile.buffer<128x64xf32, global>
    %s = tile.alloc_shared : !tile.buffer<128x64xf32, shared>
    // expected-remark @+4 {{selected ldgsts (priority 15) on sm_90a}}
    // expected-note @+3 {{tma (priority 20): rejected: single_thread — issued by a cta; one thread issues tensor copies (exec thread)}}
    // expected-note @+2 {{dsmem (priority 10): rejected: shared_to_shared — copies global -> shared; dsmem copies shared -> shared; rejected: single_thread — issued by a cta; one thread issues bulk copies (exec thread); rejected: has_remote_cta — no remote_cta operand: the destination CTA's rank is needed}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies global -> shared; tcgen05.cp copies shared -> tmem; rejected: single_thread — issued by a cta; one thread issues tcgen05.cp (exec thread); rejected: tcgen05_target — tcgen05.cp needs one of sm_100a, sm_101a, not sm_90a}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [128, 64] exec cta mbar(%bar) {dispatch = "ldgsts"}
        : !tile.buffer<128x64xf32, global> to !tile.buffer<128x64xf32, shared>
    gpu.return
  }
}

// -----

// sm_80: no mbar, so the copy completes through cp.async groups, which
// need only cp.async (tma does not exist there; the mbarrier form of
// ldgsts needs sm_90's transaction counts: select-ldgsts-diagnostics.mlir).
!sw80 = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
// CHECK-LABEL: gpu.func @ampere_group_copy
// CHECK: tile.copy_async {{.*}} {variant = "ldgsts"}
gpu.module @k [#nvvm.target<chip = "sm_80">] {
  gpu.func @ampere_group_copy(%in: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tile.buffer<?x?xbf16, global>
    %s = tile.alloc_shared {alignment = 1024 : i64} : !sw80
    // expected-remark @+4 {{selected ldgsts (priority 15) on sm_80}}
    // expected-note @+3 {{tma (priority 20): rejected: single_thread — issued by a warpgroup; one thread issues tensor copies (exec thread); rejected: completion — a global -> shared tensor copy completes on an mbarrier; give mbar(...)}}
    // expected-note @+2 {{dsmem (priority 10): rejected}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec warpgroup
        : !tile.buffer<?x?xbf16, global> to !sw80
    tile.commit_group cp_async
    tile.wait_group cp_async, 0
    gpu.return
  }
}

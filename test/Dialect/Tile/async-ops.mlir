// RUN: tile-opt %s | tile-opt | FileCheck %s
// Declared memory effects keep the async ops alive through canonicalize/cse,
// even though they have no results.
// RUN: tile-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEEP

!g = !tile.buffer<?x?xf16, global>
!s = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
!d = !tile.buffer<128x64xf16, shared>
!t = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
!u = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
!sfa = !tile.buffer<128x4xi8, tmem, #tile.layout<S[(128,4):(1@TLane,1@TCol)]>>

// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[G:.*]]: !tile.buffer<?x?xf16, global>, %[[S:.*]]: !tile.buffer<8x256xf16, {{.*}}>, %[[D0:[^:]*]]: !tile.buffer<128x64xf16, shared>, %[[D1:[^:]*]]: !tile.buffer<128x64xf16, shared>, %[[U:.*]]: !tile.buffer<32x16xui8, {{.*}}>, %[[T:.*]]: !tile.buffer<32x16xui8, tmem, {{.*}}>, %[[BAR:.*]]: !llvm.ptr<3>, %[[PEER:.*]]: i32, %[[MASK:.*]]: i16, %[[POLICY:.*]]: i64, %[[ROW:.*]]: index)
// KEEP-LABEL: func.func @copies
func.func @copies(%g: !g, %s: !s, %d0: !d, %d1: !d, %u: !u, %t: !t,
                  %bar: !llvm.ptr<3>, %peer: i32, %mask: i16, %policy: i64,
                  %row: index) {
  // CHECK: tile.copy_async %[[G]][%[[ROW]], 0] to %[[S]][0, 0] sizes [8, 256] exec thread mbar(%[[BAR]]) cta_mask(%[[MASK]]) cache_hint(%[[POLICY]]) {cta_group = 2 : i32, oob = #tile.oob<zero>}
  // KEEP: tile.copy_async
  tile.copy_async %g[%row, 0] to %s[0, 0] sizes [8, 256] exec thread
      mbar(%bar) cta_mask(%mask) cache_hint(%policy)
      {cta_group = 2 : i32, oob = #tile.oob<zero>} : !g to !s
  // CHECK: tile.copy_async %[[G]][%[[ROW]], 0] to %[[S]][0, 0] sizes [8, 256] exec thread mbar(%[[BAR]]) cta_mask(%[[MASK]]) mbar_cta(%[[PEER]]) {cta_group = 2 : i32}
  // KEEP: tile.copy_async
  tile.copy_async %g[%row, 0] to %s[0, 0] sizes [8, 256] exec thread
      mbar(%bar) cta_mask(%mask) mbar_cta(%peer) {cta_group = 2 : i32} : !g to !s
  // CHECK: tile.copy_async %[[S]][0, 0] to %[[G]][%[[ROW]], 64] sizes [8, 128] exec warp {reduce = #tile.reduce<add>}
  // KEEP: tile.copy_async
  tile.copy_async %s[0, 0] to %g[%row, 64] sizes [8, 128] exec warp
      {reduce = #tile.reduce<add>} : !s to !g
  // CHECK: tile.copy_async %[[D0]][0, 0] to %[[D1]][0, 0] sizes [128, 64] exec thread mbar(%[[BAR]]) remote_cta(%[[PEER]]) {dispatch = "dsmem"}
  // KEEP: tile.copy_async
  tile.copy_async %d0[0, 0] to %d1[0, 0] sizes [128, 64] exec thread
      mbar(%bar) remote_cta(%peer) {dispatch = "dsmem"} : !d to !d
  // CHECK: tile.copy_async %[[U]][0, 0] to %[[T]][0, 0] sizes [32, 16] exec warpgroup
  // KEEP: tile.copy_async
  tile.copy_async %u[0, 0] to %t[0, 0] sizes [32, 16] exec warpgroup : !u to !t
  // CHECK: tile.copy_async %[[U]][0, 0] to %[[T]][0, 0] sizes [32, 16] exec thread {cp_shape = #tile.cp_shape<shape_32x128b>, src_format = #tile.cp_src_format<b4x16_p64>}
  // KEEP: tile.copy_async
  tile.copy_async %u[0, 0] to %t[0, 0] sizes [32, 16] exec thread
      {cp_shape = #tile.cp_shape<shape_32x128b>,
       src_format = #tile.cp_src_format<b4x16_p64>} : !u to !t
  return
}

// A global region may start before or run past the tensor's static edge
// (TMA fills those elements on a load and skips them on a store).
// CHECK-LABEL: func.func @global_region_past_the_edge
// CHECK: tile.copy_async %{{.*}}[96, -64] to %{{.*}}[0, 0] sizes [64, 128]
// CHECK: tile.copy_async %{{.*}}[0, 0] to %{{.*}}[200, 0] sizes [64, 128]
func.func @global_region_past_the_edge(%g: !tile.buffer<100x100xf16, global>,
                                       %s: !tile.buffer<64x128xf16, shared>,
                                       %bar: !llvm.ptr<3>) {
  tile.copy_async %g[96, -64] to %s[0, 0] sizes [64, 128] exec thread
      mbar(%bar) {oob = #tile.oob<nan>}
      : !tile.buffer<100x100xf16, global> to !tile.buffer<64x128xf16, shared>
  tile.copy_async %s[0, 0] to %g[200, 0] sizes [64, 128] exec thread
      : !tile.buffer<64x128xf16, shared> to !tile.buffer<100x100xf16, global>
  return
}

// CHECK-LABEL: func.func @gemms
// KEEP-LABEL: func.func @gemms
func.func @gemms(%a: !d, %b: !d, %c: !acc, %p: i1, %sa: !sfa, %sb: !sfa) {
  // CHECK: tile.gemm_async %{{.*}}[0, 0], %{{.*}}[0, 0], %{{.*}}[0, 0] sizes [128, 128, 64] exec thread accumulate(%{{.*}}) {transpose_b}
  // KEEP: tile.gemm_async
  tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64]
      exec thread accumulate(%p) {transpose_b} : !acc, !d, !d
  // CHECK: tile.gemm_async {{.*}} sizes [128, 64, 16] exec warp scales(%{{.*}}, %{{.*}} : !tile.buffer<128x4xi8, tmem, {{.*}}>, !tile.buffer<128x4xi8, tmem, {{.*}}>) {cta_group = 1 : i32, dispatch = "tcgen05"}
  // KEEP: tile.gemm_async
  tile.gemm_async %c[0, 64], %a[0, 16], %b[0, 0] sizes [128, 64, 16]
      exec warp scales(%sa, %sb : !sfa, !sfa)
      {cta_group = 1 : i32, dispatch = "tcgen05"} : !acc, !d, !d
  return
}

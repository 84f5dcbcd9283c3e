// RUN: tile-opt %s --tile-select-variants | FileCheck %s
// RUN: tile-opt %s --tile-select-variants=explain -split-input-file -verify-diagnostics > /dev/null

!d = !tile.buffer<128x64xf16, shared>

// CHECK-LABEL: gpu.func @cluster_copy
// CHECK: tile.copy_async {{.*}} {variant = "dsmem"}
gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  gpu.func @cluster_copy(%s: !d, %d: !d, %bar: !llvm.ptr<3>, %peer: i32) kernel {
    // expected-note @+4 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> shared; cp.async copies global -> shared; rejected: supported_config — remote_cta given; cp.async copies into the issuing CTA, zero-filling what lies outside the tensor}}
    // expected-remark @+3 {{selected dsmem (priority 10) on sm_90a}}
    // expected-note @+2 {{tma (priority 20): rejected: global_shared — copies shared -> shared; tma copies global <-> shared}}
    // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies shared -> shared; tcgen05.cp copies shared -> tmem}}
    tile.copy_async %s[0, 0] to %d[0, 0] sizes [128, 64] exec thread
        mbar(%bar) remote_cta(%peer) : !d to !d
    gpu.return
  }
}

// -----

// Forcing the variant that would win anyway; the chip defaults to sm_100a
// outside a gpu.module.
// CHECK-LABEL: func.func @forced
// CHECK: tile.copy_async {{.*}} {dispatch = "dsmem", variant = "dsmem"}
func.func @forced(%s: !tile.buffer<8x128xf16, shared, #tile.layout<S[(8,128):(256,1)]>>,
                  %d: !tile.buffer<8x128xf16, shared>,
                  %bar: !llvm.ptr<3>, %peer: i32) {
  // expected-note @+4 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> shared; cp.async copies global -> shared; rejected: supported_config — remote_cta given; cp.async copies into the issuing CTA, zero-filling what lies outside the tensor}}
  // expected-remark @+3 {{selected dsmem (priority 10) on sm_100a}}
  // expected-note @+2 {{tma (priority 20): rejected: global_shared — copies shared -> shared; tma copies global <-> shared}}
  // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies shared -> shared; tcgen05.cp copies shared -> tmem}}
  tile.copy_async %s[0, 0] to %d[0, 0] sizes [8, 128] exec thread
      mbar(%bar) remote_cta(%peer) {dispatch = "dsmem"}
      : !tile.buffer<8x128xf16, shared, #tile.layout<S[(8,128):(256,1)]>> to !tile.buffer<8x128xf16, shared>
  return
}

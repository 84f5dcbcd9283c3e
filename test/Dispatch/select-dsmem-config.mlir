// RUN: tile-opt %s --tile-select-variants -verify-diagnostics

// dsmem never drops config it cannot honour: an L2 cache hint or a
// cta_group on a cluster bulk copy rejects the variant.
func.func @unsupported_config(%s: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32, %hint: i64) {
  // expected-note @+5 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> shared; cp.async copies global -> shared; rejected: supported_config — remote_cta, cta_group, cache_hint given; cp.async copies into the issuing CTA, zero-filling what lies outside the tensor}}
  // expected-error @+4 {{no variant of tile.copy_async can implement this op on sm_100a}}
  // expected-note @+3 {{tma (priority 20): rejected: global_shared — copies shared -> shared; tma copies global <-> shared}}
  // expected-note @+2 {{dsmem (priority 10): rejected: supported_config — cache_hint, cta_group given; shared::cta -> shared::cluster bulk copies take neither}}
  // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies shared -> shared; tcgen05.cp copies shared -> tmem}}
  tile.copy_async %s[0] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) cache_hint(%hint) {cta_group = 1 : i32} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// The `chip` option applies outside a gpu.module with an #nvvm.target.
// RUN: tile-opt %s --tile-select-variants="chip=gfx90a" -verify-diagnostics
// RUN: tile-opt %s --tile-select-variants="chip=sm_90a explain" 2>&1 | FileCheck %s

// CHECK: remark: selected dsmem (priority 10) on sm_90a
func.func @copy(%s: !tile.buffer<64xf16, shared>, %d: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32) {
  // expected-error @+1 {{unknown chip 'gfx90a'; known chips: sm_80, sm_86}}
  tile.copy_async %s[0] to %d[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

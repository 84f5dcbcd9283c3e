// RUN: tile-opt %s --tile-select-variants -split-input-file -verify-diagnostics

// Every predicate of the candidate is evaluated and listed.
func.func @nothing_matches(%s: !tile.buffer<64xf16, shared>, %d: !tile.buffer<64xf16, shared>) {
  // expected-note @+5 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> shared; cp.async copies global -> shared}}
  // expected-error @+4 {{no variant of tile.copy_async can implement this op on sm_100a}}
  // expected-note @+3 {{tma (priority 20): rejected: global_shared — copies shared -> shared; tma copies global <-> shared; rejected: single_thread — issued by a warp; one thread issues tensor copies (exec thread)}}
  // expected-note @+2 {{dsmem (priority 10): rejected: single_thread — issued by a warp; one thread issues bulk copies (exec thread); rejected: has_remote_cta — no remote_cta operand: the destination CTA's rank is needed; rejected: has_mbar — no mbar operand: the destination CTA's mbarrier tracks completion}}
  // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies shared -> shared; tcgen05.cp copies shared -> tmem}}
  tile.copy_async %s[0] to %d[0] sizes [64] exec warp : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

// shared -> tmem is tcgen05_cp's, but a plain row-major f32 tile (rows 128
// bytes apart, no swizzle) is no descriptor-walkable source: the planner
// names, per form, the row the walk misses.
!t = !tile.buffer<128x32xf32, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>>
func.func @s2t(%s: !tile.buffer<128x32xf32, shared>, %t: !t) {
  // expected-note @+5 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> tmem; cp.async copies global -> shared}}
  // expected-error @+4 {{no variant of tile.copy_async can implement this op on sm_100a}}
  // expected-note @+3 {{tma (priority 20): rejected: global_shared — copies shared -> tmem; tma copies global <-> shared}}
  // expected-note @+2 {{dsmem (priority 10): rejected: shared_to_shared — copies shared -> tmem; dsmem copies shared -> shared; rejected: has_remote_cta — no remote_cta operand: the destination CTA's rank is needed; rejected: has_mbar — no mbar operand: the destination CTA's mbarrier tracks completion}}
  // expected-note @+1 {{tcgen05_cp (priority 10): declined — no tcgen05.cp form fits; 128x256b: row 1 is at shared byte +128; the descriptor walk (no swizzle: rows 16 bytes apart, SBO 1024) puts it at +16; 128x128b: row 1 is at shared byte +128; the descriptor walk (no swizzle: rows 16 bytes apart, SBO 1024) puts it at +16; 4x256b: the tensor-memory layout does not hold 4 rows in the lanes 4x256b writes (lanes 0, 32, 64, 96)}}
  tile.copy_async %s[0, 0] to %t[0, 0] sizes [128, 32] exec thread : !tile.buffer<128x32xf32, shared> to !t
  return
}

// -----

// The planner declines: a column-major destination leaves 2-byte runs.
func.func @declined(%s: !tile.buffer<4x64xf16, shared>,
                    %d: !tile.buffer<4x64xf16, shared, #tile.layout<S[(4,64):(1,4)]>>,
                    %bar: !llvm.ptr<3>, %peer: i32) {
  // expected-note @+5 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> shared; cp.async copies global -> shared; rejected: supported_config — remote_cta given; cp.async copies into the issuing CTA, zero-filling what lies outside the tensor}}
  // expected-error @+4 {{no variant of tile.copy_async can implement this op on sm_100a}}
  // expected-note @+3 {{tma (priority 20): rejected: global_shared — copies shared -> shared; tma copies global <-> shared}}
  // expected-note @+2 {{dsmem (priority 10): declined — the contiguous run at source byte 0 is 2 bytes (destination byte 0), not a multiple of 16 bytes; cp.async.bulk copies 16-byte multiples}}
  // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies shared -> shared; tcgen05.cp copies shared -> tmem}}
  tile.copy_async %s[0, 0] to %d[0, 0] sizes [4, 64] exec thread mbar(%bar) remote_cta(%peer)
      : !tile.buffer<4x64xf16, shared> to !tile.buffer<4x64xf16, shared, #tile.layout<S[(4,64):(1,4)]>>
  return
}

// -----

// An unknown forced variant lists the registered ones.
func.func @unknown(%s: !tile.buffer<64xf16, shared>, %d: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32) {
  // expected-error @+1 {{unknown variant 'bulk' for tile.copy_async on cuda; registered: tma, ldgsts, dsmem}}
  tile.copy_async %s[0] to %d[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) {dispatch = "bulk"} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

// A target no variant supports.
gpu.module @old [#nvvm.target<chip = "sm_80">] {
  gpu.func @ampere(%s: !tile.buffer<64xf16, shared>, %d: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32) kernel {
    // expected-error @+2 {{forced variant 'dsmem' cannot implement this tile.copy_async on sm_80}}
    // expected-note @+1 {{dsmem (priority 10): rejected: cluster_target — sm_80 has no thread-block clusters (sm_90+)}}
    tile.copy_async %s[0] to %d[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) {dispatch = "dsmem"} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
    gpu.return
  }
}

// -----

// Dynamic offsets: the planner needs static ones and says so.
func.func @dynamic(%s: !tile.buffer<128x64xf16, shared>, %d: !tile.buffer<128x64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32, %row: index) {
  // expected-note @+5 {{ldgsts (priority 15): rejected: global_to_shared — copies shared -> shared; cp.async copies global -> shared; rejected: supported_config — remote_cta given; cp.async copies into the issuing CTA, zero-filling what lies outside the tensor}}
  // expected-error @+4 {{no variant of tile.copy_async can implement this op on sm_100a}}
  // expected-note @+3 {{tma (priority 20): rejected: global_shared — copies shared -> shared; tma copies global <-> shared}}
  // expected-note @+2 {{dsmem (priority 10): declined — source region has a dynamic offset; the dsmem planner needs static offsets}}
  // expected-note @+1 {{tcgen05_cp (priority 10): rejected: shared_tmem — copies shared -> shared; tcgen05.cp copies shared -> tmem}}
  tile.copy_async %s[%row, 0] to %d[0, 0] sizes [64, 64] exec thread mbar(%bar) remote_cta(%peer) : !tile.buffer<128x64xf16, shared> to !tile.buffer<128x64xf16, shared>
  return
}

// -----

// A gemm_async no variant can issue: every predicate of tcgen05 is listed.
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
func.func @gemm(%a: !tile.buffer<128x64xf16, shared>, %c: !acc) {
  // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_100a}}
  // expected-note @+2 {{tcgen05 (priority 10): rejected: issuer — issued by a warpgroup; one thread issues tcgen05.mma (exec thread), or a warp that elects one lane (exec warp)}}
  // expected-note @+1 {{wgmma (priority 10): rejected: }}
  tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec warpgroup {transpose_b} : !acc, !tile.buffer<128x64xf16, shared>, !tile.buffer<128x64xf16, shared>
  return
}

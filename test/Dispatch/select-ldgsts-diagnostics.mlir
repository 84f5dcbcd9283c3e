// RUN: tile-opt %s --tile-select-variants -split-input-file -verify-diagnostics

func.func @cluster_scope(%g: !tile.buffer<?x?xbf16, global>, %s: !tile.buffer<64x64xbf16, shared>, %bar: !llvm.ptr<3>) {
  // expected-error @+2 {{forced variant 'ldgsts' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{ldgsts (priority 15): rejected: exec_scope — exec cluster; cp.async serves a thread, warp, warpgroup or CTA (its own shared memory)}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec cluster mbar(%bar) {dispatch = "ldgsts"} : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
  return
}

// -----

// exec cta: the threads sharing the copy must be known.
func.func @cta_without_block_size(%g: !tile.buffer<?x?xbf16, global>, %s: !tile.buffer<64x64xbf16, shared>, %bar: !llvm.ptr<3>) {
  // expected-error @+2 {{forced variant 'ldgsts' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{ldgsts (priority 15): rejected: exec_scope — exec cta without a known_block_size on the kernel: the copy is shared among the CTA's threads, so their number must be known}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec cta mbar(%bar) {dispatch = "ldgsts"} : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
  return
}

// -----

func.func @nan_fill_and_multicast(%g: !tile.buffer<?x?xbf16, global>, %s: !tile.buffer<64x64xbf16, shared>, %bar: !llvm.ptr<3>, %mask: i16) {
  // expected-error @+2 {{forced variant 'ldgsts' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{ldgsts (priority 15): rejected: supported_config — cta_mask, oob = nan given; cp.async copies into the issuing CTA, zero-filling what lies outside the tensor}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec warpgroup mbar(%bar) cta_mask(%mask) {dispatch = "ldgsts", oob = #tile.oob<nan>} : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
  return
}

// -----

// No mbarrier transaction counts before sm_90.
gpu.module @k [#nvvm.target<chip = "sm_80">] {
  gpu.func @ampere(%in: memref<?x?xbf16, 1>, %bar: !llvm.ptr<3>) kernel {
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tile.buffer<?x?xbf16, global>
    %s = tile.alloc_shared : !tile.buffer<64x64xbf16, shared>
    // expected-error @+2 {{forced variant 'ldgsts' cannot implement this tile.copy_async on sm_80}}
    // expected-note @+1 {{ldgsts (priority 15): rejected: ldgsts_target — completing an ldgsts copy on an mbarrier (mbarrier.complete_tx) needs one of sm_90, sm_90a, sm_100, sm_100a, sm_100f, sm_101, sm_101a, sm_101f, sm_103, sm_103a, sm_103f, sm_110, sm_110a, sm_110f, sm_120, sm_120a, sm_120f, sm_121, sm_121a, sm_121f, not sm_80}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec warpgroup mbar(%bar) {dispatch = "ldgsts"} : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
    gpu.return
  }
}

// -----

// A column-major shared tile: consecutive global elements are 128 bytes
// apart in shared memory, so no vector lands whole.
func.func @column_major(%g: !tile.buffer<?x?xbf16, global>, %bar: !llvm.ptr<3>,
                        %s: !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(1,64)]>>) {
  // expected-error @+2 {{forced variant 'ldgsts' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{ldgsts (priority 15): declined — 4-byte vectors: element (0, 1) lies at shared byte 128, not right after element (0, 0)'s vector start 0 + 2 (the shared layout or its swizzle splits the vector)}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec warpgroup mbar(%bar) {dispatch = "ldgsts"} : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(1,64)]>>
  return
}

// -----

// Every other element of the global rows: cp.async moves contiguous bytes.
func.func @strided_rows(%g: !tile.buffer<64x64xf32, global, #tile.layout<S[(64,64):(128,2)]>>,
                        %s: !tile.buffer<64x64xf32, shared>, %bar: !llvm.ptr<3>) {
  // expected-error @+2 {{forced variant 'ldgsts' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{ldgsts (priority 15): declined — the innermost global stride is 2; cp.async moves contiguous bytes (a stride of 1 is needed)}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec warpgroup mbar(%bar) {dispatch = "ldgsts"} : !tile.buffer<64x64xf32, global, #tile.layout<S[(64,64):(128,2)]>> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

// A shared region at a runtime column.
func.func @runtime_shared_column(%g: !tile.buffer<?x?xbf16, global>, %s: !tile.buffer<64x64xbf16, shared>, %bar: !llvm.ptr<3>, %c: index) {
  // expected-error @+2 {{forced variant 'ldgsts' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{ldgsts (priority 15): declined — the shared region has a dynamic offset; cp.async's shared addresses are planned from static offsets}}
  tile.copy_async %g[0, 0] to %s[0, %c] sizes [64, 32] exec warpgroup mbar(%bar) {dispatch = "ldgsts"} : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
  return
}

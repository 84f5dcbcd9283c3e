// RUN: tile-opt %s --tile-lower-variants -split-input-file -verify-diagnostics

// Lowering needs selection first.
func.func @unselected(%s: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32) {
  // expected-error @+1 {{no variant selected for this tile.copy_async; run --tile-select-variants first}}
  tile.copy_async %s[0] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @unregistered(%s: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32) {
  // expected-error @+1 {{variant 'bogus' is not registered for tile.copy_async on cuda}}
  tile.copy_async %s[0] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) {variant = "bogus"} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

// Every problem is reported before anything is rewritten.
func.func @two_problems(%s: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32) {
  // expected-error @+1 {{no variant selected}}
  tile.copy_async %s[0] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  // expected-error @+1 {{variant 'bulk' is not registered}}
  tile.copy_async %s[0] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) {variant = "bulk"} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

// Static shared memory is limited to 48 KiB per function.
// expected-error @+1 {{static shared allocations total 65536 bytes; the static shared-memory limit is 49152 bytes}}
func.func @too_much_shared() {
  %a = tile.alloc_shared : !tile.buffer<128x128xf16, shared>
  %b = tile.alloc_shared : !tile.buffer<128x128xf16, shared>
  return
}

// -----

// A target chip that does not parse.
gpu.module @bad [#nvvm.target<chip = "gfx90a">] {
  gpu.func @k(%peer: i32) kernel {
    %s = tile.alloc_shared : !tile.buffer<64xf16, shared>
    %bar = llvm.mlir.zero : !llvm.ptr<3>
    // expected-error @+1 {{unsupported target chip 'gfx90a'; expected sm_<version>[a|f]}}
    tile.copy_async %s[0] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) {variant = "dsmem"} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
    gpu.return
  }
}

// -----

// A tensor map is a kernel parameter the host encodes from a memref
// argument: a tma copy needs both.
func.func @tma_outside_kernel(%g: !tile.buffer<8x256xf16, global>, %bar: !llvm.ptr<3>) {
  %s = tile.alloc_shared : !tile.buffer<8x256xf16, shared>
  // expected-error @+1 {{the global buffer of a tma copy must be a tile.from_memref of a kernel argument: the host encodes its tensor map}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%bar) {variant = "tma"} : !tile.buffer<8x256xf16, global> to !tile.buffer<8x256xf16, shared>
  return
}

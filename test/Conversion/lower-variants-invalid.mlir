// RUN: tile-opt %s --tile-lower-variants=check=1 -split-input-file -verify-diagnostics

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

// A kernel's buffers belong in its dynamic shared segment, which
// --tile-assign-shared-offsets lays out.
gpu.module @unplaced {
  gpu.func @k() kernel {
    // expected-error @+1 {{shared buffer of @k is not placed in a dynamic shared segment; run --tile-assign-shared-offsets first}}
    %s = tile.alloc_shared : !tile.buffer<64xf16, shared>
    gpu.return
  }
}

// -----

// An offset without the kernel's segment (the attributes the placement
// records) is refused the same way.
gpu.module @offset_without_segment {
  gpu.func @k() kernel {
    // expected-error @+1 {{shared buffer of @k is not placed in a dynamic shared segment; run --tile-assign-shared-offsets first}}
    %s = tile.alloc_shared {offset = 0 : i64} : !tile.buffer<64xf16, shared>
    gpu.return
  }
}

// -----

// A target chip that does not parse.
gpu.module @bad [#nvvm.target<chip = "gfx90a">] {
  gpu.func @k(%peer: i32, %s: !tile.buffer<64xf16, shared>) kernel {
    %bar = llvm.mlir.zero : !llvm.ptr<3>
    // expected-error @+1 {{unknown chip 'gfx90a'; known chips: sm_80, sm_86}}
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

// -----

// An unknown variant and an unknown chip: both are reported.
gpu.module @both [#nvvm.target<chip = "gfx90a">] {
  gpu.func @k(%peer: i32, %s: !tile.buffer<64xf16, shared>) kernel {
    %bar = llvm.mlir.zero : !llvm.ptr<3>
    // expected-error @+2 {{variant 'bogus' is not registered for tile.copy_async on cuda}}
    // expected-error @+1 {{unknown chip 'gfx90a'; known chips: sm_80, sm_86}}
    tile.copy_async %s[0] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) {variant = "bogus"} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
    gpu.return
  }
}

// -----

// A variant recorded by hand whose planner declines: the reason, once,
// before anything is rewritten.
func.func @declined_at_lowering(%s: !tile.buffer<64xf16, shared>, %bar: !llvm.ptr<3>, %peer: i32, %o: index) {
  // expected-error @+1 {{dsmem planner declined at lowering: source region has a dynamic offset; the dsmem planner needs static offsets}}
  tile.copy_async %s[%o] to %s[0] sizes [64] exec thread mbar(%bar) remote_cta(%peer) {variant = "dsmem"} : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
  return
}

// -----

// Kernel attributes written by hand are verified.
// expected-error @+1 {{'tile.tensor_maps' must be an array of #tile.tensor_map_plan}}
func.func @bad_tensor_maps() attributes {tile.tensor_maps = [{param = 1}]} {
  return
}

// -----

// expected-error @+1 {{unknown tensor-map data type "BOGUS"}}
func.func @bad_plan() attributes {tile.tensor_maps = [#tile.tensor_map_plan<param = 1, global_arg = 0, data_type = "BOGUS", encode = [1, 64, 64, 1, 0, 0, 0, 0], dim_sources = [-1], stride_sources = [], stride_scales = [], bytes_per_issue = 128, issues = 1>]} {
  return
}


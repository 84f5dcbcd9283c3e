// RUN: tile-opt %s --tile-select-variants -split-input-file -verify-diagnostics

// The caller's config must fit the direction. (Without mbar the copy is
// the ldgsts variant's, completing through cp.async groups:
// select-ldgsts.mlir.)
func.func @missing_mbar(%g: !tile.buffer<8x256xf16, global>, %s: !tile.buffer<8x256xf16, shared>) {
  // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tma (priority 20): rejected: completion — a global -> shared tensor copy completes on an mbarrier; give mbar(...)}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread {dispatch = "tma"} : !tile.buffer<8x256xf16, global> to !tile.buffer<8x256xf16, shared>
  return
}

// -----

func.func @store_with_mbar(%g: !tile.buffer<8x256xf16, global>, %s: !tile.buffer<8x256xf16, shared>, %bar: !llvm.ptr<3>) {
  // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tma (priority 20): rejected: completion — a shared -> global tensor copy completes through bulk groups, not an mbarrier}}
  tile.copy_async %s[0, 0] to %g[0, 0] sizes [8, 256] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<8x256xf16, shared> to !tile.buffer<8x256xf16, global>
  return
}

// -----

// A transposed shared tile: the inner box would be one 2-byte element.
func.func @transposed(%g: !tile.buffer<64x64xf16, global>, %bar: !llvm.ptr<3>,
                      %s: !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(1,64)]>>) {
  // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tma (priority 20): declined — boxDim[0] * elementSize = 2 bytes is not a multiple of 16}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<64x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(1,64)]>>
  return
}

// -----

// Rows of 100 f16 are 200 bytes apart: the rule is named.
func.func @odd_stride(%g: !tile.buffer<8x100xf16, global>, %s: !tile.buffer<8x64xf16, shared>, %bar: !llvm.ptr<3>) {
  // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tma (priority 20): declined — globalStrides[0] = 200 bytes is not a multiple of 16}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 64] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<8x100xf16, global> to !tile.buffer<8x64xf16, shared>
  return
}

// -----

// Every violated rule is listed in the one note.
func.func @two_rules(%g: !tile.buffer<64x100xf16, global>, %bar: !llvm.ptr<3>,
                     %s: !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(1,64)]>>) {
  // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tma (priority 20): declined — globalStrides[0] = 200 bytes is not a multiple of 16; boxDim[0] * elementSize = 2 bytes is not a multiple of 16}}
  tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<64x100xf16, global> to !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(1,64)]>>
  return
}

// -----

// cta_group is a Blackwell feature; tensor maps need Hopper.
gpu.module @hopper [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%g: !tile.buffer<8x256xf16, global>, %s: !tile.buffer<8x256xf16, shared>, %bar: !llvm.ptr<3>) kernel {
    // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_90a}}
    // expected-note @+1 {{tma (priority 20): rejected: cta_group_target — cta_group needs one of sm_100a, sm_100f, sm_101a, sm_101f, sm_103a, sm_103f, sm_110a, sm_110f, not sm_90a}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%bar) {cta_group = 2 : i32, dispatch = "tma"} : !tile.buffer<8x256xf16, global> to !tile.buffer<8x256xf16, shared>
    gpu.return
  }
}

// -----

gpu.module @ampere [#nvvm.target<chip = "sm_80">] {
  gpu.func @k(%g: !tile.buffer<8x256xf16, global>, %s: !tile.buffer<8x256xf16, shared>, %bar: !llvm.ptr<3>) kernel {
    // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_80}}
    // expected-note @+1 {{tma (priority 20): rejected: tma_target — sm_80 has no tensor memory accelerator (sm_90+)}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<8x256xf16, global> to !tile.buffer<8x256xf16, shared>
    gpu.return
  }
}

// -----

// A box starting 6 bytes into a row (column 3 of f16) faults on the GPU
// (CUDA_ERROR_ILLEGAL_INSTRUCTION, seen on an H200): refused, both ways.
func.func @unaligned_inner_start(%g: !tile.buffer<64x256xf16, global>, %s: !tile.buffer<8x64xf16, shared>, %bar: !llvm.ptr<3>) {
  // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tma (priority 20): declined — a box starts at element 3 of the contiguous global dim (byte 6), not a multiple of 16 bytes as cp.async.bulk.tensor requires}}
  tile.copy_async %g[0, 3] to %s[0, 0] sizes [8, 64] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<64x256xf16, global> to !tile.buffer<8x64xf16, shared>
  // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_100a}}
  // expected-note @+1 {{tma (priority 20): declined — a box starts at element 3 of the contiguous global dim (byte 6)}}
  tile.copy_async %s[0, 0] to %g[5, 3] sizes [8, 64] exec thread {dispatch = "tma"} : !tile.buffer<8x64xf16, shared> to !tile.buffer<64x256xf16, global>
  return
}

// -----

// The 128-byte swizzle of 32-byte atoms (MN-major tf32 operands of
// tcgen05.mma) is a Blackwell tensor-map mode: the H100's driver refuses to
// encode it (CUDA_ERROR_INVALID_VALUE), so tma declines it on sm_90a.
!btf = !tile.buffer<32x64xf32, shared, #tile.layout<S[(32,2,32):(32,1024,1)], swizzle<2,3,2>>>
gpu.module @hopper_atom32 [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%g: !tile.buffer<32x64xf32, global>, %s: !btf, %bar: !llvm.ptr<3>) kernel {
    // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_90a}}
    // expected-note @+1 {{tma (priority 20): rejected: swizzle_target — the 128-byte swizzle of 32-byte atoms (CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B) needs one of sm_100, sm_100a, sm_100f, sm_101, sm_101a, sm_101f, sm_103, sm_103a, sm_103f, sm_110, sm_110a, sm_110f, sm_120, sm_120a, sm_120f, sm_121, sm_121a, sm_121f, not sm_90a}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [32, 64] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<32x64xf32, global> to !btf
    gpu.return
  }
}

// -----

// A shared tile aligned to less than 128 bytes: TMA boxes start 128-byte
// aligned (an unswizzled tile at a 16-byte offset faulted on the H100).
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%g: !tile.buffer<8x64xf16, global>, %bar: !llvm.ptr<3>) kernel {
    %s = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<8x64xf16, shared>
    // expected-error @+2 {{forced variant 'tma' cannot implement this tile.copy_async on sm_90a}}
    // expected-note @+1 {{tma (priority 20): rejected: shared_alignment — the shared tile is aligned to 16 bytes; TMA boxes start 128-byte aligned}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 64] exec thread mbar(%bar) {dispatch = "tma"} : !tile.buffer<8x64xf16, global> to !tile.buffer<8x64xf16, shared>
    gpu.return
  }
}

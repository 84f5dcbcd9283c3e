// A copy with no mbar completes through its threads' cp.async groups; a
// function that never commits or never waits for them (e.g. a TMA-style
// copy that forgot its mbar) is refused when the copy is lowered.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants -split-input-file -verify-diagnostics

!g = !tile.buffer<?x?xbf16, global>
!s = !tile.buffer<8x64xbf16, shared>
gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  gpu.func @forgot_mbar(%in: memref<?x?xbf16, 1>) kernel {
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !g
    %s = tile.alloc_shared : !s
    // expected-error @+1 {{'tile.copy_async' op names no mbar, so its cp.async copies complete through each issuing thread's cp.async group, but the function has no tile.commit_group cp_async: commit and wait for the group, or give mbar(...) for a completion on an mbarrier}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 64] exec thread : !g to !s
    gpu.return
  }
}

// -----

!g = !tile.buffer<?x?xbf16, global>
!s = !tile.buffer<64x64xbf16, shared>
gpu.module @k [#nvvm.target<chip = "sm_80">] {
  gpu.func @commits_but_never_waits(%in: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !g
    %s = tile.alloc_shared : !s
    // expected-error @+1 {{but the function has no tile.wait_group cp_async}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec cta : !g to !s
    tile.commit_group cp_async
    gpu.return
  }
}

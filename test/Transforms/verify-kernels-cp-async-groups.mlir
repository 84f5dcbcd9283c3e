// The pipeline simulation runs cp.async copies that complete through
// cp.async groups (no mbarrier): each thread's share of a cooperative copy
// lands when a tile.wait_group cp_async of that thread retires its group,
// and another thread reads it safely only after a barrier with that thread
// after the wait. examples/cp_async_pipeline.mlir is the correct protocol
// (test/Compile/cp-async-pipeline-example.mlir); each kernel here breaks
// one step of it.
// RUN: tile-opt --tile-verify-kernels=simulation-remarks --split-input-file --verify-diagnostics %s -o /dev/null

!gmem = !tile.buffer<?x?xf16, global>
!ring = !tile.buffer<2x64x64xf16, shared>
!regs = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,4,2,8):(2@tid_in_wg,8,1@tid_in_wg,1)]>>

// No wait: the barrier does not make the copies land.
gpu.module @no_wait [#nvvm.target<chip = "sm_80">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !ring
    %x = tile.alloc_local : !regs
    // expected-note @+1 {{the copy}}
    tile.copy_async %g[0, 0] to %s[0, 0, 0] sizes [64, 64] exec cta : !gmem to !ring
    tile.commit_group cp_async
    gpu.barrier
    // expected-error @+1 {{has not landed (no tile.wait_group cp_async of that thread retired its group 0)}}
    tile.load %s[0, 0, 0] to %x : !ring to !regs
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!ring = !tile.buffer<2x64x64xf16, shared>
!regs = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,4,2,8):(2@tid_in_wg,8,1@tid_in_wg,1)]>>

// Each thread waits for its own share, but reads the others' without a
// barrier after their waits: the first warp reads before the other warps
// have even issued theirs.
gpu.module @no_barrier [#nvvm.target<chip = "sm_80">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !ring
    %x = tile.alloc_local : !regs
    // expected-note @+1 {{the copy}}
    tile.copy_async %g[0, 0] to %s[0, 0, 0] sizes [64, 64] exec cta : !gmem to !ring
    tile.commit_group cp_async
    tile.wait_group cp_async, 0
    // expected-error @+1 {{only 32 of its 128 threads issued their share}}
    tile.load %s[0, 0, 0] to %x : !ring to !regs
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!ring = !tile.buffer<2x64x64xf16, shared>
!regs = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,4,2,8):(2@tid_in_wg,8,1@tid_in_wg,1)]>>

// Two stages in two groups; wait_group 1 retires only the first, so stage
// 1 has not landed.
gpu.module @too_few_groups [#nvvm.target<chip = "sm_80">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !ring
    %x = tile.alloc_local : !regs
    tile.copy_async %g[0, 0] to %s[0, 0, 0] sizes [64, 64] exec cta : !gmem to !ring
    tile.commit_group cp_async
    // expected-note @+1 {{the copy}}
    tile.copy_async %g[64, 0] to %s[1, 0, 0] sizes [64, 64] exec cta : !gmem to !ring
    tile.commit_group cp_async
    tile.wait_group cp_async, 1
    gpu.barrier
    tile.load %s[0, 0, 0] to %x : !ring to !regs
    // expected-error @+1 {{has not landed (no tile.wait_group cp_async of that thread retired its group 1)}}
    tile.load %s[1, 0, 0] to %x : !ring to !regs
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!ring = !tile.buffer<2x64x64xf16, shared>
!regs = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,4,2,8):(2@tid_in_wg,8,1@tid_in_wg,1)]>>

// Refilling a stage whose copy has not landed.
gpu.module @refill_in_flight [#nvvm.target<chip = "sm_80">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !ring
    // expected-note @+1 {{the earlier copy, issued by}}
    tile.copy_async %g[0, 0] to %s[0, 0, 0] sizes [64, 64] exec cta : !gmem to !ring
    tile.commit_group cp_async
    // expected-error @+1 {{while an earlier copy into}}
    tile.copy_async %g[64, 0] to %s[0, 0, 0] sizes [64, 64] exec cta : !gmem to !ring
    tile.commit_group cp_async
    tile.wait_group cp_async, 0
    gpu.return
  }
}

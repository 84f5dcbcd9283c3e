// Tutorial step 07 (docs/tutorials/07-dispatch-variants.md): an op no
// built-in variant implements. On sm_80 (no TMA, no clusters) the whole
// CTA copies a 64 x 63 f16 tile from global to shared memory: its rows are
// 126 bytes, so cp.async (4, 8 or 16 bytes at a time) cannot move them
// and ldgsts declines; the error names every rule of every candidate that
// refused it. A variant registered from C++ can take this op.
//
// RUN: not tile-compile %s -o %t.ptx 2>&1 | FileCheck %s

// CHECK: error: no variant of tile.copy_async can implement this op on sm_80
// CHECK: note: tma (priority 20): rejected: single_thread — issued by a cta; one thread issues tensor copies (exec thread); rejected: completion — a global -> shared tensor copy completes on an mbarrier; give mbar(...); rejected: tma_target — sm_80 has no tensor memory accelerator (sm_90+)
// CHECK: note: ldgsts (priority 15): declined — 4-byte vectors: the region's innermost size 63 is not a multiple of 2 elements
// CHECK: note: dsmem (priority 10): rejected: shared_to_shared
// CHECK: note: tcgen05_cp (priority 10): rejected: shared_tmem

!g_t = !tile.buffer<64x63xf16, global>
!s_t = !tile.buffer<64x63xf16, shared>

gpu.module @tutorial [#nvvm.target<chip = "sm_80">] {
  gpu.func @stage_tile(%in: memref<64x63xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %g = tile.from_memref %in : memref<64x63xf16, 1> -> !g_t
    %s = tile.alloc_shared : !s_t
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 63] exec cta : !g_t to !s_t
    gpu.return
  }
}

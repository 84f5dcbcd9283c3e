// Tutorial step 01: layouts and buffers (docs/tutorials/01-layouts-and-buffers.md).
//
// One warpgroup moves a 64x64 f16 tile through the three places a tile can
// live: global memory (a kernel argument), a 128-byte swizzled shared tile
// and the registers of the 128 threads, in two different thread layouts.
// The output is the input widened to f32. Launch: 1 CTA of 128 threads.
//
// The file parses and prints back the same:
// RUN: tile-opt %s | tile-opt | FileCheck %s --check-prefix=ROUNDTRIP
// The shared tile gets an offset in the kernel's dynamic shared segment:
// RUN: tile-opt %s --tile-assign-shared-offsets | FileCheck %s --check-prefix=OFFSETS
// Compiled with translation validation, then assembled:
// RUN: tile-compile --check %s --chip sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// ROUNDTRIP: tile.alloc_shared : !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
// ROUNDTRIP: tile.alloc_local : !tile.buffer<64x64xf16, local, #tile.layout<S[(64,2,32):(2@tid_in_wg,1@tid_in_wg,1)]>>
// ROUNDTRIP: tile.alloc_local : !tile.buffer<64x64xf16, local, #tile.layout<S[(2,32,64):(64@tid_in_wg,1,1@tid_in_wg)]>>

// 8192 bytes of tile plus 1008 bytes of room to round the segment's base
// up to the 1024-byte alignment of a 128-byte swizzle.
// OFFSETS: tile.dynamic_shared_alignment = 1024 : i64, tile.dynamic_shared_bytes = 9200 : i64
// OFFSETS: tile.alloc_shared {offset = 0 : i64}

// Each thread's 32 halves go into shared memory as four 16-byte stores;
// the column-per-thread reads are single halves, widened before the store.
// PTX-LABEL: .entry relayout(
// PTX-COUNT-4: st.shared.v4.b32
// PTX: bar.sync 0;
// PTX: ld.shared.b16
// PTX: cvt.f32.f16
// PTX: st.global.b32

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// The global tiles: no layout, so dense row-major.
!in_t = !tile.buffer<64x64xf16, global>
!out_t = !tile.buffer<64x64xf32, global>
// 64 rows of 128 bytes, swizzled in 16-byte chunks (TMA's and wgmma's
// 128-byte swizzle).
!smem_t = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
// Thread t holds row t / 2, columns 32 (t % 2) .. 32 (t % 2) + 31.
!rows_t = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,2,32):(2@tid_in_wg,1@tid_in_wg,1)]>>
// Thread t holds column t % 64, rows 32 (t / 64) .. 32 (t / 64) + 31.
!cols_t = !tile.buffer<64x64xf16, local, #tile.layout<S[(2,32,64):(64@tid_in_wg,1,1@tid_in_wg)]>>

gpu.module @tutorial [#nvvm.target<chip = "sm_90a">] {
  gpu.func @relayout(%in: memref<64x64xf16, 1>, %out: memref<64x64xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %gin = tile.from_memref %in : memref<64x64xf16, 1> -> !in_t
    %gout = tile.from_memref %out : memref<64x64xf32, 1> -> !out_t
    %smem = tile.alloc_shared : !smem_t

    // Row pieces in, into shared memory through the swizzle.
    %rows = tile.alloc_local : !rows_t
    tile.load %gin[0, 0] to %rows : !in_t to !rows_t
    tile.store %rows to %smem[0, 0] : !rows_t to !smem_t
    // Plain stores and loads: a CTA barrier orders them.
    gpu.barrier

    // Columns out: each thread now holds elements other threads loaded.
    %cols = tile.alloc_local : !cols_t
    tile.load %smem[0, 0] to %cols : !smem_t to !cols_t
    tile.store %cols to %gout[0, 0] : !cols_t to !out_t
    gpu.return
  }
}

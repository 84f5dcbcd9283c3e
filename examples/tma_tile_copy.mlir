// A tiled copy of a large 2-D f16 tensor with runtime sizes: each CTA moves
// one 128x64 tile, global -> shared (one tensor copy, mbarrier) -> global
// (one tensor copy, bulk group). The tensor maps refer to the memrefs'
// runtime sizes and row strides (manifest: dim_sources / stride_sources);
// the tile coordinates are SSA values from the block ids. Used by the copy
// benchmark. Launch: grid (cols / 64, rows / 128), 128 threads; rows a
// multiple of 128 and cols of 64 (partial edge tiles would read zeros from
// out-of-bounds boxes and store only in-bounds elements).
//
//   build/bin/tile-compile examples/tma_tile_copy.mlir --chip sm_90a \
//       -o /tmp/tc.ptx --manifest /tmp/tc.json

!tile_t = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!tensor = !tile.buffer<?x?xf16, global>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @tma_tile_copy(%in: memref<?x?xf16, 1>, %out: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %tile_bytes = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %g_in = tile.from_memref %in : memref<?x?xf16, 1> -> !tensor
    %g_out = tile.from_memref %out : memref<?x?xf16, 1> -> !tensor
    %tile = tile.alloc_shared : !tile_t
    %bar = nvgpu.mbarrier.create -> !bar
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c64 : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index

    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tile_bytes : !bar
      tile.copy_async %g_in[%row, %col] to %tile[0, 0] sizes [128, 64] exec thread
          mbar(%bar[%c0] : !bar) : !tensor to !tile_t
      // Only the issuing thread needs the data: it stores the tile back.
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar
      tile.copy_async %tile[0, 0] to %g_out[%row, %col] sizes [128, 64] exec thread
          : !tile_t to !tensor
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

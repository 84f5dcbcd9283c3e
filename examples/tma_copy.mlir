// A TMA round trip: one elected thread loads an 8x256 f16 tile into a
// 128-byte swizzled shared tile with one tensor copy, every thread waits on
// the mbarrier, then the same thread stores the tile back out with another
// tensor copy. The tensor map is a by-value kernel parameter the host
// encodes from the manifest's plan (rank 3: the 256 columns split into four
// 64-element swizzle atoms).
//
//   build/bin/tile-compile examples/tma_copy.mlir --chip sm_90a \
//       -o /tmp/t.ptx --manifest /tmp/t.json --explain
// Launch: 1 CTA of 128 threads per tile; `in` and `out` are 8x256 f16.

!tile_t = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @tma_copy(%in: memref<8x256xf16, 1>, %out: memref<8x256xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile_bytes = arith.constant 4096 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %g_in = tile.from_memref %in : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %g_out = tile.from_memref %out : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %tile = tile.alloc_shared : !tile_t
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index

    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tile_bytes : !bar
      tile.copy_async %g_in[0, 0] to %tile[0, 0] sizes [8, 256] exec thread
          mbar(%bar[%c0] : !bar) : !tile.buffer<8x256xf16, global> to !tile_t
    }
    // Every thread waits for phase 0: the 4096 bytes have landed.
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar
    scf.if %leader {
      tile.copy_async %tile[0, 0] to %g_out[0, 0] sizes [8, 256] exec thread
          : !tile_t to !tile.buffer<8x256xf16, global>
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

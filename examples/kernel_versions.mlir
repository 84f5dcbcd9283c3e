// Kernel versions: one computation compiled once per copy strategy, and the
// host runtime launching the first version the call's tensors suit.
//
// The kernel copies the 128x64 f16 tile at the origin of `in` to the same
// place in `out`, through shared memory. `tile_copy` loads it by TMA, which
// needs the tensor's address and row stride to be multiples of 16 bytes;
// `tile_copy_ldgsts` is declared a version of it (`tile.version_of`) and
// loads by cp.async shared by the CTA's 128 threads (the ldgsts variant),
// which needs multiples of 4 bytes. Both store by TMA, so `out` needs 16
// in either.
//
// tile-compile writes each argument's needs into the manifest
// (`"alignment": [{"by": "tma", "bytes": 16, "strides": [0]}]`: the
// address and the row stride) and the version's `"version_of":
// "tile_copy"`. Launching "tile_copy" through TileRuntime
// (Module::kernelFor, the C API's tileRuntimeLaunch, tile_mlir's kernels)
// takes `tile_copy` when `in` is 16-byte aligned, else `tile_copy_ldgsts`
// when it is 4-byte aligned (a row stride of 4098 f16, say), else refuses,
// naming each version and what it needs. TILE_RUNTIME_DEBUG=1 prints the
// choice. The two versions take the same arguments: the manifest reader
// refuses a version whose signature differs.
//
//   tile-compile examples/kernel_versions.mlir --chip sm_90a --check \
//       -o kv.ptx --manifest kv.json

!tile_t = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!tensor = !tile.buffer<?x?xf16, global>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @tile_copy(%in: memref<?x?xf16, 1>, %out: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile_bytes = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g_in = tile.from_memref %in : memref<?x?xf16, 1> -> !tensor
    %g_out = tile.from_memref %out : memref<?x?xf16, 1> -> !tensor
    %tile = tile.alloc_shared : !tile_t
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tile_bytes : !bar
      tile.copy_async %g_in[0, 0] to %tile[0, 0] sizes [128, 64] exec thread
          mbar(%bar[%c0] : !bar) : !tensor to !tile_t
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar
      tile.copy_async %tile[0, 0] to %g_out[0, 0] sizes [128, 64] exec thread
          : !tile_t to !tensor
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }

  gpu.func @tile_copy_ldgsts(%in: memref<?x?xf16, 1>, %out: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>,
                  tile.version_of = "tile_copy"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile_bytes = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g_in = tile.from_memref %in : memref<?x?xf16, 1> -> !tensor
    %g_out = tile.from_memref %out : memref<?x?xf16, 1> -> !tensor
    %tile = tile.alloc_shared : !tile_t
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tile_bytes : !bar
    }
    gpu.barrier
    tile.copy_async %g_in[0, 0] to %tile[0, 0] sizes [128, 64] exec cta
        mbar(%bar[%c0] : !bar) : !tensor to !tile_t
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar
    // cp.async wrote the tile through the generic proxy; the TMA store
    // reads it through the async proxy.
    tile.fence proxy_async
    gpu.barrier
    scf.if %leader {
      tile.copy_async %tile[0, 0] to %g_out[0, 0] sizes [128, 64] exec thread
          : !tile_t to !tensor
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

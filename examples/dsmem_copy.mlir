// A 2-CTA cluster kernel: CTA 0 stages a 128x64 f16 tile from global memory
// into its shared memory and bulk-copies it into CTA 1's shared memory with
// one tile.copy_async (dispatch picks `dsmem`); CTA 1 arms its mbarrier for
// the 16384 bytes, waits, and writes the tile out.
// Launch: grid (2k, 1, 1) in clusters of (2, 1, 1), 128 threads per CTA;
// every cluster copies `in` to `out`.
//
//   build/bin/tile-compile examples/dsmem_copy.mlir --chip sm_90a \
//       -o /tmp/d.ptx --manifest /tmp/d.json --explain

!tile_t = !tile.buffer<128x64xf16, shared>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @dsmem_copy(%in: memref<128x64xf16, 1>, %out: memref<128x64xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>,
                  known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %i1 = arith.constant 1 : i32
    %tile_bytes = arith.constant 16384 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    // One mbarrier per CTA; CTA 0's copy completes on CTA 1's.
    %bar = nvgpu.mbarrier.create -> !bar
    %tile = tile.alloc_shared : !tile_t
    %smem = tile.base_address %tile : !tile_t -> !llvm.ptr<3>
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %row = gpu.thread_id x
    %leader = arith.cmpi eq, %row, %c0 : index
    %receiver = arith.cmpi eq, %rank, %i1 : i32

    // CTA 1 initialises and arms its barrier before anyone copies; the
    // cluster barrier publishes the initialisation to CTA 0.
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
      scf.if %receiver {
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tile_bytes : !bar
      }
    }
    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}

    scf.if %receiver {
      // Wait for phase 0 of the barrier: all 16384 bytes have landed.
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar
      scf.for %col = %c0 to %c64 step %c1 {
        %row_start = arith.muli %row, %c64 : index
        %index = arith.addi %row_start, %col : index
        %offset = arith.index_cast %index : index to i32
        %p = llvm.getelementptr %smem[%offset] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
        %v = llvm.load %p : !llvm.ptr<3> -> f16
        memref.store %v, %out[%row, %col] : memref<128x64xf16, 1>
      }
    } else {
      // Stage the tile: thread r writes row r with ordinary stores.
      scf.for %col = %c0 to %c64 step %c1 {
        %v = memref.load %in[%row, %col] : memref<128x64xf16, 1>
        %row_start = arith.muli %row, %c64 : index
        %index = arith.addi %row_start, %col : index
        %offset = arith.index_cast %index : index to i32
        %p = llvm.getelementptr %smem[%offset] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
        llvm.store %v, %p : f16, !llvm.ptr<3>
      }
      // Generic-proxy writes must be visible to the async proxy that reads
      // them, and every row must be written before the copy starts.
      tile.fence proxy_async
      gpu.barrier
      scf.if %leader {
        tile.copy_async %tile[0, 0] to %tile[0, 0] sizes [128, 64] exec thread
            mbar(%bar[%c0] : !bar) remote_cta(%i1) : !tile_t to !tile_t
      }
    }
    // CTA 0's tile is the copy's source: no CTA leaves before CTA 1 has it.
    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}
    gpu.return
  }
}

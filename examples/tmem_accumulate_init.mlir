// Tensor memory initialised by tcgen05.cp before accumulating: the C
// tile of D = A @ B + C is TMA-loaded into 128-byte swizzled shared memory
// and copied into a 128-lane tensor-memory accumulator with one copy_async
// (dispatched to tcgen05_cp: 8 x 128x256b, each 8 fp32 columns), so the
// MMAs can accumulate onto it. Here the accumulator is read straight back
// (tcgen05.ld) to show where C landed.
//
//   build/bin/tile-compile examples/tmem_accumulate_init.mlir -o /tmp/a.ptx \
//       --manifest /tmp/a.json --explain
// Launch: 1 CTA of 128 threads; `c` and `out` are 128x64 f32; the manifest's
// tensor map for `c` is encoded by the host. Expected: out == c. Needs an
// sm_100 GPU.

!c_smem = !tile.buffer<128x64xf32, shared, #tile.layout<S[(128,2,32):(32,4096,1)], swizzle<3,2,3>>>
!acc = !tile.buffer<128x64xf32, tmem, #tile.layout<S[(128,64):(1@TLane,1@TCol)]>>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  gpu.func @tmem_accumulate_init(%c: memref<128x64xf32, 1>, %out: memref<128x64xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %tile_bytes = arith.constant 32768 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    // Barrier 0 tracks the TMA load of C, barrier 1 the tcgen05.cp.
    %bars = nvgpu.mbarrier.create -> !bars
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
      tile.fence mbarrier_init
    }
    %taddr = tile.tmem_alloc 64 columns {relinquish}
    %accbuf = tile.tmem_buffer %taddr : !acc

    %g = tile.from_memref %c : memref<128x64xf32, 1> -> !tile.buffer<128x64xf32, global>
    %csmem = tile.alloc_shared : !c_smem
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tile_bytes : !bars
      tile.copy_async %g[0, 0] to %csmem[0, 0] sizes [128, 64] exec thread
          mbar(%bars[%c0] : !bars) : !tile.buffer<128x64xf32, global> to !c_smem
      // TMA writes through the async proxy, which tcgen05.cp reads: the
      // mbarrier wait is all the ordering needed.
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %phase0, %ticks : !bars
      tile.copy_async %csmem[0, 0] to %accbuf[0, 0] sizes [128, 64] exec thread
          : !c_smem to !acc
      tile.mma_commit mbar(%bars[%c1] : !bars) exec thread
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %phase0, %ticks : !bars
    tile.fence after_thread_sync

    // Thread 32w + l reads lane 32w + l, one column at a time.
    %w32 = arith.index_cast %warp : index to i32
    %lane0 = arith.muli %w32, %i32 : i32
    %laneField = arith.shli %lane0, %i16 : i32
    %waddr = arith.addi %taddr, %laneField : i32
    scf.for %col = %c0 to %c64 step %c1 {
      %col32 = arith.index_cast %col : index to i32
      %a = arith.addi %waddr, %col32 : i32
      %ptr = llvm.inttoptr %a : i32 to !llvm.ptr<6>
      %bits = nvvm.tcgen05.ld %ptr {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      %v = llvm.bitcast %bits : i32 to f32
      memref.store %v, %out[%tid, %col] : memref<128x64xf32, 1>
    }

    tile.tmem_dealloc %taddr, 64 columns
    gpu.return
  }
}

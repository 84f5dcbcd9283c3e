// A 128x128x64 f16 GEMM on tcgen05: a warpgroup TMA-loads a 128x64 A and a
// 64x128 B (128-byte swizzled shared tiles), one thread issues
// `tile.gemm_async` (dispatched to tcgen05: 4 x tcgen05.mma.kind::f16 of
// K 16, f32 accumulate) into tensor-memory columns 256..383, commits to an
// barrier, and after the wait every thread reads its lane back
// (tcgen05.ld) into `out`.
//
//   build/bin/tile-compile examples/gemm_async.mlir -o /tmp/g.ptx \
//       --manifest /tmp/g.json --explain
// Launch: 1 CTA of 128 threads; `a` 128x64 f16, `b` 64x128 f16 (K x N,
// N contiguous: B is MN-major), `out` 128x128 f32; the manifest's tensor
// maps for `a` and `b` are encoded by the host. Expected: out = a @ b.
// Needs an sm_100 GPU (TileDeviceTests: Tcgen05.GemmAsyncMatchesTheHostGemm skips without one).

!a_smem = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!b_smem = !tile.buffer<64x128xf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x512xf32, tmem, #tile.layout<S[(128,512):(1@TLane,1@TCol)]>>

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  gpu.func @gemm_async(%a: memref<128x64xf16, 1>, %b: memref<64x128xf16, 1>,
                       %out: memref<128x128xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %tile_bytes = arith.constant 32768 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %i256 = arith.constant 256 : i32

    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index

    // Barrier 0 tracks the TMA loads, barrier 1 the MMAs.
    %bars = nvgpu.mbarrier.create -> !bars
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
      tile.fence mbarrier_init
    }
    // Warp 0 allocates all 512 columns; the op syncs the CTA, so the
    // barriers are initialised for everyone too.
    %taddr = tile.tmem_alloc 512 columns
    %acc = tile.tmem_buffer %taddr : !acc

    %ga = tile.from_memref %a : memref<128x64xf16, 1> -> !tile.buffer<128x64xf16, global>
    %gb = tile.from_memref %b : memref<64x128xf16, 1> -> !tile.buffer<64x128xf16, global>
    %sa = tile.alloc_shared : !a_smem
    %sb = tile.alloc_shared : !b_smem
    scf.if %leader {
      // 16384 + 16384 bytes complete on barrier 0.
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tile_bytes : !bars
      tile.copy_async %ga[0, 0] to %sa[0, 0] sizes [128, 64] exec thread
          mbar(%bars[%c0] : !bars) : !tile.buffer<128x64xf16, global> to !a_smem
      tile.copy_async %gb[0, 0] to %sb[0, 0] sizes [64, 128] exec thread
          mbar(%bars[%c0] : !bars) : !tile.buffer<64x128xf16, global> to !b_smem
      // The TMA writes and the MMA reads are both async-proxy accesses: the
      // mbarrier wait orders them.
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %phase0, %ticks : !bars
      // C = A @ B into tmem[0:128, 256:384]; the commit is issued by the
      // same thread so it tracks these MMAs.
      tile.gemm_async %acc[0, 256], %sa[0, 0], %sb[0, 0] sizes [128, 128, 64]
          exec thread : !acc, !a_smem, !b_smem
      tile.mma_commit mbar(%bars[%c1] : !bars) exec thread
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %phase0, %ticks : !bars
    tile.fence after_thread_sync

    // Thread 32w + l reads lane 32w + l (row 32w + l of C), one column at
    // a time from column 256.
    %w32 = arith.index_cast %warp : index to i32
    %lane0 = arith.muli %w32, %i32 : i32
    %laneField = arith.shli %lane0, %i16 : i32
    %rowAddr = arith.addi %taddr, %laneField : i32
    %waddr = arith.addi %rowAddr, %i256 : i32
    scf.for %col = %c0 to %c128 step %c1 {
      %col32 = arith.index_cast %col : index to i32
      %addr = arith.addi %waddr, %col32 : i32
      %ptr = llvm.inttoptr %addr : i32 to !llvm.ptr<6>
      %bits = nvvm.tcgen05.ld %ptr {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      %v = llvm.bitcast %bits : i32 to f32
      memref.store %v, %out[%tid, %col] : memref<128x128xf32, 1>
    }

    // Every thread's loads are done before warp 0 releases the columns.
    tile.tmem_dealloc %taddr, 512 columns
    gpu.return
  }
}

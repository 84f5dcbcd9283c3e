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

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  llvm.mlir.global internal @tma_bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64

  gpu.func @tma_copy(%in: memref<8x256xf16, 1>, %out: memref<8x256xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %true = arith.constant true
    %tile_bytes = arith.constant 4096 : i32

    %g_in = tile.from_memref %in : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %g_out = tile.from_memref %out : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %tile = tile.alloc_shared : !tile_t
    %bar = llvm.mlir.addressof @tma_bar : !llvm.ptr<3>
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index

    scf.if %leader {
      nvvm.mbarrier.init %bar, %i1 : !llvm.ptr<3>, i32
      nvvm.fence.mbarrier.init
    }
    gpu.barrier
    scf.if %leader {
      nvvm.mbarrier.arrive.expect_tx %bar, %tile_bytes : !llvm.ptr<3>, i32
      tile.copy_async %g_in[0, 0] to %tile[0, 0] sizes [8, 256] exec thread
          mbar(%bar) : !tile.buffer<8x256xf16, global> to !tile_t
    }
    // Every thread waits for phase 0: the 4096 bytes have landed.
    scf.while : () -> () {
      %done = nvvm.mbarrier.try_wait %bar, %i0 : !llvm.ptr<3>, i32 -> i1
      %more = arith.xori %done, %true : i1
      scf.condition(%more)
    } do {
      scf.yield
    }
    scf.if %leader {
      tile.copy_async %tile[0, 0] to %g_out[0, 0] sizes [8, 256] exec thread
          : !tile_t to !tile.buffer<8x256xf16, global>
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }
}

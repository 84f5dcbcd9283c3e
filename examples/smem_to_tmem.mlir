// A warpgroup copies a 32x16 uint8 shared tile into tensor memory with one
// copy_async, dispatched to tcgen05_cp (32x128b.warpx4: the 32 rows land in
// lanes 0-31 of every warp's 32-lane slab), then every warp reads its slab
// back with tcgen05.ld.
//
//   thread t stores in[t] (4 bytes) at byte 4t of the shared tile and
//   fences them for the async proxy (tcgen05.cp reads through it); warp 0
//   allocates 32 tensor-memory columns (the allocation unit; the tile uses
//   columns 0-3: 16 bytes a lane), which syncs the CTA; thread 0 issues the
//   copy and commits it to an mbarrier (tcgen05.cp itself signals nothing);
//   everyone waits on the mbarrier; thread 32w + l loads lane 32w + l
//   (tcgen05.ld 32x32b.x4) into out[32w + l].
//
//   build/bin/tile-compile examples/smem_to_tmem.mlir -o /tmp/s.ptx \
//       --manifest /tmp/s.json --explain
// Launch: 1 CTA of 128 threads; `in` is 128 x i32 (the tile's 512 bytes),
// `out` is 128 x 4 x i32. Expected: out[32w + l][k] == in[4l + k] for every
// warp w. Needs an sm_100 GPU (TileDeviceTests: Tcgen05.SmemToTmem...).

!smem_t = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!tmem_t = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  gpu.func @smem_to_tmem(%in: memref<128xi32, 1>, %out: memref<128x4xi32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    %bar = nvgpu.mbarrier.create -> !bar
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
    }

    // The shared tile: thread t writes bytes 4t..4t+3.
    %tile = tile.alloc_shared : !smem_t
    %smem = tile.base_address %tile : !smem_t -> !llvm.ptr<3>
    %word = memref.load %in[%tid] : memref<128xi32, 1>
    %t32 = arith.index_cast %tid : index to i32
    %p = llvm.getelementptr %smem[%t32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %word, %p : i32, !llvm.ptr<3>
    tile.fence proxy_async

    // Warp 0 allocates; the op syncs the CTA, so the tile and the barrier
    // are ready for thread 0 too.
    %taddr = tile.tmem_alloc 32 columns {relinquish}
    %tmem = tile.tmem_buffer %taddr : !tmem_t
    scf.if %leader {
      tile.copy_async %tile[0, 0] to %tmem[0, 0] sizes [32, 16] exec thread
          : !smem_t to !tmem_t
      tile.mma_commit mbar(%bar[%c0] : !bar) exec thread
    }
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar
    tile.fence after_thread_sync

    // Warp w reads lanes 32w..32w+31, columns 0-3 (one 16-byte row a lane).
    %w32 = arith.index_cast %warp : index to i32
    %lane0 = arith.muli %w32, %i32 : i32
    %laneField = arith.shli %lane0, %i16 : i32
    %waddr = arith.addi %taddr, %laneField : i32
    %wptr = llvm.inttoptr %waddr : i32 to !llvm.ptr<6>
    %row = nvvm.tcgen05.ld %wptr {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<4xi32>
    nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
    %v0 = llvm.extractelement %row[%i0 : i32] : vector<4xi32>
    %v1 = llvm.extractelement %row[%i1 : i32] : vector<4xi32>
    %v2 = llvm.extractelement %row[%i2 : i32] : vector<4xi32>
    %v3 = llvm.extractelement %row[%i3 : i32] : vector<4xi32>
    memref.store %v0, %out[%tid, %c0] : memref<128x4xi32, 1>
    memref.store %v1, %out[%tid, %c1] : memref<128x4xi32, 1>
    memref.store %v2, %out[%tid, %c2] : memref<128x4xi32, 1>
    memref.store %v3, %out[%tid, %c3] : memref<128x4xi32, 1>

    tile.tmem_dealloc %taddr, 32 columns
    gpu.return
  }
}

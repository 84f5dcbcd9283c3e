// A two-stage copy pipeline without TMA, for sm_80 (A100) and every later
// chip: global -> shared copies by cp.async (the `ldgsts` variant) that
// complete through cp.async groups instead of an mbarrier.
//
//   out[r, c] = in[r, c] * factor      in, out: [4096, 64] f32
//
// (Static sizes: tile.store writes register tiles into a global tensor of
// static shape. The copies themselves read the tensor's sizes and strides
// at run time, and would zero-fill a partial last tile.)
//
// Each CTA walks the 32-row tiles t = blockIdx.x, blockIdx.x + gridDim.x,
// ... through a two-stage shared ring. The CTA's 128 threads share every
// copy (`exec cta`): each issues its cp.async vectors, and they join that
// thread's open cp.async group. The protocol per tile:
//
//   1. issue the next tile's copy into the other stage; commit the group
//      (`tile.commit_group cp_async`, one group per tile, empty when there
//      is no next tile, so that the count below stays right);
//   2. `tile.wait_group cp_async, 1`: every group but the newest (the next
//      tile's) has landed: this thread's share of this tile;
//   3. `gpu.barrier`: every thread's share has landed (each waited for its
//      own), so any thread may read any element;
//   4. read the tile into registers, and `gpu.barrier` again before step 1
//      of the next iteration overwrites this stage.
//
// `--tile-verify-kernels` runs this protocol on sample sizes: dropping the
// wait, waiting for too few groups (`cp_async, 2`) or dropping the first
// barrier is reported as a read of bytes that have not landed or were not
// synchronized with their copying thread. The device suite runs the kernel
// on an H100/H200 (sm_80 code runs there) against the host.
//
// Try: tile-compile examples/cp_async_pipeline.mlir --chip sm_80 --check
//        --verify-kernels -o cp_async_pipeline.ptx

// The ring: two stages of 32 x 64 f32, row-major (a row is 256 bytes, so a
// thread's 16-byte vectors never straddle rows).
!ring = !tile.buffer<2x32x64xf32, shared>
// A tile in registers: thread t holds row t / 4, columns 16j + 4(t % 4) + e
// (j, e = 0..3) in register 4j + e: runs of four consecutive floats, each
// one 16-byte load from shared memory and one 16-byte store to global.
!rows = !tile.buffer<32x64xf32, local,
    #tile.layout<S[(32,4,4,4):(4@tid_in_wg,4,1@tid_in_wg,1)]>>
!g = !tile.buffer<4096x64xf32, global>

gpu.module @ampere [#nvvm.target<chip = "sm_80">] {
  gpu.func @scale_rows(%in: memref<4096x64xf32, 1>, %out: memref<4096x64xf32, 1>,
                       %factor: f32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %tiles = arith.constant 128 : index
    %first = gpu.block_id x
    %step = gpu.grid_dim x
    %gin = tile.from_memref %in : memref<4096x64xf32, 1> -> !g
    %gout = tile.from_memref %out : memref<4096x64xf32, 1> -> !g
    %ring = tile.alloc_shared : !ring
    %x = tile.alloc_local : !rows

    // The prologue: the CTA's first tile into stage 0.
    %has_first = arith.cmpi ult, %first, %tiles : index
    scf.if %has_first {
      %row = arith.muli %first, %c32 : index
      tile.copy_async %gin[%row, 0] to %ring[0, 0, 0] sizes [32, 64] exec cta
          : !g to !ring
    }
    tile.commit_group cp_async

    %last = scf.for %t = %first to %tiles step %step
        iter_args(%stage = %c0) -> (index) {
      // 1. The next tile's copy into the other stage, as its own group.
      %next = arith.addi %t, %step : index
      %other = arith.subi %c1, %stage : index
      %has_next = arith.cmpi ult, %next, %tiles : index
      scf.if %has_next {
        %next_row = arith.muli %next, %c32 : index
        tile.copy_async %gin[%next_row, 0] to %ring[%other, 0, 0]
            sizes [32, 64] exec cta : !g to !ring
      }
      tile.commit_group cp_async
      // 2. This thread's share of tile t has landed ...
      tile.wait_group cp_async, 1
      // 3. ... and, after the barrier, every thread's.
      gpu.barrier
      // 4. Registers from the stage; then the stage may be refilled.
      tile.load %ring[%stage, 0, 0] to %x : !ring to !rows
      gpu.barrier
      tile.map ins(%x : !rows) outs(%x : !rows) {
      ^bb0(%v: f32, %i: index, %j: index):
        %scaled = arith.mulf %v, %factor : f32
        tile.yield %scaled : f32
      }
      %row = arith.muli %t, %c32 : index
      tile.store %x to %gout[%row, 0] : !rows to !g
      scf.yield %other : index
    }
    gpu.return
  }
}

// Tutorial step 02: a TMA copy (docs/tutorials/02-tma-copy.md).
//
// A tiled copy of an f16 matrix of any size (rows x cols, cols a multiple
// of 8): CTA (x, y) moves the 64x128 tile at row 64y, column 128x from
// `in` to `out` with two tensor copies, global -> shared (completing on an
// mbarrier) and shared -> global (a bulk group). Tiles past the edge read
// zeros and store only what lies inside. Launch: grid
// (ceil(cols / 128), ceil(rows / 64)), 128 threads.
//
// RUN: tile-compile --check %s --chip sm_90a -o %t.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// A wrong byte count is caught before any code is generated:
// RUN: sed 's/16384 : index/8192 : index/' %s | not tile-opt --tile-verify-kernels 2>&1 | FileCheck %s --check-prefix=WRONG-BYTES

// Two boxes of 64 x 64 per copy (the width is a runtime size, so the two
// swizzle atoms of a row cannot be folded into one box), on one barrier.
// PTX-LABEL: .entry tiled_copy(
// PTX: .param .align 128 .b8 tiled_copy_param_{{[0-9]+}}[128]
// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init.release.cluster;
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.commit_group;
// PTX: cp.async.bulk.wait_group.read 0;

// The host encodes one tensor map per global tensor, from the manifest:
// its sizes and row stride come from the memref argument at launch.
// MANIFEST: "kind": "grid_constant"
// MANIFEST: "tensor_maps": [
// MANIFEST: "bytes_per_issue": 8192,
// MANIFEST: "data_type": "FLOAT16",
// MANIFEST: "global_arg": 0,
// MANIFEST: "issues": 2,
// MANIFEST: "global_arg": 1,

// WRONG-BYTES: error: announces 8192 bytes on this mbarrier but the copies completing on it in this phase bring 16384 bytes
// The note names the copy's region (the tensor's own sizes are runtime ones).
// WRONG-BYTES: note: completes 16384 bytes (a 64x128xf16 region)

!tensor_t = !tile.buffer<?x?xf16, global>
// 64 rows x 128 columns: two 64-column atoms of the 128-byte swizzle, one
// after the other (each 64 x 64 = 4096 elements).
!tile_t = !tile.buffer<64x128xf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
!bar_t = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @tutorial [#nvvm.target<chip = "sm_90a">] {
  gpu.func @tiled_copy(%in: memref<?x?xf16, 1>, %out: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tile_bytes = arith.constant 16384 : index   // 64 x 128 x 2 bytes
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %gin = tile.from_memref %in : memref<?x?xf16, 1> -> !tensor_t
    %gout = tile.from_memref %out : memref<?x?xf16, 1> -> !tensor_t
    %tile = tile.alloc_shared : !tile_t
    %bar = nvgpu.mbarrier.create -> !bar_t

    %bx = gpu.block_id x
    %by = gpu.block_id y
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c128 : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index

    // One thread does everything: no other thread touches the tile.
    scf.if %leader {
      // One arrival (this thread's expect_tx) plus the announced bytes
      // complete phase 0.
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar_t
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tile_bytes : !bar_t
      tile.copy_async %gin[%row, %col] to %tile[0, 0] sizes [64, 128] exec thread
          mbar(%bar[%c0] : !bar_t) : !tensor_t to !tile_t
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar_t
      tile.copy_async %tile[0, 0] to %gout[%row, %col] sizes [64, 128] exec thread
          : !tile_t to !tensor_t
      // The tile must stay valid until the store has read it.
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

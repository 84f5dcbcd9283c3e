// Tutorial step 03: barriers and a multi-stage ring
// (docs/tutorials/03-mbarrier-ring.md).
//
// A copy of a tall f16 matrix (rows x 64, any number of rows) through a
// four-stage ring of shared tiles. In each CTA a producer thread loads
// 64-row tiles into the ring while a consumer thread, in another warp,
// stores them out; `full` barriers say a stage holds data, `empty`
// barriers say it may be overwritten. The CTAs share the tiles out
// round-robin. Launch: any grid (x), 64 threads.
//
// RUN: tile-opt %s --tile-verify-kernels | FileCheck %s --check-prefix=VERIFIED
// RUN: tile-compile --check %s --chip sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// VERIFIED-LABEL: gpu.func @ring_copy

// Two arrays of four barriers; the consumer keeps one store in flight.
// PTX-LABEL: .entry ring_copy(
// PTX: .shared .align 8 .b8 {{__mbarrier.*}}[32];
// PTX: .shared .align 8 .b8 {{__mbarrier.*}}[32];
// PTX: fence.mbarrier_init.release.cluster;
// PTX: cp.async.bulk.wait_group.read 1;
// PTX: mbarrier.arrive.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// PTXAS: 0 bytes stack frame

!tensor_t = !tile.buffer<?x64xf16, global>
// Four stages of 64 x 64 halves, each a whole number of swizzle atoms
// (8192 bytes), so a runtime stage index is a plain address step.
!ring_t = !tile.buffer<4x64x64xf16, shared, #tile.layout<S[(4,64,64):(4096,64,1)], swizzle<3,3,3>>>
!bars_t = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>

gpu.module @tutorial [#nvvm.target<chip = "sm_90a">] {
  gpu.func @ring_copy(%in: memref<?x64xf16, 1>, %out: memref<?x64xf16, 1>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %stages = arith.constant 4 : index
    %stage_bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index

    %gin = tile.from_memref %in : memref<?x64xf16, 1> -> !tensor_t
    %gout = tile.from_memref %out : memref<?x64xf16, 1> -> !tensor_t
    %rows = memref.dim %in, %c0 : memref<?x64xf16, 1>
    %tiles = arith.ceildivui %rows, %c64 : index
    %ring = tile.alloc_shared : !ring_t
    %full = nvgpu.mbarrier.create -> !bars_t
    %empty = nvgpu.mbarrier.create -> !bars_t

    %tid = gpu.thread_id x
    %is_producer = arith.cmpi eq, %tid, %c0 : index
    %is_consumer = arith.cmpi eq, %tid, %c32 : index
    // Each barrier's phase completes after one arrival: the producer's
    // expect_tx (plus the bytes) for `full`, the consumer's arrive for
    // `empty`.
    scf.if %is_producer {
      scf.for %s = %c0 to %stages step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars_t
        nvgpu.mbarrier.init %empty[%s], %c1 : !bars_t
      }
      tile.fence mbarrier_init
    }
    gpu.barrier

    %first = gpu.block_id x
    %step = gpu.grid_dim x
    // %i counts this CTA's tiles: stage i % 4, used for the (i / 4)-th time.
    scf.if %is_producer {
      %n = scf.for %t = %first to %tiles step %step iter_args(%i = %c0) -> (index) {
        %s = arith.remui %i, %stages : index
        %round = arith.divui %i, %stages : index
        %round_bit = arith.andi %round, %c1 : index
        // Round r waits for phase r - 1 of `empty`; in round 0 that is
        // the phase before the first, which counts as complete.
        %free_parity = arith.cmpi eq, %round_bit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %empty[%s], %free_parity, %ticks : !bars_t
        nvgpu.mbarrier.arrive.expect_tx %full[%s], %stage_bytes : !bars_t
        %row = arith.muli %t, %c64 : index
        tile.copy_async %gin[%row, 0] to %ring[%s, 0, 0] sizes [64, 64] exec thread
            mbar(%full[%s] : !bars_t) : !tensor_t to !ring_t
        %next = arith.addi %i, %c1 : index
        scf.yield %next : index
      }
    }
    scf.if %is_consumer {
      %n = scf.for %t = %first to %tiles step %step iter_args(%i = %c0) -> (index) {
        %s = arith.remui %i, %stages : index
        %round = arith.divui %i, %stages : index
        %round_bit = arith.andi %round, %c1 : index
        // Round r waits for phase r of `full`.
        %parity = arith.cmpi ne, %round_bit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %full[%s], %parity, %ticks : !bars_t
        %row = arith.muli %t, %c64 : index
        tile.copy_async %ring[%s, 0, 0] to %gout[%row, 0] sizes [64, 64] exec thread
            : !ring_t to !tensor_t
        tile.commit_group bulk
        // At most one store in flight: the previous tile's store has read
        // its stage, which goes back to the producer.
        tile.wait_group bulk, 1 {read}
        %not_first = arith.cmpi ne, %i, %c0 : index
        scf.if %not_first {
          %prev_i = arith.addi %i, %stages : index
          %prev_j = arith.subi %prev_i, %c1 : index
          %prev = arith.remui %prev_j, %stages : index
          %token = nvgpu.mbarrier.arrive %empty[%prev] : !bars_t -> !nvgpu.mbarrier.token
        }
        %next = arith.addi %i, %c1 : index
        scf.yield %next : index
      }
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

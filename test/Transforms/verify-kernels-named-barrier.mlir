// Named barriers in --tile-verify-kernels: one thread count per barrier id
// (static, for constants), and the pipeline simulation running a ping-pong
// of two warpgroups that take turns (bar.sync on one's own barrier,
// bar.arrive on the other's) and finding a mismatched count it computes.
// RUN: tile-opt --tile-verify-kernels %s -split-input-file -verify-diagnostics
// RUN: not tile-opt --tile-verify-kernels=simulation-remarks %s -split-input-file 2>&1 | FileCheck %s --check-prefix=RAN
// The simulation runs both kernels that load a tile (no "not run" remark for them).
// RAN-NOT: simulation of @ping_pong
// RAN-NOT: simulation of @per_warpgroup_count

!tile_t = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!tensor = !tile.buffer<?x?xbf16, global>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Two warpgroups take turns four times; each turn writes the shared slot
// the other reads after its own bar.sync: no race, no deadlock, no remark.
gpu.module @ping_pong [#nvvm.target<chip = "sm_90a">] {
  gpu.func @ping_pong(%in: memref<?x?xbf16, 1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0x = arith.constant 0 : index
    %c1x = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tensor
    %tile = tile.alloc_shared {alignment = 1024 : i64} : !tile_t
    %bars = nvgpu.mbarrier.create -> !bar
    %tid0 = gpu.thread_id x
    %leader = arith.cmpi eq, %tid0, %c0x : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0x], %c1x : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0x], %bytes : !bar
      tile.copy_async %g[0, 0] to %tile[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0x] : !bar) : !tensor to !tile_t
    }
    gpu.barrier
    nvgpu.mbarrier.try_wait.parity %bars[%c0x], %false, %ticks : !bar
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c1_i32 = arith.constant 1 : i32
    %both = arith.constant 256 : i32
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %wg_i32 = arith.index_cast %wg : index to i32
    %mine = arith.addi %wg_i32, %c1_i32 : i32
    %other_wg = arith.subi %c1_i32, %wg_i32 : i32
    %other = arith.addi %other_wg, %c1_i32 : i32
    %second = arith.cmpi eq, %wg, %c1 : index
    // Warpgroup 0 goes first: warpgroup 1 lets it.
    scf.if %second {
      tile.named_barrier arrive id(%c1_i32) threads(%both)
    }
    scf.for %i = %c0 to %c4 step %c1 {
      tile.named_barrier id(%mine) threads(%both)
      tile.named_barrier arrive id(%other) threads(%both)
    }
    gpu.return
  }
}

// -----

gpu.module @static_mismatch [#nvvm.target<chip = "sm_90a">] {
  gpu.func @two_counts() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c1_i32 = arith.constant 1 : i32
    %wg_threads = arith.constant 128 : i32
    %both = arith.constant 256 : i32
    // expected-note @+1 {{the use with 256 threads}}
    tile.named_barrier arrive id(%c1_i32) threads(%both)
    // expected-error @+1 {{named barrier 1 with 128 threads, where another use has 256: a generation completes when that many threads arrived, so the two roles do not meet}}
    tile.named_barrier id(%c1_i32) threads(%wg_threads)
    gpu.return
  }
}

// -----

// The count computed from the warpgroup (128, then 256): a mismatch only
// the simulation sees.
!tile_t = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!tensor = !tile.buffer<?x?xbf16, global>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @computed_mismatch [#nvvm.target<chip = "sm_90a">] {
  gpu.func @per_warpgroup_count(%in: memref<?x?xbf16, 1>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0x = arith.constant 0 : index
    %c1x = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tensor
    %tile = tile.alloc_shared {alignment = 1024 : i64} : !tile_t
    %bars = nvgpu.mbarrier.create -> !bar
    %tid0 = gpu.thread_id x
    %leader = arith.cmpi eq, %tid0, %c0x : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0x], %c1x : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0x], %bytes : !bar
      tile.copy_async %g[0, 0] to %tile[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0x] : !bar) : !tensor to !tile_t
    }
    gpu.barrier
    nvgpu.mbarrier.try_wait.parity %bars[%c0x], %false, %ticks : !bar
    %c128 = arith.constant 128 : index
    %c1_i32 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %wg_i32 = arith.index_cast %wg : index to i32
    %plus = arith.muli %wg_i32, %c128_i32 : i32
    %count = arith.addi %plus, %c128_i32 : i32
    // Warpgroup 0's 128 complete a generation alone; warpgroup 1 then waits
    // for 256 that never come.
    // expected-error @+1 {{the kernel deadlocks: every thread waits and no copy is in flight; thread 128 (warpgroup 1, warp 4, lane 0) waits at named barrier 1}}
    tile.named_barrier id(%c1_i32) threads(%count)
    gpu.return
  }
}

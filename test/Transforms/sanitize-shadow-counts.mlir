// --tile-sanitize's shadow counts: each followed mbarrier group gets a
// shared array of (arrivals, init count, expected - copied bytes) per
// barrier; inits reset it, arrivals are checked against the barrier's phase,
// copies subtract their bytes on every CTA they land in, and a completed
// wait checks the balance.
// RUN: tile-opt --tile-sanitize %s | FileCheck %s

!s = !tile.buffer<64x64xf16, shared>
!g = !tile.buffer<?x?xf16, global>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// CHECK-LABEL: gpu.module @counted
// CHECK: llvm.mlir.global internal @__tile_sanitize_shadow_multicast_ring() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<6 x i32>
gpu.module @counted [#nvvm.target<chip = "sm_90a">] {
  // CHECK-LABEL: gpu.func @multicast_ring
  // CHECK-SAME: {kind = "mbarrier-arrival-count", {{[^}]*}} what = "nvgpu.mbarrier.arrive.expect_tx of the mbarrier group (2)
  // CHECK-SAME: {kind = "mbarrier-wait-timeout"
  // CHECK-SAME: {kind = "mbarrier-tx-balance", {{[^}]*}} what = "nvgpu.mbarrier.try_wait.parity of the mbarrier group (2)
  gpu.func @multicast_ring(%in: !g) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %mask = arith.constant 3 : i16
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    // The init writes 0, the count and 0 at entries 3i, 3i+1, 3i+2 (under
    // the init's predicate, before it).
    // CHECK: scf.if
    // CHECK: %[[A0:.*]] = llvm.mlir.addressof @__tile_sanitize_shadow_multicast_ring : !llvm.ptr<3>
    // CHECK: llvm.getelementptr %[[A0]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    // CHECK: llvm.store volatile
    // CHECK: llvm.store volatile
    // CHECK: llvm.store volatile
    // CHECK: nvgpu.mbarrier.init
    nvgpu.mbarrier.init %bars[%c0], %c1, predicate = %leader : !bars
    tile.fence mbarrier_init
    gpu.barrier
    scf.if %leader {
      // The bytes are added first, then the arrival is checked: the parity
      // now, the arrivals before this one, the init count.
      // CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
      // CHECK: nvgpu.mbarrier.get
      // CHECK: %[[EVEN:.*]] = nvvm.mbarrier.test.wait %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i1
      // CHECK: %[[PARITY:.*]] = arith.extui %[[EVEN]] : i1 to i32
      // CHECK: %[[BEFORE:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
      // CHECK: %[[INIT:.*]] = llvm.load volatile %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
      // CHECK: arith.divui %[[BEFORE]]
      // CHECK: scf.if
      // CHECK: llvm.call @__tile_sanitize_fail
      // CHECK: nvgpu.mbarrier.arrive.expect_tx
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
      // A multicast copy subtracts its 8192 bytes on each CTA of the mask.
      // CHECK: arith.constant -8192 : i32
      // CHECK: scf.for
      // CHECK: arith.shrui
      // CHECK: scf.if
      // CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr
      // CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr -> !llvm.ptr
      // CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
      // CHECK: tile.copy_async
      tile.copy_async %in[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%bars[%c0] : !bars) cta_mask(%mask) : !g to !s
    }
    // The wait: the timeout report carries the balance and the phase's
    // arrivals and init count; after it, the balance must settle to 0.
    // CHECK: scf.while
    // CHECK: nvvm.mbarrier.try_wait
    // CHECK: scf.if
    // CHECK: llvm.call @__tile_sanitize_fail
    // CHECK: nvvm.read.ptx.sreg.globaltimer
    // CHECK: arith.constant 50000 : i64
    // CHECK: %[[SETTLED:.*]] = scf.while
    // CHECK: arith.cmpi ne, %[[SETTLED]]
    // CHECK: scf.if
    // CHECK: llvm.call @__tile_sanitize_fail
    // CHECK-NOT: nvgpu.mbarrier.try_wait.parity
    // CHECK: gpu.return
    // CHECK: llvm.mlir.global internal @__tile_sanitize_shadow_commits() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<6 x i32>
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    gpu.return
  }

  // A warpgroup's cooperative copy counts its bytes once (thread 0 of the
  // warpgroup); an `exec warp` commit's arrival once (the elected lane); a
  // remote arrival and a multicast commit on the peers' shadows.
  // CHECK-LABEL: gpu.func @commits
  gpu.func @commits(%in: !g, %peer: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %mask = arith.constant 3 : i16
    %bars = nvgpu.mbarrier.create -> !bars
    %s = tile.alloc_shared : !s
    nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
    // CHECK: gpu.thread_id x
    // CHECK: arith.remui %{{.*}}, %c128
    // CHECK: scf.if
    // CHECK: arith.constant -8192 : i32
    // CHECK: llvm.atomicrmw add
    // CHECK: tile.copy_async
    tile.copy_async %in[0, 0] to %s[0, 0] sizes [64, 64] exec warpgroup
        mbar(%bars[%c0] : !bars) : !g to !s
    // CHECK: %[[ELECTED:.*]] = nvvm.elect.sync -> i1
    // CHECK: scf.if %[[ELECTED]]
    // CHECK: nvvm.mbarrier.test.wait
    // CHECK: tile.mma_commit
    tile.mma_commit mbar(%bars[%c1] : !bars) exec warp
    // CHECK: nvvm.elect.sync
    // CHECK: scf.for
    // CHECK: nvvm.mapa
    // CHECK-NOT: nvvm.mbarrier.test.wait
    // CHECK: tile.mma_commit
    tile.mma_commit mbar(%bars[%c1] : !bars) cta_mask(%mask) exec warp
    // CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr -> !llvm.ptr
    // CHECK: llvm.atomicrmw add
    // CHECK: tile.mbarrier_arrive_remote
    tile.mbarrier_arrive_remote %bars[%c1] : !bars, cta %peer
    gpu.return
  }
}

// A group whose address is taken (nvgpu.mbarrier.get) could be arrived on
// unseen: it gets no shadow counts, only the index and timeout checks.
// CHECK-LABEL: gpu.module @escaping
// CHECK-NOT: __tile_sanitize_shadow
// CHECK: gpu.func @address_taken
// CHECK-SAME: tile.sanitize_checks = [{kind = "mbarrier-wait-timeout"
// CHECK-NOT: mbarrier-tx-balance
// CHECK-NOT: mbarrier-arrival-count
gpu.module @escaping [#nvvm.target<chip = "sm_90a">] {
  gpu.func @address_taken() kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    %address = nvgpu.mbarrier.get %bars[%c0] : !bars -> i64
    %token = nvgpu.mbarrier.arrive %bars[%c0] : !bars -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
    gpu.return
  }
}

// --tile-sanitize: runtime checks where the kernel checks cannot decide.
// Waits become bounded loops; a runtime barrier or stage index gets a range
// check unless integer range analysis proves it in range.
// RUN: tile-opt --tile-sanitize=timeout-ms=250 %s | FileCheck %s
// RUN: tile-opt --tile-sanitize %s | FileCheck %s --check-prefix=DEFAULT

!ring = !tile.buffer<2x64x64xbf16, shared, #tile.layout<S[(2,64,64):(4096,64,1)], swizzle<3,3,3>>>
!tensor = !tile.buffer<?x?xbf16, global>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// The runtime support, once per gpu.module with checks.
// CHECK-LABEL: gpu.module @checked
// CHECK: llvm.mlir.global external @__tile_sanitize_report(0 : i64) {addr_space = 1 : i32, alignment = 8 : i64} : i64
// CHECK: llvm.mlir.global internal @__tile_sanitize_claim(0 : i32) {addr_space = 1 : i32
// CHECK: llvm.func internal @__tile_sanitize_fail(%{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %[[REPORTING:.*]]: i1) attributes {passthrough = ["noinline"]}
// The lanes that failed together enter together; the lowest reporting one
// claims the report for them; the others (and losing groups) park until the
// trap.
// CHECK: %[[ACTIVE:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK: %[[REPORTERS:.*]] = nvvm.vote.sync ballot %[[ACTIVE]], %[[REPORTING]] -> i32
// CHECK: "llvm.intr.cttz"(%[[REPORTERS]])
// CHECK: llvm.cmpxchg
// CHECK: nvvm.shfl.sync idx %[[ACTIVE]]
// CHECK: llvm.mlir.addressof @__tile_sanitize_report
// CHECK: nvvm.memory.barrier <sys>
// CHECK: llvm.store volatile
// CHECK: nvvm.memory.barrier <sys>
// CHECK: nvvm.bar.warp.sync %[[ACTIVE]]
// CHECK: llvm.intr.trap
// CHECK: nvvm.nanosleep

// The checks, in order: the stage's barrier (a kernel argument, so
// unproven) and the arrival's phase at the arrive, the copy's barrier and
// its ring stage, the wait's barrier, its timeout and its byte balance; the
// loop's stage (i mod 2) and the constant indices get no index check.
// CHECK-LABEL: gpu.func @ring
// CHECK-SAME: tile.sanitize_checks = [
// CHECK-SAME: {kind = "mbarrier-index", loc = "{{[^"]*}}sanitize.mlir:{{[0-9]+}}:7", what = "nvgpu.mbarrier.arrive.expect_tx of the mbarrier group (2) at {{[^}]*}}"}
// CHECK-SAME: {kind = "mbarrier-arrival-count", {{[^}]*}} what = "nvgpu.mbarrier.arrive.expect_tx of the mbarrier group (2) at {{[^}]*}}"}
// CHECK-SAME: {kind = "mbarrier-index", {{[^}]*}} what = "tile.copy_async of the mbarrier group (2) at {{[^}]*}}"}
// CHECK-SAME: {kind = "shared-region", {{[^}]*}} what = "tile.copy_async of the shared buffer 2x64x64xbf16 at {{[^}]*}}, dim 0"}
// CHECK-SAME: {kind = "mbarrier-index", {{[^}]*}} what = "nvgpu.mbarrier.try_wait.parity of the mbarrier group (2) at {{[^}]*}}"}
// CHECK-SAME: {kind = "mbarrier-wait-timeout", {{[^}]*}} what = "nvgpu.mbarrier.try_wait.parity of the mbarrier group (2) at {{[^}]*}}"}
// CHECK-SAME: {kind = "mbarrier-tx-balance", {{[^}]*}} what = "nvgpu.mbarrier.try_wait.parity of the mbarrier group (2) at {{[^}]*}}"}
// CHECK-SAME: {kind = "mbarrier-arrival-count", loc = "{{[^"]*}}sanitize.mlir:{{[0-9]+}}:9", what = "{{[^"]*}}"}
// CHECK-SAME: {kind = "mbarrier-wait-timeout", loc = "{{[^"]*}}sanitize.mlir:{{[0-9]+}}:9", what = "{{[^"]*}}"}
// CHECK-SAME: {kind = "mbarrier-tx-balance", loc = "{{[^"]*}}sanitize.mlir:{{[0-9]+}}:9", what = "{{[^"]*}}"}]}
//
// The barrier index check: index > 1 reports (check 0, the index, 2).
// CHECK: tile.fence mbarrier_init
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[OUT:.*]] = arith.cmpi ugt, %[[STAGE:.*]], %[[ONE]] : index
// CHECK: %[[GROUP:.*]] = nvvm.vote.sync any %{{.*}}, %[[OUT]] -> i1
// CHECK: scf.if %[[GROUP]] {
// CHECK: %[[VALUE:.*]] = arith.index_cast %[[STAGE]] : index to i64
// CHECK: %[[SIZE:.*]] = arith.constant 2 : i64
// CHECK: %[[NO_WAIT:.*]] = arith.constant 0 : i32
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: llvm.call @__tile_sanitize_fail(%[[C0]], %[[VALUE]], %[[SIZE]], %[[NO_WAIT]], %{{.*}}, %{{.*}}, %[[OUT]])
// CHECK: nvgpu.mbarrier.arrive.expect_tx
//
// The ring stage: offset > 1 (the last stage) reports.
// CHECK: arith.cmpi ugt, %[[STAGE]], %{{.*}} : index
// CHECK: tile.copy_async
//
// The wait: non-blocking tests until the barrier's phase completes or
// 250 ms of %globaltimer have passed; then check 5 reports the index, the
// parity, the milliseconds, the bytes still expected and the phase's
// arrivals.
// CHECK: %[[BAR:.*]] = nvgpu.mbarrier.get
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[BAR]] : i64 to !llvm.ptr<3>
// CHECK: %[[START:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: %[[LIMIT:.*]] = arith.constant 250000000 : i64
// CHECK: %[[DONE:.*]] = scf.while : () -> i1 {
// CHECK: %[[READY:.*]] = nvvm.mbarrier.try_wait %[[PTR]], %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32 -> i1
// CHECK: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: %[[ELAPSED:.*]] = arith.subi %[[NOW]], %[[START]] : i64
// CHECK: arith.cmpi ult, %[[ELAPSED]], %[[LIMIT]] : i64
// CHECK: scf.condition(%{{.*}}) %[[READY]] : i1
// CHECK: %[[FAILED:.*]] = arith.xori %[[DONE]], %{{.*}} : i1
// CHECK: %[[ANY:.*]] = nvvm.vote.sync any %{{.*}}, %[[FAILED]] -> i1
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[MS:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[STAGE]] : index to i64
// CHECK: %[[PARITY:.*]] = arith.extui %{{.*}} : i1 to i64
// CHECK: %[[BALANCE:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[C5:.*]] = arith.constant 5 : i32
// CHECK: llvm.call @__tile_sanitize_fail(%[[C5]], %[[INDEX]], %[[PARITY]], %[[MS]], %[[BALANCE]], %{{.*}}, %[[FAILED]])
// CHECK-NOT: nvgpu.mbarrier.try_wait.parity
// CHECK: gpu.return
//
// DEFAULT: arith.constant 1000000000 : i64
gpu.module @checked [#nvvm.target<chip = "sm_90a">] {
  gpu.func @ring(%in: memref<?x?xbf16, 1>, %stage: index, %steps: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tensor
    %ring = tile.alloc_shared {alignment = 1024 : i64} : !ring
    %bars = nvgpu.mbarrier.create -> !bars
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bars[%stage], %bytes : !bars
      tile.copy_async %g[0, 0] to %ring[%stage, 0, 0] sizes [64, 64]
          exec thread mbar(%bars[%stage] : !bars) : !tensor to !ring
      nvgpu.mbarrier.try_wait.parity %bars[%stage], %false, %ticks : !bars
      scf.for %i = %c0 to %steps step %c1 {
        %s = arith.remui %i, %c2 : index
        nvgpu.mbarrier.arrive.expect_tx %bars[%s], %bytes : !bars
        tile.copy_async %g[0, 0] to %ring[%s, 0, 0] sizes [64, 64]
            exec thread mbar(%bars[%s] : !bars) : !tensor to !ring
        nvgpu.mbarrier.try_wait.parity %bars[%s], %false, %ticks : !bars
      }
    }
    gpu.return
  }
}

// A module without waits or runtime indices is left alone.
// CHECK-LABEL: gpu.module @unchecked
// CHECK-NOT: __tile_sanitize
// CHECK: gpu.func @constant_indices
// CHECK-NOT: tile.sanitize_checks
gpu.module @unchecked [#nvvm.target<chip = "sm_90a">] {
  gpu.func @constant_indices() kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    gpu.return
  }
}

// A constant index or offset gets a check when range analysis cannot prove
// it in range: nvgpu ops do not bound their barrier index, and the tile
// verifier reads an SSA offset as 0.
// CHECK-LABEL: gpu.module @constant_out_of_range
// CHECK: gpu.func @stage_two_of_two
// CHECK-SAME: tile.sanitize_checks = [{kind = "mbarrier-index", {{[^}]*}}}, {kind = "mbarrier-arrival-count", {{[^}]*}}}, {kind = "shared-region", {{[^}]*}}}]
// CHECK: arith.cmpi ugt, %c2
// CHECK: nvgpu.mbarrier.arrive
// CHECK: arith.cmpi ugt, %c2
// CHECK: tile.copy_async
gpu.module @constant_out_of_range [#nvvm.target<chip = "sm_90a">] {
  gpu.func @stage_two_of_two(%in: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tensor
    %ring = tile.alloc_shared {alignment = 1024 : i64} : !ring
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
    %token = nvgpu.mbarrier.arrive %bars[%c2] : !bars -> !nvgpu.mbarrier.token
    tile.copy_async %g[0, 0] to %ring[%c2, 0, 0] sizes [64, 64]
        exec thread mbar(%bars[%c0] : !bars) : !tensor to !ring
    gpu.return
  }
}

// A one-stage TMA round trip whose barrier protocol the host chooses at
// launch: the device suite compiles it with --sanitize and launches it
// right (the tile arrives) and with each kind of bug sanitize mode reports
// (test/Device/SanitizeTests.cpp). Every value that decides the protocol is
// a kernel argument, so no compile-time check can see the bug.
//
//   ring_stage  which of the 2 ring stages receives the tile (>= 2: out of
//               range)
//   bar_index   which of the 2 barriers the copy completes on (>= 2: out of
//               range)
//   count       the barrier's arrival count (1 is right; 2: an arrival
//               that never comes)
//   extra_bytes added to the expected transaction bytes (0 is right)
//   late_phase  1: wait once more, for a phase nothing completes (a
//               consumer one phase ahead of its producer)
//   extra_arrivals  how many more threads (1, 2, ...) arrive on the
//               barrier before the leader's arrival (0 is right; 31: the
//               rest of a warp arriving where one thread should)
//
// Here, without a GPU: it compiles with --sanitize, ptxas assembles it, and
// the manifest lists every check the device tests expect to fire: the
// index, region and timeout checks, the arrival counts of the extra
// arrivals and of the leader's, and the byte balance of each wait.
// REQUIRES: ptxas
// RUN: tile-compile --sanitize --sanitize-timeout-ms 300 %s -o %t.ptx --cubin %t.cubin --manifest %t.json
// RUN: FileCheck %s < %t.json
// CHECK: "sanitize_checks": [
// CHECK: "kind": "mbarrier-index",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#EXTRA:]]:16",
// CHECK: "kind": "mbarrier-arrival-count",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#EXTRA]]:16",
// CHECK-NEXT: "what": "nvgpu.mbarrier.arrive of the mbarrier group (2)
// CHECK: "kind": "mbarrier-index",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE:]]:7",
// CHECK-NEXT: "what": "nvgpu.mbarrier.arrive.expect_tx of the mbarrier group (2)
// CHECK: "kind": "mbarrier-arrival-count",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE]]:7",
// CHECK: "kind": "mbarrier-index",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE+1]]:7",
// CHECK: "kind": "shared-region",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE+1]]:7",
// CHECK-NEXT: "what": "tile.copy_async of the shared buffer 2x64x64xbf16 at {{.*}}, dim 0"
// CHECK: "kind": "mbarrier-wait-timeout",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE+3]]:7",
// CHECK: "kind": "mbarrier-tx-balance",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE+3]]:7",
// CHECK: "kind": "mbarrier-wait-timeout",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE+6]]:9",
// CHECK: "kind": "mbarrier-tx-balance",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE+6]]:9",
// CHECK: "kind": "shared-region",
// CHECK-NEXT: "loc": "{{.*}}sanitize_protocol.mlir:[[#ARRIVE+8]]:7",

!ring = !tile.buffer<2x64x64xbf16, shared, #tile.layout<S[(2,64,64):(4096,64,1)], swizzle<3,3,3>>>
!tensor = !tile.buffer<?x?xbf16, global>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

gpu.module @sanitize_protocol [#nvvm.target<chip = "sm_90a">] {
  gpu.func @ring_round_trip(%in: memref<?x?xbf16, 1>, %out: memref<?x?xbf16, 1>,
                            %ring_stage: index, %bar_index: index,
                            %count: index, %extra_bytes: index,
                            %late_phase: index, %extra_arrivals: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile_bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %phase1 = arith.constant true
    %g_in = tile.from_memref %in : memref<?x?xbf16, 1> -> !tensor
    %g_out = tile.from_memref %out : memref<?x?xbf16, 1> -> !tensor
    %ring = tile.alloc_shared {alignment = 1024 : i64} : !ring
    %bars = nvgpu.mbarrier.create -> !bars
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %count : !bars
      nvgpu.mbarrier.init %bars[%c1], %count : !bars
      tile.fence mbarrier_init
    }
    gpu.barrier
    %last_extra = arith.addi %extra_arrivals, %c1 : index
    %extra = arith.cmpi ult, %tid, %last_extra : index
    %not_leader = arith.cmpi ne, %tid, %c0 : index
    %arrives = arith.andi %extra, %not_leader : i1
    scf.if %arrives {
      %token = nvgpu.mbarrier.arrive %bars[%bar_index] : !bars -> !nvgpu.mbarrier.token
    }
    scf.if %leader {
      %bytes = arith.addi %tile_bytes, %extra_bytes : index
      nvgpu.mbarrier.arrive.expect_tx %bars[%bar_index], %bytes : !bars
      tile.copy_async %g_in[0, 0] to %ring[%ring_stage, 0, 0] sizes [64, 64]
          exec thread mbar(%bars[%bar_index] : !bars) : !tensor to !ring
      nvgpu.mbarrier.try_wait.parity %bars[%bar_index], %phase0, %ticks : !bars
      %late = arith.cmpi ne, %late_phase, %c0 : index
      scf.if %late {
        nvgpu.mbarrier.try_wait.parity %bars[%bar_index], %phase1, %ticks : !bars
      }
      tile.copy_async %ring[%ring_stage, 0, 0] to %g_out[0, 0] sizes [64, 64]
          exec thread : !ring to !tensor
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

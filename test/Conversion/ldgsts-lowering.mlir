// The ldgsts emitter: each thread of the exec scope takes vectors t, t + T,
// ... of the region, in the widest width the runtime alignment of the
// tensor's base, innermost offset and row strides allows (a trap when
// none does), zero-filling through cp.async's src-size; then it makes the
// op's mbarrier track its copies and completes its bytes. A thread's
// vectors are a loop LLVM must not unroll (unrolled, their addresses are
// invariant in a caller's loop and all hoisted out of it: a GEMM producer
// spilled). Both kernels are compiled to PTX with --check and assembled
// for sm_90a and sm_100a.
// CHECK: #[[ROLLED:.+]] = #llvm.loop_annotation<unroll = #[[NO_UNROLL:.+]]>
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s --chip sm_90a -o %t.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90a.ptx
// RUN: tile-compile --check %s --chip sm_100a -o %t.sm_100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_100a.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!sw128 = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // A 64x64 bf16 tile at runtime offsets of a runtime-sized tensor, shared
  // by a warpgroup: 512 vectors of 16 bytes (4 per thread), else 1024 of 8
  // or 2048 of 4; the sizes and row stride come from the memref.
  // CHECK-LABEL: gpu.func @warpgroup_tile
  // CHECK: memref.extract_strided_metadata %arg0
  // CHECK: %[[ALIGNED16:.+]] = arith.cmpi eq
  // CHECK: scf.if %[[ALIGNED16]] {
  // CHECK: scf.for %{{.+}} = %{{.+}} to %c4_i64 step %{{.+}} : i64 {
  // CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache = cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
  // CHECK-NEXT: } {loop_annotation = #[[ROLLED]]}
  // CHECK: nvvm.cp.async.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
  // CHECK: nvvm.mbarrier.complete_tx %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
  // CHECK: } else {
  // CHECK: scf.for %{{.+}} = %{{.+}} to %c8_i64
  // CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 8, cache = ca, %{{.+}}
  // CHECK-NEXT: } {loop_annotation = #[[ROLLED]]}
  // CHECK: nvvm.cp.async.mbarrier.arrive
  // CHECK: nvvm.mbarrier.complete_tx
  // CHECK: } else {
  // CHECK: scf.for %{{.+}} = %{{.+}} to %c16_i64
  // CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache = ca, %{{.+}}
  // CHECK-NEXT: } {loop_annotation = #[[ROLLED]]}
  // CHECK: nvvm.cp.async.mbarrier.arrive
  // CHECK: nvvm.mbarrier.complete_tx
  // CHECK: } else {
  // CHECK-NEXT: llvm.intr.trap
  // The loop stays a loop in the assembly, one cp.async of each width.
  // PTX-LABEL: .entry warpgroup_tile(
  // PTX-COUNT-1: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
  // PTX-NOT: cp.async.cg.shared.global
  // PTX: cp.async.mbarrier.arrive.shared{{(::cta)?}}.b64
  // PTX: mbarrier.complete_tx
  // PTX: trap;
  gpu.func @warpgroup_tile(%in: memref<?x?xbf16, 1>, %row: index, %col: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %g = tile.from_memref %in : memref<?x?xbf16, 1> -> !tile.buffer<?x?xbf16, global>
    %s = tile.alloc_shared {alignment = 1024 : i64} : !sw128
    %bar = nvgpu.mbarrier.create -> !bars
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bars
      tile.fence mbarrier_init
    }
    gpu.barrier
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bars
    }
    tile.copy_async %g[%row, %col] to %s[0, 0] sizes [64, 64] exec warpgroup
        mbar(%bar[%c0] : !bars) : !tile.buffer<?x?xbf16, global> to !sw128
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bars
    gpu.return
  }

  // Rows of 100 f16 (200 bytes) in a static tensor: no 16-byte vectors;
  // one thread copies 8x64 from column 36 in 128 vectors of 8 bytes, else
  // 256 of 4.
  // CHECK-LABEL: gpu.func @odd_rows
  // CHECK: scf.if
  // CHECK: scf.for %{{.+}} = %{{.+}} to %c128_i64
  // CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 8, cache = ca
  // CHECK: } else {
  // CHECK: scf.for %{{.+}} = %{{.+}} to %c256_i64
  // CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache = ca
  // CHECK-NOT: cp.async.shared.global
  // CHECK: llvm.intr.trap
  gpu.func @odd_rows(%in: memref<8x100xf16, 1>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 1024 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %g = tile.from_memref %in : memref<8x100xf16, 1> -> !tile.buffer<8x100xf16, global>
    %s = tile.alloc_shared : !tile.buffer<8x64xf16, shared>
    %bar = nvgpu.mbarrier.create -> !bars
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bars
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bars
      tile.copy_async %g[0, 36] to %s[0, 0] sizes [8, 64] exec thread
          mbar(%bar[%c0] : !bars) : !tile.buffer<8x100xf16, global> to !tile.buffer<8x64xf16, shared>
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bars
    }
    gpu.return
  }
}

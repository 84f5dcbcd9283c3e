// One stage of a multi-stage buffer: a region of rank r in a buffer of rank
// R > r indexes the buffer's R - r leading dims (size 1). A static index is
// folded into the plan; a runtime index moves the buffer by index x its
// step (shared: bytes, GEP; tensor memory: (lane << 16) | column) and every
// plan is the one for index 0. So a 2-D global region lands in a 3-D shared
// ring, and gemm_async multiplies A[stage] and B[stage].
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s -o %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

// 4 stages of a 128x64 f16 128B-swizzled tile: 16 KiB apart.
!ring = !tile.buffer<4x128x64xf16, shared, #tile.layout<S[(4,128,64):(8192,64,1)], swizzle<3,3,3>>>
// 2 stages of it, small enough for static shared memory.
!ring2 = !tile.buffer<2x128x64xf16, shared, #tile.layout<S[(2,128,64):(8192,64,1)], swizzle<3,3,3>>>
!bring = !tile.buffer<4x128x64xf16, shared, #tile.layout<S[(4,128,64):(8192,64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<2x128x128xf32, tmem, #tile.layout<S[(2,128,128):(128@TCol,1@TLane,1@TCol)]>>
!g2 = !tile.buffer<512x64xf16, global>
!g3 = !tile.buffer<8x128x64xf16, global>
!s2 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64

  // A 2-D global tile into stage %stage of the ring: one TMA issue into the
  // ring moved by %stage x 16384 bytes.
  // CHECK-LABEL: gpu.func @load_into_stage
  // CHECK: %[[I:.+]] = arith.index_cast %{{.+}} : index to i64
  // CHECK: %[[STEP:.+]] = arith.constant 16384 : i64
  // CHECK: %[[BYTES:.+]] = arith.muli %[[I]], %[[STEP]] : i64
  // CHECK: %[[STAGE:.+]] = llvm.getelementptr %{{.+}}[%[[BYTES]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
  // CHECK: llvm.getelementptr %[[STAGE]][0]
  // CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @load_into_stage(%in: memref<512x64xf16, 1>, %row: index, %stage: index) kernel {
    %g = tile.from_memref %in : memref<512x64xf16, 1> -> !g2
    %s = tile.alloc_shared : !ring2
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx0 = arith.constant 16384 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx0 : !llvm.ptr<3>, i32
    tile.copy_async %g[%row, 0] to %s[%stage, 0, 0] sizes [128, 64] exec thread mbar(%b)
        : !g2 to !ring2
    gpu.return
  }

  // A static stage is folded: stage 1 starts 16384 bytes in.
  // CHECK-LABEL: gpu.func @load_into_stage_1
  // CHECK: llvm.getelementptr %{{.+}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  gpu.func @load_into_stage_1(%in: memref<512x64xf16, 1>) kernel {
    %g = tile.from_memref %in : memref<512x64xf16, 1> -> !g2
    %s = tile.alloc_shared : !ring2
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx1 = arith.constant 16384 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx1 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[1, 0, 0] sizes [128, 64] exec thread mbar(%b)
        : !g2 to !ring2
    gpu.return
  }

  // Batch %n of a 3-D global tensor into a 2-D shared tile: the batch is a
  // TMA coordinate (box 1), innermost first.
  // CHECK-LABEL: gpu.func @load_batch
  // CHECK: %[[N:.+]] = arith.index_cast %{{.+}} : index to i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.+}} box[{{.+}}, %[[N]]]
  gpu.func @load_batch(%in: memref<8x128x64xf16, 1>, %n: index) kernel {
    %g = tile.from_memref %in : memref<8x128x64xf16, 1> -> !g3
    %s = tile.alloc_shared : !s2
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx2 = arith.constant 16384 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx2 : !llvm.ptr<3>, i32
    tile.copy_async %g[%n, 0, 0] to %s[0, 0] sizes [128, 64] exec thread mbar(%b)
        : !g3 to !s2
    gpu.return
  }

  // C[acc] += A[stage] @ B[stage]^T: the descriptors start from the stage's
  // address, the accumulator from column 128 x %acc.
  // CHECK-LABEL: gpu.func @mma_on_stage
  // CHECK: %[[COLS:.+]] = arith.constant 128 : i32
  // CHECK: %[[MOVE:.+]] = arith.muli %{{.+}}, %[[COLS]] : i32
  // CHECK: %[[D:.+]] = arith.addi %{{.+}}, %[[MOVE]] : i32
  // CHECK: arith.constant 16384 : i64
  // CHECK: %[[A:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
  // CHECK: arith.constant 16384 : i64
  // CHECK: %[[B:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
  // CHECK: llvm.ptrtoint %[[A]]
  // CHECK: llvm.ptrtoint %[[B]]
  // CHECK: llvm.inttoptr %[[D]]
  // CHECK-COUNT-4: nvvm.tcgen05.mma
  gpu.func @mma_on_stage(%c: !acc, %a: !ring, %b: !bring, %stage: index, %buf: index) {
    tile.gemm_async %c[%buf, 0, 0], %a[%stage, 0, 0], %b[%stage, 0, 0] sizes [128, 128, 64]
        exec thread {transpose_b} : !acc, !ring, !bring
    gpu.return
  }
}

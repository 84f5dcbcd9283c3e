// Static regions past the global tensor's edge. TMA bounds-checks every
// box element against the tensor map's global dims (signed 32-bit
// coordinates): a load fills the elements outside with zero or NaN (the
// op's `oob`), a store or reduction skips them. The map keeps the tensor's
// dims; the box is the region's.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s --chip sm_90a -o %t.sm_90a.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: tile-compile --check %s --chip sm_100a -o %t.sm_100a.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}

!edge = !tile.buffer<64x128xf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
!tile64 = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64

  // 64x128 at (64, 64) of 100x120: rows 100.. and columns 120.. are NaN.
  // Two 64-column boxes; the second starts at column 128, wholly outside.
  // CHECK-LABEL: gpu.func @load_past_the_edge
  // CHECK-SAME: encode = [2, 120, 100, 240, 64, 64, 1, 1, 0, 3, 2, 1]
  // CHECK-SAME: issues = 2>
  // CHECK: %[[C64:.+]] = arith.constant 64 : i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[%[[C64]], %{{.+}}]
  // CHECK: %[[C128:.+]] = arith.constant 128 : i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[%[[C128]], %{{.+}}]
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @load_past_the_edge(%in: memref<100x120xf16, 1>) kernel {
    %g = tile.from_memref %in : memref<100x120xf16, 1> -> !tile.buffer<100x120xf16, global>
    %s = tile.alloc_shared : !edge
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx0 = arith.constant 16384 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx0 : !llvm.ptr<3>, i32
    tile.copy_async %g[64, 64] to %s[0, 0] sizes [64, 128] exec thread mbar(%b)
        {oob = #tile.oob<nan>} : !tile.buffer<100x120xf16, global> to !edge
    gpu.return
  }

  // A store starting before the tensor (signed coordinates) and one wholly
  // past it: the hardware clips both.
  // CHECK-LABEL: gpu.func @stores_clipped
  // CHECK-SAME: encode = [2, 256, 256, 512, 64, 64, 1, 1, 0, 3, 2, 0]
  // CHECK: %[[M64:.+]] = arith.constant -64 : i32
  // CHECK: %[[M16:.+]] = arith.constant -16 : i32
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.+}}, %{{.+}}, box[%[[M64]], %[[M16]]]
  // CHECK: %[[C300:.+]] = arith.constant 300 : i32
  // CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.+}}, %{{.+}}, box[%{{.+}}, %[[C300]]] {redKind = #nvvm.tma_redux_kind<add>}
  gpu.func @stores_clipped(%out: memref<256x256xf16, 1>) kernel {
    %g = tile.from_memref %out : memref<256x256xf16, 1> -> !tile.buffer<256x256xf16, global>
    %s = tile.alloc_shared : !tile64
    tile.copy_async %s[0, 0] to %g[-16, -64] sizes [64, 64] exec thread
        : !tile64 to !tile.buffer<256x256xf16, global>
    tile.copy_async %s[0, 0] to %g[300, 0] sizes [64, 64] exec thread
        {reduce = #tile.reduce<add>} : !tile64 to !tile.buffer<256x256xf16, global>
    gpu.return
  }
}

// PTX-LABEL: .entry load_past_the_edge(
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-LABEL: .entry stores_clipped(
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group

// The manifest's map: the tensor's dims, the region's box, NaN fill.
// MANIFEST: "name": "load_past_the_edge"
// MANIFEST: "encode": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 120,
// MANIFEST-NEXT: 100,
// MANIFEST-NEXT: 240,
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64,

// The tma emitter: a by-value tensor-map kernel parameter per distinct plan
// and one cp.async.bulk.tensor per planned issue. Every kernel is also
// compiled to PTX and assembled by ptxas for sm_90a and sm_100a.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s --chip sm_90a -o %t.sm_90a.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: tile-compile --check %s --chip sm_100a -o %t.sm_100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_100a.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}

!sw128 = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
!tile64 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!padded = !tile.buffer<8x64xf16, shared, #tile.layout<S[(8,64):(128,1)]>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64

  // Load and store of the same tensor with the same plan share one map; the
  // map is appended to the kernel's arguments.
  // CHECK-LABEL: gpu.func @round_trip
  // CHECK-SAME: (%[[IN:.+]]: memref<8x256xf16, 1>, %[[MAP:.+]]: !llvm.ptr {llvm.align = 128 : i64})
  // CHECK-SAME: tile.tensor_maps = [#tile.tensor_map_plan<param = 1, global_arg = 0, data_type = "FLOAT16", encode = [3, 64, 8, 4, 512, 128, 64, 8, 4, 1, 1, 1, 0, 3, 2, 0], dim_sources = [-1, -1, -1], stride_sources = [-1, -1], stride_scales = [1, 1], bytes_per_issue = 4096, issues = 1>]
  // CHECK: %[[BAR:.+]] = llvm.mlir.addressof @bar
  // CHECK: %[[C0:.+]] = arith.constant 0 : i32
  // CHECK: %[[BOX:.+]] = llvm.getelementptr %[[TILE:.+]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[DST:.+]] = llvm.addrspacecast %[[BOX]] : !llvm.ptr<3> to !llvm.ptr<7>
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[MAP]], %[[BAR]], box[%[[C0]], %{{.+}}, %{{.+}}] : !llvm.ptr<7>, !llvm.ptr
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.+}}, box[%{{.+}}, %{{.+}}, %{{.+}}] : !llvm.ptr, <3>
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @round_trip(%in: memref<8x256xf16, 1>) kernel {
    %g = tile.from_memref %in : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %s = tile.alloc_shared : !sw128
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx0 = arith.constant 4096 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx0 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%b)
        : !tile.buffer<8x256xf16, global> to !sw128
    tile.copy_async %s[0, 0] to %g[0, 0] sizes [8, 256] exec thread
        : !sw128 to !tile.buffer<8x256xf16, global>
    gpu.return
  }

  // A tile at SSA offsets of a tensor with runtime sizes: the coordinates are
  // the offsets (column first), the map's dims and row stride are runtime
  // values of the memref; multicast mask and L2 cache hint pass through.
  // CHECK-LABEL: gpu.func @tile_of_dynamic
  // CHECK-SAME: %[[ROW:[^:]+]]: index, %[[COL:[^:]+]]: index, %[[MASK:[^:]+]]: i16, %[[HINT:[^:]+]]: i64, %[[TMAP:[^:]+]]: !llvm.ptr {llvm.align = 128 : i64}
  // CHECK-SAME: encode = [2, -1, -1, -1, 64, 128, 1, 1, 0, 3, 2, 0], dim_sources = [1, 0]
  // CHECK-SAME: stride_sources = [0], stride_scales = [2]
  // CHECK: %[[R:.+]] = arith.index_cast %[[ROW]] : index to i32
  // CHECK: %[[C:.+]] = arith.index_cast %[[COL]] : index to i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[TMAP]], %{{.+}}, box[%[[C]], %[[R]]] multicast_mask = %[[MASK]] l2_cache_hint = %[[HINT]]
  gpu.func @tile_of_dynamic(%in: memref<?x?xf16, 1>, %row: index, %col: index, %mask: i16, %hint: i64) kernel {
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !tile.buffer<?x?xf16, global>
    %s = tile.alloc_shared : !tile64
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx1 = arith.constant 16384 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx1 : !llvm.ptr<3>, i32
    tile.copy_async %g[%row, %col] to %s[0, 0] sizes [128, 64] exec thread
        mbar(%b) cta_mask(%mask) cache_hint(%hint) : !tile.buffer<?x?xf16, global> to !tile64
    gpu.return
  }

  // Padded shared rows: 8 issues, one per row, 256 bytes apart in shared
  // memory; the contiguous global rows merge into one 512-element map dim.
  // CHECK-LABEL: gpu.func @padded_rows
  // CHECK-SAME: encode = [1, 512, 64, 1, 0, 0, 2, 0]
  // CHECK-SAME: issues = 8>
  // CHECK-COUNT-8: nvvm.cp.async.bulk.tensor.global.shared.cta
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @padded_rows(%out: memref<8x64xf16, 1>) kernel {
    %g = tile.from_memref %out : memref<8x64xf16, 1> -> !tile.buffer<8x64xf16, global>
    %s = tile.alloc_shared : !padded
    tile.copy_async %s[0, 0] to %g[0, 0] sizes [8, 64] exec thread
        : !padded to !tile.buffer<8x64xf16, global>
    gpu.return
  }

  // Reductions into global memory.
  // CHECK-LABEL: gpu.func @reduce
  // CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] {redKind = #nvvm.tma_redux_kind<add>}
  // CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] {redKind = #nvvm.tma_redux_kind<max>}
  // CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}] {redKind = #nvvm.tma_redux_kind<xor>}
  gpu.func @reduce(%acc: memref<128x64xf16, 1>, %bits: memref<128x64xi32, 1>) kernel {
    %g = tile.from_memref %acc : memref<128x64xf16, 1> -> !tile.buffer<128x64xf16, global>
    %s = tile.alloc_shared : !tile.buffer<128x64xf16, shared>
    tile.copy_async %s[0, 0] to %g[0, 0] sizes [128, 64] exec thread {reduce = #tile.reduce<add>}
        : !tile.buffer<128x64xf16, shared> to !tile.buffer<128x64xf16, global>
    tile.copy_async %s[0, 0] to %g[0, 0] sizes [128, 64] exec thread {reduce = #tile.reduce<max>}
        : !tile.buffer<128x64xf16, shared> to !tile.buffer<128x64xf16, global>
    %gi = tile.from_memref %bits : memref<128x64xi32, 1> -> !tile.buffer<128x64xi32, global>
    %si = tile.alloc_shared : !tile.buffer<64x64xi32, shared>
    tile.copy_async %si[0, 0] to %gi[0, 0] sizes [64, 64] exec thread {reduce = #tile.reduce<xor>}
        : !tile.buffer<64x64xi32, shared> to !tile.buffer<128x64xi32, global>
    gpu.return
  }

  // A shared tile passed in as a kernel argument: the map parameter is found
  // before the conversion rewrites the signature.
  // CHECK-LABEL: gpu.func @shared_tile_argument
  // CHECK-SAME: (%{{.+}}: memref<8x256xf16, 1>, %[[ARG:.+]]: !llvm.ptr<3>, %{{.+}}: !llvm.ptr<3>, %[[ARGMAP:.+]]: !llvm.ptr {llvm.align = 128 : i64})
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[ARGMAP]]
  gpu.func @shared_tile_argument(%in: memref<8x256xf16, 1>, %s: !sw128, %b: !llvm.ptr<3>) kernel {
    %g = tile.from_memref %in : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %tx2 = arith.constant 4096 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx2 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%b)
        : !tile.buffer<8x256xf16, global> to !sw128
    gpu.return
  }
}

// PTX-LABEL: .entry round_trip(
// PTX: .param .align 128 .b8 round_trip_param_7[128]
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// PTX-LABEL: .entry tile_of_dynamic(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint
// PTX-LABEL: .entry padded_rows(
// PTX-COUNT-8: cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group
// PTX-LABEL: .entry reduce(
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.xor.tile.bulk_group

// The manifest: each map's lowered parameter and the memref it describes.
// MANIFEST: "name": "round_trip"
// MANIFEST: "tensor_maps": [
// MANIFEST: "encode": [
// MANIFEST-NEXT: 3,
// MANIFEST-NEXT: 64,
// MANIFEST: "lowered_global_param": 1,
// MANIFEST-NEXT: "lowered_param": 7,

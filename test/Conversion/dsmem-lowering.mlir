// The dsmem emitter: mapa of the destination tile and the mbarrier, one
// cp.async.bulk.shared::cluster.shared::cta per planned copy, a loop per run
// of equally spaced copies. Every kernel here is also compiled to PTX and
// assembled by ptxas for sm_90a and sm_100a.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s --chip sm_90a -o %t.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90a.ptx
// RUN: tile-compile --check %s --chip sm_100a -o %t.sm_100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_100a.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}

!whole = !tile.buffer<128x64xf16, shared>
!padded_src = !tile.buffer<8x128xf16, shared, #tile.layout<S[(8,128):(256,1)]>>
!padded_dst = !tile.buffer<8x128xf16, shared, #tile.layout<S[(8,128):(512,1)]>>
!sw128 = !tile.buffer<8x64xf16, shared, #tile.layout<S[(8,64):(64,1)], swizzle<3,3,3>>>

// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64

  // One 16384-byte copy for a contiguous tile, at offset 0 of the kernel's
  // dynamic shared segment (16-byte aligned, all bulk copies need: no
  // rounding of the base).
  // CHECK: llvm.mlir.global external @__tile_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  // CHECK-LABEL: gpu.func @whole_tile
  // CHECK-SAME: tile.dispatch = [#tile.dispatch_record<op = "tile.copy_async", variant = "dsmem", loc = "{{.*}}dsmem-lowering.mlir:{{[0-9]+}}:{{[0-9]+}}">]
  // CHECK-SAME: tile.dynamic_shared_alignment = 16 : i64, tile.dynamic_shared_bytes = 16384 : i64
  // CHECK: %[[BASE:.+]] = llvm.mlir.addressof @__tile_dynamic_shared : !llvm.ptr<3>
  // CHECK: %[[BAR:.+]] = llvm.mlir.addressof @bar : !llvm.ptr<3>
  // CHECK: %[[PEER_TILE:.+]] = nvvm.mapa %[[BASE]], %[[PEER:.+]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK: %[[PEER_BAR:.+]] = nvvm.mapa %[[BAR]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK: %[[BAR_BITS:.+]] = llvm.ptrtoint %[[PEER_BAR]] : !llvm.ptr<7> to i32
  // CHECK: %[[BAR_ARG:.+]] = llvm.inttoptr %[[BAR_BITS]] : i32 to !llvm.ptr<3>
  // CHECK: %[[BYTES:.+]] = arith.constant 16384 : i32
  // CHECK: %[[SRC:.+]] = llvm.getelementptr %[[BASE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[DST:.+]] = llvm.getelementptr %[[PEER_TILE]][0] : (!llvm.ptr<7>) -> !llvm.ptr<7>, i8
  // CHECK: nvvm.cp.async.bulk.shared.cluster.shared.cta %[[DST]], %[[SRC]], %[[BAR_ARG]], %[[BYTES]]
  // CHECK-NOT: nvvm.cp.async.bulk
  // CHECK: gpu.return
  gpu.func @whole_tile(%peer: i32) kernel {
    %t = tile.alloc_shared {alignment = 16 : i64} : !whole
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx0 = arith.constant 16384 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx0 : !llvm.ptr<3>, i32
    tile.copy_async %t[0, 0] to %t[0, 0] sizes [128, 64] exec thread
        mbar(%b) remote_cta(%peer) : !whole to !whole
    gpu.return
  }

  // Rows padded differently on each side: 8 copies of 256 bytes as one loop
  // (source row stride 512 bytes, destination 1024). The source spans 3840
  // bytes, so the destination starts there.
  // CHECK-LABEL: gpu.func @padded_rows
  // CHECK-SAME: tile.dynamic_shared_bytes = 11264 : i64
  // CHECK: %[[SRC_BASE:.+]] = llvm.mlir.addressof @__tile_dynamic_shared
  // CHECK: %[[SEGMENT:.+]] = llvm.mlir.addressof @__tile_dynamic_shared
  // CHECK: %[[DST_BASE:.+]] = llvm.getelementptr %[[SEGMENT]][3840] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[PEER_DST:.+]] = nvvm.mapa %[[DST_BASE]]
  // CHECK: %[[ROW_BYTES:.+]] = arith.constant 256 : i32
  // CHECK: %[[LB:.+]] = arith.constant 0 : i32
  // CHECK: %[[UB:.+]] = arith.constant 8 : i32
  // CHECK: scf.for %[[I:.+]] = %[[LB]] to %[[UB]] step %{{.+}} : i32 {
  // CHECK:   %[[SRC_STRIDE:.+]] = arith.constant 512 : i32
  // CHECK:   %[[SRC_OFF:.+]] = arith.muli %[[I]], %[[SRC_STRIDE]] : i32
  // CHECK:   %[[DST_STRIDE:.+]] = arith.constant 1024 : i32
  // CHECK:   %[[DST_OFF:.+]] = arith.muli %[[I]], %[[DST_STRIDE]] : i32
  // CHECK:   %[[S:.+]] = llvm.getelementptr %[[SRC_BASE]][%[[SRC_OFF]]]
  // CHECK:   %[[D:.+]] = llvm.getelementptr %[[PEER_DST]][%[[DST_OFF]]]
  // CHECK:   nvvm.cp.async.bulk.shared.cluster.shared.cta %[[D]], %[[S]], %{{.+}}, %[[ROW_BYTES]]
  // CHECK: }
  // CHECK-NOT: nvvm.cp.async.bulk
  // CHECK: gpu.return
  gpu.func @padded_rows(%peer: i32) kernel {
    %s = tile.alloc_shared {alignment = 16 : i64} : !padded_src
    %d = tile.alloc_shared {alignment = 16 : i64} : !padded_dst
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx1 = arith.constant 2048 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx1 : !llvm.ptr<3>, i32
    tile.copy_async %s[0, 0] to %d[0, 0] sizes [8, 128] exec thread
        mbar(%b) remote_cta(%peer) : !padded_src to !padded_dst
    gpu.return
  }

  // A sub-region: rows 2..5 of the contiguous tile land at rows 0..3 of the
  // peer's tile; one copy of 4 rows x 128 bytes from byte 256 to byte 0.
  // CHECK-LABEL: gpu.func @sub_region
  // CHECK: %[[N:.+]] = arith.constant 512 : i32
  // CHECK: llvm.getelementptr %{{.+}}[256] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: llvm.getelementptr %{{.+}}[0] : (!llvm.ptr<7>) -> !llvm.ptr<7>, i8
  // CHECK: nvvm.cp.async.bulk.shared.cluster.shared.cta %{{.+}}, %{{.+}}, %{{.+}}, %[[N]]
  // CHECK-NOT: nvvm.cp.async.bulk
  gpu.func @sub_region(%peer: i32) kernel {
    %t = tile.alloc_shared {alignment = 16 : i64} : !whole
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx2 = arith.constant 512 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx2 : !llvm.ptr<3>, i32
    tile.copy_async %t[2, 0] to %t[0, 0] sizes [4, 64] exec thread
        mbar(%b) remote_cta(%peer) : !whole to !whole
    gpu.return
  }

  // Identically swizzled tiles copy as raw bytes; the 128B-swizzled
  // allocation gets its 1024-byte alignment: the segment's base is rounded
  // up to 1024 at run time (1008 bytes reserved for it).
  // CHECK-LABEL: gpu.func @swizzled
  // CHECK-SAME: tile.dynamic_shared_alignment = 1024 : i64, tile.dynamic_shared_bytes = 2032 : i64
  // CHECK: %[[SEG:.+]] = llvm.mlir.addressof @__tile_dynamic_shared : !llvm.ptr<3>
  // CHECK: %[[SEG_BITS:.+]] = llvm.ptrtoint %[[SEG]] : !llvm.ptr<3> to i32
  // CHECK: %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: %[[MASK:.+]] = llvm.mlir.constant(1023 : i32) : i32
  // CHECK: %[[NEG:.+]] = llvm.sub %[[ZERO]], %[[SEG_BITS]] : i32
  // CHECK: %[[PAD:.+]] = llvm.and %[[NEG]], %[[MASK]] : i32
  // CHECK: %[[ALIGNED:.+]] = llvm.getelementptr %[[SEG]][%[[PAD]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.mapa %[[ALIGNED]]
  // CHECK: %[[SW_BYTES:.+]] = arith.constant 1024 : i32
  // CHECK: nvvm.cp.async.bulk.shared.cluster.shared.cta %{{.+}}, %{{.+}}, %{{.+}}, %[[SW_BYTES]]
  // CHECK-NOT: nvvm.cp.async.bulk
  gpu.func @swizzled(%peer: i32) kernel {
    %t = tile.alloc_shared : !sw128
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx3 = arith.constant 1024 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx3 : !llvm.ptr<3>, i32
    tile.copy_async %t[0, 0] to %t[0, 0] sizes [8, 64] exec thread
        mbar(%b) remote_cta(%peer) : !sw128 to !sw128
    gpu.return
  }
}

// PTX: .extern .shared .align 16 .b8 __tile_dynamic_shared[];
// PTX-LABEL: .entry whole_tile
// PTX: mapa.shared::cluster
// PTX: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
// PTX-LABEL: .entry padded_rows
// PTX: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
// PTX-LABEL: .entry sub_region
// PTX: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
// PTX-LABEL: .entry swizzled
// PTX: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes

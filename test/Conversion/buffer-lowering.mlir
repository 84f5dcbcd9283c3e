// Buffer ops lower to addresses: global -> !llvm.ptr<1> of element 0
// (aligned pointer + offset * element bytes), shared -> its offset in the
// kernel's dynamic shared segment, or outside a kernel an internal
// addrspace-3 global with the op's alignment, tmem -> the i32 address.
// RUN: tile-opt %s --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-opt %s --tile-assign-shared-offsets --tile-lower-variants=check=1 --canonicalize | FileCheck %s --check-prefix=FOLDED

// CHECK: llvm.mlir.global internal @[[SMEM:__tile_shared_0]]() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[M:.+]]: memref<64x64xf16, strided<[64, 1], offset: 128>, 1>, %[[TADDR:.+]]: i32)
// CHECK: %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[M]]
// CHECK: %{{.+}}, %[[OFFSET:.+]], %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[M]]
// CHECK: %[[TWO:.+]] = arith.constant 2 : index
// CHECK: %[[OFFSET_BYTES:.+]] = arith.muli %[[OFFSET]], %[[TWO]] : index
// CHECK: %[[ADDR:.+]] = arith.addi %[[PTR]], %[[OFFSET_BYTES]] : index
// CHECK: %[[ADDR64:.+]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK: %[[GLOBAL:.+]] = llvm.inttoptr %[[ADDR64]] : i64 to !llvm.ptr<1>
// CHECK: %[[SHARED:.+]] = llvm.mlir.addressof @[[SMEM]] : !llvm.ptr<3>
// CHECK: return %[[GLOBAL]], %[[SHARED]], %[[TADDR]]
// FOLDED: %[[BYTES:.+]] = arith.constant 256 : index
// FOLDED: %[[P:.+]] = memref.extract_aligned_pointer_as_index
// FOLDED: arith.addi %[[P]], %[[BYTES]] : index
func.func @views(%m: memref<64x64xf16, strided<[64, 1], offset: 128>, 1>, %taddr: i32) -> (!llvm.ptr<1>, !llvm.ptr<3>, i32) {
  %g = tile.from_memref %m : memref<64x64xf16, strided<[64, 1], offset: 128>, 1> -> !tile.buffer<64x64xf16, global>
  %gp = tile.base_address %g : !tile.buffer<64x64xf16, global> -> !llvm.ptr<1>
  %s = tile.alloc_shared {alignment = 128 : i64} : !tile.buffer<16x16xf32, shared>
  %sp = tile.base_address %s : !tile.buffer<16x16xf32, shared> -> !llvm.ptr<3>
  %t = tile.tmem_buffer %taddr : !tile.buffer<128x32xf32, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>>
  %tp = tile.base_address %t : !tile.buffer<128x32xf32, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>> -> i32
  return %gp, %sp, %tp : !llvm.ptr<1>, !llvm.ptr<3>, i32
}

// Sub-byte elements: the offset is counted in bits, then bytes.
// CHECK-LABEL: func.func @fp4_view
// CHECK: %[[BITS:.+]] = arith.constant 4 : index
// CHECK: %[[OFF_BITS:.+]] = arith.muli %{{.+}}, %[[BITS]] : index
// CHECK: %[[EIGHT:.+]] = arith.constant 8 : index
// CHECK: arith.divui %[[OFF_BITS]], %[[EIGHT]] : index
func.func @fp4_view(%m: memref<128xf4E2M1FN, 1>) -> !llvm.ptr<1> {
  %g = tile.from_memref %m : memref<128xf4E2M1FN, 1> -> !tile.buffer<128xf4E2M1FN, global>
  %p = tile.base_address %g : !tile.buffer<128xf4E2M1FN, global> -> !llvm.ptr<1>
  return %p : !llvm.ptr<1>
}

// A kernel's allocations live in its dynamic shared segment, one after
// the other (the second 128 bytes in), addressed from one extern array;
// 16-byte alignment (asked for) needs no rounding of the segment's base.
// CHECK-LABEL: gpu.module @two
// CHECK: llvm.mlir.global external @__tile_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NOT: llvm.mlir.global
// CHECK: gpu.func @k() kernel attributes {tile.dynamic_shared_alignment = 16 : i64, tile.dynamic_shared_bytes = 256 : i64
// CHECK: %[[A:.+]] = llvm.mlir.addressof @__tile_dynamic_shared : !llvm.ptr<3>
// CHECK: %[[SEGMENT:.+]] = llvm.mlir.addressof @__tile_dynamic_shared : !llvm.ptr<3>
// CHECK: %[[B:.+]] = llvm.getelementptr %[[SEGMENT]][128] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.+}}, %[[A]]
// CHECK: llvm.store %{{.+}}, %[[B]]
gpu.module @two {
  gpu.func @k() kernel {
    %a = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<64xf16, shared>
    %b = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<64xf16, shared>
    %pa = tile.base_address %a : !tile.buffer<64xf16, shared> -> !llvm.ptr<3>
    %pb = tile.base_address %b : !tile.buffer<64xf16, shared> -> !llvm.ptr<3>
    %z = llvm.mlir.constant(0 : i32) : i32
    llvm.store %z, %pa : i32, !llvm.ptr<3>
    llvm.store %z, %pb : i32, !llvm.ptr<3>
    gpu.return
  }
}

// With an explicit layout the memref offset is part of the layout (128@m),
// so the address is the aligned pointer itself.
// CHECK-LABEL: func.func @explicit_layout
// CHECK: %[[P:.+]] = memref.extract_aligned_pointer_as_index
// CHECK-NOT: memref.extract_strided_metadata
// CHECK: %[[P64:.+]] = arith.index_castui %[[P]] : index to i64
// CHECK: llvm.inttoptr %[[P64]] : i64 to !llvm.ptr<1>
func.func @explicit_layout(%m: memref<64x64xf16, strided<[64, 1], offset: 128>, 1>) -> !llvm.ptr<1> {
  %g = tile.from_memref %m : memref<64x64xf16, strided<[64, 1], offset: 128>, 1> -> !tile.buffer<64x64xf16, global, #tile.layout<S[(64,64):(64,1)] + 128@m>>
  %p = tile.base_address %g : !tile.buffer<64x64xf16, global, #tile.layout<S[(64,64):(64,1)] + 128@m>> -> !llvm.ptr<1>
  return %p : !llvm.ptr<1>
}

// Buffers crossing functions and structured control flow are carried as
// their lowered values.
// CHECK-LABEL: func.func @pick
// CHECK-SAME: (%[[B:.+]]: !llvm.ptr<3>) -> !llvm.ptr<3>
// CHECK: return %[[B]] : !llvm.ptr<3>
func.func @pick(%b: !tile.buffer<64xf16, shared>) -> !tile.buffer<64xf16, shared> {
  return %b : !tile.buffer<64xf16, shared>
}
// CHECK-LABEL: func.func @structured
// CHECK: %[[X:.+]] = scf.if %{{.+}} -> (!llvm.ptr<3>)
// CHECK: %[[Y:.+]] = call @pick(%[[X]]) : (!llvm.ptr<3>) -> !llvm.ptr<3>
// CHECK: return %[[Y]] : !llvm.ptr<3>
func.func @structured(%c: i1) -> !llvm.ptr<3> {
  %a = tile.alloc_shared : !tile.buffer<64xf16, shared>
  %b = tile.alloc_shared : !tile.buffer<64xf16, shared>
  %x = scf.if %c -> !tile.buffer<64xf16, shared> {
    scf.yield %a : !tile.buffer<64xf16, shared>
  } else {
    scf.yield %b : !tile.buffer<64xf16, shared>
  }
  %y = func.call @pick(%x) : (!tile.buffer<64xf16, shared>) -> !tile.buffer<64xf16, shared>
  %p = tile.base_address %y : !tile.buffer<64xf16, shared> -> !llvm.ptr<3>
  return %p : !llvm.ptr<3>
}

// --tile-assign-shared-offsets lays each kernel's buffers out in its dynamic
// shared segment, in IR order, each at the first multiple of its alignment;
// the kernel records the segment's bytes (plus alignment - 16 to round the
// driver's 16-byte aligned base up) and its alignment. The lowering
// addresses each buffer from the rounded base; the PTX assembles for sm_90a
// and sm_100a and the manifest asks for the segment.
// RUN: tile-opt %s --tile-assign-shared-offsets | FileCheck %s --check-prefix=PLACED
// RUN: tile-opt %s --tile-assign-shared-offsets --tile-lower-variants | FileCheck %s --check-prefix=LOWERED
// RUN: tile-compile %s --chip sm_90a -o %t.sm_90a.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: tile-compile %s --chip sm_100a -o %t.sm_100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_100a.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}

!small = !tile.buffer<25xf32, shared>
!sw128 = !tile.buffer<8x64xf16, shared, #tile.layout<S[(8,64):(64,1)], swizzle<3,3,3>>>
!sw64 = !tile.buffer<8x32xf16, shared, #tile.layout<S[(8,32):(32,1)], swizzle<2,3,3>>>
!tail = !tile.buffer<3xf32, shared>
!ring = !tile.buffer<4x128x128xf16, shared, #tile.layout<S[(4,128,2,64):(16384,64,8192,1)], swizzle<3,3,3>>>

gpu.module @kernels {
  // A 100-byte 16-aligned buffer at 0, the 128B-swizzled one (1024-aligned)
  // at 1024, a 64B-swizzled one (512-aligned) at 2048, 12 bytes at 2560:
  // 2572 bytes + 1008 of rounding.
  // PLACED-LABEL: gpu.func @mixed(%{{.+}}: i32) kernel attributes {tile.dynamic_shared_alignment = 1024 : i64, tile.dynamic_shared_bytes = 3580 : i64}
  // PLACED: tile.alloc_shared {alignment = 16 : i64, offset = 0 : i64} : !tile.buffer<25xf32, shared>
  // PLACED: tile.alloc_shared {offset = 1024 : i64} : !tile.buffer<8x64xf16
  // PLACED: tile.alloc_shared {offset = 2048 : i64} : !tile.buffer<8x32xf16
  // PLACED: tile.alloc_shared {alignment = 16 : i64, offset = 2560 : i64} : !tile.buffer<3xf32, shared>
  // LOWERED-LABEL: gpu.func @mixed
  // LOWERED: %[[SEG:.+]] = llvm.mlir.addressof @__tile_dynamic_shared : !llvm.ptr<3>
  // LOWERED: %[[BITS:.+]] = llvm.ptrtoint %[[SEG]] : !llvm.ptr<3> to i32
  // LOWERED: %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
  // LOWERED: %[[MASK:.+]] = llvm.mlir.constant(1023 : i32) : i32
  // LOWERED: %[[NEG:.+]] = llvm.sub %[[ZERO]], %[[BITS]] : i32
  // LOWERED: %[[PAD:.+]] = llvm.and %[[NEG]], %[[MASK]] : i32
  // LOWERED: %[[SMALL:.+]] = llvm.getelementptr %[[SEG]][%[[PAD]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // LOWERED: %[[BASE1:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // LOWERED: %[[SW128:.+]] = llvm.getelementptr %[[BASE1]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // LOWERED: %[[BASE2:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // LOWERED: %[[SW64:.+]] = llvm.getelementptr %[[BASE2]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // LOWERED: %[[BASE3:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // LOWERED: %[[TAIL:.+]] = llvm.getelementptr %[[BASE3]][2560] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // LOWERED: llvm.store %{{.+}}, %[[SMALL]]
  // LOWERED: llvm.store %{{.+}}, %[[SW128]]
  // LOWERED: llvm.store %{{.+}}, %[[SW64]]
  // LOWERED: llvm.store %{{.+}}, %[[TAIL]]
  gpu.func @mixed(%v: i32) kernel {
    %a = tile.alloc_shared {alignment = 16 : i64} : !small
    %b = tile.alloc_shared : !sw128
    %c = tile.alloc_shared : !sw64
    %d = tile.alloc_shared {alignment = 16 : i64} : !tail
    %pa = tile.base_address %a : !small -> !llvm.ptr<3>
    %pb = tile.base_address %b : !sw128 -> !llvm.ptr<3>
    %pc = tile.base_address %c : !sw64 -> !llvm.ptr<3>
    %pd = tile.base_address %d : !tail -> !llvm.ptr<3>
    llvm.store %v, %pa : i32, !llvm.ptr<3>
    llvm.store %v, %pb : i32, !llvm.ptr<3>
    llvm.store %v, %pc : i32, !llvm.ptr<3>
    llvm.store %v, %pd : i32, !llvm.ptr<3>
    gpu.return
  }

  // An explicit alignment is honoured: 128 after a 100-byte buffer; 1152
  // bytes + 112 to round the base up to 128.
  // PLACED-LABEL: gpu.func @explicit_alignment(%{{.+}}: i32) kernel attributes {tile.dynamic_shared_alignment = 128 : i64, tile.dynamic_shared_bytes = 1264 : i64}
  // PLACED: tile.alloc_shared {alignment = 16 : i64, offset = 0 : i64} : !tile.buffer<25xf32, shared>
  // PLACED: tile.alloc_shared {alignment = 128 : i64, offset = 128 : i64} : !tile.buffer<16x16xf32, shared>
  gpu.func @explicit_alignment(%v: i32) kernel {
    %a = tile.alloc_shared {alignment = 16 : i64} : !small
    %b = tile.alloc_shared {alignment = 128 : i64} : !tile.buffer<16x16xf32, shared>
    %pa = tile.base_address %a : !small -> !llvm.ptr<3>
    %pb = tile.base_address %b : !tile.buffer<16x16xf32, shared> -> !llvm.ptr<3>
    llvm.store %v, %pa : i32, !llvm.ptr<3>
    llvm.store %v, %pb : i32, !llvm.ptr<3>
    gpu.return
  }

  // Beyond the 48 KiB of static shared memory: a 4-stage ring of 32 KiB
  // 128B-swizzled tiles (131072 bytes) after a 16-byte aligned 8-byte
  // buffer lands at 1024. The stage index steps 32768 bytes from there.
  // PLACED-LABEL: gpu.func @ring(%{{.+}}: i32, %{{.+}}: index) kernel attributes {tile.dynamic_shared_alignment = 1024 : i64, tile.dynamic_shared_bytes = 133104 : i64}
  // PLACED: tile.alloc_shared {offset = 0 : i64} : !tile.buffer<2xi32, shared>
  // PLACED: tile.alloc_shared {offset = 1024 : i64} : !tile.buffer<4x128x128xf16
  // LOWERED-LABEL: gpu.func @ring
  // LOWERED: %[[RING:.+]] = llvm.getelementptr %{{.+}}[1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // LOWERED: %[[STAGE:.+]] = llvm.getelementptr %[[RING]][%{{.+}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
  // LOWERED: llvm.store %{{.+}}, %[[STAGE]]
  gpu.func @ring(%v: i32, %stage: index) kernel {
    %flag = tile.alloc_shared : !tile.buffer<2xi32, shared>
    %ring = tile.alloc_shared : !ring
    %pf = tile.base_address %flag : !tile.buffer<2xi32, shared> -> !llvm.ptr<3>
    %pr = tile.base_address %ring : !ring -> !llvm.ptr<3>
    %step = arith.constant 32768 : index
    %bytes = arith.muli %stage, %step : index
    %bytes64 = arith.index_cast %bytes : index to i64
    %ps = llvm.getelementptr %pr[%bytes64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
    llvm.store %v, %pf : i32, !llvm.ptr<3>
    llvm.store %v, %ps : i32, !llvm.ptr<3>
    gpu.return
  }

  // A device function's buffer has no kernel segment: a static global.
  // PLACED-LABEL: gpu.func @device_function
  // PLACED-NOT: tile.dynamic_shared
  // PLACED: tile.alloc_shared : !tile.buffer<25xf32, shared>
  // LOWERED: llvm.mlir.global internal @__tile_shared_0() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<100 x i8>
  // LOWERED-LABEL: gpu.func @device_function
  // LOWERED: llvm.mlir.addressof @__tile_shared_0 : !llvm.ptr<3>
  gpu.func @device_function(%v: i32) {
    %a = tile.alloc_shared : !small
    %pa = tile.base_address %a : !small -> !llvm.ptr<3>
    llvm.store %v, %pa : i32, !llvm.ptr<3>
    gpu.return
  }
}

// One extern segment for all kernels, declared 16-byte aligned (a larger
// declared alignment would let LLVM drop the run-time rounding).
// PTX: .extern .shared .align 16 .b8 __tile_dynamic_shared[];
// PTX-LABEL: .entry mixed(
// PTX: mov.b64 [[SEG:%rd[0-9]+]], __tile_dynamic_shared;
// PTX: cvt.u32.u64 [[BITS:%r[0-9]+]], [[SEG]];
// PTX: neg.s32 [[NEG:%r[0-9]+]], [[BITS]];
// PTX: and.b32 {{%r[0-9]+}}, [[NEG]], 1008;
// PTX-LABEL: .entry ring(

// MANIFEST: "dynamic_shared_bytes": 3580,
// MANIFEST: "name": "mixed",
// MANIFEST: "static_shared_bytes": 0,
// MANIFEST: "dynamic_shared_bytes": 1264,
// MANIFEST: "name": "explicit_alignment",
// MANIFEST: "static_shared_bytes": 0,
// MANIFEST: "dynamic_shared_bytes": 133104,
// MANIFEST: "name": "ring",
// MANIFEST: "static_shared_bytes": 0,

// tile.load: from shared memory each thread reads its elements at its base
// plus constants (runs of consecutive registers as one vector load, through
// the source's swizzle); from tensor memory one tcgen05.ld 32x32b per warp
// at lane 32 * (warp % 4), then tcgen05.wait::ld.
// RUN: tile-opt %s --tile-select-variants --tile-lower-variants=check=1 | FileCheck %s

// The m16n8 fragment: thread t = 4q + r of a warp holds row q + 8h,
// columns 2r + e in register 2h + e; from a 128-byte aligned 16 x 32 f32
// tile at [0, 8]: two 8-byte loads, at 8 + 2r + 32q and 8 + 8 * 32 + ...
!frag = !tile.buffer<16x8xf32, local, #tile.layout<S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>>

// CHECK-LABEL: func.func @shared_to_registers
// CHECK: %[[TILE:.+]] = llvm.alloca %{{.+}} x !llvm.array<4 x f32>
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.mlir.constant(8 : i64) : i64
// CHECK: %[[V0:.+]] = llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: llvm.extractelement %[[V0]]
// CHECK: llvm.getelementptr %[[TILE]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// CHECK: llvm.extractelement %[[V0]]
// CHECK: llvm.getelementptr %[[TILE]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// Register 2 is row 8: 8 * 32 + 8.
// CHECK: llvm.mlir.constant(264 : i64) : i64
// CHECK: llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK-NOT: llvm.load %{{.+}} : !llvm.ptr<3>
func.func @shared_to_registers() {
  %s = tile.alloc_shared : !tile.buffer<16x32xf32, shared>
  %a = tile.alloc_local : !frag
  tile.load %s[0, 8] to %a : !tile.buffer<16x32xf32, shared> to !frag
  return
}

// A global f16 source converted to f32 registers: element-wide loads (the
// base of a memref is only known element-aligned) and fpext.
// CHECK-LABEL: func.func @global_convert
// CHECK: llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr<1> -> f16
// CHECK: llvm.fpext %{{.+}} : f16 to f32
// CHECK-COUNT-3: llvm.fpext
func.func @global_convert(%in: memref<16x8xf16, 1>) {
  %g = tile.from_memref %in : memref<16x8xf16, 1> -> !tile.buffer<16x8xf16, global>
  %a = tile.alloc_local : !frag
  tile.load %g[0, 0] to %a : !tile.buffer<16x8xf16, global> to !frag
  return
}

// An fp8 register tile (the wgmma A fragment of 64 x 32 e4m3) from a
// 16-byte aligned shared tile: LLVM has no fp8 type, so the registers are
// i8; each thread's four consecutive columns are one 4-byte load.
!fa = !tile.buffer<64x32xf8E4M3FN, local, #tile.layout<S[(4,2,8,2,4,4):(32@tid_in_wg,4,4@tid_in_wg,8,1@tid_in_wg,1)]>>
// CHECK-LABEL: func.func @shared_to_fp8_registers
// CHECK: %[[F8:.+]] = llvm.alloca %{{.+}} x !llvm.array<16 x i8>
// CHECK: %[[V:.+]] = llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<4xi8>
// CHECK: llvm.extractelement %[[V]]
// CHECK: llvm.store %{{.+}}, %{{.+}} : i8, !llvm.ptr
// CHECK-COUNT-3: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<4xi8>
// CHECK-NOT: llvm.load %{{.+}} : !llvm.ptr<3>
func.func @shared_to_fp8_registers() {
  %s = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<64x32xf8E4M3FN, shared>
  %a = tile.alloc_local : !fa
  tile.load %s[0, 0] to %a : !tile.buffer<64x32xf8E4M3FN, shared> to !fa
  return
}

// Columns 64..127 of the second of two 128 x 256 accumulators (256
// columns apart): the runtime index adds 256 columns, the warp's lane
// quarter (tid / 32) % 4 goes to bits 21.. ((lane << 16), lane = 32 *
// quarter), the static column 64 is added, and one 64-column load fills
// registers 0..63.
!accs = !tile.buffer<2x128x256xf32, tmem, #tile.layout<S[(2,128,256):(256@TCol,1@TLane,1@TCol)]>>
!rows = !tile.buffer<128x64xf32, local, #tile.layout<S[(128,64):(1@tid_in_wg,1)]>>
// CHECK-LABEL: func.func @tmem_to_registers
// CHECK-SAME: %[[TADDR:[a-z0-9]+]]: i32, %[[WHICH:[a-z0-9]+]]: index
// CHECK: %[[I:.+]] = arith.index_cast %[[WHICH]] : index to i32
// CHECK: %[[C256:.+]] = arith.constant 256 : i32
// CHECK: %[[STEP:.+]] = arith.muli %[[I]], %[[C256]] : i32
// CHECK: %[[BASE:.+]] = arith.addi %[[TADDR]], %[[STEP]] : i32
// CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C5:.+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK: %[[W:.+]] = llvm.lshr %[[TID]], %[[C5]] : i32
// CHECK: %[[C3:.+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[Q:.+]] = llvm.and %[[W]], %[[C3]] : i32
// CHECK: %[[C21:.+]] = llvm.mlir.constant(21 : i32) : i32
// CHECK: %[[LANE:.+]] = llvm.shl %[[Q]], %[[C21]] : i32
// CHECK: %[[ROW:.+]] = llvm.add %[[BASE]], %[[LANE]] : i32
// CHECK: %[[C64:.+]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: %[[ADDR:.+]] = llvm.add %[[ROW]], %[[C64]] : i32
// CHECK: %[[PTR:.+]] = llvm.inttoptr %[[ADDR]] : i32 to !llvm.ptr<6>
// CHECK: %[[CELLS:.+]] = nvvm.tcgen05.ld %[[PTR]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK: llvm.extractelement %[[CELLS]]
// CHECK: llvm.bitcast %{{.+}} : i32 to f32
// CHECK-COUNT-63: llvm.bitcast %{{.+}} : i32 to f32
// CHECK-NOT: nvvm.tcgen05.ld
func.func @tmem_to_registers(%taddr: i32, %which: index) {
  %acc = tile.tmem_buffer %taddr : !accs
  %r = tile.alloc_local : !rows
  tile.load %acc[%which, 0, 64] to %r : !accs to !rows
  return
}

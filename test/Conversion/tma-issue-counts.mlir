// How many cp.async.bulk.tensor a tile of swizzle atoms takes: one. The
// atoms of a row become a tensor-map dim of their own (box [atom, rows,
// atoms]), also for a tensor whose 1000 columns end inside an atom: the
// atom dim views the 15 whole atoms, which is all these regions touch.
// Measured before that split: 8, 4, 1, 16, 32, 56 and 1 issues. Atoms
// tiled twice take a map dim spanning two modes (atom_blocks).
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s --chip sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

!b128_32x512 = !tile.buffer<32x512xf16, shared, #tile.layout<S[(32,8,64):(64,2048,1)], swizzle<3,3,3>>>
!b128_64x256 = !tile.buffer<64x256xf16, shared, #tile.layout<S[(64,4,64):(64,4096,1)], swizzle<3,3,3>>>
!b128_128x64 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!b64_32x512 = !tile.buffer<32x512xf16, shared, #tile.layout<S[(32,16,32):(32,1024,1)], swizzle<2,3,3>>>
!b32_32x512 = !tile.buffer<32x512xf16, shared, #tile.layout<S[(32,32,16):(16,512,1)], swizzle<1,3,3>>>
!b128_7x32x512 = !tile.buffer<7x32x512xf16, shared, #tile.layout<S[(7,32,8,64):(16384,64,2048,1)], swizzle<3,3,3>>>
!plain_32x512 = !tile.buffer<32x512xf16, shared>
// 16x256 blocks of 8x64 atoms, the blocks 2x2: six modes that do not fuse.
!blocks_32x512 = !tile.buffer<32x512xf16, shared, #tile.layout<S[(2,2,8,2,4,64):(8192,2048,64,4096,512,1)], swizzle<3,3,3>>>
!blocks_7x32x512 = !tile.buffer<7x32x512xf16, shared, #tile.layout<S[(7,2,2,8,2,4,64):(16384,8192,2048,64,4096,512,1)], swizzle<3,3,3>>>
!g = !tile.buffer<1000x1000xf16, global>
!g3 = !tile.buffer<7x1000x1000xf16, global>

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64

  // CHECK-LABEL: gpu.func @b128_32x512
  // CHECK-SAME: encode = [3, 64, 1000, 15, 2000, 128, 64, 32, 8, 1, 1, 1, 0, 3, 2, 0]
  // CHECK-SAME: issues = 1>
  // CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @b128_32x512(%in: memref<1000x1000xf16, 1>) kernel {
    %g = tile.from_memref %in : memref<1000x1000xf16, 1> -> !g
    %s = tile.alloc_shared : !b128_32x512
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx0 = arith.constant 32768 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx0 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [32, 512] exec thread mbar(%b) : !g to !b128_32x512
    gpu.return
  }

  // CHECK-LABEL: gpu.func @b128_64x256
  // CHECK-SAME: issues = 1>
  // CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @b128_64x256(%in: memref<1000x1000xf16, 1>) kernel {
    %g = tile.from_memref %in : memref<1000x1000xf16, 1> -> !g
    %s = tile.alloc_shared : !b128_64x256
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx1 = arith.constant 32768 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx1 : !llvm.ptr<3>, i32
    tile.copy_async %g[64, 256] to %s[0, 0] sizes [64, 256] exec thread mbar(%b) : !g to !b128_64x256
    gpu.return
  }

  // CHECK-LABEL: gpu.func @b128_128x64
  // CHECK-SAME: issues = 1>
  // CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @b128_128x64(%in: memref<1000x1000xf16, 1>) kernel {
    %g = tile.from_memref %in : memref<1000x1000xf16, 1> -> !g
    %s = tile.alloc_shared : !b128_128x64
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx2 = arith.constant 16384 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx2 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [128, 64] exec thread mbar(%b) : !g to !b128_128x64
    gpu.return
  }

  // 64B and 32B swizzles: 16 and 32 atoms a row, one issue each.
  // CHECK-LABEL: gpu.func @narrow_swizzles
  // CHECK-SAME: encode = [3, 32, 1000, 31, 2000, 64, 32, 32, 16, 1, 1, 1, 0, 2, 2, 0]
  // CHECK-SAME: issues = 1>
  // CHECK-SAME: encode = [3, 16, 1000, 62, 2000, 32, 16, 32, 32, 1, 1, 1, 0, 1, 2, 0]
  // CHECK-SAME: issues = 1>
  // CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @narrow_swizzles(%in: memref<1000x1000xf16, 1>, %s64: !b64_32x512, %s32: !b32_32x512) kernel {
    %g = tile.from_memref %in : memref<1000x1000xf16, 1> -> !g
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx3 = arith.constant 32768 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx3 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s64[0, 0] sizes [32, 512] exec thread mbar(%b) : !g to !b64_32x512
    %tx4 = arith.constant 32768 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx4 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s32[0, 0] sizes [32, 512] exec thread mbar(%b) : !g to !b32_32x512
    gpu.return
  }

  // 7 stages (224 KiB, passed in: over the static shared limit): a rank-4
  // map, one issue.
  // CHECK-LABEL: gpu.func @b128_7x32x512
  // CHECK-SAME: encode = [4, 64, 1000, 15, 7, 2000, 128, 2000000, 64, 32, 8, 7, 1, 1, 1, 1, 0, 3, 2, 0]
  // CHECK-SAME: issues = 1>
  // CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @b128_7x32x512(%in: memref<7x1000x1000xf16, 1>, %s: !b128_7x32x512) kernel {
    %g = tile.from_memref %in : memref<7x1000x1000xf16, 1> -> !g3
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx5 = arith.constant 229376 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx5 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0, 0] to %s[0, 0, 0] sizes [7, 32, 512] exec thread mbar(%b) : !g3 to !b128_7x32x512
    gpu.return
  }

  // Atoms tiled twice (2x2 blocks of 2x4 atoms): six modes, a rank-5 map.
  // The rows above the first 8 are one map dim (size 125, stride 8 rows)
  // boxed on the atom row (2) and looped over the block row: 2 issues of
  // 16 KiB. One stage of seven such tiles: the stage takes a map dim, so
  // the column pair (atoms, blocks) spans one map dim too: 4 issues.
  // (8 and 8 when a region dim could be only one map dim, or one per mode.)
  // CHECK-LABEL: gpu.func @atom_blocks
  // CHECK-SAME: encode = [5, 64, 8, 4, 125, 3, 2000, 128, 16000, 512, 64, 8, 4, 2, 2, 1, 1, 1, 1, 1, 0, 3, 2, 0]
  // CHECK-SAME: bytes_per_issue = 16384, issues = 2>
  // CHECK-SAME: encode = [5, 64, 8, 15, 125, 7, 2000, 128, 16000, 2000000, 64, 8, 4, 2, 1, 1, 1, 1, 1, 1, 0, 3, 2, 0]
  // CHECK-SAME: bytes_per_issue = 8192, issues = 4>
  // CHECK-COUNT-6: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @atom_blocks(%in: memref<1000x1000xf16, 1>, %in3: memref<7x1000x1000xf16, 1>, %s: !blocks_32x512, %s7: !blocks_7x32x512) kernel {
    %g = tile.from_memref %in : memref<1000x1000xf16, 1> -> !g
    %g3 = tile.from_memref %in3 : memref<7x1000x1000xf16, 1> -> !g3
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx7 = arith.constant 65536 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx7 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [32, 512] exec thread mbar(%b) : !g to !blocks_32x512
    tile.copy_async %g3[3, 0, 0] to %s7[3, 0, 0] sizes [1, 32, 512] exec thread mbar(%b) : !g3 to !blocks_7x32x512
    gpu.return
  }

  // Unswizzled rows of 512 f16: promoted to 4-byte units, one 256x32 box.
  // CHECK-LABEL: gpu.func @plain_32x512
  // CHECK-SAME: data_type = "UINT32", encode = [2, 500, 1000, 2000, 256, 32, 1, 1, 0, 0, 2, 0]
  // CHECK-SAME: issues = 1>
  // CHECK-COUNT-1: nvvm.cp.async.bulk.tensor.shared.cluster.global
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  gpu.func @plain_32x512(%in: memref<1000x1000xf16, 1>) kernel {
    %g = tile.from_memref %in : memref<1000x1000xf16, 1> -> !g
    %s = tile.alloc_shared : !plain_32x512
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx6 = arith.constant 32768 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx6 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [32, 512] exec thread mbar(%b) : !g to !plain_32x512
    gpu.return
  }
}

// PTX-LABEL: .entry b128_32x512(
// PTX-COUNT-1: cp.async.bulk.tensor.3d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor
// PTX-LABEL: .entry b128_64x256(
// PTX-COUNT-1: cp.async.bulk.tensor.3d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor
// PTX-LABEL: .entry b128_128x64(
// PTX-COUNT-1: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor
// PTX-LABEL: .entry narrow_swizzles(
// PTX-COUNT-2: cp.async.bulk.tensor.3d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor
// PTX-LABEL: .entry b128_7x32x512(
// PTX-COUNT-1: cp.async.bulk.tensor.4d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor
// PTX-LABEL: .entry atom_blocks(
// PTX-COUNT-6: cp.async.bulk.tensor.5d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor
// PTX-LABEL: .entry plain_32x512(
// PTX-COUNT-1: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor

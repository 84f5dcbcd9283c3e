// Blackwell-only tma config: cta_group on the load (rejected on sm_90a by
// the cta_group_target predicate). fp8 tiles copy as UINT8 maps.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

!btf = !tile.buffer<32x64xf32, shared, #tile.layout<S[(32,2,32):(32,1024,1)], swizzle<2,3,2>>>
!fp8 = !tile.buffer<8x256xf8E4M3FN, shared, #tile.layout<S[(8,2,128):(128,1024,1)], swizzle<3,4,3>>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64

  // CHECK-LABEL: gpu.func @pair_load
  // CHECK-SAME: data_type = "UINT8", encode = [3, 128, 8, 2, 256, 128, 128, 8, 2, 1, 1, 1, 0, 3, 2, 0], dim_sources = [-1, -1, -1]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {group = #nvvm.cta_group<cta_2>}
  gpu.func @pair_load(%in: memref<8x256xf8E4M3FN, 1>) kernel {
    %g = tile.from_memref %in : memref<8x256xf8E4M3FN, 1> -> !tile.buffer<8x256xf8E4M3FN, global>
    %s = tile.alloc_shared : !fp8
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx0 = arith.constant 2048 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx0 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%b)
        {cta_group = 2 : i32} : !tile.buffer<8x256xf8E4M3FN, global> to !fp8
    gpu.return
  }

  // A pair's load completing on the barrier of CTA %leader (the pair's
  // leader): the barrier is mapped there (mapa) and its address passed on.
  // CHECK-LABEL: gpu.func @pair_load_leader_barrier
  // CHECK: %[[REMOTE:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK: %[[BITS:.*]] = llvm.ptrtoint %[[REMOTE]] : !llvm.ptr<7> to i64
  // CHECK: %[[BAR:.*]] = llvm.inttoptr %[[BITS]] : i64 to !llvm.ptr<3>
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %[[BAR]], box[{{.*}}] multicast_mask = %{{.*}} {group = #nvvm.cta_group<cta_2>}
  gpu.func @pair_load_leader_barrier(%in: memref<8x256xf8E4M3FN, 1>, %leader: i32, %mask: i16) kernel {
    %g = tile.from_memref %in : memref<8x256xf8E4M3FN, 1> -> !tile.buffer<8x256xf8E4M3FN, global>
    %s = tile.alloc_shared : !fp8
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread mbar(%b)
        cta_mask(%mask) mbar_cta(%leader) {cta_group = 2 : i32}
        : !tile.buffer<8x256xf8E4M3FN, global> to !fp8
    gpu.return
  }

  // An MN-major tf32 operand tile ([K 32, N 64], N contiguous) in the
  // 128-byte swizzle of 32-byte atoms: the map's swizzle is
  // CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B (4), the 32-element atoms a map dim.
  // CHECK-LABEL: gpu.func @load_tf32_mn_major_atom32
  // CHECK-SAME: data_type = "FLOAT32", encode = [3, 32, 32, 2, 256, 128, 32, 32, 2, 1, 1, 1, 0, 4, 2, 0]
  gpu.func @load_tf32_mn_major_atom32(%in: memref<32x64xf32, 1>) kernel {
    %g = tile.from_memref %in : memref<32x64xf32, 1> -> !tile.buffer<32x64xf32, global>
    %s = tile.alloc_shared : !btf
    %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %tx1 = arith.constant 8192 : i32
    nvvm.mbarrier.arrive.expect_tx %b, %tx1 : !llvm.ptr<3>, i32
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [32, 64] exec thread mbar(%b)
        : !tile.buffer<32x64xf32, global> to !btf
    gpu.return
  }
}

// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// PTX: mapa.shared::cluster.u64
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2

// One GEMM tile program, two chips: on sm_90a a warpgroup's register
// accumulator selects wgmma; on sm_100a the same program with the
// accumulator in tensor memory (issued by one thread) still selects tcgen05
// and compiles, and wgmma is refused there by its target predicate.
// RUN: tile-opt %s --tile-select-variants | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm=check=1 --gpu-module-to-binary="format=isa" | FileCheck %s --check-prefix=PTX

!a = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!b = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!regs = !tile.buffer<128x128xf32, local, #tile.layout<S[(2,4,2,8,16,4,2):(64,32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!tm = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>

// CHECK-LABEL: gpu.module @hopper
// CHECK: tile.gemm_async {{.*}} {transpose_b, variant = "wgmma"}
// PTX-LABEL: gpu.binary @hopper
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
gpu.module @hopper [#nvvm.target<chip = "sm_90a">] {
  gpu.func @gemm(%out: memref<128x128xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %sa = tile.alloc_shared : !a
    %sb = tile.alloc_shared : !b
    %acc = tile.alloc_local : !regs
    tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [128, 128, 64]
        exec warpgroup {transpose_b} : !regs, !a, !b
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    %g = tile.from_memref %out : memref<128x128xf32, 1> -> !tile.buffer<128x128xf32, global>
    tile.store %acc to %g[0, 0] : !regs to !tile.buffer<128x128xf32, global>
    gpu.return
  }
}

// CHECK-LABEL: gpu.module @blackwell
// CHECK: tile.gemm_async {{.*}} {transpose_b, variant = "tcgen05"}
// PTX-LABEL: gpu.binary @blackwell
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
gpu.module @blackwell [#nvvm.target<chip = "sm_100a">] {
  gpu.func @gemm() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %sa = tile.alloc_shared : !a
    %sb = tile.alloc_shared : !b
    %taddr = tile.tmem_alloc 128 columns
    %acc = tile.tmem_buffer %taddr : !tm
    scf.if %leader {
      tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [128, 128, 64]
          exec thread {transpose_b} : !tm, !a, !b
    }
    tile.tmem_dealloc %taddr, 128 columns
    gpu.return
  }
}

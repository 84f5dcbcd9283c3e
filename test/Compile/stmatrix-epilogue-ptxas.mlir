// The stmatrix epilogue assembles for sm_90a: a 64 x 128 f32 accumulator
// (the wgmma fragment) stored as bf16 into a 128-byte swizzled shared tile
// (two 64-column atoms) by 8 stmatrix.x4 per warp, then TMA to global
// (@row_major); a 64 x 32 f16 accumulator into a column-major tile by
// stmatrix.x4.trans (@column_major). No spills, no stack.
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: .entry row_major(
// CHECK-COUNT-8: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-NOT: stmatrix
// CHECK: fence.proxy.async.shared::cta;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK-LABEL: .entry column_major(
// CHECK-COUNT-2: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: stmatrix
// CHECK-NOT: st.shared
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

!acc = !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!c = !tile.buffer<64x128xbf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
!acc16 = !tile.buffer<64x32xf16, local, #tile.layout<S[(4,2,8,4,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cm = !tile.buffer<64x32xf16, shared, #tile.layout<S[(64,32):(1,64)]>>
!out = !tile.buffer<?x?xbf16, global>

gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  gpu.func @row_major(%o: memref<?x?xbf16, 1>, %v: f32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %acc = tile.alloc_local : !acc
    tile.fill %acc, %v : !acc, f32
    %s = tile.alloc_shared {alignment = 1024 : i64} : !c
    tile.store %acc to %s[0, 0] : !acc to !c
    tile.fence proxy_async
    gpu.barrier
    %g = tile.from_memref %o : memref<?x?xbf16, 1> -> !out
    scf.if %leader {
      tile.copy_async %s[0, 0] to %g[0, 0] sizes [64, 128] exec thread : !c to !out
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }

  gpu.func @column_major(%v: f16) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %acc = tile.alloc_local : !acc16
    tile.fill %acc, %v : !acc16, f16
    %s = tile.alloc_shared {alignment = 128 : i64} : !cm
    tile.store %acc to %s[0, 0] : !acc16 to !cm
    gpu.return
  }
}

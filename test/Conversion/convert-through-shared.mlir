// tile.convert whose data crosses warps: the wgmma accumulator (a row in
// a quad of lanes of one warp) to a row per thread, in bf16, through the
// kernel's scratch (shared_memory variant). The accumulator has no
// replicas, so every thread writes its 8 elements as f32; the result's
// replica threads (64-127 repeat 0-63) read theirs; pairs of registers are
// converted by one packed cvt. Translation validation is on.
// RUN: tile-opt %s --tile-select-variants=explain=1 --tile-assign-shared-offsets --tile-lower-variants="check=1" 2>&1 | FileCheck %s

!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rowt = !tile.buffer<64x16xbf16, local, #tile.layout<S[(64,16):(1@tid_in_wg,1)] + R[2:64@tid_in_wg]>>

// CHECK: remark: selected shared_memory (priority 10) on sm_90a
// CHECK: note: registers (priority 30): declined
// CHECK: note: warp_shuffle (priority 20): declined

// One warpgroup: 64 x 16 f32.
// CHECK-LABEL: gpu.func @to_rows
// CHECK-SAME: tile.dynamic_shared_bytes = 4096
// CHECK: scf.if
// CHECK-COUNT-8: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK-COUNT-16: llvm.load %{{.+}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier
// CHECK-COUNT-8: nvvm.convert.f32x2.to.bf16x2
// CHECK-NOT: nvvm.barrier
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @to_rows() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc_local : !acc
    %t = tile.alloc_local : !rowt
    tile.convert %s to %t : !acc to !rowt
    gpu.return
  }
}

// tile.load of 16-bit tiles from shared memory into the wgmma fragment
// layout: the ldmatrix variant (the stmatrix planner's fragments, read the
// other way), with translation validation on. A region at a runtime
// column offset may start anywhere, so ldmatrix (rows on 16-byte
// boundaries) declines and the vector variant loads it.
// RUN: tile-opt %s --tile-select-variants=explain=1 --tile-assign-shared-offsets --tile-lower-variants="check=1" 2>&1 | FileCheck %s

!a = !tile.buffer<64x16xbf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!sa = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)]>>
!sw = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!af = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

// CHECK: :36:5: remark: selected ldmatrix (priority 20) on sm_90a
// CHECK: note: vector (priority 10): viable, lower priority
// CHECK: :37:5: remark: selected vector (priority 10) on sm_90a
// CHECK: note: ldmatrix (priority 20): declined — the region's base is known to be a multiple of 1 elements; stmatrix rows start on 16-byte boundaries
// CHECK: :38:5: remark: selected ldmatrix (priority 20) on sm_90a

// Four 8x8 matrices per instruction: 64 rows x 16 columns is 16 matrices,
// 4 per warp; each word's halves are two registers.
// CHECK-LABEL: gpu.func @k
// CHECK: nvvm.ldmatrix %{{.+}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.extractvalue %{{.+}}[0]
// CHECK: llvm.bitcast %{{.+}} : i32 to vector<2xbf16>
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.load %{{.+}} {alignment = 2 : i64} : !llvm.ptr<3> -> bf16
// The f32 tile: the same fragments, widened.
// CHECK: nvvm.ldmatrix
// CHECK: llvm.fpext %{{.+}} : bf16 to f32
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%k0: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc_shared : !sa
    %w = tile.alloc_shared : !sw
    %r = tile.alloc_local : !a
    %f = tile.alloc_local : !af
    tile.load %s[0, 0] to %r : !sa to !a
    tile.load %w[0, %k0] to %r : !sw to !a
    tile.load %w[0, 16] to %f : !sw to !af
    gpu.return
  }
}

// tile.reduce of rows that span the warps of a warpgroup (a column sum of
// a wgmma accumulator): the shared_memory variant. Each thread combines
// its registers, the lanes of the row butterfly (xor 4, 8, 16), one lane
// per warp writes its partial to the kernel's scratch (placed after the
// buffers by --tile-assign-shared-offsets), the warpgroup meets at its
// named barrier (id 8 + warpgroup, 128 threads), every thread combines
// the four warps' partials in the same order, and a second barrier frees
// the scratch. Translation validation is on.
// RUN: tile-opt %s --tile-select-variants=explain=1 --tile-assign-shared-offsets --tile-lower-variants="check=1" 2>&1 | FileCheck %s

!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cols = !tile.buffer<1x16xf32, local, #tile.layout<S[(1,2,4,2):(0,2,1@tid_in_wg,1)] + R[(8,4):(4@tid_in_wg,32@tid_in_wg)]>>
!smem = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)]>>

// CHECK: remark: selected shared_memory (priority 10) on sm_90a
// CHECK: note: in_thread (priority 30): declined
// CHECK: note: warp_shuffle (priority 20): declined — {{.*}}combining warps needs shared memory

// Two warpgroups: 2 x 16 outputs x 4 warps x 4 bytes after the 8 KiB
// buffer, and 112 bytes of room to round the segment up to 128.
// CHECK-LABEL: gpu.func @column_sum
// CHECK-SAME: tile.dynamic_shared_bytes = 8816
// CHECK: llvm.getelementptr %{{.+}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK-COUNT-2: llvm.fadd
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.shfl.sync bfly
// CHECK: scf.if
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %[[ID:.+]] number_of_threads = %[[N:.+]]
// CHECK-COUNT-4: llvm.load %{{.+}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %[[N]]
// CHECK-COUNT-4: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr{{$}}
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @column_sum() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %b = tile.alloc_shared : !smem
    %s = tile.alloc_local : !acc
    %c = tile.alloc_local : !cols
    tile.reduce <add> %s dims [0] into %c : !acc into !cols
    gpu.return
  }
}

// Tutorial step 07: dispatch decisions, and adding a variant from C++
// (docs/tutorials/07-dispatch-variants.md).
//
// Statistics of a 64 x 64 f32 tile held in the wgmma accumulator layout:
// the maximum of each row, the sum of each column, and the tile in bf16.
// Eight dispatched ops, six different variants: `--explain` says which
// variant each got and why the others lost. Launch: 1 CTA of 128 threads.
//
// RUN: tile-compile --check --explain %s --chip sm_90a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// Selection records the winner on each op:
// RUN: tile-opt %s --tile-select-variants | FileCheck %s --check-prefix=SELECTED
// A forced variant wins over a higher priority one if it passes:
// RUN: sed 's/%%s\[0, 0\] :/%%s[0, 0] {dispatch = "vector"} :/' %s | tile-opt --tile-select-variants=explain --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCED
// and is an error, with its reasons, if it does not:
// RUN: sed 's/%%grow\[0, 0\] :/%%grow[0, 0] {dispatch = "stmatrix"} :/' %s | not tile-opt --tile-select-variants --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=REFUSED
// An unknown name lists the registered variants of the op:
// RUN: sed 's/%%grow\[0, 0\] :/%%grow[0, 0] {dispatch = "my_store"} :/' %s | not tile-opt --tile-select-variants --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// EXPLAIN: remark: selected vector (priority 10) on sm_90a
// EXPLAIN-NEXT: tile.load %gin[0, 0] to %x
// EXPLAIN: note: ldmatrix (priority 20): rejected: shared_source — ldmatrix reads shared memory; the source is in global
// EXPLAIN: remark: selected warp_shuffle (priority 20) on sm_90a
// EXPLAIN-NEXT: tile.reduce <max> %x dims [1]
// EXPLAIN: note: in_thread (priority 30): declined — output element (0,0) (register 0) in thread 0: its row is spread over threads (xor 1, 2); in one thread's registers only
// EXPLAIN: remark: selected shared_memory (priority 10) on sm_90a
// EXPLAIN-NEXT: tile.reduce <add> %x dims [0]
// EXPLAIN: note: warp_shuffle (priority 20): declined — output element (0,0) (register 0) in thread 0: its row is spread over the warps of the warpgroup
// EXPLAIN: remark: selected registers (priority 30) on sm_90a
// EXPLAIN-NEXT: tile.convert %x to %y
// EXPLAIN: note: warp_shuffle (priority 20): viable, lower priority
// EXPLAIN: remark: selected stmatrix (priority 20) on sm_90a
// EXPLAIN-NEXT: tile.store %y to %s
// EXPLAIN: note: vector (priority 10): viable, lower priority
// EXPLAIN: remark: selected tma (priority 20) on sm_90a
// EXPLAIN-NEXT: tile.copy_async %s[0, 0] to %gout

// SELECTED: tile.reduce <max> {{.*}} {variant = "warp_shuffle"}
// SELECTED: tile.reduce <add> {{.*}} {variant = "shared_memory"}
// SELECTED: tile.store {{.*}} {variant = "stmatrix"}

// FORCED: tile.convert %x to %y
// FORCED: remark: selected vector (priority 10) on sm_90a
// FORCED-NEXT: tile.store %y to %s[0, 0] {dispatch = "vector"}
// FORCED: note: stmatrix (priority 20): viable, not the forced variant

// REFUSED: error: forced variant 'stmatrix' cannot implement this tile.store on sm_90a
// REFUSED: note: stmatrix (priority 20): rejected: shared_destination — stmatrix stores into shared memory; the destination is global; rejected: sixteen_bit_destination — stmatrix stores 16-bit elements; the destination's are 32-bit

// UNKNOWN: error: unknown variant 'my_store' for tile.store on cuda; registered: stmatrix, vector

!gin_t = !tile.buffer<64x64xf32, global>
!gout_t = !tile.buffer<64x64xbf16, global>
!grow_t = !tile.buffer<64x1xf32, global>
!gcol_t = !tile.buffer<1x64xf32, global>
// The tile in the m64n64 accumulator fragment (step 04), f32 and bf16.
!x_t = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!y_t = !tile.buffer<64x64xbf16, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// A row's maximum on the four threads of its quad; a column's sum on
// every thread that holds the column (8 quads x 4 warps).
!row_t = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
!col_t = !tile.buffer<1x64xf32, local, #tile.layout<S[(1,8,4,2):(0,2,1@tid_in_wg,1)] + R[(8,4):(4@tid_in_wg,32@tid_in_wg)]>>
!s_t = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>

gpu.module @tutorial [#nvvm.target<chip = "sm_90a">] {
  gpu.func @tile_stats(%in: memref<64x64xf32, 1>, %row_max: memref<64x1xf32, 1>,
                       %col_sum: memref<1x64xf32, 1>, %out: memref<64x64xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %gin = tile.from_memref %in : memref<64x64xf32, 1> -> !gin_t
    %grow = tile.from_memref %row_max : memref<64x1xf32, 1> -> !grow_t
    %gcol = tile.from_memref %col_sum : memref<1x64xf32, 1> -> !gcol_t
    %gout = tile.from_memref %out : memref<64x64xbf16, 1> -> !gout_t
    %s = tile.alloc_shared : !s_t

    %x = tile.alloc_local : !x_t
    tile.load %gin[0, 0] to %x : !gin_t to !x_t
    %m = tile.alloc_local : !row_t
    tile.reduce <max> %x dims [1] into %m : !x_t into !row_t
    tile.store %m to %grow[0, 0] : !row_t to !grow_t
    %cs = tile.alloc_local : !col_t
    tile.reduce <add> %x dims [0] into %cs : !x_t into !col_t
    tile.store %cs to %gcol[0, 0] : !col_t to !gcol_t

    %y = tile.alloc_local : !y_t
    tile.convert %x to %y : !x_t to !y_t
    tile.store %y to %s[0, 0] : !y_t to !s_t
    tile.fence proxy_async
    gpu.barrier
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      tile.copy_async %s[0, 0] to %gout[0, 0] sizes [64, 64] exec thread : !s_t to !gout_t
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

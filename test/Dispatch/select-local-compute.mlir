// tile.reduce, tile.map and tile.convert are dispatched like copies and MMAs:
// --explain says which variant was chosen and why the others lost.
// RUN: tile-opt %s --tile-select-variants=explain=1 -split-input-file -verify-diagnostics

!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
!p = !tile.buffer<64x16xbf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %s = tile.alloc_local : !acc
    %m = tile.alloc_local : !rows
    %p = tile.alloc_local : !p
    // expected-remark @+3 {{selected warp_shuffle (priority 20) on sm_90a}}
    // expected-note @+2 {{in_thread (priority 30): declined — output element (0,0) (register 0) in thread 0: its row is spread over threads (xor 1, 2); in one thread's registers only}}
    // expected-note @+1 {{shared_memory (priority 10): rejected: warpgroup_block — needs a kernel (gpu.func ... kernel) whose known_block_size is whole warpgroups along x (y = z = 1): each warpgroup gets its own scratch and barrier}}
    tile.reduce <max> %s dims [1] into %m : !acc into !rows
    // expected-remark @+1 {{selected registers (priority 10) on sm_90a}}
    tile.map ins(%s, %m : !acc, !rows) outs(%s : !acc) {
    ^bb0(%x: f32, %max: f32, %i: index, %j: index):
      %d = arith.subf %x, %max : f32
      tile.yield %d : f32
    }
    // expected-remark @+3 {{selected registers (priority 30) on sm_90a}}
    // expected-note @+2 {{warp_shuffle (priority 20): viable, lower priority}}
    // expected-note @+1 {{shared_memory (priority 10): rejected: warpgroup_block}}
    tile.convert %s to %p : !acc to !p
    gpu.return
  }
}

// -----

// A row per thread (the tcgen05.ld 32x32b layout): no shuffle needed, so
// in_thread wins; warp_shuffle would also do.
!rowt = !tile.buffer<128x32xf32, local, #tile.layout<S[(128,32):(1@tid_in_wg,1)]>>
!sum = !tile.buffer<128x1xf32, local, #tile.layout<S[(128,1):(1@tid_in_wg,0)]>>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @k() kernel {
    %t = tile.alloc_local : !rowt
    %s = tile.alloc_local : !sum
    // expected-remark @+3 {{selected in_thread (priority 30) on sm_100a}}
    // expected-note @+2 {{warp_shuffle (priority 20): viable, lower priority}}
    // expected-note @+1 {{shared_memory (priority 10): rejected: warpgroup_block}}
    tile.reduce <add> %t dims [1] into %s : !rowt into !sum
    gpu.return
  }
}

// -----

// tile.store: stmatrix into a 128-byte swizzled bf16 tile; plain vector
// stores into global memory, where stmatrix cannot store.
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!sc = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%out: memref<64x64xf32, 1>) kernel {
    %acc = tile.alloc_local : !acc
    %sc = tile.alloc_shared {alignment = 1024 : i64} : !sc
    // expected-remark @+2 {{selected stmatrix (priority 20) on sm_90a}}
    // expected-note @+1 {{vector (priority 10): viable, lower priority}}
    tile.store %acc to %sc[0, 0] : !acc to !sc
    %g = tile.from_memref %out : memref<64x64xf32, 1> -> !tile.buffer<64x64xf32, global>
    // expected-remark @+2 {{selected vector (priority 10) on sm_90a}}
    // expected-note @+1 {{stmatrix (priority 20): rejected: shared_destination — stmatrix stores into shared memory; the destination is global; rejected: sixteen_bit_destination — stmatrix stores 16-bit elements; the destination's are 32-bit}}
    tile.store %acc to %g[0, 0] : !acc to !tile.buffer<64x64xf32, global>
    gpu.return
  }
}

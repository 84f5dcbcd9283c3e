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
    // expected-remark @+2 {{selected warp_shuffle (priority 20) on sm_90a}}
    // expected-note @+1 {{in_thread (priority 30): declined — output element (0,0) (register 0) in thread 0: its row is spread over threads (xor 1, 2); in one thread's registers only}}
    tile.reduce <max> %s dims [1] into %m : !acc into !rows
    // expected-remark @+1 {{selected registers (priority 10) on sm_90a}}
    tile.map ins(%s, %m : !acc, !rows) outs(%s : !acc) {
    ^bb0(%x: f32, %max: f32, %i: index, %j: index):
      %d = arith.subf %x, %max : f32
      tile.yield %d : f32
    }
    // expected-remark @+2 {{selected registers (priority 30) on sm_90a}}
    // expected-note @+1 {{warp_shuffle (priority 20): viable, lower priority}}
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
    // expected-remark @+2 {{selected in_thread (priority 30) on sm_100a}}
    // expected-note @+1 {{warp_shuffle (priority 20): viable, lower priority}}
    tile.reduce <add> %t dims [1] into %s : !rowt into !sum
    gpu.return
  }
}

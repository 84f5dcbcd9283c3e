// Register-tile compute compiled end to end and assembled: the attention
// step (wgmma, sm_90a) and a row-per-thread softmax of a tcgen05.ld tile
// (sm_100a: map, in-thread reduce, convert to e4m3). Translation validation
// (--check) covers every lowered op; ptxas keeps the tiles in registers.
// RUN: tile-compile --check %S/../../examples/attention_step.mlir -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.sm90.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: tile-compile --check %s -o %t.sm100.ptx
// RUN: FileCheck %s --check-prefix=SM100 < %t.sm100.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a -v --warn-on-spills %t.sm100.ptx -o %t.sm100.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// SM90-LABEL: .entry attention_step(
// SM90: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SM90-COUNT-4: shfl.sync.bfly.b32
// SM90: ex2.approx.ftz.f32
// SM90-COUNT-4: shfl.sync.bfly.b32
// SM90: cvt.rn.bf16x2.f32
// SM90: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SM90: lg2.approx.ftz.f32

// SM100-LABEL: .entry softmax_rows(
// SM100: tcgen05.ld.sync.aligned.32x32b.x32.b32
// SM100-NOT: shfl.sync
// SM100: ex2.approx.ftz.f32
// SM100: div.rn.f32
// SM100: cvt.rn.satfinite.e4m3x2.f32
// SM100-NOT: shfl.sync
// SM100: ret;

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

!tm = !tile.buffer<128x32xf32, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>>
!rowt = !tile.buffer<128x32xf32, local, #tile.layout<S[(128,32):(1@tid_in_wg,1)]>>
!one = !tile.buffer<128x1xf32, local, #tile.layout<S[(128,1):(1@tid_in_wg,0)]>>
!q = !tile.buffer<128x32xf8E4M3FN, local, #tile.layout<S[(128,32):(1@tid_in_wg,1)]>>
gpu.module @softmax [#nvvm.target<chip = "sm_100a">] {
  gpu.func @softmax_rows(%taddr: i32, %out: memref<128x32xf8E4M3FN, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %acc = tile.tmem_buffer %taddr : !tm
    %s = tile.alloc_local : !rowt
    tile.load %acc[0, 0] to %s : !tm to !rowt
    %m = tile.alloc_local : !one
    tile.reduce <max> %s dims [1] into %m : !rowt into !one
    tile.map ins(%s, %m : !rowt, !one) outs(%s : !rowt) {
    ^bb0(%x: f32, %max: f32, %i: index, %j: index):
      %d = arith.subf %x, %max : f32
      %e = math.exp2 %d : f32
      tile.yield %e : f32
    }
    %l = tile.alloc_local : !one
    tile.reduce <add> %s dims [1] into %l : !rowt into !one
    tile.map ins(%s, %l : !rowt, !one) outs(%s : !rowt) {
    ^bb0(%x: f32, %sum: f32, %i: index, %j: index):
      %r = arith.divf %x, %sum : f32
      tile.yield %r : f32
    }
    %p = tile.alloc_local : !q
    tile.convert %s to %p : !rowt to !q
    %g = tile.from_memref %out : memref<128x32xf8E4M3FN, 1> -> !tile.buffer<128x32xf8E4M3FN, global>
    tile.store %p to %g[0, 0] : !q to !tile.buffer<128x32xf8E4M3FN, global>
    gpu.return
  }
}

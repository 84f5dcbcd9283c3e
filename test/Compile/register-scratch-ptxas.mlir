// The variants that exchange data between warps, compiled end to end with
// translation validation and assembled for sm_90a and sm_100a: a column
// sum of a wgmma accumulator (tile.reduce through the shared scratch, two
// warpgroups, named barriers 9 and 10 where tid.x >> 7 is 1 and 2), the
// accumulator converted to a row per thread (tile.convert through the
// scratch), and a 16-bit shared tile read back by ldmatrix.
// RUN: tile-compile --check --chip sm_90a %s -o %t.sm90.ptx
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.sm90.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: tile-compile --check --chip sm_100a %s -o %t.sm100.ptx
// RUN: FileCheck %s < %t.sm100.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a -v --warn-on-spills %t.sm100.ptx -o %t.sm100.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The column sum: 3 butterflies per column pair, 4 partials written, the
// warpgroup's barrier (its id in a register: 8 + tid.x / 128), 4 x 4 read.
// CHECK-LABEL: .entry exchange(
// CHECK-COUNT-3: shfl.sync.bfly.b32
// CHECK: st.shared.b32
// CHECK: bar.sync %r{{[0-9]+}}, 128;
// CHECK-COUNT-16: ld.shared.b32
// CHECK: bar.sync %r{{[0-9]+}}, 128;
// The conversion: 8 elements written per thread, 16 read, packed cvt.
// CHECK-COUNT-8: st.shared.b32
// CHECK: bar.sync %r{{[0-9]+}}, 128;
// CHECK-COUNT-16: ld.shared.b32
// CHECK: bar.sync %r{{[0-9]+}}, 128;
// CHECK-COUNT-8: cvt.rn.bf16x2.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTXAS-NOT: bytes spill
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cols = !tile.buffer<1x16xf32, local, #tile.layout<S[(1,2,4,2):(0,2,1@tid_in_wg,1)] + R[32:4@tid_in_wg]>>
!rowt = !tile.buffer<64x16xbf16, local, #tile.layout<S[(64,16):(1@tid_in_wg,1)] + R[2:64@tid_in_wg]>>
!a16 = !tile.buffer<64x16xbf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!g = !tile.buffer<64x16xf32, global>
!gc = !tile.buffer<1x16xf32, global>
!gb = !tile.buffer<64x16xbf16, global>
!sa = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @exchange(%in: memref<64x16xf32, 1>, %sums: memref<1x16xf32, 1>,
                     %rows: memref<64x16xbf16, 1>, %back: memref<64x16xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %consumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %consumer {
      %gin = tile.from_memref %in : memref<64x16xf32, 1> -> !g
      %s = tile.alloc_local : !acc
      tile.load %gin[0, 0] to %s : !g to !acc
      %c = tile.alloc_local : !cols
      tile.reduce <add> %s dims [0] into %c : !acc into !cols
      %gs = tile.from_memref %sums : memref<1x16xf32, 1> -> !gc
      tile.store %c to %gs[0, 0] : !cols to !gc
      %t = tile.alloc_local : !rowt
      tile.convert %s to %t : !acc to !rowt
      %gr = tile.from_memref %rows : memref<64x16xbf16, 1> -> !gb
      tile.store %t to %gr[0, 0] : !rowt to !gb
    }
    %sh = tile.alloc_shared : !sa
    %r = tile.alloc_local : !a16
    tile.load %sh[0, 0] to %r : !sa to !a16
    %gk = tile.from_memref %back : memref<64x16xbf16, 1> -> !gb
    tile.store %r to %gk[0, 0] : !a16 to !gb
    gpu.return
  }
}

// copy_async shared -> tmem lowered to tcgen05.cp, one function per form:
// the descriptor constant (LBO, SBO, bit 46, swizzle) is pinned, then per
// instruction the 16-byte start offset added to it and the tensor-memory
// offset `(lane << 16) | column` added to the buffer's address. The PTX is
// assembled for sm_100a.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants=check=1 | FileCheck %s
// RUN: tile-compile --check %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

!u8spelled = !tile.buffer<64x32xui8, shared, #tile.layout<S[(8,8,2,16):(128,16,1024,1)]>>
!u8canonical = !tile.buffer<64x32xui8, shared, #tile.layout<S[(64,2,16):(16,1024,1)]>>
!u8t32 = !tile.buffer<32x32xui8, tmem, #tile.layout<S[(32,32):(1@TLane,1@TCol)] + R[4:32@TLane]>>
!u8s = !tile.buffer<32x16xui8, shared, #tile.layout<S[(32,16):(16,1)]>>
!u8t = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
!accs = !tile.buffer<128x64xf32, shared, #tile.layout<S[(128,2,32):(32,4096,1)], swizzle<3,2,3>>>
!acct = !tile.buffer<128x64xf32, tmem, #tile.layout<S[(128,64):(1@TLane,1@TCol)] + 128@TCol>>
!core = !tile.buffer<64x4xf32, shared, #tile.layout<S[(64,4):(4,1)]>>
!x2a = !tile.buffer<64x4xf32, tmem, #tile.layout<S[(64,4):(1@TLane,1@TCol)] + R[2:64@TLane]>>
!x2b = !tile.buffer<64x4xf32, tmem, #tile.layout<S[(2,32,4):(64@TLane,1@TLane,1@TCol)] + R[2:32@TLane]>>
!sfs = !tile.buffer<128x8xf32, shared, #tile.layout<S[(16,8,2,4):(32,4,512,1)]>>
!sft = !tile.buffer<128x8xf32, tmem, #tile.layout<S[(32,4,8):(1@TLane,32@TLane,1@TCol)]>>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  // A 32x16 u8 tile broadcast by warpx4: 32 rows of 16 bytes, no swizzle
  // (SBO 128 B, LBO unused = 16).
  // CHECK-LABEL: gpu.func @u8_32x16_warpx4
  // CHECK-SAME: (%[[SMEM:.*]]: !llvm.ptr<3>, %[[TMEM:.*]]: i32)
  // CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[SMEM]] : !llvm.ptr<3> to i32
  // CHECK: %[[MASKED:.*]] = arith.andi %[[ADDR]], %{{.*}} : i32
  // CHECK: %[[FIELD:.*]] = arith.shrui %[[MASKED]], %{{.*}} : i32
  // CHECK: %[[FIELD64:.*]] = arith.extui %[[FIELD]] : i32 to i64
  // 0x0000400800010000: SBO 8 (x16 B), LBO 1, bit 46.
  // CHECK: %[[TEMPLATE:.*]] = arith.constant 70403103981568 : i64
  // CHECK: %[[DESC:.*]] = arith.ori %[[FIELD64]], %[[TEMPLATE]] : i64
  // CHECK: %[[T:.*]] = llvm.inttoptr %[[TMEM]] : i32 to !llvm.ptr<6>
  // CHECK: nvvm.tcgen05.cp %[[T]], %[[DESC]] {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
  // CHECK-NOT: nvvm.tcgen05.cp
  // CHECK: gpu.return
  gpu.func @u8_32x16_warpx4(%s: !u8s, %t: !u8t) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread
        {cp_multicast = #tile.cp_multicast<warpx4>} : !u8s to !u8t
    gpu.return
  }

  // Accumulator initialisation (as in tmem_accumulate_init): 128x64 fp32,
  // 128B swizzle, at columns 128..191: 8 x 128x256b; the second atom column
  // starts 16 KiB (1024 x 16 B) on.
  // CHECK-LABEL: gpu.func @accumulator_128x256b
  // CHECK-SAME: (%{{.*}}: !llvm.ptr<3>, %[[TMEM:.*]]: i32)
  // 0x4000404000010000: swizzle 2 (128B), SBO 64 (1024 B), LBO 1, bit 46.
  // CHECK: %[[TEMPLATE:.*]] = arith.constant 4611756662049538048 : i64
  // CHECK: %[[DESC:.*]] = arith.ori %{{.*}}, %[[TEMPLATE]] : i64
  // CHECK: %[[C128:.*]] = arith.constant 128 : i32
  // CHECK: %[[A0:.*]] = arith.addi %[[TMEM]], %[[C128]] : i32
  // CHECK: %[[T0:.*]] = llvm.inttoptr %[[A0]] : i32 to !llvm.ptr<6>
  // CHECK: nvvm.tcgen05.cp %[[T0]], %[[DESC]] {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
  // CHECK: %[[O1:.*]] = arith.constant 2 : i64
  // CHECK: %[[D1:.*]] = arith.addi %[[DESC]], %[[O1]] : i64
  // CHECK: arith.constant 136 : i32
  // CHECK: nvvm.tcgen05.cp %{{.*}}, %[[D1]] {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
  // CHECK: arith.constant 4 : i64
  // CHECK: arith.constant 144 : i32
  // CHECK: arith.constant 6 : i64
  // CHECK: arith.constant 152 : i32
  // CHECK: arith.constant 1024 : i64
  // CHECK: arith.constant 160 : i32
  // CHECK: arith.constant 1026 : i64
  // CHECK: arith.constant 168 : i32
  // CHECK: arith.constant 1028 : i64
  // CHECK: arith.constant 176 : i32
  // CHECK: arith.constant 1030 : i64
  // CHECK: arith.constant 184 : i32
  // CHECK: nvvm.tcgen05.cp
  // CHECK-NOT: nvvm.tcgen05.cp
  // CHECK: gpu.return
  gpu.func @accumulator_128x256b(%s: !accs, %t: !acct) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [128, 64] exec thread : !accs to !acct
    gpu.return
  }

  // The same copy forced to 128x128b: 16 instructions, 16 bytes apart.
  // CHECK-LABEL: gpu.func @forced_128x128b
  // CHECK-COUNT-16: nvvm.tcgen05.cp {{.*}} {shape = #nvvm.tcgen05_cp_shape<shape_128x128b>}
  // CHECK-NOT: nvvm.tcgen05.cp
  // CHECK: gpu.return
  gpu.func @forced_128x128b(%s: !accs, %t: !acct) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [128, 64] exec thread
        {cp_shape = #tile.cp_shape<shape_128x128b>} : !accs to !acct
    gpu.return
  }

  // CHECK-LABEL: gpu.func @warpx2_02_13
  // CHECK: nvvm.tcgen05.cp {{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx2_02_13>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>}
  // CHECK-NOT: nvvm.tcgen05.cp
  gpu.func @warpx2_02_13(%s: !core, %t: !x2a) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [64, 4] exec thread : !core to !x2a
    gpu.return
  }

  // CHECK-LABEL: gpu.func @warpx2_01_23
  // CHECK: nvvm.tcgen05.cp {{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>}
  // CHECK-NOT: nvvm.tcgen05.cp
  gpu.func @warpx2_01_23(%s: !core, %t: !x2b) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [64, 4] exec thread : !core to !x2b
    gpu.return
  }

  // Tile row 4l + q in lane 32q + l: 32 x 4x256b, one per lane l (lane
  // field l << 16), 64 bytes (4 x 16 B) apart; LBO = 2048 B (128 x 16 B).
  // CHECK-LABEL: gpu.func @four_rows_4x256b
  // 0x0000400100800000: SBO unused (1 = 16 B), LBO 128 (2048 B), bit 46.
  // CHECK: arith.constant 70373047533568 : i64
  // CHECK: nvvm.tcgen05.cp {{.*}} {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>}
  // CHECK: arith.constant 4 : i64
  // CHECK: arith.constant 65536 : i32
  // CHECK: nvvm.tcgen05.cp {{.*}} {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>}
  // CHECK-COUNT-30: nvvm.tcgen05.cp {{.*}} {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>}
  // CHECK-NOT: nvvm.tcgen05.cp
  gpu.func @four_rows_4x256b(%s: !sfs, %t: !sft) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [128, 8] exec thread : !sfs to !sft
    gpu.return
  }

  // The pair form: both CTAs copy their own tile; the source holds packed
  // 6-bit values decompressed into 8-bit containers.
  // CHECK-LABEL: gpu.func @cta_pair_decompress
  // CHECK: nvvm.tcgen05.cp {{.*}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>}
  gpu.func @cta_pair_decompress(%s: !u8s, %t: !u8t) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [32, 16] exec thread
        {cta_group = 2 : i32, src_format = #tile.cp_src_format<b6x16_p32>} : !u8s to !u8t
    gpu.return
  }

  // CHECK-LABEL: gpu.func @cta_pair_4bit
  // CHECK: nvvm.tcgen05.cp {{.*}} {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b4x16_p64>}
  gpu.func @cta_pair_4bit(%s: !tile.buffer<128x32xi8, shared, #tile.layout<S[(128,32):(32,1)], swizzle<1,4,3>>>,
                          %t: !tile.buffer<128x32xi8, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>>) {
    tile.copy_async %s[0, 0] to %t[0, 0] sizes [128, 32] exec thread
        {cta_group = 2 : i32, src_format = #tile.cp_src_format<b4x16_p64>}
        : !tile.buffer<128x32xi8, shared, #tile.layout<S[(128,32):(32,1)], swizzle<1,4,3>>>
          to !tile.buffer<128x32xi8, tmem, #tile.layout<S[(128,32):(1@TLane,1@TCol)]>>
    gpu.return
  }

  // Rows 4..36 of a 64x32 u8 tile spelled (8,8,2,16):(128,16,1024,1) and of
  // the same function spelled (64,2,16):(16,1024,1) lower alike: two warpx4
  // copies (one per 16-byte column chunk), the first at byte 64 (4 rows of
  // 16 B; start field 4), SBO 128 B, the second 1024 B further (+64).
  // CHECK-LABEL: gpu.func @u8_rows_4_36_spelled
  // CHECK: arith.constant 70403103981568 : i64
  // CHECK: arith.constant 4 : i64
  // CHECK: nvvm.tcgen05.cp {{.*}}shape_32x128b
  // CHECK: arith.constant 68 : i64
  // CHECK: nvvm.tcgen05.cp {{.*}}shape_32x128b
  // CHECK-NOT: nvvm.tcgen05.cp
  // CHECK-LABEL: gpu.func @u8_rows_4_36_canonical
  // CHECK: arith.constant 70403103981568 : i64
  // CHECK: arith.constant 4 : i64
  // CHECK: nvvm.tcgen05.cp {{.*}}shape_32x128b
  // CHECK: arith.constant 68 : i64
  // CHECK: nvvm.tcgen05.cp {{.*}}shape_32x128b
  gpu.func @u8_rows_4_36_spelled(%s: !u8spelled, %t: !u8t32) {
    tile.copy_async %s[4, 0] to %t[0, 0] sizes [32, 32] exec thread : !u8spelled to !u8t32
    gpu.return
  }
  gpu.func @u8_rows_4_36_canonical(%s: !u8canonical, %t: !u8t32) {
    tile.copy_async %s[4, 0] to %t[0, 0] sizes [32, 32] exec thread : !u8canonical to !u8t32
    gpu.return
  }
}

// PTX-DAG: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// PTX-DAG: tcgen05.cp.cta_group::1.128x256b [%r{{[0-9]+}}+184], %rd{{[0-9]+}};
// PTX-DAG: tcgen05.cp.cta_group::1.128x128b [%r{{[0-9]+}}+188], %rd{{[0-9]+}};
// PTX-DAG: tcgen05.cp.cta_group::1.64x128b.warpx2::02_13
// PTX-DAG: tcgen05.cp.cta_group::1.64x128b.warpx2::01_23
// PTX-DAG: tcgen05.cp.cta_group::1.4x256b [%r{{[0-9]+}}+2031616], %rd{{[0-9]+}};
// PTX-DAG: tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b6x16_p32
// PTX-DAG: tcgen05.cp.cta_group::2.128x256b.b8x16.b4x16_p64

// Block-scaled fp8 GEMM step (kind::mxf8f6f4): A 128x128 and B 128x128
// (N x K) e4m3 tiles and their UE8M0 scale factors (one per 32 K elements)
// are TMA-loaded into shared memory; thread 0 copies the scale tiles into
// tensor memory with `tile.copy_async` (dispatched to tcgen05_cp:
// 32x128b.warpx4 copies) and issues `tile.gemm_async ... scales(...)` (dispatched
// to tcgen05: 4 x tcgen05.mma.kind::mxf8f6f4.block_scale, scale-factor ids
// 0..3), then commits; every thread reads its row of D back.
//
// The scale arrays come in CUTLASS's scale-factor atom order (512-byte
// blocks of 32 rows x 16 bytes): byte c of row R = 32 g + r holds the scale
// of M (or N) row 32 (c / 4) + r for K block 4 g + c % 4. Copied as is to
// shared memory and by tcgen05.cp 32x128b.warpx4 to every 32-lane
// partition, that is the tensor-memory layout tcgen05.mma reads (row m in
// lane m % 32, column m / 32, K blocks in bytes; docs/Tcgen05Mma.md). The
// tiles hold 16 K blocks (a K-loop's worth); this step uses the first 4. tcgen05.cp and tcgen05.mma
// issued by one thread execute in issue order, so no wait sits between.
//
//   build/bin/tile-compile examples/gemm_block_scaled.mlir -o /tmp/s.ptx \
//       --manifest /tmp/s.json --explain
// Launch: 1 CTA of 128 threads; `a` 128x128 e4m3, `b` 128x128 e4m3 (N x
// K), `sfa`/`sfb` 128x16 ue8m0, `out` 128x128 f32. Expected:
// out[m][n] = sum_k a[m][k] * 2^(SFA(m, k/32)-127) * b[n][k] *
// 2^(SFB(n, k/32)-127), SFA(m, kb) = sfa[32 (kb/4) + m%32][4 (m/32) + kb%4]
// (SFB likewise). Needs an sm_100 GPU.

!op_smem = !tile.buffer<128x128xf8E4M3FN, shared, #tile.layout<S[(128,128):(128,1)], swizzle<3,4,3>>>
!sf_smem = !tile.buffer<128x16xf8E8M0FNU, shared>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
// The scale tiles as tcgen05.mma reads them: scale (m, kb) in lane m % 32
// of every 32-lane partition, column 4 * (kb / 4) + m / 32, byte kb % 4.
!sfa_tmem = !tile.buffer<128x16xf8E8M0FNU, tmem, #tile.layout<S[(4,32,4,4):(4@TCol,1@TLane,16@TCol,1@TCol)] + R[4:32@TLane] + 1024@TCol>>
!sfb_tmem = !tile.buffer<128x16xf8E8M0FNU, tmem, #tile.layout<S[(4,32,4,4):(4@TCol,1@TLane,16@TCol,1@TCol)] + R[4:32@TLane] + 1088@TCol>>
// The same bytes as the copies see them: staged row R (= 32 g + r) in lane
// r of every partition, TCol 16 g + c (4 x tcgen05.cp 32x128b.warpx4).
!sfa_cp = !tile.buffer<128x16xf8E8M0FNU, tmem, #tile.layout<S[(4,32,16):(16@TCol,1@TLane,1@TCol)] + R[4:32@TLane] + 1024@TCol>>
!sfb_cp = !tile.buffer<128x16xf8E8M0FNU, tmem, #tile.layout<S[(4,32,16):(16@TCol,1@TLane,1@TCol)] + R[4:32@TLane] + 1088@TCol>>
!g_op = !tile.buffer<128x128xf8E4M3FN, global>
!g_sf = !tile.buffer<128x16xf8E8M0FNU, global>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  gpu.func @gemm_block_scaled(%a: memref<128x128xf8E4M3FN, 1>,
                              %b: memref<128x128xf8E4M3FN, 1>,
                              %sfa: memref<128x16xf8E8M0FNU, 1>,
                              %sfb: memref<128x16xf8E8M0FNU, 1>,
                              %out: memref<128x128xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %i16 = arith.constant 16 : i32
    %i32 = arith.constant 32 : i32
    %bytes = arith.constant 36864 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    // Barrier 0 tracks the TMA loads, barrier 1 the copies and the MMA.
    %bars = nvgpu.mbarrier.create -> !bars
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
      tile.fence mbarrier_init
    }
    %taddr = tile.tmem_alloc 512 columns
    %acc = tile.tmem_buffer %taddr : !acc
    // Scales at columns 256..259 (A) and 272..275 (B): TCol counts bytes.
    %tsfa = tile.tmem_buffer %taddr : !sfa_tmem
    %tsfb = tile.tmem_buffer %taddr : !sfb_tmem
    %tsfa_cp = tile.tmem_buffer %taddr : !sfa_cp
    %tsfb_cp = tile.tmem_buffer %taddr : !sfb_cp

    %ga = tile.from_memref %a : memref<128x128xf8E4M3FN, 1> -> !g_op
    %gb = tile.from_memref %b : memref<128x128xf8E4M3FN, 1> -> !g_op
    %gsfa = tile.from_memref %sfa : memref<128x16xf8E8M0FNU, 1> -> !g_sf
    %gsfb = tile.from_memref %sfb : memref<128x16xf8E8M0FNU, 1> -> !g_sf
    %sa = tile.alloc_shared : !op_smem
    %sb = tile.alloc_shared : !op_smem
    %ssfa = tile.alloc_shared : !sf_smem
    %ssfb = tile.alloc_shared : !sf_smem
    scf.if %leader {
      // 2 x 16384 operand bytes + 2 x 2048 scale bytes.
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
      tile.copy_async %ga[0, 0] to %sa[0, 0] sizes [128, 128] exec thread mbar(%bars[%c0] : !bars) : !g_op to !op_smem
      tile.copy_async %gb[0, 0] to %sb[0, 0] sizes [128, 128] exec thread mbar(%bars[%c0] : !bars) : !g_op to !op_smem
      tile.copy_async %gsfa[0, 0] to %ssfa[0, 0] sizes [128, 16] exec thread mbar(%bars[%c0] : !bars) : !g_sf to !sf_smem
      tile.copy_async %gsfb[0, 0] to %ssfb[0, 0] sizes [128, 16] exec thread mbar(%bars[%c0] : !bars) : !g_sf to !sf_smem
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %phase0, %ticks : !bars
      tile.copy_async %ssfa[0, 0] to %tsfa_cp[0, 0] sizes [128, 16] exec thread {cp_multicast = #tile.cp_multicast<warpx4>} : !sf_smem to !sfa_cp
      tile.copy_async %ssfb[0, 0] to %tsfb_cp[0, 0] sizes [128, 16] exec thread {cp_multicast = #tile.cp_multicast<warpx4>} : !sf_smem to !sfb_cp
      tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [128, 128, 128] exec thread
          scales(%tsfa, %tsfb : !sfa_tmem, !sfb_tmem) {transpose_b}
          : !acc, !op_smem, !op_smem
      tile.mma_commit mbar(%bars[%c1] : !bars) exec thread
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %phase0, %ticks : !bars
    tile.fence after_thread_sync

    %w32 = arith.index_cast %warp : index to i32
    %lane0 = arith.muli %w32, %i32 : i32
    %laneField = arith.shli %lane0, %i16 : i32
    %waddr = arith.addi %taddr, %laneField : i32
    scf.for %col = %c0 to %c128 step %c1 {
      %col32 = arith.index_cast %col : index to i32
      %addr = arith.addi %waddr, %col32 : i32
      %ptr = llvm.inttoptr %addr : i32 to !llvm.ptr<6>
      %bits = nvvm.tcgen05.ld %ptr {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      %v = llvm.bitcast %bits : i32 to f32
      memref.store %v, %out[%tid, %col] : memref<128x128xf32, 1>
    }

    tile.tmem_dealloc %taddr, 512 columns
    gpu.return
  }
}

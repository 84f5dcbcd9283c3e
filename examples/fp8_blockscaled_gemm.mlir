// Block-scaled FP8 GEMM in tile IR (DeepSeek-V3's recipe on Hopper): the
// dense kernel of the FP8 family, written out with its comments by
//   bench/Kernels/gen_fp8_kernels.py --example dense
// (test/Compile/fp8-family.mlir checks that this file is that output).
// docs/FP8.md walks through it. What it computes:
//   D[m, n] = sum_k A[m, k] SFA[k / 128, m] B[n, k] SFB[n / 128, k / 128]
// A [M, K] and B [N, K] e4m3 (K contiguous), SFA [ceil(K/128), Mp, 1] f32
// (A's 1 x 128 block scales, transposed; row stride a multiple of 4), SFB
// [ceil(N/128), ceil(K/128)] f32 (B's 128 x 128 block scales), D [M, N]
// bf16; K a multiple of 16, N of 8 (TMA's 16-byte strides). Launch 384
// threads and up to one CTA per SM (the CTAs walk the 128 x 128 tiles).

!a_ring = !tile.buffer<10x64x128xf8E4M3FN, shared, #tile.layout<S[(10,64,128):(8192,128,1)], swizzle<3,4,3>>>
!b_ring = !tile.buffer<5x128x128xf8E4M3FN, shared, #tile.layout<S[(5,128,128):(16384,128,1)], swizzle<3,4,3>>>
!d_tile = !tile.buffer<2x64x128xbf16, shared, #tile.layout<S[(2,64,2,64):(8192,64,4096,1)], swizzle<3,3,3>>>
!sfa_ring = !tile.buffer<5x1x128x1xf32, shared>
!acc = !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!row_scales = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
!ring_s5 = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 5>
gpu.module @fp8 [#nvvm.target<chip = "sm_90a">] {

  // dense: 128x128x128 tiles, 5-stage ring, e4m3 x e4m3 -> bf16,
  // 1x128 (A) and 128x128 (B) f32 block scales
  gpu.func @fp8_blockscaled_dense_128x128x128_s5(%a: memref<?x?xf8E4M3FN, 1>, %b: memref<?x?xf8E4M3FN, 1>, %sfa: memref<?x?x1xf32, 1>, %sfb: memref<?x?xf32, 1>, %d: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32, tile.sample_sizes = array<i64: 160, 200, 1088, 330>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c_stages = arith.constant 5 : index
    %c_bm = arith.constant 128 : index
    %c_bn = arith.constant 128 : index
    %c_bk = arith.constant 128 : index
    %c_wm = arith.constant 64 : index
    %c_group = arith.constant 8 : index
    %stage_bytes = arith.constant 33280 : index
    %releasers = arith.constant 8 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %i32_128 = arith.constant 128 : i32
    %M = memref.dim %a, %c0 : memref<?x?xf8E4M3FN, 1>
    %K = memref.dim %a, %c1 : memref<?x?xf8E4M3FN, 1>
    %N = memref.dim %d, %c1 : memref<?x?xbf16, 1>
    %tiles_m = arith.ceildivui %M, %c_bm : index
    %tiles_n = arith.ceildivui %N, %c_bn : index
    %k_tiles = arith.ceildivui %K, %c_bk : index
    %tiles_per_matrix = arith.muli %tiles_m, %tiles_n : index
    %group_tiles = arith.muli %c_group, %tiles_n : index
    %tiles = arith.addi %tiles_per_matrix, %c0 : index
    %ga = tile.from_memref %a : memref<?x?xf8E4M3FN, 1> -> !tile.buffer<?x?xf8E4M3FN, global>
    %gb = tile.from_memref %b : memref<?x?xf8E4M3FN, 1> -> !tile.buffer<?x?xf8E4M3FN, global>
    %gsfa = tile.from_memref %sfa : memref<?x?x1xf32, 1> -> !tile.buffer<?x?x1xf32, global>
    %gd = tile.from_memref %d : memref<?x?xbf16, 1> -> !tile.buffer<?x?xbf16, global>
    %sa = tile.alloc_shared {alignment = 1024 : i64} : !a_ring
    %sb = tile.alloc_shared {alignment = 1024 : i64} : !b_ring
    %sc = tile.alloc_shared {alignment = 1024 : i64} : !d_tile
    %ssfa = tile.alloc_shared {alignment = 128 : i64} : !sfa_ring
    %full = nvgpu.mbarrier.create -> !ring_s5
    %empty = nvgpu.mbarrier.create -> !ring_s5
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %tid_in_wg = arith.remui %tid, %c128 : index
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      scf.for %s = %c0 to %c_stages step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !ring_s5
        nvgpu.mbarrier.init %empty[%s], %releasers : !ring_s5
      }
      tile.fence mbarrier_init
    }
    gpu.barrier
    %first_tile = gpu.block_id x
    %ctas = gpu.grid_dim x
    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {
      nvvm.setmaxregister decrease 24
      scf.if %leader {
        scf.for %t = %first_tile to %tiles step %ctas iter_args(%it0 = %c0) -> (index) {
          %group = arith.divui %t, %group_tiles : index
          %first_m = arith.muli %group, %c_group : index
          %rows_left = arith.subi %tiles_m, %first_m : index
          %group_m = arith.minui %rows_left, %c_group : index
          %in_group = arith.remui %t, %group_tiles : index
          %row_off = arith.remui %in_group, %group_m : index
          %pm = arith.addi %first_m, %row_off : index
          %pn = arith.divui %in_group, %group_m : index
          %m0 = arith.muli %pm, %c_bm : index
          %n0 = arith.muli %pn, %c_bn : index
          %valid = arith.constant true
          %b_row = arith.addi %n0, %c0 : index
          %sfb_row = arith.addi %pn, %c0 : index
          %it2 = scf.if %valid -> (index) {
            %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {
              %s = arith.remui %i, %c_stages : index
              %round = arith.divui %i, %c_stages : index
              %round_bit = arith.andi %round, %c1 : index
              %free_parity = arith.cmpi eq, %round_bit, %c0 : index
              nvgpu.mbarrier.try_wait.parity %empty[%s], %free_parity, %ticks : !ring_s5
              nvgpu.mbarrier.arrive.expect_tx %full[%s], %stage_bytes : !ring_s5
              %k0 = arith.muli %kt, %c_bk : index
              %a_half0 = arith.muli %s, %c2 : index
              %a_half1 = arith.addi %a_half0, %c1 : index
              %m1 = arith.addi %m0, %c_wm : index
              %sfa_row = arith.addi %kt, %c0 : index
              tile.copy_async %ga[%m0, %k0] to %sa[%a_half0, 0, 0] sizes [64, 128] exec thread
                  mbar(%full[%s] : !ring_s5) : !tile.buffer<?x?xf8E4M3FN, global> to !a_ring
              tile.copy_async %ga[%m1, %k0] to %sa[%a_half1, 0, 0] sizes [64, 128] exec thread
                  mbar(%full[%s] : !ring_s5) : !tile.buffer<?x?xf8E4M3FN, global> to !a_ring
              tile.copy_async %gb[%b_row, %k0] to %sb[%s, 0, 0] sizes [128, 128] exec thread
                  mbar(%full[%s] : !ring_s5) : !tile.buffer<?x?xf8E4M3FN, global> to !b_ring
              tile.copy_async %gsfa[%sfa_row, %m0, 0] to %ssfa[%s, 0, 0, 0] sizes [1, 128, 1] exec thread
                  mbar(%full[%s] : !ring_s5) : !tile.buffer<?x?x1xf32, global> to !sfa_ring
              %next = arith.addi %i, %c1 : index
              scf.yield %next : index
            }
            scf.yield %it1 : index
          } else {
            scf.yield %it0 : index
          }
          scf.yield %it2 : index
        }
      }
    } else {
      nvvm.setmaxregister increase 240
      // The warpgroup index broadcast from lane 0: warp-uniform for ptxas.
      %wg_lane_i32 = arith.index_cast %wg : index to i32
      %shfl_all_lanes = arith.constant -1 : i32
      %shfl_lane0 = arith.constant 0 : i32
      %shfl_clamp = arith.constant 31 : i32
      %wg_uniform_i32 = nvvm.shfl.sync idx %shfl_all_lanes, %wg_lane_i32, %shfl_lane0, %shfl_clamp : i32 -> i32
      %wg_uniform = arith.index_cast %wg_uniform_i32 : i32 to index
      %half = arith.subi %wg_uniform, %c1 : index
      %half_i32 = arith.index_cast %wg : index to i32
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
      %row0 = arith.muli %half, %c_wm : index
      %col0 = arith.constant 0 : index
      %true = arith.constant true
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c2_i32 = arith.constant 2 : i32
      %c_stages_i32 = arith.constant 5 : i32
      // Lane 0 of each warp releases stages.
      %releasing_lanes = arith.constant 1 : index
      %releaser = arith.cmpi ult, %lane, %releasing_lanes : index
      %acc = tile.alloc_local : !acc
      %p0 = tile.alloc_local : !acc
      %p1 = tile.alloc_local : !acc
      %sc0 = tile.alloc_local : !row_scales
      %sc1 = tile.alloc_local : !row_scales
      %k_begin_i32 = arith.index_cast %c0 : index to i32
      %k_end_i32 = arith.index_cast %k_tiles : index to i32
      %k_count = arith.subi %k_end_i32, %k_begin_i32 : i32
      %k_pairs = arith.divui %k_count, %c2_i32 : i32
      %k_odd_count = arith.remui %k_count, %c2_i32 : i32
      %k_odd = arith.cmpi ne, %k_odd_count, %c0_i32 : i32
      %k_last_i32 = arith.subi %k_end_i32, %c1_i32 : i32
      scf.for %t = %first_tile to %tiles step %ctas iter_args(%s_t = %c0_i32, %ph_t = %false) -> (i32, i1) {
        %group = arith.divui %t, %group_tiles : index
        %first_m = arith.muli %group, %c_group : index
        %rows_left = arith.subi %tiles_m, %first_m : index
        %group_m = arith.minui %rows_left, %c_group : index
        %in_group = arith.remui %t, %group_tiles : index
        %row_off = arith.remui %in_group, %group_m : index
        %pm = arith.addi %first_m, %row_off : index
        %pn = arith.divui %in_group, %group_m : index
        %m0 = arith.muli %pm, %c_bm : index
        %n0 = arith.muli %pn, %c_bn : index
        %valid = arith.constant true
        %b_row = arith.addi %n0, %c0 : index
        %sfb_row = arith.addi %pn, %c0 : index
        %s_tile, %ph_tile = scf.if %valid -> (i32, i1) {
          // A warpgroup whose rows all lie past M computes nothing (below).
          %wg_row = arith.addi %m0, %row0 : index
          %wg_has_rows = arith.cmpi ult, %wg_row, %M : index
          %s_w, %ph_w = scf.if %wg_has_rows -> (i32, i1) {
            tile.fill %acc, %zero : !acc, f32
            // The first promotion of %p1 (before any block) adds zeros.
            tile.fill %p1, %zero : !acc, f32
            tile.fill %sc1, %zero : !row_scales, f32
            %pair_span = arith.muli %k_pairs, %c2_i32 : i32
            %pairs_end = arith.addi %k_begin_i32, %pair_span : i32
            %s_end, %ph_end, %sfb_last, %s_last, %had_pairs = scf.for %kt0_i32 = %k_begin_i32 to %pairs_end step %c2_i32
                iter_args(%s = %s_t, %ph = %ph_t, %sfb_p1 = %zero, %s_p1 = %c0_i32, %has_prev = %false) -> (i32, i1, f32, i32, i1) : i32 {
              %kt0 = arith.index_cast %kt0_i32 : i32 to index
              %si_e = arith.index_cast %s : i32 to index
              // B's block scale: an L2 hit, in flight during the stage wait.
              %sfb_e = memref.load %sfb[%sfb_row, %kt0] : memref<?x?xf32, 1>
              nvgpu.mbarrier.try_wait.parity %full[%si_e], %ph, %ticks : !ring_s5
              %pair_e = arith.muli %si_e, %c2 : index
              %a_stage_e = arith.addi %pair_e, %half : index
              %b_stage_e = arith.addi %si_e, %c0 : index
              tile.gemm_async %p0[0, 0], %sa[%a_stage_e, 0, 0], %sb[%b_stage_e, 0, 0] sizes [64, 128, 128]
                  exec warpgroup {transpose_b} : !acc, !a_ring, !b_ring
              tile.commit_group wgmma
              // This warpgroup's row scales, while the wgmmas run.
              tile.load %ssfa[%si_e, 0, %row0, 0] to %sc0 : !sfa_ring to !row_scales
              // Block kt0 - 1 (in %p1) retires; block kt0 stays in flight.
              tile.wait_group wgmma, 1
              %releases_prev = arith.andi %releaser, %has_prev : i1
              scf.if %releases_prev {
                %si_q = arith.index_cast %s_p1 : i32 to index
                nvgpu.mbarrier.arrive %empty[%si_q] : !ring_s5 -> !nvgpu.mbarrier.token
              }
              tile.map ins(%sc1 : !row_scales) outs(%sc1 : !row_scales) {
              ^bb0(%sa_v: f32, %si: index, %sj: index):
                %both = arith.mulf %sa_v, %sfb_p1 : f32
                tile.yield %both : f32
              }
              tile.map ins(%acc, %p1, %sc1 : !acc, !acc, !row_scales) outs(%acc : !acc) {
              ^bb0(%x: f32, %p: f32, %rs: f32, %pi: index, %pj: index):
                %y = math.fma %p, %rs, %x : f32
                tile.yield %y : f32
              }
              %kt1 = arith.addi %kt0, %c1 : index
              %s_inc_o = arith.addi %s, %c1_i32 : i32
              %wraps_o = arith.cmpi eq, %s_inc_o, %c_stages_i32 : i32
              %s_o = arith.select %wraps_o, %c0_i32, %s_inc_o : i32
              %ph_o = arith.xori %ph, %wraps_o : i1
              %si_o = arith.index_cast %s_o : i32 to index
              // B's block scale: an L2 hit, in flight during the stage wait.
              %sfb_o = memref.load %sfb[%sfb_row, %kt1] : memref<?x?xf32, 1>
              nvgpu.mbarrier.try_wait.parity %full[%si_o], %ph_o, %ticks : !ring_s5
              %pair_o = arith.muli %si_o, %c2 : index
              %a_stage_o = arith.addi %pair_o, %half : index
              %b_stage_o = arith.addi %si_o, %c0 : index
              tile.gemm_async %p1[0, 0], %sa[%a_stage_o, 0, 0], %sb[%b_stage_o, 0, 0] sizes [64, 128, 128]
                  exec warpgroup {transpose_b} : !acc, !a_ring, !b_ring
              tile.commit_group wgmma
              // This warpgroup's row scales, while the wgmmas run.
              tile.load %ssfa[%si_o, 0, %row0, 0] to %sc1 : !sfa_ring to !row_scales
              // Block kt0 retires; block kt0 + 1 stays in flight.
              tile.wait_group wgmma, 1
              scf.if %releaser {
                %si_r = arith.index_cast %s : i32 to index
                nvgpu.mbarrier.arrive %empty[%si_r] : !ring_s5 -> !nvgpu.mbarrier.token
              }
              tile.map ins(%sc0 : !row_scales) outs(%sc0 : !row_scales) {
              ^bb0(%sa_v: f32, %si: index, %sj: index):
                %both = arith.mulf %sa_v, %sfb_e : f32
                tile.yield %both : f32
              }
              tile.map ins(%acc, %p0, %sc0 : !acc, !acc, !row_scales) outs(%acc : !acc) {
              ^bb0(%x: f32, %p: f32, %rs: f32, %pi: index, %pj: index):
                %y = math.fma %p, %rs, %x : f32
                tile.yield %y : f32
              }
              %s_inc_n = arith.addi %s_o, %c1_i32 : i32
              %wraps_n = arith.cmpi eq, %s_inc_n, %c_stages_i32 : i32
              %s_n = arith.select %wraps_n, %c0_i32, %s_inc_n : i32
              %ph_n = arith.xori %ph_o, %wraps_n : i1
              scf.yield %s_n, %ph_n, %sfb_o, %s_o, %true : i32, i1, f32, i32, i1
            }
            %releases_pair_end = arith.andi %releaser, %had_pairs : i1
            %s_after, %ph_after = scf.if %k_odd -> (i32, i1) {
              %k_last = arith.index_cast %k_last_i32 : i32 to index
              // The odd last block into %p0, promoted after the last pair's.
              %si_t = arith.index_cast %s_end : i32 to index
              // B's block scale: an L2 hit, in flight during the stage wait.
              %sfb_t = memref.load %sfb[%sfb_row, %k_last] : memref<?x?xf32, 1>
              nvgpu.mbarrier.try_wait.parity %full[%si_t], %ph_end, %ticks : !ring_s5
              %pair_t = arith.muli %si_t, %c2 : index
              %a_stage_t = arith.addi %pair_t, %half : index
              %b_stage_t = arith.addi %si_t, %c0 : index
              tile.gemm_async %p0[0, 0], %sa[%a_stage_t, 0, 0], %sb[%b_stage_t, 0, 0] sizes [64, 128, 128]
                  exec warpgroup {transpose_b} : !acc, !a_ring, !b_ring
              tile.commit_group wgmma
              // This warpgroup's row scales, while the wgmmas run.
              tile.load %ssfa[%si_t, 0, %row0, 0] to %sc0 : !sfa_ring to !row_scales
              tile.wait_group wgmma, 1
              scf.if %releases_pair_end {
                %si_u = arith.index_cast %s_last : i32 to index
                nvgpu.mbarrier.arrive %empty[%si_u] : !ring_s5 -> !nvgpu.mbarrier.token
              }
              tile.map ins(%sc1 : !row_scales) outs(%sc1 : !row_scales) {
              ^bb0(%sa_v: f32, %si: index, %sj: index):
                %both = arith.mulf %sa_v, %sfb_last : f32
                tile.yield %both : f32
              }
              tile.map ins(%acc, %p1, %sc1 : !acc, !acc, !row_scales) outs(%acc : !acc) {
              ^bb0(%x: f32, %p: f32, %rs: f32, %pi: index, %pj: index):
                %y = math.fma %p, %rs, %x : f32
                tile.yield %y : f32
              }
              tile.wait_group wgmma, 0
              scf.if %releaser {
                %si_v = arith.index_cast %s_end : i32 to index
                nvgpu.mbarrier.arrive %empty[%si_v] : !ring_s5 -> !nvgpu.mbarrier.token
              }
              tile.map ins(%sc0 : !row_scales) outs(%sc0 : !row_scales) {
              ^bb0(%sa_v: f32, %si: index, %sj: index):
                %both = arith.mulf %sa_v, %sfb_t : f32
                tile.yield %both : f32
              }
              tile.map ins(%acc, %p0, %sc0 : !acc, !acc, !row_scales) outs(%acc : !acc) {
              ^bb0(%x: f32, %p: f32, %rs: f32, %pi: index, %pj: index):
                %y = math.fma %p, %rs, %x : f32
                tile.yield %y : f32
              }
              %s_inc_v = arith.addi %s_end, %c1_i32 : i32
              %wraps_v = arith.cmpi eq, %s_inc_v, %c_stages_i32 : i32
              %s_v = arith.select %wraps_v, %c0_i32, %s_inc_v : i32
              %ph_v = arith.xori %ph_end, %wraps_v : i1
              scf.yield %s_v, %ph_v : i32, i1
            } else {
              tile.wait_group wgmma, 0
              scf.if %releases_pair_end {
                %si_w = arith.index_cast %s_last : i32 to index
                nvgpu.mbarrier.arrive %empty[%si_w] : !ring_s5 -> !nvgpu.mbarrier.token
              }
              tile.map ins(%sc1 : !row_scales) outs(%sc1 : !row_scales) {
              ^bb0(%sa_v: f32, %si: index, %sj: index):
                %both = arith.mulf %sa_v, %sfb_last : f32
                tile.yield %both : f32
              }
              tile.map ins(%acc, %p1, %sc1 : !acc, !acc, !row_scales) outs(%acc : !acc) {
              ^bb0(%x: f32, %p: f32, %rs: f32, %pi: index, %pj: index):
                %y = math.fma %p, %rs, %x : f32
                tile.yield %y : f32
              }
              scf.yield %s_end, %ph_end : i32, i1
            }
            // Epilogue: the previous tile's TMA store must have read this
            // warpgroup's half of the C tile before it is overwritten.
            scf.if %wg_leader {
              tile.wait_group bulk, 0 {read}
            }
            nvvm.barrier id = %half_i32 number_of_threads = %i32_128
            tile.store %acc to %sc[%half, 0, 0] : !acc to !d_tile
            tile.fence proxy_async
            nvvm.barrier id = %half_i32 number_of_threads = %i32_128
            scf.if %wg_leader {
              %m_half = arith.addi %m0, %row0 : index
              %n_half = arith.addi %n0, %col0 : index
              tile.copy_async %sc[%half, 0, 0] to %gd[%m_half, %n_half] sizes [64, 128] exec thread
                  : !d_tile to !tile.buffer<?x?xbf16, global>
              tile.commit_group bulk
            }
            scf.yield %s_after, %ph_after : i32, i1
          } else {
            // No rows: wait for each K block's stage and release it.
            %s_d, %ph_d = scf.for %kd_i32 = %k_begin_i32 to %k_end_i32 step %c1_i32
                iter_args(%s = %s_t, %ph = %ph_t) -> (i32, i1) : i32 {
              %si_d = arith.index_cast %s : i32 to index
              nvgpu.mbarrier.try_wait.parity %full[%si_d], %ph, %ticks : !ring_s5
              scf.if %releaser {
                nvgpu.mbarrier.arrive %empty[%si_d] : !ring_s5 -> !nvgpu.mbarrier.token
              }
            %s_inc_d = arith.addi %s, %c1_i32 : i32
            %wraps_d = arith.cmpi eq, %s_inc_d, %c_stages_i32 : i32
            %s_d = arith.select %wraps_d, %c0_i32, %s_inc_d : i32
            %ph_d = arith.xori %ph, %wraps_d : i1
              scf.yield %s_d, %ph_d : i32, i1
            }
            scf.yield %s_d, %ph_d : i32, i1
          }
          scf.yield %s_w, %ph_w : i32, i1
        } else {
          scf.yield %s_t, %ph_t : i32, i1
        }
        scf.yield %s_tile, %ph_tile : i32, i1
      }
      // Before exiting: the last TMA store has read the staging tile (its
      // writes complete with the grid).
      scf.if %wg_leader {
        tile.wait_group bulk, 0 {read}
      }
    }
    gpu.return
  }
}

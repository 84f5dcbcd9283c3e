// FlashAttention forward in tile IR: one kernel of the attention family
// (head dim 128, causal, bf16), written out with its comments by
//   bench/Kernels/gen_attention_kernels.py OUT.mlir OUT.json --example 128 causal bf16
// (test/Compile/attention-family.mlir checks that this file is that output).
// docs/Attention.md walks through it. What it computes, per (batch, head):
//   O = softmax(Q·Kᵀ·scale, causal) · V,  LSE = log Σ_j exp(Q·Kᵀ·scale)
// with Q, K, V, O [batch, heads, seq, dim] tensors (any strides a tensor map
// takes), K/V heads shared by groups of Q heads, any sequence lengths. It is
// persistent: launch 384 threads per CTA and a grid of
// min(ceil(ceil(Sq / 128) · Hq · batch / 2), SMs) CTAs, each walking pairs
// of 128-row query tiles; the LSE buffer has batch·Hq·ceil(Sq / 64)·64 rows.

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 12>
!gmem = !tile.buffer<?x?x?x?xbf16, global>
!q_halves = !tile.buffer<2x64x128xbf16, shared, #tile.layout<S[(2,64,2,64):(8192,64,4096,1)], swizzle<3,3,3>>>
!q_buffers = !tile.buffer<4x64x128xbf16, shared, #tile.layout<S[(4,64,2,64):(8192,64,4096,1)], swizzle<3,3,3>>>
!kv_ring = !tile.buffer<2x128x128xbf16, shared, #tile.layout<S[(2,128,2,64):(16384,64,8192,1)], swizzle<3,3,3>>>
!lse_rows = !tile.buffer<2x64x1xf32, shared>
!acc = !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!p_regs = !tile.buffer<64x128xbf16, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!row = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>

gpu.module @attention [#nvvm.target<chip = "sm_90a">] {
  // attention_d128_causal_bf16: head dim 128, causal, bf16 in, f32 accumulation.
  gpu.func @attention_d128_causal_bf16(%q: memref<?x?x?x?xbf16, 1>, %k: memref<?x?x?x?xbf16, 1>,
      %v: memref<?x?x?x?xbf16, 1>, %o: memref<?x?x?x?xbf16, 1>,
      %lse: memref<?x1xf32, 1>, %scale: f32) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32, tile.sample_grid = array<i64: 30000, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tile_rows = arith.constant 128 : index
    %consumer_wgs = arith.constant 2 : index
    %bn = arith.constant 128 : index
    %stages = arith.constant 2 : index
    %q_free = arith.constant 9 : index
    %c_q_full_2 = arith.constant 10 : index
    %ticks = arith.constant 1000000 : index
    %q_bytes = arith.constant 32768 : index
    %kv_bytes = arith.constant 32768 : index
    %consumer_warps = arith.constant 8 : index
    %wg_threads = arith.constant 128 : i32
    %false = arith.constant false
    %true = arith.constant true
    // Sizes, and the K/V head of each Q head (GQA).
    %q_heads = memref.dim %q, %c1 : memref<?x?x?x?xbf16, 1>
    %seq_q = memref.dim %q, %c2 : memref<?x?x?x?xbf16, 1>
    %kv_heads = memref.dim %k, %c1 : memref<?x?x?x?xbf16, 1>
    %seq_k = memref.dim %k, %c2 : memref<?x?x?x?xbf16, 1>
    %group = arith.divui %q_heads, %kv_heads : index
    %q_blocks_all = arith.ceildivui %seq_q, %tile_rows : index
    %k_blocks_all = arith.ceildivui %seq_k, %bn : index
    // The tiles: (query block, head, batch), query blocks of one head adjacent
    // so that the CTAs working at once share its K and V in L2. Causal: a
    // head's blocks in the order last, first, second to last, second, ...,
    // and each CTA takes two adjacent tiles at a time, so every pair holds
    // about the same number of K/V blocks and the round robin stays balanced.
    %batches = memref.dim %q, %c0 : memref<?x?x?x?xbf16, 1>
    %heads_batches = arith.muli %q_heads, %batches : index
    %tiles = arith.muli %q_blocks_all, %heads_batches : index
    %tiles_per_unit = arith.constant 2 : index
    %units = arith.ceildivui %tiles, %tiles_per_unit : index
    %block_x = gpu.block_id x
    %unit_step = gpu.grid_dim x
    // This CTA's units: first_unit, first_unit + grid, ...; its tiles: those of
    // its units, less the missing second tile of an odd count's last unit.
    %first_unit = arith.minui %block_x, %units : index
    %units_after = arith.subi %units, %first_unit : index
    %my_units = arith.ceildivui %units_after, %unit_step : index
    %my_unit_tiles = arith.muli %my_units, %tiles_per_unit : index
    %units_tiles = arith.muli %units, %tiles_per_unit : index
    %missing = arith.subi %units_tiles, %tiles : index
    %last_unit = arith.subi %units, %c1 : index
    %to_last_unit = arith.subi %last_unit, %first_unit : index
    %last_offset = arith.remui %to_last_unit, %unit_step : index
    %holds_last = arith.cmpi eq, %last_offset, %c0 : index
    %has_units = arith.cmpi ugt, %my_units, %c0 : index
    %holds_last_unit = arith.andi %holds_last, %has_units : i1
    %cut = arith.select %holds_last_unit, %missing, %c0 : index
    %my_tiles = arith.subi %my_unit_tiles, %cut : index
    // Q (two buffers of 2 × 64 rows, one part per consumer), the K and V rings, the LSE rows; O in its own halves.
    %gq = tile.from_memref %q : memref<?x?x?x?xbf16, 1> -> !gmem
    %gk = tile.from_memref %k : memref<?x?x?x?xbf16, 1> -> !gmem
    %gv = tile.from_memref %v : memref<?x?x?x?xbf16, 1> -> !gmem
    %go = tile.from_memref %o : memref<?x?x?x?xbf16, 1> -> !gmem
    %glse = tile.from_memref %lse : memref<?x1xf32, 1> -> !tile.buffer<?x1xf32, global>
    %sq = tile.alloc_shared {alignment = 1024 : i64} : !q_buffers
    %sk = tile.alloc_shared {alignment = 1024 : i64} : !kv_ring
    %sv = tile.alloc_shared {alignment = 1024 : i64} : !kv_ring
    %slse = tile.alloc_shared {alignment = 128 : i64} : !lse_rows
    %so = tile.alloc_shared {alignment = 1024 : i64} : !q_halves
    // Barriers: [0] Q landed; [1 + s] K of stage s landed, [3 + s] V landed,
    // [5 + s] K of stage s free again, [7 + s] V of stage s free
    // again (one arrival per consumer warp): K is freed once its Q·Kᵀ retired, before
    // the P·V of its block, so the producer loads the next K a step earlier.
    // [9] Q free for a later tile: one arrival per consumer warp once its last Q·Kᵀ retired.
    // Q is double-buffered: tile i uses Q buffer i mod 2, whose barriers are
    // [0] and [9] for buffer 0, [10] and [11] for buffer 1.
    %bars = nvgpu.mbarrier.create -> !bars
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %tid_in_wg = arith.remui %tid, %c128 : index
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      scf.for %s = %c0 to %stages step %c1 {
        %kb = arith.addi %s, %c1 : index
        %vb0 = arith.addi %s, %stages : index
        %vb = arith.addi %vb0, %c1 : index
        %eb0 = arith.addi %vb0, %stages : index
        %eb = arith.addi %eb0, %c1 : index
        %fb0 = arith.addi %eb0, %stages : index
        %fb = arith.addi %fb0, %c1 : index
        nvgpu.mbarrier.init %bars[%kb], %c1 : !bars
        nvgpu.mbarrier.init %bars[%vb], %c1 : !bars
        nvgpu.mbarrier.init %bars[%eb], %consumer_warps : !bars
        nvgpu.mbarrier.init %bars[%fb], %consumer_warps : !bars
      }
      %q_free_arrivals = arith.constant 8 : index
      nvgpu.mbarrier.init %bars[%q_free], %q_free_arrivals : !bars
      %q_full_2 = arith.constant 10 : index
      %q_free_2 = arith.constant 11 : index
      nvgpu.mbarrier.init %bars[%q_full_2], %c1 : !bars
      nvgpu.mbarrier.init %bars[%q_free_2], %q_free_arrivals : !bars
      tile.fence mbarrier_init
    }
    gpu.barrier
    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {
    // Producer: registers to the consumers; thread 0 walks this CTA's tiles and,
    // per tile, loads K of block 0, then Q once the consumers freed it, then V of
    // block 0 and the other K/V blocks; block n of the ring (counted across
    // tiles) goes to stage n mod 2 once both consumers freed it.
      nvvm.setmaxregister decrease 24
      scf.if %leader {
        %end_g = scf.for %i = %c0 to %my_tiles step %c1
            iter_args(%g = %c0) -> (index) {
          %unit_n = arith.divui %i, %tiles_per_unit : index
          %unit_offset = arith.muli %unit_n, %unit_step : index
          %u = arith.addi %first_unit, %unit_offset : index
          %t_in_unit = arith.remui %i, %tiles_per_unit : index
          %t_unit = arith.muli %u, %tiles_per_unit : index
          %t = arith.addi %t_unit, %t_in_unit : index
          %t32 = arith.index_castui %t : index to i32
          %q_blocks32 = arith.index_castui %q_blocks_all : index to i32
          %bh32 = arith.divui %t32, %q_blocks32 : i32
          %pos32 = arith.remui %t32, %q_blocks32 : i32
          %pos = arith.index_castui %pos32 : i32 to index
          %pos_half = arith.divui %pos, %c2 : index
          %pos_bit = arith.remui %pos, %c2 : index
          %pos_odd = arith.cmpi ne, %pos_bit, %c0 : index
          %last_q_block = arith.subi %q_blocks_all, %c1 : index
          %from_end = arith.subi %last_q_block, %pos_half : index
          %q_block = arith.select %pos_odd, %pos_half, %from_end : index
          %q_heads32 = arith.index_castui %q_heads : index to i32
          %head32 = arith.remui %bh32, %q_heads32 : i32
          %batch32 = arith.divui %bh32, %q_heads32 : i32
          %head = arith.index_castui %head32 : i32 to index
          %batch = arith.index_castui %batch32 : i32 to index
          %kv_head = arith.divui %head, %group : index
          %q0 = arith.muli %q_block, %tile_rows : index
          %q_end = arith.addi %q0, %tile_rows : index
          %k_blocks_diag = arith.ceildivui %q_end, %bn : index
          %k_blocks = arith.minui %k_blocks_all, %k_blocks_diag : index
          %first = arith.addi %c0, %c0 : index
          %g_first = arith.addi %g, %first : index
          %s_first = arith.remui %g_first, %stages : index
          %round_first = arith.divui %g_first, %stages : index
          %round_bit_first = arith.remui %round_first, %c2 : index
          %free_parity_first = arith.cmpi eq, %round_bit_first, %c0 : index
          %parity_first = arith.cmpi ne, %round_bit_first, %c0 : index
          %kb_first = arith.addi %s_first, %c1 : index
          %vb0_first = arith.addi %s_first, %stages : index
          %vb_first = arith.addi %vb0_first, %c1 : index
          %eb0_first = arith.addi %vb0_first, %stages : index
          %eb_first = arith.addi %eb0_first, %c1 : index
          %fb0_first = arith.addi %eb0_first, %stages : index
          %fb_first = arith.addi %fb0_first, %c1 : index
          nvgpu.mbarrier.try_wait.parity %bars[%eb_first], %free_parity_first, %ticks : !bars
          %key0_first = arith.muli %first, %bn : index
          nvgpu.mbarrier.arrive.expect_tx %bars[%kb_first], %kv_bytes : !bars
          tile.copy_async %gk[%batch, %kv_head, %key0_first, 0] to %sk[%s_first, 0, 0] sizes [128, 128] exec thread
              mbar(%bars[%kb_first] : !bars) : !gmem to !kv_ring
          %q_buf = arith.remui %i, %c2 : index
          %q_use = arith.divui %i, %c2 : index
          %q_full_bar = arith.muli %q_buf, %c_q_full_2 : index
          %q_free_step = arith.muli %q_buf, %c2 : index
          %q_free_bar = arith.addi %q_free, %q_free_step : index
          %q_round_bit = arith.remui %q_use, %c2 : index
          %q_free_parity = arith.cmpi eq, %q_round_bit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %bars[%q_free_bar], %q_free_parity, %ticks : !bars
          nvgpu.mbarrier.arrive.expect_tx %bars[%q_full_bar], %q_bytes : !bars
          scf.for %h = %c0 to %consumer_wgs step %c1 {
            %row_in = arith.muli %h, %c64 : index
            %row = arith.addi %q0, %row_in : index
            %q_slot_base = arith.muli %q_buf, %consumer_wgs : index
            %q_slot = arith.addi %q_slot_base, %h : index
            tile.copy_async %gq[%batch, %head, %row, 0] to %sq[%q_slot, 0, 0] sizes [64, 128] exec thread
                mbar(%bars[%q_full_bar] : !bars) : !gmem to !q_buffers
          }
          nvgpu.mbarrier.try_wait.parity %bars[%fb_first], %free_parity_first, %ticks : !bars
          nvgpu.mbarrier.arrive.expect_tx %bars[%vb_first], %kv_bytes : !bars
          tile.copy_async %gv[%batch, %kv_head, %key0_first, 0] to %sv[%s_first, 0, 0] sizes [128, 128] exec thread
              mbar(%bars[%vb_first] : !bars) : !gmem to !kv_ring
          scf.for %j = %c1 to %k_blocks step %c1 {
            %g_j = arith.addi %g, %j : index
            %s_j = arith.remui %g_j, %stages : index
            %round_j = arith.divui %g_j, %stages : index
            %round_bit_j = arith.remui %round_j, %c2 : index
            %free_parity_j = arith.cmpi eq, %round_bit_j, %c0 : index
            %parity_j = arith.cmpi ne, %round_bit_j, %c0 : index
            %kb_j = arith.addi %s_j, %c1 : index
            %vb0_j = arith.addi %s_j, %stages : index
            %vb_j = arith.addi %vb0_j, %c1 : index
            %eb0_j = arith.addi %vb0_j, %stages : index
            %eb_j = arith.addi %eb0_j, %c1 : index
            %fb0_j = arith.addi %eb0_j, %stages : index
            %fb_j = arith.addi %fb0_j, %c1 : index
            nvgpu.mbarrier.try_wait.parity %bars[%eb_j], %free_parity_j, %ticks : !bars
            %key0_j = arith.muli %j, %bn : index
            nvgpu.mbarrier.arrive.expect_tx %bars[%kb_j], %kv_bytes : !bars
            tile.copy_async %gk[%batch, %kv_head, %key0_j, 0] to %sk[%s_j, 0, 0] sizes [128, 128] exec thread
                mbar(%bars[%kb_j] : !bars) : !gmem to !kv_ring
            nvgpu.mbarrier.try_wait.parity %bars[%fb_j], %free_parity_j, %ticks : !bars
            nvgpu.mbarrier.arrive.expect_tx %bars[%vb_j], %kv_bytes : !bars
            tile.copy_async %gv[%batch, %kv_head, %key0_j, 0] to %sv[%s_j, 0, 0] sizes [128, 128] exec thread
                mbar(%bars[%vb_j] : !bars) : !gmem to !kv_ring
          }
          %g_next = arith.addi %g, %k_blocks : index
          scf.yield %g_next : index
        }
      }
    } else {
    // Consumers: warpgroup 1 owns rows q0 .. q0 + 63, warpgroup 2 the next 64.
      nvvm.setmaxregister increase 240
      %half = arith.subi %wg, %c1 : index
      %row_in_cta = arith.muli %half, %c64 : index
      %wg_barrier = arith.index_cast %wg : index to i32
      %releaser = arith.cmpi eq, %lane, %c0 : index
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
      %acc = tile.alloc_local : !acc
      %m = tile.alloc_local : !row
      %l = tile.alloc_local : !row
      %zero = arith.constant 0.0 : f32
      %neg_inf = arith.constant 0xFF800000 : f32
      %log2e = arith.constant 1.44269504 : f32
      %scale_log2 = arith.mulf %scale, %log2e : f32
      %s_acc = tile.alloc_local : !acc
      %p = tile.alloc_local : !p_regs
      %block_max = tile.alloc_local : !row
      %alpha = tile.alloc_local : !row
      %row_sum = tile.alloc_local : !row
    // Ping-pong: the consumers take turns issuing their GEMMs (named barriers
    // 3 and 4, 256 threads), so one's softmax runs under the other's GEMMs;
    // warpgroup 1 goes first. The turns run on across tiles (both take the
    // same number per tile), so that neither waits at a tile's start for the
    // other's epilogue.
      %c2_i32 = arith.constant 2 : i32
      %c7_i32 = arith.constant 7 : i32
      %turn_threads = arith.constant 256 : i32
      %my_turn_id = arith.addi %wg_barrier, %c2_i32 : i32
      %other_turn_id = arith.subi %c7_i32, %my_turn_id : i32
      %second_consumer = arith.cmpi eq, %wg, %c2 : index
      scf.if %second_consumer {
        tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)
      }
      %end_g = scf.for %i = %c0 to %my_tiles step %c1
          iter_args(%g = %c0) -> (index) {
        %unit_n = arith.divui %i, %tiles_per_unit : index
        %unit_offset = arith.muli %unit_n, %unit_step : index
        %u = arith.addi %first_unit, %unit_offset : index
        %t_in_unit = arith.remui %i, %tiles_per_unit : index
        %t_unit = arith.muli %u, %tiles_per_unit : index
        %t = arith.addi %t_unit, %t_in_unit : index
        %t32 = arith.index_castui %t : index to i32
        %q_blocks32 = arith.index_castui %q_blocks_all : index to i32
        %bh32 = arith.divui %t32, %q_blocks32 : i32
        %pos32 = arith.remui %t32, %q_blocks32 : i32
        %pos = arith.index_castui %pos32 : i32 to index
        %pos_half = arith.divui %pos, %c2 : index
        %pos_bit = arith.remui %pos, %c2 : index
        %pos_odd = arith.cmpi ne, %pos_bit, %c0 : index
        %last_q_block = arith.subi %q_blocks_all, %c1 : index
        %from_end = arith.subi %last_q_block, %pos_half : index
        %q_block = arith.select %pos_odd, %pos_half, %from_end : index
        %q0 = arith.muli %q_block, %tile_rows : index
        %q_end = arith.addi %q0, %tile_rows : index
        %k_blocks_diag = arith.ceildivui %q_end, %bn : index
        %k_blocks = arith.minui %k_blocks_all, %k_blocks_diag : index
        %row0 = arith.addi %q0, %row_in_cta : index
        tile.fill %acc, %zero : !acc, f32
        tile.fill %m, %neg_inf : !row, f32
        tile.fill %l, %zero : !row, f32
        %q_buf = arith.remui %i, %c2 : index
        %q_use = arith.divui %i, %c2 : index
        %q_full_bar = arith.muli %q_buf, %c_q_full_2 : index
        %q_free_step = arith.muli %q_buf, %c2 : index
        %q_free_bar = arith.addi %q_free, %q_free_step : index
        %q_half_base = arith.muli %q_buf, %consumer_wgs : index
        %q_half = arith.addi %q_half_base, %half : index
        %q_round_bit = arith.remui %q_use, %c2 : index
        %q_parity = arith.cmpi ne, %q_round_bit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %bars[%q_full_bar], %q_parity, %ticks : !bars
      // Block 0 first: S, its softmax, P. Then each step j issues S for block j + 1
      // before O += P·V of block j, and runs block j + 1's softmax while that
      // P·V is on the tensor cores (FlashAttention-3's intra-warpgroup overlap);
      // the last block's P·V ends the loop.
        %first = arith.addi %c0, %c0 : index
        %g_first = arith.addi %g, %first : index
        %s_first = arith.remui %g_first, %stages : index
        %round_first = arith.divui %g_first, %stages : index
        %round_bit_first = arith.remui %round_first, %c2 : index
        %free_parity_first = arith.cmpi eq, %round_bit_first, %c0 : index
        %parity_first = arith.cmpi ne, %round_bit_first, %c0 : index
        %kb_first = arith.addi %s_first, %c1 : index
        %vb0_first = arith.addi %s_first, %stages : index
        %vb_first = arith.addi %vb0_first, %c1 : index
        %eb0_first = arith.addi %vb0_first, %stages : index
        %eb_first = arith.addi %eb0_first, %c1 : index
        %fb0_first = arith.addi %eb0_first, %stages : index
        %fb_first = arith.addi %fb0_first, %c1 : index
        tile.named_barrier id(%my_turn_id) threads(%turn_threads)
        nvgpu.mbarrier.try_wait.parity %bars[%kb_first], %parity_first, %ticks : !bars
        tile.gemm_async %s_acc[0, 0], %sq[%q_half, 0, 0], %sk[%s_first, 0, 0] sizes [64, 128, 128]
            exec warpgroup accumulate(%false) {transpose_b} : !acc, !q_buffers, !kv_ring
        tile.commit_group wgmma
        tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)
        tile.wait_group wgmma, 0
        scf.if %releaser {
          nvgpu.mbarrier.arrive %bars[%eb_first] : !bars -> !nvgpu.mbarrier.token
        }
      // Softmax of S. Where a block needs it, keys from the row's limit on (Sk;
      // causal, min(query + 1, Sk)) are -inf: in i32, an add, a compare and a
      // select per element.
        %key_base_first = arith.muli %first, %bn : index
        %key_end_first = arith.addi %key_base_first, %bn : index
        %key_last_first = arith.subi %key_end_first, %c1 : index
        %past_end_first = arith.cmpi ugt, %key_end_first, %seq_k : index
        %diagonal_first = arith.cmpi ugt, %key_last_first, %row0 : index
        %needs_mask_first = arith.ori %past_end_first, %diagonal_first : i1
        scf.if %needs_mask_first {
          %key_base32_first = arith.index_cast %key_base_first : index to i32
          %seq_k32_first = arith.index_cast %seq_k : index to i32
          %row0_32_first = arith.index_cast %row0 : index to i32
          %c1_i32_first = arith.constant 1 : i32
          %query_end1_first = arith.addi %row0_32_first, %c1_i32_first overflow<nsw> : i32
          tile.map ins(%s_acc : !acc) outs(%s_acc : !acc) {
          ^bb0(%x: f32, %row: index, %col: index):
            %row32 = arith.index_cast %row : index to i32
            %query_end = arith.addi %query_end1_first, %row32 : i32
            %limit = arith.minsi %query_end, %seq_k32_first : i32
            %col32 = arith.index_cast %col : index to i32
            %key = arith.addi %key_base32_first, %col32 overflow<nsw> : i32
            %masked = arith.cmpi sge, %key, %limit : i32
            %r = arith.select %masked, %neg_inf, %x : f32
            tile.yield %r : f32
          }
        }
        tile.reduce <max> %s_acc dims [1] into %block_max : !acc into !row
        tile.map ins(%m, %block_max : !row, !row) outs(%alpha : !row) {
        ^bb0(%old: f32, %blk: f32, %row: index, %col: index):
          %new = arith.maximumf %old, %blk : f32
          %diff = arith.subf %old, %new : f32
          %scaled = arith.mulf %diff, %scale_log2 : f32
          %a = math.exp2 %scaled : f32
          tile.yield %a : f32
        }
        tile.map ins(%m, %block_max : !row, !row) outs(%m : !row) {
        ^bb0(%old: f32, %blk: f32, %row: index, %col: index):
          %new = arith.maximumf %old, %blk : f32
          tile.yield %new : f32
        }
        tile.map ins(%s_acc, %m : !acc, !row) outs(%s_acc : !acc) {
        ^bb0(%x: f32, %max: f32, %row: index, %col: index):
          %max_scaled = arith.mulf %max, %scale_log2 : f32
          %offset = arith.negf %max_scaled : f32
          %shifted = math.fma %x, %scale_log2, %offset : f32
          %e = math.exp2 %shifted : f32
          tile.yield %e : f32
        }
        tile.reduce <add> %s_acc dims [1] into %row_sum : !acc into !row
        tile.map ins(%l, %alpha, %row_sum : !row, !row, !row) outs(%l : !row) {
        ^bb0(%old: f32, %a: f32, %sum: f32, %row: index, %col: index):
          %kept = arith.mulf %old, %a : f32
          %new = arith.addf %kept, %sum : f32
          tile.yield %new : f32
        }
        tile.map ins(%acc, %alpha : !acc, !row) outs(%acc : !acc) {
        ^bb0(%x: f32, %a: f32, %row: index, %col: index):
          %r = arith.mulf %x, %a : f32
          tile.yield %r : f32
        }
        tile.convert %s_acc to %p : !acc to !p_regs
      // Every block but the last: S of block j + 1 issued before P·V of block j.
        %k_steps = arith.subi %k_blocks, %c1 : index
        scf.for %j = %c0 to %k_steps step %c1 {
          %n = arith.addi %j, %c1 : index
          %g_j = arith.addi %g, %j : index
          %s_j = arith.remui %g_j, %stages : index
          %round_j = arith.divui %g_j, %stages : index
          %round_bit_j = arith.remui %round_j, %c2 : index
          %free_parity_j = arith.cmpi eq, %round_bit_j, %c0 : index
          %parity_j = arith.cmpi ne, %round_bit_j, %c0 : index
          %kb_j = arith.addi %s_j, %c1 : index
          %vb0_j = arith.addi %s_j, %stages : index
          %vb_j = arith.addi %vb0_j, %c1 : index
          %eb0_j = arith.addi %vb0_j, %stages : index
          %eb_j = arith.addi %eb0_j, %c1 : index
          %fb0_j = arith.addi %eb0_j, %stages : index
          %fb_j = arith.addi %fb0_j, %c1 : index
          %g_n = arith.addi %g, %n : index
          %s_n = arith.remui %g_n, %stages : index
          %round_n = arith.divui %g_n, %stages : index
          %round_bit_n = arith.remui %round_n, %c2 : index
          %free_parity_n = arith.cmpi eq, %round_bit_n, %c0 : index
          %parity_n = arith.cmpi ne, %round_bit_n, %c0 : index
          %kb_n = arith.addi %s_n, %c1 : index
          %vb0_n = arith.addi %s_n, %stages : index
          %vb_n = arith.addi %vb0_n, %c1 : index
          %eb0_n = arith.addi %vb0_n, %stages : index
          %eb_n = arith.addi %eb0_n, %c1 : index
          %fb0_n = arith.addi %eb0_n, %stages : index
          %fb_n = arith.addi %fb0_n, %c1 : index
          tile.named_barrier id(%my_turn_id) threads(%turn_threads)
          nvgpu.mbarrier.try_wait.parity %bars[%kb_n], %parity_n, %ticks : !bars
          tile.gemm_async %s_acc[0, 0], %sq[%q_half, 0, 0], %sk[%s_n, 0, 0] sizes [64, 128, 128]
              exec warpgroup accumulate(%false) {transpose_b} : !acc, !q_buffers, !kv_ring
          tile.commit_group wgmma
          nvgpu.mbarrier.try_wait.parity %bars[%vb_j], %parity_j, %ticks : !bars
          tile.gemm_async %acc[0, 0], %p[0, 0], %sv[%s_j, 0, 0] sizes [64, 128, 128]
              exec warpgroup accumulate(%true) : !acc, !p_regs, !kv_ring
          tile.commit_group wgmma
          tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)
      //   S of block j + 1 retired: its K is free, its softmax runs under P·V.
          tile.wait_group wgmma, 1
          scf.if %releaser {
            nvgpu.mbarrier.arrive %bars[%eb_n] : !bars -> !nvgpu.mbarrier.token
          }
          %key_base_n = arith.muli %n, %bn : index
          %key_end_n = arith.addi %key_base_n, %bn : index
          %key_last_n = arith.subi %key_end_n, %c1 : index
          %past_end_n = arith.cmpi ugt, %key_end_n, %seq_k : index
          %diagonal_n = arith.cmpi ugt, %key_last_n, %row0 : index
          %needs_mask_n = arith.ori %past_end_n, %diagonal_n : i1
          scf.if %needs_mask_n {
            %key_base32_n = arith.index_cast %key_base_n : index to i32
            %seq_k32_n = arith.index_cast %seq_k : index to i32
            %row0_32_n = arith.index_cast %row0 : index to i32
            %c1_i32_n = arith.constant 1 : i32
            %query_end1_n = arith.addi %row0_32_n, %c1_i32_n overflow<nsw> : i32
            tile.map ins(%s_acc : !acc) outs(%s_acc : !acc) {
            ^bb0(%x: f32, %row: index, %col: index):
              %row32 = arith.index_cast %row : index to i32
              %query_end = arith.addi %query_end1_n, %row32 : i32
              %limit = arith.minsi %query_end, %seq_k32_n : i32
              %col32 = arith.index_cast %col : index to i32
              %key = arith.addi %key_base32_n, %col32 overflow<nsw> : i32
              %masked = arith.cmpi sge, %key, %limit : i32
              %r = arith.select %masked, %neg_inf, %x : f32
              tile.yield %r : f32
            }
          }
          tile.reduce <max> %s_acc dims [1] into %block_max : !acc into !row
          tile.map ins(%m, %block_max : !row, !row) outs(%alpha : !row) {
          ^bb0(%old: f32, %blk: f32, %row: index, %col: index):
            %new = arith.maximumf %old, %blk : f32
            %diff = arith.subf %old, %new : f32
            %scaled = arith.mulf %diff, %scale_log2 : f32
            %a = math.exp2 %scaled : f32
            tile.yield %a : f32
          }
          tile.map ins(%m, %block_max : !row, !row) outs(%m : !row) {
          ^bb0(%old: f32, %blk: f32, %row: index, %col: index):
            %new = arith.maximumf %old, %blk : f32
            tile.yield %new : f32
          }
          tile.map ins(%s_acc, %m : !acc, !row) outs(%s_acc : !acc) {
          ^bb0(%x: f32, %max: f32, %row: index, %col: index):
            %max_scaled = arith.mulf %max, %scale_log2 : f32
            %offset = arith.negf %max_scaled : f32
            %shifted = math.fma %x, %scale_log2, %offset : f32
            %e = math.exp2 %shifted : f32
            tile.yield %e : f32
          }
          tile.reduce <add> %s_acc dims [1] into %row_sum : !acc into !row
          tile.map ins(%l, %alpha, %row_sum : !row, !row, !row) outs(%l : !row) {
          ^bb0(%old: f32, %a: f32, %sum: f32, %row: index, %col: index):
            %kept = arith.mulf %old, %a : f32
            %new = arith.addf %kept, %sum : f32
            tile.yield %new : f32
          }
          tile.wait_group wgmma, 0
      //   This warp is done with block j's V: one lane per warp frees it.
          scf.if %releaser {
            nvgpu.mbarrier.arrive %bars[%fb_j] : !bars -> !nvgpu.mbarrier.token
          }
          tile.map ins(%acc, %alpha : !acc, !row) outs(%acc : !acc) {
          ^bb0(%x: f32, %a: f32, %row: index, %col: index):
            %r = arith.mulf %x, %a : f32
            tile.yield %r : f32
          }
          tile.convert %s_acc to %p : !acc to !p_regs
        }
      // The last block's P·V on its own (peeled, not a wgmma under a branch: that
      // would make ptxas serialize every wgmma of the kernel).
        %last = arith.subi %k_blocks, %c1 : index
        %g_last = arith.addi %g, %last : index
        %s_last = arith.remui %g_last, %stages : index
        %round_last = arith.divui %g_last, %stages : index
        %round_bit_last = arith.remui %round_last, %c2 : index
        %free_parity_last = arith.cmpi eq, %round_bit_last, %c0 : index
        %parity_last = arith.cmpi ne, %round_bit_last, %c0 : index
        %kb_last = arith.addi %s_last, %c1 : index
        %vb0_last = arith.addi %s_last, %stages : index
        %vb_last = arith.addi %vb0_last, %c1 : index
        %eb0_last = arith.addi %vb0_last, %stages : index
        %eb_last = arith.addi %eb0_last, %c1 : index
        %fb0_last = arith.addi %eb0_last, %stages : index
        %fb_last = arith.addi %fb0_last, %c1 : index
        tile.named_barrier id(%my_turn_id) threads(%turn_threads)
        nvgpu.mbarrier.try_wait.parity %bars[%vb_last], %parity_last, %ticks : !bars
        tile.gemm_async %acc[0, 0], %p[0, 0], %sv[%s_last, 0, 0] sizes [64, 128, 128]
            exec warpgroup accumulate(%true) : !acc, !p_regs, !kv_ring
        tile.commit_group wgmma
        tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)
        tile.wait_group wgmma, 0
        scf.if %releaser {
          nvgpu.mbarrier.arrive %bars[%fb_last] : !bars -> !nvgpu.mbarrier.token
        }
      // This tile's Q buffer is free for a later tile: this warp's last Q·Kᵀ
      // retired.
        scf.if %releaser {
          nvgpu.mbarrier.arrive %bars[%q_free_bar] : !bars -> !nvgpu.mbarrier.token
        }
      // Epilogue: O · (1 / l) and LSE = m·scale + ln l per row (m is in S's units)
      // into this warpgroup's O and LSE halves once the previous tile's stores read
      // them, then one TMA store each, clipped at Sq, not waited for.
        tile.map ins(%l : !row) outs(%alpha : !row) {
        ^bb0(%sum: f32, %row: index, %col: index):
          %one = arith.constant 1.0 : f32
          %r = arith.divf %one, %sum : f32
          tile.yield %r : f32
        }
        tile.map ins(%acc, %alpha : !acc, !row) outs(%acc : !acc) {
        ^bb0(%x: f32, %inv: f32, %row: index, %col: index):
          %r = arith.mulf %x, %inv : f32
          tile.yield %r : f32
        }
        tile.map ins(%m, %l : !row, !row) outs(%m : !row) {
        ^bb0(%max: f32, %sum: f32, %row: index, %col: index):
          %natural = arith.mulf %max, %scale : f32
          %log_sum = math.log %sum : f32
          %r = arith.addf %natural, %log_sum : f32
          tile.yield %r : f32
        }
        %q_heads32 = arith.index_castui %q_heads : index to i32
        %head32 = arith.remui %bh32, %q_heads32 : i32
        %batch32 = arith.divui %bh32, %q_heads32 : i32
        %head = arith.index_castui %head32 : i32 to index
        %batch = arith.index_castui %batch32 : i32 to index
        %kv_head = arith.divui %head, %group : index
        %q_blocks = arith.ceildivui %seq_q, %c64 : index
        %seq_q_padded = arith.muli %q_blocks, %c64 : index
        %bh = arith.muli %batch, %q_heads : index
        %bh_head = arith.addi %bh, %head : index
        %lse_base = arith.muli %bh_head, %seq_q_padded : index
        %lse_row = arith.addi %lse_base, %row0 : index
        scf.if %wg_leader {
          tile.wait_group bulk, 0 {read}
        }
        tile.named_barrier id(%wg_barrier) threads(%wg_threads)
        tile.store %m to %slse[%half, 0, 0] : !row to !lse_rows
        tile.store %acc to %so[%half, 0, 0] : !acc to !q_halves
        tile.fence proxy_async
        tile.named_barrier id(%wg_barrier) threads(%wg_threads)
        %in_range = arith.cmpi ult, %row0, %seq_q : index
        scf.if %wg_leader {
          scf.if %in_range {
            tile.copy_async %so[%half, 0, 0] to %go[%batch, %head, %row0, 0] sizes [64, 128] exec thread
                : !q_halves to !gmem
            tile.copy_async %slse[%half, 0, 0] to %glse[%lse_row, 0] sizes [64, 1] exec thread
                : !lse_rows to !tile.buffer<?x1xf32, global>
          }
          tile.commit_group bulk
        }
        %g_next = arith.addi %g, %k_blocks : index
        scf.yield %g_next : index
      }
    // Warpgroup 1 takes warpgroup 2's last turn: no generation left open.
      %first_consumer = arith.xori %second_consumer, %true : i1
      scf.if %first_consumer {
        tile.named_barrier id(%my_turn_id) threads(%turn_threads)
      }
    // The last tile's stores read their shared memory before the CTA exits.
      scf.if %wg_leader {
        tile.wait_group bulk, 0 {read}
      }
    }
    gpu.return
  }
}

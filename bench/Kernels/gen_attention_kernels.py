#!/usr/bin/env python3
"""Generates the forward-attention kernels in tile IR (one gpu.module) and
their case list.

    O = softmax(Q Kᵀ · scale [+ causal mask]) V,   LSE = log Σ exp(...)

per (batch, head), for Q/K/V/O [batch, heads, seq, dim] tensors (torch's
SDPA shapes, any strides a tensor map takes), K/V heads shared by groups
of Q heads (GQA: Q head h reads K/V head h / (Hq / Hkv)), any sequence
lengths.

One kernel per head dim × causal × dtype, in the form and grid FORMS names
for it, a varlen one of each (packed sequences, RAGGED_ROWS), and the
long-sequence kernels of LONG_FORMS (d = 64: 192-row tiles, three
consumer warpgroups; d = 256 causal: the overlap form, one CTA per tile),
which the launcher chooses from their min_seq_q
(docs/Attention.md walks through one):
  * "ws" / "ws-overlap" / "ws-pingpong" (kernel_ws): FlashAttention-3's
    structure. 128 query rows per tile; one CTA per tile, grid
    (ceil(Sq / 128), Hq, B), causal query blocks last to first, or
    persistent: grid (min(units, SMs), 1, 1), each CTA walking units of one
    tile (two adjacent ones when causal) round robin; a producer warpgroup
    whose thread 0 TMA-loads Q once per tile and K/V blocks through a
    2-stage ring (K and V each with a full and a free barrier); two
    consumer warpgroups of 64 rows each: S = Q·Kᵀ
    by wgmma into registers, the mask only on blocks that need it, the
    online softmax in registers (tile.map / tile.reduce: running max m,
    running sum l, 2^(S·c − m·c) in one FFMA and exp2), P converted in
    registers to the wgmma A operand (no shuffle, no shared memory), O +=
    P·V by wgmma; "ws-overlap" issues S of the next block before P·V of
    this one (the intra-warpgroup overlap), "ws-pingpong" adds the
    consumers' turns on named barriers.
  * "simple" (kernel): the FlashAttention-2 loop in one warpgroup of 64
    rows per CTA, thread 0 loading K/V one block ahead.
  * Epilogue: O / l written through shared memory (stmatrix) and one TMA
    store clipped at Sq; the LSE (natural log, as FlashAttention returns
    it) stored per row into an f32 buffer of B·Hq·ceil(Sq/64)·64 rows
    ([B, Hq, padded Sq] flattened, one column).

Usage: gen_attention_kernels.py OUT.mlir OUT.cases.json [--example D CAUSAL DTYPE]
With --example, OUT.mlir gets one kernel with its comments (the readable
form in examples/).
"""

import argparse
import json
import sys

BLOCK_M = 64  # query rows per CTA (one warpgroup)
BLOCK_N = 64  # keys per K/V block
STAGES = 2
HEAD_DIMS = (64, 128, 256)
DTYPES = ("bf16", "f16")
# Per (head dim, causal): the form, "simple" (one warpgroup, 64 rows per
# CTA), "ws" (warp-specialized, 128 rows per CTA), "ws-overlap" (ws with
# the intra-warpgroup overlap) or "ws-pingpong" (ws-overlap with the
# consumers taking turns), and whether the grid is persistent (at most one
# CTA per SM walking the tiles) or one CTA per tile. Each is the fastest
# measured for its row (docs/Performance.md (h)): persistence gains 1-7 %
# without a mask; causal at d = 64 and 128 the persistent ping-pong form
# beats one CTA per tile (longest first) by up to 18 % at seq 512-2k; at
# d = 256 the overlap form spills when persistent (its consumers hold S, P
# and a 64 × 256 O across the tile loop), and without a mask the overlap
# without persistence is 2-12 % faster than the persistent plain form,
# with a mask (both in 64-key blocks) 3-11 % slower below seq 16k (in
# 80-key blocks it wins from 2k: LONG_FORMS); at d = 64 without a mask the
# consumers' turns (ping-pong) gain 1-9 % (most at seq 512); at d = 128
# without a mask they measured -7 to +4 %.
FORMS = {(64, False): ("ws-pingpong", True), (64, True): ("ws-pingpong", True),
         (128, False): ("ws-overlap", True), (128, True): ("ws-pingpong", True),
         (256, False): ("ws-overlap", False), (256, True): ("ws", True)}
# K/V ring stages and keys per K/V block of the warp-specialized forms,
# per head dim.
WS_STAGES = {64: 2, 128: 2, 256: 2}
WS_BLOCK_N = {64: 128, 128: 128, 256: 80}
# Keys per block of the plain "ws" form where WS_BLOCK_N's do not pay: at
# d = 256 (causal) it spills 8 bytes at 80 when persistent, and one CTA per
# tile (varlen) ran 1-4 % slower at 80 than an earlier run's 64 (H200;
# not timed in one process).
PLAIN_BLOCK_N = {256: 64}


def block_n_of(d, form):
    """Keys per K/V block of a warp-specialized kernel. At d = 256, 80-key
    blocks (FlashAttention-3's tile) are 5-9 % faster than 64-key ones at
    ncu's fixed clocks without a mask (seq 2k-16k, H200): a fifth fewer
    blocks, each with its barrier waits, row maxima and rescale."""
    return PLAIN_BLOCK_N.get(d, WS_BLOCK_N[d]) if form == "ws" else WS_BLOCK_N[d]
# Kernels chosen from a sequence length on (the launcher takes the one with
# the longest min_seq_q at most Sq): (head dim, causal) -> (form,
# persistent, consumer warpgroups, min_seq_q). At d = 64 without a mask,
# tiles of 192 rows in three consumer warpgroups (FlashAttention-3's d = 64
# tile) are 1-10 % faster than the 128-row ping-pong form from Sq = 2k
# (most at 8k and 16k) and 6-8 % slower at 512-1k, where a 192-row tile
# wastes a ninth of its rows or more (H200, GPU time). Causal, they spill
# at 160 registers and lose below 16k. At d = 256 causal, one CTA per tile
# with the intra-warpgroup overlap (the form d = 256 takes without a mask;
# persistent it spills) in 80-key blocks against the persistent plain
# form in 64-key blocks (it spills in 80), with the guarded rescale
# (H200): at ncu's fixed clocks 2 % faster at Sq = 2k and 5 % at 4k, 2 %
# slower at 1k and 8 % at 512.
LONG_FORMS = {(64, False): ("ws-overlap", True, 3, 2048),
              (256, True): ("ws-overlap", False, 2, 2048)}
# Registers per consumer thread by consumer warpgroups (the producer keeps
# 24): what the 64K-register file allows.
CONSUMER_REGISTERS = {2: 240, 3: 160}
# At the head dims in GUARDED_RESCALE the warp-specialized forms move a
# row's running maximum m (and rescale its O and l) only when a block's
# maximum exceeds it by more than RESCALE_THRESHOLD log2 units of P; below
# that P = 2^(S·c - m·c) stays at most 2^8 (as representable in bf16/f16
# as any P; l and O sum in f32), and the final O / l and LSE use the same
# m, so the result does not change. O's rescale is then a guarded map that
# skips the rows whose m did not move: after a row's first blocks almost
# all. At d = 256 the rescale is a third of the instructions: the guard
# cuts them by 25 % and runs 2-3 % faster at fixed clocks (ncu), up to 16 %
# at 700 W; at d = 64 and 128 the branches cost more than the 32 or 64
# multiplies they skip (2-5 % slower at fixed clocks, H200, 2026-11-29).
GUARDED_RESCALE = {64: False, 128: False, 256: True}
RESCALE_THRESHOLD = "8.0"


def form_of(d, causal, long=False):
    """(form, persistent, consumer warpgroups, min_seq_q) of the kernel
    for (d, causal), or of its long-sequence kernel."""
    if long:
        return LONG_FORMS[d, causal]
    form, persistent = FORMS[d, causal]
    return form, persistent, 2, 0


def q_buffers_of(d, persistent):
    """Q buffers of a warp-specialized kernel: two where a persistent
    kernel stages O apart from Q (d <= 128; shared memory allows it), so
    that the producer loads the next tile's Q while this tile still reads
    its own; one otherwise."""
    return 2 if persistent and d <= 128 else 1


def barrier_count(d, persistent):
    """Q landed (per Q buffer), K and V landed and freed per ring stage,
    and persistent, Q freed (per Q buffer)."""
    q_buffers = q_buffers_of(d, persistent)
    return q_buffers + 4 * WS_STAGES[d] + (q_buffers if persistent else 0)


def kernel_name(d, causal, dtype, varlen=False, consumers=2, long=False):
    """A long-sequence kernel is named by what differs: its tile rows
    (`_m192`), or else its form (`_overlap`)."""
    suffix = (f"_m{64 * consumers}" if consumers != 2
              else "_overlap" if long else "")
    return (f"attention_{'varlen_' if varlen else ''}d{d}_"
            f"{'causal' if causal else 'full'}_{dtype}{suffix}")


# Variable-length batches: the sequences packed along one token dim, the
# tensor maps "ragged". A packed [tokens, heads, dim] tensor with token
# stride r is passed as the 5-dim view [A, tokens + 1, heads, 2^30, dim]
# with strides [2^34 bytes - r, r, heads' stride, r, 1]; the tile of
# sequence rows [row, row + n) of a sequence at [start, end) is read at
# (2^30, end, head, 2^30 - (end - start) + row, 0). The address is
# start + row tokens (the first dim's 2^30 steps wrap the 64-bit address
# by -2^30 r), and the bounds of the 2^30 dim are those of the sequence:
# rows past its end load zeros and are not stored. The tokens + 1 dim
# bounds the end by the tensor's, so no cu_seqlens reaches outside it.
RAGGED_ROWS = 1 << 30


def shared_layout(rows, cols, stages=None):
    """A 128-byte-swizzled shared tile of rows × cols 16-bit elements, cols
    in panels of 64 (one swizzle atom row each), with an optional leading
    stage dim."""
    panels = cols // 64
    panel = rows * 64
    modes, strides = [], []
    if stages:
        modes.append(stages)
        strides.append(rows * cols)
    modes += [rows, panels, 64] if panels > 1 else [rows, 64]
    strides += [64, panel, 1] if panels > 1 else [64, 1]
    shape = (f"{stages}x" if stages else "") + f"{rows}x{cols}"
    return shape, ("S[(" + ",".join(map(str, modes)) + "):(" +
                   ",".join(map(str, strides)) + ")], swizzle<3,3,3>")


def acc_layout(n):
    """A wgmma accumulator of 64 × n f32 across the warpgroup."""
    return f"S[(4,2,8,{n // 8},4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]"


ROW_LAYOUT = "S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]"


def kernel(d, causal, dtype, comments):
    t = dtype
    c = (lambda text: f"    // {text}\n") if comments else (lambda text: "")
    q_shape, q_layout = shared_layout(BLOCK_M, d)
    kv_shape, kv_layout = shared_layout(BLOCK_N, d, STAGES)
    name = kernel_name(d, causal, dtype)
    tile_bytes = BLOCK_N * d * 2
    out = []
    w = out.append
    w(f"""
  // {name}: head dim {d}, {'causal' if causal else 'no mask'}, {dtype} in, f32 accumulation.
  gpu.func @{name}(%q: memref<?x?x?x?x{t}, 1>, %k: memref<?x?x?x?x{t}, 1>,
      %v: memref<?x?x?x?x{t}, 1>, %o: memref<?x?x?x?x{t}, 1>,
      %lse: memref<?x1xf32, 1>, %scale: f32) kernel
      attributes {{known_block_size = array<i32: 128, 1, 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c64 = arith.constant 64 : index
    %c63 = arith.constant 63 : index
    %ticks = arith.constant 1000000 : index
    %q_bytes = arith.constant {BLOCK_M * d * 2} : index
    %kv_bytes = arith.constant {2 * tile_bytes} : index
    %false = arith.constant false
    %true = arith.constant true
""")
    w(c("Sizes: batch, heads, sequence lengths; the K/V head of this Q head (GQA)."))
    w(f"""    %q_heads = memref.dim %q, %c1 : memref<?x?x?x?x{t}, 1>
    %seq_q = memref.dim %q, %c2 : memref<?x?x?x?x{t}, 1>
    %kv_heads = memref.dim %k, %c1 : memref<?x?x?x?x{t}, 1>
    %seq_k = memref.dim %k, %c2 : memref<?x?x?x?x{t}, 1>
    %q_block = gpu.block_id x
    %head = gpu.block_id y
    %batch = gpu.block_id z
    %group = arith.divui %q_heads, %kv_heads : index
    %kv_head = arith.divui %head, %group : index
    %q0 = arith.muli %q_block, %c64 : index
    %k_blocks_all = arith.ceildivui %seq_k, %c64 : index
""")
    if causal:
        w(c("Causal: keys past the block's last query row are never seen."))
        w("""    %q_end = arith.addi %q0, %c64 : index
    %k_blocks_diag = arith.ceildivui %q_end, %c64 : index
    %k_blocks = arith.minui %k_blocks_all, %k_blocks_diag : index
""")
    else:
        w("    %k_blocks = arith.addi %k_blocks_all, %c0 : index\n")
    w(c("Q (64 × d), the K/V ring (2 stages of 64 keys × d) and the O staging tile."))
    w(f"""    %gq = tile.from_memref %q : memref<?x?x?x?x{t}, 1> -> !tile.buffer<?x?x?x?x{t}, global>
    %gk = tile.from_memref %k : memref<?x?x?x?x{t}, 1> -> !tile.buffer<?x?x?x?x{t}, global>
    %gv = tile.from_memref %v : memref<?x?x?x?x{t}, 1> -> !tile.buffer<?x?x?x?x{t}, global>
    %go = tile.from_memref %o : memref<?x?x?x?x{t}, 1> -> !tile.buffer<?x?x?x?x{t}, global>
    %glse = tile.from_memref %lse : memref<?x1xf32, 1> -> !tile.buffer<?x1xf32, global>
    %sq = tile.alloc_shared {{alignment = 1024 : i64}} : !tile.buffer<{q_shape}x{t}, shared, #tile.layout<{q_layout}>>
    %so = tile.alloc_shared {{alignment = 1024 : i64}} : !tile.buffer<{q_shape}x{t}, shared, #tile.layout<{q_layout}>>
    %sk = tile.alloc_shared {{alignment = 1024 : i64}} : !tile.buffer<{kv_shape}x{t}, shared, #tile.layout<{kv_layout}>>
    %sv = tile.alloc_shared {{alignment = 1024 : i64}} : !tile.buffer<{kv_shape}x{t}, shared, #tile.layout<{kv_layout}>>
    %slse = tile.alloc_shared {{alignment = 128 : i64}} : !tile.buffer<64x1xf32, shared>
""")
    w(c("Barriers: [0] Q landed, [1 + s] K/V stage s landed."))
    w("""    %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
      nvgpu.mbarrier.init %bars[%c1], %c1 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
      nvgpu.mbarrier.init %bars[%c2], %c1 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
      tile.fence mbarrier_init
""")
    bar_t = "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>"
    g_t = f"!tile.buffer<?x?x?x?x{t}, global>"
    q_t = f"!tile.buffer<{q_shape}x{t}, shared, #tile.layout<{q_layout}>>"
    kv_t = f"!tile.buffer<{kv_shape}x{t}, shared, #tile.layout<{kv_layout}>>"
    w(f"""      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %q_bytes : {bar_t}
      tile.copy_async %gq[%batch, %head, %q0, 0] to %sq[0, 0] sizes [64, {d}] exec thread
          mbar(%bars[%c0] : {bar_t}) : {g_t} to {q_t}
""")
    w(c("  The first two K/V blocks (the ring's two stages)."))
    w(f"""      %first = arith.minui %k_blocks, %c2 : index
      scf.for %j = %c0 to %first step %c1 {{
        %bar = arith.addi %j, %c1 : index
        %key0 = arith.muli %j, %c64 : index
        nvgpu.mbarrier.arrive.expect_tx %bars[%bar], %kv_bytes : {bar_t}
        tile.copy_async %gk[%batch, %kv_head, %key0, 0] to %sk[%j, 0, 0] sizes [64, {d}] exec thread
            mbar(%bars[%bar] : {bar_t}) : {g_t} to {kv_t}
        tile.copy_async %gv[%batch, %kv_head, %key0, 0] to %sv[%j, 0, 0] sizes [64, {d}] exec thread
            mbar(%bars[%bar] : {bar_t}) : {g_t} to {kv_t}
      }}
    }}
    gpu.barrier
""")
    s_t = f"!tile.buffer<64x64xf32, local, #tile.layout<{acc_layout(64)}>>"
    p_t = f"!tile.buffer<64x64x{t}, local, #tile.layout<{acc_layout(64)}>>"
    o_t = f"!tile.buffer<64x{d}xf32, local, #tile.layout<{acc_layout(d)}>>"
    r_t = f"!tile.buffer<64x1xf32, local, #tile.layout<{ROW_LAYOUT}>>"
    w(c("Running state in registers: O (64 × d f32), the row max m (log2 units) and sum l."))
    w(f"""    %acc = tile.alloc_local : {o_t}
    %m = tile.alloc_local : {r_t}
    %l = tile.alloc_local : {r_t}
    %zero = arith.constant 0.0 : f32
    %neg_inf = arith.constant 0xFF800000 : f32
    tile.fill %acc, %zero : {o_t}, f32
    tile.fill %m, %neg_inf : {r_t}, f32
    tile.fill %l, %zero : {r_t}, f32
    %log2e = arith.constant 1.44269504 : f32
    %scale_log2 = arith.mulf %scale, %log2e : f32
    %s = tile.alloc_local : {s_t}
    %p = tile.alloc_local : {p_t}
    %block_max = tile.alloc_local : {r_t}
    %alpha = tile.alloc_local : {r_t}
    %row_sum = tile.alloc_local : {r_t}
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : {bar_t}
""")
    w(c("The K/V loop: block j is in stage j mod 2, landed in phase j / 2 of its barrier."))
    w(f"""    scf.for %j = %c0 to %k_blocks step %c1 {{
      %stage = arith.remui %j, %c2 : index
      %bar = arith.addi %stage, %c1 : index
      %round = arith.divui %j, %c2 : index
      %round_bit = arith.remui %round, %c2 : index
      %parity = arith.cmpi ne, %round_bit, %c0 : index
      nvgpu.mbarrier.try_wait.parity %bars[%bar], %parity, %ticks : {bar_t}
""")
    w(c("  S = Q·Kᵀ (64 × 64, f32) in registers."))
    w(f"""      tile.gemm_async %s[0, 0], %sq[0, 0], %sk[%stage, 0, 0] sizes [64, 64, {d}]
          exec warpgroup accumulate(%false) {{transpose_b}} : {s_t}, {q_t}, {kv_t}
      tile.commit_group wgmma
      tile.wait_group wgmma, 0
""")
    w(c("  Scale into log2 units; keys past Sk (and above the diagonal) are -inf."))
    w(f"""      %key_base = arith.muli %j, %c64 : index
      tile.map ins(%s : {s_t}) outs(%s : {s_t}) {{
      ^bb0(%x: f32, %row: index, %col: index):
        %scaled = arith.mulf %x, %scale_log2 : f32
        %key = arith.addi %key_base, %col : index
        %past_end = arith.cmpi uge, %key, %seq_k : index
""")
    if causal:
        w("""        %query = arith.addi %q0, %row : index
        %future = arith.cmpi ugt, %key, %query : index
        %masked = arith.ori %past_end, %future : i1
""")
    else:
        w("        %masked = arith.ori %past_end, %past_end : i1\n")
    w(f"""        %r = arith.select %masked, %neg_inf, %scaled : f32
        tile.yield %r : f32
      }}
""")
    w(c("  Online softmax: m' = max(m, rowmax S); alpha = 2^(m - m'); P = 2^(S - m');"))
    w(c("  l = l·alpha + rowsum P; O = O·alpha."))
    w(f"""      tile.reduce <max> %s dims [1] into %block_max : {s_t} into {r_t}
      tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%alpha : {r_t}) {{
      ^bb0(%old: f32, %blk: f32, %row: index, %col: index):
        %new = arith.maximumf %old, %blk : f32
        %diff = arith.subf %old, %new : f32
        %a = math.exp2 %diff : f32
        tile.yield %a : f32
      }}
      tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%m : {r_t}) {{
      ^bb0(%old: f32, %blk: f32, %row: index, %col: index):
        %new = arith.maximumf %old, %blk : f32
        tile.yield %new : f32
      }}
      tile.map ins(%s, %m : {s_t}, {r_t}) outs(%s : {s_t}) {{
      ^bb0(%x: f32, %max: f32, %row: index, %col: index):
        %shifted = arith.subf %x, %max : f32
        %e = math.exp2 %shifted : f32
        tile.yield %e : f32
      }}
      tile.reduce <add> %s dims [1] into %row_sum : {s_t} into {r_t}
      tile.map ins(%l, %alpha, %row_sum : {r_t}, {r_t}, {r_t}) outs(%l : {r_t}) {{
      ^bb0(%old: f32, %a: f32, %sum: f32, %row: index, %col: index):
        %kept = arith.mulf %old, %a : f32
        %new = arith.addf %kept, %sum : f32
        tile.yield %new : f32
      }}
      tile.map ins(%acc, %alpha : {o_t}, {r_t}) outs(%acc : {o_t}) {{
      ^bb0(%x: f32, %a: f32, %row: index, %col: index):
        %r = arith.mulf %x, %a : f32
        tile.yield %r : f32
      }}
""")
    w(c("  P becomes the wgmma A operand in registers; O += P·V."))
    w(f"""      tile.convert %s to %p : {s_t} to {p_t}
      tile.gemm_async %acc[0, 0], %p[0, 0], %sv[%stage, 0, 0] sizes [64, {d}, 64]
          exec warpgroup accumulate(%true) : {o_t}, {p_t}, {kv_t}
      tile.commit_group wgmma
      tile.wait_group wgmma, 0
""")
    w(c("  Every warp is done with this stage: thread 0 refills it with block j + 2."))
    w(f"""      gpu.barrier
      %next = arith.addi %j, %c2 : index
      %more = arith.cmpi ult, %next, %k_blocks : index
      %refill = arith.andi %leader, %more : i1
      scf.if %refill {{
        %key0 = arith.muli %next, %c64 : index
        nvgpu.mbarrier.arrive.expect_tx %bars[%bar], %kv_bytes : {bar_t}
        tile.copy_async %gk[%batch, %kv_head, %key0, 0] to %sk[%stage, 0, 0] sizes [64, {d}] exec thread
            mbar(%bars[%bar] : {bar_t}) : {g_t} to {kv_t}
        tile.copy_async %gv[%batch, %kv_head, %key0, 0] to %sv[%stage, 0, 0] sizes [64, {d}] exec thread
            mbar(%bars[%bar] : {bar_t}) : {g_t} to {kv_t}
      }}
    }}
""")
    w(c("Epilogue: O / l, LSE = m·ln2 + ln l; O through shared memory and a TMA store"))
    w(c("clipped at Sq, LSE per row (its buffer is padded to whole 64-row blocks)."))
    w(f"""    tile.map ins(%acc, %l : {o_t}, {r_t}) outs(%acc : {o_t}) {{
    ^bb0(%x: f32, %sum: f32, %row: index, %col: index):
      %r = arith.divf %x, %sum : f32
      tile.yield %r : f32
    }}
    tile.map ins(%m, %l : {r_t}, {r_t}) outs(%m : {r_t}) {{
    ^bb0(%max: f32, %sum: f32, %row: index, %col: index):
      %ln2 = arith.constant 0.693147181 : f32
      %natural = arith.mulf %max, %ln2 : f32
      %log_sum = math.log %sum : f32
      %r = arith.addf %natural, %log_sum : f32
      tile.yield %r : f32
    }}
    %q_blocks = arith.ceildivui %seq_q, %c64 : index
    %seq_q_padded = arith.muli %q_blocks, %c64 : index
    %bh = arith.muli %batch, %q_heads : index
    %bh_head = arith.addi %bh, %head : index
    %lse_base = arith.muli %bh_head, %seq_q_padded : index
    %lse_row = arith.addi %lse_base, %q0 : index
    tile.store %m to %slse[0, 0] : {r_t} to !tile.buffer<64x1xf32, shared>
    tile.store %acc to %so[0, 0] : {o_t} to {q_t}
    tile.fence proxy_async
    gpu.barrier
    scf.if %leader {{
      tile.copy_async %so[0, 0] to %go[%batch, %head, %q0, 0] sizes [64, {d}] exec thread
          : {q_t} to {g_t}
      tile.copy_async %slse[0, 0] to %glse[%lse_row, 0] sizes [64, 1] exec thread
          : !tile.buffer<64x1xf32, shared> to !tile.buffer<?x1xf32, global>
      tile.commit_group bulk
      tile.wait_group bulk, 0 {{read}}
    }}
    gpu.return
  }}
""")
    return "".join(out)


def kernel_ws(d, causal, dtype, comments, overlap=False, pingpong=False,
              persistent=False, varlen=False, consumers=2, long=False):
    """The warp-specialized form (FlashAttention-3's structure): 128 query
    rows per CTA, a producer warpgroup (thread 0 issues every TMA load,
    registers given up with setmaxnreg) and two consumer warpgroups, each
    owning 64 rows; K and V blocks of BN keys through a ring of full / empty
    barriers, V's barrier separate from K's so that S = Q·Kᵀ starts while V
    is still landing. With `persistent`, a grid of at most one CTA per SM
    walks the tiles (query block, head, batch) round robin, the ring and the
    barrier phases running on across tiles, so the producer loads the next
    tile's Q and K/V while the consumers finish this one.

    With `varlen`, Q, K, V and O are packed sequences read and written
    through ragged views (RAGGED_ROWS), sequence b's tokens
    [cu_seqlens[b], cu_seqlens[b + 1]); one CTA per tile, grid
    (ceil(max Sq / 128), Hq, B), CTAs past their sequence's last query
    block doing nothing. A sequence without keys gets O = 0 and
    LSE = -inf (the softmax's max taken as 0 where every key is masked)."""
    assert not (varlen and persistent)
    assert consumers == 2 or not pingpong
    rows = 64 * consumers
    threads = 128 * (consumers + 1)
    t = dtype
    c = (lambda text: f"    // {text}\n") if comments else (lambda text: "")
    bn = block_n_of(d, "ws-pingpong" if pingpong else "ws-overlap" if overlap else "ws")
    stages = WS_STAGES[d]
    q_shape, q_layout = shared_layout(64, d, consumers)
    q_buffers = q_buffers_of(d, persistent)
    sq_shape, sq_layout = shared_layout(64, d, consumers * q_buffers)
    kv_shape, kv_layout = shared_layout(bn, d, stages)
    name = kernel_name(d, causal, dtype, varlen, consumers, long)
    mt = f"memref<{'?x' * (5 if varlen else 4)}{t}, 1>"
    # Persistent kernels stage O apart from Q where shared memory allows
    # (Q is then free for the next tile once the last Q·Kᵀ retired); at
    # d = 256 O goes into Q's half and Q is freed after O's store read it.
    separate_o = persistent and d <= 128
    # The kernel checks' simulation runs CTA 0 of this grid: at its sample
    # sizes (every dim 200 or 330: 80000 or 326700 tiles) it walks several
    # tiles, across which the ring and the Q barriers keep their phases.
    # Varlen: a grid of 8 query blocks, so that CTA 0 of a causal kernel
    # takes its sequence's last query block (below).
    sample_grid = (", tile.sample_grid = array<i64: 30000, 1, 1>" if persistent
                   else ", tile.sample_grid = array<i64: 8, 1, 1>, "
                   "tile.sample_sizes = array<i64: 1100, 330>" if varlen else "")
    q_free = 1 + 4 * stages  # persistent: Q may be overwritten
    q_free_index = (f"    %q_free = arith.constant {q_free} : index\n"
                    if persistent else "")
    # The second Q buffer's barriers: landed, freed.
    q_full_2, q_free_2 = q_free + 1, q_free + 2
    bar_count = barrier_count(d, persistent)
    bar_t = (f"!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
             f"num_barriers = {bar_count}>")
    g_t = f"!tile.buffer<{'?x' * (5 if varlen else 4)}{t}, global>"
    q_t = f"!tile.buffer<{q_shape}x{t}, shared, #tile.layout<{q_layout}>>"
    sq_t = f"!tile.buffer<{sq_shape}x{t}, shared, #tile.layout<{sq_layout}>>"
    kv_t = f"!tile.buffer<{kv_shape}x{t}, shared, #tile.layout<{kv_layout}>>"
    lse_t = f"!tile.buffer<{consumers}x64x1xf32, shared>"
    s_t = f"!tile.buffer<64x{bn}xf32, local, #tile.layout<{acc_layout(bn)}>>"
    p_t = f"!tile.buffer<64x{bn}x{t}, local, #tile.layout<{acc_layout(bn)}>>"
    o_t = f"!tile.buffer<64x{d}xf32, local, #tile.layout<{acc_layout(d)}>>"
    r_t = f"!tile.buffer<64x1xf32, local, #tile.layout<{ROW_LAYOUT}>>"
    grew_t = f"!tile.buffer<64x1xi1, local, #tile.layout<{ROW_LAYOUT}>>"
    guarded = GUARDED_RESCALE[d]
    guard_decls = (f"""      %grew = tile.alloc_local : {grew_t}
      %rescale_threshold = arith.constant {RESCALE_THRESHOLD} : f32
""" if guarded else "")
    varlen_note = ", packed sequences" if varlen else ""
    # The kernel checks' simulation runs CTA 0, sequence 0: 530 queries
    # against 570 keys (a tail block in 64-, 80- and 128-key blocks: 9, 8
    # or 5 K/V blocks, so that the ring's stages are refilled and released
    # several times) at the
    # sample size 1100 (tokens: 330 cuts both sequences to 329). Causal,
    # CTA 0 takes the last query block (a tail tile, 18 rows), which sees
    # every block; with a grid of one CTA it took the first, one block,
    # and the K/V loop was never simulated.
    varlen_args = ("\n      %cu_seqlens_q: memref<?xi32, 1> {tile.sample_contents = array<i64: 0, 530, 900>},"
                   "\n      %cu_seqlens_k: memref<?xi32, 1> {tile.sample_contents = array<i64: 0, 570, 1000>},"
                   if varlen else "")
    out = []
    w = out.append
    w(f"""
  // {name}: head dim {d}, {'causal' if causal else 'no mask'}, {dtype} in, f32 accumulation{varlen_note}.
  gpu.func @{name}(%q: {mt}, %k: {mt},
      %v: {mt}, %o: {mt},
      %lse: memref<?x1xf32, 1>,{varlen_args} %scale: f32) kernel
      attributes {{known_block_size = array<i32: {threads}, 1, 1>, nvvm.maxnreg = {65536 // threads // 8 * 8} : i32{sample_grid}}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tile_rows = arith.constant {rows} : index
    %consumer_wgs = arith.constant {consumers} : index
    %bn = arith.constant {bn} : index
    %stages = arith.constant {stages} : index
{q_free_index}{f"    %c_q_full_2 = arith.constant {q_full_2} : index{chr(10)}" if q_buffers == 2 else ""}    %ticks = arith.constant 1000000 : index
    %q_bytes = arith.constant {rows * d * 2} : index
    %kv_bytes = arith.constant {bn * d * 2} : index
    %consumer_warps = arith.constant {4 * consumers} : index
    %wg_threads = arith.constant 128 : i32
    %false = arith.constant false
    %true = arith.constant true
""")
    if varlen:
        w(c("Heads, the K/V head of each Q head (GQA), and this CTA's sequence: tokens"))
        w(c("[start, end) of the packed Q and K/V, clamped to [0, tokens] and to"))
        w(c("start <= end, whatever the offsets; the ragged views' coordinates"))
        w(c("(RAGGED_ROWS)."))
        w(f"""    %q_heads = memref.dim %q, %c2 : {mt}
    %kv_heads = memref.dim %k, %c2 : {mt}
    %group = arith.divui %q_heads, %kv_heads : index
    %block_x = gpu.block_id x
    %batch = gpu.block_id z
    %batch_next = arith.addi %batch, %c1 : index
    %zero_i32 = arith.constant 0 : i32
    %ragged = arith.constant {RAGGED_ROWS} : index
""")
        for x in ("q", "k"):
            # The view's second dim holds tokens + 1 (fewer than 2^30).
            w(f"""    %{x}_tokens_1 = memref.dim %{x}, %c1 : {mt}
    %{x}_tokens = arith.subi %{x}_tokens_1, %c1 : index
    %{x}_tokens_i32 = arith.index_castui %{x}_tokens : index to i32
    %cu_{x}0 = memref.load %cu_seqlens_{x}[%batch] : memref<?xi32, 1>
    %cu_{x}1 = memref.load %cu_seqlens_{x}[%batch_next] : memref<?xi32, 1>
    %start_{x}_low = arith.maxsi %cu_{x}0, %zero_i32 : i32
    %start_{x}_i32 = arith.minsi %start_{x}_low, %{x}_tokens_i32 : i32
    %end_{x}_low = arith.maxsi %cu_{x}1, %start_{x}_i32 : i32
    %end_{x}_i32 = arith.minsi %end_{x}_low, %{x}_tokens_i32 : i32
    %seq_{x}_i32 = arith.subi %end_{x}_i32, %start_{x}_i32 : i32
    %end_{x} = arith.index_castui %end_{x}_i32 : i32 to index
    %seq_{x} = arith.index_castui %seq_{x}_i32 : i32 to index
    %{x}_x0 = arith.subi %ragged, %seq_{x} : index
""")
        w(c("At least one K/V block: a sequence without keys runs one, all masked."))
        w(c("Query blocks past the grid's (max_seqlen_q's) are not computed."))
        w("""    %start_q = arith.index_castui %start_q_i32 : i32 to index
    %grid_x = gpu.grid_dim x
    %q_blocks_seq = arith.ceildivui %seq_q, %tile_rows : index
    %q_blocks_all = arith.minui %q_blocks_seq, %grid_x : index
    %k_blocks_seq = arith.ceildivui %seq_k, %bn : index
    %k_blocks_all = arith.maxui %k_blocks_seq, %c1 : index
    %has_work = arith.cmpi ult, %block_x, %q_blocks_all : index
""")
    else:
        w(c("Sizes, and the K/V head of each Q head (GQA)."))
        w(f"""    %q_heads = memref.dim %q, %c1 : {mt}
    %seq_q = memref.dim %q, %c2 : {mt}
    %kv_heads = memref.dim %k, %c1 : {mt}
    %seq_k = memref.dim %k, %c2 : {mt}
    %group = arith.divui %q_heads, %kv_heads : index
    %q_blocks_all = arith.ceildivui %seq_q, %tile_rows : index
    %k_blocks_all = arith.ceildivui %seq_k, %bn : index
""")
    if persistent:
        w(c("The tiles: (query block, head, batch), query blocks of one head adjacent"))
        w(c("so that the CTAs working at once share its K and V in L2. Causal: a"))
        w(c("head's blocks in the order last, first, second to last, second, ...,"))
        w(c("and each CTA takes two adjacent tiles at a time, so every pair holds"))
        w(c("about the same number of K/V blocks and the round robin stays balanced."))
        w(f"""    %batches = memref.dim %q, %c0 : {mt}
    %heads_batches = arith.muli %q_heads, %batches : index
    %tiles = arith.muli %q_blocks_all, %heads_batches : index
    %tiles_per_unit = arith.constant {2 if causal else 1} : index
    %units = arith.ceildivui %tiles, %tiles_per_unit : index
    %block_x = gpu.block_id x
    %unit_step = gpu.grid_dim x
""")
        w(c("This CTA's units: first_unit, first_unit + grid, ...; its tiles: those of"))
        w(c("its units, less the missing second tile of an odd count's last unit."))
        w("""    %first_unit = arith.minui %block_x, %units : index
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
""")

    def tile_coords(indent, heads=True, rows=True):
        """This tile's query block, first query row and K/V block count
        (`rows`), head, batch and K/V head (`heads`): of tile %t when
        persistent, else of the CTA. The consumers take the heads only
        where they store O, so that they hold one index, not two, across
        the K/V loop."""
        if persistent:
            order = ("""%pos_half = arith.divui %pos, %c2 : index
%pos_bit = arith.remui %pos, %c2 : index
%pos_odd = arith.cmpi ne, %pos_bit, %c0 : index
%last_q_block = arith.subi %q_blocks_all, %c1 : index
%from_end = arith.subi %last_q_block, %pos_half : index
%q_block = arith.select %pos_odd, %pos_half, %from_end : index
""" if causal else "%q_block = arith.addi %pos, %c0 : index\n")
            # In 32 bits (fewer than 2^32 tiles): the consumers hold the
            # (batch, head) index across the K/V loop in one register.
            text = (("""%t32 = arith.index_castui %t : index to i32
%q_blocks32 = arith.index_castui %q_blocks_all : index to i32
%bh32 = arith.divui %t32, %q_blocks32 : i32
%pos32 = arith.remui %t32, %q_blocks32 : i32
%pos = arith.index_castui %pos32 : i32 to index
""" + order if rows else "") + ("""%q_heads32 = arith.index_castui %q_heads : index to i32
%head32 = arith.remui %bh32, %q_heads32 : i32
%batch32 = arith.divui %bh32, %q_heads32 : i32
%head = arith.index_castui %head32 : i32 to index
%batch = arith.index_castui %batch32 : i32 to index
%kv_head = arith.divui %head, %group : index
""" if heads else ""))
        elif causal:
            text = """%block_x = gpu.block_id x
%last_q_block = arith.subi %q_blocks_all, %c1 : index
%q_block = arith.subi %last_q_block, %block_x : index
%head = gpu.block_id y
%batch = gpu.block_id z
"""
        else:
            text = """%q_block = gpu.block_id x
%head = gpu.block_id y
%batch = gpu.block_id z
"""
        if varlen:  # %block_x and %batch are the sequence's, above
            text = "".join(line + "\n" for line in text.split("\n")
                           if line and not line.startswith(("%block_x =", "%batch =")))
            text = text.replace("%q_block = gpu.block_id x",
                                "%q_block = arith.addi %block_x, %c0 : index")
        if not persistent:
            text += "%kv_head = arith.divui %head, %group : index\n"
        if not rows:
            return "".join(f"{indent}{line}\n" for line in text.rstrip("\n").split("\n"))
        text += "%q0 = arith.muli %q_block, %tile_rows : index\n"
        text += ("""%q_end = arith.addi %q0, %tile_rows : index
%k_blocks_diag = arith.ceildivui %q_end, %bn : index
%k_blocks = arith.minui %k_blocks_all, %k_blocks_diag : index""" if causal else
                 "%k_blocks = arith.addi %k_blocks_all, %c0 : index")
        return "".join(f"{indent}{line}\n" for line in text.split("\n"))

    if not persistent:
        if causal:
            w(c("Causal: the last query blocks see the most K/V blocks; they take the first"))
            w(c("CTA indices, so that the last wave holds the short ones. Keys past the"))
            w(c("CTA's last query row are never seen."))
        w(tile_coords("    "))
    w(c(("Q (two buffers of " if q_buffers == 2 else "Q (")
        + f"{consumers} × 64 rows, one part per consumer), the K and V rings, the LSE rows; O "
        + ("in its own halves." if separate_o else "reuses Q's half.")))
    w(f"""    %gq = tile.from_memref %q : {mt} -> {g_t}
    %gk = tile.from_memref %k : {mt} -> {g_t}
    %gv = tile.from_memref %v : {mt} -> {g_t}
    %go = tile.from_memref %o : {mt} -> {g_t}
    %glse = tile.from_memref %lse : memref<?x1xf32, 1> -> !tile.buffer<?x1xf32, global>
    %sq = tile.alloc_shared {{alignment = 1024 : i64}} : {sq_t}
    %sk = tile.alloc_shared {{alignment = 1024 : i64}} : {kv_t}
    %sv = tile.alloc_shared {{alignment = 1024 : i64}} : {kv_t}
    %slse = tile.alloc_shared {{alignment = 128 : i64}} : {lse_t}
""")
    if separate_o:
        w(f"    %so = tile.alloc_shared {{alignment = 1024 : i64}} : {q_t}\n")
    w(c(f"Barriers: [0] Q landed; [1 + s] K of stage s landed, [{1 + stages} + s] V landed,"))
    w(c(f"[{1 + 2 * stages} + s] K of stage s free again, [{1 + 3 * stages} + s] V of stage s free"))
    w(c("again (one arrival per consumer warp): K is freed once its Q·Kᵀ retired, before"))
    w(c("the P·V of its block, so the producer loads the next K a step earlier."))
    if persistent:
        w(c(f"[{q_free}] Q free for a later tile: "
            + ("one arrival per consumer warp once its last Q·Kᵀ retired."
               if separate_o else
               "one arrival per consumer warpgroup once O's store read Q's half.")))
    if q_buffers == 2:
        w(c(f"Q is double-buffered: tile i uses Q buffer i mod 2, whose barriers are"))
        w(c(f"[0] and [{q_free}] for buffer 0, [{q_full_2}] and [{q_free_2}] for buffer 1."))
    q_free_init = (f"      %q_free_arrivals = arith.constant {4 * consumers if separate_o else consumers} : index\n"
                   f"      nvgpu.mbarrier.init %bars[%q_free], %q_free_arrivals : {bar_t}\n"
                   if persistent else "")
    if q_buffers == 2:
        q_free_init += (f"      %q_full_2 = arith.constant {q_full_2} : index\n"
                        f"      %q_free_2 = arith.constant {q_free_2} : index\n"
                        f"      nvgpu.mbarrier.init %bars[%q_full_2], %c1 : {bar_t}\n"
                        f"      nvgpu.mbarrier.init %bars[%q_free_2], %q_free_arrivals : {bar_t}\n")
    # Tile %i's Q buffer (%q_buf), its use of that buffer (%q_use) and the
    # buffer's landed and freed barriers (%q_full_bar, %q_free_bar).
    q_buffer_of_tile = ("""%q_buf = arith.remui %i, %c2 : index
%q_use = arith.divui %i, %c2 : index
%q_full_bar = arith.muli %q_buf, %c_q_full_2 : index
%q_free_step = arith.muli %q_buf, %c2 : index
%q_free_bar = arith.addi %q_free, %q_free_step : index
""" if q_buffers == 2 else """%q_use = arith.addi %i, %c0 : index
%q_full_bar = arith.addi %c0, %c0 : index
""" + ("%q_free_bar = arith.addi %q_free, %c0 : index\n" if persistent else ""))
    w(f"""    %bars = nvgpu.mbarrier.create -> {bar_t}
""")
    if varlen:
        w(c("Past the sequence's last query block: nothing to do."))
        w("    scf.if %has_work {\n")
    w(f"""    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %tid_in_wg = arith.remui %tid, %c128 : index
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {{
      nvgpu.mbarrier.init %bars[%c0], %c1 : {bar_t}
      scf.for %s = %c0 to %stages step %c1 {{
        %kb = arith.addi %s, %c1 : index
        %vb0 = arith.addi %s, %stages : index
        %vb = arith.addi %vb0, %c1 : index
        %eb0 = arith.addi %vb0, %stages : index
        %eb = arith.addi %eb0, %c1 : index
        %fb0 = arith.addi %eb0, %stages : index
        %fb = arith.addi %fb0, %c1 : index
        nvgpu.mbarrier.init %bars[%kb], %c1 : {bar_t}
        nvgpu.mbarrier.init %bars[%vb], %c1 : {bar_t}
        nvgpu.mbarrier.init %bars[%eb], %consumer_warps : {bar_t}
        nvgpu.mbarrier.init %bars[%fb], %consumer_warps : {bar_t}
      }}
{q_free_init}      tile.fence mbarrier_init
    }}
    gpu.barrier
    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {{
""")
    def ring_slot(tag, indent):
        """Stage, free-wait parity and barrier indices of K/V block %{tag}
        (of this tile), the %g_{tag}-th block through the ring."""
        text = f"""%g_{tag} = arith.addi %g, %{tag} : index
%s_{tag} = arith.remui %g_{tag}, %stages : index
%round_{tag} = arith.divui %g_{tag}, %stages : index
%round_bit_{tag} = arith.remui %round_{tag}, %c2 : index
%free_parity_{tag} = arith.cmpi eq, %round_bit_{tag}, %c0 : index
%parity_{tag} = arith.cmpi ne, %round_bit_{tag}, %c0 : index
%kb_{tag} = arith.addi %s_{tag}, %c1 : index
%vb0_{tag} = arith.addi %s_{tag}, %stages : index
%vb_{tag} = arith.addi %vb0_{tag}, %c1 : index
%eb0_{tag} = arith.addi %vb0_{tag}, %stages : index
%eb_{tag} = arith.addi %eb0_{tag}, %c1 : index
%fb0_{tag} = arith.addi %eb0_{tag}, %stages : index
%fb_{tag} = arith.addi %fb0_{tag}, %c1 : index"""
        return "".join(f"{indent}{line}\n" for line in text.split("\n"))

    def key_at(tag):
        """Varlen: the ragged coordinate of key block %{tag}'s first key."""
        return (f"%key_x_{tag} = arith.addi %k_x0, %key0_{tag} : index\n"
                if varlen else "")

    def kv_coords(tag):
        return (f"%ragged, %end_k, %kv_head, %key_x_{tag}, 0" if varlen else
                f"%batch, %kv_head, %key0_{tag}, 0")

    def load_k(tag, indent):
        text = f"""nvgpu.mbarrier.try_wait.parity %bars[%eb_{tag}], %free_parity_{tag}, %ticks : {bar_t}
%key0_{tag} = arith.muli %{tag}, %bn : index
{key_at(tag)}nvgpu.mbarrier.arrive.expect_tx %bars[%kb_{tag}], %kv_bytes : {bar_t}
tile.copy_async %gk[{kv_coords(tag)}] to %sk[%s_{tag}, 0, 0] sizes [{bn}, {d}] exec thread
    mbar(%bars[%kb_{tag}] : {bar_t}) : {g_t} to {kv_t}"""
        return "".join(f"{indent}{line}\n" for line in text.split("\n"))

    def load_v(tag, indent):
        text = f"""nvgpu.mbarrier.try_wait.parity %bars[%fb_{tag}], %free_parity_{tag}, %ticks : {bar_t}
nvgpu.mbarrier.arrive.expect_tx %bars[%vb_{tag}], %kv_bytes : {bar_t}
tile.copy_async %gv[{kv_coords(tag)}] to %sv[%s_{tag}, 0, 0] sizes [{bn}, {d}] exec thread
    mbar(%bars[%vb_{tag}] : {bar_t}) : {g_t} to {kv_t}"""
        return "".join(f"{indent}{line}\n" for line in text.split("\n"))

    def tile_loop(indent, body):
        """`body` (text at indent + 2) once per tile of this CTA, with %t,
        %i (tiles done before) and %g (K/V blocks through the ring before)
        defined; without `persistent`, once with both zero."""
        if not persistent:
            return (f"{indent}%i = arith.addi %c0, %c0 : index\n"
                    f"{indent}%g = arith.addi %c0, %c0 : index\n"
                    + "".join(line[2:] + "\n" if line.strip() else "\n"
                              for line in body.rstrip("\n").split("\n")))
        return (f"""{indent}%end_g = scf.for %i = %c0 to %my_tiles step %c1
{indent}    iter_args(%g = %c0) -> (index) {{
{indent}  %unit_n = arith.divui %i, %tiles_per_unit : index
{indent}  %unit_offset = arith.muli %unit_n, %unit_step : index
{indent}  %u = arith.addi %first_unit, %unit_offset : index
{indent}  %t_in_unit = arith.remui %i, %tiles_per_unit : index
{indent}  %t_unit = arith.muli %u, %tiles_per_unit : index
{indent}  %t = arith.addi %t_unit, %t_in_unit : index
""" + body + f"""{indent}  %g_next = arith.addi %g, %k_blocks : index
{indent}  scf.yield %g_next : index
{indent}}}
""")

    if persistent:
        w(c("Producer: registers to the consumers; thread 0 walks this CTA's tiles and,"))
        w(c("per tile, loads K of block 0, then Q once the consumers freed it, then V of"))
        w(c("block 0 and the other K/V blocks; block n of the ring (counted across"))
        w(c("tiles) goes to stage n mod 2 once both consumers freed it."))
    else:
        w(c("Producer: registers to the consumers; thread 0 loads K of block 0, Q, then"))
        w(c("V of block 0 and the other K/V blocks: block j into stage j mod 2 once both"))
        w(c("consumers freed it (phase j / 2 of its free barriers)."))
    o_coords = ("%ragged, %end_q, %head, %row0_x, 0" if varlen else
                "%batch, %head, %row0, 0")
    q_at = "  %row_x = arith.addi %q_x0, %row : index\n" if varlen else ""
    q_coords = ("%ragged, %end_q, %head, %row_x, 0" if varlen else
                "%batch, %head, %row, 0")
    q_free_wait = q_buffer_of_tile + (f"""%q_round_bit = arith.remui %q_use, %c2 : index
%q_free_parity = arith.cmpi eq, %q_round_bit, %c0 : index
nvgpu.mbarrier.try_wait.parity %bars[%q_free_bar], %q_free_parity, %ticks : {bar_t}
""" if persistent else "")
    q_slot = ("%q_slot_base = arith.muli %q_buf, %consumer_wgs : index\n"
              "  %q_slot = arith.addi %q_slot_base, %h : index\n" if q_buffers == 2
              else "%q_slot = arith.addi %h, %c0 : index\n")
    producer_tile = ((tile_coords("          ") if persistent else "") + "          %first = arith.addi %c0, %c0 : index\n"
                     + ring_slot("first", "          ") + load_k("first", "          ")
                     + "".join("          " + line + "\n" for line in (q_free_wait + f"""nvgpu.mbarrier.arrive.expect_tx %bars[%q_full_bar], %q_bytes : {bar_t}
scf.for %h = %c0 to %consumer_wgs step %c1 {{
  %row_in = arith.muli %h, %c64 : index
  %row = arith.addi %q0, %row_in : index
  {q_slot}{q_at}  tile.copy_async %gq[{q_coords}] to %sq[%q_slot, 0, 0] sizes [64, {d}] exec thread
      mbar(%bars[%q_full_bar] : {bar_t}) : {g_t} to {sq_t}
}}""").split("\n"))
                     + load_v("first", "          ")
                     + "          scf.for %j = %c1 to %k_blocks step %c1 {\n"
                     + ring_slot("j", "            ") + load_k("j", "            ")
                     + load_v("j", "            ") + "          }\n")
    w("""      nvvm.setmaxregister decrease 24
      scf.if %leader {
""")
    w(tile_loop("        ", producer_tile))
    w("""      }
    } else {
""")
    w(c("Consumers: warpgroup 1 owns rows q0 .. q0 + 63, warpgroup 2 the next 64."))
    w(f"""      nvvm.setmaxregister increase {CONSUMER_REGISTERS[consumers]}
      %half = arith.subi %wg, %c1 : index
      %row_in_cta = arith.muli %half, %c64 : index
      %wg_barrier = arith.index_cast %wg : index to i32
      %releaser = arith.cmpi eq, %lane, %c0 : index
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
      %acc = tile.alloc_local : {o_t}
      %m = tile.alloc_local : {r_t}
      %l = tile.alloc_local : {r_t}
      %zero = arith.constant 0.0 : f32
      %neg_inf = arith.constant 0xFF800000 : f32
      %log2e = arith.constant 1.44269504 : f32
      %scale_log2 = arith.mulf %scale, %log2e : f32
      %s_acc = tile.alloc_local : {s_t}
      %p = tile.alloc_local : {p_t}
      %block_max = tile.alloc_local : {r_t}
      %alpha = tile.alloc_local : {r_t}
{guard_decls}      %row_sum = tile.alloc_local : {r_t}
""")
    if pingpong:
        w(c("Ping-pong: the consumers take turns issuing their GEMMs (named barriers"))
        w(c("3 and 4, 256 threads), so one's softmax runs under the other's GEMMs;"))
        w(c("warpgroup 1 goes first. The turns run on across tiles (both take the"))
        w(c("same number per tile), so that neither waits at a tile's start for the"))
        w(c("other's epilogue."))
        w("""      %c2_i32 = arith.constant 2 : i32
      %c7_i32 = arith.constant 7 : i32
      %turn_threads = arith.constant 256 : i32
      %my_turn_id = arith.addi %wg_barrier, %c2_i32 : i32
      %other_turn_id = arith.subi %c7_i32, %my_turn_id : i32
      %second_consumer = arith.cmpi eq, %wg, %c2 : index
      scf.if %second_consumer {
        tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)
      }
""")
    consumer_tile_start = len(out)
    if persistent:
        w(tile_coords("      ", heads=False))
    w(f"""      %row0 = arith.addi %q0, %row_in_cta : index
      tile.fill %acc, %zero : {o_t}, f32
      tile.fill %m, %neg_inf : {r_t}, f32
      tile.fill %l, %zero : {r_t}, f32
""")
    w("".join("      " + line + "\n" for line in q_buffer_of_tile.rstrip("\n").split("\n")))
    q_half = ("""      %q_half_base = arith.muli %q_buf, %consumer_wgs : index
      %q_half = arith.addi %q_half_base, %half : index
""" if q_buffers == 2 else "      %q_half = arith.addi %half, %c0 : index\n")
    w(q_half + f"""      %q_round_bit = arith.remui %q_use, %c2 : index
      %q_parity = arith.cmpi ne, %q_round_bit, %c0 : index
      nvgpu.mbarrier.try_wait.parity %bars[%q_full_bar], %q_parity, %ticks : {bar_t}
""")
    barriers = ring_slot

    def issue_s(j, indent, wait_if=None):
        """Wait for K of block `j` (only under `wait_if` when given), issue
        S = Q·Kᵀ (not waited for)."""
        wait = f"nvgpu.mbarrier.try_wait.parity %bars[%kb_{j}], %parity_{j}, %ticks : {bar_t}\n"
        wait = (f"{indent}scf.if %{wait_if} {{\n{indent}  {wait}{indent}}}\n" if wait_if
                else indent + wait)
        return (wait +
                f"{indent}tile.gemm_async %s_acc[0, 0], %sq[%q_half, 0, 0], %sk[%s_{j}, 0, 0] sizes [64, {bn}, {d}]\n"
                f"{indent}    exec warpgroup accumulate(%false) {{transpose_b}} : {s_t}, {sq_t}, {kv_t}\n")

    def softmax(j, indent):
        """Mask S (block `j`) where it needs it, update m and l (m in S's
        units), S = 2^(S·c - m·c) with c = scale·log2 e (one FFMA), alpha.
        A row's m moves only when its block maximum exceeds it by more than
        RESCALE_THRESHOLD (in log2 units of P): otherwise P may reach
        2^RESCALE_THRESHOLD, alpha is 1 and %grew false, so O's rescale
        (a guarded map) skips the row."""
        causal_part = (f"""
%diagonal_{j} = arith.cmpi ugt, %key_last_{j}, %row0 : index
%needs_mask_{j} = arith.ori %past_end_{j}, %diagonal_{j} : i1""" if causal else f"""
%needs_mask_{j} = arith.ori %past_end_{j}, %past_end_{j} : i1""")
        # Key key_base + col is kept where it is below the row's limit: Sk,
        # causal min(query + 1, Sk). In i32: an add, a compare and a select
        # per element (the limit is the row's, computed once per row);
        # index (i64) compares took five to six SASS instructions per
        # element. The query end wraps (no nsw) only for a padding row past
        # Sq < 2^31, whose O is clipped. (Compared relative to the block,
        # col < limit - key_base, the lane's columns are loop-invariant:
        # LLVM hoists them, 32 live registers, and d = 256 spills.)
        row_limit = (f"""%row32 = arith.index_cast %row : index to i32
    %query_end = arith.addi %query_end1_{j}, %row32 : i32
    %limit = arith.minsi %query_end, %seq_k32_{j} : i32
    """ if causal else "")
        limit = "%limit" if causal else f"%seq_k32_{j}"
        limits = (f"""
  %row0_32_{j} = arith.index_cast %row0 : index to i32
  %c1_i32_{j} = arith.constant 1 : i32
  %query_end1_{j} = arith.addi %row0_32_{j}, %c1_i32_{j} overflow<nsw> : i32""" if causal else "")
        # Varlen: a row with every key masked (a sequence without keys)
        # has max -inf; taken as 0, its P is 0 and alpha 0, not NaN.
        safe = "_safe" if varlen else ""
        safe_new = ("""  %all_masked = arith.cmpf oeq, %new, %neg_inf : f32
  %new_safe = arith.select %all_masked, %zero, %new : f32
""" if varlen else "")
        safe_max = ("""  %all_masked = arith.cmpf oeq, %max, %neg_inf : f32
  %max_safe = arith.select %all_masked, %zero, %max : f32
""" if varlen else "")
        max_update = (f"""tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%grew : {grew_t}) {{
^bb0(%old: f32, %blk: f32, %row: index, %col: index):
  %new = arith.maximumf %old, %blk : f32
  %gain = arith.subf %new, %old : f32
  %gain_scaled = arith.mulf %gain, %scale_log2 : f32
  %moves = arith.cmpf ogt, %gain_scaled, %rescale_threshold : f32
  tile.yield %moves : i1
}}
tile.map ins(%m, %block_max, %grew : {r_t}, {r_t}, {grew_t}) outs(%alpha : {r_t}) {{
^bb0(%old: f32, %blk: f32, %moved: i1, %row: index, %col: index):
  %new = arith.maximumf %old, %blk : f32
{safe_new}  %diff = arith.subf %old, %new{safe} : f32
  %scaled = arith.mulf %diff, %scale_log2 : f32
  %e = math.exp2 %scaled : f32
  %one = arith.constant 1.0 : f32
  %a = arith.select %moved, %e, %one : f32
  tile.yield %a : f32
}}
tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%m : {r_t}) where(%grew : {grew_t}) {{
^bb0(%old: f32, %blk: f32, %row: index, %col: index):
  %new = arith.maximumf %old, %blk : f32
  tile.yield %new : f32
}}""" if guarded else f"""tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%alpha : {r_t}) {{
^bb0(%old: f32, %blk: f32, %row: index, %col: index):
  %new = arith.maximumf %old, %blk : f32
{safe_new}  %diff = arith.subf %old, %new{safe} : f32
  %scaled = arith.mulf %diff, %scale_log2 : f32
  %a = math.exp2 %scaled : f32
  tile.yield %a : f32
}}
tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%m : {r_t}) {{
^bb0(%old: f32, %blk: f32, %row: index, %col: index):
  %new = arith.maximumf %old, %blk : f32
  tile.yield %new : f32
}}""")
        text = f"""%key_base_{j} = arith.muli %{j}, %bn : index
%key_end_{j} = arith.addi %key_base_{j}, %bn : index
%key_last_{j} = arith.subi %key_end_{j}, %c1 : index
%past_end_{j} = arith.cmpi ugt, %key_end_{j}, %seq_k : index{causal_part}
scf.if %needs_mask_{j} {{
  %key_base32_{j} = arith.index_cast %key_base_{j} : index to i32
  %seq_k32_{j} = arith.index_cast %seq_k : index to i32{limits}
  tile.map ins(%s_acc : {s_t}) outs(%s_acc : {s_t}) {{
  ^bb0(%x: f32, %row: index, %col: index):
    {row_limit}%col32 = arith.index_cast %col : index to i32
    %key = arith.addi %key_base32_{j}, %col32 overflow<nsw> : i32
    %masked = arith.cmpi sge, %key, {limit} : i32
    %r = arith.select %masked, %neg_inf, %x : f32
    tile.yield %r : f32
  }}
}}
tile.reduce <max> %s_acc dims [1] into %block_max : {s_t} into {r_t}
{max_update}
tile.map ins(%s_acc, %m : {s_t}, {r_t}) outs(%s_acc : {s_t}) {{
^bb0(%x: f32, %max: f32, %row: index, %col: index):
{safe_max}  %max_scaled = arith.mulf %max{safe}, %scale_log2 : f32
  %offset = arith.negf %max_scaled : f32
  %shifted = math.fma %x, %scale_log2, %offset : f32
  %e = math.exp2 %shifted : f32
  tile.yield %e : f32
}}
tile.reduce <add> %s_acc dims [1] into %row_sum : {s_t} into {r_t}
tile.map ins(%l, %alpha, %row_sum : {r_t}, {r_t}, {r_t}) outs(%l : {r_t}) {{
^bb0(%old: f32, %a: f32, %sum: f32, %row: index, %col: index):
  %kept = arith.mulf %old, %a : f32
  %new = arith.addf %kept, %sum : f32
  tile.yield %new : f32
}}"""
        return "".join(f"{indent}{line}\n" for line in text.split("\n"))

    def rescale_and_convert(indent):
        """O = O·alpha on the rows whose m moved, and S becomes P, the next
        P·V's A operand."""
        guard = f" where(%grew : {grew_t})" if guarded else ""
        text = f"""tile.map ins(%acc, %alpha : {o_t}, {r_t}) outs(%acc : {o_t}){guard} {{
^bb0(%x: f32, %a: f32, %row: index, %col: index):
  %r = arith.mulf %x, %a : f32
  tile.yield %r : f32
}}
tile.convert %s_acc to %p : {s_t} to {p_t}"""
        return "".join(f"{indent}{line}\n" for line in text.split("\n"))

    if overlap:
        w(c("Block 0 first: S, its softmax, P. Then each step j issues S for block j + 1"))
        w(c("before O += P·V of block j, and runs block j + 1's softmax while that"))
        w(c("P·V is on the tensor cores (FlashAttention-3's intra-warpgroup overlap);"))
        w(c("the last block's P·V ends the loop."))
        w("      %first = arith.addi %c0, %c0 : index\n")
        turn, pass_turn = "", ""
        if pingpong:
            turn = "        tile.named_barrier id(%my_turn_id) threads(%turn_threads)\n"
            pass_turn = "        tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)\n"
        w(barriers("first", "      "))
        w(turn[2:])
        w(issue_s("first", "      "))
        w("      tile.commit_group wgmma\n")
        w(pass_turn[2:])
        w("      tile.wait_group wgmma, 0\n")
        w(f"""      scf.if %releaser {{
        nvgpu.mbarrier.arrive %bars[%eb_first] : {bar_t} -> !nvgpu.mbarrier.token
      }}
""")
        w(c("Softmax of S. Where a block needs it, keys from the row's limit on (Sk;"))
        w(c("causal, min(query + 1, Sk)) are -inf: in i32, an add, a compare and a"))
        w(c("select per element."))
        if guarded:
            w(c("A row's maximum m moves only when the block's exceeds it by more than"))
            w(c(f"{RESCALE_THRESHOLD} (log2 units of P: P stays at most 2^8); %grew marks those rows,"))
            w(c("and only they rescale l and O (O through a guarded map: a branch per"))
            w(c("row a thread holds)."))
        w(softmax("first", "      "))
        w(rescale_and_convert("      "))
        w(c("Every block but the last: S of block j + 1 issued before P·V of block j."))
        w(f"""      %k_steps = arith.subi %k_blocks, %c1 : index
      scf.for %j = %c0 to %k_steps step %c1 {{
        %n = arith.addi %j, %c1 : index
""")
        w(barriers("j", "        "))
        w(barriers("n", "        "))
        w(turn)
        w(issue_s("n", "        "))
        w("        tile.commit_group wgmma\n")
        w(f"""        nvgpu.mbarrier.try_wait.parity %bars[%vb_j], %parity_j, %ticks : {bar_t}
        tile.gemm_async %acc[0, 0], %p[0, 0], %sv[%s_j, 0, 0] sizes [64, {d}, {bn}]
            exec warpgroup accumulate(%true) : {o_t}, {p_t}, {kv_t}
        tile.commit_group wgmma
""")
        w(pass_turn)
        w(c("  S of block j + 1 retired: its K is free, its softmax runs under P·V."))
        w(f"""        tile.wait_group wgmma, 1
        scf.if %releaser {{
          nvgpu.mbarrier.arrive %bars[%eb_n] : {bar_t} -> !nvgpu.mbarrier.token
        }}
""")
        w(softmax("n", "        "))
        w("        tile.wait_group wgmma, 0\n")
        w(c("  This warp is done with block j's V: one lane per warp frees it."))
        w(f"""        scf.if %releaser {{
          nvgpu.mbarrier.arrive %bars[%fb_j] : {bar_t} -> !nvgpu.mbarrier.token
        }}
""")
        w(rescale_and_convert("        "))
        w("      }\n")
        w(c("The last block's P·V on its own (peeled, not a wgmma under a branch: that"))
        w(c("would make ptxas serialize every wgmma of the kernel)."))
        w("      %last = arith.subi %k_blocks, %c1 : index\n")
        w(barriers("last", "      "))
        w(turn[2:])
        w(f"""      nvgpu.mbarrier.try_wait.parity %bars[%vb_last], %parity_last, %ticks : {bar_t}
      tile.gemm_async %acc[0, 0], %p[0, 0], %sv[%s_last, 0, 0] sizes [64, {d}, {bn}]
          exec warpgroup accumulate(%true) : {o_t}, {p_t}, {kv_t}
      tile.commit_group wgmma
""")
        w(pass_turn[2:])
        w(f"""      tile.wait_group wgmma, 0
      scf.if %releaser {{
        nvgpu.mbarrier.arrive %bars[%fb_last] : {bar_t} -> !nvgpu.mbarrier.token
      }}
""")
    else:
        w(c("The K/V loop: block j is in stage j mod 2, landed in phase j / 2 of its barriers."))
        w("      scf.for %j = %c0 to %k_blocks step %c1 {\n")
        w(barriers("j", "        "))
        w(issue_s("j", "        "))
        w("        tile.commit_group wgmma\n        tile.wait_group wgmma, 0\n")
        w(c("  This warp is done with block j's K: one lane per warp frees it."))
        w(f"""        scf.if %releaser {{
          nvgpu.mbarrier.arrive %bars[%eb_j] : {bar_t} -> !nvgpu.mbarrier.token
        }}
""")
        w(c("  Online softmax: m' = max(m, rowmax S); alpha = 2^(m - m'); P = 2^(S - m');"))
        w(c("  l = l·alpha + rowsum P; O = O·alpha; P to registers of the A operand."))
        w(softmax("j", "        "))
        w(rescale_and_convert("        "))
        w(f"""        nvgpu.mbarrier.try_wait.parity %bars[%vb_j], %parity_j, %ticks : {bar_t}
        tile.gemm_async %acc[0, 0], %p[0, 0], %sv[%s_j, 0, 0] sizes [64, {d}, {bn}]
            exec warpgroup accumulate(%true) : {o_t}, {p_t}, {kv_t}
        tile.commit_group wgmma
        tile.wait_group wgmma, 0
""")
        w(c("  ... and with its V."))
        w(f"""        scf.if %releaser {{
          nvgpu.mbarrier.arrive %bars[%fb_j] : {bar_t} -> !nvgpu.mbarrier.token
        }}
      }}
""")
    if separate_o:
        w(c("This tile's Q buffer is free for a later tile: this warp's last Q·Kᵀ"))
        w(c("retired."))
        w(f"""      scf.if %releaser {{
        nvgpu.mbarrier.arrive %bars[%q_free_bar] : {bar_t} -> !nvgpu.mbarrier.token
      }}
""")
    o_buffer = "%so" if separate_o else "%sq"
    if separate_o:
        w(c("Epilogue: O · (1 / l) and LSE = m·scale + ln l per row (m is in S's units)"))
        w(c("into this warpgroup's O and LSE halves once the previous tile's stores read"))
        w(c("them, then one TMA store each, clipped at Sq, not waited for."))
    else:
        w(c("Epilogue: O · (1 / l) into this warpgroup's Q half (its last Q·Kᵀ is done),"))
        w(c("LSE = m·scale + ln l per row (m is in S's units), then one TMA store each,"))
        w(c("clipped at Sq."))
    safe = "_safe" if varlen else ""
    inverse_of_empty = ("""        %no_keys = arith.cmpf oeq, %sum, %zero : f32
        %r_safe = arith.select %no_keys, %zero, %r : f32
""" if varlen else "")
    w(f"""      tile.map ins(%l : {r_t}) outs(%alpha : {r_t}) {{
      ^bb0(%sum: f32, %row: index, %col: index):
        %one = arith.constant 1.0 : f32
        %r = arith.divf %one, %sum : f32
{inverse_of_empty}        tile.yield %r{safe} : f32
      }}
      tile.map ins(%acc, %alpha : {o_t}, {r_t}) outs(%acc : {o_t}) {{
      ^bb0(%x: f32, %inv: f32, %row: index, %col: index):
        %r = arith.mulf %x, %inv : f32
        tile.yield %r : f32
      }}
      tile.map ins(%m, %l : {r_t}, {r_t}) outs(%m : {r_t}) {{
      ^bb0(%max: f32, %sum: f32, %row: index, %col: index):
        %natural = arith.mulf %max, %scale : f32
        %log_sum = math.log %sum : f32
        %r = arith.addf %natural, %log_sum : f32
        tile.yield %r : f32
      }}
""")
    if persistent:
        w(tile_coords("      ", rows=False))
    if varlen:
        w(c("LSE rows: per head, the packed tokens, each sequence starting on a 16-byte"))
        w(c("boundary (what the TMA store takes) and padded by a tile and 4 rows:"))
        w(c("sequence b's row r at round_up(start, 4) + b · (tile rows + 4) + r, a"))
        w(c("head's rows as many as the launcher allocates (a multiple of 4)."))
        w(f"""      %row0_x = arith.addi %q_x0, %row0 : index
      %lse_all = memref.dim %lse, %c0 : memref<?x1xf32, 1>
      %lse_head_rows = arith.divui %lse_all, %q_heads : index
      %lse_base = arith.muli %head, %lse_head_rows : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %start_up = arith.addi %start_q, %c3 : index
      %start_quads = arith.divui %start_up, %c4 : index
      %start_aligned = arith.muli %start_quads, %c4 : index
      %seq_stride = arith.addi %tile_rows, %c4 : index
      %seq_pad = arith.muli %batch, %seq_stride : index
      %seq_base = arith.addi %start_aligned, %seq_pad : index
      %lse_seq = arith.addi %lse_base, %seq_base : index
      %lse_row = arith.addi %lse_seq, %row0 : index
""")
    else:
        w("""      %q_blocks = arith.ceildivui %seq_q, %c64 : index
      %seq_q_padded = arith.muli %q_blocks, %c64 : index
      %bh = arith.muli %batch, %q_heads : index
      %bh_head = arith.addi %bh, %head : index
      %lse_base = arith.muli %bh_head, %seq_q_padded : index
      %lse_row = arith.addi %lse_base, %row0 : index
""")
    if separate_o:
        w("""      scf.if %wg_leader {
        tile.wait_group bulk, 0 {read}
      }
      tile.named_barrier id(%wg_barrier) threads(%wg_threads)
""")
    w(f"""      tile.store %m to %slse[%half, 0, 0] : {r_t} to {lse_t}
      tile.store %acc to {o_buffer}[%half, 0, 0] : {o_t} to {q_t}
      tile.fence proxy_async
      tile.named_barrier id(%wg_barrier) threads(%wg_threads)
      %in_range = arith.cmpi ult, %row0, %seq_q : index
      scf.if %wg_leader {{
        scf.if %in_range {{
          tile.copy_async {o_buffer}[%half, 0, 0] to %go[{o_coords}] sizes [64, {d}] exec thread
              : {q_t} to {g_t}
          tile.copy_async %slse[%half, 0, 0] to %glse[%lse_row, 0] sizes [64, 1] exec thread
              : {lse_t} to !tile.buffer<?x1xf32, global>
        }}
        tile.commit_group bulk
""")
    if not separate_o:
        w("        tile.wait_group bulk, 0 {read}\n")
        if persistent:
            w(f"        nvgpu.mbarrier.arrive %bars[%q_free] : {bar_t} -> !nvgpu.mbarrier.token\n")
    w("      }\n")
    consumer_tile = "".join("  " + line + "\n" if line.strip() else "\n"
                            for line in "".join(out[consumer_tile_start:]).rstrip("\n").split("\n"))
    del out[consumer_tile_start:]
    w(tile_loop("      ", consumer_tile))
    if pingpong:
        w(c("Warpgroup 1 takes warpgroup 2's last turn: no generation left open."))
        w("""      %first_consumer = arith.xori %second_consumer, %true : i1
      scf.if %first_consumer {
        tile.named_barrier id(%my_turn_id) threads(%turn_threads)
      }
""")
    if separate_o:
        w(c("The last tile's stores read their shared memory before the CTA exits."))
        w("""      scf.if %wg_leader {
        tile.wait_group bulk, 0 {read}
      }
""")
    w("    }\n")
    if varlen:
        w("    }\n")
    w("""    gpu.return
  }
""")
    return "".join(out)


EXAMPLE_HEADER = """\
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

"""


def with_aliases(text, d, causal, dtype):
    """The example's long types as aliases defined above the module (the
    warp-specialized form's types, longest first so that none is cut)."""
    bn = block_n_of(d, FORMS[d, causal][0])
    q_shape, q_layout = shared_layout(64, d, 2)
    q_buffers = q_buffers_of(d, FORMS[d, causal][1])
    sq_shape, sq_layout = shared_layout(64, d, 2 * q_buffers)
    kv_shape, kv_layout = shared_layout(bn, d, 2)
    barriers = barrier_count(d, FORMS[d, causal][1])
    aliases = [
        ("bars", "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
                 f"num_barriers = {barriers}>"),
        ("gmem", f"!tile.buffer<?x?x?x?x{dtype}, global>"),
        ("q_halves", f"!tile.buffer<{q_shape}x{dtype}, shared, #tile.layout<{q_layout}>>"),
        ("q_buffers", f"!tile.buffer<{sq_shape}x{dtype}, shared, #tile.layout<{sq_layout}>>"),
        ("kv_ring", f"!tile.buffer<{kv_shape}x{dtype}, shared, #tile.layout<{kv_layout}>>"),
        ("lse_rows", "!tile.buffer<2x64x1xf32, shared>"),
        ("s_acc", f"!tile.buffer<64x{bn}xf32, local, #tile.layout<{acc_layout(bn)}>>"),
        ("p_regs", f"!tile.buffer<64x{bn}x{dtype}, local, #tile.layout<{acc_layout(bn)}>>"),
        ("o_acc", f"!tile.buffer<64x{d}xf32, local, #tile.layout<{acc_layout(d)}>>"),
        ("row", f"!tile.buffer<64x1xf32, local, #tile.layout<{ROW_LAYOUT}>>"),
    ]
    if GUARDED_RESCALE[d]:
        aliases.append(("row_flags",
                        f"!tile.buffer<64x1xi1, local, #tile.layout<{ROW_LAYOUT}>>"))
    if aliases[6][1] == aliases[8][1]:  # S and O: both 64 x 128 f32
        aliases[6] = ("acc", aliases[6][1])
        del aliases[8]
    if aliases[3][1] == aliases[2][1]:  # one Q buffer
        del aliases[3]
    for name, full in sorted(aliases, key=lambda a: -len(a[1])):
        text = text.replace(full, "!" + name)
    defs = "".join(f"!{name} = {full}\n" for name, full in aliases)
    return EXAMPLE_HEADER + defs + "\n" + text


def module(configs, comments=False):
    makers = {"simple": kernel,
              "ws": lambda *a, **k: kernel_ws(*a, **k),
              "ws-overlap": lambda *a, **k: kernel_ws(*a, overlap=True, **k),
              "ws-pingpong": lambda *a, **k: kernel_ws(*a, overlap=True, pingpong=True, **k)}
    body = ""
    for d, causal, dtype, varlen, long in configs:
        form, persistent, consumers, _ = form_of(d, causal, long)
        if form == "simple":
            body += kernel(d, causal, dtype, comments)
        else:
            # Varlen kernels run one CTA per (query block, head, sequence).
            body += makers[form](d, causal, dtype, comments,
                                 persistent=persistent and not varlen,
                                 varlen=varlen, consumers=consumers, long=long)
    return ('gpu.module @attention [#nvvm.target<chip = "sm_90a">] {' + body + "}\n")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_mlir")
    parser.add_argument("out_cases")
    parser.add_argument("--example", nargs=3, metavar=("D", "MASK", "DTYPE"),
                        help="one kernel, commented: head dim (%s), causal or "
                        "none, dtype (%s)" % (", ".join(map(str, HEAD_DIMS)),
                                              ", ".join(DTYPES)))
    args = parser.parse_args()
    out_mlir, out_cases = args.out_mlir, args.out_cases
    if args.example:
        d, mask, dtype = args.example
        if (not d.isdigit() or int(d) not in HEAD_DIMS
                or mask not in ("causal", "none") or dtype not in DTYPES):
            parser.error("--example takes a head dim of %s, causal or none, "
                         "and a dtype of %s" % (HEAD_DIMS, DTYPES))
        d, causal = int(d), mask == "causal"
        configs = [(d, causal, dtype, False, False)]
        text = with_aliases(module(configs, comments=True), d, causal, dtype)
    else:
        configs = [(d, causal, dtype, varlen, False) for varlen in (False, True)
                   for d in HEAD_DIMS for causal in (False, True) for dtype in DTYPES]
        configs += [(d, causal, dtype, False, True) for d, causal in LONG_FORMS
                    if d in HEAD_DIMS for dtype in DTYPES]
        text = ("// Generated by bench/Kernels/gen_attention_kernels.py; do not edit.\n"
                + module(configs))
    with open(out_mlir, "w") as f:
        f.write(text)
    def case(d, causal, dtype, varlen, long):
        form, persistent, consumers, min_seq_q = form_of(d, causal, long)
        simple = form == "simple"
        return {"kernel": kernel_name(d, causal, dtype, varlen, consumers, long),
                "head_dim": d, "causal": causal, "dtype": dtype, "form": form,
                "block_m": BLOCK_M if simple else 64 * consumers,
                "block_n": BLOCK_N if simple else block_n_of(d, form),
                "threads": 128 if simple else 128 * (consumers + 1),
                # Persistent kernels: grid (min(units, SMs), 1, 1), a unit
                # being this many adjacent tiles of block_m query rows
                # (tiles ordered query block fastest, then head, then batch).
                "persistent": not simple and persistent and not varlen,
                "tiles_per_unit": 2 if causal else 1,
                # Packed sequences (cu_seqlens arguments, ragged views):
                # grid (ceil(max Sq / block_m), Hq, B).
                "varlen": varlen,
                # Chosen for Sq >= this (the longest such of its key).
                "min_seq_q": min_seq_q}
    cases = [case(*config) for config in configs]
    with open(out_cases, "w") as f:
        json.dump({"kernels": cases}, f, indent=1)


if __name__ == "__main__":
    main()

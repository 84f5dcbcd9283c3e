#!/usr/bin/env python3
"""Generates the forward-attention kernels in tile IR (one gpu.module) and
their case list.

    O = softmax(Q Kᵀ · scale [+ causal mask]) V,   LSE = log Σ exp(...)

per (batch, head), for Q/K/V/O in the [batch, heads, seq, dim] layout
(torch's SDPA layout, contiguous), K/V heads shared by groups of Q heads
(GQA: Q head h reads K/V head h / (Hq / Hkv)), any sequence lengths.

One kernel per head dim × causal × dtype, in the form FORMS names for its
head dim (docs/Attention.md walks through one):
  * "ws" / "ws-overlap" / "ws-pingpong" (kernel_ws): FlashAttention-3's
    structure. 128 query rows per CTA, grid (ceil(Sq / 128), Hq, B), causal
    query blocks last to first; a producer warpgroup whose thread 0 TMA-loads
    Q once and K/V blocks through a 2-stage ring (K and V each with a full
    and a free barrier); two consumer warpgroups of 64 rows each: S = Q·Kᵀ
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

import json
import sys

BLOCK_M = 64  # query rows per CTA (one warpgroup)
BLOCK_N = 64  # keys per K/V block
STAGES = 2
HEAD_DIMS = (64, 128, 256)
DTYPES = ("bf16", "f16")
# Per head dim: "simple" (one warpgroup, 64 rows per CTA), "ws"
# (warp-specialized, 128 rows per CTA), "ws-overlap" (ws with the
# intra-warpgroup overlap) or "ws-pingpong" (ws-overlap with the consumers
# taking turns); the chosen ones were the fastest measured at their head
# dim (docs/Performance.md (h)). d = 256 stays "ws": with the overlap its
# consumers hold S, P and a 64 × 256 O and spill.
FORMS = {64: "ws-overlap", 128: "ws-overlap", 256: "ws"}
# K/V ring stages of the warp-specialized forms, per head dim.
WS_STAGES = {64: 2, 128: 2, 256: 2}


def kernel_name(d, causal, dtype):
    return f"attention_d{d}_{'causal' if causal else 'full'}_{dtype}"


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


def kernel_ws(d, causal, dtype, comments, overlap=False, pingpong=False):
    """The warp-specialized form (FlashAttention-3's structure): 128 query
    rows per CTA, a producer warpgroup (thread 0 issues every TMA load,
    registers given up with setmaxnreg) and two consumer warpgroups, each
    owning 64 rows; K and V blocks of BN keys through a ring of full / empty
    barriers, V's barrier separate from K's so that S = Q·Kᵀ starts while V
    is still landing."""
    t = dtype
    c = (lambda text: f"    // {text}\n") if comments else (lambda text: "")
    bn = 64 if d == 256 else 128
    stages = WS_STAGES[d]
    q_shape, q_layout = shared_layout(64, d, 2)
    kv_shape, kv_layout = shared_layout(bn, d, stages)
    name = kernel_name(d, causal, dtype)
    bar_count = 1 + 4 * stages
    bar_t = (f"!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
             f"num_barriers = {bar_count}>")
    g_t = f"!tile.buffer<?x?x?x?x{t}, global>"
    q_t = f"!tile.buffer<{q_shape}x{t}, shared, #tile.layout<{q_layout}>>"
    kv_t = f"!tile.buffer<{kv_shape}x{t}, shared, #tile.layout<{kv_layout}>>"
    lse_t = "!tile.buffer<2x64x1xf32, shared>"
    s_t = f"!tile.buffer<64x{bn}xf32, local, #tile.layout<{acc_layout(bn)}>>"
    p_t = f"!tile.buffer<64x{bn}x{t}, local, #tile.layout<{acc_layout(bn)}>>"
    o_t = f"!tile.buffer<64x{d}xf32, local, #tile.layout<{acc_layout(d)}>>"
    r_t = f"!tile.buffer<64x1xf32, local, #tile.layout<{ROW_LAYOUT}>>"
    out = []
    w = out.append
    w(f"""
  // {name}: head dim {d}, {'causal' if causal else 'no mask'}, {dtype} in, f32 accumulation.
  gpu.func @{name}(%q: memref<?x?x?x?x{t}, 1>, %k: memref<?x?x?x?x{t}, 1>,
      %v: memref<?x?x?x?x{t}, 1>, %o: memref<?x?x?x?x{t}, 1>,
      %lse: memref<?x1xf32, 1>, %scale: f32) kernel
      attributes {{known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %bn = arith.constant {bn} : index
    %stages = arith.constant {stages} : index
    %ticks = arith.constant 1000000 : index
    %q_bytes = arith.constant {128 * d * 2} : index
    %kv_bytes = arith.constant {bn * d * 2} : index
    %consumer_warps = arith.constant 8 : index
    %wg_threads = arith.constant 128 : i32
    %false = arith.constant false
    %true = arith.constant true
""")
    w(c("Sizes, this CTA's 128 query rows, and the K/V head of its Q head (GQA)."))
    if causal:
        q_block = (c("Causal: the last query blocks see the most K/V blocks; they take the first")
                   + c("CTA indices, so that the last wave holds the short ones.")
                   + """    %block_x = gpu.block_id x
    %q_blocks_all = arith.ceildivui %seq_q, %c128 : index
    %last_q_block = arith.subi %q_blocks_all, %c1 : index
    %q_block = arith.subi %last_q_block, %block_x : index
""")
    else:
        q_block = "    %q_block = gpu.block_id x\n"
    w(f"""    %q_heads = memref.dim %q, %c1 : memref<?x?x?x?x{t}, 1>
    %seq_q = memref.dim %q, %c2 : memref<?x?x?x?x{t}, 1>
    %kv_heads = memref.dim %k, %c1 : memref<?x?x?x?x{t}, 1>
    %seq_k = memref.dim %k, %c2 : memref<?x?x?x?x{t}, 1>
{q_block}    %head = gpu.block_id y
    %batch = gpu.block_id z
    %group = arith.divui %q_heads, %kv_heads : index
    %kv_head = arith.divui %head, %group : index
    %q0 = arith.muli %q_block, %c128 : index
    %k_blocks_all = arith.ceildivui %seq_k, %bn : index
""")
    if causal:
        w(c("Causal: keys past the CTA's last query row are never seen."))
        w("""    %q_end = arith.addi %q0, %c128 : index
    %k_blocks_diag = arith.ceildivui %q_end, %bn : index
    %k_blocks = arith.minui %k_blocks_all, %k_blocks_diag : index
""")
    else:
        w("    %k_blocks = arith.addi %k_blocks_all, %c0 : index\n")
    w(c("Q (two halves of 64 rows), the K and V rings, the LSE rows; O reuses Q's half."))
    w(f"""    %gq = tile.from_memref %q : memref<?x?x?x?x{t}, 1> -> {g_t}
    %gk = tile.from_memref %k : memref<?x?x?x?x{t}, 1> -> {g_t}
    %gv = tile.from_memref %v : memref<?x?x?x?x{t}, 1> -> {g_t}
    %go = tile.from_memref %o : memref<?x?x?x?x{t}, 1> -> {g_t}
    %glse = tile.from_memref %lse : memref<?x1xf32, 1> -> !tile.buffer<?x1xf32, global>
    %sq = tile.alloc_shared {{alignment = 1024 : i64}} : {q_t}
    %sk = tile.alloc_shared {{alignment = 1024 : i64}} : {kv_t}
    %sv = tile.alloc_shared {{alignment = 1024 : i64}} : {kv_t}
    %slse = tile.alloc_shared {{alignment = 128 : i64}} : {lse_t}
""")
    w(c(f"Barriers: [0] Q landed; [1 + s] K of stage s landed, [{1 + stages} + s] V landed,"))
    w(c(f"[{1 + 2 * stages} + s] K of stage s free again, [{1 + 3 * stages} + s] V of stage s free"))
    w(c("again (one arrival per consumer warp): K is freed once its Q·Kᵀ retired, before"))
    w(c("the P·V of its block, so the producer loads the next K a step earlier."))
    w(f"""    %bars = nvgpu.mbarrier.create -> {bar_t}
    %tid = gpu.thread_id x
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
      tile.fence mbarrier_init
    }}
    gpu.barrier
    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {{
""")
    w(c("Producer: registers to the consumers; thread 0 loads Q, then K/V block j into"))
    w(c("stage j mod 2 once both consumers freed it (phase j / 2 of its empty barrier)."))
    w(f"""      nvvm.setmaxregister decrease 24
      scf.if %leader {{
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %q_bytes : {bar_t}
        scf.for %h = %c0 to %c2 step %c1 {{
          %row_in = arith.muli %h, %c64 : index
          %row = arith.addi %q0, %row_in : index
          tile.copy_async %gq[%batch, %head, %row, 0] to %sq[%h, 0, 0] sizes [64, {d}] exec thread
              mbar(%bars[%c0] : {bar_t}) : {g_t} to {q_t}
        }}
        scf.for %j = %c0 to %k_blocks step %c1 {{
          %s = arith.remui %j, %stages : index
          %round = arith.divui %j, %stages : index
          %round_bit = arith.remui %round, %c2 : index
          %free_parity = arith.cmpi eq, %round_bit, %c0 : index
          %kb = arith.addi %s, %c1 : index
          %vb0 = arith.addi %s, %stages : index
          %vb = arith.addi %vb0, %c1 : index
          %eb0 = arith.addi %vb0, %stages : index
          %eb = arith.addi %eb0, %c1 : index
          %fb0 = arith.addi %eb0, %stages : index
          %fb = arith.addi %fb0, %c1 : index
          nvgpu.mbarrier.try_wait.parity %bars[%eb], %free_parity, %ticks : {bar_t}
          %key0 = arith.muli %j, %bn : index
          nvgpu.mbarrier.arrive.expect_tx %bars[%kb], %kv_bytes : {bar_t}
          tile.copy_async %gk[%batch, %kv_head, %key0, 0] to %sk[%s, 0, 0] sizes [{bn}, {d}] exec thread
              mbar(%bars[%kb] : {bar_t}) : {g_t} to {kv_t}
          nvgpu.mbarrier.try_wait.parity %bars[%fb], %free_parity, %ticks : {bar_t}
          nvgpu.mbarrier.arrive.expect_tx %bars[%vb], %kv_bytes : {bar_t}
          tile.copy_async %gv[%batch, %kv_head, %key0, 0] to %sv[%s, 0, 0] sizes [{bn}, {d}] exec thread
              mbar(%bars[%vb] : {bar_t}) : {g_t} to {kv_t}
        }}
      }}
    }} else {{
""")
    w(c("Consumers: warpgroup 1 owns rows q0 .. q0 + 63, warpgroup 2 the next 64."))
    w(f"""      nvvm.setmaxregister increase 240
      %half = arith.subi %wg, %c1 : index
      %row_in_cta = arith.muli %half, %c64 : index
      %row0 = arith.addi %q0, %row_in_cta : index
      %wg_barrier = arith.index_cast %wg : index to i32
      %releaser = arith.cmpi eq, %lane, %c0 : index
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
      %acc = tile.alloc_local : {o_t}
      %m = tile.alloc_local : {r_t}
      %l = tile.alloc_local : {r_t}
      %zero = arith.constant 0.0 : f32
      %neg_inf = arith.constant 0xFF800000 : f32
      tile.fill %acc, %zero : {o_t}, f32
      tile.fill %m, %neg_inf : {r_t}, f32
      tile.fill %l, %zero : {r_t}, f32
      %log2e = arith.constant 1.44269504 : f32
      %scale_log2 = arith.mulf %scale, %log2e : f32
      %s_acc = tile.alloc_local : {s_t}
      %p = tile.alloc_local : {p_t}
      %block_max = tile.alloc_local : {r_t}
      %alpha = tile.alloc_local : {r_t}
      %row_sum = tile.alloc_local : {r_t}
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : {bar_t}
""")
    def barriers(j, indent):
        """Stage, parity and the three barrier indices of block `j`."""
        return "".join(f"{indent}{line}\n" for line in f"""%s_{j} = arith.remui %{j}, %stages : index
%round_{j} = arith.divui %{j}, %stages : index
%round_bit_{j} = arith.remui %round_{j}, %c2 : index
%parity_{j} = arith.cmpi ne, %round_bit_{j}, %c0 : index
%kb_{j} = arith.addi %s_{j}, %c1 : index
%vb0_{j} = arith.addi %s_{j}, %stages : index
%vb_{j} = arith.addi %vb0_{j}, %c1 : index
%eb0_{j} = arith.addi %vb0_{j}, %stages : index
%eb_{j} = arith.addi %eb0_{j}, %c1 : index
%fb0_{j} = arith.addi %eb0_{j}, %stages : index
%fb_{j} = arith.addi %fb0_{j}, %c1 : index""".split("\n"))

    def issue_s(j, indent, wait_if=None):
        """Wait for K of block `j` (only under `wait_if` when given), issue
        S = Q·Kᵀ (not waited for)."""
        wait = f"nvgpu.mbarrier.try_wait.parity %bars[%kb_{j}], %parity_{j}, %ticks : {bar_t}\n"
        wait = (f"{indent}scf.if %{wait_if} {{\n{indent}  {wait}{indent}}}\n" if wait_if
                else indent + wait)
        return (wait +
                f"{indent}tile.gemm_async %s_acc[0, 0], %sq[%half, 0, 0], %sk[%s_{j}, 0, 0] sizes [64, {bn}, {d}]\n"
                f"{indent}    exec warpgroup accumulate(%false) {{transpose_b}} : {s_t}, {q_t}, {kv_t}\n")

    def softmax(j, indent):
        """Mask S (block `j`) where it needs it, update m and l (m in S's
        units), S = 2^(S·c - m·c) with c = scale·log2 e (one FFMA), alpha."""
        causal_part = (f"""
%diagonal_{j} = arith.cmpi ugt, %key_last_{j}, %row0 : index
%needs_mask_{j} = arith.ori %past_end_{j}, %diagonal_{j} : i1""" if causal else f"""
%needs_mask_{j} = arith.ori %past_end_{j}, %past_end_{j} : i1""")
        mask = (f"""%query = arith.addi %row0, %row : index
    %future = arith.cmpi ugt, %key, %query : index
    %masked = arith.ori %outside, %future : i1""" if causal else
                "%masked = arith.ori %outside, %outside : i1")
        text = f"""%key_base_{j} = arith.muli %{j}, %bn : index
%key_end_{j} = arith.addi %key_base_{j}, %bn : index
%key_last_{j} = arith.subi %key_end_{j}, %c1 : index
%past_end_{j} = arith.cmpi ugt, %key_end_{j}, %seq_k : index{causal_part}
scf.if %needs_mask_{j} {{
  tile.map ins(%s_acc : {s_t}) outs(%s_acc : {s_t}) {{
  ^bb0(%x: f32, %row: index, %col: index):
    %key = arith.addi %key_base_{j}, %col : index
    %outside = arith.cmpi uge, %key, %seq_k : index
    {mask}
    %r = arith.select %masked, %neg_inf, %x : f32
    tile.yield %r : f32
  }}
}}
tile.reduce <max> %s_acc dims [1] into %block_max : {s_t} into {r_t}
tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%alpha : {r_t}) {{
^bb0(%old: f32, %blk: f32, %row: index, %col: index):
  %new = arith.maximumf %old, %blk : f32
  %diff = arith.subf %old, %new : f32
  %scaled = arith.mulf %diff, %scale_log2 : f32
  %a = math.exp2 %scaled : f32
  tile.yield %a : f32
}}
tile.map ins(%m, %block_max : {r_t}, {r_t}) outs(%m : {r_t}) {{
^bb0(%old: f32, %blk: f32, %row: index, %col: index):
  %new = arith.maximumf %old, %blk : f32
  tile.yield %new : f32
}}
tile.map ins(%s_acc, %m : {s_t}, {r_t}) outs(%s_acc : {s_t}) {{
^bb0(%x: f32, %max: f32, %row: index, %col: index):
  %max_scaled = arith.mulf %max, %scale_log2 : f32
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
        """O = O·alpha, and S becomes P, the next P·V's A operand."""
        text = f"""tile.map ins(%acc, %alpha : {o_t}, {r_t}) outs(%acc : {o_t}) {{
^bb0(%x: f32, %a: f32, %row: index, %col: index):
  %r = arith.mulf %x, %a : f32
  tile.yield %r : f32
}}
tile.convert %s_acc to %p : {s_t} to {p_t}"""
        return "".join(f"{indent}{line}\n" for line in text.split("\n"))

    if overlap:
        w(c("Block 0 first: S, its softmax, P. Then each step j issues S for block j + 1"))
        w(c("before O += P·V of block j, and runs block j + 1's softmax while that"))
        w(c("P·V is on the tensor cores (FlashAttention-3's intra-warpgroup overlap)."))
        w("      %first = arith.addi %c0, %c0 : index\n")
        turn, pass_turn, pass_turn_unless_last = "", "", ""
        if pingpong:
            w(c("Ping-pong: the consumers take turns issuing their GEMMs (named barriers"))
            w(c("3 and 4, 256 threads), so one's softmax runs under the other's GEMMs;"))
            w(c("warpgroup 1 goes first."))
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
            turn = "        tile.named_barrier id(%my_turn_id) threads(%turn_threads)\n"
            pass_turn = "        tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)\n"
            pass_turn_unless_last = """        %last_turn = arith.cmpi eq, %n, %k_blocks : index
        %keep_turn = arith.andi %second_consumer, %last_turn : i1
        %pass = arith.xori %keep_turn, %true : i1
        scf.if %pass {
          tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)
        }
"""
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
        w(softmax("first", "      "))
        w(rescale_and_convert("      "))
        w(f"""      scf.for %j = %c0 to %k_blocks step %c1 {{
            %n = arith.addi %j, %c1 : index
            %has_next = arith.cmpi ult, %n, %k_blocks : index
    """)
        w(barriers("j", "        "))
        w(c("  S for block j + 1; the last step reissues block j's (still in its stage)"))
        w(c("  and discards it: a wgmma under a branch would make ptxas serialize every"))
        w(c("  wgmma of the kernel."))
        w("        %n_issued = arith.select %has_next, %n, %j : index\n")
        w(barriers("n_issued", "        "))
        w(turn)
        w(issue_s("n_issued", "        ", wait_if="has_next"))
        w("        tile.commit_group wgmma\n")
        w(f"""        nvgpu.mbarrier.try_wait.parity %bars[%vb_j], %parity_j, %ticks : {bar_t}
            tile.gemm_async %acc[0, 0], %p[0, 0], %sv[%s_j, 0, 0] sizes [64, {d}, {bn}]
                exec warpgroup accumulate(%true) : {o_t}, {p_t}, {kv_t}
            tile.commit_group wgmma
""")
        w(pass_turn_unless_last)
        w(f"""        tile.wait_group wgmma, 1
        scf.if %has_next {{
          scf.if %releaser {{
            nvgpu.mbarrier.arrive %bars[%eb_n_issued] : {bar_t} -> !nvgpu.mbarrier.token
          }}
""")
        w(softmax("n_issued", "          "))
        w("""        }
            tile.wait_group wgmma, 0
    """)
        w(c("  This warp is done with block j's V: one lane per warp frees it."))
        w(f"""        scf.if %releaser {{
              nvgpu.mbarrier.arrive %bars[%fb_j] : {bar_t} -> !nvgpu.mbarrier.token
            }}
            scf.if %has_next {{
    """)
        w(rescale_and_convert("          "))
        w("""        }
          }
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
    w(c("Epilogue: O · (1 / l) into this warpgroup's Q half (its last Q·Kᵀ is done),"))
    w(c("LSE = m·scale + ln l per row (m is in S's units), then one TMA store each,"))
    w(c("clipped at Sq."))
    w(f"""      tile.map ins(%l : {r_t}) outs(%alpha : {r_t}) {{
      ^bb0(%sum: f32, %row: index, %col: index):
        %one = arith.constant 1.0 : f32
        %r = arith.divf %one, %sum : f32
        tile.yield %r : f32
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
      %q_blocks = arith.ceildivui %seq_q, %c64 : index
      %seq_q_padded = arith.muli %q_blocks, %c64 : index
      %bh = arith.muli %batch, %q_heads : index
      %bh_head = arith.addi %bh, %head : index
      %lse_base = arith.muli %bh_head, %seq_q_padded : index
      %lse_row = arith.addi %lse_base, %row0 : index
      tile.store %m to %slse[%half, 0, 0] : {r_t} to {lse_t}
      tile.store %acc to %sq[%half, 0, 0] : {o_t} to {q_t}
      tile.fence proxy_async
      tile.named_barrier id(%wg_barrier) threads(%wg_threads)
      %in_range = arith.cmpi ult, %row0, %seq_q : index
      %store = arith.andi %wg_leader, %in_range : i1
      scf.if %store {{
        tile.copy_async %sq[%half, 0, 0] to %go[%batch, %head, %row0, 0] sizes [64, {d}] exec thread
            : {q_t} to {g_t}
        tile.copy_async %slse[%half, 0, 0] to %glse[%lse_row, 0] sizes [64, 1] exec thread
            : {lse_t} to !tile.buffer<?x1xf32, global>
        tile.commit_group bulk
        tile.wait_group bulk, 0 {{read}}
      }}
    }}
    gpu.return
  }}
""")
    return "".join(out)


EXAMPLE_HEADER = """\
// FlashAttention forward in tile IR: one kernel of the attention family
// (head dim 128, causal, bf16), written out with its comments by
//   bench/Kernels/gen_attention_kernels.py OUT.mlir OUT.json --example 128 causal bf16
// (test/Compile/attention-family.mlir checks that this file is that output).
// docs/Attention.md walks through it. What it computes, per (batch, head):
//   O = softmax(Q·Kᵀ·scale, causal) · V,  LSE = log Σ_j exp(Q·Kᵀ·scale)
// with Q, K, V, O in [batch, heads, seq, dim] (contiguous), K/V heads shared
// by groups of Q heads, any sequence lengths; launch with 384 threads and
// grid (ceil(Sq / 128), Hq, batch); the LSE buffer has
// batch·Hq·ceil(Sq / 64)·64 rows.

"""


def with_aliases(text, d, dtype):
    """The example's long types as aliases defined above the module (the
    warp-specialized form's types, longest first so that none is cut)."""
    bn = 64 if d == 256 else 128
    q_shape, q_layout = shared_layout(64, d, 2)
    kv_shape, kv_layout = shared_layout(bn, d, 2)
    aliases = [
        ("bars", "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 7>"),
        ("gmem", f"!tile.buffer<?x?x?x?x{dtype}, global>"),
        ("q_halves", f"!tile.buffer<{q_shape}x{dtype}, shared, #tile.layout<{q_layout}>>"),
        ("kv_ring", f"!tile.buffer<{kv_shape}x{dtype}, shared, #tile.layout<{kv_layout}>>"),
        ("lse_rows", "!tile.buffer<2x64x1xf32, shared>"),
        ("s_acc", f"!tile.buffer<64x{bn}xf32, local, #tile.layout<{acc_layout(bn)}>>"),
        ("p_regs", f"!tile.buffer<64x{bn}x{dtype}, local, #tile.layout<{acc_layout(bn)}>>"),
        ("o_acc", f"!tile.buffer<64x{d}xf32, local, #tile.layout<{acc_layout(d)}>>"),
        ("row", f"!tile.buffer<64x1xf32, local, #tile.layout<{ROW_LAYOUT}>>"),
    ]
    if aliases[5][1] == aliases[7][1]:  # S and O: both 64 x 128 f32
        aliases[5] = ("acc", aliases[5][1])
        del aliases[7]
    for name, full in sorted(aliases, key=lambda a: -len(a[1])):
        text = text.replace(full, "!" + name)
    defs = "".join(f"!{name} = {full}\n" for name, full in aliases)
    return EXAMPLE_HEADER + defs + "\n" + text


def module(configs, comments=False):
    makers = {"simple": kernel, "ws": kernel_ws,
              "ws-overlap": lambda *a: kernel_ws(*a, overlap=True),
              "ws-pingpong": lambda *a: kernel_ws(*a, overlap=True, pingpong=True)}
    body = "".join(makers[FORMS[d]](d, causal, dtype, comments)
                   for d, causal, dtype in configs)
    return ('gpu.module @attention [#nvvm.target<chip = "sm_90a">] {' + body + "}\n")


def main():
    out_mlir, out_cases = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "--example":
        d, causal, dtype = int(sys.argv[4]), sys.argv[5] == "causal", sys.argv[6]
        configs = [(d, causal, dtype)]
        text = with_aliases(module(configs, comments=True), d, dtype)
    else:
        configs = [(d, causal, dtype) for d in HEAD_DIMS for causal in (False, True)
                   for dtype in DTYPES]
        text = ("// Generated by bench/Kernels/gen_attention_kernels.py; do not edit.\n"
                + module(configs))
    with open(out_mlir, "w") as f:
        f.write(text)
    cases = [{"kernel": kernel_name(d, causal, dtype), "head_dim": d,
              "causal": causal, "dtype": dtype, "form": FORMS[d],
              "block_m": BLOCK_M if FORMS[d] == "simple" else 128,
              "block_n": BLOCK_N if FORMS[d] == "simple" else (64 if d == 256 else 128),
              "threads": 128 if FORMS[d] == "simple" else 384}
             for d, causal, dtype in configs]
    with open(out_cases, "w") as f:
        json.dump({"kernels": cases}, f, indent=1)


if __name__ == "__main__":
    main()

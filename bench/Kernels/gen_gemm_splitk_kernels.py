#!/usr/bin/env python3
"""Writes the Hopper split-K GEMM kernels (tile IR, one sm_90a gpu.module):

  gen_gemm_splitk_kernels.py OUT.mlir [OUT.json]

For problems with few output tiles and a long K (small M: decode, skinny
layers), where one CTA per tile leaves most SMs idle. Per type:

  gemm_<type>_tn_128x128x<BK>_s5_splitk: C = A B^T (A M x K, B N x K, both
      K-major) with K cut into S parts: the persistent CTAs walk
      (tile, part) units; each computes its part's f32 partial tile and
      TMA-stores it into a workspace W [S, M, N] f32 (part j's slice; TMA
      clips at M and N per slice). S is a kernel argument; every part must
      be non-empty (ceil(k_tiles / S) * (S - 1) < k_tiles: the caller's
      choice, python/tile_mlir/gemm.py).
  gemm_<type>_tn_swapab_<R>x128x<BK>_s<stages>_splitk: the same for M <= 64
      with R x 128 tiles (R = 16, 32, 64 rows of A): each consumer
      warpgroup owns 64 of the tile's columns and its gemm_async is R x 64,
      which dispatch lowers as swap-AB (C^T = B A^T: B's rows as the
      wgmma's M, A's as its N), so a small M wastes no MMA rows; the ring
      is deeper (8 or 6 stages), since a stage is smaller.
  gemm_<type>_tn_swapab_<R>x64x<BK>_s<stages>_splitk (and _clusterk2): the
      same with R x 64 tiles and one consumer warpgroup (256 threads), for
      N whose 128-column tiles fill few SMs; 16, 14 or 10 stages.
  gemm_<type>_tn_128x128x<BK>_s5_streamk: stream-K: the grid's C CTAs
      share all tiles' K steps evenly (CTA c takes steps floor(c I / C)
      .. floor((c + 1) I / C) - 1 of I = tiles * k_tiles, tile by tile),
      each (tile, K range) piece TMA-stored into workspace slot c - (the
      tile's first CTA); no part count argument.
  gemm_streamk_reduce_<out>_<R>x128: the same reduction with the slot
      count per block recomputed from C and k_tiles (arguments).
  gemm_splitk_reduce_<out>_<R>x128: C[m, n] = sum over j = 0 .. S-1, in
      that order, of W[j, m, n], rounded once to the output type; one CTA
      of 128 threads per R x 128 block (R = 16 or 64), the parts
      TMA-loaded through a ring deep enough to have most or all of them in
      flight at once.

The sum's order is fixed, so the result is the same bits run to run
(deterministic, unlike an atomic or TMA reduce-add into C). The rest of the
GEMM kernel is the dense family's (gen_gemm_kernels.py): warpgroup 0
produces, warpgroups 1 and 2 consume 64 rows each with one wgmma group in
flight.
"""
import argparse
import json
import sys

from gen_gemm_kernels import (BYTES, CONSUMER_REGS, GROUP_M, PRODUCER_REGS,
                              SHORT, accumulator, acquire_stage, consumer_step,
                              last_fitting_row, layout, output_tile, raster,
                              release, releasers_of, ring_constants,
                              ring_k_major, roles_and_ring, warpgroup_index)

# 5 stages: (128 + 128) x BK x 2 bytes = 32 KiB each, 160 KiB with the
# 64 KiB f32 staging tile (2 x 64 x 128): 224 KiB of the 227. One stage
# more than 4 ran 3-6 % faster for bf16 at M = 128 (H200, the sweep).
BM, BN, STAGES = 128, 128, 5
WM = BM // 2
TYPES = [("bf16", "bf16", 64), ("f16", "f16", 64), ("f8E4M3FN", "bf16", 128)]
# The reductions' blocks: (rows, ring depth) x 128 columns; 16 rows for
# M <= 64 (more blocks, every part of up to 8 in flight), 64 for larger M
# (fewer, longer-lived blocks).
REDUCE_COLS = 128
REDUCERS = [(16, 8), (64, 4)]
# Swap-AB forms (the activations' rows as the wgmma's N) for M <= 64:
# (N, stages). A stage holds 128 weight rows and N activation rows of BK,
# so the narrow ones afford a deeper ring (more bytes in flight: small-M
# GEMMs stream the weight at memory speed).
SWAP_AB = [(16, 8, True), (32, 8, True), (64, 6, True)]
# Narrow swap-AB forms: `R` x 64 tiles (64 weight rows, one consumer
# warpgroup, 256 threads) for problems whose 128-column tiles fill few SMs
# (N = 4096: 32 tiles); twice the tiles, so that K split in two across a
# cluster's CTAs fills them. A stage is 64 weight rows: the ring is deeper.
# (R, stages).
SWAP_AB_NARROW = [(16, 16), (32, 14), (64, 10)]
# Cluster split-K forms (cluster_k): (tile rows, swap-AB, the cluster sizes
# S = K parts). An owner CTA stages S - 1 received halves besides its own
# (S f32 half tiles in all), so the ring keeps what shared memory is left:
# S <= 4 for 64-row swap-AB tiles, S = 2 for 128 x 128 ones. S = 8 with
# 32-row tiles would leave 7 stages: on an H200 it ran 10-15 % slower than
# the workspace form with 8 parts (docs/Performance.md (j)), so it is not
# built.
CLUSTER_FORMS = [(BN, False, (2,)), (16, True, (2, 4, 8)),
                 (32, True, (2, 4)), (64, True, (2, 4))]
# The narrow swap-AB tiles in clusters of 2 (K in halves).
NARROW_CLUSTER_SIZES = (2,)
# What one CTA may allocate (227 KiB), less the barriers and alignment.
SHARED_BUDGET = 225 * 1024


def cluster_stages(ty, bk, bn, swap, parts, out_ty, stages, consumers=2):
    """The deepest ring (at most `stages`) that fits beside a cluster
    split-K kernel's f32 slots and output tile."""
    rows, cols = (bn, WM) if swap else (WM, bn)
    tile_m, tile_n = (bn, consumers * WM) if swap else (BM, bn)
    fixed = max(2, parts) * rows * cols * 4 + rows * cols * BYTES[out_ty]
    stage = (tile_m + tile_n) * bk * BYTES[ty]
    return min(stages, (SHARED_BUDGET - fixed) // stage)


def f32_tile(lead, rows, cols):
    """`lead` x 1 x rows x cols f32 in shared memory, 128-byte swizzled
    atoms of 32 elements (the unit dim makes a [1, rows, cols] region of
    the workspace index the leading dim)."""
    return (f"!tile.buffer<{lead}x1x{rows}x{cols}xf32, shared, "
            f"{layout((lead, 1, rows, cols // 32, 32), (rows * cols, 0, 32, rows * 32, 1), 'swizzle<3,2,3>')}>")


def transposed_accumulator(rows):
    """The wgmma m64nN f32 fragment read transposed, for a swap-AB tile of
    `rows` (C's rows, the instructions' N) x 64 (C's columns, the
    instructions' M): thread 32w + 4q + r holds C(8j + 2r + e, 16w + 8h + q)
    in register 4j + 2h + e. The warp digit is spelled as two (w = 2u +
    v), so that each steps whole 16-column halves of a 128-byte swizzle
    atom of 32 f32 columns (the staging tile's), which a thread's columns
    16w + q + 8h then never cross."""
    return layout((rows // 8, 4, 2, 2, 2, 2, 8),
                  (4, "1@tid_in_wg", 1, "64@tid_in_wg", "32@tid_in_wg", 2,
                   "4@tid_in_wg"))


def splitk_kernel(ty, bk, bn=BN, stages=STAGES, swap=False, stream=False,
                  cluster=0, out_ty=None, consumers=2):
    """The split-K GEMM C = A B^T. Plain: BM x 128 tiles, each consumer
    warpgroup owning 64 of the tile's rows (A's halves). With `swap`, the
    swap-AB form for small M: `bn` x 128 tiles (`bn` rows of A, 8..64),
    each consumer warpgroup owning 64 of the tile's columns (B's halves);
    its gemm_async is `bn` x 64 with the accumulator fragment transposed
    (and for 16 and 32 an M that no wgmma has), so dispatch computes
    C^T = B A^T (B's rows as the wgmma's M, A's as its N). With
    `cluster` = S, the parts of a tile run on the S CTAs of a cluster and
    are summed there (cluster_k), into C of `out_ty`. With `consumers` = 1
    (swap-AB only) the tile is `bn` x 64: one consumer warpgroup (256
    threads), a stage one 64-row box of B; in a cluster CTA 0 owns the
    tile and CTA 1 sends its part."""
    assert consumers == 2 or (swap and consumers == 1 and not stream)
    kind = f"clusterk{cluster}" if cluster else "splitk"
    threads = 128 * (consumers + 1)
    if swap:
        name = f"gemm_{SHORT[ty]}_tn_swapab_{bn}x{consumers * WM}x{bk}_s{stages}_{kind}"
        tile_m, tile_n = bn, consumers * WM
        # A (activations): one bn-row tile per stage, read by every
        # consumer; B (weights): a 64-row box per consumer per stage.
        a_t = (f"!tile.buffer<{stages}x{bn}x{bk}x{ty}, shared, "
               f"{ring_k_major(ty, stages, bn, bk)}>")
        b_t = (f"!tile.buffer<{consumers * stages}x{WM}x{bk}x{ty}, shared, "
               f"{ring_k_major(ty, consumers * stages, WM, bk)}>")
        acc_t = (f"!tile.buffer<{bn}x{WM}xf32, local, "
                 f"{transposed_accumulator(bn)}>")
        w_t = f32_tile(max(2, cluster), bn, WM)
        mma_m, mma_n = bn, WM
        # B's boxes: (row, stage slot) per consumer.
        b_boxes = ([("%n0", "%a_half0"), ("%n1", "%a_half1")] if consumers == 2
                   else [("%n0", "%s")])
        loads = (f"""            tile.copy_async %ga[%m0, %k0] to %sa[%s, 0, 0] sizes [{bn}, {bk}] exec thread
                mbar(%full[%s] : !ring) : {{g_in}} to {{a_t}}
""" + ("            %n1 = arith.addi %n0, %c_wn : index\n" if consumers == 2 else "")
                 + "".join(f"""            tile.copy_async %gb[{row}, %k0] to %sb[{slot}, 0, 0] sizes [{WM}, {bk}] exec thread
                mbar(%full[%s] : !ring) : {{g_in}} to {{b_t}}
""" for row, slot in b_boxes))
        out_at = """%col = arith.muli %half, %c_wn : index
          %m_half = arith.addi %m0, %c0 : index
          %n_half = arith.addi %n0, %col : index"""
        out_sizes = f"[1, {bn}, {WM}]"
    else:
        name = f"gemm_{SHORT[ty]}_tn_{BM}x{bn}x{bk}_s{stages}_" + (
            "streamk" if stream else kind)
        tile_m, tile_n = BM, bn
        a_t = (f"!tile.buffer<{2 * stages}x{WM}x{bk}x{ty}, shared, "
               f"{ring_k_major(ty, 2 * stages, WM, bk)}>")
        b_t = (f"!tile.buffer<{stages}x{bn}x{bk}x{ty}, shared, "
               f"{ring_k_major(ty, stages, bn, bk)}>")
        acc_t = f"!tile.buffer<{WM}x{bn}xf32, local, {accumulator(bn)}>"
        w_t = f32_tile(max(2, cluster), WM, bn)
        mma_m, mma_n = WM, bn
        loads = f"""            tile.copy_async %ga[%m0, %k0] to %sa[%a_half0, 0, 0] sizes [{WM}, {bk}] exec thread
                mbar(%full[%s] : !ring) : {{g_in}} to {{a_t}}
            tile.copy_async %ga[%m1, %k0] to %sa[%a_half1, 0, 0] sizes [{WM}, {bk}] exec thread
                mbar(%full[%s] : !ring) : {{g_in}} to {{a_t}}
            tile.copy_async %gb[%n0, %k0] to %sb[%s, 0, 0] sizes [{bn}, {bk}] exec thread
                mbar(%full[%s] : !ring) : {{g_in}} to {{b_t}}
"""
        out_at = """%row = arith.muli %half, %c_wm : index
          %m_half = arith.addi %m0, %row : index
          %n_half = arith.addi %n0, %c0 : index"""
        out_sizes = f"[1, {WM}, {bn}]"
    g_in = f"!tile.buffer<?x?x{ty}, global>"
    g_w = "!tile.buffer<?x?x?xf32, global>"
    m_in = f"memref<?x?x{ty}, 1>"
    loads = loads.format(g_in=g_in, a_t=a_t, b_t=b_t)
    stage_bytes = (tile_m + tile_n) * bk * BYTES[ty]
    text = f"""
  // {tile_m}x{tile_n}x{bk} tiles, {stages}-stage ring, {SHORT[ty]}, K cut into %parts{' (swap-AB)' if swap else ''}
  gpu.func @{name}(%a: {m_in}, %b: {m_in}, %w: memref<?x?x?xf32, 1>, %parts_i32: i32 {{tile.sample_value = 2 : i64}}) kernel
      attributes {{known_block_size = array<i32: {threads}, 1, 1>, nvvm.maxnreg = 168 : i32}} {{
{ring_constants(stages, tile_m, tile_n, bk, stage_bytes, 4 * consumers)}    %i32_128 = arith.constant 128 : i32
    %c_wn = arith.constant {WM} : index
    %parts = arith.index_cast %parts_i32 : i32 to index
    %M = memref.dim %a, %c0 : {m_in}
    %K = memref.dim %a, %c1 : {m_in}
    %N = memref.dim %b, %c0 : {m_in}
    %tiles_m = arith.ceildivui %M, %c_bm : index
    %tiles_n = arith.ceildivui %N, %c_bn : index
    %k_tiles = arith.ceildivui %K, %c_bk : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %group_tiles = arith.muli %c_group, %tiles_n : index
{"" if stream else last_fitting_row()}    // Units: (tile, part), the parts of a tile adjacent.
    %units = arith.muli %tiles, %parts : index
    %part_tiles = arith.ceildivui %k_tiles, %parts : index
    %ga = tile.from_memref %a : {m_in} -> {g_in}
    %gb = tile.from_memref %b : {m_in} -> {g_in}
    %gw = tile.from_memref %w : memref<?x?x?xf32, 1> -> {g_w}
    %sa = tile.alloc_shared {{alignment = 1024 : i64}} : {a_t}
    %sb = tile.alloc_shared {{alignment = 1024 : i64}} : {b_t}
    %sw = tile.alloc_shared {{alignment = 1024 : i64}} : {w_t}
{roles_and_ring()}    gpu.barrier
    // Launched while the work before it on the stream may still run
    // (programmatic launch: a kernel boundary costs a few percent of these
    // short GEMMs); nothing before this reads or writes global memory.
    nvvm.griddepcontrol wait
    %first_unit = gpu.block_id x
    %ctas = gpu.grid_dim x
    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {{
      nvvm.setmaxregister decrease {PRODUCER_REGS}
      scf.if %leader {{
        scf.for %u = %first_unit to %units step %ctas iter_args(%it0 = %c0) -> (index) {{
{unit_of("          ")}
          %it1 = scf.for %kt = %k_begin to %k_end step %c1 iter_args(%i = %it0) -> (index) {{
{acquire_stage("            ")}{loads}            %next = arith.addi %i, %c1 : index
            scf.yield %next : index
          }}
          scf.yield %it1 : index
        }}
      }}
    }} else {{
      nvvm.setmaxregister increase {CONSUMER_REGS}
{warpgroup_index("%half", "      ")}      %half_i32 = arith.index_cast %wg : index to i32
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
{releasers_of(1, False)}      %acc = tile.alloc_local : {acc_t}
      scf.for %u = %first_unit to %units step %ctas iter_args(%it0 = %c0) -> (index) {{
{unit_of("        ")}
        // The part's first K step overwrites the accumulator; the others
        // accumulate.
{consumer_step("%it0", "false", None, False, whole_tile=consumers == 1)}
        %it_next = arith.addi %it0, %c1 : index
        %k_second = arith.addi %k_begin, %c1 : index
        %it1 = scf.for %kt = %k_second to %k_end step %c1 iter_args(%i = %it_next) -> (index) {{
{consumer_step("%i", "true", "%i", False, whole_tile=consumers == 1)}
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }}
        tile.wait_group wgmma, 0
        scf.if %releaser {{
          %last = arith.addi %it1, %c_stages : index
          %last1 = arith.subi %last, %c1 : index
          %ls = arith.remui %last1, %c_stages : index
{release("%ls", False, "          ")}
        }}
        // The f32 partial into this warpgroup's half of the staging tile
        // (once the previous unit's TMA store has read it), then into the
        // part's slice of the workspace.
        scf.if %wg_leader {{
          tile.wait_group bulk, 0 {{read}}
        }}
        nvvm.barrier id = %half_i32 number_of_threads = %i32_128
        tile.store %acc to %sw[%half, 0, 0, 0] : {acc_t} to {w_t}
        tile.fence proxy_async
        nvvm.barrier id = %half_i32 number_of_threads = %i32_128
        scf.if %wg_leader {{
          {out_at}
          tile.copy_async %sw[%half, 0, 0, 0] to %gw[%part, %m_half, %n_half] sizes {out_sizes} exec thread
              : {w_t} to {g_w}
          tile.commit_group bulk
        }}
        scf.yield %it1 : index
      }}
      // Before exiting: the last TMA store has read the staging tile. Its
      // writes complete with the grid (a later kernel sees them); waiting
      // for them too would hold the CTA (and cost an L1 invalidation).
      scf.if %wg_leader {{
        tile.wait_group bulk, 0 {{read}}
      }}
    }}
    gpu.return
  }}
"""
    for key, value in (("@WM", str(mma_m)), ("@BN", str(mma_n)), ("@BK", str(bk)),
                       ("@ATTR", " {transpose_b}"), ("@ACC_T", acc_t),
                       ("@A_T", a_t), ("@B_T", b_t)):
        text = text.replace(key, value)
    if stages != STAGES:
        text = text.replace("!ring", f"!ring{stages}")
    if swap:
        # The consumer's MMA reads its half of B's stage and the whole A
        # stage.
        text = text.replace("%sa[%a_stage_first, 0, 0], %sb[%s_first, 0, 0]",
                            "%sa[%s_first, 0, 0], %sb[%a_stage_first, 0, 0]")
        text = text.replace("%sa[%a_stage, 0, 0], %sb[%s, 0, 0]",
                            "%sa[%s, 0, 0], %sb[%a_stage, 0, 0]")
    if stream:
        text = stream_k(text)
    case = dict(kernel=name, dtype=ty, bm=tile_m, bn=tile_n, bk=bk,
                stages=stages, block=threads, swap_ab=swap, stream_k=stream)
    if cluster:
        text = cluster_k(text, cluster, out_ty, mma_m, mma_n, w_t, acc_t,
                         out_at)
        case.update(cluster=cluster, parts=cluster)
    return text, case


def stream_k(text):
    """The split-K kernel's text turned stream-K: the grid's C CTAs share
    the I = tiles * k_tiles K steps evenly (CTA c takes steps
    floor(c I / C) .. floor((c + 1) I / C) - 1, tile by tile), so no SM
    idles when the tiles are fewer than the SMs; each (tile, K range)
    piece lands in workspace slot c - (the first CTA of its tile), and the
    stream-K reduction sums a tile's slots in order."""
    text = text.replace(
        ", %parts_i32: i32 {tile.sample_value = 2 : i64}) kernel", ") kernel")
    text = text.replace(
        "    %parts = arith.index_cast %parts_i32 : i32 to index\n", "")
    old = """    // Units: (tile, part), the parts of a tile adjacent.
    %units = arith.muli %tiles, %parts : index
    %part_tiles = arith.ceildivui %k_tiles, %parts : index
"""
    assert old in text
    text = text.replace(old, """    // This CTA's K steps [%b_lo, %b_hi) of all tiles' %iters, and the
    // tiles they fall in.
    %iters = arith.muli %tiles, %k_tiles : index
    %cta = gpu.block_id x
    %grid = gpu.grid_dim x
    %cta_iters = arith.muli %cta, %iters : index
    %b_lo = arith.divui %cta_iters, %grid : index
    %next_iters = arith.addi %cta_iters, %iters : index
    %b_hi = arith.divui %next_iters, %grid : index
    %t_first = arith.divui %b_lo, %k_tiles : index
    %t_end = arith.ceildivui %b_hi, %k_tiles : index
""")
    for indent in ("          ", "        "):
        assert unit_of(indent) in text
        text = text.replace(unit_of(indent), stream_unit_of(indent))
    loop = "scf.for %u = %first_unit to %units step %ctas iter_args"
    assert text.count(loop) == 2, text.count(loop)
    return text.replace(loop,
                        "scf.for %u = %t_first to %t_end step %c1 iter_args")


def cluster_k(text, parts, out_ty, rows, cols, w_t, acc_t, out_at):
    """The split-K kernel's text with its `parts` parts of a tile run by
    the CTAs of a cluster (part = the CTA's rank) and summed there, so no
    workspace and no second kernel: CTA h (h = 0, 1) owns the tile's half
    h (its warpgroup h's `rows` x `cols` accumulator) and every other
    CTA's warpgroup h sends its f32 partial of that half into CTA h's
    staging slots by a DSMEM bulk copy. The owner adds them to its own in
    the order P_h + P_(1-h) + P_2 + ... + P_(S-1), which is the part order
    ((P_0 + P_1) + P_2) + ... since f32 addition commutes: the same bits
    run to run. Slots: a sender CTA's warpgroup h stages its half in slot
    h; the owner receives part 1 - h in its slot h (which it does not
    stage) and part p >= 2 in slot p. Per tile, the owner announces each
    other part's half on receive barrier 2p + h (one announcement and one
    copy per barrier: byte counts --tile-verify-kernels adds up; the copy
    may land before the announcement, the phase completes once both are
    in), waits on them in part order, and once it has read the slots
    arrives on each sender's free barrier, which a sender waits on before
    staging its next tile."""
    out_t = acc_t.replace("xf32, local", f"x{out_ty}, local")
    c_t = output_tile(out_ty, rows, cols)
    g_c = f"!tile.buffer<?x?x{out_ty}, global>"
    m_c = f"memref<?x?x{out_ty}, 1>"
    half_bytes = rows * cols * 4

    def sub(old, new):
        nonlocal text
        assert text.count(old) == 1, (old, text.count(old))
        text = text.replace(old, new)

    sub("%w: memref<?x?x?xf32, 1>, %parts_i32: i32 {tile.sample_value = 2 : i64}) kernel",
        f"%c: {m_c}) kernel")
    sub("nvvm.maxnreg = 168 : i32}",
        f"nvvm.maxnreg = 168 : i32, known_cluster_size = array<i32: {parts}, 1, 1>}}")
    sub("    %parts = arith.index_cast %parts_i32 : i32 to index\n",
        f"""    %parts = arith.constant {parts} : index
    %f32_zero = arith.constant 0.0 : f32
    %rank_i32 = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    // One part's half tile: what each receive barrier announces.
    %half_bytes = arith.constant {half_bytes} : index
""")
    sub("""    // Units: (tile, part), the parts of a tile adjacent.
    %units = arith.muli %tiles, %parts : index
""", """    // Units: tiles, walked by clusters; the part is the CTA's rank.
    %units = arith.addi %tiles, %c0 : index
""")
    sub("    %gw = tile.from_memref %w : memref<?x?x?xf32, 1> -> !tile.buffer<?x?x?xf32, global>\n",
        f"    %gc = tile.from_memref %c : {m_c} -> {g_c}\n")
    sub(f"    %sw = tile.alloc_shared {{alignment = 1024 : i64}} : {w_t}\n",
        f"""    %sw = tile.alloc_shared {{alignment = 1024 : i64}} : {w_t}
    %sc = tile.alloc_shared {{alignment = 1024 : i64}} : {c_t}
    %recv = nvgpu.mbarrier.create -> !xbar{2 * parts}
    %free = nvgpu.mbarrier.create -> !xbar2
""")
    sub("""      tile.fence mbarrier_init
    }
    gpu.barrier
""", """      %recv_bars = arith.muli %parts, %c2 : index
      scf.for %p = %c0 to %recv_bars step %c1 {
        nvgpu.mbarrier.init %recv[%p], %c1 : !xbarS
      }
      scf.for %h = %c0 to %c2 step %c1 {
        nvgpu.mbarrier.init %free[%h], %c1 : !xbar2
      }
      tile.fence mbarrier_init
    }
    // Every CTA's barriers are initialised before any other CTA's copy
    // or arrival can reach them.
    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}
""".replace("!xbarS", f"!xbar{2 * parts}"))
    sub("""    %first_unit = gpu.block_id x
    %ctas = gpu.grid_dim x
""", """    %block = gpu.block_id x
    %grid = gpu.grid_dim x
    %first_unit = arith.divui %block, %parts : index
    %ctas = arith.divui %grid, %parts : index
""")
    for indent in ("          ", "        "):
        sub(unit_of(indent), cluster_unit_of(indent))
    # A part with no K tiles (K shorter than S tiles) contributes zeros.
    first = text.index("        // The part's first K step overwrites")
    last = text.index("        // The f32 partial into this warpgroup's half")
    body = text[first:last]
    for old, new in (("%it1 = scf.for", "%it_run = scf.for"),
                     ("%last = arith.addi %it1,", "%last = arith.addi %it_run,")):
        assert body.count(old) == 1, old
        body = body.replace(old, new)
    text = (text[:first] + f"""        %has_k = arith.cmpi ult, %k_begin, %k_end : index
        %it1 = scf.if %has_k -> (index) {{
{body}          scf.yield %it_run : index
        }} else {{
          tile.fill %acc, %f32_zero : {acc_t}, f32
          scf.yield %it0 : index
        }}
""" + text[last:])
    sub(f"      %acc = tile.alloc_local : {acc_t}\n",
        f"""      %acc = tile.alloc_local : {acc_t}
      %part_acc = tile.alloc_local : {acc_t}
      %out = tile.alloc_local : {out_t}
""")
    start = text.index("        // The f32 partial into this warpgroup's half")
    end = text.index("        scf.yield %it1 : index", start)
    rank_constants = "".join(
        f"""        %c{r}_rank = arith.constant {r} : index
        %i32_{r}_rank = arith.constant {r} : i32
""" for r in range(parts))
    # Receive barrier 2p + h: part p's half h, on CTA h (one announcement
    # and one copy each).
    arms = "".join(f"""        %arm_half{h} = arith.cmpi eq, %half, %c{h} : index
        %arm{h} = arith.andi %arm, %arm_half{h} : i1
        scf.if %arm{h} {{
""" + "".join(f"""          nvgpu.mbarrier.arrive.expect_tx %recv[%c{2 * p + h}_bar], %half_bytes : !xbar{2 * parts}
""" for p in range(parts) if p != h) + """        }
""" for h in (0, 1))

    # Part p's sender warpgroups: half 1 - p for p < 2 (CTA p owns half
    # p), both for p >= 2; slots and barriers spelled as constants (the
    # dsmem planner takes static offsets).
    def send(p, h, indent):
        slot = h if p < 2 else p
        return (f"{indent}tile.copy_async %sw[{h}, 0, 0, 0] to %sw[{slot}, 0, 0, 0] "
                f"sizes [1, 1, {rows}, {cols}] exec thread\n{indent}    "
                f"mbar(%recv[%c{2 * p + h}_bar] : !xbar{2 * parts}) "
                f"remote_cta(%i32_{h}_rank) : {w_t} to {w_t}\n")
    sends = ""
    for p in range(parts):
        sends += f"""            %from{p} = arith.cmpi eq, %rank, %c{p}_rank : index
            scf.if %from{p} {{
"""
        if p < 2:
            sends += send(p, 1 - p, "              ")
        else:
            for h in (0, 1):
                sends += f"""              %from{p}_half{h} = arith.cmpi eq, %half, %c{h} : index
              scf.if %from{p}_half{h} {{
{send(p, h, "                ")}              }}
"""
        sends += "            }\n"
    bar_constants = "".join(f"        %c{v}_bar = arith.constant {v} : index\n"
                            for v in range(2 * parts))
    add = f"""          tile.map ins(%acc, %part_acc : {acc_t}, {acc_t}) outs(%acc : {acc_t}) {{
          ^bb0(%x: f32, %y: f32, %i: index, %j: index):
            %z = arith.addf %x, %y : f32
            tile.yield %z : f32
          }}
"""
    others = f"""          %other_bar = arith.subi %c2, %half : index
          nvgpu.mbarrier.try_wait.parity %recv[%other_bar], %n_odd, %ticks : !xbar{2 * parts}
          tile.load %sw[%half, 0, 0, 0] to %part_acc : {w_t} to {acc_t}
{add}""" + "".join(f"""          %bar{p} = arith.addi %c{2 * p}_bar, %half : index
          nvgpu.mbarrier.try_wait.parity %recv[%bar{p}], %n_odd, %ticks : !xbar{2 * parts}
          tile.load %sw[{p}, 0, 0, 0] to %part_acc : {w_t} to {acc_t}
{add}""" for p in range(2, parts))
    arrivals = "".join(f"""            %to{r} = arith.cmpi ne, %rank, %c{r}_rank : index
            scf.if %to{r} {{
              tile.mbarrier_arrive_remote %free[%half] : !xbar2, cta %i32_{r}_rank scope cta
            }}
""" for r in range(parts))
    text = text[:start] + f"""        // This CTA's tile count so far: the barriers' phase parity.
        %walked = arith.subi %u, %first_unit : index
        %n_done = arith.divui %walked, %ctas : index
        %n_bit = arith.andi %n_done, %c1 : index
        %n_odd = arith.cmpi ne, %n_bit, %c0 : index
        %u_next = arith.addi %u, %ctas : index
        %has_next = arith.cmpi ult, %u_next, %units : index
{rank_constants}{bar_constants}        %owner = arith.cmpi eq, %rank, %half : index
        %sender = arith.cmpi ne, %rank, %half : index
        // The owner announces each other part's half on that part's
        // receive barrier (a sender's copy may land before: the phase
        // completes once both are in).
        %arm = arith.andi %owner, %wg_leader : i1
{arms}        scf.if %sender {{
          // This part's partial of half %half goes to CTA %half, once that
          // CTA has read the previous one (the first tile waits on the
          // phase before the barrier's first, which has completed).
          %free_parity = arith.cmpi eq, %n_bit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %free[%half], %free_parity, %ticks : !xbar2
          tile.store %acc to %sw[%half, 0, 0, 0] : {acc_t} to {w_t}
          tile.fence proxy_async
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          scf.if %wg_leader {{
{sends}          }}
        }}
        scf.if %owner {{
          // The other parts' halves, summed in part order as they land.
{others}          // Every thread has read the slots: the senders may refill them.
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          %release_slots = arith.andi %wg_leader, %has_next : i1
          scf.if %release_slots {{
{arrivals}          }}
          tile.convert %acc to %out : {acc_t} to {out_t}
          // The previous tile's TMA store must have read the C tile.
          scf.if %wg_leader {{
            tile.wait_group bulk, 0 {{read}}
          }}
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          tile.store %out to %sc[0, 0] : {out_t} to {c_t}
          tile.fence proxy_async
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          scf.if %wg_leader {{
            {out_at}
            tile.copy_async %sc[0, 0] to %gc[%m_half, %n_half] sizes [{rows}, {cols}] exec thread
                : {c_t} to {g_c}
            tile.commit_group bulk
          }}
        }}
""" + text[end:]
    sub("    gpu.return\n", """    // No CTA exits while another may still copy into or arrive on it.
    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}
    gpu.return
""")
    return text


def cluster_unit_of(indent):
    """Tile %u -> (%m0, %n0, grouped raster) and this CTA's part p (its
    cluster rank): K tiles floor(p k_tiles / S) .. floor((p + 1) k_tiles /
    S) - 1, which differ in count by at most one (none when k_tiles < S)."""
    lines = ("%t = arith.addi %u, %c0 : index\n"
             "%part = arith.addi %rank, %c0 : index\n" + raster("", True) + """
%k_scaled = arith.muli %part, %k_tiles : index
%k_begin = arith.divui %k_scaled, %parts : index
%k_scaled1 = arith.addi %k_scaled, %k_tiles : index
%k_end = arith.divui %k_scaled1, %parts : index""")
    return "\n".join(indent + line.strip() for line in lines.splitlines())


def cta_holding(name, step_end, grid):
    """IR lines: %`name` = the CTA holding the K step before `step_end`
    (an SSA value), of %iters steps shared by `grid` CTAs: CTA c holds
    steps floor(c I / C) .. floor((c + 1) I / C) - 1, so step s is in
    floor(((s + 1) C - 1) / I). One formula for the GEMM's slot and the
    reduction's part count."""
    return (f"%{name}_scaled = arith.muli {step_end}, {grid} : index\n"
            f"%{name}_scaled1 = arith.subi %{name}_scaled, %c1 : index\n"
            f"%{name} = arith.divui %{name}_scaled1, %iters : index")


def stream_unit_of(indent):
    """Tile %u of this CTA's range -> (%m0, %n0) by the family's grouped
    raster, its K steps %k_begin .. %k_end in this CTA, and %part: the
    workspace slot, this CTA's place among the CTAs the tile spans (the
    first holds step u k_tiles: floor(((u k_tiles + 1) C - 1) / I))."""
    lines = ("%t = arith.addi %u, %c0 : index\n" + raster("") + """
%tile_k0 = arith.muli %u, %k_tiles : index
%tile_k1 = arith.addi %tile_k0, %k_tiles : index
%from = arith.maxui %b_lo, %tile_k0 : index
%to = arith.minui %b_hi, %tile_k1 : index
%k_begin = arith.subi %from, %tile_k0 : index
%k_end = arith.subi %to, %tile_k0 : index
%first_step1 = arith.addi %tile_k0, %c1 : index
""" + cta_holding("first_cta", "%first_step1", "%grid") + """
%part = arith.subi %cta, %first_cta : index""")
    return "\n".join(indent + line.strip() for line in lines.splitlines())


def unit_of(indent):
    """Unit %u -> its tile (%m0, %n0, grouped raster) and part (%part: K
    tiles %k_begin .. %k_end)."""
    lines = ("%t = arith.divui %u, %parts : index\n"
             "%part = arith.remui %u, %parts : index\n" + raster("", True) + """
%k_begin = arith.muli %part, %part_tiles : index
%k_stop = arith.addi %k_begin, %part_tiles : index
%k_end = arith.minui %k_stop, %k_tiles : index""")
    return "\n".join(indent + line.strip() for line in lines.splitlines())


def reduce_kernel(out_ty, rows, depth, stream=False):
    """C = sum of the workspace's S slices, in order, per `rows` x 128
    block: the parts' tiles TMA-loaded through a `depth`-deep ring, all of
    them requested at once when S <= depth, so that a block waits for one
    load latency, not S of them. 16 rows (small M): each of the 4 warps
    owns 32 columns, the m16n8 fragments of a 16 x 32 strip; 64 rows: each
    owns 16 rows, the wgmma accumulator fragment. Both are stored by
    stmatrix."""
    cols = REDUCE_COLS
    name = (f"gemm_{'streamk' if stream else 'splitk'}_reduce_"
            f"{SHORT[out_ty]}_{rows}x{cols}")
    w_t = f32_tile(depth, rows, cols)
    c_t = output_tile(out_ty, rows, cols)
    # Thread 32w + 4q + r holds row 8h + q, column 32w + 8j + 2r + e in
    # register 4j + 2h + e; the warp digit is spelled as two (w = 2u + v)
    # so that each steps whole 32-column halves of the C tile's 64-column
    # swizzle atoms.
    assert cols == 128 and rows in (16, 64)
    reg = accumulator(cols) if rows == 64 else layout(
        (2, 8, 2, 2, 4, 4, 2),
        (2, "4@tid_in_wg", "64@tid_in_wg", "32@tid_in_wg", 4, "1@tid_in_wg",
         1))
    sum_t = f"!tile.buffer<{rows}x{cols}xf32, local, {reg}>"
    out_t = f"!tile.buffer<{rows}x{cols}x{out_ty}, local, {reg}>"
    bars = ("!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
            f"num_barriers = {depth}>")
    g_w = "!tile.buffer<?x?x?xf32, global>"
    g_c = f"!tile.buffer<?x?x{out_ty}, global>"
    text = f"""
  // C = the sum of the workspace's parts, in order, rounded to {out_ty}
  gpu.func @{name}(%w: memref<?x?x?xf32, 1>, %c: memref<?x?x{out_ty}, 1>{{STREAM_ARGS}}) kernel
      attributes {{known_block_size = array<i32: 128, 1, 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c_depth = arith.constant {depth} : index
    %c_rows = arith.constant {rows} : index
    %c_cols = arith.constant {cols} : index
    %bytes = arith.constant {rows * cols * 4} : index
    %ticks = arith.constant 1000000 : index
    %i32_0 = arith.constant 0 : i32
    %i32_128 = arith.constant 128 : i32
    %zero = arith.constant 0.0 : f32
{{PARTS}}    %gw = tile.from_memref %w : memref<?x?x?xf32, 1> -> {g_w}
    %gc = tile.from_memref %c : memref<?x?x{out_ty}, 1> -> {g_c}
    %sw = tile.alloc_shared {{alignment = 1024 : i64}} : {w_t}
    %sc = tile.alloc_shared {{alignment = 1024 : i64}} : {c_t}
    %full = nvgpu.mbarrier.create -> {bars}
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %bm = gpu.block_id x
    %bn = gpu.block_id y
    %m0 = arith.muli %bm, %c_rows : index
    %n0 = arith.muli %bn, %c_cols : index
    scf.if %leader {{
      scf.for %s = %c0 to %c_depth step %c1 {{
        nvgpu.mbarrier.init %full[%s], %c1 : {bars}
      }}
      tile.fence mbarrier_init
    }}
    gpu.barrier
    // Launched while the split-K kernel before it may still run
    // (programmatic launch): its parts are read only once it has ended.
    nvvm.griddepcontrol wait
    // Part j lands in slot j mod {depth}; parts 0 .. {depth - 1} are
    // requested first, part j + {depth} once every thread has read part j
    // (the barrier below).
    scf.if %leader {{
      scf.for %j = %c0 to %c_depth step %c1 {{
        %has = arith.cmpi ult, %j, %parts : index
        scf.if %has {{
          nvgpu.mbarrier.arrive.expect_tx %full[%j], %bytes : {bars}
          tile.copy_async %gw[%j, %m0, %n0] to %sw[%j, 0, 0, 0] sizes [1, {rows}, {cols}] exec thread
              mbar(%full[%j] : {bars}) : {g_w} to {w_t}
        }}
      }}
    }}
    %sum = tile.alloc_local : {sum_t}
    %part = tile.alloc_local : {sum_t}
    tile.fill %sum, %zero : {sum_t}, f32
    scf.for %j = %c0 to %parts step %c1 {{
      %slot = arith.remui %j, %c_depth : index
      %round = arith.divui %j, %c_depth : index
      %round_bit = arith.andi %round, %c1 : index
      %parity = arith.cmpi ne, %round_bit, %c0 : index
      nvgpu.mbarrier.try_wait.parity %full[%slot], %parity, %ticks : {bars}
      tile.load %sw[%slot, 0, 0, 0] to %part : {w_t} to {sum_t}
      tile.map ins(%sum, %part : {sum_t}, {sum_t}) outs(%sum : {sum_t}) {{
      ^bb0(%x: f32, %y: f32, %i: index, %k: index):
        %z = arith.addf %x, %y : f32
        tile.yield %z : f32
      }}
      // Every thread has read the slot: refill it with part j + 2.
      nvvm.barrier id = %i32_0 number_of_threads = %i32_128
      %j2 = arith.addi %j, %c_depth : index
      %more = arith.cmpi ult, %j2, %parts : index
      %refill = arith.andi %more, %leader : i1
      scf.if %refill {{
        nvgpu.mbarrier.arrive.expect_tx %full[%slot], %bytes : {bars}
        tile.copy_async %gw[%j2, %m0, %n0] to %sw[%slot, 0, 0, 0] sizes [1, {rows}, {cols}] exec thread
            mbar(%full[%slot] : {bars}) : {g_w} to {w_t}
      }}
    }}
    %out = tile.alloc_local : {out_t}
    tile.convert %sum to %out : {sum_t} to {out_t}
    tile.store %out to %sc[0, 0] : {out_t} to {c_t}
    tile.fence proxy_async
    nvvm.barrier id = %i32_0 number_of_threads = %i32_128
    scf.if %leader {{
      tile.copy_async %sc[0, 0] to %gc[%m0, %n0] sizes [{rows}, {cols}] exec thread
          : {c_t} to {g_c}
      tile.commit_group bulk
      tile.wait_group bulk, 0 {{read}}
    }}
    gpu.return
  }}
"""
    if stream:
        text = text.replace("{STREAM_ARGS}", ",\n      %ctas_i32: i32 {tile.sample_value = 1 : i64}, "
                            "%k_tiles_i32: i32 {tile.sample_value = 4 : i64}")
        text = text.replace("{PARTS}", STREAM_PARTS.replace("{OUT}", out_ty))
    else:
        text = text.replace("{STREAM_ARGS}", "")
        text = text.replace("{PARTS}", "    %parts = memref.dim %w, %c0 : memref<?x?x?xf32, 1>\n")
    return text, dict(kernel=name, out=out_ty, rows=rows, cols=cols,
                      depth=depth, block=128, stream_k=stream)


# The stream-K reduction's part count for its block: the CTAs that shared
# the block's tile (the GEMM's grouped raster inverted to the tile index t;
# CTA c held K steps floor(c I / C) .. floor((c + 1) I / C) - 1 of I).
STREAM_PARTS = f"""    %ctas = arith.index_cast %ctas_i32 : i32 to index
    %k_tiles = arith.index_cast %k_tiles_i32 : i32 to index
    %c128 = arith.constant 128 : index
    %c_group = arith.constant {GROUP_M} : index
    %M = memref.dim %c, %c0 : memref<?x?x{{OUT}}, 1>
    %N = memref.dim %c, %c1 : memref<?x?x{{OUT}}, 1>
    %tiles_m = arith.ceildivui %M, %c128 : index
    %tiles_n = arith.ceildivui %N, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %iters = arith.muli %tiles, %k_tiles : index
    %block_m = gpu.block_id x
    %block_n = gpu.block_id y
    %row0 = arith.muli %block_m, %c_rows : index
    %pm = arith.divui %row0, %c128 : index
    %col0 = arith.muli %block_n, %c_cols : index
    %pn = arith.divui %col0, %c128 : index
    %group = arith.divui %pm, %c_group : index
    %first_m = arith.muli %group, %c_group : index
    %rows_left = arith.subi %tiles_m, %first_m : index
    %group_m = arith.minui %rows_left, %c_group : index
    %row_off = arith.subi %pm, %first_m : index
    %group_first = arith.muli %first_m, %tiles_n : index
    %in_group = arith.muli %pn, %group_m : index
    %t0 = arith.addi %group_first, %in_group : index
    %t = arith.addi %t0, %row_off : index
    %tile_k0 = arith.muli %t, %k_tiles : index
    %first_step1 = arith.addi %tile_k0, %c1 : index
{"".join("    " + l + chr(10) for l in cta_holding("first_cta", "%first_step1", "%ctas").splitlines())}    %tile_k1 = arith.addi %tile_k0, %k_tiles : index
{"".join("    " + l + chr(10) for l in cta_holding("last_cta", "%tile_k1", "%ctas").splitlines())}    %spanned = arith.subi %last_cta, %first_cta : index
    %parts = arith.addi %spanned, %c1 : index
"""



def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_mlir", help="the gpu.module to write")
    parser.add_argument("out_json", nargs="?", help="the case list to write")
    parser.add_argument("--kernels", metavar="NAME,...",
                        help="write only these kernels (GEMMs or reductions) "
                             "to the gpu.module; the case list keeps all")
    args = parser.parse_args()
    only = set(args.kernels.split(",")) if args.kernels else None
    texts, cases, reducers = [], [], []
    for ty, out_ty, bk in TYPES:
        for bn, stages, swap in [(BN, STAGES, False)] + SWAP_AB:
            text, case = splitk_kernel(ty, bk, bn, stages, swap)
            case["out"] = out_ty
            texts.append(text)
            cases.append(case)
        text, case = splitk_kernel(ty, bk, stream=True)
        case["out"] = out_ty
        texts.append(text)
        cases.append(case)
        for bn, swap, sizes in CLUSTER_FORMS:
            default = dict((r, s) for r, s, _ in SWAP_AB).get(bn, STAGES) \
                if swap else STAGES
            for parts in sizes:
                stages = cluster_stages(ty, bk, bn, swap, parts, out_ty,
                                        default)
                text, case = splitk_kernel(ty, bk, bn, stages, swap,
                                           cluster=parts, out_ty=out_ty)
                case["out"] = out_ty
                texts.append(text)
                cases.append(case)
        # After the 128-column forms: for equal rows the chooser's order.
        for bn, default in SWAP_AB_NARROW:
            for parts in (0,) + NARROW_CLUSTER_SIZES:
                stages = (cluster_stages(ty, bk, bn, True, parts, out_ty,
                                         default, consumers=1)
                          if parts else default)
                text, case = splitk_kernel(ty, bk, bn, stages, True,
                                           cluster=parts, out_ty=out_ty,
                                           consumers=1)
                case["out"] = out_ty
                texts.append(text)
                cases.append(case)
    for out_ty in sorted({t[1] for t in TYPES}):
        for stream in (False, True):
            for rows, depth in REDUCERS:
                text, case = reduce_kernel(out_ty, rows, depth, stream)
                texts.append(text)
                reducers.append(case)
    header = f"""// Generated by bench/Kernels/gen_gemm_splitk_kernels.py: split-K GEMMs
// and their deterministic reductions in tile IR. Do not edit.
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {STAGES}>
""" + "".join(
        f"!xbar{n} = !nvgpu.mbarrier.group<memorySpace = "
        f"#gpu.address_space<workgroup>, num_barriers = {n}>\n"
        for n in sorted({2} | {2 * c["cluster"] for c in cases if c.get("cluster")})) + "".join(
        f"!ring{n} = !nvgpu.mbarrier.group<memorySpace = "
        f"#gpu.address_space<workgroup>, num_barriers = {n}>\n"
        for n in sorted({c["stages"] for c in cases} - {STAGES})) + f"""gpu.module @gemm_splitk [#nvvm.target<chip = "sm_90a">] {{
"""
    names = [c["kernel"] for c in cases + reducers]
    if only is not None:
        unknown = only - set(names)
        if unknown:
            sys.exit(f"unknown kernels: {', '.join(sorted(unknown))}")
        # Reductions follow the GEMMs in `texts` as in `names`.
        texts = [t for t, n in zip(texts, names) if n in only]
    with open(args.out_mlir, "w") as f:
        f.write(header + "".join(texts) + "}\n")
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump({"kernels": cases, "reducers": reducers}, f, indent=1)


if __name__ == "__main__":
    main()

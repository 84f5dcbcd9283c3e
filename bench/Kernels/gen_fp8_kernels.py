#!/usr/bin/env python3
"""Writes the Hopper FP8 block-scaled GEMM kernels (tile IR, one sm_90a
gpu.module):

  gen_fp8_kernels.py OUT.mlir [OUT.json]
  gen_fp8_kernels.py --example dense     one kernel, commented, on stdout

D = (A * SFA) (B * SFB)^T in bf16, the DeepSeek-V3 recipe: A (M x K,
e4m3) with one f32 scale per row and 128 K elements (SFA, stored
transposed: [ceil(K/128), Mp], Mp >= M a multiple of 4, so one TMA box
carries a tile's 128 row scales), B (N x K, e4m3) with one f32 scale per
128 x 128 block (SFB: [ceil(N/128), ceil(K/128)]). Hopper's wgmma has no
block scaling, so every 128-wide K block is multiplied into a partial
accumulator of its own (zeroed by the first wgmma), and the partial is
promoted into the f32 accumulator: acc += partial * SFA[row] * SFB.

Four tile walks, in 128 x 128 tiles; the dense and split-K walks also in
128 x 64, 64 x 128 and 64 x 64 tiles (KERNELS, below):
  dense       one GEMM.
  contiguous  G experts' GEMMs in one launch (mixture of experts, prefill
              and training): A's rows are the experts' tokens concatenated,
              expert g owning rows [offsets[g], offsets[g+1]) (a device
              int32 array of G + 1, non-decreasing; each segment a multiple
              of 128 rows), each expert with its own B (stacked: [G N, K])
              and SFB ([G ceil(N/128), ceil(K/128)]). Rows outside
              [offsets[0], offsets[G]) are not written.
  masked      G experts x a fixed capacity of rows (decode under CUDA
              graphs): A [G, cap, K], D [G, cap, N], B [G, N, K], SFA
              [G ceil(K/128), capp] (capp >= cap, a multiple of 4), SFB
              [G, ceil(N/128), ceil(K/128)], and a device int32 array of
              how many rows of each expert are valid. Tiles wholly past an
              expert's count are skipped; rows past it inside a computed
              tile are written with whatever A holds there.
  splitk      the dense GEMM with K cut into S parts (an i32 argument; for
              small M, where the tiles are too few for the SMs): the CTAs
              walk (tile, part) units, part j taking K blocks j P ..
              min((j + 1) P, k) - 1 of P = ceil(k / S) (the caller makes
              every part non-empty), and TMA-store each part's f32 partial
              tile into W [S, M, N] (clipped at M, N); the split-K GEMM
              family's reduction sums the parts in order. At 128 x 128
              its f32 staging tile leaves room for a 4-stage ring.

Every kernel is persistent and warp-specialized like the dense family
(gen_gemm_kernels.py): warpgroup 0 produces (one thread issues the TMA
loads of A, B and the tile's row scales into a ring of full/empty
mbarriers), warpgroups 1 and 2 consume 64 rows each (in 64-row tiles:
the same 64 rows, half the columns each): per K block one gemm_async (4
wgmma k32) into one of two partial accumulators, then the
row scales read from the stage; once the next block's wgmmas are issued,
a wait that leaves them in flight retires this block, whose stage goes
back and whose partial is promoted with one tile.map while the tensor
cores run the next. The epilogue converts to bf16 in a swizzled shared
tile and TMA-stores it (clipped at M, N).
"""
import argparse
import json
import sys

from gen_gemm_splitk_kernels import f32_tile
from gen_gemm_kernels import (accumulator,
                              acquire_stage, grouped_walk, layout, release,
                              releasers_of, ring_constants, roles_and_ring,
                              warpgroup_index)

BK = 128
WM = 64  # rows per consumer warpgroup
# (walk, tile rows, tile columns). 128 x 128 (one B scale block) for every
# walk: each consumer warpgroup owns 64 rows. For the dense and split-K
# walks also:
# - 128 x 64, half a scale block: twice the tiles, for the small-M
#   problems whose 128-wide tiles leave SMs idle (also for the masked
#   walk: one expert of a few hundred rows);
# - 64 x 128 and 64 x 64, for M <= 64 (decode): the consumers split the
#   columns of the tile's 64 rows, and a stage without A's second half
#   leaves room for more stages, more of B in flight (the small-M GEMM
#   streams B from memory).
# A tile never straddles two B scale blocks, so its B scale is one scalar.
KERNELS = (("dense", 128, 128), ("contiguous", 128, 128),
           ("masked", 128, 128), ("splitk", 128, 128),
           ("masked", 128, 64),
           ("dense", 128, 64), ("splitk", 128, 64),
           ("dense", 64, 128), ("splitk", 64, 128),
           ("dense", 64, 64), ("splitk", 64, 64))
# A CTA's dynamic shared memory on sm_90a (227 KiB), less 2 KiB for the
# barriers and the buffers' alignment.
SHARED_BYTES = 227 * 1024 - 2048
MAX_STAGES = 16


def warpgroup_cols(bm, bn):
    """The columns of a consumer warpgroup's accumulator: the tile's (each
    warpgroup has 64 of 128 rows), or half of them (both share 64 rows)."""
    return bn if bm == 2 * WM else bn // 2


def stage_bytes(bm, bn):
    """One ring stage: A's `bm` rows, B's `bn` rows, A's `bm` row scales."""
    return bm * BK + bn * BK + bm * 4


def staging_bytes(walk, bm, bn):
    """The epilogue's staging tile: bf16 C, or split-K's f32 partial."""
    return bm * bn * (4 if walk == "splitk" else 2)


def stages_of(walk, bm, bn):
    """As many stages as shared memory holds beside the staging tile: at
    128 x 128, 5 (4 for split-K, whose f32 staging takes 64 KiB)."""
    return min(MAX_STAGES, (SHARED_BYTES - staging_bytes(walk, bm, bn))
               // stage_bytes(bm, bn))
# Registers per thread after setmaxnreg (128 x (24 + 2 x 240) <= 64K): a
# consumer holds the accumulator and two partials (192 registers), which
# spills at the dense family's 232.
PRODUCER_REGS = 24
CONSUMER_REGS = 240
WALKS = tuple(dict.fromkeys(walk for walk, _, _ in KERNELS))

F8 = "f8E4M3FN"


def ring(shape, strides, swizzle, unit):
    """A shared ring: `unit` puts a unit dim after the stage dim, so that a
    rank-3 copy region (an expert's slice of a 3-D tensor) indexes the
    stage as a leading dim (a box's shared address must be static)."""
    if unit:
        shape = (shape[0], 1) + tuple(shape[1:])
        strides = (strides[0], 0) + tuple(strides[1:])
    return layout(shape, strides, swizzle)


def types(walk, bm, bn):
    """The shared rings and register tiles of a walk's kernel."""
    unit = walk == "masked"
    stages = stages_of(walk, bm, bn)
    cn = warpgroup_cols(bm, bn)
    # A: the stage's 64-row halves (bm / 64 of them per stage).
    halves = stages * bm // WM
    lead = f"{halves}x1x" if unit else f"{halves}x"
    t = {}
    t["a"] = (f"!tile.buffer<{lead}{WM}x{BK}x{F8}, shared, "
              + ring((halves, WM, BK), (WM * BK, BK, 1), "swizzle<3,4,3>", unit) + ">")
    lead = f"{stages}x1x" if unit else f"{stages}x"
    # B: the stage's bn rows, or (64-row tiles) its two warpgroups' halves
    # in slots 2 s and 2 s + 1 (an operand's shared offset is static but
    # for its leading slot).
    b_slots = stages * bn // cn
    lead = f"{b_slots}x1x" if unit else f"{b_slots}x"
    t["b"] = (f"!tile.buffer<{lead}{cn}x{BK}x{F8}, shared, "
              + ring((b_slots, cn, BK), (cn * BK, BK, 1), "swizzle<3,4,3>", unit) + ">")
    lead = "2x1x" if unit else "2x"
    # Each warpgroup's part of C: 128-byte swizzled rows of 64 columns, or
    # plain rows when it has 32.
    c_layout = (ring((2, WM, cn // 64, 64), (WM * cn, 64, WM * 64, 1), "swizzle<3,3,3>", unit)
                if cn % 64 == 0 else ring((2, WM, cn), (WM * cn, cn, 1), None, unit))
    t["c"] = f"!tile.buffer<{lead}{WM}x{cn}xbf16, shared, " + c_layout + ">"
    # A stage's row scales as a column (rows x 1), behind a unit dim (the
    # TMA region is [1, bm, 1] of SFA's [K blocks, rows, 1]), so that a
    # consumer reads its 64 as a tile laid out like the accumulator's rows.
    t["sfa"] = f"!tile.buffer<{stages}x1x{bm}x1xf32, shared>"
    # splitk: each consumer warpgroup's f32 partial tile, staged for the
    # TMA store into the workspace (clipped at M and N).
    t["w"] = f32_tile(2, WM, cn)
    t["acc"] = f"!tile.buffer<{WM}x{cn}xf32, local, {accumulator(cn)}>"
    # Row r = 16w + 8h + q of the accumulator is held by threads 32w + 4q + x
    # (x = 0..3) in register h: its scale goes to the same threads.
    t["rows"] = (f"!tile.buffer<{WM}x1xf32, local, #tile.layout<"
                 "S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>")
    t["lead"] = "0, " if unit else ""
    return t


E4M3_MAX = 448.0


def memrefs(walk):
    """The kernel's parameters: name -> memref type."""
    if walk == "masked":
        return [("a", f"memref<?x?x?x{F8}, 1>"), ("b", f"memref<?x?x?x{F8}, 1>"),
                ("sfa", "memref<?x?x1xf32, 1>"), ("sfb", "memref<?x?x?xf32, 1>"),
                ("d", "memref<?x?x?xbf16, 1>"), ("masked_m", "memref<?xi32, 1>")]
    params = [("a", f"memref<?x?x{F8}, 1>"), ("b", f"memref<?x?x{F8}, 1>"),
              ("sfa", "memref<?x?x1xf32, 1>"), ("sfb", "memref<?x?xf32, 1>")]
    if walk == "splitk":
        # The parts' f32 partial tiles W [S, M, N], and S (the pipeline
        # simulation runs the kernel with S = 2).
        return params + [("w", "memref<?x?x?xf32, 1>"),
                         ("parts_i32", "i32 {tile.sample_value = 2 : i64}")]
    params.append(("d", "memref<?x?xbf16, 1>"))
    if walk == "contiguous":
        params.append(("offsets", "memref<?xi32, 1>"))
    return params


def global_type(memref):
    """The tile buffer a global memref becomes."""
    shape = memref[len("memref<"):memref.rindex("x")]
    elem = memref[memref.rindex("x") + 1:memref.index(",")]
    return f"!tile.buffer<{shape}x{elem}, global>"


def problem(walk):
    """Sizes and tile counts off the memrefs; the global tile buffers."""
    params = dict(memrefs(walk))
    if walk == "masked":
        text = f"""    %G = memref.dim %a, %c0 : {params['a']}
    %CAP = memref.dim %a, %c1 : {params['a']}
    %K = memref.dim %a, %c2 : {params['a']}
    %N = memref.dim %b, %c1 : {params['b']}
    %tiles_m = arith.ceildivui %CAP, %c_bm : index
"""
    else:
        n_of = ("memref.dim %b, %c0 : " + params["b"] if walk == "splitk"
                else "memref.dim %d, %c1 : " + params["d"])
        text = f"""    %M = memref.dim %a, %c0 : {params['a']}
    %K = memref.dim %a, %c1 : {params['a']}
    %N = {n_of}
    %tiles_m = arith.ceildivui %M, %c_bm : index
"""
    text += """    %tiles_n = arith.ceildivui %N, %c_bn : index
    %k_tiles = arith.ceildivui %K, %c_bk : index
    %tiles_per_matrix = arith.muli %tiles_m, %tiles_n : index
    %group_tiles = arith.muli %c_group, %tiles_n : index
"""
    if walk == "masked":
        text += "    %tiles = arith.muli %G, %tiles_per_matrix : index\n"
    else:
        text += "    %tiles = arith.addi %tiles_per_matrix, %c0 : index\n"
    if walk == "splitk":
        # Unit u: tile u / S, part u mod S (K blocks part * P .. + P - 1 of
        # P = ceil(k_tiles / S); the caller makes every part non-empty).
        text += """    %tiles_i32 = arith.index_cast %tiles : index to i32
    %units_i32 = arith.muli %tiles_i32, %parts_i32 : i32
    %k_tiles_i32 = arith.index_cast %k_tiles : index to i32
    %part_tiles_i32 = arith.ceildivui %k_tiles_i32, %parts_i32 : i32
"""
    if walk == "contiguous":
        text += f"""    %offsets_len = memref.dim %offsets, %c0 : {params['offsets']}
    %G = arith.subi %offsets_len, %c1 : index
"""
    for name in ("a", "b", "sfa", "w" if walk == "splitk" else "d"):
        text += (f"    %g{name} = tile.from_memref %{name} : {params[name]} -> "
                 f"{global_type(params[name])}\n")
    return text


def tile_of(walk, bm, bn, indent):
    """Walk index %t -> the tile: %m0 (row in A's rows, or in the expert's
    slot), %n0, %pn (its column tile), %b_row (B's first row),
    %sfb_row (B's scale block row), %g (the expert) and %valid (whether it
    is computed)."""
    if (walk, bm, bn) not in KERNELS:
        raise ValueError(f"{walk}: no {bm} x {bn} tiles (KERNELS)")
    # A 64-wide tile is half of B's 128-row scale block.
    sfb_row = ("%sfb_row = arith.addi %pn, %c0 : index" if bn == 128
               else "%sfb_row = arith.divui %n0, %c128 : index")
    if walk == "masked":
        lines = ("%g = arith.divui %t, %tiles_per_matrix : index\n"
                 "%t_in = arith.remui %t, %tiles_per_matrix : index\n" +
                 grouped_walk("%c_group", "%group_tiles", "%tiles_m", "%pm")
                 .replace("%t,", "%t_in,") + """
%m0 = arith.muli %pm, %c_bm : index
%n0 = arith.muli %pn, %c_bn : index
%valid_rows_i32 = memref.load %masked_m[%g] : memref<?xi32, 1>
%valid_rows = arith.index_cast %valid_rows_i32 : i32 to index
%valid = arith.cmpi ult, %m0, %valid_rows : index
%sfa_row0 = arith.muli %g, %k_tiles : index
{sfb_row}""")
    else:
        lines = grouped_walk("%c_group", "%group_tiles", "%tiles_m", "%pm") + """
%m0 = arith.muli %pm, %c_bm : index
%n0 = arith.muli %pn, %c_bn : index"""
        if walk == "splitk":
            # 32-bit division (a 64-bit one by a runtime value is a long
            # sequence that costs the consumers registers).
            lines = ("%t_i32 = arith.divui %u_i32, %parts_i32 : i32\n"
                     "%t = arith.index_cast %t_i32 : i32 to index\n"
                     "%t_parts_i32 = arith.muli %t_i32, %parts_i32 : i32\n"
                     "%part_i32 = arith.subi %u_i32, %t_parts_i32 : i32\n"
                     + lines + """
%valid = arith.constant true
%b_row = arith.addi %n0, %c0 : index
{sfb_row}
%k_begin_p = arith.muli %part_i32, %part_tiles_i32 : i32
%k_stop_p = arith.addi %k_begin_p, %part_tiles_i32 : i32
%k_end_p = arith.minui %k_stop_p, %k_tiles_i32 : i32
%k_begin = arith.index_cast %k_begin_p : i32 to index
%k_end = arith.index_cast %k_end_p : i32 to index""")
        elif walk == "dense":
            lines += """
%valid = arith.constant true
%b_row = arith.addi %n0, %c0 : index
{sfb_row}"""
        else:
            # The expert: how many of offsets[1..G] are <= m0 (segments are
            # whole tiles, so the tile lies in one); G means past the last,
            # and a tile before offsets[0] belongs to none either.
            lines += """
%m0_i32 = arith.index_cast %m0 : index to i32
%g = scf.for %j = %c1 to %offsets_len step %c1 iter_args(%below = %c0) -> (index) {
  %bound = memref.load %offsets[%j] : memref<?xi32, 1>
  %passed = arith.cmpi sle, %bound, %m0_i32 : i32
  %step = arith.select %passed, %c1, %c0 : index
  %count = arith.addi %below, %step : index
  scf.yield %count : index
}
%in_experts = arith.cmpi ult, %g, %G : index
%first_row = memref.load %offsets[%c0] : memref<?xi32, 1>
%past_first = arith.cmpi sge, %m0_i32, %first_row : i32
%valid = arith.andi %in_experts, %past_first : i1
%g_n = arith.muli %g, %N : index
%b_row = arith.addi %g_n, %n0 : index
%g_nb = arith.muli %g, %tiles_n : index
%sfb_row = arith.addi %g_nb, %pn : index"""
    lines = lines.replace("{sfb_row}", sfb_row)
    return "\n".join(indent + line for line in lines.splitlines())


def walker(walk):
    """The persistent loop's index and bound: tiles, or (tile, part) units."""
    return ("%u_i32", "%units_i32") if walk == "splitk" else ("%t", "%tiles")


def walk_steps(walk):
    """The persistent loop's start, step and type suffix."""
    if walk == "splitk":
        return "%first_tile_i32", "%ctas_i32", ": i32 "
    return "%first_tile", "%ctas", ""


def k_range(walk):
    """A tile's (or unit's) K blocks: [begin, end)."""
    return ("%k_begin", "%k_end") if walk == "splitk" else ("%c0", "%k_tiles")


def coords(walk, what):
    """Global coordinates of one copy (`what`: a0, a1, b, sfa, d)."""
    masked = walk == "masked"
    table = {
        "a0": "[%g, %m0, %k0]" if masked else "[%m0, %k0]",
        "a1": "[%g, %m1, %k0]" if masked else "[%m1, %k0]",
        "b": "[%g, %n0, %k0]" if masked else "[%b_row, %k0]",
        "sfa": "[%sfa_row, %m0, 0]",
        "d": "[%g, %m_half, %n_half]" if masked else "[%m_half, %n_half]",
    }
    return table[what]


def sizes(walk, rows, cols):
    return f"[1, {rows}, {cols}]" if walk == "masked" else f"[{rows}, {cols}]"


def producer(walk, bm, bn):
    T = types(walk, bm, bn)
    params = dict(memrefs(walk))
    ga, gb, gsfa = (global_type(params[n]) for n in ("a", "b", "sfa"))
    sfa_row = ("%sfa_row = arith.addi %sfa_row0, %kt : index" if walk == "masked"
               else "%sfa_row = arith.addi %kt, %c0 : index")
    walk_var, walk_end = walker(walk)
    first, step, suffix = walk_steps(walk)
    k_begin, k_end = k_range(walk)
    # A's 64-row halves of the stage: two (slots 2s, 2s + 1), or one (s).
    halves = (("a0", "%a_half0"), ("a1", "%a_half1")) if bm == 2 * WM else (("a0", "%s"),)
    a_copies = "".join(
        f"""              tile.copy_async %ga{coords(walk, what)} to %sa[{slot}, {T['lead']}0, 0] sizes {sizes(walk, WM, BK)} exec thread
                  mbar(%full[%s] : !ring) : {ga} to {T['a']}
""" for what, slot in halves)
    if bm == 2 * WM:
        b_copies = f"""              tile.copy_async %gb{coords(walk, "b")} to %sb[%s, {T['lead']}0, 0] sizes {sizes(walk, bn, BK)} exec thread
                  mbar(%full[%s] : !ring) : {gb} to {T['b']}
"""
    else:
        cn = warpgroup_cols(bm, bn)
        b_copies = f"""              %b_slot0 = arith.muli %s, %c2 : index
              %b_slot1 = arith.addi %b_slot0, %c1 : index
              %c_b_half = arith.constant {cn} : index
              %b_row1 = arith.addi %b_row, %c_b_half : index
              tile.copy_async %gb[%b_row, %k0] to %sb[%b_slot0, 0, 0] sizes [{cn}, {BK}] exec thread
                  mbar(%full[%s] : !ring) : {gb} to {T['b']}
              tile.copy_async %gb[%b_row1, %k0] to %sb[%b_slot1, 0, 0] sizes [{cn}, {BK}] exec thread
                  mbar(%full[%s] : !ring) : {gb} to {T['b']}
"""
    return f"""      scf.if %leader {{
        scf.for {walk_var} = {first} to {walk_end} step {step} iter_args(%it0 = %c0) -> (index) {suffix}{{
{tile_of(walk, bm, bn, "          ")}
          %it2 = scf.if %valid -> (index) {{
            %it1 = scf.for %kt = {k_begin} to {k_end} step %c1 iter_args(%i = %it0) -> (index) {{
{acquire_stage("              ", a_halves=bm == 2 * WM)}              {sfa_row}
{a_copies}{b_copies}              tile.copy_async %gsfa{coords(walk, "sfa")} to %ssfa[%s, 0, 0, 0] sizes [1, {bm}, 1] exec thread
                  mbar(%full[%s] : !ring) : {gsfa} to {T['sfa']}
              %next = arith.addi %i, %c1 : index
              scf.yield %next : index
            }}
            scf.yield %it1 : index
          }} else {{
            scf.yield %it0 : index
          }}
          scf.yield %it2 : index
        }}
      }}
"""


def advance(stage, phase, tag):
    """The ring slot after (`stage`, `phase`) as %s_<tag>, %ph_<tag>: a
    compare and a select rather than a division by the stage count. Slots
    are i32, cast to index where used: a consumer holds 192 accumulator
    registers, and every 64-bit value live across the K loop costs two."""
    return f"""%s_inc_{tag} = arith.addi {stage}, %c1_i32 : i32
%wraps_{tag} = arith.cmpi eq, %s_inc_{tag}, %c_stages_i32 : i32
%s_{tag} = arith.select %wraps_{tag}, %c0_i32, %s_inc_{tag} : i32
%ph_{tag} = arith.xori {phase}, %wraps_{tag} : i1
"""


def block_issue(walk, bm, bn, stage, phase, kt, partial, scales, tag, indent):
    """Consumer: wait for K block `kt` in ring slot `stage` (full-barrier
    parity `phase`), issue its wgmmas into `partial` (the first one
    overwrites), one group, and read its row scales into `scales`; B's
    block scale is loaded into %sfb_<tag> and used only at the promotion,
    by when the global load has long landed."""
    T = types(walk, bm, bn)
    # The warpgroup's A and B slots: A's half 2 s + half and B's s, or
    # (64-row tiles) A's s and B's half 2 s + half.
    pair, same = (f"""%pair_{tag} = arith.muli %si_{tag}, %c2 : index
%{{}}_stage_{tag} = arith.addi %pair_{tag}, %half : index""",
                  f"%{{}}_stage_{tag} = arith.addi %si_{tag}, %c0 : index")
    a_stage = (pair.format("a") + "\n" + same.format("b") if bm == 2 * WM
               else same.format("a") + "\n" + pair.format("b"))
    sfb_load = (f"memref.load %sfb[%g, %sfb_row, {kt}] : memref<?x?x?xf32, 1>"
                if walk == "masked" else
                f"memref.load %sfb[%sfb_row, {kt}] : memref<?x?xf32, 1>")
    text = f"""%si_{tag} = arith.index_cast {stage} : i32 to index
// B's block scale: an L2 hit, in flight during the stage wait.
%sfb_{tag} = {sfb_load}
nvgpu.mbarrier.try_wait.parity %full[%si_{tag}], {phase}, %ticks : !ring
{a_stage}
tile.gemm_async {partial}[0, 0], %sa[%a_stage_{tag}, {T['lead']}0, 0], %sb[%b_stage_{tag}, {T['lead']}0, 0] sizes [{WM}, {warpgroup_cols(bm, bn)}, {BK}]
    exec warpgroup {{transpose_b}} : {T['acc']}, {T['a']}, {T['b']}
tile.commit_group wgmma
// This warpgroup's row scales, while the wgmmas run.
tile.load %ssfa[%si_{tag}, 0, %row0, 0] to {scales} : {T['sfa']} to {T['rows']}"""
    return "".join(indent + line + "\n" for line in text.splitlines())


def block_promote(walk, bm, bn, stage, partial, scales, sfb, releases, tag, indent):
    """Consumer, once `partial`'s group retired: give its ring slot `stage`
    back and promote: acc += partial * scales * sfb."""
    T = types(walk, bm, bn)
    text = f"""scf.if {releases} {{
  %si_{tag} = arith.index_cast {stage} : i32 to index
{release(f"%si_{tag}", False, "  ")}
}}
tile.map ins({scales} : {T['rows']}) outs({scales} : {T['rows']}) {{
^bb0(%sa_v: f32, %si: index, %sj: index):
  %both = arith.mulf %sa_v, {sfb} : f32
  tile.yield %both : f32
}}
tile.map ins(%acc, {partial}, {scales} : {T['acc']}, {T['acc']}, {T['rows']}) outs(%acc : {T['acc']}) {{
^bb0(%x: f32, %p: f32, %rs: f32, %pi: index, %pj: index):
  %y = math.fma %p, %rs, %x : f32
  tile.yield %y : f32
}}"""
    return "".join(indent + line + "\n" for line in text.splitlines())


def indented(text, indent):
    return "".join(indent + line + "\n" for line in text.splitlines())


def first_row_col(bm, bn):
    """A consumer warpgroup's first row and column in the tile."""
    if bm == 2 * WM:
        return ("      %row0 = arith.muli %half, %c_wm : index\n"
                "      %col0 = arith.constant 0 : index\n")
    return ("      %row0 = arith.constant 0 : index\n"
            f"      %c_wn = arith.constant {warpgroup_cols(bm, bn)} : index\n"
            "      %col0 = arith.muli %half, %c_wn : index\n")


def consumer(walk, bm, bn):
    """Two partials, one wgmma group always in flight: each K block is
    promoted while the next one's wgmmas run. Blocks go in pairs, block 2j
    into %p0 and 2j + 1 into %p1, and an odd last block into %p0 after the
    pairs: every partial that is in flight across a branch or a loop edge
    stays in one set of registers, so ptxas keeps the wgmmas asynchronous
    (a copy of an accumulator in flight would serialize them). The ring
    slot and its phase are carried along (%s, %ph) and advanced per block."""
    T = types(walk, bm, bn)
    params = dict(memrefs(walk))
    if walk == "splitk":
        # The f32 partial into the part's slice of the workspace.
        epilogue = f"""          // Epilogue: the previous unit's TMA store must have read this
          // warpgroup's half of the staging tile before it is overwritten.
          scf.if %wg_leader {{
            tile.wait_group bulk, 0 {{read}}
          }}
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          tile.store %acc to %sw[%half, 0, 0, 0] : {T['acc']} to {T['w']}
          tile.fence proxy_async
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          scf.if %wg_leader {{
            %m_half = arith.addi %m0, %row0 : index
            %n_half = arith.addi %n0, %col0 : index
            %part_at = arith.index_cast %part_i32 : i32 to index
            tile.copy_async %sw[%half, 0, 0, 0] to %gw[%part_at, %m_half, %n_half] sizes [1, {WM}, {warpgroup_cols(bm, bn)}] exec thread
                : {T['w']} to {global_type(params['w'])}
            tile.commit_group bulk
          }}
"""
    else:
        epilogue = f"""          // Epilogue: the previous tile's TMA store must have read this
          // warpgroup's half of the C tile before it is overwritten.
          scf.if %wg_leader {{
            tile.wait_group bulk, 0 {{read}}
          }}
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          tile.store %acc to %sc[%half, {T['lead']}0, 0] : {T['acc']} to {T['c']}
          tile.fence proxy_async
          nvvm.barrier id = %half_i32 number_of_threads = %i32_128
          scf.if %wg_leader {{
            %m_half = arith.addi %m0, %row0 : index
            %n_half = arith.addi %n0, %col0 : index
            tile.copy_async %sc[%half, {T['lead']}0, 0] to %gd{coords(walk, "d")} sizes {sizes(walk, WM, warpgroup_cols(bm, bn))} exec thread
                : {T['c']} to {global_type(params['d'])}
            tile.commit_group bulk
          }}
"""
    ind = "            "
    walk_var, walk_end = walker(walk)
    first, step, suffix = walk_steps(walk)
    k_begin, k_end = k_range(walk)
    # The K block bounds as i32 (two registers fewer each across the loop).
    counts = f"""      %k_begin_i32 = arith.index_cast {k_begin} : index to i32
      %k_end_i32 = arith.index_cast {k_end} : index to i32
      %k_count = arith.subi %k_end_i32, %k_begin_i32 : i32
      %k_pairs = arith.divui %k_count, %c2_i32 : i32
      %k_odd_count = arith.remui %k_count, %c2_i32 : i32
      %k_odd = arith.cmpi ne, %k_odd_count, %c0_i32 : i32
      %k_last_i32 = arith.subi %k_end_i32, %c1_i32 : i32
"""
    text = f"""      nvvm.setmaxregister increase {CONSUMER_REGS}
{warpgroup_index("%half", "      ")}      %half_i32 = arith.index_cast %wg : index to i32
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
{first_row_col(bm, bn)}      %true = arith.constant true
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c2_i32 = arith.constant 2 : i32
      %c_stages_i32 = arith.constant {stages_of(walk, bm, bn)} : i32
{releasers_of(1, False)}      %acc = tile.alloc_local : {T['acc']}
      %p0 = tile.alloc_local : {T['acc']}
      %p1 = tile.alloc_local : {T['acc']}
      %sc0 = tile.alloc_local : {T['rows']}
      %sc1 = tile.alloc_local : {T['rows']}
{counts if walk != "splitk" else ""}      scf.for {walk_var} = {first} to {walk_end} step {step} iter_args(%s_t = %c0_i32, %ph_t = %false) -> (i32, i1) {suffix}{{
{tile_of(walk, bm, bn, "        ")}
{indented(counts, "  ") if walk == "splitk" else ""}        %s_tile, %ph_tile = scf.if %valid -> (i32, i1) {{
@@ROWS_BEGIN@@
          tile.fill %acc, %zero : {T['acc']}, f32
          // The first promotion of %p1 (before any block) adds zeros.
          tile.fill %p1, %zero : {T['acc']}, f32
          tile.fill %sc1, %zero : {T['rows']}, f32
          %pair_span = arith.muli %k_pairs, %c2_i32 : i32
          %pairs_end = arith.addi %k_begin_i32, %pair_span : i32
          %s_end, %ph_end, %sfb_last, %s_last, %had_pairs = scf.for %kt0_i32 = %k_begin_i32 to %pairs_end step %c2_i32
              iter_args(%s = %s_t, %ph = %ph_t, %sfb_p1 = %zero, %s_p1 = %c0_i32, %has_prev = %false) -> (i32, i1, f32, i32, i1) : i32 {{
            %kt0 = arith.index_cast %kt0_i32 : i32 to index
{block_issue(walk, bm, bn, "%s", "%ph", "%kt0", "%p0", "%sc0", "e", ind)}            // Block kt0 - 1 (in %p1) retires; block kt0 stays in flight.
            tile.wait_group wgmma, 1
            %releases_prev = arith.andi %releaser, %has_prev : i1
{block_promote(walk, bm, bn, "%s_p1", "%p1", "%sc1", "%sfb_p1", "%releases_prev", "q", ind)}            %kt1 = arith.addi %kt0, %c1 : index
{indented(advance("%s", "%ph", "o"), ind)}{block_issue(walk, bm, bn, "%s_o", "%ph_o", "%kt1", "%p1", "%sc1", "o", ind)}            // Block kt0 retires; block kt0 + 1 stays in flight.
            tile.wait_group wgmma, 1
{block_promote(walk, bm, bn, "%s", "%p0", "%sc0", "%sfb_e", "%releaser", "r", ind)}{indented(advance("%s_o", "%ph_o", "n"), ind)}            scf.yield %s_n, %ph_n, %sfb_o, %s_o, %true : i32, i1, f32, i32, i1
          }}
          %releases_pair_end = arith.andi %releaser, %had_pairs : i1
          %s_after, %ph_after = scf.if %k_odd -> (i32, i1) {{
            %k_last = arith.index_cast %k_last_i32 : i32 to index
            // The odd last block into %p0, promoted after the last pair's.
{block_issue(walk, bm, bn, "%s_end", "%ph_end", "%k_last", "%p0", "%sc0", "t", ind)}            tile.wait_group wgmma, 1
{block_promote(walk, bm, bn, "%s_last", "%p1", "%sc1", "%sfb_last", "%releases_pair_end", "u", ind)}            tile.wait_group wgmma, 0
{block_promote(walk, bm, bn, "%s_end", "%p0", "%sc0", "%sfb_t", "%releaser", "v", ind)}{indented(advance("%s_end", "%ph_end", "v"), ind)}            scf.yield %s_v, %ph_v : i32, i1
          }} else {{
            tile.wait_group wgmma, 0
{block_promote(walk, bm, bn, "%s_last", "%p1", "%sc1", "%sfb_last", "%releases_pair_end", "w", ind)}            scf.yield %s_end, %ph_end : i32, i1
          }}
{epilogue}          scf.yield %s_after, %ph_after : i32, i1
@@ROWS_END@@
        }} else {{
          scf.yield %s_t, %ph_t : i32, i1
        }}
        scf.yield %s_tile, %ph_tile : i32, i1
      }}
      // Before exiting: the last TMA store has read the staging tile (its
      // writes complete with the grid).
      scf.if %wg_leader {{
        tile.wait_group bulk, 0 {{read}}
      }}
"""
    return rows_guard(walk, bm, text)


def rows_guard(walk, bm, text):
    """The consumer's tile body (between the markers) run only by a
    warpgroup with rows below M: in the dense and split-K walks a
    warpgroup whose 64 rows all lie past M (the last row tile, when M mod
    128 is 1 to 64; every tile when M <= 64) only waits for each K block's
    stage and gives it back, leaving the tensor cores to the other one
    (its MMAs would compute rows the TMA store clips). The grouped walks
    keep both: their slots' rows past an expert's count are in bounds."""
    begin, end = "@@ROWS_BEGIN@@\n", "@@ROWS_END@@\n"
    head, rest = text.split(begin)
    body, tail = rest.split(end)
    if walk not in ("dense", "splitk") or bm == WM:
        return head + body + tail
    drain = f"""// No rows: wait for each K block's stage and release it.
%s_d, %ph_d = scf.for %kd_i32 = %k_begin_i32 to %k_end_i32 step %c1_i32
    iter_args(%s = %s_t, %ph = %ph_t) -> (i32, i1) : i32 {{
  %si_d = arith.index_cast %s : i32 to index
  nvgpu.mbarrier.try_wait.parity %full[%si_d], %ph, %ticks : !ring
  scf.if %releaser {{
{release("%si_d", False, "    ")}
  }}
{advance("%s", "%ph", "d")}  scf.yield %s_d, %ph_d : i32, i1
}}
scf.yield %s_d, %ph_d : i32, i1"""
    opened = """// A warpgroup whose rows all lie past M computes nothing (below).
%wg_row = arith.addi %m0, %row0 : index
%wg_has_rows = arith.cmpi ult, %wg_row, %M : index
%s_w, %ph_w = scf.if %wg_has_rows -> (i32, i1) {"""
    return (head + indented(opened, "          ") + indented(body, "  ") +
            "          } else {\n" + indented(drain, "            ") +
            "          }\n          scf.yield %s_w, %ph_w : i32, i1\n" + tail)


def kernel_name(walk, bm, bn):
    return f"fp8_blockscaled_{walk}_{bm}x{bn}x{BK}_s{stages_of(walk, bm, bn)}"


# What the kernel checks' pipeline simulation reads from the grouped
# kernels' integer arrays (tile.sample_contents): contiguous, experts of
# rows [0, 128) and [128, 256) (at the sample sizes 330 and 600 more row
# tiles lie past the last expert); masked, each of the sample's up to 600
# experts with 200, 0, 129, 64, 330 or 1 valid rows (empty, partial and
# full tiles). The masked walk visits every expert's tiles: its CTAs take
# the sample grid below, so that CTA 0 walks a few of them.
SAMPLE_CONTENTS = {
    ("contiguous", "offsets"): [0, 128, 256],
    ("masked", "masked_m"): [(200, 0, 129, 64, 330, 1)[g % 6] for g in range(600)],
}
SAMPLE_GRID = {"masked": 97}


def kernel(walk, bm, bn):
    T = types(walk, bm, bn)

    def param(name, type_):
        contents = SAMPLE_CONTENTS.get((walk, name))
        return f"%{name}: {type_}" + (
            " {tile.sample_contents = array<i64: " + ", ".join(map(str, contents)) + ">}"
            if contents else "")
    params = ", ".join(param(n, t) for n, t in memrefs(walk))
    sample_attrs = (f", tile.sample_grid = array<i64: {SAMPLE_GRID[walk]}, 1, 1>"
                   if walk in SAMPLE_GRID else "")
    # 160 rows: the last row tile leaves the second consumer warpgroup no
    # rows, so the simulation runs its drain (rows_guard) too; 1088: K
    # blocks in two pairs or more per tile or part (split-K's two parts
    # too), so that the K loop's second trip releases the previous pair's
    # stage (at 330, three blocks, that release never ran and a kernel
    # without it passed), more K blocks (9) than the 128-row tiles' rings
    # have stages, and again a last row tile of 64 rows, so that the drain
    # runs beside a long K loop of the other warpgroup (at 160, two blocks,
    # a drain that skipped its full-barrier waits ran ahead unseen); 330
    # last, for the slow-warp runs.
    if walk in ("dense", "splitk"):
        sample_attrs += ", tile.sample_sizes = array<i64: 160, 200, 1088, 330>"
    else:
        sample_attrs += ", tile.sample_sizes = array<i64: 200, 600, 330>"
    # splitk walks its units with i32 indices (registers).
    walk_steps_i32 = """    %first_tile_i32 = arith.index_cast %first_tile : index to i32
    %ctas_i32 = arith.index_cast %ctas : index to i32
"""
    text = f"""
  // {walk}: {bm}x{bn}x{BK} tiles, {stages_of(walk, bm, bn)}-stage ring, e4m3 x e4m3 -> bf16,
  // 1x128 (A) and 128x128 (B) f32 block scales
  gpu.func @{kernel_name(walk, bm, bn)}({params}) kernel
      attributes {{known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32{sample_attrs}}} {{
{ring_constants(stages_of(walk, bm, bn), bm, bn, BK, stage_bytes(bm, bn), 8)}    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %i32_128 = arith.constant 128 : i32
{problem(walk)}    %sa = tile.alloc_shared {{alignment = 1024 : i64}} : {T['a']}
    %sb = tile.alloc_shared {{alignment = 1024 : i64}} : {T['b']}
    {"%sw" if walk == "splitk" else "%sc"} = tile.alloc_shared {{alignment = 1024 : i64}} : {T['w'] if walk == "splitk" else T['c']}
    %ssfa = tile.alloc_shared {{alignment = 128 : i64}} : {T['sfa']}
{roles_and_ring()}    gpu.barrier
    %first_tile = gpu.block_id x
    %ctas = gpu.grid_dim x
{walk_steps_i32 if walk == "splitk" else ""}    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {{
      nvvm.setmaxregister decrease {PRODUCER_REGS}
{producer(walk, bm, bn)}    }} else {{
{consumer(walk, bm, bn)}    }}
    gpu.return
  }}
"""
    # Each ring depth has its barrier group type (the header's).
    return text.replace("!ring", f"!ring_s{stages_of(walk, bm, bn)}")


def case(walk, bm, bn):
    return dict(kernel=kernel_name(walk, bm, bn), walk=walk, bm=bm, bn=bn, bk=BK,
                stages=stages_of(walk, bm, bn), block=384, scale_block=128)


def header(kernels):
    """The module's banner, the barrier group types of the kernels' ring
    depths, and the gpu.module's opening."""
    rings = "".join(
        f"!ring_s{n} = !nvgpu.mbarrier.group<memorySpace = "
        f"#gpu.address_space<workgroup>, num_barriers = {n}>\n"
        for n in sorted({stages_of(w, bm, bn) for w, bm, bn in kernels}))
    return ("""// Generated by bench/Kernels/gen_fp8_kernels.py: persistent,
// warp-specialized FP8 GEMMs with 1x128 / 128x128 block scales. Do not edit.
""" + rings + 'gpu.module @fp8 [#nvvm.target<chip = "sm_90a">] {\n')


EXAMPLE_HEADER = """\
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

"""


def with_aliases(text, walk, bm, bn):
    """The example's long types as aliases above the module."""
    t = types(walk, bm, bn)
    aliases = [("a_ring", t["a"]), ("b_ring", t["b"]), ("d_tile", t["c"]),
               ("sfa_ring", t["sfa"]), ("acc", t["acc"]),
               ("row_scales", t["rows"])]
    for name, full in sorted(aliases, key=lambda a: -len(a[1])):
        text = text.replace(full, "!" + name)
    defs = "".join(f"!{name} = {full}\n" for name, full in aliases)
    body = text.split("\n", 2)[2]  # without the family file's banner
    return EXAMPLE_HEADER + defs + body


QUANT_ROWS = 64  # rows per CTA of the quantizer (one warpgroup)
QUANTIZER = f"fp8_quantize_rows_{QUANT_ROWS}x{BK}"


def quantizer():
    """The activation quantizer the GEMMs consume: X (bf16 [M, K]) -> Q
    (e4m3 [M, K]) and SFA (f32, transposed: [ceil(K/128), Mp, 1]), each
    1 x 128 block divided by its amax / 448 (a zero block: scale 1), the
    division IEEE and the conversion round-to-nearest-even, saturating
    (never reached: |x| / scale <= 448), so the result is bit for bit
    torch's `(x / scale).to(torch.float8_e4m3fn)`. One CTA of 128 threads
    per 64 x 128 block, grid (ceil(M / 64), ceil(K / 128)): TMA brings the
    block in (zeros past M and K), each thread holds its part in the wgmma
    accumulator's layout (a row across a quad of lanes), the row amax is a
    tile.reduce (in-thread, then two lane butterflies), tile.map scales,
    tile.convert rounds to e4m3, and TMA writes Q and the row scales back
    (clipped at M and K)."""
    rows, cols = QUANT_ROWS, BK
    x_t = (f"!tile.buffer<{rows}x{cols}xbf16, shared, "
           f"{layout((rows, cols // 64, 64), (64, rows * 64, 1), 'swizzle<3,3,3>')}>")
    q_t = (f"!tile.buffer<{rows}x{cols}x{F8}, shared, "
           f"{layout((rows, cols), (cols, 1), 'swizzle<3,4,3>')}>")
    s_t = f"!tile.buffer<1x{rows}x1xf32, shared>"
    reg = accumulator(cols)
    xf_t = f"!tile.buffer<{rows}x{cols}xf32, local, {reg}>"
    q8_t = f"!tile.buffer<{rows}x{cols}x{F8}, local, {reg}>"
    row_t = types("dense", 128, 128)["rows"]
    bar_t = ("!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
             "num_barriers = 1>")
    return f"""
  // The activation quantizer: bf16 -> e4m3 with 1x128 f32 block scales,
  // the scales transposed (the layout the GEMMs read).
  gpu.func @{QUANTIZER}(%x: memref<?x?xbf16, 1>, %q: memref<?x?x{F8}, 1>, %sfa: memref<?x?x1xf32, 1>) kernel
      attributes {{known_block_size = array<i32: 128, 1, 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c_rows = arith.constant {rows} : index
    %c_cols = arith.constant {cols} : index
    %bytes = arith.constant {rows * cols * 2} : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %i32_0 = arith.constant 0 : i32
    %i32_128 = arith.constant 128 : i32
    %gx = tile.from_memref %x : memref<?x?xbf16, 1> -> !tile.buffer<?x?xbf16, global>
    %gq = tile.from_memref %q : memref<?x?x{F8}, 1> -> !tile.buffer<?x?x{F8}, global>
    %gs = tile.from_memref %sfa : memref<?x?x1xf32, 1> -> !tile.buffer<?x?x1xf32, global>
    %sx = tile.alloc_shared {{alignment = 1024 : i64}} : {x_t}
    %sq = tile.alloc_shared {{alignment = 1024 : i64}} : {q_t}
    %ss = tile.alloc_shared {{alignment = 128 : i64}} : {s_t}
    %full = nvgpu.mbarrier.create -> {bar_t}
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %block_m = gpu.block_id x
    %block_k = gpu.block_id y
    %m0 = arith.muli %block_m, %c_rows : index
    %k0 = arith.muli %block_k, %c_cols : index
    scf.if %leader {{
      nvgpu.mbarrier.init %full[%c0], %c1 : {bar_t}
      tile.fence mbarrier_init
    }}
    gpu.barrier
    scf.if %leader {{
      nvgpu.mbarrier.arrive.expect_tx %full[%c0], %bytes : {bar_t}
      tile.copy_async %gx[%m0, %k0] to %sx[0, 0] sizes [{rows}, {cols}] exec thread
          mbar(%full[%c0] : {bar_t}) : !tile.buffer<?x?xbf16, global> to {x_t}
    }}
    nvgpu.mbarrier.try_wait.parity %full[%c0], %false, %ticks : {bar_t}
    %v = tile.alloc_local : {xf_t}
    tile.load %sx[0, 0] to %v : {x_t} to {xf_t}
    // amax per row: |x| in a second tile, its rows' maximum.
    %mag = tile.alloc_local : {xf_t}
    tile.map ins(%v : {xf_t}) outs(%mag : {xf_t}) {{
    ^bb0(%e: f32, %i: index, %j: index):
      %a = math.absf %e : f32
      tile.yield %a : f32
    }}
    %scale = tile.alloc_local : {row_t}
    tile.reduce <max> %mag dims [1] into %scale : {xf_t} into {row_t}
    tile.map ins(%scale : {row_t}) outs(%scale : {row_t}) {{
    ^bb0(%amax: f32, %i: index, %j: index):
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %e4m3_max = arith.constant {E4M3_MAX} : f32
      %s = arith.divf %amax, %e4m3_max : f32
      %nonzero = arith.cmpf ogt, %amax, %zero : f32
      %r = arith.select %nonzero, %s, %one : f32
      tile.yield %r : f32
    }}
    tile.map ins(%v, %scale : {xf_t}, {row_t}) outs(%v : {xf_t}) {{
    ^bb0(%e: f32, %s: f32, %i: index, %j: index):
      %r = arith.divf %e, %s : f32
      tile.yield %r : f32
    }}
    %q8 = tile.alloc_local : {q8_t}
    tile.convert %v to %q8 : {xf_t} to {q8_t}
    tile.store %q8 to %sq[0, 0] : {q8_t} to {q_t}
    tile.store %scale to %ss[0, 0, 0] : {row_t} to {s_t}
    tile.fence proxy_async
    nvvm.barrier id = %i32_0 number_of_threads = %i32_128
    scf.if %leader {{
      tile.copy_async %sq[0, 0] to %gq[%m0, %k0] sizes [{rows}, {cols}] exec thread
          : {q_t} to !tile.buffer<?x?x{F8}, global>
      tile.copy_async %ss[0, 0, 0] to %gs[%block_k, %m0, 0] sizes [1, {rows}, 1] exec thread
          : {s_t} to !tile.buffer<?x?x1xf32, global>
      tile.commit_group bulk
      tile.wait_group bulk, 0 {{read}}
    }}
    gpu.return
  }}
"""


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_mlir", nargs="?", help="the gpu.module to write")
    parser.add_argument("out_json", nargs="?",
                        help="the case list (JSON) to write")
    parser.add_argument("--example", choices=WALKS,
                        help="print one kernel (128 wide) as a module on stdout")
    args = parser.parse_args()
    if args.example:
        one = ((args.example, 128, 128),)
        sys.stdout.write(with_aliases(
            header(one) + kernel(*one[0]) + "}\n", *one[0]))
        return
    if not args.out_mlir:
        parser.error("OUT.mlir is required without --example")
    with open(args.out_mlir, "w") as f:
        f.write(header(KERNELS) + "".join(kernel(*k) for k in KERNELS)
                + quantizer()
                + "}\n")
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump({"kernels": [case(*k) for k in KERNELS],
                       "quantizer": dict(kernel=QUANTIZER, rows=QUANT_ROWS,
                                         cols=BK, block=128)}, f, indent=1)


if __name__ == "__main__":
    main()

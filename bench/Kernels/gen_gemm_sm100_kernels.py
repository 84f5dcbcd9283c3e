#!/usr/bin/env python3
"""Writes the Blackwell GEMM kernels (tile IR, one sm_100a gpu.module):

  gen_gemm_sm100_kernels.py OUT.mlir [OUT.json]

Every kernel computes C = A * B^T (A is M x K, B is N x K, both K-major)
with f32 accumulation in tensor memory and stores C (M x N) in the output
type; M, N and K are runtime sizes (TMA fills zeros past the edges on
loads and clips stores). Four forms share one skeleton:

  dense   gemm_sm100_<type>_tn_<BM>x<BN>x<BK>_s<stages>
  scaled  gemm_sm100_mx<type>_tn_...: block-scaled e4m3 (kind::mxf8f6f4),
          one ue8m0 scale per 32 K elements of each row of A and of B;
          C = sum_k A[m,k] 2^(SFA[m,k/32]-127) B[n,k] 2^(SFB[n,k/32]-127)
  addc    gemm_sm100_<type>_tn_addc_...: D = A * B^T + C0, C0 an f32 M x N
          input copied into the accumulator before the MMAs
  pair    gemm_sm100_<type>_tn_256x<BN>x<BK>_s<stages>_pair[_mc<P>]:
          cta_group::2, a cluster of P pairs of CTAs (P = 1 or 2 along N);
          each pair computes a 256 x BN tile

Persistent and warp-specialized, 256 threads, one CTA per SM (one cluster
per P pairs of SMs) walking the tiles in grouped order like the Hopper
family:
  warp 0 (one thread)  TMA loads of a `stages`-deep ring (full/empty
                       barriers); scaled: the stage's scale tiles too;
                       addc: C0 in 128 x 32 f32 slices through a 2-slot
                       ring of its own before each tile's K loop;
  warp 1 (one thread)  the MMAs: one tile.gemm_async (dispatch: tcgen05)
                       per stage into one of two tensor-memory accumulators
                       (columns 0..BN-1 and 256..256+BN-1), each stage
                       released by a tcgen05.commit to its empty barrier,
                       each finished accumulator announced by a commit to
                       its `acc_full` barrier; scaled: first copies the
                       stage's scale tiles shared -> tensor memory
                       (tile.copy_async: tcgen05.cp 32x128b.warpx4) into
                       that stage's scale columns; addc: first copies the
                       C0 slices into the accumulator (tcgen05.cp
                       128x256b) and accumulates onto them from the first
                       K step;
  warps 4-7            the epilogue: wait for an accumulator, read it back
                       in 64-column slices (tile.load from tensor memory:
                       tcgen05.ld 32x32b, thread = row), release it to the
                       MMA warp (acc_empty), store each slice converted into
                       a 128-byte swizzled shared tile (two, alternating) and
                       TMA-store it; the MMAs of the next tile run meanwhile
                       into the other accumulator.
Pair form: CTA 2p + r of the cluster is row half r of pair p. Each CTA
TMA-loads its 128 rows of A and its BN/2 rows of B (`.cta_group::2`), all
completing on the full barrier of its pair's leader (r = 0, `mbar_cta`),
which alone arms it and whose MMA thread issues tcgen05.mma.cta_group::2
(M 256) over both CTAs' shared memory into both CTAs' tensor memory
(allocated with cta_group 2). With P = 2 the two pairs share A's rows: CTA
(r, p) loads half of them and multicasts it to CTA r of both pairs. The
leader's commits multicast: a stage's release to every CTA of the cluster
(each empty barrier expects one per pair), a finished accumulator to both
CTAs of the pair; each CTA's epilogue releases its accumulator half with
one arrival on the leader's acc_empty. The producer drains its empty
barriers and the cluster syncs before the tensor memory is released.
Compiled and assembled for sm_100a and checked by the lowering checker;
never run here (no sm_100 GPU).
"""
import json
import argparse
import sys
from dataclasses import dataclass

from gen_gemm_kernels import (BYTES, GROUP_M, SHORT, layout, problem, raster,
                              ring_k_major)

ACC_COLUMNS = 256  # tensor-memory columns between the two accumulators
SLICE = 64         # epilogue columns per tcgen05.ld / TMA store
CMP_SLICE = 32     # addc: C0 columns per staged slice (one 128-byte row)
SF_COLUMN = 128    # scaled: first column of the scale slots (BN 128 only)
SF_SLOT = 8        # scaled: columns per stage (A's 4, then B's 4)
SF_TYPE = "f8E8M0FNU"


@dataclass(frozen=True)
class Config:
    ty: str
    out_ty: str
    bn: int
    bk: int
    stages: int
    form: str = "dense"  # dense, scaled, addc, pair
    pairs: int = 1       # pair form: CTA pairs per cluster (along N)

    @property
    def pair(self):
        return self.form == "pair"

    @property
    def cluster(self):
        return 2 * self.pairs if self.pair else 1

    @property
    def bm(self):
        """Rows of the tile one MMA issue covers (a pair's: 256)."""
        return 256 if self.pair else 128

    @property
    def b_rows(self):
        """Rows of B in one CTA's shared stage."""
        return self.bn // 2 if self.pair else self.bn

    @property
    def name(self):
        short = ("mx" if self.form == "scaled" else "") + SHORT[self.ty]
        extra = "_addc" if self.form == "addc" else ""
        tail = ""
        if self.pair:
            tail = "_pair" + (f"_mc{self.pairs}" if self.pairs > 1 else "")
        return (f"gemm_sm100_{short}_tn{extra}_{self.bm}x{self.bn}x{self.bk}"
                f"_s{self.stages}{tail}")


def indent(text, spaces):
    pad = " " * spaces
    return "\n".join(pad + line if line else line for line in text.splitlines())


def ring_slot(counter, stages, sfx, free=False, slot=None):
    """Slot `counter % stages` of a ring (named `slot`, default %s<sfx>)
    and the parity its barrier is waited with: the phase of use
    counter / stages (free: the parity the producer waits for on the empty
    barrier, which the first round finds already completed)."""
    cmp = "eq" if free else "ne"
    return f"""{slot or '%s' + sfx} = arith.remui {counter}, {stages} : index
%round{sfx} = arith.divui {counter}, {stages} : index
%round_bit{sfx} = arith.andi %round{sfx}, %c1 : index
%parity{sfx} = arith.cmpi {cmp}, %round_bit{sfx}, %c0 : index"""


def types(cfg):
    ty, out_ty, bn, bk, stages = cfg.ty, cfg.out_ty, cfg.bn, cfg.bk, cfg.stages
    inner = 128 // BYTES[out_ty]
    t = dict(
        a=f"!tile.buffer<{stages}x128x{bk}x{ty}, shared, {ring_k_major(ty, stages, 128, bk)}>",
        b=f"!tile.buffer<{stages}x{cfg.b_rows}x{bk}x{ty}, shared, {ring_k_major(ty, stages, cfg.b_rows, bk)}>",
        c=(f"!tile.buffer<128x{SLICE}x{out_ty}, shared, "
           f"{layout((128, SLICE // inner, inner), (inner, 128 * inner, 1), 'swizzle<3,3,3>')}>"),
        # Two accumulators, ACC_COLUMNS apart: index 0 or 1 (a runtime index
        # moves the tensor-memory address by whole columns).
        acc=(f"!tile.buffer<2x128x{bn}xf32, tmem, "
             f"{layout((2, 128, bn), (f'{ACC_COLUMNS}@TCol', '1@TLane', '1@TCol'))}>"),
        # Thread t of the epilogue warpgroup holds row t (tensor-memory lane
        # t: warp w reads lanes 32(w % 4)..), one register per column.
        frag=(f"!tile.buffer<128x{SLICE}xf32, local, "
              f"{layout((128, SLICE), ('1@tid_in_wg', 1))}>"),
        g_in=f"!tile.buffer<?x?x{ty}, global>",
        g_out=f"!tile.buffer<?x?x{out_ty}, global>",
        m_in=f"memref<?x?x{ty}, 1>",
        m_out=f"memref<?x?x{out_ty}, 1>",
    )
    if cfg.form == "scaled":
        # A 128-row block's scales for 4 K blocks: one 512-byte atom of 32
        # rows x 16 bytes, byte c of row r holding row 32 (c / 4) + r, K
        # block c % 4 (the order tcgen05.mma reads: docs/Tcgen05Mma.md).
        t["sf_smem"] = f"!tile.buffer<{stages}x32x16x{SF_TYPE}, shared>"
        # The same bytes copied into lane r of every 32-lane partition
        # (tcgen05.cp 32x128b.warpx4), and as the MMA reads them: scale
        # (row, kb) in lane row % 32, byte 4 (row / 32) + kb.
        t["sf_cp"] = (f"!tile.buffer<32x16x{SF_TYPE}, tmem, "
                      "#tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>")
        t["sf_mma"] = (f"!tile.buffer<128x4x{SF_TYPE}, tmem, "
                       "#tile.layout<S[(4,32,4):(4@TCol,1@TLane,1@TCol)] + R[4:32@TLane]>>")
        # [K tile][128-row block][32][16]: the atoms of every (block, K tile).
        t["g_sf"] = f"!tile.buffer<?x?x32x16x{SF_TYPE}, global>"
        t["m_sf"] = f"memref<?x?x32x16x{SF_TYPE}, 1>"
    if cfg.form == "addc":
        # Two 128 x 32 f32 slices of C0, one 128-byte swizzled row each.
        t["cin_smem"] = (f"!tile.buffer<2x128x{CMP_SLICE}xf32, shared, "
                        f"{layout((2, 128, CMP_SLICE), (128 * CMP_SLICE, CMP_SLICE, 1), 'swizzle<3,2,3>')}>")
        t["g_cin"] = "!tile.buffer<?x?xf32, global>"
        t["m_cin"] = "memref<?x?xf32, 1>"
    return t


def signature(cfg, t):
    args = [f"%a: {t['m_in']}", f"%b: {t['m_in']}"]
    if cfg.form == "scaled":
        args += [f"%sfa: {t['m_sf']}", f"%sfb: {t['m_sf']}"]
    if cfg.form == "addc":
        args.append(f"%cin: {t['m_cin']}")
    args.append(f"%c: {t['m_out']}")
    return ", ".join(args)


def stage_bytes(cfg):
    """Bytes landing on one full barrier per stage (a pair: both CTAs')."""
    rows = cfg.bm + cfg.bn
    extra = 2 * 512 if cfg.form == "scaled" else 0
    return rows * cfg.bk * BYTES[cfg.ty] + extra


def cluster_setup(cfg):
    """Pair form: this CTA's place in the cluster and the masks of its
    multicasts."""
    if not cfg.pair:
        return """    %first_tile = gpu.block_id x
    %ctas = gpu.grid_dim x
    %mma_cta = arith.constant true
"""
    return f"""    %c_cluster = arith.constant {cfg.cluster} : index
    %rank_i32 = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    // CTA 2p + r: row half r of pair p.
    %half = arith.andi %rank, %c1 : index
    %pair = arith.divui %rank, %c2 : index
    %half_i32 = arith.index_cast %half : index to i32
    // The pair's leader: its barriers count the pair's loads, its thread
    // issues the MMAs.
    %leader_cta = arith.subi %rank_i32, %half_i32 : i32
    %mma_cta = arith.cmpi eq, %half, %c0 : index
    %pair_shift = arith.muli %pair, %c2 : index
    %pair_shift_i16 = arith.index_cast %pair_shift : index to i16
    %pair_bits = arith.constant 3 : i16
    // Accumulators go to both CTAs of the pair, stage releases to all.
    %pair_mask = arith.shli %pair_bits, %pair_shift_i16 : i16
    %all_mask = arith.constant {(1 << cfg.cluster) - 1} : i16
    %half_i16 = arith.index_cast %half : index to i16
    %a_bits = arith.constant {sum(1 << (2 * q) for q in range(cfg.pairs))} : i16
    // A's rows go to row half r of every pair.
    %a_mask = arith.shli %a_bits, %half_i16 : i16
    %block = gpu.block_id x
    %grid = gpu.grid_dim x
    %first_tile = arith.divui %block, %c_cluster : index
    %ctas = arith.divui %grid, %c_cluster : index
"""


def origin(cfg):
    """Names of this CTA's first rows of A and B and of its output corner
    (%m0, %n0 of the tile outside the pair form)."""
    if not cfg.pair:
        return dict(a_row="%m0", b_row="%n0", m_out="%m0", n_out="%n0")
    return dict(a_row="%m_out", b_row="%b_row", m_out="%m_out",
                n_out="%n_out")


def tile_origin(cfg, pad):
    """Pair form: this CTA's rows and output corner from the tile's (%m0,
    %n0): row half r of pair p."""
    if not cfg.pair:
        return ""
    return indent("""%half_rows = arith.muli %half, %c128 : index
%m_out = arith.addi %m0, %half_rows : index
%pair_cols = arith.muli %pair, %c_bn_pair : index
%n_out = arith.addi %n0, %pair_cols : index
%b_half = arith.muli %half, %c_b_rows : index
%b_row = arith.addi %n_out, %b_half : index""", pad) + "\n"


def init_barriers(cfg):
    empty_count = "%c_pairs" if cfg.pair else "%c1"
    acc_empty = "%c2" if cfg.pair else "%epilogue_threads"
    cin_init = cin_create = ""
    if cfg.form == "addc":
        cin_create = """    %cin_full = nvgpu.mbarrier.create -> !acc_bars
    %cin_empty = nvgpu.mbarrier.create -> !acc_bars
"""
        cin_init = """
        nvgpu.mbarrier.init %cin_full[%s], %c1 : !acc_bars
        nvgpu.mbarrier.init %cin_empty[%s], %c1 : !acc_bars"""
    return f"""    %full = nvgpu.mbarrier.create -> !ring
    %empty = nvgpu.mbarrier.create -> !ring
    %acc_full = nvgpu.mbarrier.create -> !acc_bars
    %acc_empty = nvgpu.mbarrier.create -> !acc_bars
{cin_create}    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {{
      scf.for %s = %c0 to %c_stages step %c1 {{
        nvgpu.mbarrier.init %full[%s], %c1 : !ring
        nvgpu.mbarrier.init %empty[%s], {empty_count} : !ring
      }}
      scf.for %s = %c0 to %c2 step %c1 {{
        nvgpu.mbarrier.init %acc_full[%s], %c1 : !acc_bars
        nvgpu.mbarrier.init %acc_empty[%s], {acc_empty} : !acc_bars{cin_init}
      }}
      tile.fence mbarrier_init
    }}
"""


def producer_stage_copies(cfg, t):
    """The TMA loads of one stage, completing on %full[%s] (the pair's
    leader's for the pair form)."""
    bk, o = cfg.bk, origin(cfg)
    mbar = "mbar(%full[%s] : !ring)"
    # The pair's loads complete on its leader's barrier.
    leader, attrs = ((" mbar_cta(%leader_cta)", " {cta_group = 2 : i32}")
                     if cfg.pair else ("", ""))
    lines = []
    if cfg.pair and cfg.pairs > 1:
        # Each pair loads its share of the CTA's 128 rows of A and
        # multicasts it to the same row half of every pair.
        share = 128 // cfg.pairs
        branches = []
        for q in range(cfg.pairs):
            branches.append(f"""%a_share{q} = arith.constant {q * share} : index
%a_from{q} = arith.addi {o['a_row']}, %a_share{q} : index
tile.copy_async %ga[%a_from{q}, %k0] to %sa[%s, {q * share}, 0] sizes [{share}, {bk}] exec thread
    {mbar} cta_mask(%a_mask){leader}{attrs} : {t['g_in']} to {t['a']}""")
        text = "%in_pair0 = arith.cmpi eq, %pair, %c0 : index\n"
        text += "scf.if %in_pair0 {\n" + indent(branches[0], 2) + "\n} else {\n"
        text += indent(branches[1], 2) + "\n}"
        lines.append(text)
    else:
        lines.append(f"""tile.copy_async %ga[{o['a_row']}, %k0] to %sa[%s, 0, 0] sizes [128, {bk}] exec thread
    {mbar}{leader}{attrs} : {t['g_in']} to {t['a']}""")
    lines.append(f"""tile.copy_async %gb[{o['b_row']}, %k0] to %sb[%s, 0, 0] sizes [{cfg.b_rows}, {bk}] exec thread
    {mbar}{leader}{attrs} : {t['g_in']} to {t['b']}""")
    if cfg.form == "scaled":
        lines.append(f"""%m_block = arith.divui %m0, %c128 : index
%n_block = arith.divui %n0, %c128 : index
tile.copy_async %gsfa[%kt, %m_block, 0, 0] to %ssfa[%s, 0, 0] sizes [32, 16] exec thread
    {mbar} : {t['g_sf']} to {t['sf_smem']}
tile.copy_async %gsfb[%kt, %n_block, 0, 0] to %ssfb[%s, 0, 0] sizes [32, 16] exec thread
    {mbar} : {t['g_sf']} to {t['sf_smem']}""")
    return "\n".join(lines)


def producer_c0(cfg, t):
    """addc: the tile's C0 in 128 x 32 slices through the 2-slot ring,
    ahead of its K loop (counter %cj0 -> %cj1)."""
    if cfg.form != "addc":
        return ""
    o, parts = origin(cfg), []
    for j in range(cfg.bn // CMP_SLICE):
        prev = "%cj0" if j == 0 else f"%cj_{j}"
        parts.append(f"""{ring_slot(prev, "%c2", f"_c{j}", free=True)}
nvgpu.mbarrier.try_wait.parity %cin_empty[%s_c{j}], %parity_c{j}, %ticks : !acc_bars
nvgpu.mbarrier.arrive.expect_tx %cin_full[%s_c{j}], %cin_slice_bytes : !acc_bars
%cin_col{j} = arith.constant {j * CMP_SLICE} : index
%cin_n{j} = arith.addi {o['n_out']}, %cin_col{j} : index
tile.copy_async %gcin[{o['m_out']}, %cin_n{j}] to %scin[%s_c{j}, 0, 0] sizes [128, {CMP_SLICE}] exec thread
    mbar(%cin_full[%s_c{j}] : !acc_bars) : {t['g_cin']} to {t['cin_smem']}
%cj_{j + 1} = arith.addi {prev}, %c1 : index""")
    return indent("\n".join(parts), 8) + "\n"


def producer(cfg, t):
    arm = "nvgpu.mbarrier.arrive.expect_tx %full[%s], %stage_bytes : !ring"
    if cfg.pair:
        # Only the leader's barrier counts the pair's bytes.
        arm = f"scf.if %mma_cta {{\n  {arm}\n}}"
    c0_iter = ", %cj0 = %c0" if cfg.form == "addc" else ""
    c0_type = ", index" if cfg.form == "addc" else ""
    c0_yield = f", %cj_{cfg.bn // CMP_SLICE}" if cfg.form == "addc" else ""
    results = "%produced:2" if cfg.form == "addc" else "%produced"
    produced = "%produced#0" if cfg.form == "addc" else "%produced"
    drain = ""
    if cfg.pair:
        # Every release of this CTA's stages (commits from other CTAs)
        # has landed before the CTA may leave.
        drain = f"""
      scf.for %q = %c0 to %c_stages step %c1 {{
        %tail = arith.addi {produced}, %q : index
{indent(ring_slot("%tail", "%c_stages", "_t", free=True), 8)}
        nvgpu.mbarrier.try_wait.parity %empty[%s_t], %parity_t, %ticks : !ring
      }}"""
    return f"""    scf.if %producer {{
      {results} = scf.for %t = %first_tile to %tiles step %ctas iter_args(%it0 = %c0{c0_iter}) -> (index{c0_type}) {{
{raster("        ")}
{tile_origin(cfg, 8)}{producer_c0(cfg, t)}        %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {{
{indent(ring_slot("%i", "%c_stages", "", free=True), 10)}
          nvgpu.mbarrier.try_wait.parity %empty[%s], %parity, %ticks : !ring
{indent(arm, 10)}
          %k0 = arith.muli %kt, %c_bk : index
{indent(producer_stage_copies(cfg, t), 10)}
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }}
        scf.yield %it1{c0_yield} : index{c0_type}
      }}{drain}
    }}
"""


def mma_c0(cfg, t):
    """addc: copy the tile's C0 slices into accumulator %buf (tcgen05.cp,
    issued by this thread, so ordered before its MMAs), each slice's
    staging slot released by a commit (counter %cj0 -> %cj_N)."""
    parts = []
    for j in range(cfg.bn // CMP_SLICE):
        prev = "%cj0" if j == 0 else f"%cj_{j}"
        parts.append(f"""{ring_slot(prev, "%c2", f"_c{j}")}
nvgpu.mbarrier.try_wait.parity %cin_full[%s_c{j}], %parity_c{j}, %ticks : !acc_bars
tile.copy_async %scin[%s_c{j}, 0, 0] to %acc[%buf, 0, {j * CMP_SLICE}] sizes [128, {CMP_SLICE}] exec thread
    : {t['cin_smem']} to {t['acc']}
tile.mma_commit mbar(%cin_empty[%s_c{j}] : !acc_bars) exec thread
%cj_{j + 1} = arith.addi {prev}, %c1 : index""")
    return "\n".join(parts)


def mma_stage(cfg, t):
    """The MMAs of one stage (and what they read first)."""
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    attrs = "{cta_group = 2 : i32, transpose_b}" if cfg.pair else "{transpose_b}"
    accumulate = "%true" if cfg.form == "addc" else "%accumulate"
    pre = ""
    scales = ""
    if cfg.form == "scaled":
        # Stage s's scales in columns SF_COLUMN + SF_SLOT s (A) and 4 more
        # (B); the producer refills stage s only after the commit below,
        # so those columns are free again when this thread reaches it.
        pre = f"""%sf_slot = arith.muli %s, %c_sf_slot : index
%sf_col = arith.addi %sf_slot, %c_sf_column : index
%sf_col_i32 = arith.index_cast %sf_col : index to i32
%sfa_addr = arith.addi %taddr, %sf_col_i32 : i32
%sfb_addr = arith.addi %sfa_addr, %i32_4 : i32
%tsfa_cp = tile.tmem_buffer %sfa_addr : {t['sf_cp']}
%tsfb_cp = tile.tmem_buffer %sfb_addr : {t['sf_cp']}
%tsfa = tile.tmem_buffer %sfa_addr : {t['sf_mma']}
%tsfb = tile.tmem_buffer %sfb_addr : {t['sf_mma']}
tile.copy_async %ssfa[%s, 0, 0] to %tsfa_cp[0, 0] sizes [32, 16] exec thread
    {{cp_multicast = #tile.cp_multicast<warpx4>}} : {t['sf_smem']} to {t['sf_cp']}
tile.copy_async %ssfb[%s, 0, 0] to %tsfb_cp[0, 0] sizes [32, 16] exec thread
    {{cp_multicast = #tile.cp_multicast<warpx4>}} : {t['sf_smem']} to {t['sf_cp']}
"""
        scales = f"\n    scales(%tsfa, %tsfb : {t['sf_mma']}, {t['sf_mma']})"
    release = ("tile.mma_commit mbar(%empty[%s] : !ring) cta_mask(%all_mask) exec thread {cta_group = 2 : i32}"
               if cfg.pair else "tile.mma_commit mbar(%empty[%s] : !ring) exec thread")
    return f"""{pre}tile.gemm_async %acc[%buf, 0, 0], %sa[%s, 0, 0], %sb[%s, 0, 0] sizes [{bm}, {bn}, {bk}]
    exec thread accumulate({accumulate}){scales} {attrs} : {t['acc']}, {t['a']}, {t['b']}
// The stage is free once these MMAs have read it.
{release}"""


def mma(cfg, t):
    addc = cfg.form == "addc"
    iters = "%it0 = %c0, %j = %c0" + (", %cj0 = %c0" if addc else "")
    rtypes = "index, index" + (", index" if addc else "")
    results = "%last:3" if addc else "%last:2"
    yields = "%it1, %j1" + (f", %cj_{cfg.bn // CMP_SLICE}" if addc else "")
    finished = ("tile.mma_commit mbar(%acc_full[%buf] : !acc_bars) cta_mask(%pair_mask) exec thread {cta_group = 2 : i32}"
                if cfg.pair else
                "tile.mma_commit mbar(%acc_full[%buf] : !acc_bars) exec thread")
    c0 = (indent(mma_c0(cfg, t), 8) + "\n") if addc else ""
    return f"""    scf.if %mma {{
      {results} = scf.for %t = %first_tile to %tiles step %ctas iter_args({iters}) -> ({rtypes}) {{
        // Accumulator j % 2, free once the epilogue has read its previous
        // tile (the first two tiles find them free).
{indent(ring_slot("%j", "%c2", "_acc", free=True, slot="%buf"), 8)}
        nvgpu.mbarrier.try_wait.parity %acc_empty[%buf], %parity_acc, %ticks : !acc_bars
        tile.fence after_thread_sync
{c0}        %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {{
{indent(ring_slot("%i", "%c_stages", ""), 10)}
          nvgpu.mbarrier.try_wait.parity %full[%s], %parity, %ticks : !ring
          tile.fence after_thread_sync
          %accumulate = arith.cmpi ne, %kt, %c0 : index
{indent(mma_stage(cfg, t), 10)}
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }}
        {finished}
        %j1 = arith.addi %j, %c1 : index
        scf.yield {yields} : {rtypes}
      }}
    }}
"""


def epilogue(cfg, t):
    bm_local, slices, o = 128, cfg.bn // SLICE, origin(cfg)
    if cfg.pair:
        # One arrival per CTA on the leader's barrier, after every thread
        # of the warpgroup has its last slice.
        release = """
          // Every slice is in registers: the MMA warp may reuse the
          // accumulator (one arrival per CTA of the pair, on the leader's
          // barrier).
          tile.fence before_thread_sync
          nvvm.barrier id = %i1_1 number_of_threads = %i32_128
          scf.if %epi_leader {
            tile.mbarrier_arrive_remote %acc_empty[%buf] : !acc_bars, cta %leader_cta
          }"""
    else:
        release = """
          // Every slice is in registers: the MMA warp may reuse the
          // accumulator.
          tile.fence before_thread_sync
          nvgpu.mbarrier.arrive %acc_empty[%buf] : !acc_bars -> !nvgpu.mbarrier.token"""
    parts = []
    for j in range(slices):
        buf = j % 2
        parts.append(f"""
          %col{j} = arith.constant {j * SLICE} : index
          %frag{j} = tile.alloc_local : {t['frag']}
          tile.load %acc[%buf, 0, {j * SLICE}] to %frag{j} : {t['acc']} to {t['frag']}{release if j == slices - 1 else ""}
          // The TMA store that last read staging tile {buf} (two groups
          // ago) must be done. Bulk groups are per thread: the other
          // threads have none, and their wait returns at once.
          tile.wait_group bulk, 1 {{read}}
          nvvm.barrier id = %i1_1 number_of_threads = %i32_128
          tile.store %frag{j} to %sc{buf}[0, 0] : {t['frag']} to {t['c']}
          tile.fence proxy_async
          nvvm.barrier id = %i1_1 number_of_threads = %i32_128
          scf.if %epi_leader {{
            %n_slice{j} = arith.addi {o['n_out']}, %col{j} : index
            tile.copy_async %sc{buf}[0, 0] to %gc[{o['m_out']}, %n_slice{j}] sizes [{bm_local}, {SLICE}] exec thread
                : {t['c']} to {t['g_out']}
          }}
          tile.commit_group bulk""")
    return f"""    scf.if %epilogue {{
      %epi_tid = arith.subi %tid, %c128 : index
      %epi_leader = arith.cmpi eq, %epi_tid, %c0 : index
      %done = scf.for %t = %first_tile to %tiles step %ctas iter_args(%j = %c0) -> (index) {{
{raster("        ")}
{tile_origin(cfg, 8)}{indent(ring_slot("%j", "%c2", "_acc", slot="%buf"), 8)}
        nvgpu.mbarrier.try_wait.parity %acc_full[%buf], %parity_acc, %ticks : !acc_bars
        tile.fence after_thread_sync
{"".join(parts)}
        %j1 = arith.addi %j, %c1 : index
        scf.yield %j1 : index
      }}
      scf.if %epi_leader {{
        tile.wait_group bulk, 0
      }}
    }}
"""


def gemm_sm100_kernel(cfg):
    t = types(cfg)
    group = " {cta_group = 2 : i32}" if cfg.pair else ""
    cluster_attr = (f",\n                  known_cluster_size = array<i32: {cfg.cluster}, 1, 1>"
                    if cfg.pair else "")
    sync_cluster = ("""    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}
""" if cfg.pair else "")
    extra_allocs = ""
    extra_views = ""
    if cfg.form == "scaled":
        extra_allocs = f"""    %ssfa = tile.alloc_shared {{alignment = 128 : i64}} : {t['sf_smem']}
    %ssfb = tile.alloc_shared {{alignment = 128 : i64}} : {t['sf_smem']}
"""
        extra_views = f"""    %gsfa = tile.from_memref %sfa : {t['m_sf']} -> {t['g_sf']}
    %gsfb = tile.from_memref %sfb : {t['m_sf']} -> {t['g_sf']}
"""
    if cfg.form == "addc":
        extra_allocs = f"""    %scin = tile.alloc_shared {{alignment = 1024 : i64}} : {t['cin_smem']}
"""
        extra_views = f"""    %gcin = tile.from_memref %cin : {t['m_cin']} -> {t['g_cin']}
"""
    text = f"""
  // {cfg.bm}x{cfg.bn}x{cfg.bk} tiles, {cfg.stages}-stage ring, {SHORT[cfg.ty]} -> {cfg.out_ty}, tcgen05, {cfg.form}
  gpu.func @{cfg.name}({signature(cfg, t)}) kernel
      attributes {{known_block_size = array<i32: 256, 1, 1>{cluster_attr}}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c_stages = arith.constant {cfg.stages} : index
    %c_bm = arith.constant {cfg.bm} : index
    %c_bn = arith.constant {cfg.bn * cfg.pairs} : index
    %c_bn_pair = arith.constant {cfg.bn} : index
    %c_b_rows = arith.constant {cfg.b_rows} : index
    %c_bk = arith.constant {cfg.bk} : index
    %c_pairs = arith.constant {cfg.pairs} : index
    %c_group = arith.constant {GROUP_M} : index
    %c_sf_slot = arith.constant {SF_SLOT} : index
    %c_sf_column = arith.constant {SF_COLUMN} : index
    %stage_bytes = arith.constant {stage_bytes(cfg)} : index
    %cin_slice_bytes = arith.constant {128 * CMP_SLICE * 4} : index
    %epilogue_threads = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %true = arith.constant true
    %i1_1 = arith.constant 1 : i32
    %i32_4 = arith.constant 4 : i32
    %i32_128 = arith.constant 128 : i32
{problem(t['m_in'], t['m_out'], t['g_in'], t['g_out'], 0)}{extra_views}    %sa = tile.alloc_shared {{alignment = 1024 : i64}} : {t['a']}
    %sb = tile.alloc_shared {{alignment = 1024 : i64}} : {t['b']}
    %sc0 = tile.alloc_shared {{alignment = 1024 : i64}} : {t['c']}
    %sc1 = tile.alloc_shared {{alignment = 1024 : i64}} : {t['c']}
{extra_allocs}{init_barriers(cfg)}    // Warp 0 allocates both accumulators; the op syncs the CTA, so the
    // barriers are initialised for everyone.
    %taddr = tile.tmem_alloc 512 columns{group}
    %acc = tile.tmem_buffer %taddr : {t['acc']}
{cluster_setup(cfg)}{sync_cluster}    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %in_warp0 = arith.cmpi eq, %warp, %c0 : index
    %in_warp1 = arith.cmpi eq, %warp, %c1 : index
    %producer = arith.andi %in_warp0, %lane0 : i1
    %mma_warp = arith.andi %in_warp1, %lane0 : i1
    %mma = arith.andi %mma_warp, %mma_cta : i1
    %epilogue = arith.cmpi uge, %warp, %c4 : index
{producer(cfg, t)}{mma(cfg, t)}{epilogue(cfg, t)}"""
    if cfg.pair:
        text += """    // Nothing of another CTA lands here any more (the producer drained
    // its releases, every accumulator was read): leave together.
    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}
"""
    else:
        text += """    // Every MMA was waited for by the epilogue; release the columns.
    gpu.barrier
"""
    text += f"""    tile.tmem_dealloc %taddr, 512 columns{group}
    gpu.return
  }}
"""
    case = dict(kernel=cfg.name, dtype=cfg.ty, out=cfg.out_ty, b_mn=False,
                form=cfg.form, bm=cfg.bm, bn=cfg.bn, bk=cfg.bk,
                stages=cfg.stages, cluster=cfg.cluster,
                tile_m=cfg.bm, tile_n=cfg.bn * cfg.pairs, block=256,
                chip="sm_100a")
    return text, case


CONFIGS = [
    Config("bf16", "bf16", 256, 64, 4),
    Config("f16", "f16", 256, 64, 4),
    Config("f8E4M3FN", "bf16", 256, 128, 4),
    Config("bf16", "bf16", 128, 64, 6),
    # Block-scaled e4m3: 128 x 128 tiles, so the scale columns fit next
    # to the two accumulators.
    Config("f8E4M3FN", "bf16", 128, 128, 4, form="scaled"),
    # D = A B^T + C0.
    Config("bf16", "bf16", 128, 64, 4, form="addc"),
    # cta_group::2: one pair, and two pairs sharing A by multicast.
    Config("bf16", "bf16", 256, 64, 4, form="pair"),
    Config("bf16", "bf16", 256, 64, 4, form="pair", pairs=2),
]


def parse_arguments():
    """OUT.mlir [OUT.json]: `--help` prints this script's description."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_mlir", help="the gpu.module to write")
    parser.add_argument("out_json", nargs="?",
                        help="the case list (JSON) to write")
    return parser.parse_args()


def main():
    args = parse_arguments()
    kernels, cases = [], []
    for config in CONFIGS:
        text, case = gemm_sm100_kernel(config)
        kernels.append(text)
        cases.append(case)
    header = f"""// Generated by bench/Kernels/gen_gemm_sm100_kernels.py: persistent,
// warp-specialized tcgen05 GEMMs in tile IR. Do not edit.
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {max(c.stages for c in CONFIGS)}>
!acc_bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
gpu.module @gemm_sm100 [#nvvm.target<chip = "sm_100a">] {{
"""
    with open(args.out_mlir, "w") as f:
        f.write(header + "".join(kernels) + "}\n")
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump({"kernels": cases}, f, indent=1)


if __name__ == "__main__":
    main()

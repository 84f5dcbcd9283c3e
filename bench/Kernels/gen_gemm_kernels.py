#!/usr/bin/env python3
"""Writes the Hopper GEMM kernels (tile IR, one sm_90a gpu.module):

  gen_gemm_kernels.py OUT.mlir [OUT.json]

gemm_<type>_<tn|nn>_<BM>x<BN>x<BK>_s<stages>: C = A * B^T (tn: A is M x K,
B is N x K, both K-major) or C = A * B (nn: B is K x N, MN-major), f32
accumulation, C (M x N) stored in the output type. M, N and K are runtime
sizes read off the memrefs; edges are handled by TMA (loads fill zeros past
the tensor, stores clip).

The kernel is persistent and warp-specialized: grid = one CTA per SM, each
CTA walks tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... in grouped
order (GROUP_M tile rows at a time, for L2 reuse). Warpgroup 0 is the
producer (setmaxnreg down; one thread issues the TMA loads of a
`stages`-deep ring with full/empty mbarriers); warpgroups 1 and 2 are the
consumers (setmaxnreg up): each owns BM/2 rows of the tile, issues one
gemm_async (wgmma) per stage with one wgmma group left in flight, releases
the stage the retired group read, and after the K loop stores its
accumulator (converted to the output type) into its half of a shared C
tile, which one thread writes out with a TMA store while the producer is
already loading the next tile.

The *_multicast_b kernels run in clusters of 2 on tile pairs adjacent
along M: each CTA loads its A and multicasts half of B's rows into both
CTAs' stage, and each consumer warpgroup releases each stage on both CTAs'
empty barriers, one arrival per CTA at CTA scope (docs/Performance.md (d):
a cluster-scope release put a GPU-scope memory barrier into every K step
and made them ~1.8x slower).
"""
import json
import argparse
import sys

BYTES = {"f16": 2, "bf16": 2, "f8E4M3FN": 1}
SHORT = {"f16": "f16", "bf16": "bf16", "f8E4M3FN": "e4m3"}
GROUP_M = 8
PRODUCER_REGS = 40
CONSUMER_REGS = 232


def layout(shape, strides, swizzle=None):
    modes = (f"S[({','.join(map(str, shape))}):"
             f"({','.join(map(str, strides))})]")
    return f"#tile.layout<{modes}{', ' + swizzle if swizzle else ''}>"


def output_tile(out_ty, rows, cols, lead=0):
    """A rows x cols output staging tile (`lead` of them, if given) in
    128-byte swizzled atoms: an accumulator fragment's 8 rows per store land
    in 8 different 16-byte chunks (no bank conflicts), and TMA unswizzles
    them on the way out."""
    inner = 128 // BYTES[out_ty]
    swizzle = {2: "swizzle<3,3,3>", 1: "swizzle<3,4,3>"}[BYTES[out_ty]]
    shape, strides = (rows, cols // inner, inner), (inner, rows * inner, 1)
    dims = f"{rows}x{cols}"
    if lead:
        shape, strides = (lead,) + shape, (rows * cols,) + strides
        dims = f"{lead}x{dims}"
    return (f"!tile.buffer<{dims}x{out_ty}, shared, "
            f"{layout(shape, strides, swizzle)}>")


def ring_k_major(ty, stages, rows, cols):
    """`stages` tiles of rows x cols, each row one swizzle span (32, 64 or
    128 bytes) swizzled in 16-byte chunks: the K-major operand layout."""
    span = cols * BYTES[ty]
    bits = {32: 1, 64: 2, 128: 3}[span]
    # 16-byte chunks are 8 two-byte elements (base 3) or 16 one-byte
    # elements (base 4).
    base = {2: 3, 1: 4}[BYTES[ty]]
    return layout((stages, rows, cols), (rows * cols, cols, 1),
                  f"swizzle<{bits},{base},3>")


def ring_mn_128b(ty, stages, rows, cols):
    """`stages` tiles of rows (K) x cols (N), N contiguous in 128-byte
    swizzled atoms of 64 elements: the MN-major operand layout."""
    inner = 128 // BYTES[ty]
    atoms = cols // inner
    swz = {2: "swizzle<3,3,3>", 1: "swizzle<3,4,3>"}[BYTES[ty]]
    return layout((stages, rows, atoms, inner),
                  (rows * cols, inner, rows * inner, 1), swz)


def accumulator(n, m_tiles=1):
    # The wgmma m64nN f32 fragment: thread 32w + 4q + r holds row
    # 16w + 8h + q, column 8j + 2r + e in register 4j + 2h + e; `m_tiles`
    # 64-row tiles of one warpgroup follow each other in the registers.
    shape = (4, 2, 8, n // 8, 4, 2)
    strides = ("32@tid_in_wg", 2, "4@tid_in_wg", 4, "1@tid_in_wg", 1)
    if m_tiles > 1:
        shape, strides = (m_tiles,) + shape, (n // 2,) + strides
    return layout(shape, strides)


def gemm_kernel(ty, out_ty, b_mn, bm, bn, bk, stages, multicast_b=False,
                epilogue=None, copy="tma"):
    """`multicast_b`: a cluster of 2 CTAs on two tiles adjacent along M
    (the same B tile): each CTA loads half of B's rows and multicasts them
    to both (B is the larger operand per stage: BN >= BM rows of BK); a
    stage is refilled once both CTAs' consumers released it, by one thread
    per consumer warpgroup and CTA (without multicast: one per warp). A wgmma is
    a warpgroup operation, and the release assumes that once one warp's
    `wait_group` sees it retired, its shared operands have been read for
    the whole warpgroup. CUTLASS's sm90 pipelines release the same way; the
    PTX ISA does not state it."""
    assert not (multicast_b and b_mn), "B multicast: K-major B only"
    assert not (multicast_b and epilogue), "fused epilogues: no B multicast"
    assert copy in ("tma", "ldgsts")
    # A last row tile past M is moved back inside A (raster) but where D
    # may be the source C (alpha_beta_c: rows written twice there could be
    # read as C after the other tile rewrote them) and in 128 x 256 tiles:
    # there (128 accumulator registers of 168) the same code ran at
    # 0.80-0.89 of the speed on an H200 at every M, a tile past M or not
    # (ptxas's code for the K loop; not profiled), where the narrower
    # tiles gained up to 1.7x with a last tile past M and kept their speed
    # without one.
    fit_m = epilogue != SOURCE_EPILOGUE and bn < 256
    assert not (copy == "ldgsts" and (multicast_b or epilogue)), \
        "ldgsts versions: plain kernels only"
    ldgsts = copy == "ldgsts"
    assert epilogue in (None,) + tuple(EPILOGUES) + SCALED_EPILOGUES + (
        SOURCE_EPILOGUE,)
    name = (f"gemm_{SHORT[ty]}_{'nn' if b_mn else 'tn'}_"
            f"{bm}x{bn}x{bk}_s{stages}{'_multicast_b' if multicast_b else ''}"
            f"{'_' + epilogue if epilogue else ''}")
    # The ldgsts version: the same kernel for tensors TMA cannot read.
    primary = name
    if ldgsts:
        name += "_ldgsts"
    cluster = 2 if multicast_b else 1
    wm = bm // 2  # rows per consumer warpgroup
    eb = BYTES[ty]
    a_t = f"!tile.buffer<{2 * stages}x{wm}x{bk}x{ty}, shared, {ring_k_major(ty, 2 * stages, wm, bk)}>"
    if b_mn:
        b_t = (f"!tile.buffer<{stages}x{bk}x{bn}x{ty}, shared, "
               f"{ring_mn_128b(ty, stages, bk, bn)}>")
    else:
        b_t = f"!tile.buffer<{stages}x{bn}x{bk}x{ty}, shared, {ring_k_major(ty, stages, bn, bk)}>"
    c_t = output_tile(out_ty, wm, bn, lead=2)
    acc_t = f"!tile.buffer<{wm}x{bn}xf32, local, {accumulator(bn)}>"
    g_in = f"!tile.buffer<?x?x{ty}, global>"
    g_out = f"!tile.buffer<?x?x{out_ty}, global>"
    m_in = f"memref<?x?x{ty}, 1>"
    m_out = f"memref<?x?x{out_ty}, 1>"
    stage_bytes = (bm * bk + bn * bk) * eb
    b_copy = (f"%gb[%k0, %n0] to %sb[%s, 0, 0] sizes [{bk}, {bn}]" if b_mn
              else f"%gb[%n0, %k0] to %sb[%s, 0, 0] sizes [{bn}, {bk}]")
    # TMA: one thread issues each tensor copy. ldgsts: the producer
    # warpgroup's 128 threads share each copy (cp.async), in the same
    # expect-tx protocol.
    issue = "exec warpgroup" if ldgsts else "exec thread"
    variant = ' {dispatch = "ldgsts"}' if ldgsts else ""
    if multicast_b:
        # This CTA's half of B's rows, into the same rows of both CTAs'
        # stage (the full barrier of each counts both halves).
        # (The box's shared address must be static: one copy per rank.)
        half_copy = ("tile.copy_async %gb[%n_half, %k0] to %sb[%s, {row}, 0] "
                     f"sizes [{bn // 2}, {bk}] exec thread\n"
                     "                    mbar(%full[%s] : !ring) cta_mask(%both)"
                     " : {g_in} to {b_t}")
        b_copy = ("scf.if %first_rank {{\n              " +
                  half_copy.format(row=0, g_in="{g_in}", b_t="{b_t}") +
                  "\n            }} else {{\n              " +
                  half_copy.format(row=bn // 2, g_in="{g_in}", b_t="{b_t}") +
                  "\n            }}")
    else:
        b_copy = ("tile.copy_async " + b_copy +
                  f" {issue}\n                mbar(%full[%s] : !ring)"
                  f"{variant.replace('{', '{{').replace('}', '}}')}"
                  " : {g_in} to {b_t}")
    b_copy = "            " + b_copy.format(g_in=g_in, b_t=b_t) + "\n"
    # With B multicast the peer CTA's stage waits for this CTA's half of B
    # too: it is issued first, before this CTA's own A.
    b_first, b_last = (b_copy, "") if multicast_b else ("", b_copy)
    cluster_attr = (", known_cluster_size = array<i32: 2, 1, 1>"
                    if multicast_b else "")
    if ldgsts:
        cluster_attr += f', tile.version_of = "{primary}"'
    # Arrivals per phase of an empty barrier: one per consumer warp, or with
    # B multicast one per consumer warpgroup, of every CTA reading the stage.
    releasers = (2 if multicast_b else 8) * cluster
    gemm_attr = "" if b_mn else " {transpose_b}"
    bias_param, bias_alloc, bias_prologue, bias_epilogue = "", "", "", ""
    store_src, store_src_t, extra_init, after_first_step = "%acc", acc_t, "", ""
    if epilogue == SOURCE_EPILOGUE:
        (bias_param, bias_alloc, extra_init, after_first_step,
         bias_epilogue) = source_epilogue(out_ty, wm, bn, acc_t, c_t, g_out,
                                          m_out)
    elif epilogue in EPILOGUES:
        bias_param, bias_alloc, bias_prologue, bias_epilogue = fused_epilogue(
            epilogue, out_ty, bn, acc_t)
    elif epilogue:
        (bias_param, bias_alloc, bias_prologue, bias_epilogue, store_src,
         store_src_t) = scaled_epilogue(epilogue, out_ty, wm, bn, acc_t)
    n_dim = 1 if b_mn else 0
    text = f"""
  // {bm}x{bn}x{bk} tiles, {stages}-stage ring, {SHORT[ty]} -> {out_ty}
  gpu.func @{name}(%a: {m_in}, %b: {m_in}, {bias_param}%c: {m_out}) kernel
      attributes {{known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32{cluster_attr}}} {{
{ring_constants(stages, bm, bn, bk, stage_bytes, releasers)}    %c_wm1 = arith.constant {wm + 1} : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %i1_1 = arith.constant 1 : i32
    %i32_128 = arith.constant 128 : i32
{problem(m_in, m_out, g_in, g_out, n_dim, fit_m)}    %sa = tile.alloc_shared {{alignment = 1024 : i64}} : {a_t}
    %sb = tile.alloc_shared {{alignment = 1024 : i64}} : {b_t}
    %sc = tile.alloc_shared {{alignment = 1024 : i64}} : {c_t}
{bias_alloc}{roles_and_ring(extra_init)}{setup(multicast_b, bm, bn)}    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {{
      nvvm.setmaxregister decrease {PRODUCER_REGS}
      {"// ldgsts: the whole warpgroup issues, each thread a share" + chr(10) + "      scf.if %is_producer" if ldgsts else "scf.if %leader"} {{
        scf.for %t = %first_tile to %tiles_walked step %ctas iter_args(%it0 = %c0) -> (index) {{
{tile_of(multicast_b, "        ", fit_m)}
          %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {{
{acquire_stage("            ", ldgsts)}{b_first}            tile.copy_async %ga[%m0, %k0] to %sa[%a_half0, 0, 0] sizes [{wm}, {bk}] {issue}
                mbar(%full[%s] : !ring){variant} : {g_in} to {a_t}
            tile.copy_async %ga[%m1, %k0] to %sa[%a_half1, 0, 0] sizes [{wm}, {bk}] {issue}
                mbar(%full[%s] : !ring){variant} : {g_in} to {a_t}
{b_last}            %next = arith.addi %i, %c1 : index
            scf.yield %next : index
          }}
          scf.yield %it1 : index
        }}
      }}
    }} else {{
      nvvm.setmaxregister increase {CONSUMER_REGS}
{warpgroup_index("%half", "      ")}      %half_i32 = arith.index_cast %wg : index to i32
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
{releasers_of(cluster, multicast_b)}      %acc = tile.alloc_local : {acc_t}
      scf.for %t = %first_tile to %tiles_walked step %ctas iter_args(%it0 = %c0) -> (index) {{
{tile_of(multicast_b, "        ", fit_m)}
{bias_prologue}        // The first K step overwrites the accumulator (a static flag: a
        // runtime one would select zeros into registers a wgmma in flight
        // owns, and ptxas would serialize); the others accumulate.
{consumer_step("%it0", "false", None, multicast_b, ldgsts)}
        %it_next = arith.addi %it0, %c1 : index
{after_first_step}        %it1 = scf.for %kt = %c1 to %k_tiles step %c1 iter_args(%i = %it_next) -> (index) {{
{consumer_step("%i", "true", "%i", multicast_b, ldgsts)}
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }}
        tile.wait_group wgmma, 0
        scf.if %releaser {{
          %last = arith.addi %it1, %c_stages : index
          %last1 = arith.subi %last, %c1 : index
          %ls = arith.remui %last1, %c_stages : index
{release("%ls", multicast_b, "          ")}
        }}
{bias_epilogue}{store_output(store_src, store_src_t, c_t, g_out, wm, bn, "half of the C tile", '''
          %row = arith.muli %half, %c_wm : index
          %m_half = arith.addi %m0, %row : index''', "%m_half")}        scf.yield %it1 : index
      }}
      // Before exiting: the last TMA store has read the staging tile. Its
      // writes complete with the grid (a later kernel sees them); waiting
      // for them too would hold the CTA (and cost an L1 invalidation).
      scf.if %wg_leader {{
        tile.wait_group bulk, 0 {{read}}
      }}
    }}
{teardown(multicast_b)}    gpu.return
  }}
"""
    for key, value in (("@WM", str(wm)), ("@BN", str(bn)), ("@BK", str(bk)),
                       ("@ATTR", gemm_attr), ("@ACC_T", acc_t),
                       ("@A_T", a_t), ("@B_T", b_t)):
        text = text.replace(key, value)
    case = dict(kernel=name, dtype=ty, out=out_ty, b_mn=b_mn, bm=bm, bn=bn,
                bk=bk, stages=stages, block=384, copy=copy)
    if ldgsts:
        case["version_of"] = primary
    if epilogue:
        case["epilogue"] = epilogue
    if multicast_b:
        # A cluster's tile pair: 2 BM rows (gemm_bench.py's grid).
        case.update(cluster=2, tile_m=2 * bm)
    return text, case


# Fused epilogues: D = act(A B^T + bias) with a per-column bias (1 x N, in
# the output type) and the activation (none, ReLU, GELU-tanh, SiLU)
# computed on the f32 accumulator in registers (tile.map) before the usual
# conversion and TMA store.
EPILOGUES = {
    "bias": "",
    "bias_relu": """      %ep_zero_f = arith.constant 0.0 : f32
      %ep_act = arith.maxnumf %ep_y, %ep_zero_f : f32
""",
    # GELU, tanh form: y/2 (1 + tanh(sqrt(2/pi) (y + 0.044715 y^3))), as
    # h + h t with h = y/2, t = tanh(y (c0 + c1 y^2)): six operations.
    "bias_gelu": """      %ep_c0 = arith.constant 0.7978845608 : f32
      %ep_c1 = arith.constant 0.0356774081 : f32
      %ep_half_f = arith.constant 0.5 : f32
      %ep_y2 = arith.mulf %ep_y, %ep_y : f32
      %ep_p = math.fma %ep_y2, %ep_c1, %ep_c0 : f32
      %ep_u = arith.mulf %ep_y, %ep_p : f32
      %ep_t = math.tanh %ep_u : f32
      %ep_h = arith.mulf %ep_y, %ep_half_f : f32
      %ep_act = math.fma %ep_h, %ep_t, %ep_h : f32
""",
    # SiLU: y sigmoid(y) = h + h tanh(h) with h = y/2 (sigmoid(y) =
    # (1 + tanh(y/2)) / 2): three operations, one of them on the SFU
    # (tanh.approx), where y / (1 + 2^(-y log2 e)) needs two (ex2 and the
    # reciprocal of the division) -- the SFU's quarter rate is what the
    # epilogue waits on. As GELU's, its absolute error is about |y| 2^-12
    # (tanh.approx), which in the far negative tail (y < -8) exceeds the
    # tiny result (docs/Limitations.md).
    "bias_silu": """      %ep_half_f = arith.constant 0.5 : f32
      %ep_h = arith.mulf %ep_y, %ep_half_f : f32
      %ep_t = math.tanh %ep_h : f32
      %ep_act = math.fma %ep_h, %ep_t, %ep_h : f32
""",
}


def warpgroup_index(name, indent):
    """`name` = the consumer warpgroup's index (%wg - 1), from %wg
    broadcast from lane 0 by a shuffle, so that ptxas knows it is the same
    on every lane of a warp. Derived from %tid.x alone it is not uniform
    to ptxas, nor is what it selects: an mbarrier a wait spins on (the wait
    loop, and the whole tile loop around it, then count as divergent: a
    convergence region around it), or the warpgroup's A stage, whose wgmma
    descriptors are then computed in vector registers and moved to uniform
    ones before every wgmma. On an H200 the alpha_beta_c kernels ran 5-9 %
    behind the plain kernel that way, and the plain 128 x 256 and
    128 x 128 kernels 3-11 % behind their shuffled form."""
    lines = f"""// The warpgroup index broadcast from lane 0: warp-uniform for ptxas.
%wg_lane_i32 = arith.index_cast %wg : index to i32
%shfl_all_lanes = arith.constant -1 : i32
%shfl_lane0 = arith.constant 0 : i32
%shfl_clamp = arith.constant 31 : i32
%wg_uniform_i32 = nvvm.shfl.sync idx %shfl_all_lanes, %wg_lane_i32, %shfl_lane0, %shfl_clamp : i32 -> i32
%wg_uniform = arith.index_cast %wg_uniform_i32 : i32 to index
{name} = arith.subi %wg_uniform, %c1 : index"""
    return "".join(indent + line + "\n" for line in lines.splitlines())


def store_output(src, src_t, c_t, g_out, rows, bn, what, origin, m_expr):
    """A consumer warpgroup's output: `src` staged in its slot %half of
    the staging tile (stmatrix) once the previous tile's TMA store has read
    it, then stored by TMA at (`m_expr`, %n0), `origin` computing the row."""
    return f"""        // Epilogue: the previous tile's TMA store must have read this
        // warpgroup's {what} before it is overwritten.
        scf.if %wg_leader {{
          tile.wait_group bulk, 0 {{read}}
        }}
        nvvm.barrier id = %half_i32 number_of_threads = %i32_128
        tile.store {src} to %sc[%half, 0, 0] : {src_t} to {c_t}
        tile.fence proxy_async
        nvvm.barrier id = %half_i32 number_of_threads = %i32_128
        scf.if %wg_leader {{{origin}
          tile.copy_async %sc[%half, 0, 0] to %gc[{m_expr}, %n0] sizes [{rows}, {bn}] exec thread
              : {c_t} to {g_out}
          tile.commit_group bulk
        }}
"""


def pingpong_kernel(ty, out_ty, bn, bk, stages, epilogue=None):
    """The ping-pong schedule: each consumer warpgroup owns whole 128 x BN
    tiles (its accumulator two m64 fragments, 128 x BN / 128 registers a
    thread) and the CTA's tiles alternate between them (walk positions 0,
    2, ... to the first, 1, 3, ... to the second). The producer fills the
    ring in walk order, so a warpgroup's K loop can only start once the
    other's is nearly done: one warpgroup's epilogue (activation, staging,
    TMA store) runs while the other's MMAs do, where the cooperative
    kernels' two warpgroups finish a tile together and leave the tensor
    pipe idle for the epilogue. A stage is read by one warpgroup: 4
    releasing warps. The ring is handed over explicitly too (named barriers
    3 and 4, 256 threads): a warpgroup starts waiting for its tile's stages
    only after the other has waited for all of its previous tile's. A full
    barrier's wait names a phase by its parity, so a warpgroup that skipped
    ahead by a whole tile (more slots than the ring has stages) could take
    an old phase for the one it waits for and read a stage still loading."""
    assert epilogue in (None,) + tuple(EPILOGUES)
    bm = 128
    name = (f"gemm_{SHORT[ty]}_tn_{bm}x{bn}x{bk}_s{stages}_pingpong"
            f"{'_' + epilogue if epilogue else ''}")
    a_t = f"!tile.buffer<{stages}x{bm}x{bk}x{ty}, shared, {ring_k_major(ty, stages, bm, bk)}>"
    b_t = f"!tile.buffer<{stages}x{bn}x{bk}x{ty}, shared, {ring_k_major(ty, stages, bn, bk)}>"
    c_t = output_tile(out_ty, bm, bn, lead=2)
    acc_t = f"!tile.buffer<{bm}x{bn}xf32, local, {accumulator(bn, 2)}>"
    g_in = f"!tile.buffer<?x?x{ty}, global>"
    g_out = f"!tile.buffer<?x?x{out_ty}, global>"
    m_in = f"memref<?x?x{ty}, 1>"
    m_out = f"memref<?x?x{out_ty}, 1>"
    stage_bytes = (bm + bn) * bk * BYTES[ty]
    bias_param, bias_alloc, bias_prologue, bias_epilogue = "", "", "", ""
    if epilogue:
        bias_param, bias_alloc, bias_prologue, bias_epilogue = fused_epilogue(
            epilogue, out_ty, bn, acc_t)

    text = f"""
  // {bm}x{bn}x{bk} tiles, {stages}-stage ring, {SHORT[ty]} -> {out_ty}, ping-pong
  gpu.func @{name}(%a: {m_in}, %b: {m_in}, {bias_param}%c: {m_out}) kernel
      attributes {{known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32}} {{
{ring_constants(stages, bm, bn, bk, stage_bytes, 4)}    %zero = arith.constant 0.0 : f32
    %i32_128 = arith.constant 128 : i32
{problem(m_in, m_out, g_in, g_out, 0, bn < 256)}    %sa = tile.alloc_shared {{alignment = 1024 : i64}} : {a_t}
    %sb = tile.alloc_shared {{alignment = 1024 : i64}} : {b_t}
    %sc = tile.alloc_shared {{alignment = 1024 : i64}} : {c_t}
{bias_alloc}{roles_and_ring()}{setup(False, bm, bn)}    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {{
      nvvm.setmaxregister decrease {PRODUCER_REGS}
      scf.if %leader {{
        scf.for %t = %first_tile to %tiles_walked step %ctas iter_args(%it0 = %c0) -> (index) {{
{raster("          ", bn < 256)}
          %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {{
{acquire_stage("            ")}            tile.copy_async %ga[%m0, %k0] to %sa[%s, 0, 0] sizes [{bm}, {bk}] exec thread
                mbar(%full[%s] : !ring) : {g_in} to {a_t}
            tile.copy_async %gb[%n0, %k0] to %sb[%s, 0, 0] sizes [{bn}, {bk}] exec thread
                mbar(%full[%s] : !ring) : {g_in} to {b_t}
            %next = arith.addi %i, %c1 : index
            scf.yield %next : index
          }}
          scf.yield %it1 : index
        }}
      }}
    }} else {{
      nvvm.setmaxregister increase {CONSUMER_REGS}
{warpgroup_index("%half", "      ")}      %half_i32 = arith.index_cast %wg : index to i32
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
{releasers_of(1, False)}      // Walk positions half, half + 2, ...: tiles first + (2j + half) ctas,
      // whose ring slots start at (2j + half) k_tiles.
      %my_offset = arith.muli %half, %ctas : index
      %my_first = arith.addi %first_tile, %my_offset : index
      %my_step = arith.muli %ctas, %c2 : index
      %my_slot0 = arith.muli %half, %k_tiles : index
      %pair_slots = arith.muli %k_tiles, %c2 : index
      // The ring passes to warpgroup 1 + h through barrier 3 + h.
      %c3_i32 = arith.constant 3 : i32
      %c7_i32 = arith.constant 7 : i32
      %turn_threads = arith.constant 256 : i32
      %half_only_i32 = arith.index_cast %half : index to i32
      %my_turn_id = arith.addi %half_only_i32, %c3_i32 : i32
      %other_turn_id = arith.subi %c7_i32, %my_turn_id : i32
      %acc = tile.alloc_local : {acc_t}
      scf.for %t = %my_first to %tiles_walked step %my_step iter_args(%it0 = %my_slot0) -> (index) {{
{raster("        ", bn < 256)}
{bias_prologue}        // The tile before this one in the CTA's walk (the other
        // warpgroup's) has had all its stages: this tile's may be waited for.
        %has_prev = arith.cmpi ugt, %t, %first_tile : index
        scf.if %has_prev {{
          tile.named_barrier id(%my_turn_id) threads(%turn_threads)
        }}
        // The first K step overwrites the accumulator.
{consumer_step("%it0", "false", None, False, whole_tile=True)}
        %it_next = arith.addi %it0, %c1 : index
        %it1 = scf.for %kt = %c1 to %k_tiles step %c1 iter_args(%i = %it_next) -> (index) {{
{consumer_step("%i", "true", "%i", False, whole_tile=True)}
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }}
        // Every stage of this tile has been waited for: the next tile's
        // warpgroup may start.
        %t_next = arith.addi %t, %ctas : index
        %has_next = arith.cmpi ult, %t_next, %tiles_walked : index
        scf.if %has_next {{
          tile.named_barrier arrive id(%other_turn_id) threads(%turn_threads)
        }}
        tile.wait_group wgmma, 0
        scf.if %releaser {{
          %last = arith.addi %it1, %c_stages : index
          %last1 = arith.subi %last, %c1 : index
          %ls = arith.remui %last1, %c_stages : index
{release("%ls", False, "          ")}
        }}
{bias_epilogue}{store_output("%acc", acc_t, c_t, g_out, bm, bn, "C tile", "", "%m0")}        %it_pair = arith.addi %it0, %pair_slots : index
        scf.yield %it_pair : index
      }}
      scf.if %wg_leader {{
        tile.wait_group bulk, 0 {{read}}
      }}
    }}
    gpu.return
  }}
"""
    for key, value in (("@WM", str(bm)), ("@BN", str(bn)), ("@BK", str(bk)),
                       ("@ATTR", " {transpose_b}"), ("@ACC_T", acc_t),
                       ("@A_T", a_t), ("@B_T", b_t)):
        text = text.replace(key, value)
    case = dict(kernel=name, dtype=ty, out=out_ty, b_mn=False, bm=bm, bn=bn,
                bk=bk, stages=stages, block=384, copy="tma",
                schedule="pingpong")
    if epilogue:
        case["epilogue"] = epilogue
    return text, case


def fused_epilogue(epilogue, out_ty, bn, acc_t):
    """The bias parameter, its shared staging row per consumer, the loads
    of the tile's bias (issued when the consumer starts the tile, so their
    latency hides under the K loop: each thread loads columns tid,
    tid + 128, ..., bounds-checked against N, unlike a register tile's
    tile.load from global memory) and the epilogue run once the
    accumulator is complete: the values go to this warpgroup's shared row,
    each thread loads the columns it holds (the accumulator's columns,
    replicated over its rows) and tile.map adds them and applies the
    activation. The row is rewritten only after the previous tile's
    epilogue barriers, which follow every thread's read of it."""
    bias_t = (f"!tile.buffer<2x{bn}xf32, shared, "
              f"{layout((2, bn), (bn, 1))}>")
    cols = (f"!tile.buffer<1x{bn}xf32, local, #tile.layout<"
            f"S[(1,{bn // 8},4,2):(0,2,1@tid_in_wg,1)] + "
            f"R[(8,4):(4@tid_in_wg,32@tid_in_wg)]>>")
    param = f"%bias: memref<?x?x{out_ty}, 1>, "
    alloc = f"    %sbias = tile.alloc_shared {{alignment = 16 : i64}} : {bias_t}\n"
    act = EPILOGUES[epilogue] or "      %ep_act = arith.addf %ep_y, %ep_zero_add : f32\n"
    zero_add = ("      %ep_zero_add = arith.constant 0.0 : f32\n"
                if not EPILOGUES[epilogue] else "")
    per_thread = -(-bn // 128)
    loads, stores = [], []
    for i in range(per_thread):
        loads.append(f"""        %ep_col{i} = arith.addi %tid_in_wg, %c_ep{i} : index
        %ep_n{i} = arith.addi %n0, %ep_col{i} : index
        %ep_in_n{i} = arith.cmpi ult, %ep_n{i}, %N : index
        %ep_in_tile{i} = arith.cmpi ult, %ep_col{i}, %c_bn : index
        %ep_inside{i} = arith.andi %ep_in_n{i}, %ep_in_tile{i} : i1
        %ep_v{i} = scf.if %ep_inside{i} -> (f32) {{
          %ep_x{i} = memref.load %bias[%c0, %ep_n{i}] : memref<?x?x{out_ty}, 1>
          %ep_xf{i} = arith.extf %ep_x{i} : {out_ty} to f32
          scf.yield %ep_xf{i} : f32
        }} else {{
          scf.yield %zero : f32
        }}
""".replace("%c_ep0", "%c0").replace(f"%c_ep{i}", f"%c_ep{i}"))
        stores.append(f"""        scf.if %ep_in_tile{i} {{
          %ep_slot{i} = arith.addi %bias_first, %ep_col{i} : index
          %ep_slot_i32_{i} = arith.index_cast %ep_slot{i} : index to i32
          %ep_at{i} = llvm.getelementptr %bias_row[%ep_slot_i32_{i}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
          llvm.store %ep_v{i}, %ep_at{i} : f32, !llvm.ptr<3>
        }}
""")
    consts = "".join(f"        %c_ep{i} = arith.constant {128 * i} : index\n"
                     for i in range(1, per_thread))
    prologue = (f"        // Fused epilogue ({epilogue}): this tile's bias, loaded now.\n"
                + consts + "".join(loads))
    code = f"""        // Fused epilogue ({epilogue}): the bias through this warpgroup's
        // shared row into the registers of the columns each thread holds.
        %bias_row = tile.base_address %sbias : {bias_t} -> !llvm.ptr<3>
        %bias_first = arith.muli %half, %c_bn : index
{"".join(stores)}        nvvm.barrier id = %half_i32 number_of_threads = %i32_128
        %bias_cols = tile.alloc_local : {cols}
        tile.load %sbias[%half, 0] to %bias_cols : {bias_t} to {cols}
        tile.map ins(%acc, %bias_cols : {acc_t}, {cols}) outs(%acc : {acc_t}) {{
        ^bb0(%ep_x: f32, %ep_b: f32, %ep_i: index, %ep_j: index):
          %ep_y = arith.addf %ep_x, %ep_b : f32
{zero_add}{act}          tile.yield %ep_act : f32
        }}
"""
    return param, alloc, prologue, code.replace("\n      %", "\n          %")


# Scaled epilogues, with a scalar from a 1 x 1 f32 tensor:
#   alpha_row_bias  D = alpha (A B^T) + bias, the bias per row (1 x M, in
#                   the output type);
#   scale_e4m3      D = e4m3(scale (A B^T)), rounded to nearest and
#                   saturated to +-448 (cvt.rn.satfinite), the FP8
#                   training recipes' per-tensor scaled output, and
#                   amax = max |A B^T| (before the scale) raised atomically
#                   in a 1 x 1 tensor (f32 bits as i32: non-negative floats
#                   order like their bits), as the recipes' next scale
#                   needs.
SCALED_EPILOGUES = ("alpha_row_bias", "scale_e4m3")


def scaled_epilogue(epilogue, out_ty, wm, bn, acc_t):
    """The scalar (and the row bias) are loaded when the consumer starts a
    tile (bounds-checked against M), staged through this warpgroup's
    shared row (rows 0..wm-1: the bias, wm: the scalar) and read back as
    tile.load of a 64 x 1 vector replicated on each row's quad and of a
    1 x 1 tile every thread holds; tile.map applies them to the
    accumulator. The row is rewritten only after the previous tile's
    epilogue barriers, which follow every thread's read of it."""
    row_t = (f"!tile.buffer<2x{wm + 1}x1xf32, shared, "
             f"{layout((2, wm + 1, 1), (wm + 1, 1, 1))}>")
    rows_t = (f"!tile.buffer<{wm}x1xf32, local, #tile.layout<"
              "S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>")
    one_t = "!tile.buffer<1x1xf32, local, #tile.layout<S[(1,1):(0,0)]>>"
    with_bias = epilogue == "alpha_row_bias"
    scalar = "alpha" if with_bias else "scale"
    param = f"%{scalar}: memref<?x?xf32, 1>, "
    if with_bias:
        param += f"%bias: memref<?x?x{out_ty}, 1>, "
    else:
        param += "%amax: memref<?x?xi32, 1>, "
    alloc = f"    %srow = tile.alloc_shared {{alignment = 16 : i64}} : {row_t}\n"
    amax_t = (f"!tile.buffer<2x2x1xf32, shared, {layout((2, 2, 1), (2, 1, 1))}>")
    whole_t = ("!tile.buffer<1x1xf32, local, "
               "#tile.layout<S[(1,1):(0,0)] + R[128:1@tid_in_wg]>>")
    if not with_bias:
        alloc += f"    %samax = tile.alloc_shared {{alignment = 16 : i64}} : {amax_t}\n"
    prologue = f"""        // Fused epilogue ({epilogue}): the scalar, and this warpgroup's
        // rows of the bias, loaded now.
        %ep_scalar = memref.load %{scalar}[%c0, %c0] : memref<?x?xf32, 1>
"""
    if with_bias:
        prologue += f"""        %ep_first_row = arith.muli %half, %c_wm : index
        %ep_m_tile = arith.addi %m0, %ep_first_row : index
        %ep_m = arith.addi %ep_m_tile, %tid_in_wg : index
        %ep_in_m = arith.cmpi ult, %ep_m, %M : index
        %ep_in_tile = arith.cmpi ult, %tid_in_wg, %c_wm : index
        %ep_inside = arith.andi %ep_in_m, %ep_in_tile : i1
        %ep_v = scf.if %ep_inside -> (f32) {{
          %ep_x = memref.load %bias[%c0, %ep_m] : memref<?x?x{out_ty}, 1>
          %ep_xf = arith.extf %ep_x : {out_ty} to f32
          scf.yield %ep_xf : f32
        }} else {{
          scf.yield %zero : f32
        }}
"""
    held = (", the bias in the\n        // threads holding its row" if with_bias
            else "")
    code = f"""        // Fused epilogue ({epilogue}): through this warpgroup's shared
        // row into registers: the scalar in every thread{held}.
        %row_base = tile.base_address %srow : {row_t} -> !llvm.ptr<3>
        %ep_row_first = arith.muli %half, %c_wm1 : index
"""
    if with_bias:
        code += """        scf.if %ep_in_tile {
          %ep_slot = arith.addi %ep_row_first, %tid_in_wg : index
          %ep_slot_i32 = arith.index_cast %ep_slot : index to i32
          %ep_at = llvm.getelementptr %row_base[%ep_slot_i32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
          llvm.store %ep_v, %ep_at : f32, !llvm.ptr<3>
        }
"""
    code += f"""        scf.if %wg_leader {{
          %ep_scalar_slot = arith.addi %ep_row_first, %c_wm : index
          %ep_scalar_i32 = arith.index_cast %ep_scalar_slot : index to i32
          %ep_scalar_at = llvm.getelementptr %row_base[%ep_scalar_i32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
          llvm.store %ep_scalar, %ep_scalar_at : f32, !llvm.ptr<3>
        }}
        nvvm.barrier id = %half_i32 number_of_threads = %i32_128
        %ep_one = tile.alloc_local : {one_t}
        tile.load %srow[%half, {wm}, 0] to %ep_one : {row_t} to {one_t}
"""
    if with_bias:
        code += f"""        %ep_rows = tile.alloc_local : {rows_t}
        tile.load %srow[%half, 0, 0] to %ep_rows : {row_t} to {rows_t}
        tile.map ins(%acc, %ep_rows, %ep_one : {acc_t}, {rows_t}, {one_t}) outs(%acc : {acc_t}) {{
        ^bb0(%ep_x: f32, %ep_b: f32, %ep_s: f32, %ep_i: index, %ep_j: index):
          %ep_y = math.fma %ep_s, %ep_x, %ep_b : f32
          tile.yield %ep_y : f32
        }}
"""
        return param, alloc, prologue, code, "%acc", acc_t
    q_t = acc_t.replace("xf32, local", f"x{out_ty}, local")
    code += f"""        // amax: the largest and smallest accumulator element of the
        // warpgroup (in registers, across the quad's lanes, across the
        // warps through the scratch), one thread raising the tensor's.
        %ep_hi = tile.alloc_local : {whole_t}
        %ep_lo = tile.alloc_local : {whole_t}
        tile.reduce <max> %acc dims [0, 1] into %ep_hi : {acc_t} into {whole_t}
        tile.reduce <min> %acc dims [0, 1] into %ep_lo : {acc_t} into {whole_t}
        tile.store %ep_hi to %samax[%half, 0, 0] : {whole_t} to {amax_t}
        tile.store %ep_lo to %samax[%half, 1, 0] : {whole_t} to {amax_t}
        nvvm.barrier id = %half_i32 number_of_threads = %i32_128
        scf.if %wg_leader {{
          %ep_amax_row = tile.base_address %samax : {amax_t} -> !llvm.ptr<3>
          %ep_pair = arith.muli %half, %c2 : index
          %ep_pair_i32 = arith.index_cast %ep_pair : index to i32
          %ep_hi_at = llvm.getelementptr %ep_amax_row[%ep_pair_i32] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
          %ep_lo_at = llvm.getelementptr %ep_hi_at[1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
          %ep_hi_v = llvm.load %ep_hi_at : !llvm.ptr<3> -> f32
          %ep_lo_v = llvm.load %ep_lo_at : !llvm.ptr<3> -> f32
          %ep_neg_lo = arith.negf %ep_lo_v : f32
          %ep_abs = arith.maximumf %ep_hi_v, %ep_neg_lo : f32
          %ep_bits = arith.bitcast %ep_abs : f32 to i32
          %ep_old = memref.atomic_rmw maxs %ep_bits, %amax[%c0, %c0] : (i32, memref<?x?xi32, 1>) -> i32
        }}
        tile.map ins(%acc, %ep_one : {acc_t}, {one_t}) outs(%acc : {acc_t}) {{
        ^bb0(%ep_x: f32, %ep_s: f32, %ep_i: index, %ep_j: index):
          %ep_y = arith.mulf %ep_x, %ep_s : f32
          tile.yield %ep_y : f32
        }}
        %ep_q = tile.alloc_local : {q_t}
        tile.convert %acc to %ep_q : {acc_t} to {q_t}
"""
    return param, alloc, prologue, code, "%ep_q", q_t


# D = alpha (A B^T) + beta C, C a source tensor in the output type and
# (alpha, beta) a 1 x 2 f32 tensor: cuBLAS's GEMM with beta.
SOURCE_EPILOGUE = "alpha_beta_c"


def source_epilogue(out_ty, wm, bn, acc_t, c_t, g_out, m_out):
    """The source tile comes in by TMA into this warpgroup's half of the
    output staging tile, issued after the tile's first K step (its latency
    hides under the rest of the K loop; issued before it, the wait for the
    previous tile's TMA store to read the staging tile holds up the
    warpgroup's first wgmma: 1-3 points slower on an H200), and completes
    on the warpgroup's own mbarrier (one phase per tile: the wait's parity
    is the tile's count mod 2). The epilogue reads it into registers in
    the accumulator's layout (ldmatrix), and tile.map computes
    alpha x + beta c in f32; each warp's stmatrix then rewrites exactly
    the locations its own ldmatrix read, so the in-place reuse needs no
    ordering between warps."""
    src_t = acc_t.replace("xf32, local", f"x{out_ty}, local")
    bars_t = ("!nvgpu.mbarrier.group<memorySpace = "
              "#gpu.address_space<workgroup>, num_barriers = 2>")
    tile_bytes = wm * bn * BYTES[out_ty]
    param = (f"%alpha_beta: memref<?x?xf32, 1>, "
             f"%c_source: memref<?x?x{out_ty}, 1>, ")
    alloc = (f"    %gsrc = tile.from_memref %c_source : {m_out} -> {g_out}\n"
             f"    %src_full = nvgpu.mbarrier.create -> {bars_t}\n")
    init = (f"      nvgpu.mbarrier.init %src_full[%c0], %c1 : {bars_t}\n"
            f"      nvgpu.mbarrier.init %src_full[%c1], %c1 : {bars_t}\n")
    prologue = f"""        // Fused epilogue (alpha_beta_c): this tile's source C into the
        // staging tile, by TMA, once the previous tile's store has read it.
        %ep_src_bytes = arith.constant {tile_bytes} : index
        %ep_row = arith.muli %half, %c_wm : index
        %ep_m_half = arith.addi %m0, %ep_row : index
        scf.if %wg_leader {{
          tile.wait_group bulk, 0 {{read}}
          nvgpu.mbarrier.arrive.expect_tx %src_full[%half], %ep_src_bytes : {bars_t}
          tile.copy_async %gsrc[%ep_m_half, %n0] to %sc[%half, 0, 0] sizes [{wm}, {bn}] exec thread
              mbar(%src_full[%half] : {bars_t}) : {g_out} to {c_t}
        }}
"""
    code = f"""        // Fused epilogue (alpha_beta_c): the source tile, in registers
        // laid out as the accumulator, then alpha x + beta c. (Nothing of
        // it is computed before the K loop: live across it, it would take
        // registers the accumulator needs.)
        %ep_alpha = memref.load %alpha_beta[%c0, %c0] : memref<?x?xf32, 1>
        %ep_beta = memref.load %alpha_beta[%c0, %c1] : memref<?x?xf32, 1>
        %ep_walked = arith.subi %t, %first_tile : index
        %ep_count = arith.divui %ep_walked, %ctas : index
        %ep_count_bit = arith.andi %ep_count, %c1 : index
        %ep_parity = arith.cmpi eq, %ep_count_bit, %c1 : index
        nvgpu.mbarrier.try_wait.parity %src_full[%half], %ep_parity, %ticks : {bars_t}
        %ep_src = tile.alloc_local : {src_t}
        tile.load %sc[%half, 0, 0] to %ep_src : {c_t} to {src_t}
        tile.map ins(%acc, %ep_src : {acc_t}, {src_t}) outs(%acc : {acc_t}) {{
        ^bb0(%ep_x: f32, %ep_c: {out_ty}, %ep_i: index, %ep_j: index):
          %ep_cf = arith.extf %ep_c : {out_ty} to f32
          %ep_bc = arith.mulf %ep_beta, %ep_cf : f32
          %ep_y = math.fma %ep_alpha, %ep_x, %ep_bc : f32
          tile.yield %ep_y : f32
        }}
"""
    return param, alloc, init, prologue, code


def ring_constants(stages, bm, bn, bk, stage_bytes, releasers):
    """The constants of a warp-specialized kernel's ring and tile walk
    (the consumers' rows %c_wm are half the tile's)."""
    return f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c_stages = arith.constant {stages} : index
    %c_bm = arith.constant {bm} : index
    %c_bn = arith.constant {bn} : index
    %c_bk = arith.constant {bk} : index
    %c_wm = arith.constant {bm // 2} : index
    %c_group = arith.constant {GROUP_M} : index
    %stage_bytes = arith.constant {stage_bytes} : index
    %releasers = arith.constant {releasers} : index
    %ticks = arith.constant 1000000 : index
"""


def roles_and_ring(extra_init=""):
    """The warp-specialized kernels' thread roles (%tid, %wg, %tid_in_wg,
    %lane, %leader) and their `stages`-deep ring of full barriers (one TMA
    arrival) and empty barriers (%releasers arrivals), initialised by the
    leader (`extra_init`: more barriers of the kernel's own) and fenced."""
    return f"""    %full = nvgpu.mbarrier.create -> !ring
    %empty = nvgpu.mbarrier.create -> !ring
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %tid_in_wg = arith.remui %tid, %c128 : index
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {{
      scf.for %s = %c0 to %c_stages step %c1 {{
        nvgpu.mbarrier.init %full[%s], %c1 : !ring
        nvgpu.mbarrier.init %empty[%s], %releasers : !ring
      }}
{extra_init}      tile.fence mbarrier_init
    }}
"""


def acquire_stage(indent, ldgsts=False, a_halves=True):
    """Producer, ring slot %i of K tile %kt: wait until the slot's stage is
    free (%s), arm its full barrier with %stage_bytes, and the coordinates
    its copies need (%k0; with `a_halves`, the two A halves' stages
    %a_half0 / %a_half1 and the second half's first row %m1). With
    `ldgsts` every producer thread waits (each copies a share) and thread
    0 alone arms the barrier (its one arrival per phase)."""
    arm = "nvgpu.mbarrier.arrive.expect_tx %full[%s], %stage_bytes : !ring"
    if ldgsts:
        arm = "scf.if %leader {\n  " + arm + "\n}"
    lines = """%s = arith.remui %i, %c_stages : index
%round = arith.divui %i, %c_stages : index
%round_bit = arith.andi %round, %c1 : index
%free_parity = arith.cmpi eq, %round_bit, %c0 : index
nvgpu.mbarrier.try_wait.parity %empty[%s], %free_parity, %ticks : !ring
""" + arm + """
%k0 = arith.muli %kt, %c_bk : index"""
    if a_halves:
        lines += """
%a_half0 = arith.muli %s, %c2 : index
%a_half1 = arith.addi %a_half0, %c1 : index
%m1 = arith.addi %m0, %c_wm : index"""
    return "".join(indent + line + "\n" for line in lines.splitlines())


def consumer_step(i, accumulate, release_after, multicast_b, ldgsts=False,
                  whole_tile=False):
    """One K step of a consumer: wait for the stage of ring slot `i`, issue
    its MMA, keep one wgmma group in flight; once the previous group has
    retired (steps after the first), release its stage. With `ldgsts` the
    stage was written by cp.async, through the generic proxy: a proxy fence
    orders it before the wgmma's async-proxy reads. A stage holds two A
    halves (one per consumer warpgroup), or with `whole_tile` one A tile
    the warpgroup reads whole."""
    sfx = "_first" if release_after is None else ""
    a_lines = "" if whole_tile else f"""%a_pair{sfx} = arith.muli %s{sfx}, %c2 : index
%a_stage{sfx} = arith.addi %a_pair{sfx}, %half : index
"""
    a_index = f"%s{sfx}" if whole_tile else f"%a_stage{sfx}"
    text = f"""%s{sfx} = arith.remui {i}, %c_stages : index
%round{sfx} = arith.divui {i}, %c_stages : index
%round_bit{sfx} = arith.andi %round{sfx}, %c1 : index
%parity{sfx} = arith.cmpi ne, %round_bit{sfx}, %c0 : index
nvgpu.mbarrier.try_wait.parity %full[%s{sfx}], %parity{sfx}, %ticks : !ring
{"tile.fence proxy_async" + chr(10) if ldgsts else ""}{a_lines}%accumulate{sfx} = arith.constant {accumulate}
tile.gemm_async %acc[0, 0], %sa[{a_index}, 0, 0], %sb[%s{sfx}, 0, 0] sizes [@WM, @BN, @BK]
    exec warpgroup accumulate(%accumulate{sfx})@ATTR : @ACC_T, @A_T, @B_T
tile.commit_group wgmma
tile.wait_group wgmma, 1"""
    if release_after is not None:
        text += f"""
// The group before this one has retired: its stage is free.
scf.if %releaser {{
  %prev = arith.addi {i}, %c_stages : index
  %prev1 = arith.subi %prev, %c1 : index
  %ps = arith.remui %prev1, %c_stages : index
{release("%ps", multicast_b, "  ")}
}}"""
    indent = "          " if release_after is not None else "        "
    return "\n".join(indent + line for line in text.splitlines())


def setup(multicast_b, bm, bn):
    """Barrier initialisation made visible, and what the tile walk needs:
    %first_tile, %ctas (walkers), %tiles_walked; with B multicast the
    cluster rank, the peer mask and this CTA's half of B."""
    if not multicast_b:
        return """    gpu.barrier
    %first_tile = gpu.block_id x
    %ctas = gpu.grid_dim x
    %tiles_walked = arith.addi %tiles, %c0 : index
"""
    return f"""    // Both CTAs' barriers are initialised before either CTA's multicast
    // or release can reach them.
    nvvm.cluster.arrive {{aligned}}
    nvvm.cluster.wait {{aligned}}
    %rank_i32 = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %both = arith.constant 3 : i16
    %first_rank = arith.cmpi eq, %rank, %c0 : index
    %c_half_bn = arith.constant {bn // 2} : index
    %b_row = arith.muli %rank, %c_half_bn : index
    // The cluster walks tile pairs (tile rows 2p and 2p + 1, one column),
    // GROUP_M / 2 pair rows at a time; CTA r takes row 2p + r. A pair
    // whose second row is off the matrix still loads its half of B (the
    // first CTA needs it); TMA fills the missing rows of A with zeros and
    // clips the store.
    %block = gpu.block_id x
    %grid = gpu.grid_dim x
    %first_tile = arith.divui %block, %c2 : index
    %ctas = arith.divui %grid, %c2 : index
    %pair_rows = arith.ceildivui %tiles_m, %c2 : index
    %tiles_walked = arith.muli %pair_rows, %tiles_n : index
    %c_pair_group = arith.constant {GROUP_M // 2} : index
    %pair_group_tiles = arith.muli %c_pair_group, %tiles_n : index
"""


def tile_of(multicast_b, indent, fit_m=False):
    """Walk index %t -> this CTA's tile origin (%m0, %n0); with B
    multicast also its half of B's rows (%n_half). `fit_m`: as raster's."""
    if not multicast_b:
        return raster(indent, fit_m)
    lines = grouped_walk("%c_pair_group", "%pair_group_tiles", "%pair_rows", "%ppm") + """
%pm_pair = arith.muli %ppm, %c2 : index
%pm = arith.addi %pm_pair, %rank : index
%m0 = arith.muli %pm, %c_bm : index
%n0 = arith.muli %pn, %c_bn : index
%n_half = arith.addi %n0, %b_row : index"""
    return "\n".join(indent + line for line in lines.splitlines())


def releasers_of(cluster, multicast_b):
    """%releaser: the consumer threads that release stages, and with B
    multicast %release_cta, the CTA each one releases on."""
    if not multicast_b:
        return """      // Lane 0 of each warp releases stages.
      %releasing_lanes = arith.constant 1 : index
      %releaser = arith.cmpi ult, %lane, %releasing_lanes : index
"""
    return f"""      // One thread per warpgroup and CTA releases stages: lane 0 of
      // warp r of the warpgroup, on CTA r (r < {cluster}; different warps, so
      // the arrivals of a warpgroup issue in parallel).
      %c_cluster = arith.constant {cluster} : index
      %warp_in_wg = arith.divui %tid_in_wg, %c32 : index
      %lane0 = arith.cmpi eq, %lane, %c0 : index
      %cta_warp = arith.cmpi ult, %warp_in_wg, %c_cluster : index
      %releaser = arith.andi %lane0, %cta_warp : i1
      %release_cta = arith.index_cast %warp_in_wg : index to i32
"""


def release(stage, multicast_b, indent):
    """A releasing thread releases `stage` (after the wgmmas reading it
    retired): on its own CTA's empty barrier, or with B multicast on CTA
    %release_cta's (either CTA's producer writes into both CTAs' stage).
    The remote arrive releases at CTA scope: it announces completed reads
    of this CTA's shared memory, and the other CTA only overwrites them; a
    cluster-scope release costs a GPU-scope memory barrier (MEMBAR.ALL.GPU)
    in every K step."""
    if not multicast_b:
        text = f"nvgpu.mbarrier.arrive %empty[{stage}] : !ring -> !nvgpu.mbarrier.token"
    else:
        text = (f"tile.mbarrier_arrive_remote %empty[{stage}] : !ring, "
                "cta %release_cta scope cta")
    return "\n".join(indent + line for line in text.splitlines())


def teardown(multicast_b):
    """With B multicast, neither CTA exits while the other may still
    arrive on its barriers."""
    if not multicast_b:
        return ""
    return """    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}
"""


def problem(m_in, m_out, g_in, g_out, n_dim, fit_m=False):
    """M, N, K read off A (M x K) and B (dim `n_dim` is N), the tile
    counts, and A, B, C as tile buffers; with `fit_m` also %m_fit
    (last_fitting_row)."""
    return f"""    %M = memref.dim %a, %c0 : {m_in}
    %K = memref.dim %a, %c1 : {m_in}
    %N = memref.dim %b, %c{n_dim} : {m_in}
    %tiles_m = arith.ceildivui %M, %c_bm : index
    %tiles_n = arith.ceildivui %N, %c_bn : index
    %k_tiles = arith.ceildivui %K, %c_bk : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %group_tiles = arith.muli %c_group, %tiles_n : index
{last_fitting_row() if fit_m else ""}    %ga = tile.from_memref %a : {m_in} -> {g_in}
    %gb = tile.from_memref %b : {m_in} -> {g_in}
    %gc = tile.from_memref %c : {m_out} -> {g_out}
"""


def last_fitting_row():
    """%m_fit: the last row origin whose tile lies inside A (0 when M is
    below the tile's rows %c_bm), where raster's `fit_m` starts a last row
    tile past M."""
    return """    // The last row origin whose tile lies inside A (0 when M < BM).
    %m_fit_end = arith.maxui %M, %c_bm : index
    %m_fit = arith.subi %m_fit_end, %c_bm : index
"""


def grouped_walk(group_rows, group_tiles, rows, row):
    """Walk index %t -> tile row `row` and column %pn: `group_rows` rows at
    a time out of `rows`, column-major inside a group of `group_tiles`
    tiles, so consecutive CTAs share B columns and A rows in L2."""
    return f"""%group = arith.divui %t, {group_tiles} : index
%first_m = arith.muli %group, {group_rows} : index
%rows_left = arith.subi {rows}, %first_m : index
%group_m = arith.minui %rows_left, {group_rows} : index
%in_group = arith.remui %t, {group_tiles} : index
%row_off = arith.remui %in_group, %group_m : index
{row} = arith.addi %first_m, %row_off : index
%pn = arith.divui %in_group, %group_m : index"""


def raster(indent, fit_m=False):
    """Tile t -> (m0, n0), grouped (grouped_walk) over the tile rows. With
    `fit_m` a last row tile that would run past M starts at M - BM
    instead (when M >= BM), overlapping the tile before it: its loads stay
    inside A, whose out-of-bounds rows cost TMA time in proportion to
    their count (docs/Performance.md (j)), and the rows both tiles hold
    are computed alike and stored twice with the same bits."""
    origin = ("%m0_walk = arith.muli %pm, %c_bm : index\n"
              "%m0 = arith.minui %m0_walk, %m_fit : index" if fit_m else
              "%m0 = arith.muli %pm, %c_bm : index")
    lines = grouped_walk("%c_group", "%group_tiles", "%tiles_m", "%pm") + f"""
{origin}
%n0 = arith.muli %pn, %c_bn : index"""
    return "\n".join(indent + line for line in lines.splitlines())


CONFIGS = [
    # (type, output type, B MN-major, BM, BN, BK, stages[, B multicast])
    ("bf16", "bf16", False, 128, 256, 64, 3),
    ("bf16", "bf16", False, 128, 256, 32, 6),
    ("f16", "f16", False, 128, 256, 64, 3),
    ("f16", "f16", False, 128, 256, 32, 6),
    ("bf16", "bf16", True, 128, 256, 64, 3),
    ("f8E4M3FN", "bf16", False, 128, 256, 128, 3),
    # 192-wide N tiles: 8192 x 8192 is 2752 of them, 20.8 waves on 132 SMs
    # (2048 128 x 256 tiles are 15.5 waves: half the SMs idle in the last).
    ("bf16", "bf16", False, 128, 192, 64, 4),
    ("f16", "f16", False, 128, 192, 64, 4),
    # Narrower tiles for problems with few 128 x 256 tiles (small M or N).
    ("bf16", "bf16", False, 128, 128, 64, 5),
    # 128 x 64 tiles: a stage is 24 KiB and holds a quarter of the MMA
    # work of a 128 x 256 one, so the ring is as deep as shared memory
    # allows (8 stages, 192 KiB beside the 16 KiB output tile): 8 ran
    # 8-25 % faster than 6 on an H200 at M = 128-1024 (with 6 the
    # consumers' K loop waited on its full barriers: the ring did not
    # cover the loads' latency).
    ("bf16", "bf16", False, 128, 64, 64, 8),
    # B MN-major: a 64-wide N tile is one 128-byte swizzle atom per K row.
    ("bf16", "bf16", True, 128, 64, 64, 8),
    ("f16", "f16", False, 128, 128, 64, 5),
    ("f16", "f16", False, 128, 64, 64, 8),
    ("f8E4M3FN", "bf16", False, 128, 128, 128, 5),
    ("f8E4M3FN", "bf16", False, 128, 64, 128, 8),
    # Clusters of 2 along M sharing B by TMA multicast.
    ("bf16", "bf16", False, 128, 256, 64, 3, True),
    ("bf16", "bf16", False, 128, 256, 32, 6, True),
    ("f16", "f16", False, 128, 256, 64, 3, True),
    ("f8E4M3FN", "bf16", False, 128, 256, 128, 3, True),
]


# Kernels that also get an ldgsts version (`<name>_ldgsts`, the manifest's
# version_of the TMA one): cp.async reads tensors whose base or row stride
# is a multiple of 4 or 8 bytes but not 16, which TMA refuses; TileRuntime
# launches it when the TMA kernel cannot take the call's tensors.
LDGSTS_VERSIONS = [
    ("bf16", "bf16", False, 128, 256, 64, 3),
    ("bf16", "bf16", False, 128, 128, 64, 5),
    ("f16", "f16", False, 128, 128, 64, 5),
    ("f8E4M3FN", "bf16", False, 128, 128, 128, 5),
]

# Fused epilogues on the family's 128 x 256 and 128 x 192 bf16 kernels:
# (config, epilogue). Listed apart in the case file ("epilogue_kernels"):
# they take the bias as an extra argument.

EPILOGUE_CONFIGS = [
    (("bf16", "bf16", False, 128, 256, 64, 3), "bias"),
    (("bf16", "bf16", False, 128, 256, 64, 3), "bias_relu"),
    (("bf16", "bf16", False, 128, 256, 64, 3), "bias_gelu"),
    (("bf16", "bf16", False, 128, 256, 64, 3), "bias_silu"),
    (("bf16", "bf16", False, 128, 192, 64, 4), "bias_gelu"),
    (("f16", "f16", False, 128, 256, 64, 3), "bias_gelu"),
    (("bf16", "bf16", False, 128, 256, 64, 3), "alpha_row_bias"),
    # The source tile in registers beside a 128 x 256 accumulator spills
    # (ldmatrix addresses on top of 192 data registers): 128 x 192 tiles.
    (("bf16", "bf16", False, 128, 192, 64, 4), "alpha_beta_c"),
    (("f16", "f16", False, 128, 192, 64, 4), "alpha_beta_c"),
    (("bf16", "f8E4M3FN", False, 128, 256, 64, 3), "scale_e4m3"),
    (("f8E4M3FN", "f8E4M3FN", False, 128, 256, 128, 3), "scale_e4m3"),
]


# Ping-pong kernels (pingpong_kernel): (type, output type, BN, BK, stages,
# epilogue or None). 128 x 128 tiles per warpgroup: the accumulator is 128
# registers a thread, as the cooperative 128 x 256 kernels' half tile.
PINGPONG_CONFIGS = [
    ("bf16", "bf16", 128, 64, 4, None),
    ("bf16", "bf16", 128, 64, 4, "bias_gelu"),
    ("bf16", "bf16", 128, 64, 4, "bias_silu"),
]


def parse_arguments():
    """OUT.mlir [OUT.json]: `--help` prints this script's description."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_mlir", help="the gpu.module to write")
    parser.add_argument("out_json", nargs="?",
                        help="the case list (JSON) to write")
    parser.add_argument("--kernels", metavar="NAME,...",
                        help="write only these kernels (tests compile one)")
    return parser.parse_args()


def main():
    args = parse_arguments()
    kernels, cases, epilogue_cases = [], [], []
    only = set(args.kernels.split(",")) if args.kernels else None
    for config in CONFIGS:
        text, case = gemm_kernel(*config)
        if only is None or case["kernel"] in only:
            kernels.append(text)
            cases.append(case)
    for config in LDGSTS_VERSIONS:
        assert config in CONFIGS, "a version needs its TMA kernel"
        text, case = gemm_kernel(*config, copy="ldgsts")
        if only is None or case["kernel"] in only:
            kernels.append(text)
            cases.append(case)
    for config, epilogue in EPILOGUE_CONFIGS:
        text, case = gemm_kernel(*config, epilogue=epilogue)
        if only is None or case["kernel"] in only:
            kernels.append(text)
            epilogue_cases.append(case)
    for ty, out_ty, bn, bk, stages, epilogue in PINGPONG_CONFIGS:
        text, case = pingpong_kernel(ty, out_ty, bn, bk, stages, epilogue)
        if only is None or case["kernel"] in only:
            kernels.append(text)
            (epilogue_cases if epilogue else cases).append(case)
    # Each fused kernel's plain counterpart (the benchmark's baseline): the
    # family kernel of the same types and tile.
    plain = {(c["dtype"], c["out"], c["b_mn"], c["bm"], c["bn"], c["bk"]):
             c["kernel"] for c in reversed(cases)
             if not ({"cluster", "schedule", "version_of"} & set(c))}
    for case in epilogue_cases:
        key = (case["dtype"], case["out"], case["b_mn"], case["bm"],
               case["bn"], case["bk"])
        if "schedule" not in case and key in plain:
            case["plain"] = plain[key]
    # A version is launched with its kernel's arguments: the manifest
    # reader refuses one whose kernel is missing.
    missing = {c["version_of"] for c in cases if "version_of" in c} - {
        c["kernel"] for c in cases}
    if missing:
        sys.exit(f"versions without their kernels: {', '.join(sorted(missing))}")
    if only is not None and len(cases) + len(epilogue_cases) != len(only):
        known = {c["kernel"] for c in cases + epilogue_cases}
        sys.exit(f"unknown kernels: {', '.join(sorted(only - known))}")
    header = f"""// Generated by bench/Kernels/gen_gemm_kernels.py: persistent,
// warp-specialized GEMMs in tile IR. Do not edit.
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {max(c[6] for c in CONFIGS)}>
gpu.module @gemm [#nvvm.target<chip = "sm_90a">] {{
"""
    with open(args.out_mlir, "w") as f:
        f.write(header + "".join(kernels) + "}\n")
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump({"kernels": cases, "epilogue_kernels": epilogue_cases},
                      f, indent=1)


if __name__ == "__main__":
    main()

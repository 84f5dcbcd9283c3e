#!/usr/bin/env python3
"""Writes the gemm_async shape matrix's lowering configurations as one
sm_100a module (one device function per configuration).

The grid of unittests/Variants/Tcgen05MmaPlannerTest.cpp (ShapeMatrix): 5
element types x cta_group 1/2 x M {32..512} x N {8..512} x K of 32/48/128
bytes, K-major operands in 8x16-byte core matrices (no swizzle), C on the data
path of the widest instruction M. Which configurations lower is decided here
from the PTX ISA's tcgen05.mma shape rules (docs/Tcgen05Mma.md), written apart
from the planner; the planner must agree (the lit test lowers and assembles
these; the unit test checks the declines). With --count it prints the number
of configurations and of MMAs the rules predict instead.
"""
import sys

TYPES = [("f16", "f32", 16, 16), ("bf16", "f32", 16, 16), ("f32", "f32", 32, 8),
         ("f8E4M3FN", "f32", 8, 32), ("i8", "i32", 8, 32)]
MS = (32, 64, 128, 192, 256, 512)
NS = (8, 16, 24, 32, 48, 64, 96, 128, 256, 512)


def legal_n(g, inst_m, n, i8):
    """The shape table's N for (cta_group, M); kind::i8 has its own steps."""
    if g == 2:
        return n % (32 if i8 else 16) == 0
    if inst_m == 128:
        return n % 16 == 0
    return n % 8 == 0 if not i8 or n <= 32 else n % 16 == 0


def instruction(g, m, n, k, inst_k, i8=False):
    """(instM, instN) by the rules, or None when declined."""
    inst_m = 128 * g if m % (128 * g) == 0 else 64 * g if m % (64 * g) == 0 else 0
    if not inst_m:
        return None
    inst_n = max([c for c in range(8, min(n, 256) + 1, 8)
                  if n % c == 0 and legal_n(g, inst_m, c, i8)], default=0)
    if not inst_n or k % inst_k or (m // inst_m) * n > 512:
        return None
    return inst_m, inst_n


def core_matrices(rows, k, bits):
    per_chunk = 128 // bits
    if rows < 8:
        return f"S[({rows},{k // per_chunk},{per_chunk}):({per_chunk},{8 * per_chunk},1)]"
    return (f"S[({rows // 8},8,{k // per_chunk},{per_chunk}):"
            f"({k * 8},{per_chunk},{8 * per_chunk},1)]")


def accumulator(g, m_local, n, inst_m, inst_n):
    rows = inst_m // g
    tiles = m_local // rows
    lead = f"{tiles}," if tiles > 1 else ""
    lead_stride = f"{n}@TCol," if tiles > 1 else ""
    if rows == 128:
        return f"S[({lead}128,{n}):({lead_stride}1@TLane,1@TCol)]"
    if g == 2:
        # Data path B: each instruction's N halves on lanes 0-63 / 64-127.
        half = inst_n // 2
        return (f"S[({lead}64,{n // inst_n},2,{half}):"
                f"({lead_stride}1@TLane,{half}@TCol,64@TLane,1@TCol)]")
    return f"S[({lead}4,16,{n}):({lead_stride}32@TLane,1@TLane,1@TCol)]"


configs = mmas = 0
lines = ['gpu.module @gemm_shapes [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {']
for elt, acc, bits, inst_k in TYPES:
    for g in (1, 2):
        for m in MS:
            for n in NS:
                for k_bytes in (32, 48, 128):
                    k = k_bytes * 8 // bits
                    shape = instruction(g, m, n, k, inst_k, elt == "i8")
                    if not shape:
                        continue
                    inst_m, inst_n = shape
                    configs += 1
                    mmas += (m // inst_m) * (n // inst_n) * (k // inst_k)
                    ml, nl = m // g, n // g
                    a = f"!tile.buffer<{ml}x{k}x{elt}, shared, #tile.layout<{core_matrices(ml, k, bits)}>>"
                    b = f"!tile.buffer<{nl}x{k}x{elt}, shared, #tile.layout<{core_matrices(nl, k, bits)}>>"
                    c = f"!tile.buffer<{ml}x{n}x{acc}, tmem, #tile.layout<{accumulator(g, ml, n, inst_m, inst_n)}>>"
                    lines.append(f"  gpu.func @{elt}_cg{g}_m{m}_n{n}_k{k}(%c: {c}, %a: {a}, %b: {b}) {{")
                    lines.append(f"    tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [{m}, {n}, {k}] exec thread "
                                 f"{{cta_group = {g} : i32, transpose_b}} : {c}, {a}, {b}")
                    lines.append("    gpu.return")
                    lines.append("  }")
lines.append("}")
if "--count" in sys.argv[1:]:
    print(f"configurations {configs} mmas {mmas}")
else:
    print("\n".join(lines))

#!/usr/bin/env python3
"""The tile-IR forward-attention kernels (bench/Kernels/gen_attention_kernels.py)
on a GPU, against torch in the same process.

  attention_bench.py check [dense|varlen]
                              O and LSE against a float32 reference on random
                              data: every head dim × causal × dtype, sequence
                              lengths that are and are not multiples of 64,
                              odd batch × heads, GQA ratios 1, 4, 8; packed
                              variable-length batches (sequences without
                              queries or keys, tails, Sq != Sk); both
                              unless one is named
  attention_bench.py bench    TFLOP/s against torch SDPA through cuDNN and
                              FlashAttention-2, and FlexAttention (Triton,
                              torch.compile'd; causal as a block mask)
                              (each captured as a CUDA graph, replays
                              interleaved, medians; the tile kernels'
                              eager calls too), at the FlashAttention-3
                              paper's setup (batch × seq = 16k tokens,
                              heads × dim = 2048)
  attention_bench.py bench-varlen
                              TFLOP/s of packed batches (16k tokens of
                              random lengths) against FlashAttention-2's
                              varlen kernel in torch, and against the tile
                              kernels on the same sequences padded to the
                              longest
  attention_bench.py profile D causal|full SEQ
                              three launches of one kernel (for ncu), bf16

Needs build/device/ (kernels/attention.sm_90a.*, python/tile_mlir) and torch;
TILE_ATTENTION_DIR names another folder of attention.sm_90a.* and
attention.cases.json (a variant of the generator to compare);
TILE_ATTENTION_SHAPES=small makes check run five small shapes (what
scripts/device-run runs under compute-sanitizer), TILE_ATTENTION_KERNELS
(comma-separated kernel names) restricts it to those kernels; TILE_ATTENTION_CTAS caps
the persistent kernels' grid (so that each CTA walks several tiles). For bench,
TILE_ATTENTION_COMPARE names a folder of another build whose kernels are
timed in the same rounds (column "other", ratio tile/other), and
TILE_ATTENTION_HEAD_DIMS / TILE_ATTENTION_SEQS / TILE_ATTENTION_MASKS
(comma-separated; masks "full" and "causal") restrict the table;
TILE_ATTENTION_FLEX=0 leaves FlexAttention out (its compiles, one per
shape, take minutes).
TILE_DEVICE_DIR names the folder (default: build/device next to this
script's repository).
"""
import sys

MODES = ("check", "bench", "bench-varlen", "profile")
if __name__ == "__main__" and (len(sys.argv) < 2 or sys.argv[1] not in MODES):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)

import math
import os
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
DEVICE = Path(os.environ.get("TILE_DEVICE_DIR", HERE.parent / "build" / "device"))
sys.path.insert(0, str(DEVICE / "python"))
from tile_mlir.attention import Attention as AttentionKernels  # noqa: E402
from timing import interleaved, median_ms  # noqa: E402


def Attention():
    """The family in build/device/kernels (tile_mlir.attention), or in
    $TILE_ATTENTION_DIR (another build of the generator, to compare)."""
    ctas = os.environ.get("TILE_ATTENTION_CTAS")
    return AttentionKernels(os.environ.get("TILE_ATTENTION_DIR", DEVICE / "kernels"),
                            max_ctas=int(ctas) if ctas else None)


TORCH_TYPE = {"bf16": torch.bfloat16, "f16": torch.float16}



def reference(q, k, v, causal, scale):
    """float32 O and LSE; K/V heads repeated for GQA; causal is top-left
    aligned (key j visible to query i when j <= i), as torch's is_causal."""
    group = q.shape[1] // k.shape[1]
    k = k.float().repeat_interleave(group, dim=1)
    v = v.float().repeat_interleave(group, dim=1)
    s = torch.einsum("bhqd,bhkd->bhqk", q.float(), k) * scale
    if causal:
        sq, sk = s.shape[-2], s.shape[-1]
        mask = torch.ones(sq, sk, dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    return torch.softmax(s, dim=-1) @ v, lse


CHECK_SHAPES = [  # batch, q heads, kv heads, seq_q, seq_k
    (1, 1, 1, 1, 1), (1, 3, 3, 127, 127), (3, 5, 5, 1000, 1000),
    (2, 4, 1, 4097, 4097), (1, 8, 1, 300, 300), (2, 8, 2, 64, 64),
    (1, 2, 2, 200, 513), (1, 2, 2, 513, 200),
]
# TILE_ATTENTION_SHAPES=small: the shapes the sanitizers run (seconds, not
# hours, under racecheck): tails, GQA, Sq != Sk both ways, several K/V
# blocks per CTA (both ring stages reused).
SMALL_CHECK_SHAPES = [(1, 1, 1, 1, 1), (1, 2, 1, 127, 300), (1, 2, 2, 200, 513),
                      (1, 2, 2, 513, 200)]
SMALL_LAYOUT_SHAPES = [((1, 3, 3, 300, 300), "bshd")]


# Memory orders read in place: (shape, layout) with layout "bshd" (Q/K/V
# allocated [batch, seq, heads, dim] and passed transposed, as a
# FlashAttention-style caller holds them) or "packed" (slices of one
# [batch, seq, 3, heads, dim] QKV tensor; no GQA).
LAYOUT_SHAPES = [((2, 4, 2, 300, 300), "bshd"), ((1, 3, 3, 127, 1000), "bshd"),
                 ((2, 3, 3, 200, 200), "packed")]


def inputs(b, h, hk, sq, sk, d, dtype, layout):
    """Random normal q [b, h, sq, d], k and v [b, hk, sk, d] in `layout`."""
    t = TORCH_TYPE[dtype]
    if layout == "packed":
        qkv = torch.randn(b, sq, 3, h, d, dtype=t, device="cuda")
        return tuple(qkv[:, :, i].transpose(1, 2) for i in range(3))
    if layout == "bshd":
        return (torch.randn(b, sq, h, d, dtype=t, device="cuda").transpose(1, 2),
                torch.randn(b, sk, hk, d, dtype=t, device="cuda").transpose(1, 2),
                torch.randn(b, sk, hk, d, dtype=t, device="cuda").transpose(1, 2))
    return (torch.randn(b, h, sq, d, dtype=t, device="cuda"),
            torch.randn(b, hk, sk, d, dtype=t, device="cuda"),
            torch.randn(b, hk, sk, d, dtype=t, device="cuda"))


# Packed batches: (q heads, kv heads, query counts, key counts).
VARLEN_CHECK_CASES = [
    (2, 2, [1, 127, 128, 129, 300], [1, 127, 128, 129, 300]),
    (4, 1, [1000, 0, 513, 64], [1000, 5, 513, 64]),  # a sequence without queries
    (2, 2, [200, 77, 3], [513, 0, 3]),  # a sequence without keys: O 0, LSE -inf
    (2, 1, [300, 50], [100, 700]),
    (3, 3, [4097], [4097]),
]
# What the sanitizers run: tails, GQA, Sq != Sk, sequences without
# queries and without keys, in one packed batch.
SMALL_VARLEN_CHECK_CASES = [(2, 1, [129, 0, 200, 3], [300, 5, 0, 3])]


def varlen_inputs(h, hk, total_q, total_k, d, dtype, layout):
    """Random normal packed q [total_q, h, d], k and v [total_k, hk, d]:
    contiguous, slices of one packed QKV tensor ("packed", h == hk and
    total_q == total_k), or rows 8 bytes longer than the heads ("padded",
    which the ragged views cannot read: copied)."""
    t = TORCH_TYPE[dtype]
    if layout == "packed":
        qkv = torch.randn(total_q, 3, h, d, dtype=t, device="cuda")
        return qkv[:, 0], qkv[:, 1], qkv[:, 2]
    if layout == "padded":
        def make(n, heads):
            return torch.randn(n, heads * d + 4, dtype=t,
                               device="cuda")[:, :heads * d].view(n, heads, d)
        return make(total_q, h), make(total_k, hk), make(total_k, hk)
    return (torch.randn(total_q, h, d, dtype=t, device="cuda"),
            torch.randn(total_k, hk, d, dtype=t, device="cuda"),
            torch.randn(total_k, hk, d, dtype=t, device="cuda"))


def check_varlen(attention, case, small):
    """Failures of one varlen kernel over VARLEN_CHECK_CASES: each sequence
    against the float32 reference, sequences without keys O = 0 and LSE =
    -inf."""
    d, causal, dtype = case["head_dim"], case["causal"], case["dtype"]
    cases = SMALL_VARLEN_CHECK_CASES if small else VARLEN_CHECK_CASES
    failures = 0
    for index, (h, hk, lens_q, lens_k) in enumerate(cases):
        layouts = ["contiguous"]
        if index == 0 and not small:
            layouts += ["packed", "padded"]
        for layout in layouts:
            cu_q = torch.tensor([0] + lens_q, device="cuda").cumsum(0).int()
            cu_k = torch.tensor([0] + lens_k, device="cuda").cumsum(0).int()
            q, k, v = varlen_inputs(h, hk, sum(lens_q), sum(lens_k), d, dtype, layout)
            scale = 1.0 / math.sqrt(d)
            o, lse = attention.varlen(q, k, v, cu_q, cu_k, max(lens_q), causal, scale)
            torch.cuda.synchronize()
            o_err = lse_err = 0.0
            ok = o.shape == q.shape and lse.shape == (h, q.shape[0])
            for b, (sq, sk) in enumerate(zip(lens_q, lens_k)):
                if sq == 0:
                    continue
                rows = slice(int(cu_q[b]), int(cu_q[b]) + sq)
                if sk == 0:
                    ok = ok and bool((o[rows] == 0).all()) and \
                        bool((lse[:, rows] == float("-inf")).all())
                    continue
                keys = slice(int(cu_k[b]), int(cu_k[b]) + sk)
                ro, rlse = reference(q[rows].transpose(0, 1)[None],
                                     k[keys].transpose(0, 1)[None],
                                     v[keys].transpose(0, 1)[None], causal, scale)
                o_err = max(o_err, (o[rows].float() - ro[0].transpose(0, 1)).abs().max().item())
                lse_err = max(lse_err, (lse[:, rows] - rlse[0]).abs().max().item())
            ok = ok and o_err <= (0.03 if dtype == "bf16" else 0.006) and lse_err <= 1e-3
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {case['kernel']:35} h{h}/{hk} "
                  f"q {lens_q} k {lens_k} {layout}: max|O-ref| {o_err:.2e}, "
                  f"max|LSE-ref| {lse_err:.2e}")
    return failures


def check(kinds=("dense", "varlen")):
    torch.manual_seed(0)
    attention = Attention()
    failures = 0
    small = os.environ.get("TILE_ATTENTION_SHAPES") == "small"
    only = os.environ.get("TILE_ATTENTION_KERNELS")
    only = set(only.split(",")) if only else None
    unknown = only - {case["kernel"] for case in attention.cases} if only else None
    if unknown:
        raise SystemExit(f"TILE_ATTENTION_KERNELS: no kernel named {sorted(unknown)}")
    for case in attention.cases:
        if only and case["kernel"] not in only:
            continue
        if case.get("varlen"):
            if "varlen" in kinds:
                failures += check_varlen(attention, case, small)
            continue
        if "dense" not in kinds:
            continue
        d, causal, dtype = case["head_dim"], case["causal"], case["dtype"]
        shapes = ([(s, "bhsd") for s in SMALL_CHECK_SHAPES] + SMALL_LAYOUT_SHAPES
                  if small else [(s, "bhsd") for s in CHECK_SHAPES] + LAYOUT_SHAPES)
        for (b, h, hk, sq, sk), layout in shapes:
            q, k, v = inputs(b, h, hk, sq, sk, d, dtype, layout)
            scale = 1.0 / math.sqrt(d)
            # Each kernel on every shape, not only those it is chosen for.
            o, lse = attention(q, k, v, causal, scale, kernel=case["kernel"])
            torch.cuda.synchronize()
            ro, rlse = reference(q, k, v, causal, scale)
            o_err = (o.float() - ro).abs().max().item()
            lse_err = (lse - rlse).abs().max().item()
            # bf16 P and O: a few units of the last place of |O| <= ~3.
            ok = o_err <= (0.03 if dtype == "bf16" else 0.006) and lse_err <= 1e-3
            # O in q's memory order.
            ok = ok and (o.stride(1) < o.stride(2)) == (q.stride(1) < q.stride(2))
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {case['kernel']:28} b{b} h{h}/{hk} "
                  f"sq{sq} sk{sk} {layout}: max|O-ref| {o_err:.2e}, "
                  f"max|LSE-ref| {lse_err:.2e}")
    print(f"{failures} failures")
    return 1 if failures else 0


def flex_attention_entry():
    """FlexAttention as users call it: flex_attention under torch.compile
    (its Triton kernel; eager flex_attention is a reference
    implementation), causal through a block mask built outside the timed
    call. None where this torch has no FlexAttention or it is switched off."""
    if os.environ.get("TILE_ATTENTION_FLEX", "1") == "0":
        return None
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError:
        return None
    import torch._dynamo
    # One static-shape compile per shape and mask (36 in the table): the
    # kernel specialized for each shape, faster than the dynamic-shape one
    # torch.compile would switch to after the first; above the default
    # cache size of 8.
    torch._dynamo.config.cache_size_limit = 256
    compiled = torch.compile(flex_attention, dynamic=False)
    masks = {}

    def run(q, k, v, causal):
        block_mask = None
        if causal:
            seq = q.shape[-2]
            if seq not in masks:
                masks[seq] = create_block_mask(lambda b, h, i, j: i >= j, None, None,
                                               seq, seq, device="cuda")
            block_mask = masks[seq]
        return compiled(q, k, v, block_mask=block_mask)
    return run


def bench():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    torch.manual_seed(0)
    flex = flex_attention_entry()
    attention = Attention()
    other_dir = os.environ.get("TILE_ATTENTION_COMPARE")
    other = AttentionKernels(other_dir) if other_dir else None
    head_dims = [int(x) for x in os.environ.get("TILE_ATTENTION_HEAD_DIMS", "64,128,256").split(",")]
    seqs = [int(x) for x in os.environ.get(
        "TILE_ATTENTION_SEQS", "512,1024,2048,4096,8192,16384").split(",")]
    masks = [m == "causal" for m in os.environ.get(
        "TILE_ATTENTION_MASKS", "full,causal").split(",")]
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("TFLOP/s (causal counts half the FLOPs); ratios against cuDNN")
    for d in head_dims:
        for causal in masks:
            for seq in seqs:
                batch, heads = 16384 // seq, 2048 // d
                q, k, v = (torch.randn(batch, heads, seq, d, dtype=torch.bfloat16,
                                       device="cuda") for _ in range(3))
                flops = 4 * batch * heads * seq * seq * d / (2 if causal else 1)
                entries = {"tile": lambda: attention(q, k, v, causal)}
                if other:
                    entries["other"] = lambda: other(q, k, v, causal)
                for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                      ("fa2", SDPBackend.FLASH_ATTENTION)):
                    def run(backend=backend):
                        with sdpa_kernel(backend):
                            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    entries[name] = run
                if flex:
                    entries["flex"] = lambda: flex(q, k, v, causal)
                # GPU time: each entry captured as a CUDA graph of 10 calls,
                # the graphs replayed in turn (3 rounds, each replay timed
                # after an untimed one), medians. Eager calls would add the
                # host's launch time, which for seq 512 is a third of the
                # kernel's (see eager below).
                ms = interleaved(entries)
                entries["tile"]()
                ms["eager"] = median_ms(entries["tile"], 10)
                tf = {n: flops / (t * 1e-3) / 1e12 for n, t in ms.items()}
                print(f"d{d} {'causal' if causal else 'full  '} seq {seq:5}: "
                      f"tile {tf['tile']:6.1f}  cudnn {tf['cudnn']:6.1f}  fa2 {tf['fa2']:6.1f}  "
                      f"tile/cudnn {tf['tile'] / tf['cudnn']:.2f}  tile/fa2 {tf['tile'] / tf['fa2']:.2f}  "
                      f"tile eager {tf['eager']:6.1f}"
                      + (f"  flex {tf['flex']:6.1f}  tile/flex {tf['tile'] / tf['flex']:.2f}"
                         if flex else "")
                      + (f"  other {tf['other']:6.1f}  tile/other {tf['tile'] / tf['other']:.2f}"
                         if other else ""))
    return 0


def varlen_lengths(total, mean, generator):
    """Random sequence lengths, uniform in [mean / 2, 3 mean / 2], the last
    one cut so that they sum to `total`."""
    lengths = []
    while sum(lengths) < total:
        lengths.append(int(torch.randint(mean // 2, 3 * mean // 2 + 1, (1,),
                                         generator=generator)))
    lengths[-1] -= sum(lengths) - total
    return [n for n in lengths if n > 0]


def bench_varlen():
    """Packed batches of 16k tokens against FlashAttention-2's varlen kernel
    (torch.ops.aten._flash_attention_forward) and the tile kernels on the
    same sequences padded to the longest (the dense batch)."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    attention = Attention()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("TFLOP/s of the packed sequences' FLOPs (causal counts half)")
    for d in (64, 128, 256):
        for causal in (False, True):
            for mean in (512, 2048):
                heads = 2048 // d
                lengths = varlen_lengths(16384, mean, generator)
                cu = torch.tensor([0] + lengths, device="cuda").cumsum(0).int()
                longest = max(lengths)
                q, k, v = (torch.randn(16384, heads, d, dtype=torch.bfloat16,
                                       device="cuda") for _ in range(3))
                qp, kp, vp = (torch.randn(len(lengths), heads, longest, d,
                                          dtype=torch.bfloat16, device="cuda")
                              for _ in range(3))
                flops = sum(4 * heads * n * n * d for n in lengths) / (2 if causal else 1)
                entries = {
                    "tile": lambda: attention.varlen(q, k, v, cu, cu, longest, causal),
                    "fa2": lambda: torch.ops.aten._flash_attention_forward(
                        q, k, v, cu, cu, longest, longest, 0.0, causal, False),
                    "padded": lambda: attention(qp, kp, vp, causal),
                }
                ms = interleaved(entries)
                tf = {n: flops / (t * 1e-3) / 1e12 for n, t in ms.items()}
                print(f"d{d} {'causal' if causal else 'full  '} mean {mean:5} "
                      f"({len(lengths)} seqs, longest {longest}): "
                      f"tile {tf['tile']:6.1f}  fa2 {tf['fa2']:6.1f}  "
                      f"tile/fa2 {tf['tile'] / tf['fa2']:.2f}  "
                      f"tile padded {tf['padded']:6.1f}")
    return 0


def profile(d, causal, seq):
    torch.manual_seed(0)
    attention = Attention()
    batch, heads = 16384 // seq, 2048 // d
    q, k, v = (torch.randn(batch, heads, seq, d, dtype=torch.bfloat16, device="cuda")
               for _ in range(3))
    for _ in range(3):
        attention(q, k, v, causal)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "profile":
        sys.exit(profile(int(sys.argv[2]), sys.argv[3] == "causal", int(sys.argv[4])))
    if sys.argv[1] == "check":
        kinds = tuple(sys.argv[2:]) or ("dense", "varlen")
        if not set(kinds) <= {"dense", "varlen"}:
            sys.exit(f"check takes dense and/or varlen, not {' '.join(kinds)}")
        sys.exit(check(kinds))
    sys.exit(bench() if sys.argv[1] == "bench" else bench_varlen())

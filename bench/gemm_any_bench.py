#!/usr/bin/env python3
"""tile_mlir.gemm (python/tile_mlir/gemm.py: the kernel chosen per call,
swap-AB for M <= 64, split-K for few tiles and long K) on a GPU, against
torch (cuBLAS) in the same process.

  gemm_any_bench.py check   C against a float32 reference on random normal
                            data: small and odd M, N, K, strides TMA cannot
                            take (copied), transposed B, e4m3; every shape
                            run twice for bit equality
  gemm_any_bench.py check-clusters
                            the cluster split-K kernels alone, on small
                            shapes (for compute-sanitizer)
  gemm_any_bench.py bench   TFLOP/s against torch.matmul (cuBLAS) on the
                            grid M in {1 .. 4096} x LLM (N, K), bf16 and
                            e4m3 (M <= 64 also without swap-AB), and the
                            misaligned 4095 x 4097 x 4096; each entry a CUDA
                            graph of 10 calls, replays interleaved (medians)
  gemm_any_bench.py tuned   the same grid with gemm.tune per problem (a
                            fresh cache): tuned, heuristic and cuBLAS
                            timed together; geometric means of both
  gemm_any_bench.py sweep [MxNxK ...]
                            every kernel and K-part count on small-M shapes
                            (what the choice's model is checked against);
                            swap-AB tiles of 64 rows also for M above 64

Tolerance: |C - ref| <= 2^-7 |ref| + 2^-7 rms(ref) (f16/bf16 output
rounding plus f32 sums in another order); e4m3: + 2^-5 rms(ref) (Hopper's
FP8 MMAs add with fewer bits than f32; cuBLAS's error is printed beside).
Needs build/device/ (kernels/gemm*.sm_90a.*, python/tile_mlir) and torch.
TILE_DEVICE_DIR names the folder (default: build/device next to this
script's repository).
"""
import sys

MODES = ("check", "check-clusters", "bench", "tuned", "sweep")
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
from tile_mlir.gemm import Gemm  # noqa: E402
from timing import interleaved  # noqa: E402


def close(what, c, ref, rms_tolerance=2 ** -7, baseline=None):
    """Within |ref| 2^-7 + rms(ref) `rms_tolerance` element-wise; with a
    `baseline` (cuBLAS's result) its error is printed beside ours."""
    c = c.float()
    rms = ref.pow(2).mean().sqrt().item() if ref.numel() else 0.0
    err = (c - ref).abs()
    bad = ~(err <= ref.abs() * 2 ** -7 + rms * rms_tolerance)
    worst = err.max().item() / rms if rms else 0.0
    other = ", cuBLAS refuses the shape" if baseline is False else ""
    if baseline is not None and baseline is not False:
        other = (f", cuBLAS {(baseline.float() - ref).abs().max().item() / rms:.1e}"
                 if rms else "")
    if c.shape != ref.shape or bad.any():
        print(f"FAIL {what}: {int(bad.sum()) if c.shape == ref.shape else 'shape'}"
              f" elements, max |err| / rms {worst:.1e}{other}")
        return False
    print(f"ok   {what}: max |err| / rms {worst:.1e}{other}")
    return True


def check():
    torch.manual_seed(0)
    gemm = Gemm(DEVICE / "kernels", tuning=False)
    failures = 0
    shapes = [(1, 4096, 4096), (16, 8192, 8192), (128, 8192, 8192),
              (256, 4096, 14336), (300, 700, 200), (4095, 4097, 4096),
              (64, 64, 64), (7, 9, 16), (2048, 2048, 2048), (129, 1000, 33),
              # swap-AB: every tile width, odd M, N and K, K split in parts
              (33, 1000, 520), (17, 2112, 7168), (64, 28672, 4096),
              (1, 1000, 24), (127, 4100, 4096)]
    for dtype in (torch.bfloat16, torch.float16):
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            w = torch.randn(n, k, device="cuda", dtype=dtype)
            ref = a.float() @ w.float().t()
            what = f"{str(dtype)[6:]} {m}x{n}x{k} ({gemm.explain(a, w)})"
            c = gemm.linear(a, w)
            ok = close(what, c, ref)
            ok &= torch.equal(c, gemm.linear(a, w))  # run to run: same bits
            failures += not ok
        # B as [K, N] (a transposed read: copied) and a misaligned A view.
        a = torch.randn(300, 520, device="cuda", dtype=dtype)[:, 1:513]
        b = torch.randn(512, 384, device="cuda", dtype=dtype)
        failures += not close(f"{str(dtype)[6:]} matmul, offset A view "
                              f"({gemm.explain(a, b.t())})",
                              gemm.matmul(a, b), a.float() @ b.float())
    # Rows 4 bytes apart from 16-byte multiples, read in place (in_place):
    # the kernels' cp.async versions (docs/Gemm.md), one per versioned
    # kernel, with odd M, N and K tails.
    for kernel, dtype, pad in (("gemm_bf16_tn_128x128x64_s5", torch.bfloat16, 2),
                               ("gemm_bf16_tn_128x256x64_s3", torch.bfloat16, 6),
                               ("gemm_f16_tn_128x128x64_s5", torch.float16, 2),
                               ("gemm_e4m3_tn_128x128x128_s5", torch.float8_e4m3fn, 4)):
        m, n, k = 1000, 1037, 4096 + 40
        a = torch.randn(m, k + pad, device="cuda").to(dtype)[:, :k]
        # W starts `pad` elements (4 or 12 bytes) into its rows.
        w = torch.randn(n, k + 2 * pad, device="cuda").to(dtype)[:, pad:pad + k]
        choice = (kernel, None)
        why = gemm.linear(a, w, explain=True, choice=choice, in_place=True)
        ok = "in place" in why
        if not ok:
            print(f"FAIL {kernel}: operands copied, not read in place: {why}")
        ok &= close(f"{kernel} on rows of {k + pad} ({why})",
                    gemm.linear(a, w, choice=choice, in_place=True),
                    a.float() @ w.float().t(),
                    2 ** -5 if dtype == torch.float8_e4m3fn else 2 ** -7)
        failures += not ok
    # Stream-K, forced: CTA counts that split tiles unevenly (a tile over 1
    # to 4 CTAs, a CTA over several tiles), odd M, N and K tails; run twice
    # for the same bits.
    for dtype in (torch.bfloat16, torch.float16, torch.float8_e4m3fn):
        short = {torch.bfloat16: "bf16", torch.float16: "f16",
                 torch.float8_e4m3fn: "e4m3"}[dtype]
        kernel = next(c["kernel"] for c in gemm.stream_k
                      if c["kernel"].startswith(f"gemm_{short}_"))
        for m, n, k, ctas in ((128, 6144, 4096, 132), (256, 4096, 4096, 132),
                              (300, 700, 1000, 7), (129, 1000, 4100, 37),
                              (64, 384, 640, 5), (1, 128, 128, 1)):
            a = torch.randn(m, k, device="cuda").to(dtype)
            w = torch.randn(n, k, device="cuda").to(dtype)
            choice = (kernel, ctas)
            c = gemm.linear(a, w, choice=choice)
            ok = close(f"{kernel} {m}x{n}x{k} on {ctas} CTAs", c,
                       a.float() @ w.float().t(),
                       2 ** -5 if dtype == torch.float8_e4m3fn else 2 ** -7)
            ok &= torch.equal(c, gemm.linear(a, w, choice=choice))
            failures += not ok
    failures += check_cluster_k(gemm, small=False)
    # Hopper's FP8 MMAs add with fewer bits than f32 (why block-scaled
    # recipes promote every 128 K): e4m3 within 2^-5 rms, cuBLAS's error
    # printed beside.
    for m, n, k in [(128, 8192, 8192), (300, 700, 256), (16, 4096, 7168)]:
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        w = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
        try:  # cuBLASLt takes FP8 only with N and K multiples of 16
            cublas_c = cublas(a, w)()
        except RuntimeError:
            cublas_c = None
        failures += not close(f"e4m3 {m}x{n}x{k} ({gemm.explain(a, w)})",
                              gemm.linear(a, w), a.float() @ w.float().t(),
                              2 ** -5, False if cublas_c is None else cublas_c)
    try:
        gemm.linear(torch.randn(4, 8, device="cuda", dtype=torch.float64),
                    torch.randn(4, 8, device="cuda", dtype=torch.float64))
        print("FAIL f64 accepted")
        failures += 1
    except ValueError as e:
        print(f"ok   refused: {e}")
    print(f"{failures} failures")
    return 1 if failures else 0


def check_cluster_k(gemm, small):
    """Cluster split-K, forced: every kernel on odd M, N and K tails, a K
    of fewer tiles than parts (empty parts add zeros), more tiles than the
    GPU holds clusters at once (each cluster walks several); run twice for
    the same bits. `small`: only shapes quick enough for compute-sanitizer
    (the walk kept: 70 tiles of 128 columns)."""
    failures = 0
    for case in gemm.cluster_k:
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16,
                 "f8E4M3FN": torch.float8_e4m3fn}[case["dtype"]]
        tolerance = 2 ** -5 if dtype == torch.float8_e4m3fn else 2 ** -7
        shapes = [(case["bm"] - 3, 1000, 1000), (1, 130, case["bk"] * 2 + 8),
                  (3 * case["bm"] + 1, 8200, 2 * case["bk"] * case["cluster"])]
        if small:
            shapes = [(case["bm"] - 3, 300, 3 * case["bk"] + 8),
                      (case["bm"], 70 * 128, case["bk"] * case["cluster"])]
        else:
            shapes.insert(0, (case["bm"], 4096, 4096))
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda").to(dtype)
            w = torch.randn(n, k, device="cuda").to(dtype)
            choice = (case["kernel"], None)
            c = gemm.linear(a, w, choice=choice)
            ok = close(f"{case['kernel']} {m}x{n}x{k}", c,
                       a.float() @ w.float().t(), tolerance)
            ok &= torch.equal(c, gemm.linear(a, w, choice=choice))
            failures += not ok
    return failures


def check_clusters():
    """check_cluster_k alone, on small shapes (scripts/device-run runs it
    under compute-sanitizer)."""
    torch.manual_seed(0)
    failures = check_cluster_k(Gemm(DEVICE / "kernels", tuning=False), small=True)
    print(f"{failures} failures")
    return 1 if failures else 0


# The grid: decode/skinny M against LLM layer shapes (N, K).
BENCH_M = (1, 16, 32, 64, 128, 256, 1024, 4096)
BENCH_NK = ((4096, 4096), (6144, 4096), (28672, 4096), (4096, 14336),
            (8192, 8192), (1024, 8192))


def cublas(a, w):
    """The reference call for a @ w.T: torch's matmul (cuBLAS) for 16-bit
    types, torch._scaled_mm with unit scales (cuBLASLt, bf16 out) for
    e4m3."""
    if a.dtype == torch.float8_e4m3fn:
        one = torch.ones((), device="cuda")
        return lambda: torch._scaled_mm(a, w.t(), scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
    return lambda: a @ w.t()


def bench():
    """Every (M, N, K) of the grid, bf16 and e4m3, against cuBLAS; for
    M <= 64 also the choice without swap-AB (split-K or the family's
    128-row tiles), in the same interleaved rounds. Then the misaligned
    4095 x 4097 x 4096 problem. Prints the geometric means the goals are
    stated in."""
    torch.manual_seed(0)
    gemm = Gemm(DEVICE / "kernels", tuning=False)
    plain = Gemm(DEVICE / "kernels", tuning=False)
    plain.force_swap_ab = False
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("TFLOP/s, C = A W^T; ratio against torch (cuBLAS); 'no swap': "
          "the choice without swap-AB")
    ratios = {}
    for dtype in (torch.bfloat16, torch.float8_e4m3fn):
        for m in BENCH_M:
            for n, k in BENCH_NK:
                a = torch.randn(m, k, device="cuda").to(dtype)
                w = torch.randn(n, k, device="cuda").to(dtype)
                entries = {"tile": lambda: gemm.linear(a, w),
                           "torch": cublas(a, w)}
                if m <= 64:
                    entries["no swap"] = lambda: plain.linear(a, w)
                ms = interleaved(entries)
                tf = {name: 2 * m * n * k / (t * 1e-3) / 1e12
                      for name, t in ms.items()}
                ratio = tf["tile"] / tf["torch"]
                ratios[(str(dtype)[6:], m, n, k)] = ratio
                extra = (f"  no swap {tf['no swap']:7.1f} "
                         f"({tf['no swap'] / tf['torch']:.2f})"
                         if "no swap" in tf else "")
                print(f"{str(dtype)[6:]:13} {m:5}x{n:5}x{k:5}: tile "
                      f"{tf['tile']:7.1f}  torch {tf['torch']:7.1f}  ratio "
                      f"{ratio:.2f}{extra}  [{gemm.explain(a, w).split(':')[0]}]",
                      flush=True)
    # Strides TMA cannot take (a row of 4097 bf16 is 8194 bytes): A and W
    # are copied into aligned buffers first (docs/Gemm.md).
    m, n, k = 4095, 4097, 4096
    a = torch.randn(m, k + 1, device="cuda", dtype=torch.bfloat16)[:, :k]
    w = torch.randn(n, k + 1, device="cuda", dtype=torch.bfloat16)[:, :k]
    ms = interleaved({"tile": lambda: gemm.linear(a, w),
                      "torch": lambda: a @ w.t()})
    print(f"misaligned bf16 {m}x{n}x{k} (row strides {k + 1}): ratio "
          f"{ms['torch'] / ms['tile']:.2f}  [{gemm.explain(a, w)}]")
    # Rows of 4098 bf16 (8196 bytes: 4-byte aligned): the 128 x 256 kernel
    # copying them first (the default), its cp.async version reading them
    # in place (in_place), the TMA kernel alone on aligned operands, and
    # cuBLAS on the views.
    a = torch.randn(m, k + 2, device="cuda", dtype=torch.bfloat16)[:, :k]
    w = torch.randn(n, k + 2, device="cuda", dtype=torch.bfloat16)[:, :k]
    a16, w16 = a.contiguous(), w.contiguous()
    choice = ("gemm_bf16_tn_128x256x64_s3", None)
    ms = interleaved({
        "copy": lambda: gemm.linear(a, w, choice=choice),
        "ldgsts": lambda: gemm.linear(a, w, choice=choice, in_place=True),
        "aligned": lambda: gemm.linear(a16, w16, choice=choice),
        "torch": lambda: a @ w.t()})
    print(f"4-byte-aligned rows bf16 {m}x{n}x{k} (row strides {k + 2}), "
          f"TF/s: copy + TMA {2 * m * n * k / ms['copy'] / 1e9:.0f}, cp.async "
          f"in place {2 * m * n * k / ms['ldgsts'] / 1e9:.0f}, TMA on aligned "
          f"operands {2 * m * n * k / ms['aligned'] / 1e9:.0f}, cuBLAS on the "
          f"views {2 * m * n * k / ms['torch'] / 1e9:.0f}")

    def geomean(values):
        values = list(values)
        if not values:  # a grid without such M
            return float("nan")
        return math.exp(sum(math.log(v) for v in values) / len(values))
    for ty in ("bfloat16", "float8_e4m3fn"):
        small = [r for (t, m, _, _), r in ratios.items() if t == ty and m <= 256]
        large = [r for (t, m, _, _), r in ratios.items() if t == ty and m >= 1024]
        print(f"{ty}: geometric mean M <= 256 {geomean(small):.3f}, "
              f"M >= 1024 {geomean(large):.3f}, lowest "
              f"{min(ratios[key] for key in ratios if key[0] == ty):.2f}")
    return 0


def tuned():
    """The grid with an autotuned Gemm (gemm.tune on each problem, a fresh
    cache file) against the heuristic's choice and cuBLAS, interleaved in
    one set of rounds per problem; geometric means of both against
    cuBLAS."""
    import tempfile
    torch.manual_seed(0)
    cache = Path(tempfile.mkdtemp()) / "gemm-tuning.json"
    tuned_gemm = Gemm(DEVICE / "kernels", tuning=cache)
    gemm = Gemm(DEVICE / "kernels", tuning=False)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    ratios = {"tuned": {}, "heuristic": {}}
    for dtype in (torch.bfloat16, torch.float8_e4m3fn):
        for m in BENCH_M:
            for n, k in BENCH_NK:
                a = torch.randn(m, k, device="cuda").to(dtype)
                w = torch.randn(n, k, device="cuda").to(dtype)
                ranked = tuned_gemm.tune(a, w)
                ms = interleaved({"tuned": lambda: tuned_gemm.linear(a, w),
                                  "heuristic": lambda: gemm.linear(a, w),
                                  "torch": cublas(a, w)})
                key = (str(dtype)[6:], m, n, k)
                for name in ratios:
                    ratios[name][key] = ms["torch"] / ms[name]
                print(f"{key[0]:13} {m:5}x{n:5}x{k:5}: tuned "
                      f"{ratios['tuned'][key]:.2f}  heuristic "
                      f"{ratios['heuristic'][key]:.2f}  (of {len(ranked)}: "
                      f"{ranked[0][1][0]} / {ranked[0][1][1]}; heuristic "
                      f"{gemm.explain(a, w).split(':')[0]})", flush=True)
    for name, by_key in ratios.items():
        for dtype in ("bfloat16", "float8_e4m3fn"):
            small = [r for (d, m, _, _), r in by_key.items() if d == dtype and m <= 256]
            large = [r for (d, m, _, _), r in by_key.items() if d == dtype and m >= 1024]
            mean = lambda v: math.exp(sum(map(math.log, v)) / len(v))
            print(f"{name} {dtype}: geometric mean M <= 256 {mean(small):.3f}, "
                  f"M >= 1024 {mean(large):.3f}, lowest {min(small + large):.2f}")
    return 0


def sweep():
    """Every kernel and K-part count on the small-M shapes, timed against
    each other and cuBLAS in one interleaved round set per shape: the data
    the choice's model is checked against (docs/Gemm.md)."""
    torch.manual_seed(0)
    gemm = Gemm(DEVICE / "kernels", tuning=False)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    shapes = [tuple(int(x) for x in arg.split("x")) for arg in sys.argv[2:]]
    shapes = shapes or [(m, n, k) for m in (16, 64, 128, 256)
                        for n, k in ((4096, 4096), (6144, 4096), (8192, 8192),
                                     (1024, 8192))]
    for dtype in (torch.bfloat16, torch.float8_e4m3fn):
        ty = {torch.bfloat16: "bf16", torch.float8_e4m3fn: "f8E4M3FN"}[dtype]
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda").to(dtype)
            w = torch.randn(n, k, device="cuda").to(dtype)
            entries = {"torch": cublas(a, w)}
            chosen = gemm.choose(dtype, m, n, k, sms)
            for case in gemm.all_cases():
                # Swap-AB tiles narrower than M only in their 64-row form
                # (M of 65 and up walks several of them).
                if case["dtype"] != ty or (case.get("swap_ab")
                                           and case["bm"] < min(m, 64)):
                    continue
                k_tiles = -(-k // case["bk"])
                if case in gemm.stream_k:
                    steps = k_tiles * -(-m // case["bm"]) * -(-n // case["bn"])
                    for ctas in sorted({min(sms, steps), min(sms * 3 // 4, steps)}):
                        choice = (case["kernel"], ctas)
                        entries[choice] = (lambda c=choice: gemm.linear(a, w, choice=c))
                    continue
                counts = ([None] if case in gemm.family
                          or case in gemm.schedules
                          or case in gemm.cluster_k else
                          sorted({-(-k_tiles // -(-k_tiles // p))
                                  for p in (1, 2, 3, 4, 6, 8, 12, 16)
                                  if p <= k_tiles}))
                for parts in counts:
                    choice = (case["kernel"], parts)
                    entries[choice] = (lambda c=choice: gemm.linear(a, w, choice=c))
            ms = interleaved(entries, rounds=2)
            ranked = sorted((t, name) for name, t in ms.items()
                            if name != "torch" and t == t)
            pick = ms.get((chosen[0]["kernel"], chosen[1]), float("nan"))
            print(f"{ty} {m}x{n}x{k}: torch {ms['torch'] * 1e3:.1f} us; chosen "
                  f"{chosen[0]['kernel']} / {chosen[1]} {pick * 1e3:.1f} us; best:")
            for t, (kernel, parts) in ranked[:4]:
                print(f"    {t * 1e3:7.1f} us  {kernel} / {parts}")
    return 0


if __name__ == "__main__":
    sys.exit({"check": check, "check-clusters": check_clusters, "bench": bench,
              "tuned": tuned, "sweep": sweep}[sys.argv[1]]())

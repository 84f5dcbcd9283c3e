#!/usr/bin/env python3
"""The tile-IR GEMMs on a GPU, against cuBLAS through torch in the same
process: the Hopper family (bench/Kernels/gen_gemm_kernels.py, sm_90a) and
the Blackwell family (gen_gemm_sm100_kernels.py, sm_100a: dense, block-
scaled, D = A B^T + C0 and cta_group::2 pair kernels, checked against
bench/gemm_reference.py). Each family runs only on its own chip; the other
is skipped with the reason.

  gemm_bench.py check [KERNEL...]   correctness over edge shapes
  gemm_bench.py bench [KERNEL...]   TFLOP/s table, interleaved medians
  gemm_bench.py profile KERNEL M N K   three launches (for ncu)
  gemm_bench.py clocks KERNEL M N K    sustained runs (seconds each) of the
                                       kernel and of cuBLAS, alternating,
                                       with the SM clock and board power
                                       nvidia-smi samples during each

TILE_CTAS=N (check) launches N persistent CTAs instead of one per SM, so
that each walks several tiles.

Needs build/device/ (kernels/gemm.sm_90a.*, kernels/gemm_sm100.sm_100a.*,
python/tile_mlir with the self-contained runtime) and torch. TILE_DEVICE_DIR
names the folder (default: build/device next to this script's repository).
"""
import sys

MODES = ('check', 'bench', 'profile', 'clocks')
if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] not in MODES:
    # Before torch is imported: --help works on any machine.
    print(__doc__)
    sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)

import json
import os
import statistics
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
DEVICE = Path(os.environ.get("TILE_DEVICE_DIR", HERE.parent / "build" / "device"))
sys.path.insert(0, str(DEVICE / "python"))
import tile_mlir  # noqa: E402
import gemm_reference  # noqa: E402

# (kernel file, chip, the compute capability it runs on)
FAMILIES = [("gemm", "sm_90a", (9, 0)), ("gemm_sm100", "sm_100a", (10, 0))]

SHORT = {"bf16": "bf16", "f16": "f16", "f8E4M3FN": "e4m3"}
TORCH_TYPE = {"bf16": torch.bfloat16, "f16": torch.float16,
              "f8E4M3FN": torch.float8_e4m3fn}

CHECK_SHAPES = [  # M, N, K
    (256, 512, 128), (128, 256, 64), (4095, 4097, 4096), (1, 4096, 4096),
    (8192, 8192, 128), (300, 700, 200), (1000, 1000, 1000),
]
BENCH_SHAPES = [
    (4096, 4096, 4096), (8192, 8192, 8192),
    (8192, 28672, 4096), (128, 8192, 8192), (8192, 1024, 8192),
]


def unavailable(family, chip, capability):
    """Why the family cannot run here, or None."""
    have = torch.cuda.get_device_capability(0)
    if have != capability:
        return (f"needs an sm_{capability[0]}{capability[1]} GPU ({chip}), "
                f"this is {torch.cuda.get_device_name(0)} "
                f"(sm_{have[0]}{have[1]})")
    if not (DEVICE / "kernels" / f"{family}.{chip}.cubin").exists():
        return f"kernels/{family}.{chip}.cubin is not built"
    return None


def load(family, chip):
    compiled = tile_mlir.Compiled.load(str(DEVICE / "kernels" / f"{family}.{chip}"))
    module = tile_mlir.load(compiled)
    cases = json.loads((DEVICE / "kernels" / f"{family}.cases.json").read_text())
    return module, cases["kernels"]


def runnable_families():
    """(module, cases) of every family this GPU runs; the others are
    reported as skipped."""
    out = []
    for family, chip, capability in FAMILIES:
        why = unavailable(family, chip, capability)
        if why:
            print(f"SKIP {family} ({chip}) kernels: {why}", flush=True)
            continue
        out.append(load(family, chip))
    return out


def padded(rows, cols, dtype, fill=None, rand=None):
    """A rows x cols tensor whose rows start 16 bytes apart (TMA needs
    16-byte row strides; cuBLAS does not, so a caller pads the leading
    dimension, as for any TMA kernel)."""
    align = 16 // torch.empty((), dtype=dtype).element_size()
    stride = (cols + align - 1) // align * align
    if rand is not None:
        return rand(rows, stride)[:, :cols]
    return torch.full((rows, stride), fill, device="cuda", dtype=dtype)[:, :cols]


def operands(case, m, n, k, seed=0):
    """A (M x K), B (N x K for tn, K x N for nn) and C (M x N) on the GPU,
    each with 16-byte aligned rows, and the form's extra inputs: `scaled`
    the ue8m0 exponents (sfa M x K/32, sfb N x K/32: raw for the reference,
    packed for the kernel), `addc` C0 (M x N f32)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    ty = TORCH_TYPE[case["dtype"]]

    def rand(rows, cols, lo=-3, hi=4, scale=4):
        x = torch.randint(lo, hi, (rows, cols), generator=g, device="cuda",
                          dtype=torch.int32).float() / scale
        return x
    a = padded(m, k, ty, rand=lambda r, c: rand(r, c).to(ty))
    b = (padded(k, n, ty, rand=lambda r, c: rand(r, c).to(ty)) if case["b_mn"]
         else padded(n, k, ty, rand=lambda r, c: rand(r, c).to(ty)))
    c = padded(m, n, TORCH_TYPE[case["out"]], fill=float("nan"))
    extra = {}
    form = case.get("form", "dense")
    if form == "scaled":
        # Factors 1/2, 1 and 2: every product and partial sum stays exact.
        blocks = -(-k // gemm_reference.SCALE_VECTOR)
        for name, rows in (("sfa", m), ("sfb", n)):
            raw = rand(rows, blocks, 126, 129, 1).to(torch.uint8)
            extra[name] = raw
            extra[name + "_packed"] = gemm_reference.pack_scales(raw).view(
                torch.float8_e8m0fnu)
    if form == "addc":
        extra["c0"] = padded(m, n, torch.float32, rand=lambda r, c: rand(r, c, -8, 9))
    return a, b, c, extra


def arguments(case, a, b, c, extra):
    """The kernel's arguments in its signature's order."""
    form = case.get("form", "dense")
    if form == "scaled":
        return (a, b, extra["sfa_packed"], extra["sfb_packed"], c)
    if form == "addc":
        return (a, b, extra["c0"], c)
    return (a, b, c)


def launch(kernel, case, args, sms):
    """One persistent CTA (one cluster of `cluster` CTAs) per SM (per
    `cluster` SMs), at most one per tile (a cluster's tile: tile_m x
    tile_n)."""
    m, n = args[-1].shape
    cluster = case.get("cluster", 1)
    tiles = (-(-m // case.get("tile_m", case["bm"])) *
             -(-n // case.get("tile_n", case["bn"])))
    kernel(*args, grid=(cluster * min(sms // cluster, tiles),))


def reference(case, a, b, extra):
    if case["b_mn"]:
        return a.float() @ b.float()
    return gemm_reference.reference(case, a, b, extra.get("sfa"),
                                    extra.get("sfb"), extra.get("c0"))


def check(module, cases, names):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    # TILE_CTAS=2: two persistent CTAs, each walking many tiles (staging
    # buffers, barrier phases and the ring carried from tile to tile), on
    # the small shapes a sanitizer can afford.
    sms = int(os.environ.get("TILE_CTAS", sms))
    failed = 0
    for case in cases:
        if names and case["kernel"] not in names:
            continue
        kernel = module.kernel(case["kernel"])
        for m, n, k in CHECK_SHAPES:
            a, b, c, extra = operands(case, m, n, k)
            try:
                launch(kernel, case, arguments(case, a, b, c, extra), sms)
            except tile_mlir.LaunchError as e:
                failed += 1
                print(f"{case['kernel']:40s} {m:5d}x{n:5d}x{k:5d}  FAIL: {e}")
                continue
            torch.cuda.synchronize()
            ref = reference(case, a, b, extra)
            # Inputs are multiples of 1/4 in [-0.75, 0.75]: every product and
            # partial sum is exact in f32, so the only error is the final
            # rounding to the output type (half an ulp).
            expected = ref.to(c.dtype).float()
            got = c.float()
            bad = (got != expected).sum().item()
            status = "ok" if bad == 0 else f"FAIL ({bad} elements differ)"
            if bad:
                failed += 1
                idx = (got != expected).nonzero()[0].tolist()
                status += f" first at {idx}: {got[tuple(idx)].item()} vs {expected[tuple(idx)].item()}"
            print(f"{case['kernel']:40s} {m:5d}x{n:5d}x{k:5d}  {status}", flush=True)
    return failed


def timed(fn, iters):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters


def cublas_call(case, a, b, c):
    m, n = c.shape
    bt = b if case["b_mn"] else b.t()
    if case["dtype"] == "f8E4M3FN":
        one = torch.ones((), device="cuda")
        # cuBLASLt's fp8 GEMM takes B column-major: B^T of an N x K B.
        return lambda: torch._scaled_mm(a, bt, one, one, out_dtype=c.dtype)
    out = torch.empty((m, n), device="cuda", dtype=c.dtype)
    return lambda: torch.matmul(a, bt, out=out)


def bench(module, cases, names, rounds=7):
    """Per problem family (input type, B major-ness) and shape: each tile
    kernel and cuBLAS, interleaved round by round (each timed batch after an
    untimed one of the same call), medians; `best` is the fastest tile
    kernel of the family for the shape."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"device: {torch.cuda.get_device_name(0)}, {sms} SMs; "
          f"torch {torch.__version__}")
    print(f"{'kernel':36s} {'M x N x K':>20s} {'tile TF/s':>10s} "
          f"{'cuBLAS TF/s':>12s} {'ratio':>6s}")
    families = {}
    for case in cases:
        if case.get("form", "dense") not in ("dense", "pair"):
            continue  # no cuBLAS counterpart here
        if not names or case["kernel"] in names:
            families.setdefault((case["dtype"], case["b_mn"]), []).append(case)
    for (dtype, b_mn), members in families.items():
        for m, n, k in BENCH_SHAPES:
            a, b, c, _ = operands(members[0], m, n, k)
            cublas = cublas_call(members[0], a, b, c)
            tiles = [(case, module.kernel(case["kernel"])) for case in members]
            calls = [lambda case=case, kern=kern: launch(kern, case, (a, b, c), sms)
                     for case, kern in tiles]
            flops = 2.0 * m * n * k
            iters = max(3, min(200, int(2e13 / flops)))
            for call in calls:
                call()
            cublas()
            torch.cuda.synchronize()
            times = [[] for _ in calls]
            ref = []
            # Each timed batch follows an untimed batch of the same call,
            # odd rounds in reverse: under the power cap the clock follows
            # the previous batch's draw (TileBenchmarks does the same).
            entries = list(zip(times + [ref], calls + [cublas]))
            for r in range(rounds):
                for t, call in (entries[::-1] if r % 2 else entries):
                    timed(call, iters)
                    t.append(timed(call, iters))
            mr = statistics.median(ref)
            best = None
            for (case, _), t in zip(tiles, times):
                mt = statistics.median(t)
                if best is None or mt < best[1]:
                    best = (case["kernel"], mt)
                print(f"{case['kernel']:36s} {m:6d}x{n:6d}x{k:6d} "
                      f"{flops / mt / 1e9:10.1f} {flops / mr / 1e9:12.1f} "
                      f"{mr / mt:6.3f}", flush=True)
            print(f"{'best ' + SHORT[dtype] + (' nn' if b_mn else ' tn'):36s} "
                  f"{m:6d}x{n:6d}x{k:6d} {flops / best[1] / 1e9:10.1f} "
                  f"{flops / mr / 1e9:12.1f} {mr / best[1]:6.3f}  ({best[0]})",
                  flush=True)


def clocks(module, case, m, n, k, seconds=3.0, rounds=2):
    """Under a power cap the clock follows the power a kernel draws, so two
    kernels at equal speed under locked clocks (ncu) can differ when free:
    each phase runs one kernel back to back for `seconds`, and the SM clock
    and board power sampled by nvidia-smi every 50 ms inside the phase are
    reported with its TF/s."""
    import subprocess
    import threading
    import time
    if case.get("form", "dense") not in ("dense", "pair"):
        sys.exit(f"{case['kernel']}: no cuBLAS counterpart to compare with")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    a, b, c, extra = operands(case, m, n, k)
    kernel = module.kernel(case["kernel"])
    tile = lambda: launch(kernel, case, arguments(case, a, b, c, extra), sms)
    phases = [(case["kernel"], tile), ("cuBLAS", cublas_call(case, a, b, c))]
    # nvidia-smi's index of the GPU torch uses (TILE_NVIDIA_SMI_INDEX; 0 by
    # default): one line per sample, not one per GPU of the host.
    sampler = subprocess.Popen(
        ["nvidia-smi", "-i", os.environ.get("TILE_NVIDIA_SMI_INDEX", "0"),
         "--query-gpu=clocks.sm,power.draw",
         "--format=csv,noheader,nounits", "-lms", "50"],
        stdout=subprocess.PIPE, text=True)
    samples = []  # (time, MHz, W)

    def read():
        for line in sampler.stdout:
            parts = line.strip().split(",")
            try:
                samples.append((time.monotonic(), float(parts[0]),
                                float(parts[1])))
            except (ValueError, IndexError):
                pass
    threading.Thread(target=read, daemon=True).start()
    flops = 2.0 * m * n * k
    iters = max(3, min(200, int(2e13 / flops)))
    print(f"{'phase':36s} {'TF/s':>8s} {'SM MHz':>8s} {'W':>7s}  (medians; "
          f"{m}x{n}x{k}, {seconds:.0f} s each)")
    try:
        for _ in range(rounds):
            for name, call in phases:
                call()
                torch.cuda.synchronize()
                start = time.monotonic()
                times = []
                while time.monotonic() - start < seconds:
                    times.append(timed(call, iters))
                end = time.monotonic()
                # The first half second settles the clock.
                inside = [s for s in samples if start + 0.5 <= s[0] <= end]
                mhz = statistics.median(s[1] for s in inside) if inside else 0
                watts = statistics.median(s[2] for s in inside) if inside else 0
                tf = flops / statistics.median(times) / 1e9
                print(f"{name:36s} {tf:8.1f} {mhz:8.0f} {watts:7.1f}", flush=True)
                print(f"RESULT bench=gemm-clocks phase={name} shape={m}x{n}x{k} "
                      f"TFLOPs={tf:.1f} sm_mhz={mhz:.0f} watts={watts:.1f}")
    finally:
        sampler.terminate()
        sampler.wait()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    names = sys.argv[2:]
    families = runnable_families()
    if mode == "profile":
        # One kernel on one shape, a few launches: run under ncu.
        name, m, n, k = names[0], *map(int, names[1:4])
        module, case = next((mod, c) for mod, cases in families
                            for c in cases if c["kernel"] == name)
        a, b, c, extra = operands(case, m, n, k)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        for _ in range(3):
            launch(module.kernel(name), case, arguments(case, a, b, c, extra), sms)
        torch.cuda.synchronize()
        return
    if mode == "clocks":
        name, m, n, k = names[0], *map(int, names[1:4])
        module, case = next((mod, c) for mod, cases in families
                            for c in cases if c["kernel"] == name)
        clocks(module, case, m, n, k)
        return
    if mode == "check":
        failed = sum(check(module, cases, names) for module, cases in families)
        sys.exit(1 if failed else 0)
    for module, cases in families:
        bench(module, cases, names)


if __name__ == "__main__":
    main()

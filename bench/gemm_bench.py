#!/usr/bin/env python3
"""The tile-IR GEMMs (bench/Kernels/gen_gemm_kernels.py) on a GPU, against
cuBLAS through torch in the same process.

  gemm_bench.py check [KERNEL...]   correctness over edge shapes
  gemm_bench.py bench [KERNEL...]   TFLOP/s table, interleaved medians
  gemm_bench.py profile KERNEL M N K   three launches (for ncu)

Needs build/device/ (kernels/gemm.sm_90a.*, python/tile_mlir with the
self-contained runtime) and torch. TILE_DEVICE_DIR names the folder
(default: build/device next to this script's repository).
"""
import json
import os
import statistics
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
DEVICE = Path(os.environ.get("TILE_DEVICE_DIR", HERE.parent / "build" / "device"))
sys.path.insert(0, str(DEVICE / "python"))
import tile_mlir  # noqa: E402

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


def load():
    compiled = tile_mlir.Compiled.load(str(DEVICE / "kernels" / "gemm.sm_90a"))
    module = tile_mlir.load(compiled)
    cases = json.loads((DEVICE / "kernels" / "gemm.cases.json").read_text())
    return module, cases["kernels"]


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
    each with 16-byte aligned rows."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    ty = TORCH_TYPE[case["dtype"]]

    def rand(rows, cols):
        x = torch.randint(-3, 4, (rows, cols), generator=g, device="cuda",
                          dtype=torch.int32).float() / 4
        return x.to(ty)
    a = padded(m, k, ty, rand=rand)
    b = padded(k, n, ty, rand=rand) if case["b_mn"] else padded(n, k, ty, rand=rand)
    c = padded(m, n, TORCH_TYPE[case["out"]], fill=float("nan"))
    return a, b, c


def launch(kernel, case, a, b, c, sms):
    m, n = c.shape
    tiles = -(-m // case["bm"]) * -(-n // case["bn"])
    kernel(a, b, c, grid=(min(sms, tiles),))


def reference(case, a, b):
    bt = b if case["b_mn"] else b.t()
    return a.float() @ bt.float()


def check(module, cases, names):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    failed = 0
    for case in cases:
        if names and case["kernel"] not in names:
            continue
        kernel = module.kernel(case["kernel"])
        for m, n, k in CHECK_SHAPES:
            a, b, c = operands(case, m, n, k)
            try:
                launch(kernel, case, a, b, c, sms)
            except tile_mlir.LaunchError as e:
                failed += 1
                print(f"{case['kernel']:40s} {m:5d}x{n:5d}x{k:5d}  FAIL: {e}")
                continue
            torch.cuda.synchronize()
            ref = reference(case, a, b)
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
    kernel and cuBLAS, interleaved round by round, medians; `best` is the
    fastest tile kernel of the family for the shape."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"device: {torch.cuda.get_device_name(0)}, {sms} SMs; "
          f"torch {torch.__version__}")
    print(f"{'kernel':36s} {'M x N x K':>20s} {'tile TF/s':>10s} "
          f"{'cuBLAS TF/s':>12s} {'ratio':>6s}")
    families = {}
    for case in cases:
        if not names or case["kernel"] in names:
            families.setdefault((case["dtype"], case["b_mn"]), []).append(case)
    for (dtype, b_mn), members in families.items():
        for m, n, k in BENCH_SHAPES:
            a, b, c = operands(members[0], m, n, k)
            cublas = cublas_call(members[0], a, b, c)
            tiles = [(case, module.kernel(case["kernel"])) for case in members]
            calls = [lambda case=case, kern=kern: launch(kern, case, a, b, c, sms)
                     for case, kern in tiles]
            flops = 2.0 * m * n * k
            iters = max(3, min(200, int(2e13 / flops)))
            for call in calls:
                call()
            cublas()
            torch.cuda.synchronize()
            times = [[] for _ in calls]
            ref = []
            for _ in range(rounds):
                for t, call in zip(times, calls):
                    t.append(timed(call, iters))
                ref.append(timed(cublas, iters))
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


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    names = sys.argv[2:]
    module, cases = load()
    if mode == "profile":
        # One kernel on one shape, a few launches: run under ncu.
        name, m, n, k = names[0], *map(int, names[1:4])
        case = next(c for c in cases if c["kernel"] == name)
        a, b, c = operands(case, m, n, k)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        for _ in range(3):
            launch(module.kernel(name), case, a, b, c, sms)
        torch.cuda.synchronize()
        return
    if mode == "check":
        sys.exit(1 if check(module, cases, names) else 0)
    bench(module, cases, names)


if __name__ == "__main__":
    main()

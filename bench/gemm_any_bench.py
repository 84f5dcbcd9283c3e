#!/usr/bin/env python3
"""tile_mlir.gemm (python/tile_mlir/gemm.py: the kernel chosen per call,
split-K for few tiles and long K) on a GPU, against torch (cuBLAS) in the
same process.

  gemm_any_bench.py check   C against a float32 reference on random normal
                            data: small and odd M, N, K, strides TMA cannot
                            take (copied), transposed B, e4m3, split-K
                            shapes run twice for bit equality
  gemm_any_bench.py bench   TFLOP/s against torch.matmul (cuBLAS) on small-M
                            and skinny shapes, each entry a CUDA graph of 10
                            calls, replays interleaved (medians)

Tolerance: |C - ref| <= 2^-7 |ref| + 2^-7 rms(ref) (f16/bf16 output
rounding plus f32 sums in another order); e4m3: + 2^-5 rms(ref) (Hopper's
FP8 MMAs add with fewer bits than f32; cuBLAS's error is printed beside).
Needs build/device/ (kernels/gemm*.sm_90a.*, python/tile_mlir) and torch.
TILE_DEVICE_DIR names the folder (default: build/device next to this
script's repository).
"""
import sys

MODES = ("check", "bench")
if __name__ == "__main__" and (len(sys.argv) < 2 or sys.argv[1] not in MODES):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)

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
    gemm = Gemm(DEVICE / "kernels")
    failures = 0
    shapes = [(1, 4096, 4096), (16, 8192, 8192), (128, 8192, 8192),
              (256, 4096, 14336), (300, 700, 200), (4095, 4097, 4096),
              (64, 64, 64), (7, 9, 16), (2048, 2048, 2048), (129, 1000, 33)]
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
    # Hopper's FP8 MMAs add with fewer bits than f32 (why block-scaled
    # recipes promote every 128 K): e4m3 within 2^-5 rms, cuBLAS's error
    # printed beside.
    one = torch.ones((), device="cuda")
    for m, n, k in [(128, 8192, 8192), (300, 700, 256), (16, 4096, 7168)]:
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        w = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
        try:  # cuBLASLt takes FP8 only with N and K multiples of 16
            cublas = torch._scaled_mm(a, w.t(), scale_a=one, scale_b=one,
                                      out_dtype=torch.bfloat16)
        except RuntimeError:
            cublas = None
        failures += not close(f"e4m3 {m}x{n}x{k} ({gemm.explain(a, w)})",
                              gemm.linear(a, w), a.float() @ w.float().t(),
                              2 ** -5, False if cublas is None else cublas)
    try:
        gemm.linear(torch.randn(4, 8, device="cuda", dtype=torch.float64),
                    torch.randn(4, 8, device="cuda", dtype=torch.float64))
        print("FAIL f64 accepted")
        failures += 1
    except ValueError as e:
        print(f"ok   refused: {e}")
    print(f"{failures} failures")
    return 1 if failures else 0


def bench():
    torch.manual_seed(0)
    gemm = Gemm(DEVICE / "kernels")
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("TFLOP/s, C = A W^T; ratio against torch (cuBLAS)")
    for dtype in (torch.bfloat16, torch.float8_e4m3fn):
        for m, n, k in [(16, 8192, 8192), (64, 8192, 8192), (128, 8192, 8192),
                        (256, 4096, 14336), (128, 28672, 4096),
                        (512, 8192, 8192), (8192, 8192, 8192)]:
            a = torch.randn(m, k, device="cuda").to(dtype)
            w = torch.randn(n, k, device="cuda").to(dtype)
            if dtype == torch.float8_e4m3fn:
                one = torch.ones((), device="cuda")
                ref = lambda: torch._scaled_mm(  # noqa: E731
                    a, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            else:
                ref = lambda: a @ w.t()  # noqa: E731
            ms = interleaved({"tile": lambda: gemm.linear(a, w), "torch": ref})
            tf = {name: 2 * m * n * k / (t * 1e-3) / 1e12
                  for name, t in ms.items()}
            print(f"{str(dtype)[6:]:14} {m:5}x{n:5}x{k:5}: tile {tf['tile']:7.1f}  "
                  f"torch {tf['torch']:7.1f}  ratio {tf['tile'] / tf['torch']:.2f}"
                  f"  [{gemm.explain(a, w).split(':')[0]}]")
    return 0


if __name__ == "__main__":
    sys.exit(check() if sys.argv[1] == "check" else bench())

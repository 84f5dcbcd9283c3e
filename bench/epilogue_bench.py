#!/usr/bin/env python3
"""The Hopper GEMM family's fused epilogues (gen_gemm_kernels.py,
EPILOGUE_CONFIGS: D = act(A B^T + bias), act none / ReLU / GELU-tanh /
SiLU) on a
GPU, against what a torch user gets instead, in the same process:

  epilogue_bench.py check [KERNEL...]   correctness over edge shapes, random
                                        normal data, against a float
                                        reference
  epilogue_bench.py bench [KERNEL...]   TFLOP/s per shape: the fused tile
                                        kernel, the same tile kernel without
                                        the epilogue, cuBLASLt's fused
                                        epilogue (torch.addmm /
                                        torch._addmm_activation) and cuBLAS
                                        followed by the epilogue in torch;
                                        interleaved medians

Needs build/device/ (kernels/gemm.sm_90a.*, python/tile_mlir) and torch.
TILE_DEVICE_DIR names the folder (default: build/device beside this
repository).
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
# The family's persistent grid and CUDA-event timing of a batch.
from gemm_bench import launch, timed  # noqa: E402

TORCH_TYPE = {"bf16": torch.bfloat16, "f16": torch.float16}
CHECK_SHAPES = [  # M, N, K: tile multiples and not
    (256, 512, 128), (128, 256, 64), (300, 700, 200), (1000, 1000, 1000),
    (1, 4096, 4096), (4095, 4097, 4096),
]
BENCH_SHAPES = [
    (8192, 8192, 8192), (4096, 4096, 4096), (8192, 28672, 4096),
    (8192, 4096, 14336), (4096, 6144, 4096),
]


def load():
    compiled = tile_mlir.Compiled.load(str(DEVICE / "kernels" / "gemm.sm_90a"))
    module = tile_mlir.load(compiled)
    cases = json.loads((DEVICE / "kernels" / "gemm.cases.json").read_text())
    return module, cases


def padded(rows, cols, dtype, gen):
    """Random normal rows x cols with 16-byte aligned rows (TMA)."""
    align = 16 // torch.empty((), dtype=dtype).element_size()
    stride = (cols + align - 1) // align * align
    x = torch.randn((rows, stride), generator=gen, device="cuda")
    return x.to(dtype)[:, :cols]


def operands(case, m, n, k, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    ty = TORCH_TYPE[case["dtype"]]
    a = padded(m, k, ty, g)
    b = padded(n, k, ty, g)
    bias = torch.randn((1, n), generator=g, device="cuda").to(TORCH_TYPE[case["out"]])
    c = padded(m, n, TORCH_TYPE[case["out"]], g).fill_(float("nan"))
    return a, b, bias, c


def activation(name, y):
    if name == "bias_relu":
        return torch.relu(y)
    if name == "bias_gelu":
        return torch.nn.functional.gelu(y, approximate="tanh")
    if name == "bias_silu":
        return torch.nn.functional.silu(y)
    return y


def check(module, cases, names):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    failed = 0
    for case in cases:
        if names and case["kernel"] not in names:
            continue
        kernel = module.kernel(case["kernel"])
        for m, n, k in CHECK_SHAPES:
            a, b, bias, c = operands(case, m, n, k)
            launch(kernel, case, (a, b, bias, c), sms)
            torch.cuda.synchronize()
            ref = activation(case["epilogue"],
                             a.float() @ b.float().t() + bias.float())
            got = c.float()
            # bf16/f16 output (8/11-bit mantissa) of an f32 sum in another
            # order, tanh.approx (about 2^-11 relative) for GELU.
            scale = ref.abs().max().item()
            err = (got - ref).abs()
            bad = (err > 1e-2 * ref.abs() + 4e-3 * scale) | got.isnan()
            worst = err.max().item()
            status = "ok" if not bad.any() else f"FAIL ({bad.sum().item()} elements)"
            failed += bool(bad.any())
            print(f"{case['kernel']:44s} {m:5d}x{n:5d}x{k:5d}  {status}  "
                  f"max |err| {worst:.3g} (max |ref| {scale:.3g})", flush=True)
    return failed


def library_calls(epilogue, a, b, bias, out):
    """cuBLASLt's fused epilogue (None: cuBLASLt has no SiLU epilogue), and
    cuBLAS then the epilogue in torch."""
    bt, vec = b.t(), bias[0]
    if epilogue == "bias":
        fused = lambda: torch.addmm(vec, a, bt, out=out)
    elif epilogue == "bias_silu":
        fused = None
    else:
        gelu = epilogue == "bias_gelu"
        fused = lambda: torch._addmm_activation(vec, a, bt, use_gelu=gelu)
    tmp = torch.empty_like(out)

    def unfused():
        torch.matmul(a, bt, out=tmp)
        return activation(epilogue, tmp + vec)
    return fused, unfused


def bench(module, cases, names, rounds=7):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"device: {torch.cuda.get_device_name(0)}, {sms} SMs; torch "
          f"{torch.__version__}; random normal operands")
    print(f"{'kernel':44s} {'M x N x K':>20s} {'fused':>7s} {'plain':>7s} "
          f"{'cuBLASLt':>8s} {'unfused':>7s}  TF/s; fused/plain, vs cuBLASLt")
    plain_of = {c["kernel"]: c for c in cases["kernels"]}
    for case in cases["epilogue_kernels"]:
        if names and case["kernel"] not in names:
            continue
        base = case["kernel"].rsplit("_" + case["epilogue"], 1)[0]
        plain_case = plain_of[base]
        fused_k = module.kernel(case["kernel"])
        plain_k = module.kernel(base)
        for m, n, k in BENCH_SHAPES:
            a, b, bias, c = operands(case, m, n, k)
            lib_fused, lib_unfused = library_calls(case["epilogue"], a, b, bias, c)
            calls = [
                lambda: launch(fused_k, case, (a, b, bias, c), sms),
                lambda: launch(plain_k, plain_case, (a, b, c), sms),
                lib_fused or lib_unfused,
                lib_unfused,
            ]
            flops = 2.0 * m * n * k
            iters = max(3, min(200, int(2e13 / flops)))
            for call in calls:
                call()
            torch.cuda.synchronize()
            times = [[] for _ in calls]
            entries = list(zip(times, calls))
            # Each timed batch after an untimed batch of the same call, odd
            # rounds reversed (the clock under the power cap follows the
            # previous batch's draw).
            for r in range(rounds):
                for t, call in (entries[::-1] if r % 2 else entries):
                    timed(call, iters)
                    t.append(timed(call, iters))
            med = [statistics.median(t) for t in times]
            tf = [flops / x / 1e9 for x in med]
            lib = (f"{tf[2]:8.1f}" if lib_fused else f"{'n/a':>8s}")
            vs = (f"{med[2] / med[0]:.3f}" if lib_fused
                  else f"{med[3] / med[0]:.3f} (vs unfused)")
            print(f"{case['kernel']:44s} {m:6d}x{n:6d}x{k:6d} {tf[0]:7.1f} "
                  f"{tf[1]:7.1f} {lib} {tf[3]:7.1f}  "
                  f"{med[1] / med[0]:.3f}  {vs}", flush=True)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    names = sys.argv[2:]
    if torch.cuda.get_device_capability(0) != (9, 0):
        print(f"SKIP: the Hopper family needs sm_90 ({torch.cuda.get_device_name(0)})")
        return
    module, cases = load()
    if mode == "check":
        sys.exit(1 if check(module, cases["epilogue_kernels"], names) else 0)
    bench(module, cases, names)


if __name__ == "__main__":
    main()

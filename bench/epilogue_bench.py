#!/usr/bin/env python3
"""The Hopper GEMM family's fused epilogues (gen_gemm_kernels.py,
EPILOGUE_CONFIGS: D = act(A B^T + bias) with a per-column bias, act none /
ReLU / GELU-tanh / SiLU; D = alpha A B^T + a per-row bias; D = alpha A B^T + beta C; D =
e4m3(scale A B^T), saturated, and amax = max |A B^T|) on a GPU, against what a torch user gets
instead, in the same process:

  epilogue_bench.py check [KERNEL...]   correctness over edge shapes, random
                                        normal data, against a float
                                        reference
  epilogue_bench.py bench [KERNEL...]   TFLOP/s per shape: the fused tile
                                        kernel, the same tile kernel without
                                        the epilogue, cuBLASLt's fused
                                        epilogue (torch.addmm /
                                        torch._addmm_activation /
                                        torch._scaled_mm) and cuBLAS
                                        followed by the epilogue in torch;
                                        interleaved medians

TILE_CHECK_SHAPES=MxNxK,... replaces the check's shapes (small ones for
compute-sanitizer); TILE_CTAS=N launches N persistent CTAs (or clusters'
worth) instead of one per SM, so that each walks several tiles. Needs build/device/ (kernels/gemm.sm_90a.*,
python/tile_mlir) and torch.
TILE_DEVICE_DIR names the folder (default: build/device beside this
repository).
"""
import sys

MODES = ('check', 'bench')
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
# The family's persistent grid and CUDA-event timing of a batch.
from gemm_bench import launch, timed  # noqa: E402

TORCH_TYPE = {"bf16": torch.bfloat16, "f16": torch.float16,
              "f8E4M3FN": torch.float8_e4m3fn}
E4M3_MAX = 448.0
CHECK_SHAPES = [  # M, N, K: tile multiples and not
    (256, 512, 128), (128, 256, 64), (300, 700, 200), (1000, 1000, 1000),
    (1, 4096, 4096), (4095, 4097, 4096),
]
if os.environ.get("TILE_CHECK_SHAPES"):  # e.g. "256x512x128,300x700x200"
    CHECK_SHAPES = [tuple(map(int, s.split("x")))
                    for s in os.environ["TILE_CHECK_SHAPES"].split(",")]
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
    """A, B, the output C (NaN: every element must be written) and the
    epilogue's extra tensors, in the kernel's argument order."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    ty = TORCH_TYPE[case["dtype"]]
    out_ty = TORCH_TYPE[case["out"]]
    a = padded(m, k, ty, g)
    b = padded(n, k, ty, g)
    c = padded(m, n, out_ty, g).fill_(float("nan"))
    epilogue = case["epilogue"]
    if epilogue == "alpha_beta_c":
        alpha_beta = torch.tensor([[0.75, -1.25]], device="cuda")
        extras = [alpha_beta, padded(m, n, out_ty, g)]
    elif epilogue == "alpha_row_bias":
        alpha = torch.full((1, 1), 0.75, device="cuda")
        bias = torch.randn((1, m), generator=g, device="cuda").to(out_ty)
        extras = [alpha, bias]
    elif epilogue == "scale_e4m3":
        # 1.5 x the range over the product's largest magnitude: the top
        # third of the magnitudes saturates to +-448.
        amax = (a.float() @ b.float().t()).abs().max().item()
        # The kernel raises amax (f32 bits in an i32 tensor) from 0.
        extras = [torch.full((1, 1), 1.5 * E4M3_MAX / amax, device="cuda"),
                  torch.zeros((1, 1), dtype=torch.int32, device="cuda")]
    else:
        extras = [torch.randn((1, n), generator=g, device="cuda").to(out_ty)]
    return a, b, extras, c


def activation(name, y):
    if name == "bias_relu":
        return torch.relu(y)
    if name == "bias_gelu":
        return torch.nn.functional.gelu(y, approximate="tanh")
    if name == "bias_silu":
        return torch.nn.functional.silu(y)
    return y


def reference(epilogue, a, b, extras):
    product = a.float() @ b.float().t()
    if epilogue == "alpha_beta_c":
        (alpha, beta), source = extras[0][0].tolist(), extras[1]
        return alpha * product + beta * source.float()
    if epilogue == "alpha_row_bias":
        alpha, bias = extras
        return alpha.item() * product + bias.float().t()
    if epilogue == "scale_e4m3":
        scaled = product * extras[0].item()
        return scaled.clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn).float()
    return activation(epilogue, product + extras[0].float())


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
            a, b, extras, c = operands(case, m, n, k)
            launch(kernel, case, (a, b, *extras, c), sms)
            torch.cuda.synchronize()
            ref = reference(case["epilogue"], a, b, extras)
            got = c.float()
            scale = ref.abs().max().item()
            err = (got - ref).abs()
            if case["out"] == "f8E4M3FN":
                # fp8 wgmma accumulates with fewer bits than f32 (partial
                # sums keep about 14 mantissa bits), so the value rounded
                # may differ from the f32 product; allowing 2^-10 of the
                # sum of |a||b| (measured: 2^-12 is exceeded at K = 4096),
                # the output must be the e4m3 rounding (monotone,
                # saturating) of some value in that bracket.
                s_ = extras[0].item()
                scaled = (a.float() @ b.float().t()) * s_
                slack = 2.0 ** -10 * (a.float().abs() @ b.float().abs().t()) * s_

                def e4m3(x):
                    x = x.clamp(-E4M3_MAX, E4M3_MAX)
                    return x.to(torch.float8_e4m3fn).float()
                bad = (got < e4m3(scaled - slack)) | (got > e4m3(scaled + slack))
                # amax of the unscaled product, within the same bracket.
                amax_got = extras[1].view(torch.float32).item()
                amax_ref = scaled.abs().max().item() / s_
                if abs(amax_got - amax_ref) > slack.max().item() / s_:
                    print(f"  amax {amax_got} vs {amax_ref}")
                    bad |= True
            else:
                # bf16/f16 output (8/11-bit mantissa) of an f32 sum in
                # another order, tanh.approx (about 2^-11 relative) for GELU.
                bad = err > 1e-2 * ref.abs() + 4e-3 * scale
            bad |= got.isnan()
            worst = err.max().item()
            status = "ok" if not bad.any() else f"FAIL ({bad.sum().item()} elements)"
            failed += bool(bad.any())
            print(f"{case['kernel']:44s} {m:5d}x{n:5d}x{k:5d}  {status}  "
                  f"max |err| {worst:.3g} (max |ref| {scale:.3g})", flush=True)
    return failed


def library_calls(epilogue, a, b, extras, out):
    """The library's fused epilogue (None where it has none: cuBLASLt's
    SiLU, a bf16 GEMM with an fp8 output), and cuBLAS then the epilogue
    in torch."""
    bt = b.t()
    tmp = torch.empty(out.shape, dtype=torch.bfloat16 if out.element_size() == 1
                      else out.dtype, device="cuda")
    if epilogue == "alpha_beta_c":
        (alpha, beta), source = extras[0][0].tolist(), extras[1]
        # cuBLAS's D = alpha A B^T + beta C (C is read, D written apart).
        fused = lambda: torch.addmm(source, a, bt, beta=beta, alpha=alpha, out=out)

        def unfused():
            torch.matmul(a, bt, out=tmp)
            return tmp.mul_(alpha).add_(source, alpha=beta)
        return fused, unfused
    if epilogue == "alpha_row_bias":
        alpha, bias = extras[0].item(), extras[1]
        column = bias.t()
        # cuBLAS with beta C: the row bias broadcast into C first.
        fused = lambda: torch.addmm(column, a, bt, alpha=alpha, out=out)

        def unfused():
            torch.matmul(a, bt, out=tmp)
            return tmp.mul_(alpha).add_(column)
        return fused, unfused
    if epilogue == "scale_e4m3":
        scale = extras[0]
        fused = None
        if a.dtype == torch.float8_e4m3fn:
            one = torch.ones((), device="cuda")
            # cuBLASLt's fp8 GEMM with a scaled, saturated e4m3 output.
            fused = lambda: torch._scaled_mm(a, bt, one, one, scale_result=scale,
                                             out_dtype=torch.float8_e4m3fn)

        def unfused():
            if a.dtype == torch.float8_e4m3fn:
                product = torch._scaled_mm(a, bt, one, one, out_dtype=torch.bfloat16)
            else:
                product = torch.matmul(a, bt, out=tmp)
            return (product * scale).clamp_(-E4M3_MAX, E4M3_MAX).to(out.dtype)
        return fused, unfused
    vec = extras[0][0]
    if epilogue == "bias":
        fused = lambda: torch.addmm(vec, a, bt, out=out)
    elif epilogue == "bias_silu":
        fused = None
    else:
        gelu = epilogue == "bias_gelu"
        fused = lambda: torch._addmm_activation(vec, a, bt, use_gelu=gelu)

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
        base = case.get("plain") or case["kernel"].rsplit("_" + case["epilogue"], 1)[0]
        plain_case = plain_of[base]
        fused_k = module.kernel(case["kernel"])
        plain_k = module.kernel(base)
        for m, n, k in BENCH_SHAPES:
            a, b, extras, c = operands(case, m, n, k)
            lib_fused, lib_unfused = library_calls(case["epilogue"], a, b,
                                                   extras, c)
            c_plain = torch.empty(c.shape, dtype=TORCH_TYPE[plain_case["out"]],
                                  device="cuda")
            calls = [
                lambda: launch(fused_k, case, (a, b, *extras, c), sms),
                lambda: launch(plain_k, plain_case, (a, b, c_plain), sms),
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

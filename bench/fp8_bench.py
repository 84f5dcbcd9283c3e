#!/usr/bin/env python3
"""The tile-IR block-scaled FP8 GEMMs (bench/Kernels/gen_fp8_kernels.py,
python/tile_mlir/fp8.py) on a GPU, against torch in the same process.

  fp8_bench.py check    the tile-IR quantizer bit for bit against torch's;
                        D against a float32 reference computed from the
                        dequantized operands, random normal data: dense
                        shapes with M, N, K tails, grouped contiguous with
                        an empty expert and a 1-row one, grouped masked
                        with counts 0, 1, partial and full; split-K with
                        chosen and forced part counts; every tile of the
                        dense and split-K walks forced (TILE_FP8_SHAPES=small:
                        the shapes of at most 2^28 multiply-adds)
  fp8_bench.py bench    TFLOP/s against cuBLASLt's block-scaled FP8 and
                        per-tensor FP8 (torch._scaled_mm), DeepSeek-V3's
                        shapes; grouped against G separate cuBLASLt
                        block-scaled calls. Each entry is captured as a
                        CUDA graph of 10 calls (the masked kernels' use);
                        medians of replays, interleaved
  fp8_bench.py profile M N K [cublas]
                        three launches of the dense kernel, or of
                        cuBLASLt's block-scaled GEMM (for ncu)

Tolerance: |D - ref| <= 2^-7 |ref| + 2^-7 rms(ref) element-wise: bf16
rounding (2^-9 relative) plus f32 partial sums in another order.
Needs build/device/ (kernels/fp8.sm_90a.*, python/tile_mlir) and torch.
TILE_DEVICE_DIR names the folder (default: build/device next to this
script's repository).
"""
import sys

MODES = ("check", "bench", "profile")
if __name__ == "__main__" and (len(sys.argv) < 2 or sys.argv[1] not in MODES):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)

import os
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
DEVICE = Path(os.environ.get("TILE_DEVICE_DIR", HERE.parent / "build" / "device"))
sys.path.insert(0, str(DEVICE / "python"))
from tile_mlir.fp8 import (BlockScaledGemm, dequantize,  # noqa: E402
                           quantize_blocks, quantize_rows)
from timing import interleaved  # noqa: E402

# TILE_FP8_SHAPES=small: only the checks of at most 2^28 multiply-adds (the
# sanitizer runs of scripts/device-run).
SMALL = os.environ.get("TILE_FP8_SHAPES") == "small"


def wanted(*dims):
    size = 1
    for d in dims:
        size *= d
    return not SMALL or size <= 1 << 28


def operands(m, n, k, groups=None):
    lead = () if groups is None else (groups,)
    x = torch.randn(*lead, m, k, device="cuda")
    w = torch.randn(*lead, n, k, device="cuda")
    a, sfa = quantize_rows(x)
    b, sfb = quantize_blocks(w)
    return a, sfa, b, sfb


def reference(a, sfa, b, sfb):
    return dequantize(a, sfa, 1) @ dequantize(b, sfb, 128).transpose(-1, -2)


def compare(what, d, ref):
    """Prints a failure line; returns whether `d` is within tolerance."""
    d = d.float()
    if d.shape != ref.shape:
        print(f"FAIL {what}: shape {tuple(d.shape)}, {tuple(ref.shape)} expected")
        return False
    if ref.numel() == 0:
        return True
    rms = ref.pow(2).mean().sqrt().item()
    err = (d - ref).abs()
    if rms == 0:
        ok = bool((err == 0).all())
        print(f"{'ok  ' if ok else 'FAIL'} {what}: reference all zero")
        return ok
    bound = ref.abs() * 2 ** -7 + rms * 2 ** -7
    bad = ~(err <= bound)  # NaN counts as bad
    if bad.any():
        i = tuple(x[0].item() for x in bad.nonzero(as_tuple=True))
        print(f"FAIL {what}: {bad.sum().item()} elements out of tolerance, "
              f"first {i}: {d[i].item()} vs {ref[i].item()}")
        return False
    print(f"ok   {what}: max |err| / rms {err.max().item() / rms:.2e}")
    return True


def check_quantizer(gemm):
    """The tile-IR quantizer against quantize_rows (torch), bit for bit:
    tails in M and K, a zero row (scale 1), large and tiny magnitudes."""
    failures = 0
    for m, k in [(64, 128), (1, 16), (300, 400), (4095, 7168), (129, 2064)]:
        x = torch.randn(m, k, device="cuda") * torch.logspace(
            -20, 20, m, base=2, device="cuda").unsqueeze(1)
        x[m // 2] = 0
        x = x.to(torch.bfloat16)
        q, sfa = gemm.quantize(x)
        q_ref, sfa_ref = quantize_rows(x)
        same = (torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8))
                and torch.equal(sfa, sfa_ref))
        detail = "bit for bit"
        if not same:
            qd = (q.view(torch.uint8) != q_ref.view(torch.uint8)).nonzero()
            sd = (sfa != sfa_ref).nonzero()
            detail = f"{len(qd)} values and {len(sd)} scales differ"
            if len(qd):
                i, j = qd[0].tolist()
                detail += (f"; first ({i}, {j}): x {x[i, j].item()}, q "
                           f"{q[i, j].float().item()} vs {q_ref[i, j].float().item()}")
            if len(sd):
                i, j = sd[0].tolist()
                detail += f"; scale ({i}, {j}): {sfa[i, j].item()} vs {sfa_ref[i, j].item()}"
        print(f"{'ok  ' if same else 'FAIL'} quantizer {m}x{k}: {detail}")
        failures += not same
        if same:  # and the GEMM reads its SFA layout in place
            _, _, b, sfb = operands(1, 256, k)
            failures += not compare(f"dense {m}x256x{k} on quantizer output",
                                    gemm(q, sfa, b, sfb),
                                    reference(q, sfa, b, sfb))
    return failures


def check():
    torch.manual_seed(0)
    gemm = BlockScaledGemm(DEVICE / "kernels")
    failures = check_quantizer(gemm)
    for m, n, k in [(128, 128, 128), (256, 512, 1024), (300, 328, 400),
                    (1, 4096, 7168), (64, 2112, 7168), (4095, 1000, 528),
                    (129, 136, 144), (1000, 7168, 2048)]:
        if not wanted(m, n, k):
            continue
        a, sfa, b, sfb = operands(m, n, k)
        ok = compare(f"dense {m}x{n}x{k}", gemm(a, sfa, b, sfb),
                     reference(a, sfa, b, sfb))
        # SFA in the transposed layout (read in place).
        mp = -(-m // 4) * 4
        sfa_t = torch.empty(sfa.shape[1], mp, device="cuda")[:, :m]
        sfa_t.copy_(sfa.t())
        ok &= compare(f"dense {m}x{n}x{k} (SFA transposed)",
                      gemm(a, sfa_t.t(), b, sfb), reference(a, sfa, b, sfb))
        # Run to run: the same bits.
        ok &= torch.equal(gemm(a, sfa, b, sfb), gemm(a, sfa, b, sfb))
        failures += not ok
    # Split-K (a small M): the chosen part count and forced ones, parts of
    # unequal length and a K tail; split and unsplit agree to rounding.
    for m, n, k, parts in [(1, 4096, 7168, None), (64, 2112, 7168, None),
                           (100, 1000, 5008, None), (100, 1000, 5008, 3),
                           (130, 520, 1040, 2), (64, 2112, 7168, 1),
                           (64, 256, 4096, None)]:
        if not wanted(m, n, k):
            continue
        a, sfa, b, sfb = operands(m, n, k)
        chosen = gemm.schedule(m, n, k)
        chosen = chosen if parts is None else (chosen[0], parts)
        d = gemm(a, sfa, b, sfb, parts=parts)
        ok = compare(f"split-K {m}x{n}x{k}: {chosen[0][0]}x{chosen[0][1]} "
                     f"tiles, {chosen[1]} part(s)", d, reference(a, sfa, b, sfb))
        ok &= torch.equal(d, gemm(a, sfa, b, sfb, parts=parts))
        failures += not ok
    # Every tile forced, split and not, with tails in M, N and K (64-row
    # tiles: rows past M in the tile; 64-wide: N not a multiple of 64).
    for m, n, k, tile, parts in [
            (64, 1000, 5008, (64, 128), 1), (50, 1000, 5008, (64, 64), 3),
            (33, 520, 1040, (64, 64), 2), (64, 200, 640, (64, 64), 1),
            (33, 136, 4096, (64, 128), 4), (1, 7168, 2048, (64, 64), 1),
            (7, 4104, 512, (64, 128), 1), (100, 1000, 5008, (128, 64), 1),
            (130, 520, 1040, (128, 64), 2), (200, 72, 384, (128, 64), 1),
            (100, 1000, 5008, (128, 128), 3), (130, 520, 1040, (128, 128), 2),
            (200, 136, 400, (128, 128), 1),
            # A forced tile with the part count the schedule costs for it.
            (100, 1000, 5008, (128, 128), None),
            (100, 1000, 5008, (64, 64), None)]:
        if not wanted(m, n, k):
            continue
        a, sfa, b, sfb = operands(m, n, k)
        d = gemm(a, sfa, b, sfb, parts=parts, tile=tile)
        chosen = parts or gemm.schedule(m, n, k, tiles=[tile])[1]
        ok = compare(f"{m}x{n}x{k} in {tile[0]}x{tile[1]} tiles, {chosen} "
                     "part(s)", d, reference(a, sfa, b, sfb))
        ok &= torch.equal(d, gemm(a, sfa, b, sfb, parts=parts, tile=tile))
        failures += not ok
    for bad in ((32, 128), 64):
        try:
            gemm(*operands(64, 256, 256), tile=bad)
            print(f"FAIL tile = {bad!r} was not refused")
            failures += 1
        except ValueError as e:
            print(f"ok   refused: {e}")
    try:
        gemm(*operands(64, 256, 256), parts=3)  # 2 K blocks: a part empty
        print("FAIL split-K with an empty part was not refused")
        failures += 1
    except ValueError as e:
        print(f"ok   refused: {e}")
    for rows, n, k, first in [([384, 0, 1, 640], 512, 1024, 0),
                              ([1, 128, 0], 4096, 7168, 0),
                              ([200, 128], 384, 512, 256)]:
        # `first`: rows before offsets[0] belong to no expert.
        groups = len(rows)
        padded = [-(-r // 128) * 128 for r in rows]
        if not wanted(first + sum(padded), n, k):
            continue
        offsets = [first]
        for p in padded:
            offsets.append(offsets[-1] + p)
        a, sfa, _, _ = operands(offsets[-1], n, k)
        _, _, b, sfb = operands(1, n, k, groups)
        off = torch.tensor(offsets, dtype=torch.int32, device="cuda")
        d = gemm.grouped_contiguous(a, sfa, b, sfb, off)
        ok = True
        for g in range(groups):
            lo, hi = offsets[g], offsets[g] + rows[g]
            ok &= compare(f"contiguous {rows} expert {g} ({n}x{k})", d[lo:hi],
                          reference(a[lo:hi], sfa[lo:hi], b[g], sfb[g]))
        failures += not ok
    # The tile: the default (128 x 64 where 128 x 128 tiles would fill at
    # most half the SMs: [200] of 256 at N = 1000), or forced.
    for counts, cap, n, k, tile in [([0, 1, 200], 256, 384, 512, None),
                                    ([0, 1, 200], 256, 384, 512, (128, 64)),
                                    ([200], 256, 1000, 1024, None),
                                    ([200], 256, 1000, 1024, (128, 128)),
                                    ([256, 77], 200, 4096, 7168, None)]:
        groups = len(counts)
        if not wanted(groups * cap, n, k):
            continue
        a, sfa, b, sfb = operands(cap, n, k, groups)
        mask = torch.tensor(counts, dtype=torch.int32, device="cuda")
        d = gemm.grouped_masked(a, sfa, b, sfb, mask, tile=tile)
        ok = True
        for g in range(groups):
            c = min(counts[g], cap)
            ok &= compare(f"masked {counts} cap {cap} expert {g} ({n}x{k}, "
                          f"tile {tile or 'chosen'})", d[g, :c],
                          reference(a[g, :c], sfa[g, :c], b[g], sfb[g]))
        again = gemm.grouped_masked(a, sfa, b, sfb, mask, tile=tile)
        ok &= all(torch.equal(d[g, :counts[g]], again[g, :counts[g]])
                  for g in range(groups))  # the rest is not written
        failures += not ok
    try:
        gemm.grouped_masked(*operands(64, 256, 256, 1), torch.ones(
            1, dtype=torch.int32, device="cuda"), tile=(64, 64))
        print("FAIL a masked tile the family lacks was not refused")
        failures += 1
    except ValueError as e:
        print(f"ok   refused: {e}")
    print(f"{failures} failures")
    return 1 if failures else 0


def _scale_layouts(sfa, sfb):
    """The scale tensors in each layout torch._scaled_mm might ask for:
    A's [M, K/128] row- or column-major; B's as [K/128, N/128] (the blocks
    of B^T) or [N/128, K/128], each row- or column-major."""
    col = lambda t: t.t().contiguous().t()  # noqa: E731
    a_forms = {"a_colmajor": col(sfa), "a_rowmajor": sfa.contiguous()}
    bt = sfb.t()
    b_forms = {"b_T_rowmajor": bt.contiguous(), "b_T_colmajor": col(bt),
               "b_rowmajor": sfb.contiguous(), "b_colmajor": col(sfb)}
    return a_forms, b_forms


_CUBLAS_FORM = []


def cublas_blockwise(a, sfa, b, sfb):
    """A call of cuBLASLt's 1x128 / 128x128 block-scaled FP8 GEMM through
    torch._scaled_mm, the scales already in the layout it takes (probed
    once: each combination checked against the reference)."""
    if not _CUBLAS_FORM:
        pa, psa, pb, psb = operands(256, 384, 512)
        ref = reference(pa, psa, pb, psb)
        fa, fb = _scale_layouts(psa, psb)
        for an, sa in fa.items():
            for bn, sb in fb.items():
                try:
                    d = torch._scaled_mm(pa, pb.t(), scale_a=sa, scale_b=sb,
                                         out_dtype=torch.bfloat16)
                except RuntimeError:
                    continue
                if ((d.float() - ref).abs() <= ref.abs() * 2 ** -6 +
                        ref.pow(2).mean().sqrt() * 2 ** -6).all():
                    _CUBLAS_FORM.append((an, bn))
                    print(f"  cuBLASLt block scales: {an}, {bn}")
                    break
            if _CUBLAS_FORM:
                break
        if not _CUBLAS_FORM:
            raise RuntimeError("torch._scaled_mm takes no 1x128 / 128x128 "
                               "scale layout tried here")
    an, bn = _CUBLAS_FORM[0]
    fa, fb = _scale_layouts(sfa, sfb)
    sa, sb = fa[an], fb[bn]
    return lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb,
                                    out_dtype=torch.bfloat16)


def transposed_sfa(sfa):
    """SFA [..., M, kb] in the layout the tile kernels read in place (M
    contiguous, padded to 4): each side is timed with its own layout."""
    m = sfa.shape[-2]
    mp = -(-m // 4) * 4
    buf = torch.empty(*sfa.shape[:-2], sfa.shape[-1], mp, device=sfa.device)
    buf[..., :m] = sfa.transpose(-1, -2)
    return buf[..., :m].transpose(-1, -2)


def bench_grouped(layout, groups, rows, n, k, tile, calls, reps=10):
    """One grouped row: `tile` (one launch over the experts) against the G
    cuBLASLt `calls` run in turn."""
    def separate():
        for call in calls:
            call()
    ms = interleaved({"tile": tile, "blk": separate}, reps)
    flops = 2 * groups * rows * n * k
    tf = {name: flops / (t * 1e-3) / 1e12 for name, t in ms.items()}
    print(f"{layout} {groups}x{rows} {n}x{k}: tile {tf['tile']:7.1f}  "
          f"blk x{groups} {tf['blk']:7.1f}  tile/blk "
          f"{tf['tile'] / tf['blk']:.2f}")


def bench():
    torch.manual_seed(0)
    gemm = BlockScaledGemm(DEVICE / "kernels")
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("TFLOP/s; ratios against cuBLASLt block-scaled (blk) and "
          "per-tensor FP8 (pt)")
    one = torch.ones((), device="cuda")
    for m, k in [(4096, 7168), (128, 7168), (16384, 2048)]:
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        ms = interleaved({"tile": lambda: gemm.quantize(x),
                          "torch": lambda: quantize_rows(x)})
        moved = m * k * 3 + m * -(-k // 128) * 4  # bf16 in, e4m3 + scales out
        print(f"quantize {m:5}x{k:5}: tile {moved / ms['tile'] / 1e6:7.1f} GB/s  "
              f"torch (eager ops) {moved / ms['torch'] / 1e6:7.1f} GB/s")
    for m in (64, 128, 4096):
        for n, k in [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384),
                     (4096, 7168), (7168, 2048)]:
            a, sfa, b, sfb = operands(m, n, k)
            sfa_t = transposed_sfa(sfa)
            entries = {
                "tile": lambda: gemm(a, sfa_t, b, sfb),
                "blk": cublas_blockwise(a, sfa, b, sfb),
                "pt": lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                               out_dtype=torch.bfloat16),
            }
            ms = interleaved(entries)
            tf = {name: 2 * m * n * k / (t * 1e-3) / 1e12 for name, t in ms.items()}
            print(f"dense {m:5}x{n:5}x{k:5}: tile {tf['tile']:7.1f}  "
                  f"blk {tf['blk']:7.1f}  pt {tf['pt']:7.1f}  "
                  f"tile/blk {tf['tile'] / tf['blk']:.2f}  "
                  f"tile/pt {tf['tile'] / tf['pt']:.2f}")
    for groups, rows in ((4, 8192), (8, 4096)):
        for n, k in [(4096, 7168), (7168, 2048)]:
            a, sfa, _, _ = operands(groups * rows, n, k)
            _, _, b, sfb = operands(1, n, k, groups)
            off = torch.arange(0, groups * rows + 1, rows, dtype=torch.int32,
                               device="cuda")
            calls = [cublas_blockwise(a[g * rows:(g + 1) * rows],
                                      sfa[g * rows:(g + 1) * rows], b[g], sfb[g])
                     for g in range(groups)]
            sfa_t = transposed_sfa(sfa)
            bench_grouped("contiguous", groups, rows, n, k,
                          lambda: gemm.grouped_contiguous(a, sfa_t, b, sfb, off),
                          calls, reps=5)
    for groups in (1, 2, 4):
        for rows in (256, 512, 1024):
            n, k = 4096, 7168
            a, sfa, b, sfb = operands(rows, n, k, groups)
            mask = torch.full((groups,), rows, dtype=torch.int32, device="cuda")
            calls = [cublas_blockwise(a[g], sfa[g], b[g], sfb[g])
                     for g in range(groups)]
            sfa_t = transposed_sfa(sfa)
            bench_grouped("masked", groups, rows, n, k,
                          lambda: gemm.grouped_masked(a, sfa_t, b, sfb, mask),
                          calls)
    return 0


def profile(m, n, k, which="tile"):
    """Three launches of the dense kernel, or (`cublas`) of cuBLASLt's
    block-scaled GEMM, for ncu."""
    torch.manual_seed(0)
    gemm = BlockScaledGemm(DEVICE / "kernels")
    a, sfa, b, sfb = operands(m, n, k)
    run = (cublas_blockwise(a, sfa, b, sfb) if which == "cublas"
           else lambda: gemm(a, transposed_sfa(sfa), b, sfb))
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "check":
        sys.exit(check())
    if sys.argv[1] == "bench":
        sys.exit(bench())
    sys.exit(profile(*map(int, sys.argv[2:5]), *sys.argv[5:6]))

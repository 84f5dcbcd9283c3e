"""tile_mlir on a GPU with PyTorch: the TMA copy, the DSMEM cluster copy and
a wgmma GEMM launched on torch tensors and compared with torch, and bad
arguments refused before anything runs. Kernels come from $TILE_DEVICE_DIR/kernels
(tile-compile's output, build/device/kernels), so this runs where no LLVM
is. Skips without torch or a CUDA device; `python3 test_device.py` runs it
without pytest."""

import os
import pathlib
import sys

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    HAVE_GPU = False

import tile_mlir

KERNELS = pathlib.Path(os.environ.get(
    "TILE_DEVICE_DIR",
    pathlib.Path(__file__).resolve().parents[2] / "build" / "device")) / "kernels"


def skip_without_gpu():
    if not HAVE_GPU:
        try:
            import pytest
            pytest.skip("no torch with a CUDA device")
        except ImportError:
            raise SystemExit("no torch with a CUDA device")


def kernel(name):
    compiled = tile_mlir.Compiled.load(str(KERNELS / f"{name}.sm_90a"))
    return tile_mlir.load(compiled).kernel(name)


def test_tma_copy_round_trips_a_torch_tensor():
    skip_without_gpu()
    copy = kernel("tma_copy")
    x = torch.randn(8, 256, dtype=torch.float16, device="cuda")
    y = torch.zeros_like(x)
    copy(x, y, grid=(1, 1, 1))
    torch.cuda.synchronize()
    assert torch.equal(x, y)


def test_dsmem_copy_moves_the_tile_between_ctas():
    skip_without_gpu()
    copy = kernel("dsmem_copy")
    x = torch.randn(128, 64, dtype=torch.float16, device="cuda")
    y = torch.zeros_like(x)
    copy(x, y, grid=(2, 1, 1))
    torch.cuda.synchronize()
    assert torch.equal(x, y)


def test_a_wgmma_gemm_matches_torch():
    skip_without_gpu()
    # The f16 group of the device suite's wgmma matrix.
    compiled = tile_mlir.Compiled.load(str(KERNELS / "device_wgmma_f16.sm_90a"))
    gemm = tile_mlir.load(compiled).kernel("wgmma_f16_kk_sw128_m64n128k64")
    # Small integers: every product and sum is exact in f16 x f16 -> f32.
    a = torch.randint(-3, 4, (64, 64), device="cuda").half()
    b = torch.randint(-3, 4, (128, 64), device="cuda").half()  # N x K
    c = torch.empty(64, 128, dtype=torch.float32, device="cuda")
    gemm(a, b, c, 0, grid=(1, 1, 1))  # flag 0: C = A @ B^T
    torch.cuda.synchronize()
    assert torch.equal(c, a.float() @ b.float().t())
    gemm(a, b, c, 1, grid=(1, 1, 1))  # flag 1: C = 1000 + A @ B^T
    torch.cuda.synchronize()
    assert torch.equal(c, 1000 + a.float() @ b.float().t())


def readme_python_block(index):
    """The README's index-th ```python block, with build/device/ pointing
    at this run's device folder."""
    root = pathlib.Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "test" / "Docs"))
    import readme_blocks
    code = readme_blocks.blocks((root / "README.md").read_text(), "python")[index]
    return code.replace("build/device/", str(KERNELS.parent) + "/")


def test_the_readme_hello_kernel_runs_as_written():
    skip_without_gpu()
    # The README's second Python block: launch the hello kernel (compiled to
    # build/device/kernels/hello.sm_90a by the device suite's build) on torch
    # tensors and compare with torch; it raises if the result differs.
    exec(compile(readme_python_block(1), "README.md", "exec"), {})


def expect_refused(call, text):
    try:
        call()
    except tile_mlir.LaunchError as e:
        assert text in str(e), str(e)
        return str(e)
    raise AssertionError(f"not refused: expected '{text}'")


def test_bad_arguments_are_refused_before_any_launch():
    skip_without_gpu()
    copy = kernel("tma_copy")
    x = torch.randn(8, 256, dtype=torch.float16, device="cuda")
    y = torch.zeros_like(x)
    expect_refused(lambda: copy(x.float(), y),
                   "argument 0 (memref<8x256xf16, 1>): element type f32 "
                   "given, the kernel reads f16")
    transposed = torch.randn(256, 8, dtype=torch.float16, device="cuda").t()
    expect_refused(lambda: copy(transposed, y),
                   "innermost dimension must be contiguous")
    storage = torch.zeros(8 * 256 + 1, dtype=torch.float16, device="cuda")
    misaligned = storage[1:].view(8, 256)
    message = expect_refused(lambda: copy(misaligned, y), "argument 0")
    print("misaligned pointer:", message.splitlines()[0])
    torch.cuda.synchronize()
    assert torch.count_nonzero(y) == 0  # nothing ran


def ring_round_trip(ring_stage=1, bar_index=1, count=1, extra_bytes=0,
                    late_phase=0, extra_arrivals=0):
    """The sanitized protocol kernel (test/Device/Kernels/
    sanitize_protocol.mlir) on a random bf16 tile; True when it arrived."""
    compiled = tile_mlir.Compiled.load(str(KERNELS / "sanitize_protocol.sm_90a"))
    run = tile_mlir.load(compiled).kernel("ring_round_trip")
    x = torch.randn(64, 64, dtype=torch.bfloat16, device="cuda")
    y = torch.zeros_like(x)
    run(x, y, ring_stage, bar_index, count, extra_bytes, late_phase,
        extra_arrivals)
    torch.cuda.synchronize()
    return torch.equal(x, y)


def test_sanitized_kernel_with_the_right_protocol_runs():
    skip_without_gpu()
    assert ring_round_trip()


def test_sanitized_kernel_reports_a_bug_as_a_launch_error():
    """A failing check traps, which ends the CUDA context: the launch runs
    in a child process, whose LaunchError names the kernel and the check."""
    skip_without_gpu()
    import subprocess
    script = ("import test_device, tile_mlir\n"
              "try:\n"
              "    test_device.ring_round_trip(count=2)\n"
              "except tile_mlir.LaunchError as e:\n"
              "    print(e)\n")
    child = subprocess.run([sys.executable, "-c", script], text=True,
                           capture_output=True, timeout=120,
                           cwd=pathlib.Path(__file__).parent)
    assert "kernel 'ring_round_trip': sanitize check" in child.stdout, child
    assert "(mbarrier-wait-timeout)" in child.stdout, child.stdout
    assert "parity 0" in child.stdout, child.stdout


def test_attention_matches_a_float_reference():
    """tile_mlir.attention on torch tensors: GQA (8 query heads over 2 K/V
    heads), causal, a sequence length that is not a multiple of the tile."""
    skip_without_gpu()
    from tile_mlir.attention import Attention
    import math
    attention = Attention(KERNELS)
    torch.manual_seed(1)
    q = torch.randn(2, 8, 300, 128, dtype=torch.bfloat16, device="cuda")
    k = torch.randn(2, 2, 300, 128, dtype=torch.bfloat16, device="cuda")
    v = torch.randn(2, 2, 300, 128, dtype=torch.bfloat16, device="cuda")
    o, lse = attention(q, k, v, causal=True)
    kf = k.float().repeat_interleave(4, dim=1)
    vf = v.float().repeat_interleave(4, dim=1)
    s = (q.float() @ kf.transpose(-1, -2)) / math.sqrt(128)
    s = s.masked_fill(torch.ones(300, 300, dtype=torch.bool,
                                 device="cuda").triu(1), float("-inf"))
    assert (lse - torch.logsumexp(s, -1)).abs().max().item() < 1e-3
    assert (o.float() - torch.softmax(s, -1) @ vf).abs().max().item() < 0.03
    try:
        attention(q, k[:, :, :, :64], v, causal=True)
        raise AssertionError("mismatched head dims were accepted")
    except ValueError as e:
        assert "do not match" in str(e)
    # 2^31 queries are refused: the mask compares positions in 32 bits (a
    # meta tensor: nothing is allocated).
    long_q = torch.empty(1, 8, 1 << 31, 128, dtype=torch.bfloat16,
                         device="meta")
    try:
        attention(long_q, k[:1], v[:1], causal=True)
        raise AssertionError("2^31 queries were accepted")
    except ValueError as e:
        assert "32 bits" in str(e)


def test_attention_chooses_long_tiles_for_long_sequences():
    """d = 64 without a mask runs 192-row tiles from Sq = 2048 and 128-row
    ones below; both give the float reference's O; a named kernel runs
    whatever Sq, and one for another head dim is refused."""
    skip_without_gpu()
    from tile_mlir.attention import Attention
    import math
    attention = Attention(KERNELS)
    assert attention.kernel(64, False, "bf16", seq_q=2047)[1]["block_m"] == 128
    assert attention.kernel(64, False, "bf16", seq_q=2048)[1]["block_m"] == 192
    assert attention.kernel(64, True, "bf16", seq_q=8192)[1]["block_m"] == 128
    torch.manual_seed(7)
    q = torch.randn(1, 2, 2100, 64, dtype=torch.bfloat16, device="cuda")
    k = torch.randn(1, 2, 2100, 64, dtype=torch.bfloat16, device="cuda")
    v = torch.randn(1, 2, 2100, 64, dtype=torch.bfloat16, device="cuda")
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(64)
    ref = torch.softmax(s, -1) @ v.float()
    for name in (None, "attention_d64_full_bf16"):
        o, lse = attention(q, k, v, kernel=name)
        assert (o.float() - ref).abs().max().item() < 0.03, name
        assert (lse - torch.logsumexp(s, -1)).abs().max().item() < 1e-3
    try:
        attention(q, k, v, kernel="attention_d128_full_bf16")
        raise AssertionError("a d = 128 kernel ran d = 64 tensors")
    except ValueError as e:
        assert "serves" in str(e)


def test_attention_varlen_matches_each_sequence_alone():
    """Packed sequences (tails, a sequence without queries, one without
    keys, Sq != Sk, GQA 4:1): each sequence's O and LSE are those of a
    float reference on it alone; the keyless one gets O = 0, LSE = -inf;
    the ragged views read the packed QKV slices in place and give what
    contiguous copies give; bad offsets are refused."""
    skip_without_gpu()
    from tile_mlir.attention import Attention
    import math
    attention = Attention(KERNELS)
    torch.manual_seed(5)
    lens_q, lens_k = [300, 0, 129, 64, 7], [300, 40, 513, 0, 1]
    cu_q = torch.tensor([0] + lens_q, device="cuda").cumsum(0).int()
    cu_k = torch.tensor([0] + lens_k, device="cuda").cumsum(0).int()
    q = torch.randn(sum(lens_q), 8, 64, dtype=torch.float16, device="cuda")
    k = torch.randn(sum(lens_k), 2, 64, dtype=torch.float16, device="cuda")
    v = torch.randn(sum(lens_k), 2, 64, dtype=torch.float16, device="cuda")
    for causal in (False, True):
        o, lse = attention.varlen(q, k, v, cu_q, cu_k, max(lens_q), causal)
        assert o.shape == q.shape and lse.shape == (8, q.shape[0])
        for b, (sq, sk) in enumerate(zip(lens_q, lens_k)):
            rows = slice(int(cu_q[b]), int(cu_q[b]) + sq)
            if sq == 0:
                continue
            if sk == 0:
                assert (o[rows] == 0).all()
                assert (lse[:, rows] == float("-inf")).all()
                continue
            keys = slice(int(cu_k[b]), int(cu_k[b]) + sk)
            qf = q[rows].float().transpose(0, 1)
            kf = k[keys].float().transpose(0, 1).repeat_interleave(4, 0)
            vf = v[keys].float().transpose(0, 1).repeat_interleave(4, 0)
            s = qf @ kf.transpose(-1, -2) / math.sqrt(64)
            if causal:
                s = s.masked_fill(torch.ones(sq, sk, dtype=torch.bool,
                                             device="cuda").triu(1),
                                  float("-inf"))
            assert (lse[:, rows] - torch.logsumexp(s, -1)).abs().max() < 1e-3
            ref = (torch.softmax(s, -1) @ vf).transpose(0, 1)
            assert (o[rows].float() - ref).abs().max() < 6e-3, (b, causal)
    qkv = torch.randn(500, 3, 4, 128, dtype=torch.bfloat16, device="cuda")
    cu = torch.tensor([0, 200, 500], dtype=torch.int32, device="cuda")
    o, lse = attention.varlen(qkv[:, 0], qkv[:, 1], qkv[:, 2], cu, cu, 300, True)
    oc, lsec = attention.varlen(qkv[:, 0].contiguous(), qkv[:, 1].contiguous(),
                                qkv[:, 2].contiguous(), cu, cu, 300, True)
    assert torch.equal(o, oc) and torch.equal(lse, lsec)
    # An understated max_seqlen_q (causal: the first blocks of the long
    # sequence are computed) leaves the other sequences alone; tokens past
    # the last offset get LSE -inf; offsets past the tensors are clamped.
    q2, k2, v2 = qkv[:, 0], qkv[:, 1], qkv[:, 2]
    cu2 = torch.tensor([0, 300, 400], dtype=torch.int32, device="cuda")
    o2, lse2 = attention.varlen(q2, k2, v2, cu2, cu2, 300, True)
    o3, lse3 = attention.varlen(q2, k2, v2, cu2, cu2, 100, True)
    assert torch.equal(o3[300:400], o2[300:400])
    assert torch.equal(lse3[:, 300:400], lse2[:, 300:400])
    assert torch.equal(o3[:128], o2[:128])
    assert (lse2[:, 400:] == float("-inf")).all()
    past = torch.tensor([0, 200, 900], dtype=torch.int32, device="cuda")
    o4, lse4 = attention.varlen(q2, k2, v2, past, past, 700, True)
    o5, lse5 = attention.varlen(q2, k2, v2, cu, cu, 300, True)
    assert torch.equal(o4, o5) and torch.equal(lse4, lse5)
    # No keys at all: O = 0, LSE = -inf (no launch).
    o6, lse6 = attention.varlen(q2, k2[:0], v2[:0], cu2,
                                torch.zeros(3, dtype=torch.int32,
                                            device="cuda"), 300)
    assert (o6 == 0).all() and (lse6 == float("-inf")).all()
    for bad, text in ((cu.long(), "int32"), (cu[:2], "batch + 1")):
        try:
            attention.varlen(qkv[:, 0], qkv[:, 1], qkv[:, 2], bad, cu, 300)
            raise AssertionError("bad offsets were accepted")
        except ValueError as e:
            assert text in str(e), str(e)


def test_attention_reads_strided_layouts_in_place():
    """Q/K/V in the [batch, seq, heads, dim] memory order (passed as
    transposed views) and as slices of one packed QKV tensor give what the
    contiguous copies give, bit for bit, and O comes back in q's memory
    order; a view TMA cannot read (rows 260 bytes apart, not a multiple
    of 16) is copied first and gives the same."""
    skip_without_gpu()
    from tile_mlir.attention import Attention
    attention = Attention(KERNELS)
    torch.manual_seed(3)
    for causal in (False, True):
        qkv = torch.randn(2, 300, 3, 4, 128, dtype=torch.bfloat16,
                          device="cuda")
        q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
        assert not q.is_contiguous()
        o, lse = attention(q, k, v, causal=causal)
        oc, lsec = attention(q.contiguous(), k.contiguous(), v.contiguous(),
                             causal=causal)
        assert o.stride(1) < o.stride(2)  # [batch, seq, heads, dim] order
        assert torch.equal(o, oc) and torch.equal(lse, lsec)
        bshd = torch.randn(2, 300, 4, 130, dtype=torch.bfloat16,
                           device="cuda")[..., :128]  # rows 260 bytes apart
        o2, lse2 = attention(bshd.transpose(1, 2), k, v, causal=causal)
        o2c, lse2c = attention(bshd.transpose(1, 2).contiguous(), k, v,
                               causal=causal)
        assert torch.equal(o2, o2c) and torch.equal(lse2, lse2c)
        assert o2.stride(1) < o2.stride(2)  # q's order, though q was copied
        # K/V expanded over the heads (stride 0) are copied, not mapped.
        k1, v1 = k[:, :1].expand(-1, 4, -1, -1), v[:, :1].expand(-1, 4, -1, -1)
        o3, _ = attention(q, k1, v1, causal=causal)
        o3c, _ = attention(q, k1.contiguous(), v1.contiguous(), causal=causal)
        assert torch.equal(o3, o3c)
    try:
        Attention(KERNELS, max_ctas=0)
        raise AssertionError("max_ctas=0 was accepted")
    except ValueError as e:
        assert "at least 1" in str(e)


def test_fp8_block_scaled_gemms_match_a_float_reference():
    """tile_mlir.fp8 on torch tensors: the quantizer kernel against torch's,
    bit for bit; a dense GEMM with tails in M, N and K; split-K; a masked
    grouped GEMM replayed from a CUDA graph after its counts changed on the
    device, in both of the masked walk's tiles; inputs the kernels cannot
    take are refused."""
    skip_without_gpu()
    from tile_mlir.fp8 import (BlockScaledGemm, dequantize, quantize_blocks,
                               quantize_rows)
    gemm = BlockScaledGemm(KERNELS)
    torch.manual_seed(2)

    def close(d, a, sfa, b, sfb):
        ref = dequantize(a, sfa, 1) @ dequantize(b, sfb, 128).transpose(-1, -2)
        rms = ref.pow(2).mean().sqrt()
        return bool(((d.float() - ref).abs() <= (ref.abs() + rms) / 128).all())

    x = torch.randn(200, 400, device="cuda", dtype=torch.bfloat16)
    a, sfa = gemm.quantize(x)  # the tile-IR quantizer: torch's bits
    a_ref, sfa_ref = quantize_rows(x)
    assert torch.equal(a.view(torch.uint8), a_ref.view(torch.uint8))
    assert torch.equal(sfa, sfa_ref)
    b, sfb = quantize_blocks(torch.randn(136, 400, device="cuda"))
    assert close(gemm(a, sfa, b, sfb), a, sfa, b, sfb)
    # Split-K (small M, long K) in 64-row tiles: the chosen schedule and
    # forced part counts and tiles match the reference and repeat bit for
    # bit.
    a2, sfa2 = quantize_rows(torch.randn(64, 4096, device="cuda"))
    b2, sfb2 = quantize_blocks(torch.randn(256, 4096, device="cuda"))
    tile, parts = gemm.schedule(64, 256, 4096)
    assert tile[0] == 64 and parts > 1
    for tile, parts in ((None, None), (None, 3), ((128, 64), 2), ((64, 64), 1),
                        ((128, 128), 2), ((128, 128), 1)):
        d2 = gemm(a2, sfa2, b2, sfb2, parts=parts, tile=tile)
        assert close(d2, a2, sfa2, b2, sfb2)
        assert torch.equal(d2, gemm(a2, sfa2, b2, sfb2, parts=parts, tile=tile))
    a3, sfa3 = quantize_rows(torch.randn(2, 160, 256, device="cuda"))
    b3, sfb3 = quantize_blocks(torch.randn(2, 256, 256, device="cuda"))
    counts = torch.tensor([160, 0], dtype=torch.int32, device="cuda")
    gemm.grouped_masked(a3, sfa3, b3, sfb3, counts)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        d = gemm.grouped_masked(a3, sfa3, b3, sfb3, counts)
    counts.copy_(torch.tensor([3, 130], dtype=torch.int32))
    graph.replay()
    torch.cuda.synchronize()
    assert close(d[0, :3], a3[0, :3], sfa3[0, :3], b3[0], sfb3[0])
    assert close(d[1, :130], a3[1, :130], sfa3[1, :130], b3[1], sfb3[1])
    # Both of the masked walk's tiles, forced (the default takes 128 x 64
    # where 128 x 128 tiles fill at most half the SMs, as here).
    for tile in ((128, 64), (128, 128)):
        d_tile = gemm.grouped_masked(a3, sfa3, b3, sfb3, counts, tile=tile)
        assert close(d_tile[0, :3], a3[0, :3], sfa3[0, :3], b3[0], sfb3[0])
        assert close(d_tile[1, :130], a3[1, :130], sfa3[1, :130], b3[1],
                     sfb3[1])
    for bad, message in (((a, sfa, b[:, :392], sfb), "[M, K] and [N, K]"),
                         ((a.float(), sfa, b, sfb), "float8_e4m3fn expected"),
                         ((a[:, :200], sfa[:, :2], b[:, :200], sfb[:, :2]),
                          "multiple of 16"),
                         ((a, sfa[:, :1], b, sfb), "sfa is"),
                         ((a, sfa, b, sfb, 5), "every part must get one")):
        try:
            gemm(*bad)
            raise AssertionError(f"accepted: {message}")
        except ValueError as e:
            assert message in str(e), str(e)


def test_gemm_chooses_swap_ab_split_k_and_copies_odd_strides():
    """tile_mlir.gemm: M <= 64 runs swap-AB, M = 320 split-K, a skinny
    M = 128 swap-AB in two 64-row tiles (all bit-identical run to run), a row
    stride TMA cannot take is copied, not refused, and a caller's choice is
    checked."""
    skip_without_gpu()
    from tile_mlir.gemm import Gemm
    gemm = Gemm(KERNELS, tuning=False)
    torch.manual_seed(3)
    for m, kind in ((16, "swapab_16x128"), (40, "swapab_64x128"),
                    (320, "tn_128x128x64_s5_splitk"), (128, "swapab_64x128")):
        a = torch.randn(m, 4096, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(1024, 4096, device="cuda", dtype=torch.bfloat16)
        assert kind in gemm.explain(a, w), gemm.explain(a, w)
        c = gemm.linear(a, w)
        ref = a.float() @ w.float().t()
        rms = ref.pow(2).mean().sqrt()
        assert ((c.float() - ref).abs() <= (ref.abs() + rms) / 128).all()
        assert torch.equal(c, gemm.linear(a, w))
    for choice, message in (
            (("gemm_bf16_tn_swapab_16x128x64_s8_splitk", 65), "empty"),
            (("gemm_bf16_tn_swapab_16x128x64_s8_splitk", None), "K parts"),
            (("gemm_f16_tn_swapab_16x128x64_s8_splitk", 2), "takes f16"),
            (("gemm_bf16_tn_128x128x64_s5_streamk", None), "CTA count"),
            (("gemm_bf16_tn_128x128x64_s5_streamk", 0), "a CTA would have none"),
            (("no_such_kernel", None), "no GEMM kernel")):
        try:
            gemm.linear(a, w, choice=choice)
            raise AssertionError(f"accepted {choice}")
        except ValueError as e:
            assert message in str(e), str(e)
    # Stream-K by choice: 132 CTAs over 8 tiles of 64 K steps, the same
    # bits run to run.
    streamk = ("gemm_bf16_tn_128x128x64_s5_streamk", 132)
    c = gemm.linear(a, w, choice=streamk)
    ref = a.float() @ w.float().t()
    rms = ref.pow(2).mean().sqrt()
    assert ((c.float() - ref).abs() <= (ref.abs() + rms) / 128).all()
    assert torch.equal(c, gemm.linear(a, w, choice=streamk))
    odd = torch.randn(100, 4097, device="cuda", dtype=torch.float16)[:, :4095]
    w2 = torch.randn(300, 4095, device="cuda", dtype=torch.float16)
    assert "A copied" in gemm.explain(odd, w2)
    c2 = gemm.linear(odd, w2)
    ref2 = odd.float() @ w2.float().t()
    rms2 = ref2.pow(2).mean().sqrt()
    assert ((c2.float() - ref2).abs() <= (ref2.abs() + rms2) / 128).all()


def test_gemm_sums_k_parts_in_a_cluster():
    """Cluster split-K: the chooser takes it where K is cut in two; every
    cluster size computes right (also with parts that get no K step, and
    clusters that walk several tiles), bit-identical run to run; a part
    count for it is refused; the persistent grid stays within the clusters
    the GPU holds at once."""
    skip_without_gpu()
    from tile_mlir.gemm import Gemm
    gemm = Gemm(KERNELS, tuning=False)
    torch.manual_seed(4)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    a = torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(6144, 4096, device="cuda", dtype=torch.bfloat16)
    assert "clusterk2" in gemm.explain(a, w), gemm.explain(a, w)
    # One part of a short K stays one part (no pair adding zeros).
    short = torch.randn(16, 256, device="cuda", dtype=torch.bfloat16)
    wide = torch.randn(16384, 256, device="cuda", dtype=torch.bfloat16)
    assert "clusterk" not in gemm.explain(short, wide), gemm.explain(short, wide)
    for case in gemm.cluster_k:
        if case["dtype"] != "bf16":
            continue
        size = case["cluster"]
        count = gemm._kernel("gemm_splitk", case["kernel"]).max_active_clusters()
        assert 1 <= count <= sms // size, (case["kernel"], count)
        # K of 3 tiles: with 4 or 8 parts some are empty.
        for m, n, k in ((case["bm"] - 1, 1000, 3 * case["bk"]),
                        (case["bm"], 130 * 128, 1000)):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            choice = (case["kernel"], None)
            c = gemm.linear(a, w, choice=choice)
            ref = a.float() @ w.float().t()
            rms = ref.pow(2).mean().sqrt()
            assert ((c.float() - ref).abs() <= (ref.abs() + rms) / 128).all(), \
                (case["kernel"], m, n, k)
            assert torch.equal(c, gemm.linear(a, w, choice=choice))
    try:
        gemm.linear(a, w, choice=(gemm.cluster_k[0]["kernel"], 2))
        raise AssertionError("a part count accepted")
    except ValueError as e:
        assert "K parts are not a choice" in str(e), str(e)


def test_gemm_tuning_cache_records_and_reuses_the_fastest():
    """gemm.tune times the candidates, records the fastest in the cache
    file, and a Gemm reading that file runs it (the same bits as choosing
    it by hand); an entry of another build, or one naming no kernel, is
    passed over for the heuristic; tuning during graph capture is
    refused."""
    skip_without_gpu()
    import json
    import tempfile
    from tile_mlir.gemm import Gemm
    torch.manual_seed(5)
    path = os.path.join(tempfile.mkdtemp(), "tuning.json")
    gemm = Gemm(KERNELS, tuning=path)
    a = torch.randn(64, 2048, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(3072, 2048, device="cuda", dtype=torch.bfloat16)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    heuristic = gemm.choose(a.dtype, 64, 3072, 2048, sms)[0]["kernel"]
    ranked = gemm.tune(a, w)
    # The heuristic's choice is among the candidates, every one timed.
    assert len(ranked) >= 5 and all(us > 0 for us, _ in ranked), ranked
    assert any(name == heuristic for _, (name, _) in ranked), (heuristic, ranked)
    entries = json.load(open(path))
    (key, entry), = entries.items()
    assert "64x3072x2048" in key and entry["kernel"] == ranked[0][1][0]
    again = Gemm(KERNELS, tuning=path)
    assert "tuned" in again.explain(a, w), again.explain(a, w)
    c = again.linear(a, w)
    assert torch.equal(c, gemm.linear(a, w, choice=ranked[0][1]))
    ref = a.float() @ w.float().t()
    rms = ref.pow(2).mean().sqrt()
    assert ((c.float() - ref).abs() <= (ref.abs() + rms) / 128).all()
    for broken in ({**entry, "build": "another"},
                   {**entry, "kernel": "no_such_kernel"},
                   {**entry, "parts": 999}):
        json.dump({key: broken}, open(path, "w"))
        assert "tuned" not in Gemm(KERNELS, tuning=path).explain(a, w)
    graph = torch.cuda.CUDAGraph()
    refused = ""
    with torch.cuda.graph(graph):
        try:
            gemm.tune(a, w)
        except RuntimeError as e:
            refused = str(e)
    assert "captured" in refused, refused


if __name__ == "__main__":
    failed = 0
    for name, fn in list(globals().items()):
        if name.startswith("test_"):
            try:
                fn()
                print("PASSED", name)
            except Exception as e:  # report every test
                failed += 1
                print("FAILED", name, type(e).__name__, e)
    sys.exit(failed)

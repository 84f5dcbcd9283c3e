"""Forward attention on torch tensors with the tile-IR kernels
(bench/Kernels/gen_attention_kernels.py, compiled into
build/device/kernels/attention.sm_90a.* with attention.cases.json).

    from tile_mlir.attention import Attention
    attention = Attention("build/device/kernels")
    o, lse = attention(q, k, v, causal=True)

q: [batch, Hq, Sq, d], k and v: [batch, Hkv, Sk, d] (torch SDPA's layout;
non-contiguous inputs are made contiguous), bf16 or f16, d in {64, 128,
256}, Hq a multiple of Hkv (grouped-query attention). O is like q; LSE is
[batch, Hq, Sq] f32, the natural-log log-sum-exp of each row of
Q·Kᵀ·scale. Causal masking is top-left aligned (key j is visible to query
i when j <= i), as torch's `is_causal`. The kernel is chosen by head dim,
causal flag and dtype from the case list.
"""

import json
import math
import pathlib

import tile_mlir

_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16"}


class Attention:
    """The attention module's kernels, loaded into the current CUDA
    context."""

    def __init__(self, kernels_dir):
        kernels = pathlib.Path(kernels_dir)
        self.cases = json.loads(
            (kernels / "attention.cases.json").read_text())["kernels"]
        self.module = tile_mlir.load(
            tile_mlir.Compiled.load(str(kernels / "attention.sm_90a")))
        self._kernels = {}

    def kernel(self, head_dim, causal, dtype):
        """(the kernel, its query rows per CTA) for a head dim, causal flag
        and dtype ("bf16" or "f16")."""
        for case in self.cases:
            if (case["head_dim"], case["causal"], case["dtype"]) == \
                    (head_dim, causal, dtype):
                name = case["kernel"]
                if name not in self._kernels:
                    self._kernels[name] = self.module.kernel(name)
                return self._kernels[name], case["block_m"]
        known = sorted({(c["head_dim"], c["dtype"]) for c in self.cases})
        raise ValueError(f"no attention kernel for head dim {head_dim}, "
                         f"{dtype} (kernels: {known})")

    def __call__(self, q, k, v, causal=False, scale=None):
        """(O, LSE) of softmax(Q·Kᵀ·scale [+ causal mask])·V; scale defaults
        to 1/sqrt(d)."""
        import torch
        if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
            raise ValueError("q, k and v must be [batch, heads, seq, dim]")
        b, h, sq, d = q.shape
        hk, sk = k.shape[1], k.shape[2]
        if k.shape != v.shape or k.shape[0] != b or k.shape[3] != d:
            raise ValueError(f"k {tuple(k.shape)} and v {tuple(v.shape)} do "
                             f"not match q {tuple(q.shape)}")
        if q.dtype != k.dtype or q.dtype != v.dtype:
            raise ValueError("q, k and v must have one dtype")
        if hk == 0 or h % hk:
            raise ValueError(f"{h} query heads are not a multiple of {hk} "
                             "K/V heads")
        if sq == 0 or sk == 0:
            raise ValueError("empty sequence")
        dtype = _DTYPES.get(str(q.dtype))
        if dtype is None:
            raise ValueError(f"q is {q.dtype}; the kernels take bfloat16 or "
                             "float16")
        run, block_m = self.kernel(d, causal, dtype)
        scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
        o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
        # LSE rows: [batch, heads, Sq rounded up to 64], flattened.
        padded = (sq + 63) // 64 * 64
        lse = torch.empty(b * h * padded, 1, dtype=torch.float32,
                          device=q.device)
        run(q.contiguous(), k.contiguous(), v.contiguous(), o, lse, scale,
            grid=((sq + block_m - 1) // block_m, h, b))
        return o, lse.view(b, h, padded)[:, :, :sq]

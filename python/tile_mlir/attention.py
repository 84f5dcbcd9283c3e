"""Forward attention on torch tensors with the tile-IR kernels
(bench/Kernels/gen_attention_kernels.py, compiled into
build/device/kernels/attention.sm_90a.* with attention.cases.json).

    from tile_mlir.attention import Attention
    attention = Attention("build/device/kernels")
    o, lse = attention(q, k, v, causal=True)

q: [batch, Hq, Sq, d], k and v: [batch, Hkv, Sk, d] (torch SDPA's
shapes), bf16 or f16, d in {64, 128, 256}, Hq a multiple of Hkv
(grouped-query attention). Any strides TMA can address are read in place:
the [batch, heads, seq, dim] memory order, the [batch, seq, heads, dim] one
(`x.transpose(1, 2)` of a FlashAttention-style tensor), slices of a packed
QKV tensor; that is, the last dim contiguous, the other strides multiples
of 16 bytes and the data 16-byte aligned. Other tensors are copied first
(into a contiguous tensor). O has q's memory order ([batch, seq, heads, dim] when
q's heads are inner to its sequence, else [batch, heads, seq, dim]); LSE
is [batch, Hq, Sq] f32, the natural-log log-sum-exp of each row of
Q·Kᵀ·scale. Causal masking is top-left aligned (key j is visible to query
i when j <= i), as torch's `is_causal`. The kernel is chosen by head dim,
causal flag and dtype from the case list.

Variable-length batches (sequences packed along one token dim, as
FlashAttention's varlen functions take them):

    o, lse = attention.varlen(q, k, v, cu_seqlens_q, cu_seqlens_k,
                              max_seqlen_q, causal=True)

q: [total_q, Hq, d], k and v: [total_k, Hkv, d]; sequence b is rows
cu_seqlens_q[b] .. cu_seqlens_q[b + 1] of q and cu_seqlens_k[b] ..
cu_seqlens_k[b + 1] of k and v (int32 tensors of B + 1 offsets on the GPU,
non-decreasing from 0; B and Hq at most 65535); max_seqlen_q at least the
longest query count (query blocks past it are not computed). O:
[total_q, Hq, d]; LSE: [Hq, total_q] f32. A sequence without keys gets
O = 0 and LSE = -inf; rows of q in no sequence are not written (their LSE
is -inf). The kernels clamp every offset to [0, tokens] and each end to at
least its start, so no offsets make them read or write outside the
tensors; nothing is copied to the host.
"""

import json
import math
import pathlib

import tile_mlir

class _TorchDtypes(dict):
    """torch dtype -> "bf16" / "f16" (None for others), filled on first
    sight: a dict lookup per call instead of formatting the dtype."""

    def __missing__(self, dtype):
        self[dtype] = {"torch.bfloat16": "bf16",
                       "torch.float16": "f16"}.get(str(dtype))
        return self[dtype]

    def get(self, dtype, default=None):
        found = self[dtype]
        return default if found is None else found


_DTYPES = _TorchDtypes()


class Attention:
    """The attention module's kernels, loaded into the current CUDA
    context."""

    def __init__(self, kernels_dir, max_ctas=None):
        """`max_ctas` caps the persistent kernels' grid (default: one CTA
        per SM), so that tests can make each CTA walk several tiles."""
        kernels = pathlib.Path(kernels_dir)
        if max_ctas is not None and (int(max_ctas) != max_ctas or
                                     max_ctas < 1):
            raise ValueError(f"max_ctas is {max_ctas}; give a whole number "
                             "of CTAs, at least 1, or None")
        self.max_ctas = max_ctas
        self.cases = json.loads(
            (kernels / "attention.cases.json").read_text())["kernels"]
        self.module = tile_mlir.load(
            tile_mlir.Compiled.load(str(kernels / "attention.sm_90a")))
        self._kernels = {}
        self._sms = {}
        self._tables = {}

    def kernel(self, head_dim, causal, dtype, varlen=False, seq_q=0):
        """(the kernel, its case: block_m query rows per tile; persistent
        kernels walk tiles_per_unit adjacent tiles per unit) for a head dim,
        causal flag and dtype ("bf16" or "f16"), for packed sequences with
        `varlen`: of the kernels for these, the one with the largest
        min_seq_q at most `seq_q` (longer tiles for long sequences)."""
        key = (head_dim, bool(causal), dtype, bool(varlen))
        found = self._kernels.get(key)
        if found is None:
            found = sorted(((c.get("min_seq_q", 0), c) for c in self.cases
                            if (c["head_dim"], c["causal"], c["dtype"],
                                c.get("varlen", False)) == key),
                           key=lambda entry: -entry[0])
            found = [(min_seq_q, (self.module.kernel(c["kernel"]), c))
                     for min_seq_q, c in found]
            self._kernels[key] = found
        for min_seq_q, chosen in found:
            if seq_q >= min_seq_q:
                return chosen
        known = sorted({(c["head_dim"], c["dtype"]) for c in self.cases
                        if c.get("varlen", False) == bool(varlen)})
        raise ValueError(f"no {'varlen ' if varlen else ''}attention kernel "
                         f"for head dim {head_dim}, {dtype} (kernels: "
                         f"{known})")

    def __call__(self, q, k, v, causal=False, scale=None, *, kernel=None):
        """(O, LSE) of softmax(Q·Kᵀ·scale [+ causal mask])·V; scale defaults
        to 1/sqrt(d). `kernel` names the case-list kernel to run instead of
        the one chosen (tests and benchmarks: each kernel on every shape)."""
        import torch
        q_shape, k_shape = q.shape, k.shape
        if len(q_shape) != 4 or len(k_shape) != 4 or v.dim() != 4:
            raise ValueError("q, k and v must be [batch, heads, seq, dim]")
        b, h, sq, d = q_shape
        _, hk, sk, _ = k_shape
        if k_shape != v.shape or k_shape[0] != b or k_shape[3] != d:
            raise ValueError(f"k {tuple(k_shape)} and v {tuple(v.shape)} do "
                             f"not match q {tuple(q_shape)}")
        if max(sq, sk) >= 1 << 31:
            raise ValueError(f"sequences of {sq} queries and {sk} keys: the "
                             "kernels' mask compares positions in 32 bits "
                             "(fewer than 2^31)")
        dtype = _operand_dtype(q, k, v, h, hk)
        if sq == 0 or sk == 0:
            raise ValueError("empty sequence")
        if kernel is None:
            run, case = self.kernel(d, causal, dtype, seq_q=sq)
        else:
            run, case = self._named(kernel, (d, bool(causal), dtype, False))
        scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
        device = q.device
        # O in the caller's memory order of q, even when q is copied.
        q_strides = q.stride()
        q, k, v = (x if _tma_addressable(x) else
                   torch.empty(x.shape, dtype=x.dtype,
                               device=device).copy_(x)
                   for x in (q, k, v))
        if q_strides[1] < q_strides[2]:  # heads inner to the sequence
            o = torch.empty(b, sq, h, d, dtype=q.dtype,
                            device=device).transpose(1, 2)
        else:
            o = torch.empty(q_shape, dtype=q.dtype, device=device)
        # LSE rows: [batch, heads, Sq rounded up to 64], flattened.
        padded = (sq + 63) // 64 * 64
        lse = torch.empty(b * h * padded, 1, dtype=torch.float32,
                          device=device)
        q_blocks = (sq + case["block_m"] - 1) // case["block_m"]
        if case.get("persistent"):
            per_unit = case["tiles_per_unit"]
            if q_blocks * h * b >= 1 << 32:
                raise ValueError(f"{q_blocks * h * b} tiles of "
                                 f"{case['block_m']} query rows: the "
                                 "persistent kernels take fewer than 2^32")
            units = (q_blocks * h * b + per_unit - 1) // per_unit
            ctas = self._sm_count(device)
            if self.max_ctas:
                ctas = min(ctas, self.max_ctas)
            grid = (min(units, ctas), 1, 1)
        else:
            grid = (q_blocks, h, b)
        run(q, k, v, o, lse, scale, grid=grid)
        return o, lse.view(b, h, padded)[:, :, :sq]

    def _named(self, name, key):
        """(kernel, case) of the case named `name`, which must serve `key`
        (head dim, causal, dtype, varlen)."""
        for case in self.cases:
            if case["kernel"] == name:
                served = (case["head_dim"], case["causal"], case["dtype"],
                          case.get("varlen", False))
                if served != key:
                    raise ValueError(f"kernel {name} serves {served}, the "
                                     f"call needs {key}")
                return self.module.kernel(name), case
        raise ValueError(f"no attention kernel named {name}")

    def varlen(self, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
               causal=False, scale=None):
        """(O [total_q, Hq, d], LSE [Hq, total_q]) of packed sequences (the
        module's docstring says how they are given)."""
        import torch
        if q.dim() != 3 or k.dim() != 3 or v.dim() != 3:
            raise ValueError("q, k and v must be [tokens, heads, dim]")
        total_q, h, d = q.shape
        total_k, hk, _ = k.shape
        if k.shape != v.shape or k.shape[2] != d:
            raise ValueError(f"k {tuple(k.shape)} and v {tuple(v.shape)} do "
                             f"not match q {tuple(q.shape)}")
        dtype = _operand_dtype(q, k, v, h, hk)
        device = q.device
        for name, cu in (("cu_seqlens_q", cu_seqlens_q),
                         ("cu_seqlens_k", cu_seqlens_k)):
            if not isinstance(cu, torch.Tensor) or cu.dtype != torch.int32 \
                    or cu.dim() != 1 or cu.device != device:
                raise ValueError(f"{name} must be a 1-dim int32 tensor on "
                                 f"{device}")
        if cu_seqlens_q.shape != cu_seqlens_k.shape or \
                cu_seqlens_q.shape[0] < 1:
            raise ValueError(
                f"cu_seqlens_q ({cu_seqlens_q.shape[0]} offsets) and "
                f"cu_seqlens_k ({cu_seqlens_k.shape[0]}) must both hold "
                "batch + 1 offsets")
        if int(max_seqlen_q) != max_seqlen_q or max_seqlen_q < 0:
            raise ValueError(f"max_seqlen_q is {max_seqlen_q}; give the "
                             "longest sequence's query count")
        max_seqlen_q = int(max_seqlen_q)
        if max_seqlen_q > total_q:
            max_seqlen_q = total_q  # no sequence is longer than the tensor
        # The ragged views address rows as 2^30 - length + row.
        if max(total_q, total_k) >= RAGGED_ROWS:
            raise ValueError(f"{max(total_q, total_k)} tokens: the varlen "
                             f"kernels take fewer than 2^30")
        run, case = self.kernel(d, causal, dtype, varlen=True)
        scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
        batch = cu_seqlens_q.shape[0] - 1
        if cu_seqlens_q.stride(0) != 1:
            cu_seqlens_q = cu_seqlens_q.contiguous()
        if cu_seqlens_k.stride(0) != 1:
            cu_seqlens_k = cu_seqlens_k.contiguous()
        o = torch.empty(total_q, h, d, dtype=q.dtype, device=device)
        q_blocks = (max_seqlen_q + case["block_m"] - 1) // case["block_m"]
        if batch == 0 or q_blocks == 0 or total_q == 0 or total_k == 0:
            # No keys anywhere (or no queries): O = 0, LSE = -inf.
            return (o.zero_(), torch.full((h, total_q), -math.inf,
                                          dtype=torch.float32, device=device))
        if batch > 65535 or h > 65535:
            raise ValueError(f"{batch} sequences of {h} query heads: the "
                             "varlen grid takes at most 65535 of each")
        # LSE rows per head: the tokens, sequence b's from
        # round_up(start, 4) + b · (block_m + 4) (16-byte aligned TMA
        # stores, a tile of padding), a multiple of 4 rows in all.
        block_m = case["block_m"]
        # The last row of each head stays -inf: what tokens in no sequence
        # gather.
        head_rows = (total_q + batch * (block_m + 4) + 8) // 4 * 4
        if h * head_rows >= 1 << 31:
            raise ValueError(f"{h} heads × ({total_q} tokens + {batch} "
                             f"sequences × {block_m}) LSE rows: the varlen "
                             "kernels take fewer than 2^31")
        q, k, v = (x if _ragged_addressable(x) else
                   torch.empty(x.shape, dtype=x.dtype,
                               device=device).copy_(x)
                   for x in (q, k, v))
        lse = torch.empty(h * head_rows, 1, dtype=torch.float32,
                          device=device)
        run(_RaggedRows(q), _RaggedRows(k), _RaggedRows(v), _RaggedRows(o),
            lse, cu_seqlens_q, cu_seqlens_k, scale, grid=(q_blocks, h, batch))
        lse_rows = lse.view(h, head_rows)
        lse_rows[:, -1] = -math.inf
        # Each token's LSE row, found on the GPU (no copy of the offsets to
        # the host) in few small kernels: token t of sequence b at t +
        # shift[b + 1], shift[b + 1] = round_up(start_b, 4) + b (block_m +
        # 4) - start_b; shift[0] and shift[B + 1] (before the first offset,
        # past the last) reach past every row, to the -inf row.
        tokens, ramp, far = self._varlen_tables(total_q, batch, block_m,
                                                device)
        starts = cu_seqlens_q[:-1].clamp(0, total_q)
        shift = far.clone()
        shift[1:-1] = ((starts + 3) & -4) - starts + ramp
        sequence = torch.searchsorted(cu_seqlens_q, tokens, right=True)
        index = (tokens + shift[sequence]).clamp_(max=head_rows - 1)
        return o, lse_rows[:, index]

    def _varlen_tables(self, total_q, batch, block_m, device):
        """Cached per shape: token numbers, b · (block_m + 4) per sequence,
        and a B + 2 table of 2^40 (past every LSE row)."""
        import torch
        key = (total_q, batch, block_m, str(device))
        tables = self._tables.get(key)
        if tables is None:
            if len(self._tables) > 64:
                self._tables.clear()
            tables = (torch.arange(total_q, device=device, dtype=torch.int32),
                      torch.arange(batch, device=device, dtype=torch.int64)
                      * (block_m + 4),
                      torch.full((batch + 2,), 1 << 40, device=device,
                                 dtype=torch.int64))
            self._tables[key] = tables
        return tables

    def _sm_count(self, device):
        index = device.index if device.index is not None else 0
        if index not in self._sms:
            import torch
            self._sms[index] = torch.cuda.get_device_properties(
                index).multi_processor_count
        return self._sms[index]


def _operand_dtype(q, k, v, q_heads, kv_heads):
    """The kernels' name of q, k and v's one dtype ("bf16" / "f16"), after
    the checks both layouts share: one dtype the kernels take, one GPU,
    query heads a multiple of the K/V heads."""
    if q.dtype != k.dtype or q.dtype != v.dtype:
        raise ValueError("q, k and v must have one dtype")
    if kv_heads == 0 or q_heads % kv_heads:
        raise ValueError(f"{q_heads} query heads are not a multiple of "
                         f"{kv_heads} K/V heads")
    dtype = _DTYPES.get(q.dtype)
    if dtype is None:
        raise ValueError(f"q is {q.dtype}; the kernels take bfloat16 or "
                         "float16")
    device = q.device
    if k.device != device or v.device != device or not q.is_cuda:
        raise ValueError(f"q, k and v must be on one GPU (q on {device}, "
                         f"k on {k.device}, v on {v.device})")
    return dtype


# The varlen kernels' ragged views (gen_attention_kernels.py): a packed
# [tokens, heads, dim] tensor with token stride r (elements) passed as
# [A, tokens + 1, heads, 2^30, dim] with strides [2^34 bytes - r, r,
# heads' stride, r, 1]; the kernels read sequence rows at
# (2^30, end, head, 2^30 - length + row, 0), the address wrapping to
# start + row and the 2^30 dim's bound the sequence's end.
RAGGED_ROWS = 1 << 30
_RAGGED_OUTER = 0x7FFF0000  # the wrapping dim's size: above 2^30, below 2^31


class _RaggedRows:
    """A packed [tokens, heads, dim] tensor as the varlen kernels' ragged
    5-dim view (torch cannot make it: its extent overflows 64 bits)."""

    is_cuda = True

    def __init__(self, x):
        tokens, heads, dim = x.shape
        token_stride, head_stride, _ = x.stride()
        self.tensor = x  # kept alive while the view is
        self.dtype = x.dtype
        self.shape = (_RAGGED_OUTER, tokens + 1, heads, RAGGED_ROWS, dim)
        self._strides = ((1 << 34) // x.element_size() - token_stride,
                         token_stride, head_stride, token_stride, 1)
        self._address = x.data_ptr()
        self._element_size = x.element_size()

    def data_ptr(self):
        return self._address

    def stride(self):
        return self._strides

    def element_size(self):
        return self._element_size


def _ragged_addressable(x):
    """Whether the ragged view of a packed [tokens, heads, dim] tensor is
    one a tensor map reads: the dim contiguous, token and head strides
    positive multiples of 16 bytes, the data 16-byte aligned."""
    s0, s1, s2 = x.stride()
    return (s2 == 1 and x.data_ptr() % 16 == 0 and s0 > 0 and s1 > 0 and
            s0 % 8 == 0 and s1 % 8 == 0)


def _tma_addressable(x):
    """Whether a tensor map can read x in place: the last dim contiguous,
    every other stride a multiple of 16 bytes, the data 16-byte aligned
    (16-bit elements: strides multiples of 8)."""
    s0, s1, s2, s3 = x.stride()
    # Zero strides (an expanded view) are copied: not a layout to hand a
    # tensor map.
    return (s3 == 1 and x.data_ptr() % 16 == 0 and s0 > 0 and s1 > 0 and
            s2 > 0 and s0 % 8 == 0 and s1 % 8 == 0 and s2 % 8 == 0)

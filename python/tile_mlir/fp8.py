"""FP8 GEMMs with 1x128 / 128x128 block scales on torch tensors, with the
tile-IR kernels (bench/Kernels/gen_fp8_kernels.py, compiled into
build/device/kernels/fp8.sm_90a.* with fp8.cases.json).

    from tile_mlir.fp8 import BlockScaledGemm, quantize_rows, quantize_blocks
    gemm = BlockScaledGemm("build/device/kernels")
    a, sfa = gemm.quantize(x)          # x [M, K] bf16 -> e4m3, [M, ceil(K/128)]
    b, sfb = quantize_blocks(w)        # w [N, K] -> e4m3, [ceil(N/128), ceil(K/128)]
    d = gemm(a, sfa, b, sfb)           # [M, N] bf16 ~= x @ w.T

D[m, n] = sum_k A[m, k] SFA[m, k / 128] B[n, k] SFB[n / 128, k / 128],
accumulated in f32 (each 128-wide K block in full, then scaled and added),
rounded to bf16 once. Requirements (TMA's 16-byte strides): K a multiple
of 16, N a multiple of 8; M, N, K need not be multiples of the tiles.
`gemm.schedule(m, n, k)` chooses the tile (128 x 128, or for a small M
64 rows and/or 64 columns) and whether K is split (`gemm(..., parts=S,
tile=(rows, columns))` forces them): each part's f32 partial goes
to a workspace and a second kernel (the split-K GEMM family's reduction,
kernels/gemm_splitk.sm_90a) sums the parts in order.

SFA may be given in either layout: [M, kb] row-major, or (DeepGEMM's and
cuBLASLt's) "transposed": a [M, kb] view whose column stride is a multiple
of 4 and row stride 1, which is read in place (the other is copied).

Grouped (mixture of experts), one launch over G experts:
  gemm.grouped_contiguous(a, sfa, b, sfb, offsets): a [M, K] holds the
      experts' rows back to back, expert g rows offsets[g]..offsets[g+1]
      (an int32 CUDA tensor of G + 1, offsets[0] = 0, non-decreasing, each
      segment a multiple of 128 rows: pad an expert's tokens; the kernel
      reads them on the device and does not check them); b [G, N, K], sfb
      [G, ceil(N/128), kb]. Rows outside [offsets[0], offsets[G]) are left
      as torch.empty left them.
  gemm.grouped_masked(a, sfa, b, sfb, masked_m): a [G, cap, K], sfa
      [G, cap, kb], b [G, N, K], sfb [G, ceil(N/128), kb], masked_m an
      int32 CUDA tensor of G (rows valid per expert; read on the device, so
      the call is CUDA-graph safe). D is [G, cap, N]; its rows past
      masked_m[g] are unspecified.
`gemm.quantize` is the activation quantizer as a tile-IR kernel (bf16 in;
bit for bit `quantize_rows`, the torch reference, which takes any float
type; `quantize_blocks` quantizes weights, in torch). Results are
deterministic: the same inputs give the same bits (each
output element is summed by one thread in a fixed order; split-K parts are
summed in part order).
"""

import json
import pathlib

import tile_mlir

SCALE_BLOCK = 128
E4M3_MAX = 448.0


def _ieee_div(t, value):
    """t / value correctly rounded: torch divides a CUDA tensor by a Python
    number as a multiplication by its reciprocal (1 ulp off at times), by a
    tensor with a true division (as the quantizer kernel does)."""
    import torch
    return t / torch.full_like(t, value)


def quantize_rows(x):
    """x [..., K] (any float) -> (e4m3 [..., K], f32 scales [..., ceil(K/128)]):
    each 1 x 128 block divided by its amax / 448 (a zero block: scale 1)."""
    import torch
    k = x.shape[-1]
    kb = -(-k // SCALE_BLOCK)
    padded = torch.nn.functional.pad(x.float(), (0, kb * SCALE_BLOCK - k))
    blocks = padded.view(*x.shape[:-1], kb, SCALE_BLOCK)
    amax = blocks.abs().amax(dim=-1)
    scale = torch.where(amax > 0, _ieee_div(amax, E4M3_MAX),
                        torch.ones_like(amax))
    q = (blocks / scale.unsqueeze(-1)).view(*x.shape[:-1], kb * SCALE_BLOCK)
    return q[..., :k].to(torch.float8_e4m3fn).contiguous(), scale


def quantize_blocks(w):
    """w [..., N, K] -> (e4m3 [..., N, K], f32 scales [..., ceil(N/128),
    ceil(K/128)]): each 128 x 128 block divided by its amax / 448."""
    import torch
    n, k = w.shape[-2:]
    nb, kb = -(-n // SCALE_BLOCK), -(-k // SCALE_BLOCK)
    padded = torch.nn.functional.pad(
        w.float(), (0, kb * SCALE_BLOCK - k, 0, nb * SCALE_BLOCK - n))
    blocks = padded.view(*w.shape[:-2], nb, SCALE_BLOCK, kb, SCALE_BLOCK)
    amax = blocks.abs().amax(dim=(-3, -1))
    scale = torch.where(amax > 0, _ieee_div(amax, E4M3_MAX),
                        torch.ones_like(amax))
    q = blocks / scale.unsqueeze(-1).unsqueeze(-3)
    q = q.view(*w.shape[:-2], nb * SCALE_BLOCK, kb * SCALE_BLOCK)[..., :n, :k]
    return q.to(torch.float8_e4m3fn).contiguous(), scale


def dequantize(q, scale, block_rows):
    """The f32 values a quantized operand stands for (`block_rows`: 1 for
    activations, 128 for weights)."""
    rows, k = q.shape[-2:]
    s = scale.repeat_interleave(SCALE_BLOCK, dim=-1)[..., :k]
    s = s.repeat_interleave(block_rows, dim=-2)[..., :rows, :]
    return q.float() * s


def _on_current_device(**tensors):
    """The kernels run in the current CUDA context: every tensor must be
    on its device (a CPU tensor or another GPU's is refused by name)."""
    import torch
    here = torch.cuda.current_device()
    for name, t in tensors.items():
        if not t.is_cuda or t.device.index != here:
            raise ValueError(f"{name} is on {t.device}; the kernels run on "
                             f"cuda:{here} (the current device)")


def _tma_ready(t):
    """`t` dense and 16-byte aligned (TMA's base address), copied if not."""
    t = t.contiguous()
    return t if t.data_ptr() % 16 == 0 else t.clone()


def _transposed(sfa):
    """SFA [..., M, kb] -> a [..., kb, M] view with row stride a multiple of
    4 elements (the kernels' TMA box of a tile's row scales), copying only when
    the given layout is not already that."""
    import torch
    m = sfa.shape[-2]
    t = sfa.transpose(-1, -2)
    if t.stride(-1) == 1 and t.stride(-2) % 4 == 0 and t.stride(-2) >= m \
            and t.data_ptr() % 16 == 0 \
            and (t.dim() == 2 or t.stride(-3) == t.shape[-2] * t.stride(-2)):
        return t
    padded = -(-m // 4) * 4
    buf = torch.empty(*t.shape[:-1], padded, dtype=torch.float32,
                      device=sfa.device)
    buf[..., :m] = t
    return buf[..., :m]


def schedule_dense(m, n, k, sms, tiles, by_rows=True):
    """((rows, columns) tile, parts) for the dense GEMM of this shape on
    `sms` SMs, `tiles` the (rows, columns) tiles there are kernels for
    (`by_rows=False`: all of them candidates, whatever M).
    Each candidate is costed as the waves of (tile, part) units over the
    SMs times what a unit streams into shared memory, (rows + columns) x
    (its K blocks + 4: the pipeline's fill and the epilogue), a tenth more
    when K is split (the workspace and the second kernel); the cheapest
    wins, ties going to fewer parts, then to the larger tile. 64-row tiles
    are candidates at M <= 64, 64-column tiles at M <= 256 (a small M is
    bound by streaming B: H200, 64 x 24576 x 1536 took 11.2 us in 64 x 128
    tiles, 14.7 in 128 x 128). K is split only
    when the tiles fill at most half the SMs, no candidate tile fills 80 %
    of them in one wave unsplit, and K has at least 32 blocks of 128 (a
    shorter K loses more to the second kernel than it gains), into parts
    of at least 4 blocks, at most 16; every part is non-empty.
    Each part's f32 partial goes to a workspace, summed in part order by a
    second kernel (the same bits run to run)."""
    kb = -(-k // SCALE_BLOCK)
    candidates = [(bm, bn) for bm, bn in tiles if not by_rows or (
        not (bm < 128 and m > bm) and not (bn < 128 and m > 256))]
    counts = {t: -(-m // t[0]) * -(-n // t[1]) for t in candidates}
    # A tile that fills 80 % of the SMs or more in one wave unsplit leaves
    # too little idle for split-K to win back its workspace (H200, 128 x
    # 7168 x 16384: 40.9 us in one wave of 112 tiles of 128 x 64, 44.9 in
    # 56 tiles of 128 x 128 in 2 parts).
    splits = kb >= 32 and not any(0.8 * sms <= c <= sms for c in counts.values())
    best = None
    for (bm, bn), count in counts.items():
        parts_tried = {1}
        if count * 2 <= sms and splits:
            parts_tried |= {-(-kb // -(-kb // p))
                            for p in range(2, min(kb // 4, 16) + 1)}
        for parts in parts_tried:
            waves = -(-count * parts // sms)
            cost = (waves * (bm + bn) * (-(-kb // parts) + 4)
                    * (1.1 if parts > 1 else 1))
            key = (cost, parts, -bm, -bn)
            if best is None or key < best[0]:
                best = (key, (bm, bn), parts)
    if best is None:
        raise ValueError(f"no tile of {tiles} for M = {m}")
    return best[1], best[2]


def schedule_masked(groups, capacity, n, sms, tiles):
    """The (rows, columns) tile of the masked grouped GEMM: 128 x 64 (when
    among `tiles`) where 128 x 128 tiles over every expert's capacity fill
    at most half of the `sms` SMs (H200, one expert of 256 rows at N =
    4096: 1.16x cuBLASLt in 128 x 64 tiles, 0.95x in 128 x 128), else
    128 x 128 (two such experts already measured 1.74x against 1.23x)."""
    wide = groups * -(-capacity // 128) * -(-n // 128)
    return (128, 64) if (128, 64) in tiles and wide * 2 <= sms else (128, 128)


def _checked_tile(tile, tiles):
    """`tile` as a tuple, refused unless one of `tiles`."""
    if not isinstance(tile, (tuple, list)) or tuple(tile) not in tiles:
        raise ValueError(f"tile = {tile!r}: one of {tiles} expected")
    return tuple(tile)


class BlockScaledGemm:
    """The block-scaled FP8 kernels, loaded into the current CUDA
    context."""

    def __init__(self, kernels_dir):
        kernels = pathlib.Path(kernels_dir)
        listing = json.loads((kernels / "fp8.cases.json").read_text())
        self.cases = {(c["walk"], c["bm"], c["bn"]): c
                      for c in listing["kernels"]}
        # The dense and split-K walks' tiles (rows, columns).
        self.tiles = tuple(sorted({(bm, bn) for walk, bm, bn in self.cases
                                   if walk == "dense"}, reverse=True))
        self.masked_tiles = tuple(sorted(
            {(bm, bn) for walk, bm, bn in self.cases if walk == "masked"},
            reverse=True))
        self.quantizer = listing["quantizer"]
        self.module = tile_mlir.load(
            tile_mlir.Compiled.load(str(kernels / "fp8.sm_90a")))
        # Split-K sums its parts with the split-K GEMM family's reductions.
        self._kernels_dir = kernels
        self._reduce_module = None
        self._kernels = {}
        self._sms = None

    def _kernel(self, walk, tile=(128, 128)):
        key = walk if walk == "quantizer" else (walk, *tile)
        if key not in self._kernels:
            name = (self.quantizer if walk == "quantizer"
                    else self.cases[key])["kernel"]
            self._kernels[key] = self.module.kernel(name)
        return self._kernels[key]

    def quantize(self, x):
        """x [M, K] bf16 -> (e4m3 [M, K], SFA [M, ceil(K/128)] f32) with the
        tile-IR quantizer, bit for bit `quantize_rows(x)`; SFA comes in the
        transposed layout (M contiguous, column stride a multiple of 4),
        which the GEMMs read in place. K must be a multiple of 16."""
        import torch
        if x.dim() != 2 or x.dtype != torch.bfloat16:
            raise ValueError(f"x is {x.dtype} {tuple(x.shape)}; a 2-D "
                             "bfloat16 tensor expected")
        _on_current_device(x=x)
        m, k = x.shape
        if k == 0 or k % 16:
            raise ValueError(f"K = {k}: must be a positive multiple of 16 "
                             "(the e4m3 output's 16-byte row stride)")
        kb = -(-k // SCALE_BLOCK)
        q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device=x.device)
        scales = torch.empty(kb, -(-m // 4) * 4, dtype=torch.float32,
                             device=x.device)[:, :m]
        if m:
            rows = self.quantizer["rows"]
            self._kernel("quantizer")(_tma_ready(x), q, scales.unsqueeze(-1),
                                      grid=(-(-m // rows), kb, 1))
        return q, scales.t()

    def _grid(self, device, tiles):
        import torch
        if self._sms is None:
            self._sms = torch.cuda.get_device_properties(
                device).multi_processor_count
        return (max(1, min(self._sms, tiles)), 1, 1)

    @staticmethod
    def _check(a, sfa, b, sfb, m, n, k, groups=None):
        import torch
        _on_current_device(a=a, sfa=sfa, b=b, sfb=sfb)
        kb = -(-k // SCALE_BLOCK)
        nb = -(-n // SCALE_BLOCK)
        for name, t in (("a", a), ("b", b)):
            if t.dtype != torch.float8_e4m3fn:
                raise ValueError(f"{name} is {t.dtype}; float8_e4m3fn expected")
        for name, t in (("sfa", sfa), ("sfb", sfb)):
            if t.dtype != torch.float32:
                raise ValueError(f"{name} is {t.dtype}; float32 expected")
        if k == 0 or k % 16:
            raise ValueError(f"K = {k}: must be a positive multiple of 16 "
                             "(TMA's 16-byte row strides)")
        if n == 0 or n % 8:
            raise ValueError(f"N = {n}: must be a positive multiple of 8 "
                             "(the bf16 output's 16-byte row stride)")
        lead = () if groups is None else (groups,)
        if tuple(sfa.shape) != lead + (m, kb):
            raise ValueError(f"sfa is {tuple(sfa.shape)}, "
                             f"{lead + (m, kb)} expected")
        if tuple(sfb.shape) != lead + (nb, kb):
            raise ValueError(f"sfb is {tuple(sfb.shape)}, "
                             f"{lead + (nb, kb)} expected")

    def schedule(self, m, n, k, device=None, tiles=None):
        """((rows, columns) tile, parts) for the dense GEMM of this shape on
        this device's SMs: `schedule_dense` over `tiles` (default: all the
        family's; given, any of them may be taken whatever M)."""
        import torch
        sms = self._grid(device or torch.device("cuda"), 1 << 30)[0]
        if tiles is not None:
            return schedule_dense(m, n, k, sms, tiles, by_rows=False)
        return schedule_dense(m, n, k, sms, self.tiles)

    def split_parts(self, m, n, k, device=None):
        """The K parts `schedule` chooses for this shape (1: not split)."""
        return self.schedule(m, n, k, device)[1]

    def _reducer(self, rows):
        if self._reduce_module is None:
            listing = json.loads(
                (self._kernels_dir / "gemm_splitk.cases.json").read_text())
            self._reducers = {r["rows"]: r for r in listing["reducers"]
                              if r["out"] == "bf16" and not r["stream_k"]}
            self._reduce_module = tile_mlir.load(tile_mlir.Compiled.load(
                str(self._kernels_dir / "gemm_splitk.sm_90a")))
        r = self._reducers[rows]
        return self._reduce_module.kernel(r["kernel"]), r

    def __call__(self, a, sfa, b, sfb, parts=None, tile=None):
        """D = (A SFA) (B SFB)^T, [M, N] bf16. `parts` forces the number of
        K parts (1 is the unsplit kernel) and `tile` the (rows, columns)
        tile (one of `self.tiles`); `schedule` chooses what is not given:
        the part count for a forced tile, the tile (with its own part
        count) for forced parts."""
        import torch
        if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[1]:
            raise ValueError(f"a {tuple(a.shape)} and b {tuple(b.shape)}: "
                             "[M, K] and [N, K] expected")
        (m, k), n = a.shape, b.shape[0]
        d = torch.empty(m, n, dtype=torch.bfloat16, device=a.device)
        if m == 0 or n == 0:
            return d
        self._check(a, sfa, b, sfb, m, n, k)
        kb = -(-k // SCALE_BLOCK)
        if tile is not None:
            tile = _checked_tile(tile, self.tiles)
        if parts is None or tile is None:
            # A forced tile gets the part count the schedule costs for it.
            chosen_tile, chosen_parts = self.schedule(
                m, n, k, a.device, None if tile is None else [tile])
            parts = chosen_parts if parts is None else parts
            tile = chosen_tile if tile is None else tile
        tiles = -(-m // tile[0]) * -(-n // tile[1])
        if (not isinstance(parts, int) or parts < 1
                or -(-kb // parts) * (parts - 1) >= kb):
            raise ValueError(f"parts = {parts!r}: K = {k} has {kb} blocks of "
                             f"{SCALE_BLOCK}; every part must get one")
        if parts > 1:
            workspace = torch.empty(parts, m, -(-n // 4) * 4,
                                    dtype=torch.float32,
                                    device=a.device)[:, :, :n]
            self._kernel("splitk", tile)(
                _tma_ready(a), _tma_ready(b), _transposed(sfa).unsqueeze(-1),
                sfb.contiguous(), workspace, parts,
                grid=self._grid(a.device, tiles * parts))
            rows = 16 if m <= 64 or parts > 4 else 64
            reduce, r = self._reducer(rows)
            reduce(workspace, d, grid=(-(-m // r["rows"]), -(-n // r["cols"])))
            return d
        self._kernel("dense", tile)(
            _tma_ready(a), _tma_ready(b), _transposed(sfa).unsqueeze(-1),
            sfb.contiguous(), d, grid=self._grid(a.device, tiles))
        return d

    def grouped_contiguous(self, a, sfa, b, sfb, offsets):
        """Expert g: D[offsets[g]:offsets[g+1]] = A[...] B[g]^T (scaled)."""
        import torch
        if a.dim() != 2 or b.dim() != 3 or a.shape[1] != b.shape[2]:
            raise ValueError(f"a {tuple(a.shape)} and b {tuple(b.shape)}: "
                             "[M, K] and [G, N, K] expected")
        (m, k), (g, n) = a.shape, b.shape[:2]
        if offsets.dtype != torch.int32 or tuple(offsets.shape) != (g + 1,):
            raise ValueError(f"offsets: int32 [{g + 1}] expected")
        if sfb.dim() != 3 or sfb.shape[0] != g:
            raise ValueError(f"sfb is {tuple(sfb.shape)}; [G = {g}, "
                             "ceil(N/128), ceil(K/128)] expected")
        d = torch.empty(m, n, dtype=torch.bfloat16, device=a.device)
        if g == 0 or m == 0 or n == 0:
            return d
        self._check(a, sfa, b[0], sfb[0], m, n, k)
        tiles = -(-m // 128) * -(-n // 128)
        self._kernel("contiguous")(
            _tma_ready(a), _tma_ready(b).view(g * n, k),
            _transposed(sfa).unsqueeze(-1),
            sfb.contiguous().view(-1, sfb.shape[-1]), d, offsets.contiguous(),
            grid=self._grid(a.device, tiles))
        return d

    def grouped_masked(self, a, sfa, b, sfb, masked_m, tile=None):
        """Expert g: D[g, :masked_m[g]] = A[g, :masked_m[g]] B[g]^T (scaled).
        `tile` forces the (rows, columns) tile, one of `self.masked_tiles`;
        `schedule_masked` chooses it otherwise."""
        import torch
        if a.dim() != 3 or b.dim() != 3 or a.shape[0] != b.shape[0] \
                or a.shape[2] != b.shape[2]:
            raise ValueError(f"a {tuple(a.shape)} and b {tuple(b.shape)}: "
                             "[G, cap, K] and [G, N, K] expected")
        (g, cap, k), n = a.shape, b.shape[1]
        if masked_m.dtype != torch.int32 or tuple(masked_m.shape) != (g,):
            raise ValueError(f"masked_m: int32 [{g}] expected")
        d = torch.empty(g, cap, n, dtype=torch.bfloat16, device=a.device)
        if cap == 0 or g == 0 or n == 0:
            return d
        self._check(a, sfa, b, sfb, cap, n, k, groups=g)
        sfa_t = _transposed(sfa)  # [G, kb, cap], planes whole row strides
        kb = sfa_t.shape[1]
        sfa_rows = sfa_t.reshape(g * kb, cap)
        tile = (schedule_masked(g, cap, n, self._grid(a.device, 1 << 30)[0],
                                self.masked_tiles) if tile is None
                else _checked_tile(tile, self.masked_tiles))
        tiles = g * -(-cap // tile[0]) * -(-n // tile[1])
        self._kernel("masked", tile)(
            _tma_ready(a), _tma_ready(b), sfa_rows.unsqueeze(-1),
            sfb.contiguous(), d, masked_m.contiguous(),
            grid=self._grid(a.device, tiles))
        return d

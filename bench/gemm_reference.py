#!/usr/bin/env python3
"""Host references for the Blackwell GEMM forms
(bench/Kernels/gen_gemm_sm100_kernels.py), on torch tensors (CPU or GPU):

  dense, pair  C = A B^T
  scaled       C = sum_k A[m,k] 2^(SFA[m,k/32]-127) B[n,k] 2^(SFB[n,k/32]-127)
  addc         D = A B^T + C0

and the global layout the scaled kernels read their scale factors in.
Each reference returns the f32 result; the caller rounds it to the output
type as the kernel's epilogue does.

  gemm_reference.py   self-test on the CPU: every reference against a
                      direct loop, the scale packing against its index
                      formula
"""
import sys

SCALE_VECTOR = 32  # K elements per ue8m0 scale (kind::mxf8f6f4)
SCALE_BIAS = 127   # ue8m0: the value 2^(e - 127)


def scale_atom_position(row, kblock):
    """Where the scaled kernels read the scale of (row, K block kblock) of
    A or B: [K tile][128-row block][r][c] with K tiles of 4 blocks (128
    K elements) and 512-byte atoms of 32 x 16 bytes, byte c of atom row r
    holding row 32 (c / 4) + r, K block c % 4 of the block. Copied as is
    to shared memory and by tcgen05.cp 32x128b.warpx4 into tensor memory,
    that is the order tcgen05.mma reads (docs/Tcgen05Mma.md, block-scale
    placement)."""
    block, in_block = divmod(row, 128)
    ktile, kb = divmod(kblock, 4)
    group, r = divmod(in_block, 32)
    return ktile, block, r, 4 * group + kb


def pack_scales(sf):
    """sf: rows x kblocks uint8 exponents (ue8m0 bits) -> the packed
    [K tiles, 128-row blocks, 32, 16] tensor the kernel takes (rows padded
    to 128, K blocks to 4, with 127 = 1.0)."""
    import torch
    rows, kblocks = sf.shape
    blocks, ktiles = -(-rows // 128), -(-kblocks // 4)
    full = torch.full((blocks * 128, ktiles * 4), SCALE_BIAS,
                      dtype=torch.uint8, device=sf.device)
    full[:rows, :kblocks] = sf
    # (block, group, r, ktile, kb) -> (ktile, block, r, group, kb)
    view = full.reshape(blocks, 4, 32, ktiles, 4)
    return view.permute(3, 0, 2, 1, 4).reshape(ktiles, blocks, 32, 16).contiguous()


def expand_scales(sf, k):
    """rows x kblocks exponents -> rows x k factors 2^(e - 127)."""
    import torch
    factors = torch.pow(2.0, sf.float() - SCALE_BIAS)
    return factors.repeat_interleave(SCALE_VECTOR, dim=1)[:, :k]


def reference_dense(a, b):
    """C = A B^T (A M x K, B N x K)."""
    return a.float() @ b.float().t()


def reference_scaled(a, b, sfa, sfb):
    """The block-scaled product; sfa M x ceil(K/32), sfb N x ceil(K/32)
    ue8m0 exponents (uint8)."""
    k = a.shape[1]
    return ((a.float() * expand_scales(sfa, k)) @
            (b.float() * expand_scales(sfb, k)).t())


def reference_addc(a, b, c0):
    """D = A B^T + C0 (C0 M x N, f32)."""
    return reference_dense(a, b) + c0.float()


def reference(case, a, b, sfa=None, sfb=None, c0=None):
    """The reference of a kernel's case (its `form`)."""
    form = case.get("form", "dense")
    if form == "scaled":
        return reference_scaled(a, b, sfa, sfb)
    if form == "addc":
        return reference_addc(a, b, c0)
    return reference_dense(a, b)


def _loop(a, b, sfa=None, sfb=None, c0=None):
    """Every form by a direct triple loop (the self-test's independent
    side)."""
    m, k = a.shape
    n = b.shape[0]
    out = [[0.0] * n for _ in range(m)]
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for kk in range(k):
                x, y = float(a[i, kk]), float(b[j, kk])
                if sfa is not None:
                    x *= 2.0 ** (int(sfa[i, kk // 32]) - SCALE_BIAS)
                    y *= 2.0 ** (int(sfb[j, kk // 32]) - SCALE_BIAS)
                acc += x * y
            out[i][j] = acc + (float(c0[i, j]) if c0 is not None else 0.0)
    return out


def self_test():
    import torch
    g = torch.Generator().manual_seed(1)
    failed = 0

    def same(name, got, want):
        nonlocal failed
        want = torch.tensor(want)
        bad = (got != want).sum().item()
        print(f"{name:28s} {'ok' if bad == 0 else f'FAIL ({bad} differ)'}")
        failed += bool(bad)

    m, n, k = 5, 7, 70  # K not a multiple of 32: a partial last block
    a = torch.randint(-3, 4, (m, k), generator=g).float() / 4
    b = torch.randint(-3, 4, (n, k), generator=g).float() / 4
    sfa = torch.randint(124, 131, (m, 3), generator=g, dtype=torch.uint8)
    sfb = torch.randint(124, 131, (n, 3), generator=g, dtype=torch.uint8)
    c0 = torch.randint(-8, 9, (m, n), generator=g).float() / 4
    same("dense", reference_dense(a, b), _loop(a, b))
    same("scaled", reference_scaled(a, b, sfa, sfb), _loop(a, b, sfa, sfb))
    same("addc", reference_addc(a, b, c0), _loop(a, b, c0=c0))
    # The packing against its index formula, over more than one block
    # and K tile in each direction.
    rows, kblocks = 300, 9
    sf = torch.randint(0, 256, (rows, kblocks), generator=g, dtype=torch.uint8)
    packed = pack_scales(sf)
    bad = 0
    for row in range(rows):
        for kb in range(kblocks):
            if packed[scale_atom_position(row, kb)] != sf[row, kb]:
                bad += 1
    print(f"{'scale packing':28s} {'ok' if bad == 0 else f'FAIL ({bad} differ)'}")
    failed += bool(bad)
    pad = packed[scale_atom_position(rows, 0)].item()  # a padded row
    print(f"{'scale padding is 1.0':28s} {'ok' if pad == SCALE_BIAS else 'FAIL'}")
    failed += pad != SCALE_BIAS
    return failed


if __name__ == "__main__":
    sys.exit(1 if self_test() else 0)

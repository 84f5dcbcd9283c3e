#!/usr/bin/env python3
"""Runs the tutorials' kernels on a GPU and compares every output with a
host reference. Needs a CUDA driver and the tile_mlir package on
PYTHONPATH (build/python, or build/device/python on a machine without
LLVM); no torch or numpy: device memory comes from the driver through
ctypes.

  python3 docs/tutorials/run_on_gpu.py [KERNEL_DIR] [--quick]

KERNEL_DIR (default build/tutorials) holds <step>.cubin and <step>.json as
tile-compile writes them (docs/tutorials/README.md shows the commands).
"""
import ctypes
import os
import random
import struct
import sys
import time

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
KERNELS = ARGS[0] if ARGS else os.path.join("build", "tutorials")
try:
    import tile_mlir
except ImportError:
    sys.exit("tile_mlir not found: PYTHONPATH=build/python (or build/device/python)")

cuda = ctypes.CDLL("libcuda.so.1")


def ck(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: CUresult {rc}")


ck(cuda.cuInit(0), "cuInit")
dev = ctypes.c_int()
ck(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ctx = ctypes.c_void_p()
ck(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
ck(cuda.cuCtxSetCurrent(ctx), "setcurrent")
sms = ctypes.c_int()
ck(cuda.cuDeviceGetAttribute(ctypes.byref(sms), 16, dev), "attr")
name = ctypes.create_string_buffer(256)
cuda.cuDeviceGetName(name, 256, dev)
print("device:", name.value.decode(), "SMs:", sms.value)

FMT = {"float16": ("e", 2), "float32": ("f", 4), "bfloat16": ("H", 2)}


class DeviceTensor:
    """Duck-types the bits of a torch tensor that tile_mlir reads."""

    def __init__(self, shape, dtype):
        self.shape = list(shape)
        self.dtype = dtype
        self.count = 1
        for s in shape:
            self.count *= s
        self.itemsize = FMT[dtype][1]
        self.nbytes = self.count * self.itemsize
        self.ptr = ctypes.c_uint64()
        ck(cuda.cuMemAlloc_v2(ctypes.byref(self.ptr), max(self.nbytes, 16)), "alloc")
        ck(cuda.cuMemsetD8_v2(self.ptr, 0xFF, self.nbytes), "memset")
        self.is_cuda = True

    def data_ptr(self):
        return self.ptr.value

    def stride(self):
        out, step = [], 1
        for s in reversed(self.shape):
            out.insert(0, step)
            step *= s
        return out

    def element_size(self):
        return self.itemsize

    def upload(self, values):
        assert len(values) == self.count
        if self.dtype == "bfloat16":
            raw = struct.pack(f"<{self.count}H", *[bf16_bits(v) for v in values])
        else:
            raw = struct.pack(f"<{self.count}{FMT[self.dtype][0]}", *values)
        ck(cuda.cuMemcpyHtoD_v2(self.ptr, raw, self.nbytes), "htod")

    def download(self):
        buf = ctypes.create_string_buffer(self.nbytes)
        ck(cuda.cuCtxSynchronize(), "sync")
        ck(cuda.cuMemcpyDtoH_v2(buf, self.ptr, self.nbytes), "dtoh")
        if self.dtype == "bfloat16":
            bits = struct.unpack(f"<{self.count}H", buf.raw)
            return [struct.unpack("<f", struct.pack("<I", b << 16))[0] for b in bits]
        return list(struct.unpack(f"<{self.count}{FMT[self.dtype][0]}", buf.raw))


def bf16_bits(x):
    """x rounded to the nearest bf16, ties to even (as cvt.rn does)."""
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def bf16(x):
    return struct.unpack("<f", struct.pack("<I", bf16_bits(x) << 16))[0]


def kernel(step, name):
    prefix = os.path.join(KERNELS, step)
    compiled = tile_mlir.Compiled.load(prefix)
    return tile_mlir.load(compiled).kernel(name)


FAILED = []


def expect_equal(label, got, want, show=5):
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if len(got) != len(want):
        bad.append(-1)
    if bad:
        FAILED.append(label)
        print(f"FAIL {label}: {len(bad)} of {len(want)} differ; first",
              [(i, got[i], want[i]) for i in bad[:show] if i >= 0])
    else:
        print(f"ok   {label}: {len(want)} values exact")


rng = random.Random(1)


def step01():
    """relayout: 1 CTA of 128 threads; out (f32) = in (f16)."""
    k = kernel("01-layouts-and-buffers", "relayout")
    vals = [float((i * 37) % 2048 - 1024) / 2 for i in range(64 * 64)]
    a, out = DeviceTensor([64, 64], "float16"), DeviceTensor([64, 64], "float32")
    a.upload(vals)
    k(a, out, grid=(1, 1, 1))
    expect_equal("01 relayout", out.download(), vals)


def step02(rows=200, cols=328):
    """tiled_copy: a CTA per 64 x 128 tile; the edge tiles are partial."""
    k = kernel("02-tma-copy", "tiled_copy")
    vals = [float((i * 7) % 1999 - 999) for i in range(rows * cols)]
    a, out = DeviceTensor([rows, cols], "float16"), DeviceTensor([rows, cols], "float16")
    a.upload(vals)
    k(a, out, grid=((cols + 127) // 128, (rows + 63) // 64, 1))
    expect_equal(f"02 tiled_copy {rows}x{cols}", out.download(), vals)


def step03(rows=1000, grid=3):
    """ring_copy: `grid` CTAs share ceil(rows / 64) tiles."""
    k = kernel("03-mbarrier-ring", "ring_copy")
    vals = [float((i * 13) % 2001 - 1000) for i in range(rows * 64)]
    a, out = DeviceTensor([rows, 64], "float16"), DeviceTensor([rows, 64], "float16")
    a.upload(vals)
    k(a, out, grid=(grid, 1, 1))
    expect_equal(f"03 ring_copy {rows}x64 grid {grid}", out.download(), vals)


def matmul_tn(A, B, M, N, K, rows=None, cols=None):
    """C[m][n] = sum_k A[m][k] B[n][k] for the listed rows/cols (all)."""
    rows = range(M) if rows is None else rows
    cols = range(N) if cols is None else cols
    out = {}
    for m in rows:
        arow = A[m * K:(m + 1) * K]
        for n in cols:
            brow = B[n * K:(n + 1) * K]
            out[(m, n)] = sum(x * y for x, y in zip(arow, brow))
    return out


def step04():
    """one_wgmma: C = A B^T for one 64 x 128 tile; small integers, exact."""
    k = kernel("04-one-wgmma", "one_wgmma")
    A = [float(rng.randint(-3, 3)) for _ in range(64 * 64)]
    B = [float(rng.randint(-3, 3)) for _ in range(128 * 64)]
    a, b = DeviceTensor([64, 64], "bfloat16"), DeviceTensor([128, 64], "bfloat16")
    c = DeviceTensor([64, 128], "float32")
    a.upload(A)
    b.upload(B)
    k(a, b, c, grid=(1, 1, 1))
    ref = matmul_tn(A, B, 64, 128, 64)
    expect_equal("04 one_wgmma", c.download(), [ref[(m, n)] for m in range(64) for n in range(128)])


def step05(M, N, K, grid, sample=None):
    """gemm_bf16_tn: entries in {-1, 0, 1} keep every sum an integer of at
    most K; C is compared after the same rounding to bf16. With `sample`,
    whole rows and columns (the edges and random ones) are checked."""
    k = kernel("05-persistent-gemm", "gemm_bf16_tn")
    A = [float(rng.randint(-1, 1)) for _ in range(M * K)]
    B = [float(rng.randint(-1, 1)) for _ in range(N * K)]
    a, b = DeviceTensor([M, K], "bfloat16"), DeviceTensor([N, K], "bfloat16")
    c = DeviceTensor([M, N], "bfloat16")
    a.upload(A)
    b.upload(B)
    t0 = time.time()
    k(a, b, c, grid=(grid, 1, 1))
    got = c.download()
    print(f"     05 gemm {M}x{N}x{K} grid {grid}: launch+sync {time.time() - t0:.3f} s")
    if sample:
        rows = sorted(set([0, M - 1, 127, 128] + rng.sample(range(M), sample[0])))
        cols = sorted(set([0, N - 1, 255, 256] + rng.sample(range(N), sample[1])))
        rows = [r for r in rows if r < M]
        cols = [c_ for c_ in cols if c_ < N]
        ref = matmul_tn(A, B, M, N, K, rows, range(N))
        ref.update(matmul_tn(A, B, M, N, K, range(M), cols))
    else:
        ref = matmul_tn(A, B, M, N, K)
    keys = sorted(ref)
    expect_equal(f"05 gemm {M}x{N}x{K} grid {grid} ({len(keys)} entries)",
                 [got[m * N + n] for m, n in keys], [bf16(ref[key]) for key in keys])


def step06():
    """gemm_bias_relu: D = bf16(relu(A B^T + bias)) and each row's max."""
    k = kernel("06-register-compute-epilogue", "gemm_bias_relu")
    A = [float(rng.randint(-2, 2)) for _ in range(64 * 64)]
    B = [float(rng.randint(-2, 2)) for _ in range(128 * 64)]
    bias = [float(rng.randint(-8, 8)) for _ in range(128)]
    a, b = DeviceTensor([64, 64], "bfloat16"), DeviceTensor([128, 64], "bfloat16")
    bi = DeviceTensor([1, 128], "float32")
    d = DeviceTensor([64, 128], "bfloat16")
    mx = DeviceTensor([64, 1], "float32")
    a.upload(A)
    b.upload(B)
    bi.upload(bias)
    k(a, b, bi, d, mx, grid=(1, 1, 1))
    ref = matmul_tn(A, B, 64, 128, 64)
    act = [[max(ref[(m, n)] + bias[n], 0.0) for n in range(128)] for m in range(64)]
    expect_equal("06 relu(A B^T + bias) in bf16", d.download(),
                 [bf16(act[m][n]) for m in range(64) for n in range(128)])
    expect_equal("06 row max", mx.download(), [max(row) for row in act])


def step07():
    """tile_stats: row maxima, column sums, the tile in bf16."""
    k = kernel("07-dispatch-variants", "tile_stats")
    X = [rng.randint(-400, 400) / 4.0 for _ in range(64 * 64)]
    x = DeviceTensor([64, 64], "float32")
    rmax, csum = DeviceTensor([64, 1], "float32"), DeviceTensor([1, 64], "float32")
    out = DeviceTensor([64, 64], "bfloat16")
    x.upload(X)
    k(x, rmax, csum, out, grid=(1, 1, 1))
    expect_equal("07 row max", rmax.download(), [max(X[m * 64:(m + 1) * 64]) for m in range(64)])
    expect_equal("07 column sums", csum.download(), [sum(X[m * 64 + n] for m in range(64)) for n in range(64)])
    expect_equal("07 bf16 copy", out.download(), [bf16(v) for v in X])


quick = "--quick" in sys.argv
step01()
step02()
step02(rows=64, cols=128)
step03()
step03(rows=64 * 9, grid=1)
step04()
step06()
step07()
step05(300, 712, 200, grid=4, sample=(16, 16))
if not quick:
    step05(128, 256, 64, grid=1)
    step05(1, 8, 8, grid=2)
    step05(2048, 2048, 512, grid=sms.value, sample=(4, 4))
print("FAILED:" if FAILED else "ALL PASSED", " ".join(FAILED))
sys.exit(1 if FAILED else 0)

"""The Python package on the CPU: every example compiles from Python, errors
are exceptions with MLIR's diagnostic text, argument problems are refused
before anything is launched, and the C API's own test program passes."""

import json
import os
import pathlib
import subprocess

import pytest

import tile_mlir

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("TILE_BUILD_DIR", ROOT / "build"))

# Each example with the chip it is written for (tcgen05 needs sm_100a).
EXAMPLES = {
    "tma_copy.mlir": ("sm_90a", ["tma_copy"]),
    "tma_tile_copy.mlir": ("sm_90a", ["tma_tile_copy"]),
    "dsmem_copy.mlir": ("sm_90a", ["dsmem_copy"]),
    "gemm_async.mlir": ("sm_100a", ["gemm_async"]),
    "gemm_block_scaled.mlir": ("sm_100a", ["gemm_block_scaled"]),
    "smem_to_tmem.mlir": ("sm_100a", ["smem_to_tmem"]),
    "tmem_accumulate_init.mlir": ("sm_100a", ["tmem_accumulate_init"]),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_compiles(name):
    chip, kernels = EXAMPLES[name]
    compiled = tile_mlir.compile((ROOT / "examples" / name).read_text(),
                                 chip=chip, check=True)
    assert compiled.chip == chip
    assert f".target {chip}" in compiled.ptx
    assert compiled.kernels() == kernels
    assert compiled.manifest["chip"] == chip
    assert set(compiled.timings_ms) == {"parse", "select", "tile_lowering",
                                        "upstream_lowering", "codegen",
                                        "ptxas"}
    assert compiled.timings_ms["codegen"] > 0


def test_a_compile_does_not_depend_on_the_compiles_before_it():
    """Code generation keeps state for the process (a TargetMachine per
    target): every example, compiled again in reverse order after the
    others and after sm_100a compiles in between, gives the PTX of its
    first compile in this process, and a fresh tile-compile process gives
    the same PTX too."""
    names = sorted(EXAMPLES)
    first = {}
    for name in names:
        chip = EXAMPLES[name][0]
        first[name] = tile_mlir.compile((ROOT / "examples" / name).read_text(),
                                        chip=chip).ptx
        # An sm_90a-capable example compiled for sm_100a in between puts a
        # second target machine to work.
        if chip == "sm_90a":
            tile_mlir.compile((ROOT / "examples" / name).read_text(),
                              chip="sm_100a")
    for name in reversed(names):
        again = tile_mlir.compile((ROOT / "examples" / name).read_text(),
                                  chip=EXAMPLES[name][0]).ptx
        assert again == first[name], name
    fresh = subprocess.run(
        [str(BUILD / "bin" / "tile-compile"), str(ROOT / "examples" / "dsmem_copy.mlir"),
         "--chip", "sm_90a", "-o", "-"],
        capture_output=True, text=True, check=True).stdout
    assert fresh == first["dsmem_copy.mlir"]


def test_the_llvm_pipeline_is_a_choice():
    """The kernel pipeline (default) and LLVM's default<O2> both compile
    the TMA copy to one 3-D tensor load, agreeing with tile-compile's
    --llvm-pipeline; an unknown name raises before compiling."""
    source = (ROOT / "examples" / "tma_copy.mlir").read_text()
    load = "cp.async.bulk.tensor.3d.shared::cluster.global"
    for pipeline in ("kernel", "default"):
        ptx = tile_mlir.compile(source, chip="sm_90a",
                                llvm_pipeline=pipeline).ptx
        assert ptx.count(load) == 1, pipeline
        cli = subprocess.run(
            [str(BUILD / "bin" / "tile-compile"),
             str(ROOT / "examples" / "tma_copy.mlir"), "--chip", "sm_90a",
             f"--llvm-pipeline={pipeline}", "-o", "-"],
            capture_output=True, text=True, check=True).stdout
        assert cli == ptx, pipeline
    assert tile_mlir.compile(source, chip="sm_90a").ptx == \
        tile_mlir.compile(source, chip="sm_90a", llvm_pipeline="kernel").ptx
    with pytest.raises(ValueError, match="llvm_pipeline"):
        tile_mlir.compile(source, chip="sm_90a", llvm_pipeline="O3")


def test_the_module_target_is_kept_without_a_chip():
    compiled = tile_mlir.compile(
        (ROOT / "examples" / "gemm_async.mlir").read_text())
    assert compiled.chip == "sm_100a"


def test_explain_gives_a_remark_per_tile_op():
    compiled = tile_mlir.compile(
        (ROOT / "examples" / "tma_copy.mlir").read_text(), chip="sm_90a",
        explain=True)
    selected = [r for r in compiled.remarks if "selected tma" in r]
    assert len(selected) == 2, compiled.remarks


def test_remarks_only_when_asked_for():
    # A runtime byte count: the kernel check cannot prove the accounting.
    source = (ROOT / "test" / "Compile" / "remarks-on-request.mlir").read_text()
    quiet = tile_mlir.compile(source, chip="sm_90a")
    assert quiet.remarks == [] and quiet.diagnostics == ""
    loud = tile_mlir.compile(source, chip="sm_90a", remarks=True)
    assert any("not proven" in r for r in loud.remarks), loud.remarks
    assert not any("selected tma" in r for r in loud.remarks)


def test_an_error_is_an_exception_with_the_diagnostic():
    source = """
gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  gpu.func @f() kernel {
    %t = tile.tmem_alloc 96 columns
    gpu.return
  }
}
"""
    with pytest.raises(tile_mlir.CompileError) as error:
        tile_mlir.compile(source, chip="sm_90a")
    assert ("<source>:4:10: error: 'tile.tmem_alloc' op allocates 96 "
            "tensor-memory columns; tcgen05.alloc takes a power of two from "
            "32 to 512") in str(error.value)


def test_a_kernel_check_failure_is_an_exception():
    source = (ROOT / "examples" / "tma_copy.mlir").read_text().replace(
        "%tile_bytes = arith.constant 4096 : index",
        "%tile_bytes = arith.constant 4094 : index")
    with pytest.raises(tile_mlir.CompileError) as error:
        tile_mlir.compile(source, chip="sm_90a")
    assert ("announces 4094 bytes on this mbarrier but the copies completing "
            "on it in this phase bring 4096 bytes") in str(error.value)


def test_a_parse_error_is_an_exception():
    with pytest.raises(tile_mlir.CompileError) as error:
        tile_mlir.compile("gpu.module @k { gpu.func @f() kernel { %x = } }")
    assert "<source>:1:" in str(error.value)


class DeviceArray:
    """A stand-in for a CUDA array (no GPU needed to check arguments)."""

    def __init__(self, shape, typestr, strides=None, address=0x10000):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr,
            "data": (address, False), "strides": strides, "version": 3}


def tma_copy_kernel():
    compiled = tile_mlir.compile(
        (ROOT / "examples" / "tma_copy.mlir").read_text(), chip="sm_90a")
    spec = compiled.manifest["modules"][0]["kernels"][0]
    return tile_mlir.Kernel(module=None, spec=spec)


def test_arguments_are_checked_before_any_launch():
    kernel = tma_copy_kernel()
    good = DeviceArray((8, 256), "<f2")
    kernel._convert([good, good])  # accepted
    with pytest.raises(tile_mlir.LaunchError, match=r"argument 1 "
                       r"\(memref<8x256xf16, 1>\): element type f32 given, "
                       r"the kernel reads f16"):
        kernel._convert([good, DeviceArray((8, 256), "<f4")])
    with pytest.raises(tile_mlir.LaunchError, match=r"argument 0 .*innermost "
                       r"dimension must be contiguous \(stride 1\), the "
                       r"tensor's is 8"):
        kernel._convert([DeviceArray((8, 256), "<f2", strides=(2, 16)), good])
    with pytest.raises(tile_mlir.LaunchError,
                       match="takes 2 arguments, 1 given"):
        kernel._convert([good])
    with pytest.raises(tile_mlir.LaunchError, match="a tensor is expected"):
        kernel._convert([good, 3])


def test_the_c_api_program():
    program = BUILD / "test" / "tile-capi-test"
    run = subprocess.run([str(program)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout


def test_sanitize_adds_runtime_checks_the_manifest_lists():
    """sanitize=True: the waits are bounded by the timeout (in ns in the
    PTX), the report slot is exported, and the manifest lists each check
    with its kind and location; without it, none of that."""
    source = (ROOT / "examples" / "hopper_gemm.mlir").read_text()
    checked = tile_mlir.compile(source, sanitize=True, sanitize_timeout_ms=75)
    assert ".visible .global .align 8 .u64 __tile_sanitize_report" in checked.ptx
    assert "75000000" in checked.ptx
    (kernel,) = checked.manifest["modules"][0]["kernels"]
    kinds = {c["kind"] for c in kernel["sanitize_checks"]}
    assert kinds == {"mbarrier-wait-timeout", "shared-region",
                     "mbarrier-tx-balance", "mbarrier-arrival-count"}
    assert all(c["loc"].startswith("<source>:") for c in kernel["sanitize_checks"])
    plain = tile_mlir.compile(source)
    assert "__tile_sanitize" not in plain.ptx
    assert plain.manifest["modules"][0]["kernels"][0]["sanitize_checks"] == []


@pytest.mark.parametrize("timeout", [0, -1, 2**32])
def test_sanitize_timeout_out_of_range_is_refused(timeout):
    with pytest.raises(ValueError, match="sanitize_timeout_ms"):
        tile_mlir.compile("", sanitize=True, sanitize_timeout_ms=timeout)


def test_sanitize_timeout_is_ignored_without_sanitize():
    source = (ROOT / "examples" / "hello.mlir").read_text()
    assert "__tile_sanitize" not in tile_mlir.compile(
        source, chip="sm_90a", sanitize_timeout_ms=0).ptx


def test_gemm_kernels_compile_on_first_use(tmp_path, monkeypatch):
    """tile_mlir.gemm.KernelCache: the case lists generated, a kernel the
    build did not prebuild generated alone and compiled in process (checked,
    with a cubin), kept on disk and read back without compiling again; an
    unknown kernel refused by the generator's message."""
    from tile_mlir.gemm import KernelCache
    cache = KernelCache(tmp_path)
    assert cache.directory.parent == tmp_path / "gemm"
    family = json.loads(cache.case_list("gemm"))
    splitk = json.loads(cache.case_list("gemm_splitk"))
    assert any(c["kernel"] == "gemm_bf16_tn_128x256x64_s3"
               for c in family["kernels"])
    assert any(r["kernel"] == "gemm_splitk_reduce_bf16_16x128"
               for r in splitk["reducers"])
    compiled = cache.compiled("gemm_splitk", "gemm_splitk_reduce_bf16_16x128")
    assert compiled.kernels() == ["gemm_splitk_reduce_bf16_16x128"]
    assert compiled.cubin
    kernel = compiled.manifest["modules"][0]["kernels"][0]
    assert kernel["programmatic_launch"] is True
    files = sorted(p.name for p in cache.directory.iterdir())
    assert files == ["gemm.cases.json", "gemm_splitk.cases.json",
                     "gemm_splitk_reduce_bf16_16x128.sm_90a.compiler",
                     "gemm_splitk_reduce_bf16_16x128.sm_90a.cubin",
                     "gemm_splitk_reduce_bf16_16x128.sm_90a.json",
                     "gemm_splitk_reduce_bf16_16x128.sm_90a.ptx"]
    # An entry another build of the compiler made is compiled again.
    made_by = cache.directory / "gemm_splitk_reduce_bf16_16x128.sm_90a.compiler"
    made_by.write_text("another build")
    cache.compiled("gemm_splitk", "gemm_splitk_reduce_bf16_16x128")
    assert made_by.read_text() == KernelCache._compiler()

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled again")
    monkeypatch.setattr(tile_mlir, "compile", no_compiling)
    again = KernelCache(tmp_path).compiled("gemm_splitk",
                                           "gemm_splitk_reduce_bf16_16x128")
    assert again.cubin == compiled.cubin
    # Without a compiler library (a GPU machine) the entries are used as
    # they are.
    made_by.write_text("another build")
    monkeypatch.setattr(KernelCache, "_compiler", staticmethod(lambda: None))
    assert KernelCache(tmp_path).compiled(
        "gemm_splitk", "gemm_splitk_reduce_bf16_16x128").cubin == compiled.cubin
    with pytest.raises(ValueError, match="unknown kernels: gemm_nothing"):
        cache.compiled("gemm", "gemm_nothing")


def test_fp8_schedule_picks_the_tiles_measured_fastest():
    """tile_mlir.fp8.schedule_dense, on the tiles the FP8 generator builds
    and an H200's 132 SMs: the choices the H200 measurements of
    docs/Performance.md (i) found fastest (or within noise) at small M, the
    128 x 128 tile unsplit at large M, and split-K only for long K."""
    import sys
    from tile_mlir.fp8 import schedule_dense
    sys.path.insert(0, str(ROOT / "bench" / "Kernels"))
    from gen_fp8_kernels import KERNELS
    tiles = sorted({(bm, bn) for walk, bm, bn in KERNELS if walk == "dense"},
                   reverse=True)
    assert tiles == [(128, 128), (128, 64), (64, 128), (64, 64)]
    assert {(bm, bn) for walk, bm, bn in KERNELS if walk == "splitk"} \
        == set(tiles)

    def pick(m, n, k):
        return schedule_dense(m, n, k, 132, tiles)
    assert pick(64, 24576, 1536) == ((64, 128), 1)
    assert pick(64, 32768, 512) == ((64, 128), 1)
    assert pick(64, 7168, 2048) == ((64, 64), 1)
    assert pick(64, 2112, 7168) == ((64, 64), 4)
    assert pick(64, 4096, 7168) == ((64, 128), 4)
    # One wave of 112 tiles (85 % of the SMs) rather than split-K.
    assert pick(64, 7168, 16384) == ((64, 64), 1)
    assert pick(128, 7168, 16384) == ((128, 64), 1)
    assert pick(1, 4096, 7168) == pick(64, 4096, 7168)
    assert pick(128, 7168, 2048) == ((128, 64), 1)
    assert pick(128, 24576, 1536) == ((128, 128), 1)
    assert pick(128, 4096, 7168) == ((128, 128), 4)
    for n, k in [(2112, 7168), (24576, 1536), (7168, 16384)]:
        assert pick(4096, n, k) == ((128, 128), 1)
    # A short K is never split, however few the tiles; every part non-empty.
    assert pick(64, 256, 2048)[1] == 1
    tile, parts = pick(33, 136, 5008)
    blocks = -(-5008 // 128)
    assert parts > 1 and -(-blocks // parts) * (parts - 1) < blocks
    # Without the small tiles the 128 x 128 one is taken.
    assert schedule_dense(64, 24576, 1536, 132, [(128, 128)]) == ((128, 128), 1)


def test_fp8_masked_schedule_takes_narrow_tiles_only_for_few_rows():
    """tile_mlir.fp8.schedule_masked on the masked walk's tiles and 132 SMs:
    128 x 64 for one expert of 256 rows at N = 4096 (64 wide tiles, the
    H200's 1.16x against 0.95x), 128 x 128 from two such experts or 512
    rows (where the wide tile measured faster), and 128 x 128 when the
    family has no narrow masked tile."""
    import sys
    from tile_mlir.fp8 import schedule_masked
    sys.path.insert(0, str(ROOT / "bench" / "Kernels"))
    from gen_fp8_kernels import KERNELS
    tiles = {(bm, bn) for walk, bm, bn in KERNELS if walk == "masked"}
    assert tiles == {(128, 128), (128, 64)}
    assert schedule_masked(1, 256, 4096, 132, tiles) == (128, 64)
    assert schedule_masked(2, 256, 4096, 132, tiles) == (128, 128)
    assert schedule_masked(1, 512, 4096, 132, tiles) == (128, 128)
    assert schedule_masked(1, 200, 1000, 132, tiles) == (128, 64)
    assert schedule_masked(1, 256, 4096, 132, {(128, 128)}) == (128, 128)

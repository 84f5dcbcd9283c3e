"""The README's Python blocks as written: the first (compile the hello
kernel in process and save it) runs here; the second (launch it on torch
tensors) runs in test_device.py on a GPU."""
import os
import pathlib
import sys

import tile_mlir

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "Docs"))
import readme_blocks  # noqa: E402


def test_the_readme_compiles_and_saves_the_hello_kernel(tmp_path):
    code = readme_blocks.blocks((ROOT / "README.md").read_text(), "python")[0]
    assert 'compiled.save("build/device/kernels/hello.sm_90a")' in code
    # Saved under this test's folder instead of the build's device folder,
    # where a cubin from an earlier build lies: it must not outlive the save.
    code = code.replace("build/device/kernels/", str(tmp_path) + "/")
    (tmp_path / "hello.sm_90a.cubin").write_bytes(b"stale")
    cwd = os.getcwd()
    os.chdir(ROOT)  # the block opens examples/hello.mlir
    try:
        exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert not (tmp_path / "hello.sm_90a.cubin").exists()
    saved = tile_mlir.Compiled.load(str(tmp_path / "hello.sm_90a"))
    assert saved.kernels() == ["gemm_tile"]
    assert "wgmma.mma_async" in saved.ptx

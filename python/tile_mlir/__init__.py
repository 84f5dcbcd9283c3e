"""tile-mlir from Python: compile tile kernels in process and launch them on
PyTorch tensors (or any ``__cuda_array_interface__`` array).

    import tile_mlir
    compiled = tile_mlir.compile(source, chip="sm_90a")
    kernel = tile_mlir.load(compiled).kernel("tma_copy")
    kernel(x, y, grid=(1, 1, 1))

Compiling goes through the C API of ``libtile_mlir_c.so`` (MLIR and LLVM
inside), launching through ``libtile_mlir_runtime.so`` (the CUDA driver API
only), both with ctypes; MLIR's own Python bindings are not needed. A
machine without LLVM can launch what another compiled:
``compiled.save("k")`` there, ``tile_mlir.Compiled.load("k")`` here.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["compile", "load", "CompileError", "LaunchError", "Compiled",
           "Module", "Kernel", "library_path"]


class CompileError(RuntimeError):
    """The module did not compile; the message is MLIR's diagnostics."""

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics.strip() or "compilation failed")
        self.diagnostics = diagnostics


class LaunchError(RuntimeError):
    """A kernel's arguments or launch were refused; nothing was launched."""


def library_path(which: str = "c") -> str:
    """`libtile_mlir_c.so` (which="c", the compiler) or
    `libtile_mlir_runtime.so` (which="runtime"): $TILE_MLIR_LIBRARY /
    $TILE_MLIR_RUNTIME_LIBRARY, else next to this file."""
    env = os.environ.get("TILE_MLIR_LIBRARY" if which == "c"
                         else "TILE_MLIR_RUNTIME_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        f"libtile_mlir_{which}.so")


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    def bytes(self) -> bytes:
        if not self.length:
            return b""
        return ctypes.string_at(self.data, self.length)


class _CompileOptions(ctypes.Structure):
    _fields_ = [("chip", ctypes.c_char_p), ("explain", ctypes.c_bool),
                ("check", ctypes.c_bool), ("cubin", ctypes.c_bool),
                ("default_llvm_pipeline", ctypes.c_bool),
                ("remarks", ctypes.c_bool), ("sanitize", ctypes.c_bool),
                ("sanitize_timeout_ms", ctypes.c_uint)]


class _GemmChoice(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_void_p), ("parts", ctypes.c_int64),
                ("why", ctypes.c_void_p)]


# int (*)(const char *kernel, void *user): clusters of `kernel` held at once.
_GemmClustersHeld = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p,
                                     ctypes.c_void_p)

_lib = None
_runtime = None


def _library():
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(library_path("c"))
    result = ctypes.c_void_p
    lib.tileCompileSource.argtypes = [_StringRef, _CompileOptions]
    lib.tileCompileSource.restype = result
    lib.tileCompileResultSucceeded.argtypes = [result]
    lib.tileCompileResultSucceeded.restype = ctypes.c_bool
    for name in ("Chip", "Ptx", "Manifest", "Diagnostics", "Cubin"):
        fn = getattr(lib, "tileCompileResultGet" + name)
        fn.argtypes = [result]
        fn.restype = _StringRef
    lib.tileCompileResultGetTimings.argtypes = [
        result, ctypes.POINTER(ctypes.c_double)]
    lib.tileCompileResultDestroy.argtypes = [result]
    _lib = lib
    return lib


def _runtime_library():
    global _runtime
    if _runtime is not None:
        return _runtime
    lib = ctypes.CDLL(library_path("runtime"))
    lib.tileRuntimeModuleLoad.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_void_p)]
    lib.tileRuntimeModuleLoad.restype = ctypes.c_void_p
    lib.tileRuntimeModuleDestroy.argtypes = [ctypes.c_void_p]
    lib.tileRuntimeLaunchPacked.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint),
        ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_ssize_t,
        ctypes.c_ssize_t, ctypes.POINTER(ctypes.c_void_p)]
    lib.tileRuntimeLaunchPacked.restype = ctypes.c_int
    lib.tileRuntimeMaxActiveClusters.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_void_p)]
    lib.tileRuntimeMaxActiveClusters.restype = ctypes.c_int
    lib.tileRuntimeFreeString.argtypes = [ctypes.c_void_p]
    lib.tileGemmChooserCreate.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.tileGemmChooserCreate.restype = ctypes.c_void_p
    lib.tileGemmChooserDestroy.argtypes = [ctypes.c_void_p]
    lib.tileGemmChooserChoose.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64,
        ctypes.c_int64, ctypes.c_int, ctypes.c_int, _GemmClustersHeld,
        ctypes.c_void_p, ctypes.POINTER(_GemmChoice),
        ctypes.POINTER(ctypes.c_void_p)]
    lib.tileGemmChooserChoose.restype = ctypes.c_int
    lib.tileGemmChoiceFree.argtypes = [ctypes.POINTER(_GemmChoice)]
    _runtime = lib
    return lib


def _take_error(lib, error) -> str:
    """The text of a C API error (freed)."""
    message = ctypes.string_at(error.value).decode()
    lib.tileRuntimeFreeString(error)
    return message


class _GemmChooser:
    """The runtime's GEMM heuristic over two case lists (tile_mlir.gemm)."""

    def __init__(self, family_cases: str, splitk_cases: str):
        lib = _runtime_library()
        error = ctypes.c_void_p()
        self._ref = lib.tileGemmChooserCreate(family_cases.encode(),
                                              splitk_cases.encode(),
                                              ctypes.byref(error))
        if not self._ref:
            raise ValueError(_take_error(lib, error))

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self._ref)

    def __del__(self):
        if getattr(self, "_ref", None) and _runtime is not None:
            _runtime.tileGemmChooserDestroy(self._ref)
            self._ref = None


def _gemm_chooser(family_cases: str, splitk_cases: str) -> _GemmChooser:
    return _GemmChooser(family_cases, splitk_cases)


@dataclass
class Compiled:
    """PTX, the launch manifest and the diagnostics of one module."""
    chip: str
    ptx: str
    manifest_json: str
    diagnostics: str
    cubin: bytes = b""
    timings_ms: Dict[str, float] = field(default_factory=dict)

    @property
    def manifest(self) -> Dict[str, Any]:
        return json.loads(self.manifest_json)

    @property
    def remarks(self) -> List[str]:
        """The remark lines (with --explain: why each variant won)."""
        return [line for line in self.diagnostics.splitlines()
                if ": remark: " in line]

    def kernels(self) -> List[str]:
        return [k["name"] for m in self.manifest["modules"]
                for k in m["kernels"]]

    def save(self, prefix: str) -> None:
        """Writes <prefix>.ptx, <prefix>.json and, with a cubin,
        <prefix>.cubin (what `tile-compile` writes)."""
        with open(prefix + ".ptx", "w") as f:
            f.write(self.ptx)
        with open(prefix + ".json", "w") as f:
            f.write(self.manifest_json)
        if self.cubin:
            with open(prefix + ".cubin", "wb") as f:
                f.write(self.cubin)
        elif os.path.exists(prefix + ".cubin"):
            # An older cubin beside the new PTX would be loaded in its place.
            os.remove(prefix + ".cubin")

    @staticmethod
    def load(prefix: str) -> "Compiled":
        """Reads what `save` (or `tile-compile -o <prefix>.ptx --manifest
        <prefix>.json [--cubin <prefix>.cubin]`) wrote."""
        with open(prefix + ".json") as f:
            manifest_json = f.read()
        ptx = ""
        if os.path.exists(prefix + ".ptx"):
            with open(prefix + ".ptx") as f:
                ptx = f.read()
        cubin = b""
        if os.path.exists(prefix + ".cubin"):
            with open(prefix + ".cubin", "rb") as f:
                cubin = f.read()
        return Compiled(chip=json.loads(manifest_json).get("chip", ""),
                        ptx=ptx, manifest_json=manifest_json, diagnostics="",
                        cubin=cubin)


def compile(source: str, chip: Optional[str] = None, *,
            explain: bool = False, check: bool = False,
            cubin: bool = False, llvm_pipeline: str = "kernel",
            remarks: bool = False, sanitize: bool = False,
            sanitize_timeout_ms: int = 1000) -> Compiled:
    """Compiles one gpu.module of tile IR for `chip` (None: the module's
    #nvvm.target chip, else sm_100a); raises CompileError with MLIR's
    diagnostics when it does not compile. `llvm_pipeline`: "kernel" (a
    short LLVM pipeline for modules of kernels alone) or "default" (LLVM's
    default<On>, as gpu-module-to-binary runs it). `remarks` keeps the
    remarks the checks make (the kernel checks' "not proven" notes),
    `explain` adds dispatch's; otherwise only errors and warnings are
    kept. `sanitize` adds runtime checks of the barrier protocol (mbarrier
    waits that give up after `sanitize_timeout_ms`, barrier and stage
    indices in range): a failing check makes the launch raise LaunchError
    naming the kernel and the check (the kernel traps; the CUDA context is
    unusable afterwards)."""
    if llvm_pipeline not in ("kernel", "default"):
        raise ValueError(f"llvm_pipeline is 'kernel' or 'default', not {llvm_pipeline!r}")
    if sanitize and not 1 <= sanitize_timeout_ms < 2**32:
        raise ValueError(f"sanitize_timeout_ms must be 1 .. 2**32-1, not {sanitize_timeout_ms}")
    lib = _library()
    text = source.encode()
    options = _CompileOptions((chip or "").encode(), explain, check, cubin,
                              llvm_pipeline == "default", remarks, sanitize,
                              sanitize_timeout_ms)
    ref = lib.tileCompileSource(_StringRef(ctypes.cast(ctypes.c_char_p(text),
                                                       ctypes.c_void_p),
                                           len(text)), options)
    try:
        diagnostics = lib.tileCompileResultGetDiagnostics(ref).bytes().decode()
        if not lib.tileCompileResultSucceeded(ref):
            raise CompileError(diagnostics)
        times = (ctypes.c_double * 6)()
        lib.tileCompileResultGetTimings(ref, times)
        return Compiled(
            chip=lib.tileCompileResultGetChip(ref).bytes().decode(),
            ptx=lib.tileCompileResultGetPtx(ref).bytes().decode(),
            manifest_json=lib.tileCompileResultGetManifest(ref).bytes().decode(),
            diagnostics=diagnostics,
            cubin=lib.tileCompileResultGetCubin(ref).bytes(),
            timings_ms=dict(zip(("parse", "select", "tile_lowering",
                                 "upstream_lowering", "codegen", "ptxas"),
                                list(times))))
    finally:
        lib.tileCompileResultDestroy(ref)


# Element types as the manifest spells them, per torch dtype name and per
# __cuda_array_interface__ typestr.
_TORCH_TYPES = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "int8": "i8", "uint8": "ui8", "int16": "i16", "int32": "i32",
    "int64": "i64", "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
    "float8_e8m0fnu": "f8E8M0FNU",
}
_TYPESTRS = {"f2": "f16", "f4": "f32", "f8": "f64", "i1": "i8", "u1": "ui8",
             "i2": "i16", "i4": "i32", "i8": "i64"}


def _same_type(expected: str, given: str) -> bool:
    # An 8-bit integer memref accepts either signedness of bytes.
    bytes8 = {"i8", "ui8", "si8"}
    return expected == given or (expected in bytes8 and given in bytes8)


_SCALAR_KINDS = {"i32": 1, "i64": 2, "index": 2, "f32": 3, "f64": 4}
_F64 = struct.Struct("<d")
_F64_BITS = struct.Struct("<q")

# torch dtype object -> our element type name (filled on first sight).
_TORCH_DTYPE_NAMES: Dict[Any, str] = {}


def _array_view(value):
    """(address, sizes, strides in elements, element type, item bytes) of a
    torch tensor or a __cuda_array_interface__ array, or None."""
    torch_dtype = getattr(value, "dtype", None)
    if hasattr(value, "data_ptr") and hasattr(value, "stride"):
        name = _TORCH_DTYPE_NAMES.get(torch_dtype)
        if name is None:
            name = str(torch_dtype).replace("torch.", "")
            name = _TORCH_DTYPE_NAMES.setdefault(torch_dtype,
                                                 _TORCH_TYPES.get(name, name))
        if not getattr(value, "is_cuda", True):
            raise LaunchError("is a CPU tensor; tile kernels read device memory")
        return (value.data_ptr(), value.shape, value.stride(), name,
                value.element_size())
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        typestr = cai["typestr"][1:]
        itemsize = int(typestr[1:])
        shape = list(cai["shape"])
        strides = cai.get("strides")
        if strides is None:
            strides, step = [], 1
            for extent in reversed(shape):
                strides.insert(0, step)
                step *= extent
        else:
            strides = [s // itemsize for s in strides]
        return (cai["data"][0], shape, strides,
                _TYPESTRS.get(typestr, typestr), itemsize)
    return None


class _ArgName:
    """'argument i (type)' for an error message, formatted only when one
    is raised."""

    def __init__(self, spec):
        self.spec = spec

    def __format__(self, _):
        return f"argument {self.spec['index']} ({self.spec['type']})"


def _current_torch_stream(values) -> int:
    """The current torch stream of the first tensor argument's device (the
    current device's without one), or 0 (the legacy default stream) without
    torch. torch's raw-stream query when it has one: the public
    `torch.cuda.current_stream()` builds a Stream object, several
    microseconds a launch."""
    try:
        import torch
    except ImportError:
        return 0
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        return torch.cuda.current_stream().cuda_stream
    for value in values:
        if isinstance(value, torch.Tensor) and value.is_cuda:
            return raw(value.get_device())
    return raw(torch.cuda.current_device())


class Kernel:
    """One kernel of a loaded module; call it with the kernel's source
    arguments (memrefs as tensors, scalars as numbers). TileRuntime
    launches the kernel, or the first of its versions (the manifest's
    `version_of`) whose alignment needs the tensors meet."""

    def __init__(self, module: "Module", spec: Dict[str, Any]):
        self._module = module
        self.name = spec["name"]
        self.spec = spec
        self.args = [a for a in spec.get("args", [])
                     if a["kind"] != "tensor_map"]
        self._name_bytes = self.name.encode()
        self._max_active_clusters = None

    def max_active_clusters(self) -> int:
        """How many of the kernel's clusters (CTAs, without a cluster) the
        current device holds at once: the grid, in clusters, that a
        persistent kernel should not exceed (cuOccupancyMaxActiveClusters;
        clusters must fit in one GPC, so it can be below SMs / size)."""
        if self._max_active_clusters is None:
            count, error = ctypes.c_int(), ctypes.c_void_p()
            lib = _runtime_library()
            if lib.tileRuntimeMaxActiveClusters(
                    self._module._ref, self.name.encode(), ctypes.byref(count),
                    ctypes.byref(error)) != 0:
                message = ctypes.string_at(error.value).decode()
                lib.tileRuntimeFreeString(error)
                raise LaunchError(message)
            self._max_active_clusters = count.value
        return self._max_active_clusters

    def _convert(self, values: Sequence[Any]):
        """The arguments checked and packed for tileRuntimeLaunchPacked:
        (a ctypes array of 64-bit words, the argument count)."""
        if len(values) != len(self.args):
            raise LaunchError(
                f"kernel {self.name} takes {len(self.args)} arguments, "
                f"{len(values)} given")
        words = []
        for spec, value in zip(self.args, values):
            if spec["kind"] == "memref":
                try:
                    view = _array_view(value)
                except LaunchError as e:
                    raise LaunchError(f"{_ArgName(spec)}: {e}") from None
                if view is None:
                    raise LaunchError(f"{_ArgName(spec)}: a tensor is "
                                      f"expected, got {type(value).__name__}")
                address, sizes, strides, etype, itemsize = view
                if etype != spec["element_type"] and \
                        not _same_type(spec["element_type"], etype):
                    raise LaunchError(
                        f"{_ArgName(spec)}: element type {etype} given, the "
                        f"kernel reads {spec['element_type']}")
                if sizes and strides[-1] != 1:
                    raise LaunchError(
                        f"{_ArgName(spec)}: the innermost dimension must be "
                        f"contiguous (stride 1), the tensor's is "
                        f"{strides[-1]}")
                # A memref type with a static offset: the descriptor's
                # pointer sits that many elements before the data.
                offset = spec.get("offset", 0)
                base = address - offset * itemsize
                words += (0, len(sizes), base - (1 << 64) if base >= 1 << 63
                          else base, offset)
                words += sizes
                words += strides
            else:
                kind = _SCALAR_KINDS.get(spec["type"], 2)
                if kind >= 3:
                    words += (kind, _F64_BITS.unpack(
                        _F64.pack(float(value)))[0])
                else:
                    words += (kind, int(value))
        return (ctypes.c_int64 * max(1, len(words)))(*words), len(words)

    def __call__(self, *values, grid=(1, 1, 1), stream=None):
        packed, count = self._convert(values)
        grid = tuple(grid) + (1,) * (3 - len(tuple(grid)))
        dims = (ctypes.c_uint * 3)(*grid)
        if stream is None:
            stream = _current_torch_stream(values)
        elif hasattr(stream, "cuda_stream"):
            stream = stream.cuda_stream
        error = ctypes.c_void_p()
        lib = _runtime_library()
        rc = lib.tileRuntimeLaunchPacked(
            self._module._ref, self._name_bytes, dims, ctypes.c_void_p(stream),
            packed, count, len(self.args), ctypes.byref(error))
        if rc != 0:
            message = ctypes.string_at(error.value).decode()
            lib.tileRuntimeFreeString(error)
            raise LaunchError(message)


class Module:
    """A compiled module loaded into the current CUDA context."""

    def __init__(self, compiled: Compiled):
        lib = _runtime_library()
        image = compiled.cubin or compiled.ptx.encode()
        manifest = compiled.manifest_json.encode()
        error = ctypes.c_void_p()
        self._ref = lib.tileRuntimeModuleLoad(image, len(image), manifest,
                                              len(manifest),
                                              ctypes.byref(error))
        if not self._ref:
            message = ctypes.string_at(error.value).decode()
            lib.tileRuntimeFreeString(error)
            raise LaunchError(message)
        self.compiled = compiled

    def kernel(self, name: str) -> Kernel:
        for m in self.compiled.manifest["modules"]:
            for k in m["kernels"]:
                if k["name"] == name:
                    return Kernel(self, k)
        raise LaunchError(f"no kernel '{name}' (kernels: "
                          f"{', '.join(self.compiled.kernels()) or 'none'})")

    def __del__(self):
        if getattr(self, "_ref", None) and _runtime is not None:
            _runtime.tileRuntimeModuleDestroy(self._ref)
            self._ref = None


def load(compiled: Compiled) -> Module:
    """Loads a compiled module (its cubin when it has one, else its PTX)."""
    return Module(compiled)

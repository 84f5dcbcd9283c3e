"""GEMMs on torch tensors with the tile-IR Hopper kernels: one call that
picks the kernel (build/device/kernels/gemm.sm_90a.* from
bench/Kernels/gen_gemm_kernels.py, gemm_splitk.sm_90a.* from
gen_gemm_splitk_kernels.py).

    from tile_mlir.gemm import Gemm
    gemm = Gemm("build/device/kernels")
    c = gemm.linear(a, w)      # a [M, K], w [N, K]: a @ w.T
    c = gemm.matmul(a, b)      # a [M, K], b [K, N]: a @ b
    gemm.explain(a, w)         # which kernel, and why

bf16 and f16 give their own type; float8_e4m3fn gives bf16 (no scale
arguments: block-scaled FP8 is tile_mlir.fp8). Any M, N, K (K = 0 gives
zeros) and any strides: the kernels load through TMA, which needs 16-byte
aligned bases and row strides and a unit inner stride, so an operand
without them is first copied into an aligned buffer (the one cost of an
odd stride; `explain` says which), and C is allocated with its row stride
rounded up to 16 bytes (the result is a view of it when N is not a
multiple of 16 bytes' worth of elements). With `in_place=True` an operand
whose rows are 4-byte aligned is read where it is, by the kernel's cp.async
version (`<kernel>_ldgsts`, the manifest's `version_of`, which TileRuntime
launches when the TMA kernel cannot take the tensors): no copy and no
extra memory, but on an H200 3-7x slower than copying first
(docs/Performance.md (j)); only some kernels have one (docs/Gemm.md).

Kernels compiled on first use: `Gemm(None)` (or a kernels_dir without
some kernels) generates and compiles each kernel it needs the first time
(KernelCache: the package's copy of the generators, tile_mlir.compile in
process, about 1-3 s a kernel) and keeps it in a cache directory
(`cache=`, $TILE_MLIR_CACHE, ~/.cache/tile_mlir) for later processes. A
GPU machine without the compiler library uses a cache made elsewhere.

The choice, from the shape and the GPU's SM count: for M <= 64, swap-AB
(tiles of {16, 32, 64} rows of A by 128 of W, the narrowest that holds M;
the tile's rows are the wgmma's N, so an M of 16 wastes nothing of the
MMA, and K is cut into parts until the tiles fill the SMs; by 64 of W
where 128-column tiles would fill a quarter of the SMs or less and the K
loop is long, docs/Gemm.md); otherwise the
persistent family's 128 x {256, 192, 128, 64} tiles, the one with the
fewest waves of tiles weighted by the tile's measured efficiency, or for
few tiles and a long K split-K (128 x 128 tiles, K cut into S parts).
Split-K and swap-AB write f32 partials into a workspace that a second
kernel sums in part order, except where a cluster split-K kernel
(`*_clusterk<S>`) takes the parts: S = 2 (for 1 or 2 parts), or 4 and 8
when the GPU holds one cluster per tile at once; its S CTAs each compute
one part and the tile's two owners sum them in part order through
distributed shared memory, with no workspace and no second kernel. Either
way a given kernel choice gives the same bits run to run; the workspace
and cluster forms cut K differently, so a tuning cache (below), another GPU
(the clusters it holds) or a different choice may change the bits.
Stream-K kernels (`*_streamk`: C CTAs sharing all tiles' K steps evenly,
the same deterministic reduction) run only by `choice=(name, C)`: they
measured slower than the choice on the small-M shapes (docs/Gemm.md).
TILE_MLIR_GEMM_DEBUG=1 prints each call's choice.

Autotuning (optional): `Gemm(dir, tuning="gemm-tuning.json")` (or
TILE_MLIR_GEMM_TUNING) keeps a small JSON cache of measured choices per
(GPU, dtype, M, N, K). `gemm.tune(a, w)` times the heuristic's choice and
its alternatives (the tile forms that fit, K part counts, cluster sizes)
as CUDA graphs, interleaved, and records the fastest; later calls on that
problem run it (`explain` says "tuned"). With `autotune=True` a call on an
untuned problem tunes it first (not while a CUDA graph is being captured).
Entries made for other kernel builds are ignored.
"""

import ctypes
import hashlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

import tile_mlir

_SHORT = {"torch.bfloat16": "bf16", "torch.float16": "f16",
          "torch.float8_e4m3fn": "f8E4M3FN"}


def _tma_reason(t):
    """Why TMA cannot read the 2-D tensor `t` in place, or None."""
    e = t.element_size()
    rows = t.shape[0]
    if t.stride(1) != 1:
        return f"inner stride {t.stride(1)} (TMA reads rows)"
    if (t.stride(0) * e) % 16:  # the map's row stride, even for one row
        return f"row stride {t.stride(0) * e} bytes is not a multiple of 16"
    if rows > 1 and t.stride(0) < t.shape[1]:
        return f"row stride {t.stride(0)} overlaps the rows"
    if t.data_ptr() % 16:
        return f"base address {t.data_ptr():#x} is not 16-byte aligned"
    return None


def _fits(t, alignment):
    """Whether the rows of the 2-D tensor `t` can be read by copies that
    need `alignment` bytes (the manifest's per-argument alignment)."""
    e = t.element_size()
    # The row stride counts even for one row: the kernels' copies test it.
    return (t.stride(1) == 1 and t.data_ptr() % alignment == 0
            and (t.stride(0) * e) % alignment == 0
            and (t.shape[0] <= 1 or t.stride(0) >= t.shape[1]))


def _aligned(t):
    """`t` if TMA can read it in place, else an aligned copy (a view of a
    buffer whose rows start 16 bytes apart)."""
    import torch
    if _tma_reason(t) is None:
        return t
    rows, cols = t.shape
    e = t.element_size()
    padded = max(1, -(-cols * e // 16) * 16 // e)
    buf = torch.empty(rows, padded, dtype=t.dtype, device=t.device)
    view = buf[:, :cols]
    view.copy_(t)
    return view


# The generator of each module's kernels and case list.
_GENERATORS = {"gemm": "gen_gemm_kernels.py",
               "gemm_splitk": "gen_gemm_splitk_kernels.py"}


def _generator_dir():
    """Where the family's generators are: tile_mlir/generators (the build
    tree's and the wheel's copies), else a source checkout's bench/Kernels."""
    here = pathlib.Path(__file__).resolve().parent
    for d in (here / "generators", here.parents[1] / "bench" / "Kernels"):
        if all((d / g).is_file() for g in _GENERATORS.values()):
            return d
    return None


class KernelCache:
    """GEMM kernels compiled on first use: a kernel is generated alone (the
    family's generator with --kernels) and compiled in process
    (tile_mlir.compile with translation validation, cubin and PTX), then
    kept as <directory>/<kernel>.sm_90a.{ptx,cubin,json} for later calls
    and processes. The directory is `directory` (else $TILE_MLIR_CACHE,
    else ~/.cache/tile_mlir) / gemm / a hash of the generators, so a
    changed generator never meets an old kernel. Each entry also records
    which compiler library made it (its size and modification time): where
    that library is, an entry another build of it made is compiled again.
    Compiling needs the compiler library (libtile_mlir_c.so, LLVM inside);
    a machine without it uses the entries as they are (a cache directory
    made elsewhere)."""

    def __init__(self, directory=None):
        self.generators = _generator_dir()
        key = hashlib.sha1()
        if self.generators:
            for g in sorted(_GENERATORS.values()):
                key.update((self.generators / g).read_bytes())
        base = pathlib.Path(directory or os.environ.get("TILE_MLIR_CACHE")
                            or pathlib.Path.home() / ".cache" / "tile_mlir")
        self.directory = base / "gemm" / key.hexdigest()[:16]

    @staticmethod
    def _compiler():
        """The compiler library's identity, or None where there is none."""
        try:
            info = os.stat(tile_mlir.library_path("c"))
        except OSError:
            return None
        return f"{info.st_size}:{info.st_mtime_ns}"

    def _generate(self, module, out_mlir, out_json=None, kernels=None):
        if self.generators is None:
            raise RuntimeError(
                "tile_mlir.gemm: the GEMM generators are not installed "
                "(tile_mlir/generators or a source checkout's bench/Kernels)")
        command = [sys.executable, str(self.generators / _GENERATORS[module]),
                   str(out_mlir)]
        if out_json:
            command.append(str(out_json))
        if kernels:
            command += ["--kernels", ",".join(kernels)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode:
            raise ValueError(f"tile_mlir.gemm: {_GENERATORS[module]}: "
                             f"{(done.stderr or done.stdout).strip()}")

    def case_list(self, module):
        """`module`'s case list (JSON text), generated into the cache the
        first time."""
        path = self.directory / f"{module}.cases.json"
        if not path.exists():
            self.directory.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=self.directory) as scratch:
                scratch = pathlib.Path(scratch)
                self._generate(module, scratch / "all.mlir",
                               scratch / "cases.json")
                os.replace(scratch / "cases.json", path)
        return path.read_text()

    def compiled(self, module, kernel):
        """The compiled kernel `kernel` of `module` (a tile_mlir.Compiled):
        from the cache, else generated, compiled and cached (written
        through a temporary name, so concurrent users see whole files)."""
        prefix = self.directory / f"{kernel}.sm_90a"
        compiler = self._compiler()
        made_by = self.directory / f"{kernel}.sm_90a.compiler"
        if (self.directory / f"{kernel}.sm_90a.json").exists() and (
                compiler is None or (made_by.exists()
                                     and made_by.read_text() == compiler)):
            return tile_mlir.Compiled.load(str(prefix))
        self.directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.directory) as scratch:
            scratch = pathlib.Path(scratch)
            self._generate(module, scratch / "k.mlir", kernels=[kernel])
            try:
                compiled = tile_mlir.compile(
                    (scratch / "k.mlir").read_text(), chip="sm_90a",
                    check=True, cubin=True)
            except OSError as e:  # no compiler library on this machine
                raise RuntimeError(
                    f"tile_mlir.gemm: {kernel} is not prebuilt and cannot be "
                    f"compiled here ({e}); compile it where tile-mlir's "
                    f"compiler is and copy {self.directory}") from e
            compiled.save(str(scratch / "k"))
            (scratch / "k.compiler").write_text(compiler or "")
            # The manifest last: its presence marks a whole entry.
            for suffix in ("ptx", "cubin", "compiler", "json"):
                if (scratch / f"k.{suffix}").exists():
                    os.replace(scratch / f"k.{suffix}",
                               self.directory / f"{kernel}.sm_90a.{suffix}")
        return compiled


class Gemm:
    """The GEMM kernels, loaded into the current CUDA context."""

    def __init__(self, kernels_dir=None, tuning=None, autotune=False,
                 cache=None):
        # Prebuilt kernels (kernels_dir: <module>.sm_90a.* and the case
        # lists, as the build writes build/device/kernels) where they are;
        # any other kernel, and the case lists, from the cache (compiled on
        # first use).
        kernels = pathlib.Path(kernels_dir) if kernels_dir else None
        self.cache = cache if isinstance(cache, KernelCache) else \
            KernelCache(cache)
        texts = []
        for name in ("gemm", "gemm_splitk"):
            listed = kernels / f"{name}.cases.json" if kernels else None
            texts.append(listed.read_text() if listed and listed.exists()
                         else self.cache.case_list(name))
        family, splitk = (json.loads(t) for t in texts)
        # Tuned choices hold for this build of the kernels only: the case
        # lists and the compiled images.
        build = hashlib.sha1("".join(texts).encode())
        for name in ("gemm", "gemm_splitk"):
            for suffix in ("cubin", "ptx"):
                image = kernels / f"{name}.sm_90a.{suffix}" if kernels else None
                if image and image.exists():
                    build.update(image.read_bytes())
                    break
        self._build = build.hexdigest()[:16]
        # tuning: a cache file; None: TILE_MLIR_GEMM_TUNING's, if set;
        # False: none (the heuristic alone, whatever the environment).
        self.tuning_path = (None if tuning is False else
                            tuning or os.environ.get("TILE_MLIR_GEMM_TUNING"))
        self.autotune = autotune
        self._tuned = self._read_tuning()
        self._checked = set()  # tuned keys validated against this build
        self.family = [c for c in family["kernels"]
                       if not c["b_mn"] and "cluster" not in c
                       and "version_of" not in c and "schedule" not in c]
        # Other schedules of a family tile (ping-pong): by `choice=` only,
        # neither chosen nor tuned (measured no faster, docs/Gemm.md).
        self.schedules = [c for c in family["kernels"]
                          if not c["b_mn"] and "schedule" in c]
        self.splitk = [c for c in splitk["kernels"]
                       if not c.get("swap_ab") and not c.get("stream_k")
                       and not c.get("cluster")]
        self.swap_ab = [c for c in splitk["kernels"]
                        if c.get("swap_ab") and not c.get("cluster")
                        and not c.get("stream_k")]
        # K cut across a cluster's CTAs and summed there (no workspace).
        self.cluster_k = [c for c in splitk["kernels"] if c.get("cluster")]
        self.stream_k = [c for c in splitk["kernels"] if c.get("stream_k")]
        self.reducers = [r for r in splitk["reducers"] if not r.get("stream_k")]
        self.stream_reducers = [r for r in splitk["reducers"]
                                if r.get("stream_k")]
        compiled = {name: tile_mlir.Compiled.load(str(kernels / f"{name}.sm_90a"))
                    for name in ("gemm", "gemm_splitk")
                    if kernels and (kernels / f"{name}.sm_90a.json").exists()}
        self.modules = {name: tile_mlir.load(c) for name, c in compiled.items()}
        self._prebuilt = {name: set(c.kernels()) for name, c in compiled.items()}
        self._compiled_on_use = {}  # kernel -> its module (kept loaded)
        self._chooser = tile_mlir._gemm_chooser(*texts)
        # kernel -> its versions: (name, alignment bytes of A and of W).
        self.versions = {}
        for c in compiled.values():
            for module in c.manifest["modules"]:
                for k in module["kernels"]:
                    if "version_of" in k:
                        needs = [max((n["bytes"] for n in a.get("alignment", [])),
                                     default=1)
                                 for a in k["args"] if a["kind"] == "memref"]
                        self.versions.setdefault(k["version_of"], []).append(
                            (k["name"], needs[0], needs[1]))
        self._kernels = {}
        self._held = {}  # cluster split-K kernel -> clusters held at once
        self._sms = None
        self.debug = os.environ.get("TILE_MLIR_GEMM_DEBUG") == "1"
        # False: never swap-AB (the benchmarks' comparison of the two).
        self.force_swap_ab = None

    def _read_tuning(self):
        """The cache's entries for this build (an unreadable file counts
        as empty; the next tune rewrites it, where it can)."""
        if not self.tuning_path:
            return {}
        try:
            entries = json.loads(pathlib.Path(self.tuning_path).read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(entries, dict):
            return {}
        return {key: e for key, e in entries.items()
                if isinstance(e, dict) and e.get("build") == self._build}

    def _tuning_key(self, dtype, m, n, k, device):
        import torch
        return (f"{torch.cuda.get_device_name(device)}|{_SHORT.get(str(dtype))}"
                f"|{m}x{n}x{k}")

    def candidates(self, dtype, m, n, k, sms):
        """What `tune` times for an M x N x K problem: the heuristic's
        choice first, then every family tile, the swap-AB tiles that hold M
        (M <= 64; for M of 65 to 256 the 64-row ones, A's rows over several
        tiles) and the 128 x 128 split-K kernel with 2 to 8 K parts (the
        counts that leave no part empty), and every cluster split-K kernel
        of a fitting tile that the GPU can hold."""
        ty = _SHORT.get(str(dtype))
        case, parts, _ = self.choose(dtype, m, n, k, sms)
        out = [(case["kernel"], parts)]
        for c in self.family:
            if c["dtype"] == ty:
                out.append((c["kernel"], None))
        def swap_fits(c):
            return m <= 256 and c["bm"] >= min(m, 64)
        for c in self.swap_ab + self.splitk:
            if c["dtype"] != ty or (c.get("swap_ab") and not swap_fits(c)):
                continue
            k_tiles = -(-k // c["bk"])
            for p in sorted({-(-k_tiles // -(-k_tiles // p))
                             for p in (1, 2, 3, 4, 6, 8) if p <= k_tiles}):
                if p > 1 or c.get("swap_ab"):
                    out.append((c["kernel"], p))
        for c in self.cluster_k:
            if c["dtype"] != ty or (c["swap_ab"] and not swap_fits(c)):
                continue
            if self._clusters_held(c["kernel"]) >= 1:
                out.append((c["kernel"], None))
        return list(dict.fromkeys(out))

    def tune(self, a, w, rounds=3):
        """Times `candidates` for `linear(a, w)` (each captured as a CUDA
        graph of 10 calls, the candidates replayed in turn for `rounds`
        rounds, each timing after an untimed replay; the median per
        candidate), records the fastest in the cache (and its file) and
        returns [(microseconds, (kernel, parts)), ...], fastest first."""
        import torch
        if torch.cuda.is_current_stream_capturing():
            raise RuntimeError("tile_mlir.gemm: cannot tune while a CUDA "
                               "graph is being captured")
        (m, k), n = a.shape, w.shape[0]
        if not (m and n and k):
            raise ValueError(f"{m}x{n}x{k}: an empty problem has nothing "
                             "to tune")
        sms = self._sm_count(a.device)
        graphs = {}
        for choice in self.candidates(a.dtype, m, n, k, sms):
            try:
                self.linear(a, w, explain=True, choice=choice)
            except ValueError:
                continue  # a part count this K cannot split into
            self.linear(a, w, choice=choice)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(10):
                    self.linear(a, w, choice=choice)
            graphs[choice] = graph
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        times = {choice: [] for choice in graphs}
        for _ in range(rounds):
            for choice, graph in graphs.items():
                graph.replay()
                start.record()
                graph.replay()
                end.record()
                end.synchronize()
                times[choice].append(start.elapsed_time(end) * 100)  # us/call
        ranked = sorted((statistics.median(t), c) for c, t in times.items())
        best_us, (kernel, parts) = ranked[0]
        key = self._tuning_key(a.dtype, m, n, k, a.device)
        self._checked.discard(key)
        self._tuned[key] = {"kernel": kernel, "parts": parts,
                            "us": round(best_us, 2), "candidates": len(ranked),
                            "build": self._build}
        if self.tuning_path:
            self._write_tuning()
        return ranked

    def _write_tuning(self):
        """Merges this object's entries into the cache file, written whole
        through a temporary file of its own (concurrent writers each leave
        a complete file); a file that cannot be written is warned about,
        the entries stay in memory."""
        import tempfile
        import warnings
        path = pathlib.Path(self.tuning_path)
        try:
            kept = json.loads(path.read_text())
            kept = kept if isinstance(kept, dict) else {}
        except (OSError, ValueError):
            kept = {}
        kept.update(self._tuned)
        try:
            handle, temporary = tempfile.mkstemp(dir=path.parent or ".",
                                                 prefix=path.name + ".")
            with os.fdopen(handle, "w") as f:
                f.write(json.dumps(kept, indent=1, sort_keys=True))
            os.replace(temporary, path)
        except OSError as e:
            warnings.warn(f"tile_mlir.gemm: tuning cache {path} not written: {e}")

    def _kernel(self, module, name):
        """Kernel `name` of `module`: prebuilt, else compiled on first use
        (the cache's, KernelCache)."""
        if name not in self._kernels:
            if name in self._prebuilt.get(module, ()):
                self._kernels[name] = self.modules[module].kernel(name)
            else:
                loaded = tile_mlir.load(self.cache.compiled(module, name))
                self._compiled_on_use[name] = loaded
                self._kernels[name] = loaded.kernel(name)
                if self.debug:
                    print(f"tile_mlir.gemm: {name} is not prebuilt: from "
                          f"the cache, compiled there on its first use "
                          f"({self.cache.directory})")
        return self._kernels[name]

    def _clusters_held(self, name):
        """Clusters of the cluster split-K kernel `name` the GPU holds at
        once, asked once per kernel; 0 when the kernel cannot be loaded or
        compiled here (then it is never chosen, and not retried per call)."""
        if name not in self._held:
            try:
                self._held[name] = self._kernel(
                    "gemm_splitk", name).max_active_clusters()
            except Exception as e:  # noqa: BLE001 - none held: not chosen
                self._held[name] = 0
                if self.debug:
                    print(f"tile_mlir.gemm: {name} not available: {e}")
        return self._held[name]

    def _sm_count(self, device):
        import torch
        if self._sms is None:
            self._sms = torch.cuda.get_device_properties(
                device).multi_processor_count
        return self._sms

    def choose(self, dtype, m, n, k, sms):
        """(kernel case, parts or None, why) for an M x N x K problem: the
        runtime's heuristic (tile::runtime::chooseGemm, the one the C and
        C++ callers get), with the clusters this GPU holds measured here."""
        ty = _SHORT.get(str(dtype))
        if ty is None:
            raise ValueError(f"{dtype}: the GEMM kernels take bfloat16, "
                             "float16 or float8_e4m3fn")
        lib = tile_mlir._runtime_library()

        def held(kernel, _user):
            return self._clusters_held(kernel.decode())

        callback = tile_mlir._GemmClustersHeld(held)
        choice = tile_mlir._GemmChoice()
        error = ctypes.c_void_p()
        if lib.tileGemmChooserChoose(
                self._chooser, ty.encode(), m, n, k, sms,
                self.force_swap_ab is not False, callback, None,
                ctypes.byref(choice), ctypes.byref(error)):
            raise ValueError(tile_mlir._take_error(lib, error))
        try:
            kernel = ctypes.string_at(choice.kernel).decode()
            why = ctypes.string_at(choice.why).decode()
            parts = choice.parts or None
        finally:
            lib.tileGemmChoiceFree(ctypes.byref(choice))
        return self.case(kernel), parts, why

    def all_cases(self):
        """Every GEMM kernel's case."""
        return (self.family + self.splitk + self.swap_ab + self.stream_k
                + self.cluster_k + self.schedules)

    def case(self, kernel):
        """The case (manifest entry) of the GEMM kernel named `kernel`."""
        for case in self.all_cases():
            if case["kernel"] == kernel:
                return case
        raise ValueError(f"no GEMM kernel {kernel}")

    def linear(self, a, w, explain=False, choice=None, in_place=False):
        """a [M, K] @ w [N, K]^T. `choice` = (kernel name, K parts or None;
        for a stream-K kernel, its CTA count) replaces the heuristic's
        (benchmarks compare choices with it).
        `in_place`: read operands TMA cannot read through the kernel's
        cp.async version, when it has one and can, instead of copying them."""
        import torch
        if a.dim() != 2 or w.dim() != 2 or a.shape[1] != w.shape[1]:
            raise ValueError(f"a {tuple(a.shape)} and w {tuple(w.shape)}: "
                             "[M, K] and [N, K] expected")
        if a.dtype != w.dtype:
            raise ValueError(f"a is {a.dtype}, w is {w.dtype}")
        here = torch.cuda.current_device()
        for name, t in (("a", a), ("w", w)):
            if not t.is_cuda or t.device.index != here:
                raise ValueError(f"{name} is on {t.device}; the kernels run "
                                 f"on cuda:{here} (the current device)")
        (m, k), n = a.shape, w.shape[0]
        out_dtype = torch.bfloat16 if a.dtype == torch.float8_e4m3fn else a.dtype
        sms = self._sm_count(a.device)
        tuned = None
        if choice is None and self.force_swap_ab is None:
            key = self._tuning_key(a.dtype, m, n, k, a.device)
            if (self.autotune and key not in self._tuned and not explain
                    and m and n and k
                    and not torch.cuda.is_current_stream_capturing()):
                self.tune(a, w)
            tuned = self._tuned.get(key)
            if tuned and key not in self._checked:
                # An entry this call cannot take (edited, another build's
                # kernel list) is dropped for the heuristic.
                try:
                    self.linear(a, w, explain=True,
                                choice=(tuned["kernel"], tuned["parts"]))
                    self._checked.add(key)
                except (ValueError, KeyError, TypeError):
                    del self._tuned[key]
                    tuned = None
            if tuned:
                choice = (tuned["kernel"], tuned["parts"])
        if choice is None:
            case, parts, why = self.choose(a.dtype, m, n, k, sms)
        else:
            case, parts, why = self.case(choice[0]), choice[1], (
                f"tuned: {tuned.get('us', '?')} us, the fastest of "
                f"{tuned.get('candidates', '?')} candidates timed on this GPU"
                if tuned else "chosen by the caller")
            if case["dtype"] != _SHORT.get(str(a.dtype)):
                raise ValueError(f"{choice[0]} takes {case['dtype']}, not {a.dtype}")
            if case in self.stream_k and parts is None:
                raise ValueError(f"{choice[0]} is stream-K: give its CTA "
                                 "count")
            fixed = (case in self.family or case in self.cluster_k
                     or case in self.schedules)
            if (parts is None) != fixed:
                raise ValueError(f"{choice[0]}: K parts are "
                                 f"{'not ' if fixed else ''}"
                                 "a choice of this kernel")
            k_tiles = -(-k // case["bk"])
            steps = -(-m // case["bm"]) * -(-n // case["bn"]) * k_tiles
            if case in self.stream_k:
                if k > 0 and not 1 <= parts <= steps:
                    raise ValueError(f"{parts} CTAs for {steps} K steps: a "
                                     "CTA would have none")
            elif parts is not None and k > 0 and not (
                    1 <= parts <= k_tiles
                    and -(-k_tiles // parts) * (parts - 1) < k_tiles):
                raise ValueError(f"{parts} parts of {k_tiles} K tiles: a "
                                 "part would be empty")
        notes = [why]
        # A version that reads both operands in place (TileRuntime takes
        # it when the TMA kernel cannot), else copies of what TMA cannot read.
        version = None
        if in_place and (_tma_reason(a) or _tma_reason(w)):
            version = next((v for v in self.versions.get(case["kernel"], [])
                            if _fits(a, v[1]) and _fits(w, v[2])), None)
        for name, t in (("A", a), ("W", w)):
            reason = _tma_reason(t)
            if reason and version:
                notes.append(f"{name} read by {version[0]} in place: {reason}")
            elif reason:
                notes.append(f"{name} copied: {reason}")
        operand = (lambda t: t) if version else _aligned
        what = (f" + reduce, {parts} CTAs" if case in self.stream_k
                else f" + reduce, {parts} part(s)" if parts else "")
        if case in self.cluster_k:
            what = f", {case['cluster']} K parts summed in the cluster"
        text = f"{case['kernel']}{what}: " \
               + "; ".join(notes)
        if self.debug:
            print(f"tile_mlir.gemm {m}x{n}x{k} {a.dtype}: {text}")
        if explain:
            return text
        ce = torch.empty((), dtype=out_dtype).element_size()
        padded_n = max(1, -(-n * ce // 16) * 16 // ce)
        c = torch.empty(m, padded_n, dtype=out_dtype, device=a.device)[:, :n]
        if m == 0 or n == 0:
            return c
        if k == 0:
            return c.zero_()
        if case in self.cluster_k:
            # Persistent clusters of S CTAs, one K part each, as many as
            # the GPU holds at once.
            tiles = -(-m // case["bm"]) * -(-n // case["bn"])
            kernel = self._kernel("gemm_splitk", case["kernel"])
            held = kernel.max_active_clusters()
            if held < 1:
                raise ValueError(f"{case['kernel']}: this GPU cannot hold a "
                                 f"cluster of {case['cluster']} of its CTAs")
            kernel(operand(a), operand(w), c,
                   grid=(min(held, tiles) * case["cluster"],))
            return c
        if parts is None:
            tiles = -(-m // case["bm"]) * -(-n // case["bn"])
            self._kernel("gemm", case["kernel"])(operand(a), operand(w), c,
                                                 grid=(min(sms, tiles),))
            return c
        tiles = -(-m // case["bm"]) * -(-n // case["bn"])
        if case in self.stream_k:
            return self._stream_k(case, operand(a), operand(w), c, parts,
                                  tiles, -(-k // case["bk"]))
        # Split-K and swap-AB (whose tiles are M x 128): f32 partials in
        # a workspace, summed in part order by the reduction.
        workspace = torch.empty(parts, m, -(-n // 4) * 4, dtype=torch.float32,
                                device=a.device)[:, :, :n]
        self._kernel("gemm_splitk", case["kernel"])(
            operand(a), operand(w), workspace, parts,
            grid=(min(sms, tiles * parts),))
        # 16-row blocks (8 parts in flight) for a small M or many parts,
        # else 64-row ones (4 in flight; fewer, longer-lived blocks).
        rows = 16 if m <= 64 or parts > 4 else 64
        reducer = next(r for r in self.reducers
                       if r["out"] == _SHORT[str(out_dtype)] and r["rows"] == rows)
        self._kernel("gemm_splitk", reducer["kernel"])(
            workspace, c, grid=(-(-m // reducer["rows"]),
                                -(-n // reducer["cols"])))
        return c

    def _stream_k(self, case, a, w, c, ctas, tiles, k_tiles):
        """Stream-K: `ctas` CTAs share the tiles' K steps evenly; each
        piece of a tile is a partial in workspace slot (CTA - the tile's
        first CTA), which the stream-K reduction sums in slot order (a
        tile spans at most ceil(ctas / tiles) + 1 CTAs)."""
        import torch
        m, n = c.shape
        slots = -(-ctas // tiles) + 1
        workspace = torch.empty(slots, m, -(-n // 4) * 4, dtype=torch.float32,
                                device=a.device)[:, :, :n]
        self._kernel("gemm_splitk", case["kernel"])(a, w, workspace,
                                                    grid=(ctas,))
        rows = 16 if m <= 64 else 64
        reducer = next(r for r in self.stream_reducers
                       if r["out"] == _SHORT[str(c.dtype)] and r["rows"] == rows)
        self._kernel("gemm_splitk", reducer["kernel"])(
            workspace, c, ctas, k_tiles,
            grid=(-(-m // reducer["rows"]), -(-n // reducer["cols"])))
        return c

    def matmul(self, a, b, explain=False):
        """a [M, K] @ b [K, N] (b read as its transpose: in place when b is
        a transposed view of a K-contiguous tensor, else copied)."""
        if b.dim() != 2:
            raise ValueError(f"b {tuple(b.shape)}: [K, N] expected")
        return self.linear(a, b.t(), explain=explain)

    def explain(self, a, w):
        """What `linear(a, w)` would run, and why (nothing is copied,
        allocated or launched)."""
        return self.linear(a, w, explain=True)

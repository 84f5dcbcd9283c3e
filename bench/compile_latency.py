#!/usr/bin/env python3
"""Compile latency (runs where tile-mlir was built; no GPU).

  bench/compile_latency.py [--build build] [--tile-compile <build>/bin/tile-compile]
                           [--reps 7] [--max-ops 10000] [--in-process-reps 50]
                           [--llvm-pipeline kernel|default]

1. In process, through the Python package (the C API): each example
   compiled once to warm up, then --in-process-reps times in the same
   process; medians of each step (parse, selection, tile lowering, upstream
   lowering, NVPTX codegen) and of the whole call.
2. Per example: wall time of `tile-compile <example> -o x.ptx` (a process
   per compile: start, registration, then the same steps), median of
   --reps runs; its start-up cost is the wall time minus the in-process
   median.
3. One kernel with 10, 100, 1000, 10000 tile.copy_async ops (global ->
   shared TMA, one 64x64 f16 box each at its own static coordinates, one
   tensor map shared by all): median ms and ms per op, to show how cost
   grows with size.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def many_copies(n):
    """One kernel with n TMA loads of distinct 64x64 tiles of a 4096x4096
    tensor into one 128B-swizzled shared tile."""
    t = "!tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>"
    g = "!tile.buffer<4096x4096xf16, global>"
    ops = []
    for i in range(n):
        row, col = (i // 64) % 64 * 64, i % 64 * 64
        ops.append(f"    tile.copy_async %g[{row}, {col}] to %s[0, 0] sizes [64, 64] "
                   f"exec thread mbar(%bar) : {g} to {t}\n")
    return (f"gpu.module @k [#nvvm.target<chip = \"sm_90a\">] {{\n"
            f"  llvm.mlir.global internal @bar() {{addr_space = 3 : i32, alignment = 8 : i64}} : i64\n"
            f"  gpu.func @copies(%in: memref<4096x4096xf16, 1>) kernel {{\n"
            f"    %g = tile.from_memref %in : memref<4096x4096xf16, 1> -> {g}\n"
            f"    %s = tile.alloc_shared {{alignment = 1024 : i64}} : {t}\n"
            f"    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>\n"
            f"    %bytes = arith.constant {n * 8192} : i32\n"
            f"    nvvm.mbarrier.arrive.expect_tx %bar, %bytes : !llvm.ptr<3>, i32\n"
            + "".join(ops) + "    gpu.return\n  }\n}\n")


def timed(cmd, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = subprocess.run(cmd, capture_output=True, text=True)
        times.append((time.perf_counter() - start) * 1e3)
        if result.returncode != 0:
            sys.exit(f"FAIL: {' '.join(cmd)}\n{result.stderr}")
    return statistics.median(times)


CHIPS = {"tma_copy.mlir": "sm_90a", "tma_tile_copy.mlir": "sm_90a",
         "dsmem_copy.mlir": "sm_90a"}


def in_process(reps, build, pipeline):
    """Median ms of each step per example, compiled `reps` times after a
    warm-up in this process. Returns {example: total median}."""
    sys.path.insert(0, os.path.join(build, "python"))
    import tile_mlir
    steps = ("parse", "select", "tile_lowering", "upstream_lowering", "codegen")
    print(f"in-process compile (C API, LLVM pipeline '{pipeline}'), "
          f"median of {reps} after a warm-up (ms)")
    print(f"{'example':28}" + "".join(f"{s:>18}" for s in steps) + f"{'total':>9}")
    totals = {}
    for example in sorted(os.listdir(os.path.join(ROOT, "examples"))):
        text = open(os.path.join(ROOT, "examples", example)).read()
        if "gpu.module" not in text:
            continue
        chip = CHIPS.get(example, "sm_100a")
        tile_mlir.compile(text, chip=chip, llvm_pipeline=pipeline)
        per_step = {s: [] for s in steps}
        wall = []
        for _ in range(reps):
            start = time.perf_counter()
            compiled = tile_mlir.compile(text, chip=chip, llvm_pipeline=pipeline)
            wall.append((time.perf_counter() - start) * 1e3)
            for s in steps:
                per_step[s].append(compiled.timings_ms[s])
        medians = [statistics.median(per_step[s]) for s in steps]
        totals[example] = statistics.median(wall)
        print(f"{example:28}" + "".join(f"{m:18.2f}" for m in medians)
              + f"{totals[example]:9.2f}")
        print(f"RESULT bench=compile-in-process name={example} "
              + " ".join(f"{s}={m:.3f}" for s, m in zip(steps, medians))
              + f" total={totals[example]:.3f}")
    print()
    return totals


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="build directory (its bin/tile-compile and python/)")
    parser.add_argument("--tile-compile", default=None)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--in-process-reps", type=int, default=50)
    parser.add_argument("--max-ops", type=int, default=10000)
    parser.add_argument("--llvm-pipeline", default="kernel",
                        choices=("kernel", "default"))
    args = parser.parse_args()
    tc = args.tile_compile or os.path.join(args.build, "bin", "tile-compile")
    totals = in_process(args.in_process_reps, args.build, args.llvm_pipeline)
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "out.ptx")
        print(f"tile-compile latency, median of {args.reps} (ms, wall, PTX only)")
        print(f"{'example':32} {'ms':>9} {'start-up':>9}")
        examples = sorted(f for f in os.listdir(os.path.join(ROOT, "examples"))
                          if f.endswith(".mlir"))
        for example in examples:
            path = os.path.join(ROOT, "examples", example)
            text = open(path).read()
            if "gpu.module" not in text:
                continue
            chip = CHIPS.get(example, "sm_100a")
            ms = timed([tc, path, "--chip", chip, "-o", ptx,
                        f"--llvm-pipeline={args.llvm_pipeline}"], args.reps)
            startup = ms - totals.get(example, 0.0)
            print(f"{example:32} {ms:9.1f} {startup:9.1f}")
            print(f"RESULT bench=compile name={example} ms={ms:.1f} "
                  f"startup_ms={startup:.1f}")
        print(f"\n{'copy ops in one kernel':32} {'ms':>9} {'ms/op':>9}")
        n = 10
        while n <= args.max_ops:
            src = os.path.join(tmp, f"copies_{n}.mlir")
            with open(src, "w") as f:
                f.write(many_copies(n))
            reps = args.reps if n <= 1000 else max(1, args.reps // 2)
            ms = timed([tc, src, "-o", ptx,
                        f"--llvm-pipeline={args.llvm_pipeline}"], reps)
            print(f"{n:<32} {ms:9.1f} {ms / n:9.3f}")
            print(f"RESULT bench=compile-scaling ops={n} ms={ms:.1f} ms_per_op={ms / n:.4f}")
            n *= 10


if __name__ == "__main__":
    main()

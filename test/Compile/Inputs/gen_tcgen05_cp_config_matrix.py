#!/usr/bin/env python3
"""Writes the tcgen05_copy tutorial's configuration matrix (one sm_100a module).

The Gluon tutorial's configurations: fp32 (M, N) tiles in NVMMA shared
layouts with a 32/64/128-byte swizzle, copied into Triton's
TensorMemoryLayout(block = (128, bn)) (blocks of 128 lanes x bn columns,
placed along M first, then N). One device function per configuration that
the tutorial runs, plus (with --beyond) the ones it skips although a 128-bit
column run exists. Shapes without an NVMMA layout (N < swizzle / 4) are left
out, as the tutorial does.
"""
import sys

beyond = "--beyond" in sys.argv[1:]


def shared_layout(m, n, swizzle):
    atom = swizzle // 4  # fp32 elements per swizzled row
    b = {32: 1, 64: 2, 128: 3}[swizzle]
    if n == atom:
        iters = f"S[({m},{n}):({atom},1)]"
    else:
        iters = f"S[({m},{n // atom},{atom}):({atom},{m * atom},1)]"
    return f"#tile.layout<{iters}, swizzle<{b},2,3>>"


def tmem_layout(m, n, bn):
    return (f"#tile.layout<S[({m // 128},128,{n // bn},{bn}):"
            f"({bn}@TCol,1@TLane,{(m // 128) * bn}@TCol,1@TCol)]>")


print('gpu.module @tcgen05_cp_config_matrix [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {')
count = 0
for bn in (1, 2, 4, 8, 16, 32, 64, 128, 256):
    for m in (128, 256):
        for n in (16, 32, 64, 128, 256):
            if n < bn or m * n * 4 > 228 * 1024:
                continue
            for swizzle in (32, 64, 128):
                if n < swizzle // 4:
                    continue
                skipped = m == 256 and swizzle // bn >= 8
                if skipped and not (beyond and bn >= 4):
                    continue
                if beyond and not skipped:
                    continue
                s = f"!tile.buffer<{m}x{n}xf32, shared, {shared_layout(m, n, swizzle)}>"
                t = f"!tile.buffer<{m}x{n}xf32, tmem, {tmem_layout(m, n, bn)}>"
                print(f"  gpu.func @m{m}_n{n}_bn{bn}_sw{swizzle}(%s: {s}, %t: {t}) {{")
                print(f"    tile.copy_async %s[0, 0] to %t[0, 0] sizes [{m}, {n}] exec thread")
                print(f"        : {s} to {t}")
                print("    gpu.return")
                print("  }")
                count += 1
print("}")
print(f"// {count} configurations")

#!/usr/bin/env python3
"""Writes the benchmark kernels (tile IR, one sm_90a gpu.module):

  gen_bench_kernels.py OUT.mlir

tma_copy_<R>x<C>_k<K>: each CTA (one warp; thread 0 issues) copies K
  adjacent R x C f16 tiles of a runtime-sized tensor: all K loads are put in
  flight (one mbarrier each), then each tile is stored as soon as it lands.
  Grid: (cols / (K*C), rows / R).
dsmem_ping_<bytes>: clusters of 2; every iteration each CTA bulk-copies its
  source tile into the peer's destination tile (dispatch: dsmem) and waits
  for the peer's copy to land; a cluster barrier per iteration re-arms.
"""
import argparse
import sys

COPY_VARIANTS = [  # rows, cols, tiles per CTA, 128B swizzle
    (128, 64, 1, True), (128, 64, 2, True), (64, 128, 1, False),
    (64, 256, 1, False), (32, 256, 2, False),
]


def copy_kernel(r, c, k, swizzle):
    name = f"tma_copy_{r}x{c}_k{k}"
    layout = (f"S[({r},{c}):({c},1)], swizzle<3,3,3>" if swizzle
              else f"S[({r},{c}):({c},1)]")
    t = f"!tile.buffer<{r}x{c}xf16, shared, #tile.layout<{layout}>>"
    g = "!tile.buffer<?x?xf16, global>"
    lines = [f"""
  gpu.func @{name}(%in: memref<?x?xf16, 1>, %out: memref<?x?xf16, 1>) kernel
      attributes {{known_block_size = array<i32: 32, 1, 1>}} {{
    %c0 = arith.constant 0 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %true = arith.constant true
    %rows = arith.constant {r} : index
    %span = arith.constant {k * c} : index
    %bytes = arith.constant {r * c * 2} : i32
    %g_in = tile.from_memref %in : memref<?x?xf16, 1> -> {g}
    %g_out = tile.from_memref %out : memref<?x?xf16, 1> -> {g}
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %row = arith.muli %by, %rows : index
    %col_base = arith.muli %bx, %span : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index"""]
    for i in range(k):
        lines.append(f"""    %tile{i} = tile.alloc_shared {{alignment = 1024 : i64}} : {t}
    %bar{i} = llvm.mlir.addressof @{name}_bar{i} : !llvm.ptr<3>
    %dc{i} = arith.constant {i * c} : index
    %col{i} = arith.addi %col_base, %dc{i} : index""")
    lines.append("    scf.if %leader {")
    for i in range(k):
        lines.append(f"""      nvvm.mbarrier.init %bar{i}, %i1 : !llvm.ptr<3>, i32""")
    lines.append("      nvvm.fence.mbarrier.init")
    for i in range(k):
        lines.append(f"""      nvvm.mbarrier.arrive.expect_tx %bar{i}, %bytes : !llvm.ptr<3>, i32
      tile.copy_async %g_in[%row, %col{i}] to %tile{i}[0, 0] sizes [{r}, {c}] exec thread
          mbar(%bar{i}) : {g} to {t}""")
    for i in range(k):
        lines.append(f"""      scf.while : () -> () {{
        %done = nvvm.mbarrier.try_wait %bar{i}, %i0 : !llvm.ptr<3>, i32 -> i1
        %more = arith.xori %done, %true : i1
        scf.condition(%more)
      }} do {{
        scf.yield
      }}
      tile.copy_async %tile{i}[0, 0] to %g_out[%row, %col{i}] sizes [{r}, {c}] exec thread
          : {t} to {g}""")
    lines.append("""      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
    }
    gpu.return
  }""")
    globals_ = "".join(
        f"\n  llvm.mlir.global internal @{name}_bar{i}() {{addr_space = 3 : i32, alignment = 8 : i64}} : i64"
        for i in range(k))
    return globals_ + "\n".join(lines) + "\n"


def dsmem_kernel(nbytes):
    name = f"dsmem_ping_{nbytes}"
    elems = nbytes // 2
    t = f"!tile.buffer<{elems}xf16, shared>"
    return f"""
  llvm.mlir.global internal @{name}_bar() {{addr_space = 3 : i32, alignment = 8 : i64}} : i64
  gpu.func @{name}(%iterations: index) kernel
      attributes {{known_block_size = array<i32: 128, 1, 1>,
                  known_cluster_size = array<i32: 2, 1, 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i1 = arith.constant 1 : i32
    %true = arith.constant true
    %bytes = arith.constant {nbytes} : i32
    %src = tile.alloc_shared {{alignment = 128 : i64}} : {t}
    %dst = tile.alloc_shared {{alignment = 128 : i64}} : {t}
    %bar = llvm.mlir.addressof @{name}_bar : !llvm.ptr<3>
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %peer = arith.xori %rank, %i1 : i32
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {{
      nvvm.mbarrier.init %bar, %i1 : !llvm.ptr<3>, i32
      nvvm.fence.mbarrier.init
    }}
    scf.for %it = %c0 to %iterations step %c1 {{
      scf.if %leader {{
        nvvm.mbarrier.arrive.expect_tx %bar, %bytes : !llvm.ptr<3>, i32
      }}
      // The peer's barrier is armed and its last copy consumed.
      nvvm.cluster.arrive {{aligned}}
      nvvm.cluster.wait {{aligned}}
      scf.if %leader {{
        tile.copy_async %src[0] to %dst[0] sizes [{elems}] exec thread
            mbar(%bar) remote_cta(%peer) : {t} to {t}
        %it32 = arith.index_cast %it : index to i32
        %parity = arith.andi %it32, %i1 : i32
        scf.while : () -> () {{
          %done = nvvm.mbarrier.try_wait %bar, %parity : !llvm.ptr<3>, i32 -> i1
          %more = arith.xori %done, %true : i1
          scf.condition(%more)
        }} do {{
          scf.yield
        }}
      }}
    }}
    nvvm.cluster.arrive {{aligned}}
    nvvm.cluster.wait {{aligned}}
    gpu.return
  }}
"""


def parse_arguments():
    """OUT.mlir: `--help` prints this script's description."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_mlir", help="the gpu.module to write")
    return parser.parse_args()


def main():
    args = parse_arguments()
    body = [copy_kernel(*v) for v in COPY_VARIANTS]
    body += [dsmem_kernel(n) for n in (8192, 16384)]
    with open(args.out_mlir, "w") as f:
        f.write("// Generated by bench/Kernels/gen_bench_kernels.py. Do not edit.\n"
                "gpu.module @bench [#nvvm.target<chip = \"sm_90a\">] {"
                + "".join(body) + "}\n")


if __name__ == "__main__":
    main()

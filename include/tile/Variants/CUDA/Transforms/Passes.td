//===- Passes.td - CUDA-specific checks ----------------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_TD
#define TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileVerifyCtaGroup : Pass<"tile-verify-cta-group"> {
  let summary = "one cta_group for every tcgen05 instruction of a function";
  let description = [{
    ptxas rejects a function that mixes `cta_group::1` and `cta_group::2`
    tcgen05 instructions, and a `tcgen05.commit` tracks only the MMAs and
    copies of its own cta_group. For every function this pass collects the
    cta_group of each tcgen05 operation in it: `tile.gemm_async` and
    shared -> tensor-memory `tile.copy_async` (`cta_group`, default 1) and
    the `nvvm.tcgen05.*` ops written next to them (alloc, dealloc,
    relinquish_alloc_permit, commit, cp, mma, shift). The first that
    differs from the function's first gets an error naming both, with a
    note at the first; a commit is named as such.

    Example: part of `--tile-to-nvvm`, before variant selection;
    `tile-opt --tile-verify-cta-group` on its own.
  }];
}

def TileCheckTarget : Pass<"tile-check-target"> {
  let summary = "check each gpu.module's chip and PTX version, choose one "
                "where none is given";
  let description = [{
    After `--tile-select-variants`, for every gpu.module with an
    `#nvvm.target`: the chip must be one tile-mlir knows (an error lists
    them), a `+ptxNN` feature must be a version the chip has, and every
    instruction family the module will contain (each selected variant's
    families, and the `nvvm.tcgen05.*`, `nvvm.cp.async.bulk.*`,
    `nvvm.mapa`, `nvvm.wgmma.*` ops written next to the tile ops) must
    compile at it; each violation is an error on the op naming the family
    and the PTX versions it needs. A target without a PTX feature gets the
    lowest version that covers all of them (`+ptxNN` added to its
    features); with `explain` a remark says which and why. The table is
    `include/tile/Target/CUDA/Chips.h`.

    Example: part of `--tile-to-nvvm`, after `--tile-select-variants`.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark per gpu.module: the PTX version chosen and why">,
  ];
}

#endif // TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_TD

//===- Passes.td - tile dialect transforms -------------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSelectVariants : Pass<"tile-select-variants"> {
  let summary = "choose a hardware variant for every tile op";
  let description = [{
    For every dispatched op (those with `DispatchOpInterface`:
    `tile.copy_async`, `tile.gemm_async`, `tile.load`, `tile.store`,
    `tile.map`, `tile.reduce`, `tile.convert`), evaluates every
    predicate of every registered variant for the target (the chip of the
    enclosing `#nvvm.target`, else the `chip` option, else sm_100a) and
    records the highest-priority variant that passes as the op's `variant`
    attribute. A `dispatch = "name"` forces that variant, which must still
    pass. When nothing matches, the op gets an error with one note per
    variant naming every predicate that rejected it (or the planner's reason
    for declining). With `explain`, every op gets a remark naming the winner
    and why each other variant lost.
  }];
  let statistics = [
    Statistic<"numSelected", "ops-selected", "ops given a variant">,
  ];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "emit a remark per op: the chosen variant and why the others lost">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "chip for ops outside a gpu.module with an #nvvm.target "
           "(default sm_100a)">,
  ];
}

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

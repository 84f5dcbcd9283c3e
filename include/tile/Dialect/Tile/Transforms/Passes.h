//===- Passes.h - tile dialect transforms -----------------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tile {
namespace dispatch {
class PlanCache;
} // namespace dispatch

#define GEN_PASS_DECL
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

/// --tile-select-variants keeping the chosen plans in `cache` for
/// --tile-lower-variants.
std::unique_ptr<mlir::Pass>
createTileSelectVariants(const TileSelectVariantsOptions &options,
                         std::shared_ptr<dispatch::PlanCache> cache);

#define GEN_PASS_REGISTRATION
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_H

//===- Passes.h - tile -> NVVM conversion passes ----------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETONVVM_PASSES_H
#define TILE_CONVERSION_TILETONVVM_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tile {
namespace dispatch {
class PlanCache;
} // namespace dispatch

#define GEN_PASS_DECL
#include "tile/Conversion/TileToNVVM/Passes.h.inc"

/// --tile-lower-variants reusing the plans `cache` holds (the one
/// --tile-select-variants filled in the same pipeline).
std::unique_ptr<mlir::Pass>
createTileLowerVariants(const TileLowerVariantsOptions &options,
                        std::shared_ptr<dispatch::PlanCache> cache);

/// The same, calling `beforeCheck` on each op's emitted ops before the
/// translation validation reads them (tests break an emitter with it).
std::unique_ptr<mlir::Pass> createTileLowerVariants(
    const TileLowerVariantsOptions &options,
    std::shared_ptr<dispatch::PlanCache> cache,
    std::function<void(mlir::Operation *,
                       llvm::SmallVectorImpl<mlir::Operation *> &)>
        beforeCheck);

#define GEN_PASS_REGISTRATION
#include "tile/Conversion/TileToNVVM/Passes.h.inc"
} // namespace tile

#endif // TILE_CONVERSION_TILETONVVM_PASSES_H

//===- TMA.h - the tma variant's internal interface -------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_COPYASYNC_TMA_H
#define TILE_LIB_VARIANTS_CUDA_COPYASYNC_TMA_H

#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"

namespace mlir {
class RewriterBase;
class ValueRange;
class Value;
} // namespace mlir

namespace tile {
class CopyAsyncOp;
} // namespace tile

namespace tile::tma {

/// The op attribute holding the kernel argument index of its tensor map.
constexpr llvm::StringLiteral kTensorMapParamAttr = "tile.tensor_map_param";

/// The planner's request for a global <-> shared copy_async, or why the op
/// cannot be described.
OrReason<Request> requestFor(CopyAsyncOp copy);

/// Emits one cp.async.bulk.tensor per issue of `plan` before `op`
/// (g2s with mbarrier complete_tx, multicast, cache hint, cta_group; s2g;
/// s2g reduce), reading the tensor map from kernel argument `map`.
void emitPlan(CopyAsyncOp op, const Plan &plan, mlir::Value map,
              mlir::ValueRange lowered, mlir::RewriterBase &rewriter);

} // namespace tile::tma

#endif // TILE_LIB_VARIANTS_CUDA_COPYASYNC_TMA_H

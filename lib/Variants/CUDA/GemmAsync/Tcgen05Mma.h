//===- Tcgen05Mma.h - the tcgen05 gemm_async variant's internals -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shared by Tcgen05Mma.cpp (predicates, planner hook, registration) and
// Tcgen05MmaEmitter.cpp (the NVVM emitter, kept apart for its heavy headers).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_GEMMASYNC_TCGEN05MMA_H
#define TILE_LIB_VARIANTS_CUDA_GEMMASYNC_TCGEN05MMA_H

#include "tile/Variants/CUDA/GemmAsync/Tcgen05MmaPlanner.h"

namespace mlir {
class RewriterBase;
class ValueRange;
} // namespace mlir

namespace tile {
class GemmAsyncOp;

namespace tcgen05_mma {

/// Runs the planner on the op's buffers, regions, types and config.
OrReason<Plan> planFor(GemmAsyncOp op);

/// Emits `plan` before `op`: each shared operand's descriptor constant and
/// start-address field once, then one `nvvm.tcgen05.mma` (or
/// `.block_scale`) per issue with the starts, tensor-memory addresses,
/// instruction descriptor and input-D flag of that issue. `exec warp`
/// issues from the lane `nvvm.elect.sync` elects.
void emitPlan(GemmAsyncOp op, const Plan &plan, mlir::ValueRange lowered,
              mlir::RewriterBase &rewriter);

} // namespace tcgen05_mma
} // namespace tile

#endif // TILE_LIB_VARIANTS_CUDA_GEMMASYNC_TCGEN05MMA_H

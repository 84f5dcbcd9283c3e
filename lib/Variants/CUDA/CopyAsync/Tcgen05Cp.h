//===- Tcgen05Cp.h - the tcgen05_cp variant's internal interface -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shared by Tcgen05Cp.cpp (predicates, planner hook, registration) and
// Tcgen05CpEmitter.cpp (the NVVM emitter, kept apart for its heavy headers).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_COPYASYNC_TCGEN05CP_H
#define TILE_LIB_VARIANTS_CUDA_COPYASYNC_TCGEN05CP_H

#include "tile/Variants/CUDA/CopyAsync/Tcgen05CpPlanner.h"

namespace mlir {
class RewriterBase;
class ValueRange;
} // namespace mlir

namespace tile {
class CopyAsyncOp;

namespace tcgen05_cp {

/// Runs the planner on the op's buffers, region and config.
OrReason<Plan> planFor(CopyAsyncOp op);

/// Emits `plan` before `op`: the descriptor's constant part once, the
/// shared tile's start-address field once, then one `nvvm.tcgen05.cp` per
/// instruction with the start and the tensor-memory address patched.
void emitPlan(CopyAsyncOp op, const Plan &plan, mlir::ValueRange lowered,
              mlir::RewriterBase &rewriter);

} // namespace tcgen05_cp
} // namespace tile

#endif // TILE_LIB_VARIANTS_CUDA_COPYASYNC_TCGEN05CP_H

//===- DSMEM.h - the dsmem variant's internal interface ---------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shared by DSMEM.cpp (predicates, planner hook, registration) and
// DSMEMEmitter.cpp (the NVVM emitter, kept apart for its heavy headers).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_COPYASYNC_DSMEM_H
#define TILE_LIB_VARIANTS_CUDA_COPYASYNC_DSMEM_H

#include "tile/Variants/CUDA/CopyAsync/DSMEMPlanner.h"

namespace mlir {
class RewriterBase;
class ValueRange;
} // namespace mlir

namespace tile {
class CopyAsyncOp;

namespace dsmem {

/// Runs the planner on the op's buffers and region.
OrReason<Plan> planFor(CopyAsyncOp op);

/// Emits `plan` before `op`: mapa of the destination tile and mbarrier into
/// `remote_cta`, then one `cp.async.bulk.shared::cluster.shared::cta` per
/// copy (a loop per run of equally spaced copies).
void emitPlan(CopyAsyncOp op, const Plan &plan, mlir::ValueRange lowered,
              mlir::RewriterBase &rewriter);

} // namespace dsmem
} // namespace tile

#endif // TILE_LIB_VARIANTS_CUDA_COPYASYNC_DSMEM_H

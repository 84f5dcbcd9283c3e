//===- TileToNVVM.h - tile ops -> NVVM/LLVM patterns -------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The conversion --tile-lower-variants runs, for embedders who drive their
// own dialect conversion: buffers become addresses, dispatch ops go through
// the emitter of their selected variant.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETONVVM_TILETONVVM_H
#define TILE_CONVERSION_TILETONVVM_TILETONVVM_H

#include "tile/Dispatch/Registry.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <functional>

namespace mlir {
class Location;
class OpBuilder;
class Operation;
class Value;
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace tile {

/// A dispatch op ready to be rewritten: its variant, target and plan.
struct PlannedOp {
  const dispatch::Variant *variant = nullptr;
  dispatch::DispatchContext context;
  dispatch::AnyPlan plan;
};
using PlannedOps = llvm::DenseMap<mlir::Operation *, PlannedOp>;

/// Called with a dispatch op and the ops its emitter produced, before the
/// translation validation reads them (tests use it to break an emitter).
/// The list may be changed too (a test adding the ops of a broken emitter).
using EmittedOpsHook = std::function<void(
    mlir::Operation *op, llvm::SmallVectorImpl<mlir::Operation *> &emitted)>;

/// Translation validation during the conversion (--tile-lower-variants=
/// check): after each emitter runs, the variant's `check` reads back what
/// it emitted, the op still alive; a failure is an error on the op and
/// marks `failed` (the conversion goes on, the pass fails after it).
struct LoweringCheck {
  bool enabled = false;
  EmittedOpsHook beforeCheck;
  bool failed = false;
};

/// `!tile.buffer` -> its lowered value: `global` `!llvm.ptr<1>`, `shared`
/// `!llvm.ptr<3>`, `tmem` i32.
void populateTileBufferTypeConversions(mlir::TypeConverter &converter);

/// Per `tile.wait_group wgmma`: the local tiles that gemm_async ops of its
/// function accumulate into and that are defined where it is (their
/// registers are pinned after the wait, so that no read of an MMA result
/// is scheduled above the wait that retires it).
using WgmmaAccumulators =
    llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Value>>;

/// The tiles of `WgmmaAccumulators` for every wait in `root`.
WgmmaAccumulators collectWgmmaAccumulators(mlir::Operation *root);

/// The buffer-op lowerings and the dispatch-op rewrites. A dispatch op
/// found in `planned` is emitted from that plan; any other is planned when
/// it is rewritten (by its `variant`, on the chip of its `#nvvm.target`,
/// else `fallbackChip`, else sm_100a).
void populateTileLowerVariantsPatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       llvm::StringRef fallbackChip = "",
                                       const PlannedOps *planned = nullptr,
                                       LoweringCheck *check = nullptr,
                                       const WgmmaAccumulators *waited = nullptr);

/// The synchronization ops (tmem_alloc/dealloc, mma_commit, commit_group,
/// wait_group, fence, mbarrier_arrive_remote) -> NVVM. Part of
/// populateTileLowerVariantsPatterns.
void populateTileSyncToNVVMPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const WgmmaAccumulators *waited = nullptr);

/// The `!llvm.ptr<3>` of a barrier operand: itself, or barrier `index` of an
/// `!nvgpu.mbarrier.group` (through `nvgpu.mbarrier.get`).
mlir::Value barrierAddress(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value barrier, mlir::Value index);

} // namespace tile

#endif // TILE_CONVERSION_TILETONVVM_TILETONVVM_H

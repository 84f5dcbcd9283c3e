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

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
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

/// `!tile.buffer` -> its lowered value: `global` `!llvm.ptr<1>`, `shared`
/// `!llvm.ptr<3>`, `tmem` i32.
void populateTileBufferTypeConversions(mlir::TypeConverter &converter);

/// The buffer-op lowerings and the dispatch-op rewrites. A dispatch op
/// found in `planned` is emitted from that plan; any other is planned when
/// it is rewritten (by its `variant`, on the chip of its `#nvvm.target`,
/// else `fallbackChip`, else sm_100a).
void populateTileLowerVariantsPatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       llvm::StringRef fallbackChip = "",
                                       const PlannedOps *planned = nullptr);

} // namespace tile

#endif // TILE_CONVERSION_TILETONVVM_TILETONVVM_H

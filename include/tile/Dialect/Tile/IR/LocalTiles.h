//===- LocalTiles.h - where a register tile's elements go -------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A `local` tile's elements per thread (register index and the coordinate
// part that does not depend on the thread), and the plan of a `tile.store`:
// every element's destination offset is one runtime base per thread (its
// thread digits and the region's runtime offsets) plus a constant, before
// the destination's swizzle. Shared by the verifier and the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_LOCALTILES_H
#define TILE_DIALECT_TILE_IR_LOCALTILES_H

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Support/OrReason.h"

namespace tile {

struct LocalElements {
  struct Element {
    int64_t reg;
    llvm::SmallVector<int64_t, 2> coord;
  };
  llvm::SmallVector<Element> elements;
  /// Per thread iter: its dim, the coordinate step of one digit, extent and
  /// stride in thread units.
  struct ThreadIter {
    unsigned dim;
    int64_t coordStep, extent, threadStride;
  };
  llvm::SmallVector<ThreadIter> threadIters;
};

/// The elements one thread holds of a local tile (layout over thread axes
/// and `m`, the register index).
LocalElements localElements(BufferType type);

struct LocalStorePlan {
  /// Per destination dim: the element stride a thread digit or a runtime
  /// offset along it moves (the dim's innermost layout step).
  llvm::SmallVector<int64_t, 4> runtimeStride;
  /// Per element of `LocalElements::elements`: its offset before the
  /// swizzle, with the static region offsets and the layout's base.
  llvm::SmallVector<int64_t> elementOffset;
  /// The destination's swizzle, applied to base + elementOffset.
  Swizzle swizzle;
};

/// How `src` (local) is stored into the region of `dst` at `staticOffsets`
/// (dynamic entries are runtime offsets), or why it cannot be: every
/// element must be the thread's base plus a constant, so a dim the layout
/// splits into several steps must keep each thread's digits inside its
/// innermost step.
OrReason<LocalStorePlan> planLocalStore(BufferType src, BufferType dst,
                                        llvm::ArrayRef<int64_t> staticOffsets);

} // namespace tile

#endif // TILE_DIALECT_TILE_IR_LOCALTILES_H

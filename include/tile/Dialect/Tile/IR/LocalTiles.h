//===- LocalTiles.h - where a register tile's elements go -------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A `local` tile's elements per thread (register index and the coordinate
// part that does not depend on the thread), the plan of a `tile.store` or
// `tile.load` to or from global or shared memory (every element's offset is
// one runtime base per thread -- its thread digits and the region's runtime
// offsets -- plus a constant, before the buffer's swizzle), and the plan of
// a `tile.load` from tensor memory. Shared by the verifiers and the
// lowering.
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

/// The type a register of a local tile (and a memory access of its
/// elements) uses in LLVM: LLVM has no fp8, fp6 or fp4 type, so floats of
/// 8 bits or fewer travel as integers of their width (the bits unchanged).
mlir::Type registerStorageType(mlir::Type element);

/// The address of register `index` of a lowered local tile (an alloca of
/// `registers` elements of `storage`): a constant GEP, so LLVM promotes it.
mlir::Value localRegisterAddress(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value tile, mlir::Type storage,
                                 int64_t registers, int64_t index);

/// `values` through one empty inline PTX statement with side effects, each
/// tied to a result, which is returned in its place: 32- and 64-bit
/// scalars, and vectors filling one 32-bit register (f16x2, i8x4) as an i32.
/// Narrower scalars are returned unchanged (not pinned). No
/// instruction comes of it; it pins where LLVM computes the values: a
/// definition cannot sink past it, nor a use of a result rise above it,
/// and it keeps its place among the other side-effecting operations (the
/// wgmma fence and waits).
llvm::SmallVector<mlir::Value> pinRegisters(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::ValueRange values);

/// Every register of the lowered local tile `tile` (an alloca of
/// `registers` elements of `storage`) loaded, pinned and stored back:
/// 32-bit elements one by one, 16-bit ones in pairs (2i, 2i + 1) as one
/// 32-bit register (how wgmma packs f16 accumulators); 8-bit tiles and odd
/// register counts of 16-bit ones are left as they are.
void pinLocalTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile,
                  mlir::Type storage, int64_t registers);

/// The elements one thread holds of a local tile (layout over thread axes
/// and `m`, the register index).
LocalElements localElements(BufferType type);

struct LocalAccessPlan {
  /// Per destination dim: the element stride a thread digit or a runtime
  /// offset along it moves (the dim's innermost layout step).
  llvm::SmallVector<int64_t, 4> runtimeStride;
  /// Per `LocalElements::threadIters` entry: the elements one step of that
  /// thread digit moves (its coordinate step through the dim's layout; a
  /// step that is a multiple of the dim's innermost step lands on an
  /// outer one).
  llvm::SmallVector<int64_t, 4> threadStep;
  /// Per element of `LocalElements::elements`: its offset before the
  /// swizzle, with the static region offsets and the layout's base.
  llvm::SmallVector<int64_t> elementOffset;
  /// The destination's swizzle, applied to base + elementOffset.
  Swizzle swizzle;
};

/// How `local` is stored into (or loaded from) the region of `memory` at
/// `staticOffsets` (dynamic entries are runtime offsets), or why it cannot
/// be: every element must be the thread's base plus a constant, so where
/// the layout splits a dim into several steps, no thread's coordinate may
/// carry across one (checked for every thread and element).
OrReason<LocalAccessPlan> planLocalAccess(BufferType local, BufferType memory,
                                          llvm::ArrayRef<int64_t> staticOffsets);

/// A tensor-memory region read into a local tile by `tcgen05.ld` 32x32b:
/// thread t of the warpgroup (tid_in_wg) holds row t, one register per
/// column; row r is lane r, column c the region's first column plus c.
struct TmemLoadPlan {
  /// Tensor-memory column of the region's first element (static offsets).
  int64_t column;
  /// Columns per thread (the tcgen05.ld repeat count).
  int64_t columns;
};

/// The plan of reading the region of `tmem` at `staticOffsets` into
/// `local`, or why that is not one `tcgen05.ld.32x32b` per warp.
OrReason<TmemLoadPlan> planTmemLoad(BufferType tmem, BufferType local,
                                    llvm::ArrayRef<int64_t> staticOffsets);

} // namespace tile

#endif // TILE_DIALECT_TILE_IR_LOCALTILES_H

//===- LocalCheckHelpers.h - reading emitted register-tile code -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the checks of tile.map / tile.reduce / tile.convert share: registers
// of lowered local tiles, integers computed from tid.x, full-warp shuffles,
// a reduction's combine.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_CHECK_LOCALCHECKHELPERS_H
#define TILE_LIB_VARIANTS_CUDA_CHECK_LOCALCHECKHELPERS_H

#include "LocalPlacement.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Support/OrReason.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <map>

namespace tile::lowering_check {

/// (lowered tile, constant register) of a constant GEP into a local tile.
std::optional<std::pair<mlir::Value, int64_t>> registerAt(mlir::Value address);
/// The (tile, register) a value was loaded from.
std::optional<std::pair<mlir::Value, int64_t>> loadedFrom(mlir::Value v);
/// Every top-level register store into `tile`, by register; an error for a
/// store elsewhere, one register stored twice, or not `expected` of them.
OrReason<std::map<int64_t, mlir::Value>>
storesInto(mlir::Value tile, llvm::ArrayRef<mlir::Operation *> emitted,
           size_t expected);
/// An integer computed from tid.x with constants, integer arithmetic and
/// comparisons (LLVM or arith, any width, index included), for thread `t`.
std::optional<int64_t> evaluateForThread(mlir::Value v, int64_t t);
std::optional<int64_t> constantOf(mlir::Value v);
/// A full-warp shfl.sync (all lanes, clamp 31) of kind idx or bfly.
bool isFullWarpShuffle(mlir::NVVM::ShflOp shfl);
/// `def` is the combine of a `kind` reduction over `type`.
bool isCombineOf(mlir::Operation *def, ReduceKind kind, mlir::Type type);

/// Where a converted value was read (a source register, in the lane a
/// shuffle on the way names, or a load from elsewhere: shared memory), and
/// how many times it was rounded.
struct ConvertSource {
  mlir::Value tile; // null for `otherLoad`
  int64_t reg = -1;
  mlir::NVVM::ShflOp shuffle; // null: the thread's own register
  int roundings = 0;
  mlir::LLVM::LoadOp otherLoad;
};

/// The source register a converted value comes from: through exact
/// widenings, bit casts, at most one full-warp shuffle, and rounding
/// conversions (counted): fptrunc, a packed f16x2/bf16x2 cvt's lanes (lane 0
/// is src_lo), an fp8x2 cvt's bytes (the low byte is b; it must be
/// round-to-nearest, satfinite, to `fp8`).
OrReason<ConvertSource> convertedFrom(mlir::Value v, mlir::Type resultType);

/// The rows a reduction combines: which input dims it reduces and how
/// many elements a row has.
struct ReducedRows {
  llvm::SmallVector<bool, 4> reduced;
  int64_t rowSize = 1;
  explicit ReducedRows(ReduceOp op);
};

/// Output element `key` of thread `t` combines `terms` ((thread, input
/// register) pairs): each must hold an element of the key's row in `t`'s
/// warpgroup, none twice, the whole row.
Status checkRowCovered(const Placement &input, const Placement &output,
                       const ReducedRows &rows, int64_t t, int64_t key,
                       llvm::ArrayRef<std::pair<int64_t, int64_t>> terms);

/// A converted result register is rounded at most once (not at all for
/// the same type).
Status checkRoundings(int64_t reg, int roundings, mlir::Type from,
                      mlir::Type to);

} // namespace tile::lowering_check

#endif // TILE_LIB_VARIANTS_CUDA_CHECK_LOCALCHECKHELPERS_H

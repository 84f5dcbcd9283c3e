//===- LowerVariants.h - tile ops to their variants' lowerings --*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The patterns behind --tile-lower-variants, for compilers that run them in
// their own conversion. Buffers lower to addresses (global: !llvm.ptr<1>,
// shared: !llvm.ptr<3>, tmem: i32); copy_async and gemm_async lower through
// the emitter of the variant named by their `variant` attribute.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_LOWERVARIANTS_H
#define TILE_DISPATCH_LOWERVARIANTS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace tile {

/// Adds the `!tile.buffer` conversions (by scope) to `converter`.
void populateTileBufferTypeConversions(mlir::TypeConverter &converter);

/// Adds one pattern per op family: the buffer ops, and copy_async /
/// gemm_async through their selected variant's emitter. `fallbackChip` is
/// the chip for ops outside a gpu.module with an #nvvm.target (empty:
/// sm_100a).
void populateTileLowerVariantsPatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       llvm::StringRef fallbackChip = "");

/// Bytes of static shared memory a function may allocate.
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

} // namespace tile

#endif // TILE_DISPATCH_LOWERVARIANTS_H

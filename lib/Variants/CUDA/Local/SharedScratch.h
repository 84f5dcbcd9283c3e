//===- SharedScratch.h - register-tile ops through shared scratch -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the variants exchanging data between the warps of a warpgroup share
// (tile.reduce and tile.convert `shared_memory`): the kernel must have a
// known 1-D block of whole warpgroups; each warpgroup works in its own
// region of the scratch --tile-assign-shared-offsets placed, addressed from
// tid.x, and meets at its own named barrier (KernelABI.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_LOCAL_SHAREDSCRATCH_H
#define TILE_LIB_VARIANTS_CUDA_LOCAL_SHAREDSCRATCH_H

#include "tile/Dispatch/Registry.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace tile::local {

/// Warpgroups of the kernel enclosing `op` when its known_block_size is a
/// 1-D block of whole warpgroups.
std::optional<int64_t> warpgroupsOfBlock(mlir::Operation *op);

/// The predicate of the scratch variants: such a block, with a named
/// barrier for each warpgroup.
dispatch::Verdict warpgroupBlock(mlir::Operation *op);

/// The emitted frame of a scratch exchange.
class ScratchFrame {
public:
  /// The scratch of `op` and this thread's warpgroup region of
  /// `bytesPerWarpgroup`; fails (reported) without a placed scratch.
  static mlir::FailureOr<ScratchFrame> begin(mlir::OpBuilder &b,
                                             mlir::Operation *op,
                                             int64_t bytesPerWarpgroup);

  mlir::Value constant(int64_t v);
  /// tid.x modulo 128.
  mlir::Value threadInGroup() const { return inGroup; }
  /// The sum over (bit, weight) of ((t >> bit) & 1) * weight, t the thread
  /// in its warpgroup.
  mlir::Value weightedThreadBits(llvm::ArrayRef<std::pair<int, int64_t>> bits);
  /// The address `base + sum(steps of t's bits)` elements of
  /// `elementBytes`, plus `extraBytes` (may be null), into the region.
  mlir::Value address(int64_t base, llvm::ArrayRef<int64_t> threadStep,
                      int64_t elementBytes, mlir::Value extraBytes = {});
  /// (t & mask) == 0.
  mlir::Value noBitsOf(int64_t mask);
  /// bar.sync (kScratchBarrierFirstId + warpgroup), 128.
  void barrier();

private:
  ScratchFrame(mlir::OpBuilder &b, mlir::Location loc) : b(&b), loc(loc) {}
  mlir::OpBuilder *b;
  mlir::Location loc;
  mlir::Value scratch, inGroup, warpgroup, region, barrierId, participants;
};

} // namespace tile::local

#endif // TILE_LIB_VARIANTS_CUDA_LOCAL_SHAREDSCRATCH_H

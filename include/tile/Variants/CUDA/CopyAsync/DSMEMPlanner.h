//===- DSMEMPlanner.h - plan cluster shared->shared bulk copies -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pure planner of the `dsmem` copy_async variant: which
// `cp.async.bulk.shared::cluster.shared::cta` instructions move a region of
// one shared tile into a region of another CTA's shared tile. MLIR-free.
//
// PTX ISA "Data Movement and Conversion Instructions: cp.async.bulk": source
// and destination addresses 16-byte aligned, size a multiple of 16 bytes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_COPYASYNC_DSMEMPLANNER_H
#define TILE_VARIANTS_CUDA_COPYASYNC_DSMEMPLANNER_H

#include "tile/Variants/CUDA/CopyAsync/RegionSide.h"

namespace tile::dsmem {

using copy_async::RegionSide;

/// One bulk copy: `bytes` from source byte `srcByte` to destination byte
/// `dstByte`, both relative to the buffers' bases.
struct BulkCopy {
  int64_t srcByte = 0;
  int64_t dstByte = 0;
  int64_t bytes = 0;

  bool operator==(const BulkCopy &o) const {
    return srcByte == o.srcByte && dstByte == o.dstByte && bytes == o.bytes;
  }
};

struct Plan {
  llvm::SmallVector<BulkCopy, 8> copies;
  /// Sum of the copies' bytes: what the receiving mbarrier must expect.
  int64_t totalBytes = 0;
};

/// Copies `first`, then `count - 1` more, each `srcStride` / `dstStride`
/// bytes after the previous one: what the emitter turns into one instruction
/// (count 1) or one loop.
struct CopyRun {
  BulkCopy first;
  int64_t count = 1;
  int64_t srcStride = 0;
  int64_t dstStride = 0;

  bool operator==(const CopyRun &o) const {
    return first == o.first && count == o.count && srcStride == o.srcStride &&
           dstStride == o.dstStride;
  }
};

/// Limits the planner enforces.
constexpr int64_t kMaxRegionElements = int64_t(1) << 20;
constexpr int64_t kMaxCopies = 1024;
/// mbarrier transaction counts are 20-bit.
constexpr int64_t kMaxTransactionBytes = (int64_t(1) << 20) - 1;

/// Plans the fewest bulk copies moving region `sizes` of `src` to `dst`.
/// Region elements are sorted by source address; a copy is a maximal run
/// whose source and destination addresses both advance by one element. Every
/// run must be 16-byte aligned on both sides and a multiple of 16 bytes, or
/// the planner declines naming the offending run.
OrReason<Plan> planClusterCopy(const RegionSide &src, const RegionSide &dst,
                               llvm::ArrayRef<int64_t> sizes,
                               unsigned elementBits);

/// Groups consecutive copies of equal size whose source and destination
/// advance by constant strides into runs (greedy, in plan order). Every copy
/// of `copies` is in exactly one run, in order.
llvm::SmallVector<CopyRun, 4> groupIntoRuns(llvm::ArrayRef<BulkCopy> copies);

} // namespace tile::dsmem

#endif // TILE_VARIANTS_CUDA_COPYASYNC_DSMEMPLANNER_H

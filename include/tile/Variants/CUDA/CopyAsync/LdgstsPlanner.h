//===- LdgstsPlanner.h - plan cooperative cp.async copies -------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pure planner of the `ldgsts` copy_async variant: global -> shared
// through `cp.async` (LDGSTS), for tensors a tensor map cannot describe.
// MLIR-free.
//
// The region is cut into vectors of `bytes` (4, 8 or 16: PTX ISA
// "cp.async": cp-size is 4, 8 or 16, both addresses aligned to it) along
// its innermost dim, numbered row-major; the exec scope's T threads take
// vector q = j * T + t for j = 0, 1, ... Thread t's vector q lands in
// shared memory where the shared layout puts its first element, and its
// elements must follow it contiguously there (after the swizzle). The
// global side is only known at run time (its base address, sizes and
// strides): a plan lists every width the shared side and the static
// global facts allow, widest first, and the emitted code takes the first
// whose alignment the runtime values meet.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_COPYASYNC_LDGSTSPLANNER_H
#define TILE_VARIANTS_CUDA_COPYASYNC_LDGSTSPLANNER_H

#include "tile/Variants/CUDA/CopyAsync/RegionSide.h"

#include <limits>

namespace tile::ldgsts {

using copy_async::RegionSide;

/// A global stride or offset known only at run time.
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// Limits the planner enforces: the region is checked vector by vector,
/// and each thread's vectors are unrolled in the emitted code.
constexpr int64_t kMaxRegionElements = int64_t(1) << 20;
constexpr int64_t kMaxVectorsPerThread = 256;

/// The global tensor as far as it is known at compile time (its region
/// dims are its last `sizes.size()` dims).
struct GlobalSide {
  /// Element strides by dim; kDynamic where only the run time knows.
  llvm::SmallVector<int64_t, 5> strides;
  /// The region's offsets by dim; kDynamic for runtime offsets.
  llvm::SmallVector<int64_t, 5> offsets;
};

struct Request {
  llvm::SmallVector<int64_t, 4> sizes;
  unsigned elementBits = 0;
  /// The shared tile (region dims only; leading stage dims are applied to
  /// its base by the lowering) and the region's static offsets in it.
  RegionSide shared;
  /// What the shared tile's base address is aligned to, in bytes.
  int64_t sharedAlignment = 16;
  GlobalSide global;
  /// Threads of the exec scope that share the copy.
  int64_t threads = 1;
  /// The widest vector to use (16 unless a caller narrows it).
  int64_t maxVectorBytes = 16;
};

/// One vector width the emitted code can use.
struct Width {
  /// cp.async's cp-size.
  int64_t bytes = 0;
  /// Elements per vector.
  int64_t elements = 0;
  /// The region's vectors: sizes with the innermost divided by elements.
  llvm::SmallVector<int64_t, 4> grid;
  int64_t vectors = 0;
  /// ceil(vectors / threads): the unrolled vectors of each thread.
  int64_t perThread = 0;
};

struct Plan {
  /// Widest first; never empty. The emitted code takes the first whose
  /// runtime alignment holds, the last without a test.
  llvm::SmallVector<Width, 3> widths;
  /// The region's bytes: what each phase of the mbarrier must expect (the
  /// bytes a tensor copy of the region would complete, out-of-bounds
  /// elements included).
  int64_t totalBytes = 0;
};

/// Plans the copy, or says why it cannot be done with cp.async.
OrReason<Plan> planCooperativeCopy(const Request &request);

/// The byte offset, from the shared tile's base, of region element
/// `coord` (the shared layout's address of offsets + coord, swizzled).
int64_t sharedByte(const RegionSide &shared, llvm::ArrayRef<int64_t> coord,
                   unsigned elementBits);

/// The region coordinates of vector `q` of `width` (its first element).
llvm::SmallVector<int64_t, 4> vectorCoord(const Width &width, int64_t q);

} // namespace tile::ldgsts

#endif // TILE_VARIANTS_CUDA_COPYASYNC_LDGSTSPLANNER_H

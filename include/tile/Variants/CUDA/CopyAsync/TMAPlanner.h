//===- TMAPlanner.h - plan tensor-map bulk copies ---------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pure planner of the `tma` copy_async variant: the CUtensorMap a
// region copy between a global tensor and a shared tile needs, and the
// `cp.async.bulk.tensor` issues (coordinates, shared offsets) that cover the
// region. MLIR-free.
//
// PTX ISA "Data Movement and Conversion Instructions: cp.async.bulk.tensor"
// and "Tensor Access Modes: Tiled mode"; the map's rules are cuda.h's
// (Target/CUDA/TensorMap.h).
//
// How it plans. Each region dim is cut into *modes*: the pieces along which
// the shared layout (before its swizzle) has one stride, innermost first,
// with the mode holding the swizzle's contiguous elements cut at the swizzle
// span. A mode becomes a tensor-map dim of its own when its global dim can be
// split exactly: static size and offset, the offset on a whole atom, and
// each region element inside the split view exactly when it is inside the
// tensor (the atom dim counts the whole atoms, floor(n / atom); a region
// must then avoid a partial last atom). Otherwise a global dim stays one
// tensor-map dim whose innermost mode is boxed and whose outer modes become
// issues at advancing coordinates (a runtime size or offset is never split:
// its divisibility is unknown). Tensor-map dim 0 is the
// global tensor's contiguous dim; the others follow by shared stride. The
// box takes every dim while the shared tile stays dense in box order (and
// each box dim at most 256); the remaining modes are the issue loop. A
// fully boxed dim merges into the next where the global tensor is
// contiguous across both. Every split choice and element promotion
// (1 -> 2 -> 4 -> 8 bytes, which shrinks boxes over 256) is planned and
// validated; the plan with the fewest issues wins (then no promotion, then
// the lowest rank). When none is valid the planner declines with the
// violated rules of the unsplit plan.
//
// Regions past the tensor. The global offsets may be negative and a region
// may end past (or lie wholly outside) the tensor: TMA checks every box
// element against the map's global dims, which stay the tensor's, so a load
// fills and a store skips exactly the region's elements outside it; box
// coordinates must fit a signed 32-bit integer. A unit dim stays a map dim
// unless its offset is 0.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_COPYASYNC_TMAPLANNER_H
#define TILE_VARIANTS_CUDA_COPYASYNC_TMAPLANNER_H

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/TensorMap.h"

#include <limits>

namespace tile::tma {

/// A size, stride or offset only known at run time.
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// The global side: the whole tensor (its runtime dims/strides may be
/// dynamic) and the region's offsets into it (dynamic: an SSA value).
struct GlobalSide {
  llvm::SmallVector<int64_t, 5> shape;
  /// In elements.
  llvm::SmallVector<int64_t, 5> strides;
  llvm::SmallVector<int64_t, 5> offsets;
};

/// The shared side: a tile, its layout and the region's static offsets.
struct SharedSide {
  TileLayout layout;
  llvm::SmallVector<int64_t, 5> shape;
  llvm::SmallVector<int64_t, 5> offsets;
};

struct Request {
  GlobalSide global;
  SharedSide shared;
  llvm::SmallVector<int64_t, 5> sizes;
  unsigned elementBits = 16;
  /// The tensor-map type of the element (FLOAT16 for f16, UINT8 for i8/f8,
  /// ...); used unless elements are promoted.
  cuda::TensorMapDataType dataType = cuda::TensorMapDataType::Float16;
  cuda::TensorMapOobFill oobFill = cuda::TensorMapOobFill::None;
};

/// A tensor-map value: `value`, or (when `sourceDim >= 0`) the runtime size
/// or element stride of global dim `sourceDim` times `scale`.
struct MapValue {
  int64_t value = 0;
  int sourceDim = -1;
  int64_t scale = 1;

  bool isStatic() const { return sourceDim < 0; }
  bool operator==(const MapValue &o) const {
    return value == o.value && sourceDim == o.sourceDim && scale == o.scale;
  }
};

/// One coordinate of an issue: `constant`, plus the region offset of global
/// dim `regionDim` when that offset is dynamic (`regionDim >= 0`).
struct Coordinate {
  int regionDim = -1;
  int64_t constant = 0;

  bool operator==(const Coordinate &o) const {
    return regionDim == o.regionDim && constant == o.constant;
  }
};

struct Issue {
  /// Innermost tensor-map dim first.
  llvm::SmallVector<Coordinate, 5> coords;
  /// Shared byte offset of the box, from the tile's base.
  int64_t sharedByte = 0;
};

struct Plan {
  /// The map's arguments; runtime values are nullopt here and described by
  /// `globalDims` / `globalStrides`.
  cuda::TensorMapDesc map;
  llvm::SmallVector<MapValue, 5> globalDims;
  /// In bytes; rank - 1 entries.
  llvm::SmallVector<MapValue, 4> globalStrides;
  llvm::SmallVector<Issue, 4> issues;
  /// Elements per tensor-map element (1 unless promoted).
  unsigned promotion = 1;
  int64_t bytesPerIssue = 0;

  /// The encode arguments in TVM's order: rank, dims, strides, box, element
  /// strides, interleave, swizzle, L2 promotion, oob fill (runtime values
  /// as -1).
  llvm::SmallVector<int64_t, 24> encodeArguments() const;
};

/// Plans the copy of region `sizes` between the global tensor and the shared
/// tile (either direction: the map and the issues are the same).
OrReason<Plan> planTensorCopy(const Request &request);

} // namespace tile::tma

#endif // TILE_VARIANTS_CUDA_COPYASYNC_TMAPLANNER_H

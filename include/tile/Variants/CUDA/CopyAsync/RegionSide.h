//===- RegionSide.h - one side of a planned copy ----------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_COPYASYNC_REGIONSIDE_H
#define TILE_VARIANTS_CUDA_COPYASYNC_REGIONSIDE_H

#include "tile/Layout/Layout.h"

namespace tile::copy_async {

/// One side of a copy as the pure planners see it: a tile (layout over
/// `shape`) and the region's static offsets into it.
struct RegionSide {
  TileLayout layout;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> offsets;
};

} // namespace tile::copy_async

#endif // TILE_VARIANTS_CUDA_COPYASYNC_REGIONSIDE_H

//===- PlannerTestUtil.h - helpers the planner tests share ------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Iter shorthands, the NVMMA shared layout as a test fixture, and the PTX
// ISA's byte-level swizzle formula, written here apart from the layout
// algebra so simulators can check the algebra's swizzle against it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_VARIANTS_PLANNERTESTUTIL_H
#define TILE_UNITTESTS_VARIANTS_PLANNERTESTUTIL_H

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/SmemDescriptor.h"

#include "gtest/gtest.h"

namespace tile::testing {

inline Iter lane(int64_t e, int64_t s) { return Iter{e, s, Axis::TLane}; }
inline Iter col(int64_t e, int64_t s) { return Iter{e, s, Axis::TCol}; }
inline Iter mem(int64_t e, int64_t s) { return Iter{e, s, Axis::m}; }

/// nvmmaSharedLayout, failing the test (and returning row-major, so the
/// test goes on without dereferencing nothing) when it refuses.
inline TileLayout nvmma(unsigned bits, int64_t rows, int64_t cols,
                        SwizzleMode mode) {
  OrReason<TileLayout> l = nvmmaSharedLayout(bits, rows, cols, mode);
  EXPECT_TRUE(l) << l.reason();
  return l ? *l : TileLayout::rowMajor({rows, cols});
}

/// The PTX ISA's swizzle on a shared byte address: the 16-byte chunk index
/// (bits 4..) XORed with the row index inside the 8-row pattern (bits 7..).
inline int64_t ptxSwizzle(int64_t address, cuda::SmemSwizzle swizzle) {
  switch (swizzle) {
  case cuda::SmemSwizzle::None: return address;
  case cuda::SmemSwizzle::B32: return address ^ ((address >> 3) & 0x10);
  case cuda::SmemSwizzle::B64: return address ^ ((address >> 3) & 0x30);
  case cuda::SmemSwizzle::B128: return address ^ ((address >> 3) & 0x70);
  default: ADD_FAILURE() << "unmodelled swizzle"; return address;
  }
}

} // namespace tile::testing

#endif // TILE_UNITTESTS_VARIANTS_PLANNERTESTUTIL_H

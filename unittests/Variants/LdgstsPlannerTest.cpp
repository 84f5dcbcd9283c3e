//===- LdgstsPlannerTest.cpp - the ldgsts copy_async planner ----------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/LdgstsPlanner.h"

#include "gtest/gtest.h"

#include <map>

using namespace tile;
using namespace tile::ldgsts;

namespace {

Request request(TileLayout shared, llvm::SmallVector<int64_t, 4> shape,
                unsigned bits, int64_t threads,
                llvm::SmallVector<int64_t, 5> strides = {kDynamic, 1},
                llvm::SmallVector<int64_t, 5> offsets = {kDynamic, kDynamic}) {
  Request r;
  r.sizes = shape;
  r.elementBits = bits;
  r.shared = RegionSide{std::move(shared), shape,
                        llvm::SmallVector<int64_t, 4>(shape.size(), 0)};
  r.sharedAlignment = 1024;
  r.global.strides = std::move(strides);
  r.global.offsets = std::move(offsets);
  r.threads = threads;
  return r;
}

TileLayout rowMajor(int64_t rows, int64_t cols, Swizzle swizzle = {}) {
  return TileLayout({Iter{rows, cols, Axis::m}, Iter{cols, 1, Axis::m}}, {},
                    {}, swizzle);
}

/// Independent check, element by element: the vectors the threads take
/// (q = j * T + t) cover every region element once, each vector's
/// elements lie at consecutive shared bytes from an address aligned to
/// the width, and no two elements share a byte.
void expectWidthCoversRegion(const Request &r, const Width &w) {
  const int64_t bytes = r.elementBits / 8;
  std::map<std::vector<int64_t>, int> seen;
  std::map<int64_t, std::vector<int64_t>> sharedBytes;
  int64_t issued = 0;
  for (int64_t t = 0; t < r.threads; ++t)
    for (int64_t j = 0; j < w.perThread; ++j) {
      int64_t q = j * r.threads + t;
      if (q >= w.vectors)
        continue;
      ++issued;
      llvm::SmallVector<int64_t, 4> c = vectorCoord(w, q);
      int64_t start = sharedByte(r.shared, c, r.elementBits);
      ASSERT_EQ(start % w.bytes, 0) << "vector " << q;
      for (int64_t e = 0; e < w.elements; ++e) {
        std::vector<int64_t> key(c.begin(), c.end());
        ASSERT_EQ(++seen[key], 1) << "element copied twice";
        int64_t at = sharedByte(r.shared, c, r.elementBits);
        ASSERT_EQ(at, start + e * bytes) << "vector " << q << " element " << e;
        ASSERT_TRUE(sharedBytes.emplace(at, key).second);
        ++c.back();
      }
    }
  int64_t elements = 1;
  for (int64_t s : r.sizes)
    elements *= s;
  EXPECT_EQ(static_cast<int64_t>(seen.size()), elements);
  EXPECT_EQ(issued, w.vectors);
}

TEST(LdgstsPlanner, SwizzledTileOfARuntimeTensorTakesEveryWidth) {
  // 64x64 bf16, 128-byte swizzle, a warpgroup, runtime strides and offsets.
  Request r = request(rowMajor(64, 64, Swizzle{3, 3, 3}), {64, 64}, 16, 128);
  OrReason<Plan> plan = planCooperativeCopy(r);
  ASSERT_TRUE(plan) << plan.reason();
  EXPECT_EQ(plan->totalBytes, 8192);
  ASSERT_EQ(plan->widths.size(), 3u);
  int64_t want[3][3] = {{16, 512, 4}, {8, 1024, 8}, {4, 2048, 16}};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(plan->widths[k].bytes, want[k][0]);
    EXPECT_EQ(plan->widths[k].vectors, want[k][1]);
    EXPECT_EQ(plan->widths[k].perThread, want[k][2]);
    expectWidthCoversRegion(r, plan->widths[k]);
  }
}

TEST(LdgstsPlanner, StaticStrideRulesOutWiderVectors) {
  // Rows of 100 f16 are 200 bytes apart: 8- and 4-byte vectors only.
  Request r = request(rowMajor(8, 64), {8, 64}, 16, 1, {100, 1}, {0, 36});
  OrReason<Plan> plan = planCooperativeCopy(r);
  ASSERT_TRUE(plan) << plan.reason();
  ASSERT_EQ(plan->widths.size(), 2u);
  EXPECT_EQ(plan->widths[0].bytes, 8);
  EXPECT_EQ(plan->widths[1].bytes, 4);
  for (const Width &w : plan->widths)
    expectWidthCoversRegion(r, w);
  // Starting at column 35 leaves no aligned vector at all.
  r.global.offsets = {0, 35};
  OrReason<Plan> odd = planCooperativeCopy(r);
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.reason().find("starts at element 35"), std::string::npos)
      << odd.reason();
}

TEST(LdgstsPlanner, ShortRowsAndUnevenThreadCounts) {
  // 6 f16 per row: only 4-byte vectors (2 elements) divide it; 24 vectors
  // over 32 threads leave some threads without one.
  Request r = request(rowMajor(8, 6), {8, 6}, 16, 32);
  OrReason<Plan> plan = planCooperativeCopy(r);
  ASSERT_TRUE(plan) << plan.reason();
  ASSERT_EQ(plan->widths.size(), 1u);
  EXPECT_EQ(plan->widths[0].bytes, 4);
  EXPECT_EQ(plan->widths[0].vectors, 24);
  EXPECT_EQ(plan->widths[0].perThread, 1);
  expectWidthCoversRegion(r, plan->widths[0]);
  // A 3-D region (2 x 16 x 32 f32) over a warp of 32.
  Request cube = request(TileLayout({Iter{2, 512, Axis::m}, Iter{16, 32, Axis::m},
                                     Iter{32, 1, Axis::m}}),
                         {2, 16, 32}, 32, 32, {kDynamic, kDynamic, 1},
                         {kDynamic, kDynamic, kDynamic});
  OrReason<Plan> cubePlan = planCooperativeCopy(cube);
  ASSERT_TRUE(cubePlan) << cubePlan.reason();
  for (const Width &w : cubePlan->widths)
    expectWidthCoversRegion(cube, w);
}

TEST(LdgstsPlanner, RefusesWhatCpAsyncCannotMove) {
  // Column-major shared tile: consecutive global elements are a row apart.
  Request column = request(TileLayout({Iter{64, 1, Axis::m}, Iter{64, 64, Axis::m}}),
                           {64, 64}, 16, 128);
  OrReason<Plan> plan = planCooperativeCopy(column);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.reason().find("splits the vector"), std::string::npos)
      << plan.reason();
  // A runtime innermost stride.
  Request strided = request(rowMajor(64, 64), {64, 64}, 16, 128,
                            {kDynamic, kDynamic});
  ASSERT_FALSE(planCooperativeCopy(strided));
  // Sub-byte elements.
  Request fp4 = request(rowMajor(64, 64), {64, 64}, 4, 128);
  OrReason<Plan> nibbles = planCooperativeCopy(fp4);
  ASSERT_FALSE(nibbles);
  EXPECT_NE(nibbles.reason().find("4-bit elements"), std::string::npos);
  // Too many vectors for one thread.
  Request alone = request(rowMajor(128, 128), {128, 128}, 16, 1);
  OrReason<Plan> one = planCooperativeCopy(alone);
  ASSERT_FALSE(one);
  EXPECT_NE(one.reason().find("per thread"), std::string::npos) << one.reason();
  // A shared tile aligned to 8 bytes cannot take 16-byte vectors.
  Request loose = request(rowMajor(8, 64), {8, 64}, 16, 32);
  loose.sharedAlignment = 8;
  OrReason<Plan> narrow = planCooperativeCopy(loose);
  ASSERT_TRUE(narrow) << narrow.reason();
  EXPECT_EQ(narrow->widths.front().bytes, 8);
}

} // namespace

//===- StMatrixPlannerTest.cpp - tile.store through stmatrix --------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The stmatrix decision of a register tile's store: pinned plans for the
// wgmma accumulator fragment stored row-major (stmatrix) and column-major
// (stmatrix.trans), a brute-force simulation of the instructions (what the
// PTX ISA says each lane's registers and row addresses do) against where
// every element must land, and the declines.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/Local/StMatrixPlanner.h"

#include "gtest/gtest.h"

#include <map>

using namespace tile;
using namespace tile::stmatrix;

namespace {

/// The wgmma accumulator fragment of a 64 x n tile over a warpgroup, in
/// the tile's element order (h, j, e): thread 32w + 4q + r holds (16w + 8h
/// + q, 8j + 2r + e); `place(row, col)` is its destination offset.
template <typename Place>
Request accumulator(int64_t n, Place place) {
  Request req;
  req.baseAlignment = 64; // a 128-byte aligned buffer
  req.offset.assign(128, {});
  for (int64_t t = 0; t < 128; ++t) {
    int64_t w = t / 32, q = (t % 32) / 4, r = t % 4;
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t j = 0; j < n / 8; ++j)
        for (int64_t e = 0; e < 2; ++e)
          req.offset[t].push_back(place(16 * w + 8 * h + q, 8 * j + 2 * r + e));
  }
  return req;
}

/// Runs the plan as the PTX ISA defines stmatrix: lane l supplies the row
/// address digits(rowThread) + rowBase + lane-bit steps (what the emitter
/// computes); row x of matrix i gets lane 4x + c/2's register i, half c % 2,
/// at column c (transposed: lane 4c + x/2, half x % 2). Returns offset ->
/// (thread, element), or an empty map if two stores collide.
std::map<int64_t, std::pair<int64_t, int64_t>> simulate(const Request &req,
                                                        const Plan &plan) {
  std::map<int64_t, std::pair<int64_t, int64_t>> memory;
  const int64_t threads = int64_t(req.offset.size());
  auto digits = [&](int64_t t) { return req.offset[t][0] - req.offset[0][0]; };
  for (int64_t warp = 0; warp < threads / 32; ++warp)
    for (const Instruction &instr : plan.instructions) {
      int64_t address[32];
      for (int64_t l = 0; l < 32; ++l) {
        address[l] = digits(rowThread(plan.transpose, 32 * warp + l)) +
                     instr.rowBase;
        for (int b = 0; b < 5; ++b)
          if (l >> b & 1)
            address[l] += instr.laneBitStep[b];
      }
      for (int64_t i = 0; i < instr.count; ++i)
        for (int64_t x = 0; x < 8; ++x)
          for (int64_t c = 0; c < 8; ++c) {
            int64_t lane = plan.transpose ? 4 * c + x / 2 : 4 * x + c / 2;
            int64_t half = plan.transpose ? x % 2 : c % 2;
            const auto &pair = plan.pairs[instr.firstPair + i];
            int64_t element = half ? pair.second : pair.first;
            if (!memory.emplace(address[8 * i + x] + c,
                                std::pair{32 * warp + lane, element})
                     .second)
              return {};
          }
    }
  return memory;
}

/// Every element where the request puts it, and nothing else.
void expectStoresEverything(const Request &req, const Plan &plan) {
  std::map<int64_t, std::pair<int64_t, int64_t>> memory = simulate(req, plan);
  size_t elements = 0;
  for (size_t t = 0; t < req.offset.size(); ++t)
    for (size_t e = 0; e < req.offset[t].size(); ++e, ++elements) {
      auto it = memory.find(req.offset[t][e]);
      ASSERT_NE(it, memory.end()) << "offset " << req.offset[t][e];
      EXPECT_EQ(it->second, (std::pair<int64_t, int64_t>(t, e)))
          << "offset " << req.offset[t][e];
    }
  EXPECT_EQ(memory.size(), elements);
}

TEST(StMatrixPlanner, RowMajorAccumulatorPinned) {
  // 64 x 64 bf16, rows of 64 elements (the 128-byte swizzle's rows).
  Request req = accumulator(64, [](int64_t r, int64_t c) { return 64 * r + c; });
  req.swizzleChunk = 8;
  req.baseAlignment = 512;
  OrReason<Plan> p = planStMatrix(req);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_FALSE(p->transpose);
  ASSERT_EQ(p->pairs.size(), 16u);
  EXPECT_EQ(p->pairs[5], (std::pair<int64_t, int64_t>(10, 11)));
  ASSERT_EQ(p->instructions.size(), 4u);
  // Pairs 0..3: rows 0..7 (h 0) of columns 0, 8, 16, 24: lane 8i + x gives
  // row x (thread 4x: 64x, its digits) of matrix i (+8i).
  Instruction first{0, 4, 0, {0, 0, 0, 8, 16}};
  EXPECT_EQ(p->instructions[0], first);
  // Pairs 8..11: rows 8..15 (h 1), columns 0..31.
  Instruction third{8, 4, 8 * 64, {0, 0, 0, 8, 16}};
  EXPECT_EQ(p->instructions[2], third);
  expectStoresEverything(req, *p);
}

TEST(StMatrixPlanner, ColumnMajorAccumulatorIsTransposed) {
  // Column-major 64-row tile: a row's two columns are 64 apart, so only
  // the transposed form stores it (rows of the stored matrix are columns).
  Request req = accumulator(32, [](int64_t r, int64_t c) { return r + 64 * c; });
  OrReason<Plan> p = planStMatrix(req);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_TRUE(p->transpose);
  ASSERT_EQ(p->instructions.size(), 2u);
  // Lane 8i + x: column 2(x/2) + x%2 (lane x/2's pair, element x % 2) of
  // matrix i: bit 0 one column (64), bits 3 and 4 the next matrices.
  Instruction first{0, 4, 0, {64, 0, 0, 512, 1024}};
  EXPECT_EQ(p->instructions[0], first);
  expectStoresEverything(req, *p);
}

TEST(StMatrixPlanner, BruteForceOverWidths) {
  // Remainders (x2, x1), N not a multiple of 32 (x2 where the rows of
  // four pairs are not one step per lane bit), padded rows.
  for (int64_t n : {8, 16, 24, 56, 64, 128, 256})
    for (int64_t ld : {n, n + 8, 2 * n}) {
      Request row = accumulator(n, [&](int64_t r, int64_t c) { return ld * r + c; });
      OrReason<Plan> p = planStMatrix(row);
      ASSERT_TRUE(p) << n << " " << ld << ": " << p.reason();
      EXPECT_FALSE(p->transpose);
      int64_t pairs = 0;
      for (const Instruction &i : p->instructions)
        pairs += i.count;
      EXPECT_EQ(pairs, n / 4);
      expectStoresEverything(row, *p);
      Request col = accumulator(n, [&](int64_t r, int64_t c) { return r + 64 * c; });
      p = planStMatrix(col);
      ASSERT_TRUE(p) << n << ": " << p.reason();
      EXPECT_TRUE(p->transpose);
      expectStoresEverything(col, *p);
    }
  // N 8: one x2 per warp (two pairs: rows q and q + 8).
  OrReason<Plan> p = planStMatrix(
      accumulator(8, [](int64_t r, int64_t c) { return 8 * r + c; }));
  ASSERT_TRUE(p);
  ASSERT_EQ(p->instructions.size(), 1u);
  EXPECT_EQ(p->instructions[0].count, 2);
  EXPECT_EQ(p->instructions[0].laneBitStep[3], 64);
}

TEST(StMatrixPlanner, Declines) {
  auto rowMajor = [](int64_t ld) {
    return accumulator(64, [=](int64_t r, int64_t c) { return ld * r + c; });
  };
  Request req = rowMajor(64);
  req.bits = 32;
  EXPECT_EQ(planStMatrix(req).reason(),
            "stmatrix stores 16-bit elements; the destination's are 32-bit");
  req = rowMajor(64);
  req.baseAlignment = 4;
  EXPECT_EQ(planStMatrix(req).reason(),
            "the region's base is known to be a multiple of 4 elements; "
            "stmatrix rows start on 16-byte boundaries");
  req = rowMajor(64);
  req.swizzleChunk = 4;
  EXPECT_EQ(planStMatrix(req).reason(),
            "the swizzle moves 4-element chunks; an stmatrix row is 8 "
            "elements kept together");
  // Rows 68 elements apart: row 1 starts off a 16-byte boundary (and the
  // transposed form does not hold the fragment either).
  OrReason<Plan> p = planStMatrix(rowMajor(68));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason().substr(0, 78),
            "stmatrix: row 1 of matrix 0 (pair 0) of warp 0 starts at element "
            "68, not on a ");
  // Each thread's columns 2r, 2r + 1 swapped: no form holds it.
  Request swapped = accumulator(
      16, [](int64_t r, int64_t c) { return 16 * r + (c ^ 1); });
  p = planStMatrix(swapped);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason().substr(0, 69),
            "stmatrix: row 0 of matrix 0 (pair 0) of warp 0 starts at element "
            "1, n");
  // Aligned rows, but lanes r = 1 and r = 2 of each row swapped.
  Request reversed = accumulator(16, [](int64_t r, int64_t c) {
    const int64_t lanePair[4] = {0, 4, 2, 6};
    return 16 * r + (c & 8) + lanePair[(c & 6) / 2] + (c & 1);
  });
  p = planStMatrix(reversed);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason().substr(0, 103),
            "stmatrix: element 0 of thread 1 goes to 4; as element 0 of its "
            "register 0 it would be stored at 2; stma");
  // One warp's tile (32 threads) plans; 48 threads do not.
  Request warp;
  warp.baseAlignment = 8;
  warp.offset.assign(32, {});
  for (int64_t t = 0; t < 32; ++t)
    for (int64_t e = 0; e < 2; ++e)
      warp.offset[t].push_back(8 * (t / 4) + 2 * (t % 4) + e);
  p = planStMatrix(warp);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_EQ(p->instructions.size(), 1u);
  EXPECT_EQ(p->instructions[0].count, 1);
  expectStoresEverything(warp, *p);
  warp.offset.resize(48, warp.offset[0]);
  EXPECT_EQ(planStMatrix(warp).reason(),
            "stmatrix is a warp's; the tile spans 48 threads");
}

} // namespace

//===- TMAPlannerTest.cpp - the tma copy_async planner ----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Encode arguments are pinned in TVM TIRx's order: rank, dims inner->outer,
// byte strides, box, element strides, interleave, swizzle, L2 promotion,
// oob fill (-1 for a runtime value). Every plan is also run through the
// lowering checker: each issue's box, modelled from the tensor map (dense
// box, the map's byte-level swizzle), must move each region element from
// its global byte to where the shared layout says, and nothing else.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"

#include "PlannerTestUtil.h"

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

#include <map>

using namespace tile;
using namespace tile::tma;
using cuda::TensorMapDataType;

namespace {

using namespace tile::testing;

using Args = std::vector<int64_t>;

Args args(const Plan &p) {
  llvm::SmallVector<int64_t, 24> a = p.encodeArguments();
  return Args(a.begin(), a.end());
}

/// A whole-tile copy of a row-major global tensor of `shape` into `layout`.
Request rowMajorRequest(llvm::SmallVector<int64_t, 5> shape, TileLayout layout,
                        unsigned bits, TensorMapDataType type) {
  Request r;
  r.global.shape = shape;
  r.global.strides.assign(shape.size(), 1);
  for (size_t d = shape.size() - 1; d-- > 0;)
    r.global.strides[d] = r.global.strides[d + 1] * shape[d + 1];
  r.global.offsets.assign(shape.size(), 0);
  r.shared = SharedSide{std::move(layout), shape,
                        llvm::SmallVector<int64_t, 5>(shape.size(), 0)};
  r.sizes = shape;
  r.elementBits = bits;
  r.dataType = type;
  return r;
}

Plan planOk(const Request &r) {
  OrReason<Plan> p = planTensorCopy(r);
  EXPECT_TRUE(p) << p.reason();
  if (!p)
    return Plan();
  expectChecked(plan_check::checkTma(r, *p));
  return *p;
}

//===----------------------------------------------------------------------===//
// 8x256 tiles: every swizzle, every element width
//===----------------------------------------------------------------------===//

TEST(TMAPlanner, F16Swizzle128MatchesTVMGolden) {
  Plan p = planOk(rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::B128),
                                  16, TensorMapDataType::Float16));
  EXPECT_EQ(args(p), (Args{3, 64, 8, 4, 512, 128, 64, 8, 4, 1, 1, 1, 0, 3, 2, 0}));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].sharedByte, 0);
  EXPECT_EQ(p.bytesPerIssue, 4096);
  EXPECT_EQ(p.map.dataType, TensorMapDataType::Float16);
}

TEST(TMAPlanner, F16NoSwizzleMatchesTVMGolden) {
  Plan p = planOk(rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::None),
                                  16, TensorMapDataType::Float16));
  EXPECT_EQ(args(p), (Args{2, 256, 8, 512, 256, 8, 1, 1, 0, 0, 2, 0}));
  EXPECT_EQ(p.issues.size(), 1u);
}

TEST(TMAPlanner, F16Swizzle64And32) {
  Plan p64 = planOk(rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::B64),
                                    16, TensorMapDataType::Float16));
  EXPECT_EQ(args(p64), (Args{3, 32, 8, 8, 512, 64, 32, 8, 8, 1, 1, 1, 0, 2, 2, 0}));
  Plan p32 = planOk(rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::B32),
                                    16, TensorMapDataType::Float16));
  EXPECT_EQ(args(p32), (Args{3, 16, 8, 16, 512, 32, 16, 8, 16, 1, 1, 1, 0, 1, 2, 0}));
  EXPECT_EQ(p64.issues.size(), 1u);
  EXPECT_EQ(p32.issues.size(), 1u);
}

TEST(TMAPlanner, OtherElementTypes) {
  // int8 / fp8: 128 elements per 128-byte row.
  Plan i8 = planOk(rowMajorRequest({8, 256}, nvmma(8, 8, 256, SwizzleMode::B128),
                                   8, TensorMapDataType::UInt8));
  EXPECT_EQ(args(i8), (Args{3, 128, 8, 2, 256, 128, 128, 8, 2, 1, 1, 1, 0, 3, 2, 0}));
  EXPECT_EQ(i8.map.dataType, TensorMapDataType::UInt8);
  Plan i8plain = planOk(rowMajorRequest(
      {8, 256}, nvmma(8, 8, 256, SwizzleMode::None), 8, TensorMapDataType::UInt8));
  EXPECT_EQ(args(i8plain), (Args{2, 256, 8, 256, 256, 8, 1, 1, 0, 0, 2, 0}));
  // bf16: the f16 plan with the BFLOAT16 type.
  Plan bf16 = planOk(rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::B128),
                                     16, TensorMapDataType::BFloat16));
  EXPECT_EQ(args(bf16), (Args{3, 64, 8, 4, 512, 128, 64, 8, 4, 1, 1, 1, 0, 3, 2, 0}));
  EXPECT_EQ(bf16.map.dataType, TensorMapDataType::BFloat16);
  // fp32: 32 elements per row.
  Plan f32 = planOk(rowMajorRequest({8, 256}, nvmma(32, 8, 256, SwizzleMode::B128),
                                    32, TensorMapDataType::Float32));
  EXPECT_EQ(args(f32), (Args{3, 32, 8, 8, 1024, 128, 32, 8, 8, 1, 1, 1, 0, 3, 2, 0}));
  Plan f32plain = planOk(rowMajorRequest(
      {8, 256}, nvmma(32, 8, 256, SwizzleMode::None), 32, TensorMapDataType::Float32));
  EXPECT_EQ(args(f32plain), (Args{2, 256, 8, 1024, 256, 8, 1, 1, 0, 0, 2, 0}));
}

TEST(TMAPlanner, EveryWidthAndSwizzleOf8x256) {
  // Expected values from the rule, not from the planner: a swizzle of S
  // bytes cuts each 256-element row into atoms of S / bytes elements (rank
  // 3, one issue); no swizzle keeps rank 2 with 256-element boxes.
  struct Width {
    unsigned bits;
    TensorMapDataType type;
  };
  for (Width w : {Width{8, TensorMapDataType::UInt8},
                  Width{16, TensorMapDataType::Float16},
                  Width{32, TensorMapDataType::Float32}}) {
    int64_t bytes = w.bits / 8;
    for (auto [mode, span, code] :
         {std::tuple{SwizzleMode::B32, 32, 1}, std::tuple{SwizzleMode::B64, 64, 2},
          std::tuple{SwizzleMode::B128, 128, 3}}) {
      SCOPED_TRACE(std::to_string(w.bits) + "-bit, " + std::to_string(span) +
                   "B swizzle");
      int64_t inner = span / bytes, atoms = 256 / inner;
      Plan p = planOk(rowMajorRequest({8, 256}, nvmma(w.bits, 8, 256, mode),
                                      w.bits, w.type));
      EXPECT_EQ(args(p), (Args{3, inner, 8, atoms, 256 * bytes, span, inner,
                               8, atoms, 1, 1, 1, 0, code, 2, 0}));
      EXPECT_EQ(p.issues.size(), 1u);
      EXPECT_EQ(p.map.dataType, w.type);
    }
    SCOPED_TRACE(std::to_string(w.bits) + "-bit, no swizzle");
    Plan p = planOk(rowMajorRequest({8, 256}, nvmma(w.bits, 8, 256,
                                                    SwizzleMode::None),
                                    w.bits, w.type));
    EXPECT_EQ(args(p), (Args{2, 256, 8, 256 * bytes, 256, 8, 1, 1, 0, 0, 2, 0}));
  }
}

//===----------------------------------------------------------------------===//
// Regions of larger tensors and buffers
//===----------------------------------------------------------------------===//

TEST(TMAPlanner, TileOfALargeTensor) {
  // A 128x64 f16 tile at (256, 512) of an 8192x8192 tensor, 128B swizzle.
  Request r = rowMajorRequest({8192, 8192}, TileLayout(), 16,
                              TensorMapDataType::Float16);
  r.global.offsets = {256, 512};
  r.shared = SharedSide{nvmma(16, 128, 64, SwizzleMode::B128), {128, 64}, {0, 0}};
  r.sizes = {128, 64};
  Plan p = planOk(r);
  EXPECT_EQ(args(p), (Args{2, 8192, 8192, 16384, 64, 128, 1, 1, 0, 3, 2, 0}));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, 512}, {-1, 256}}));
}

TEST(TMAPlanner, DynamicSizesAndOffsets) {
  // memref<?x?xf16>: runtime dims and row stride, SSA tile offsets.
  Request r;
  r.global.shape = {kDynamic, kDynamic};
  r.global.strides = {kDynamic, 1};
  r.global.offsets = {kDynamic, kDynamic};
  r.shared = SharedSide{nvmma(16, 128, 64, SwizzleMode::B128), {128, 64}, {0, 0}};
  r.sizes = {128, 64};
  r.elementBits = 16;
  r.dataType = TensorMapDataType::Float16;
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_EQ(args(*p), (Args{2, -1, -1, -1, 64, 128, 1, 1, 0, 3, 2, 0}));
  EXPECT_EQ(p->globalDims[0], (MapValue{0, 1, 1}));
  EXPECT_EQ(p->globalDims[1], (MapValue{0, 0, 1}));
  // Row stride in bytes: the runtime element stride of dim 0 times 2.
  EXPECT_EQ(p->globalStrides[0], (MapValue{0, 0, 2}));
  ASSERT_EQ(p->issues.size(), 1u);
  EXPECT_EQ(p->issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{1, 0}, {0, 0}}));
  // Checked as it runs: a 1000x320 tensor, region at (256, 64).
  GlobalSide runtime{{1000, 320}, {320, 1}, {256, 64}};
  EXPECT_TRUE(plan_check::checkTma(r, *p).skipped);
  expectChecked(plan_check::checkTma(r, *p, &runtime));
}

TEST(TMAPlanner, DynamicDimIsNeverSplit) {
  // 8x256 into 128B atoms with a runtime column count: the column dim stays
  // whole and the four atoms become four issues at advancing coordinates.
  Request r = rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::B128),
                              16, TensorMapDataType::Float16);
  r.global.shape = {8, kDynamic};
  r.global.strides = {kDynamic, 1};
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_EQ(args(*p), (Args{2, -1, 8, -1, 64, 8, 1, 1, 0, 3, 2, 0}));
  ASSERT_EQ(p->issues.size(), 4u);
  for (int64_t a = 0; a < 4; ++a) {
    EXPECT_EQ(p->issues[a].coords,
              (llvm::SmallVector<Coordinate, 5>{{-1, 64 * a}, {-1, 0}}));
    EXPECT_EQ(p->issues[a].sharedByte, 1024 * a);
  }
  GlobalSide runtime{{8, 4096}, {4096, 1}, {0, 0}};
  expectChecked(plan_check::checkTma(r, *p, &runtime));
}

TEST(TMAPlanner, OneStageOfAMultiStageBuffer) {
  // Stage 1 of a 3x64x256 f16 buffer of 128B-swizzled 64x256 stages.
  TileLayout stages({Iter{3, 16384, Axis::m}, Iter{64, 64, Axis::m},
                     Iter{4, 4096, Axis::m}, Iter{64, 1, Axis::m}},
                    {}, {}, nvmmaSwizzle(SwizzleMode::B128, 16));
  Request r;
  r.global.shape = {1, 1024, 256};
  r.global.strides = {1024 * 256, 256, 1};
  r.global.offsets = {0, 64, 0};
  r.shared = SharedSide{stages, {3, 64, 256}, {1, 0, 0}};
  r.sizes = {1, 64, 256};
  r.elementBits = 16;
  r.dataType = TensorMapDataType::Float16;
  Plan p = planOk(r);
  EXPECT_EQ(args(p), (Args{3, 64, 1024, 4, 512, 128, 64, 64, 4, 1, 1, 1, 0, 3, 2, 0}));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].sharedByte, 32768);
  EXPECT_EQ(p.issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, 0}, {-1, 64}, {-1, 0}}));
}

TEST(TMAPlanner, UnitDimsOf3DAnd4DGlobals) {
  // 1x1x64x64: static unit dims need no map dim.
  Plan p3 = planOk(rowMajorRequest({1, 64, 64}, TileLayout::rowMajor({1, 64, 64}),
                                   16, TensorMapDataType::Float16));
  EXPECT_EQ(args(p3), (Args{2, 64, 64, 128, 64, 64, 1, 1, 0, 0, 2, 0}));
  // One 64x64 slice at (1, 2) of a 2x3x64x64 tensor: the unit region dims
  // stay map dims with box 1, their coordinates select the slice.
  Request r = rowMajorRequest({2, 3, 64, 64}, TileLayout(), 16,
                              TensorMapDataType::Float16);
  r.global.offsets = {1, 2, 0, 0};
  r.shared = SharedSide{TileLayout::rowMajor({1, 1, 64, 64}), {1, 1, 64, 64},
                        {0, 0, 0, 0}};
  r.sizes = {1, 1, 64, 64};
  Plan p4 = planOk(r);
  EXPECT_EQ(args(p4), (Args{4, 64, 64, 2, 3, 128, 24576, 8192, 64, 64, 1, 1,
                            1, 1, 1, 1, 0, 0, 2, 0}));
  ASSERT_EQ(p4.issues.size(), 1u);
  EXPECT_EQ(p4.issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, 0}, {-1, 0}, {-1, 1}, {-1, 2}}));
}

TEST(TMAPlanner, PaddedSharedRowsNeedOneIssuePerRow) {
  // Shared rows of 64 f16 padded to 128: not dense across rows. The global
  // rows are contiguous, so the row dim merges into the column dim: a rank-1
  // map of 512 elements, one 64-element box per row.
  Request r = rowMajorRequest({8, 64}, TileLayout({Iter{8, 128, Axis::m},
                                                   Iter{64, 1, Axis::m}}),
                              16, TensorMapDataType::Float16);
  Plan p = planOk(r);
  EXPECT_EQ(args(p), (Args{1, 512, 64, 1, 0, 0, 2, 0}));
  ASSERT_EQ(p.issues.size(), 8u);
  for (int64_t row = 0; row < 8; ++row) {
    EXPECT_EQ(p.issues[row].sharedByte, 256 * row);
    EXPECT_EQ(p.issues[row].coords,
              (llvm::SmallVector<Coordinate, 5>{{-1, 64 * row}}));
  }
  EXPECT_EQ(p.bytesPerIssue, 128);
  // Padded global rows cannot merge: rank 2, still 8 issues.
  Request g = r;
  g.global.shape = {8, 72};
  g.global.strides = {72, 1};
  Plan q = planOk(g);
  EXPECT_EQ(args(q), (Args{2, 72, 8, 144, 64, 1, 1, 1, 0, 0, 2, 0}));
  EXPECT_EQ(q.issues.size(), 8u);
}

TEST(TMAPlanner, ContiguousFullyBoxedDimsMerge) {
  // 4x64 f16, dense on both sides: one 256-element box in a rank-1 map.
  Plan p = planOk(rowMajorRequest({4, 64}, TileLayout::rowMajor({4, 64}), 16,
                                  TensorMapDataType::Float16));
  EXPECT_EQ(args(p), (Args{1, 256, 256, 1, 0, 0, 2, 0}));
  EXPECT_EQ(p.issues.size(), 1u);
  // A 2x4x64 tile of a 2x4x64 tensor under a 128B swizzle: the rows and
  // planes merge (the inner, swizzled dim stays).
  Request r = rowMajorRequest({2, 4, 64}, TileLayout(), 16,
                              TensorMapDataType::Float16);
  r.shared = SharedSide{TileLayout({Iter{2, 256, Axis::m}, Iter{4, 64, Axis::m},
                                    Iter{64, 1, Axis::m}},
                                   {}, {}, nvmmaSwizzle(SwizzleMode::B128, 16)),
                        {2, 4, 64}, {0, 0, 0}};
  Plan q = planOk(r);
  EXPECT_EQ(args(q), (Args{2, 64, 8, 128, 64, 8, 1, 1, 0, 3, 2, 0}));
}

TEST(TMAPlanner, PromotionShrinksAWideRowToOneIssue) {
  // 1024 contiguous f16: a box of 1024 would exceed 256, so the elements are
  // copied as 256 eight-byte units in one issue.
  Plan p = planOk(rowMajorRequest({1024}, TileLayout::rowMajor({1024}), 16,
                                  TensorMapDataType::Float16));
  EXPECT_EQ(args(p), (Args{1, 256, 256, 1, 0, 0, 2, 0}));
  EXPECT_EQ(p.promotion, 4u);
  EXPECT_EQ(p.map.dataType, TensorMapDataType::UInt64);
  EXPECT_EQ(p.issues.size(), 1u);
  // NaN fill keeps the element type: four issues of 256 f16 instead.
  Request nan = rowMajorRequest({1024}, TileLayout::rowMajor({1024}), 16,
                                TensorMapDataType::Float16);
  nan.oobFill = cuda::TensorMapOobFill::NanRequestZeroFma;
  Plan q = planOk(nan);
  EXPECT_EQ(args(q), (Args{1, 1024, 256, 1, 0, 0, 2, 1}));
  EXPECT_EQ(q.promotion, 1u);
  EXPECT_EQ(q.issues.size(), 4u);
}

/// A `rows x cols` f16 region at `offsets` of a row-major `shape` tensor,
/// into a 128B-swizzled tile of the region's shape.
Request f16Region(llvm::SmallVector<int64_t, 5> shape,
                  llvm::SmallVector<int64_t, 5> offsets, int64_t rows,
                  int64_t cols) {
  Request r = rowMajorRequest(shape, TileLayout(), 16,
                              TensorMapDataType::Float16);
  r.global.offsets = offsets;
  r.shared = SharedSide{nvmma(16, rows, cols, SwizzleMode::B128),
                        {rows, cols}, {0, 0}};
  r.sizes = {rows, cols};
  return r;
}

//===----------------------------------------------------------------------===//
// Fewest issues: a tile of swizzle atoms is one box whose atoms are a map
// dim of their own, not one issue per atom
//===----------------------------------------------------------------------===//

/// A tile of `atoms` column blocks of `atomCols` elements, each block
/// `rows` rows (the nvmma layout; swizzled with `mode` unless None).
TileLayout atomBlocks(int64_t rows, int64_t atoms, int64_t atomCols,
                      SwizzleMode mode, unsigned bits) {
  return TileLayout({Iter{rows, atomCols, Axis::m},
                     Iter{atoms, rows * atomCols, Axis::m},
                     Iter{atomCols, 1, Axis::m}},
                    {}, {},
                    mode == SwizzleMode::None ? Swizzle()
                                              : nvmmaSwizzle(mode, bits));
}

TEST(TMAPlanner, IssueCountsOfAtomTiles) {
  // Whole tiles of a tensor of their shape, and the same tiles at (0, 0) of
  // a 1000x1000 tensor, whose 1000 columns end inside an atom (the atom
  // dim views the 15 whole ones; the region never reaches the partial one).
  struct Case {
    int64_t rows, cols, atomCols;
    SwizzleMode mode;
    size_t issues;
  };
  const Case cases[] = {
      {32, 512, 64, SwizzleMode::B128, 1}, {64, 256, 64, SwizzleMode::B128, 1},
      {128, 64, 64, SwizzleMode::B128, 1}, {32, 512, 32, SwizzleMode::B64, 1},
      {32, 512, 16, SwizzleMode::B32, 1},  {64, 256, 32, SwizzleMode::B64, 1},
      {32, 512, 64, SwizzleMode::None, 1}, {32, 512, 512, SwizzleMode::None, 1}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols) +
                 " in " + std::to_string(c.atomCols) + "-column atoms, mode " +
                 std::to_string(int(c.mode)));
    TileLayout tile = atomBlocks(c.rows, c.cols / c.atomCols, c.atomCols,
                                 c.mode, 16);
    Request whole = rowMajorRequest({c.rows, c.cols}, tile, 16,
                                    TensorMapDataType::Float16);
    EXPECT_EQ(planOk(whole).issues.size(), c.issues);
    Request region = whole;
    region.global.shape = {1000, 1000};
    region.global.strides = {1000, 1};
    EXPECT_EQ(planOk(region).issues.size(), c.issues);
  }
}

TEST(TMAPlanner, AtomDimViewsTheWholeAtomsOfATensor) {
  // 32x512 at (0, 0) of 1000x1000: 15 whole 64-column atoms.
  Request r = f16Region({1000, 1000}, {0, 0}, 32, 512);
  Plan p = planOk(r);
  EXPECT_EQ(args(p), (Args{3, 64, 1000, 15, 2000, 128, 64, 32, 8, 1, 1, 1, 0,
                           3, 2, 0}));
  // Columns 448..959 end at the last whole atom: still one issue.
  r.global.offsets = {0, 448};
  EXPECT_EQ(planOk(r).issues.size(), 1u);
  // 7 stages of 32x512 from a 7x1000x1000 tensor: one rank-4 box.
  TileLayout two = nvmma(16, 32, 512, SwizzleMode::B128);
  llvm::SmallVector<Iter> iters = {Iter{7, 32 * 512, Axis::m}};
  iters.append(two.shard().begin(), two.shard().end());
  Request s = rowMajorRequest({7, 1000, 1000}, TileLayout(), 16,
                              TensorMapDataType::Float16);
  s.shared = SharedSide{TileLayout(iters, {}, {}, two.swizzle()),
                        {7, 32, 512}, {0, 0, 0}};
  s.sizes = {7, 32, 512};
  Plan q = planOk(s);
  EXPECT_EQ(args(q), (Args{4, 64, 1000, 15, 7, 2000, 128, 2000000, 64, 32, 8,
                           7, 1, 1, 1, 1, 0, 3, 2, 0}));
  EXPECT_EQ(q.issues.size(), 1u);
  // The whole 7x32x512 tensor: one issue too.
  Request w = rowMajorRequest({7, 32, 512}, s.shared.layout, 16,
                              TensorMapDataType::Float16);
  EXPECT_EQ(planOk(w).issues.size(), 1u);
}

TEST(TMAPlanner, AtomBlocksTiledTwiceSpanTwoModesInOneMapDim) {
  // 16x256 blocks of 8x64 swizzle atoms (atom rows 2048 elements apart,
  // atom columns 512), the blocks 2x2 (block columns 4096 apart, block
  // rows 8192): rows are modes 8:64, 2:2048, 2:8192 and columns 64:1,
  // 4:512, 2:4096, which no two fuse. Six modes for a rank-5 map: one map
  // dim takes both row modes above the first 8 rows, boxed on the inner
  // (2) and looped over the outer (2), so 2 issues (8 when a dim could
  // only be one map dim or one per mode).
  TileLayout swizzled = nvmma(16, 32, 512, SwizzleMode::B128);
  TileLayout blocks(
      {Iter{2, 8192, Axis::m}, Iter{2, 2048, Axis::m}, Iter{8, 64, Axis::m},
       Iter{2, 4096, Axis::m}, Iter{4, 512, Axis::m}, Iter{64, 1, Axis::m}},
      {}, {}, swizzled.swizzle());
  Request r = rowMajorRequest({1000, 1000}, TileLayout(), 16,
                              TensorMapDataType::Float16);
  r.shared = SharedSide{blocks, {32, 512}, {0, 0}};
  r.sizes = {32, 512};
  Plan p = planOk(r);
  // Map dims: 64 columns, 8 rows, 4 atoms of 64 columns, rows in steps of
  // 8 (125, the box's 2 rows of atoms), columns in steps of 256 (3).
  EXPECT_EQ(args(p), (Args{5, 64, 8, 4, 125, 3, 2000, 128, 16000, 512, 64, 8,
                           4, 2, 2, 1, 1, 1, 1, 1, 0, 3, 2, 0}));
  ASSERT_EQ(p.issues.size(), 2u);
  EXPECT_EQ(p.issues[1].coords[3].constant, 2);
  EXPECT_EQ(p.issues[1].sharedByte, 8192 * 2);
  // One stage of seven such tiles from a 7x1000x1000 tensor: the stage
  // takes a map dim, so both the row and the column pairs span one map dim
  // each: 4 issues (8 before).
  llvm::SmallVector<Iter> staged = {Iter{7, 32 * 512, Axis::m}};
  staged.append(blocks.shard().begin(), blocks.shard().end());
  Request st = rowMajorRequest({7, 1000, 1000}, TileLayout(), 16,
                               TensorMapDataType::Float16);
  st.shared = SharedSide{TileLayout(staged, {}, {}, blocks.swizzle()),
                         {7, 32, 512}, {3, 0, 0}};
  st.global.offsets = {3, 0, 0};
  st.sizes = {1, 32, 512};
  EXPECT_EQ(planOk(st).issues.size(), 4u);
}

//===----------------------------------------------------------------------===//
// Regions past the tensor's edge (the checker: an element outside the
// tensor must lie in a box past the edge, which a load fills and a store
// skips; the same plan serves both)
//===----------------------------------------------------------------------===//

TEST(TMAPlanner, RegionPastTheEdgeKeepsTheTensorDims) {
  // 64x128 at (64, 64) of a 100x120 tensor: rows 100.. and columns 120.. are
  // outside. The map's dims are the tensor's, the box the region's; the
  // second 64-column atom starts at column 128, wholly outside (filled).
  Request r = f16Region({100, 120}, {64, 64}, 64, 128);
  Plan p = planOk(r);
  EXPECT_EQ(args(p), (Args{2, 120, 100, 240, 64, 64, 1, 1, 0, 3, 2, 0}));
  ASSERT_EQ(p.issues.size(), 2u);
  EXPECT_EQ(p.issues[1].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, 128}, {-1, 64}}));
  EXPECT_EQ(p.issues[1].sharedByte, 8192);
  r.oobFill = cuda::TensorMapOobFill::NanRequestZeroFma;
  EXPECT_EQ(args(planOk(r)).back(), 1);
}

TEST(TMAPlanner, RegionBeforeOrWhollyOutsideTheTensor) {
  // TMA coordinates are signed: a box may start before the tensor.
  Plan before = planOk(f16Region({256, 256}, {-16, -64}, 64, 64));
  ASSERT_EQ(before.issues.size(), 1u);
  EXPECT_EQ(before.issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, -64}, {-1, -16}}));
  // Wholly outside: every element filled (load) or skipped (store).
  Plan outside = planOk(f16Region({256, 256}, {300, 0}, 64, 64));
  EXPECT_EQ(args(outside), (Args{2, 256, 256, 512, 64, 64, 1, 1, 0, 3, 2, 0}));
  ASSERT_EQ(outside.issues.size(), 1u);
  EXPECT_EQ(outside.issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, 0}, {-1, 300}}));
}

TEST(TMAPlanner, SplitDimPastTheEdge) {
  // 32x512 at (48, 768) of a 64x1024 tensor: 1024 columns are 16 whole
  // 64-column atoms, so the atom dim's bound is the tensor's: one issue.
  Plan p = planOk(f16Region({64, 1024}, {48, 768}, 32, 512));
  EXPECT_EQ(args(p), (Args{3, 64, 64, 16, 2048, 128, 64, 32, 8, 1, 1, 1, 0, 3,
                           2, 0}));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, 0}, {-1, 48}, {-1, 12}}));
  // 1000 columns end inside an atom: the region crosses that partial atom,
  // so the column dim stays whole and each atom is an issue.
  EXPECT_EQ(planOk(f16Region({64, 1000}, {48, 768}, 32, 512)).issues.size(),
            8u);
}

TEST(TMAPlanner, UnitDimPastTheEdgeStaysAMapDim) {
  // Plane 1 of a 1x64x64 tensor is outside it: the unit dim must keep its
  // coordinate (merged into the rows: rows 64..127 of a 64-row view).
  Request r = rowMajorRequest({1, 64, 64}, TileLayout::rowMajor({1, 64, 64}),
                              16, TensorMapDataType::Float16);
  r.global.offsets = {1, 0, 0};
  Plan p = planOk(r);
  EXPECT_EQ(args(p), (Args{2, 64, 64, 128, 64, 64, 1, 1, 0, 0, 2, 0}));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].coords,
            (llvm::SmallVector<Coordinate, 5>{{-1, 0}, {-1, 64}}));
}

TEST(TMAPlanner, CoordinateOutsideInt32IsRefused) {
  Request r = rowMajorRequest({(int64_t(1) << 31) + 64, 64},
                              TileLayout::rowMajor({64, 64}), 16,
                              TensorMapDataType::Float16);
  r.global.offsets = {int64_t(1) << 31, 0};
  r.shared.shape = {64, 64};
  r.sizes = {64, 64};
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "global offset 2147483648 of dim 0 is outside the "
                        "signed 32-bit range of TMA coordinates");
  // The second atom of a region ending at the int32 limit (the columns end
  // inside an atom, so they stay one dim with an issue per atom; NaN fill
  // keeps the elements unpromoted).
  r.oobFill = cuda::TensorMapOobFill::NanRequestZeroFma;
  r.shared = SharedSide{nvmma(16, 64, 128, SwizzleMode::B128), {64, 128},
                        {0, 0}};
  r.sizes = {64, 128};
  r.global.shape = {64, int64_t(INT32_MAX) + 9};
  r.global.strides = {int64_t(INT32_MAX) + 9, 1};
  r.global.offsets = {0, INT32_MAX - 63};
  p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "a box starts at coordinate 2147483648, outside the "
                        "signed 32-bit range of TMA coordinates");
}

TEST(TMAPlanner, CheckerCatchesAnEdgeElementReadInBounds) {
  // Dropping the unit dim of the plane-1 region would read plane 0.
  Request r = rowMajorRequest({1, 64, 64}, TileLayout::rowMajor({1, 64, 64}),
                              16, TensorMapDataType::Float16);
  r.global.offsets = {1, 0, 0};
  Plan wrong = planOk(rowMajorRequest({1, 64, 64},
                                      TileLayout::rowMajor({1, 64, 64}), 16,
                                      TensorMapDataType::Float16));
  EXPECT_EQ(plan_check::checkTma(r, wrong).failure.value_or(""),
            "element (0, 0, 0) lies outside the tensor but shared byte 4096 is "
            "in no box past its edge");
}

//===----------------------------------------------------------------------===//
// Out-of-bounds fill and refusals
//===----------------------------------------------------------------------===//

TEST(TMAPlanner, OobFill) {
  Request zero = rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::B128),
                                 16, TensorMapDataType::Float16);
  EXPECT_EQ(args(planOk(zero)).back(), 0);
  Request nan = zero;
  nan.oobFill = cuda::TensorMapOobFill::NanRequestZeroFma;
  EXPECT_EQ(args(planOk(nan)).back(), 1);
  Request intNan = rowMajorRequest({8, 256}, nvmma(8, 8, 256, SwizzleMode::B128),
                                   8, TensorMapDataType::UInt8);
  intNan.oobFill = cuda::TensorMapOobFill::NanRequestZeroFma;
  OrReason<Plan> p = planTensorCopy(intNan);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point "
                        "data type, got UINT8");
}

TEST(TMAPlanner, TransposedSharedTileIsRefusedNamingTheRule) {
  Request r = rowMajorRequest({64, 64}, TileLayout({Iter{64, 1, Axis::m},
                                                    Iter{64, 64, Axis::m}}),
                              16, TensorMapDataType::Float16);
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(),
            "boxDim[0] * elementSize = 2 bytes is not a multiple of 16");
}

TEST(TMAPlanner, GlobalStrideNotSixteenBytesIsRefused) {
  // Rows of 100 f16 are 200 bytes apart.
  Request r = rowMajorRequest({8, 100}, TileLayout(), 16,
                              TensorMapDataType::Float16);
  r.shared = SharedSide{TileLayout::rowMajor({8, 64}), {8, 64}, {0, 0}};
  r.sizes = {8, 64};
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "globalStrides[0] = 200 bytes is not a multiple of 16");
}

TEST(TMAPlanner, MisalignedSharedBoxIsRefused) {
  // Rows padded by 16 bytes: the second row's box would start at byte 144.
  Request r = rowMajorRequest({8, 64}, TileLayout({Iter{8, 72, Axis::m},
                                                   Iter{64, 1, Axis::m}}),
                              16, TensorMapDataType::Float16);
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(),
            "a box starts at shared byte 144, not 128-byte aligned as TMA "
            "requires");
}

TEST(TMAPlanner, UnalignedInnerBoxStartIsRefused) {
  // Regression (TileDeviceTests' unaligned-coordinate probe on an H200): a
  // box starting at column 3 of an f16 tensor (byte 6) was planned, and the
  // tensor copy faulted with CUDA_ERROR_ILLEGAL_INSTRUCTION.
  Request r = rowMajorRequest({64, 256}, TileLayout(), 16,
                              TensorMapDataType::Float16);
  r.global.offsets = {0, 3};
  r.shared = SharedSide{TileLayout::rowMajor({8, 64}), {8, 64}, {0, 0}};
  r.sizes = {8, 64};
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "a box starts at element 3 of the contiguous global "
                        "dim (byte 6), not a multiple of 16 bytes as "
                        "cp.async.bulk.tensor requires");
  // Column 8 (byte 16) is fine; so is row 3, which is not the contiguous dim.
  r.global.offsets = {3, 8};
  planOk(r);
  // int8: byte = element; 24 is not a multiple of 16.
  Request i8 = rowMajorRequest({64, 256}, TileLayout(), 8,
                               TensorMapDataType::UInt8);
  i8.global.offsets = {0, 24};
  i8.shared = SharedSide{TileLayout::rowMajor({8, 64}), {8, 64}, {0, 0}};
  i8.sizes = {8, 64};
  EXPECT_FALSE(bool(planTensorCopy(i8)));
}

TEST(TMAPlanner, SwizzledBoxMustStartOnThePatternPeriod) {
  // Rows 1..8 of a 16x64 f16 tile under the 128-byte swizzle: the box would
  // start at shared byte 128, 128-byte aligned but inside the 1024-byte
  // pattern, whose rows TMA would swizzle as if it started a period.
  Request r = rowMajorRequest({16, 64}, nvmma(16, 16, 64, SwizzleMode::B128),
                              16, TensorMapDataType::Float16);
  r.shared.offsets = {1, 0};
  r.sizes = {8, 64};
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "a box starts at shared byte 128, not 1024-byte "
                        "aligned as its swizzle pattern requires");
  // Rows 8..15 start the second period.
  r.shared.offsets = {8, 0};
  planOk(r);
}

TEST(TMAPlanner, UnitDimWithUnitStrideIsNotMapDimZero) {
  // A unit dim's stride is arbitrary; given as 1 it is "contiguous" too, but
  // map dim 0 must be the dim contiguous in shared memory (the 64 columns).
  Request r = rowMajorRequest({1, 64}, TileLayout::rowMajor({1, 64}), 16,
                              TensorMapDataType::Float16);
  r.global.strides = {1, 1};
  Plan p = planOk(r);
  ASSERT_GE(args(p).size(), 2u);
  EXPECT_EQ(args(p)[1], 64);
}

TEST(TMAPlanner, NarrowSwizzledRowsAreRefused) {
  // 32 f16 columns (64 bytes) under a 128-byte swizzle.
  TileLayout narrow({Iter{8, 32, Axis::m}, Iter{32, 1, Axis::m}}, {}, {},
                    nvmmaSwizzle(SwizzleMode::B128, 16));
  Request r = rowMajorRequest({8, 32}, narrow, 16, TensorMapDataType::Float16);
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "boxDim[0] * elementSize = 64 bytes is narrower than "
                        "the 128-byte rows of the 128B-swizzled shared tile");
}

TEST(TMAPlanner, SubByteElementsAreRefused) {
  Request r = rowMajorRequest({8, 256}, TileLayout::rowMajor({8, 256}), 4,
                              TensorMapDataType::UInt8);
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "4-bit elements need the packed tensor-map types, "
                        "which the planner does not use");
}

TEST(TMAPlanner, CheckerCatchesAWrongPlan) {
  // The checker must be able to fail: a box landing one swizzle atom off,
  // and a second issue over the same box.
  Request r = rowMajorRequest({8, 256}, nvmma(16, 8, 256, SwizzleMode::B128),
                              16, TensorMapDataType::Float16);
  OrReason<Plan> p = planTensorCopy(r);
  ASSERT_TRUE(p);
  Plan off = *p;
  off.issues[0].sharedByte += 1024;
  EXPECT_EQ(plan_check::checkTma(r, off).failure.value_or(""),
            "element (0, 0) byte 0: the shared layout puts it at shared byte "
            "4096, issue 0 moves it to shared byte 5120");
  Plan twice = *p;
  twice.issues.push_back(twice.issues[0]);
  EXPECT_EQ(plan_check::checkTma(r, twice).failure.value_or(""),
            "issues 0 and 1 both move shared byte 4096");
}

} // namespace

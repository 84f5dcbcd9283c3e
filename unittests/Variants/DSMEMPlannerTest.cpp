//===- DSMEMPlannerTest.cpp - the dsmem copy_async planner ------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/DSMEMPlanner.h"

#include "gtest/gtest.h"

#include <map>

using namespace tile;
using namespace tile::dsmem;

namespace {

RegionSide whole(TileLayout layout, llvm::SmallVector<int64_t, 4> shape) {
  return RegionSide{std::move(layout), shape,
                    llvm::SmallVector<int64_t, 4>(shape.size(), 0)};
}

TileLayout strided(int64_t rows, int64_t cols, int64_t rowStride) {
  return TileLayout({Iter{rows, rowStride, Axis::m}, Iter{cols, 1, Axis::m}});
}

/// Independent check: executing the plan byte by byte moves every region
/// element from its source byte to its destination byte.
void expectPlanMovesRegion(const Plan &plan, const RegionSide &src,
                           const RegionSide &dst,
                           llvm::ArrayRef<int64_t> sizes, unsigned bits) {
  std::map<int64_t, int64_t> moved; // src byte -> dst byte
  for (const BulkCopy &c : plan.copies)
    for (int64_t b = 0; b < c.bytes; ++b)
      ASSERT_TRUE(moved.emplace(c.srcByte + b, c.dstByte + b).second);
  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  EXPECT_EQ(static_cast<int64_t>(moved.size()), count * bits / 8);
  llvm::SmallVector<int64_t> coord(sizes.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    llvm::SmallVector<int64_t> sc(coord), dc(coord);
    for (size_t d = 0; d < coord.size(); ++d) {
      sc[d] += src.offsets[d];
      dc[d] += dst.offsets[d];
    }
    int64_t s = at(src.layout.apply(sc, src.shape), Axis::m) * bits / 8;
    int64_t d = at(dst.layout.apply(dc, dst.shape), Axis::m) * bits / 8;
    ASSERT_EQ(moved.at(s), d) << "element " << i;
    for (size_t k = coord.size(); k-- > 0;) {
      if (++coord[k] < sizes[k])
        break;
      coord[k] = 0;
    }
  }
}

TEST(DSMEMPlanner, ContiguousTileIsOneCopy) {
  RegionSide s = whole(TileLayout::rowMajor({128, 64}), {128, 64});
  OrReason<Plan> p = planClusterCopy(s, s, {128, 64}, 16);
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->copies.size(), 1u);
  EXPECT_EQ(p->copies[0], (BulkCopy{0, 0, 16384}));
  EXPECT_EQ(p->totalBytes, 16384);
}

TEST(DSMEMPlanner, OneDimensionalIsOneCopy) {
  RegionSide s = whole(TileLayout::rowMajor({256}), {256});
  OrReason<Plan> p = planClusterCopy(s, s, {256}, 16);
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->copies.size(), 1u);
  EXPECT_EQ(p->copies[0], (BulkCopy{0, 0, 512}));
}

TEST(DSMEMPlanner, PaddedRowsAreOneCopyPerRow) {
  RegionSide s = whole(strided(8, 128, 256), {8, 128});
  OrReason<Plan> p = planClusterCopy(s, s, {8, 128}, 16);
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->copies.size(), 8u);
  for (int64_t r = 0; r < 8; ++r)
    EXPECT_EQ(p->copies[r], (BulkCopy{r * 512, r * 512, 256}));
  expectPlanMovesRegion(*p, s, s, {8, 128}, 16);
}

TEST(DSMEMPlanner, DifferentRowStridesOnEachSide) {
  RegionSide s = whole(strided(8, 128, 256), {8, 128});
  RegionSide d = whole(strided(8, 128, 512), {8, 128});
  OrReason<Plan> p = planClusterCopy(s, d, {8, 128}, 16);
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->copies.size(), 8u);
  for (int64_t r = 0; r < 8; ++r)
    EXPECT_EQ(p->copies[r], (BulkCopy{r * 512, r * 1024, 256}));
  expectPlanMovesRegion(*p, s, d, {8, 128}, 16);
}

TEST(DSMEMPlanner, RowMajorToColumnMajorDeclines) {
  RegionSide s = whole(TileLayout::rowMajor({4, 64}), {4, 64});
  RegionSide d = whole(TileLayout({Iter{4, 1, Axis::m}, Iter{64, 4, Axis::m}}),
                       {4, 64});
  OrReason<Plan> p = planClusterCopy(s, d, {4, 64}, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(),
            "the contiguous run at source byte 0 is 2 bytes "
            "(destination byte 0), not a multiple of 16 bytes; "
            "cp.async.bulk copies 16-byte multiples");
}

TEST(DSMEMPlanner, TwelveByteChunkDeclines) {
  // f32 rows of 3 elements padded to 4: runs of 12 bytes.
  RegionSide s = whole(strided(4, 3, 4), {4, 3});
  OrReason<Plan> p = planClusterCopy(s, s, {4, 3}, 32);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(),
            "the contiguous run at source byte 0 is 12 bytes "
            "(destination byte 0), not a multiple of 16 bytes; "
            "cp.async.bulk copies 16-byte multiples");
}

TEST(DSMEMPlanner, EightByteAndTwentyFourByteRunsDecline) {
  // f16 rows of 4 (8 bytes) or 12 (24 bytes) elements, padded.
  RegionSide s8 = whole(strided(4, 4, 8), {4, 4});
  OrReason<Plan> p = planClusterCopy(s8, s8, {4, 4}, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "the contiguous run at source byte 0 is 8 bytes "
                        "(destination byte 0), not a multiple of 16 bytes; "
                        "cp.async.bulk copies 16-byte multiples");
  RegionSide s24 = whole(strided(4, 12, 16), {4, 12});
  p = planClusterCopy(s24, s24, {4, 12}, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "the contiguous run at source byte 0 is 24 bytes "
                        "(destination byte 0), not a multiple of 16 bytes; "
                        "cp.async.bulk copies 16-byte multiples");
}

TEST(DSMEMPlanner, MisalignedDestinationAloneDeclines) {
  // An aligned source row of 8 f16; the destination starts at element 4 of
  // its row (byte 8).
  RegionSide s = whole(TileLayout::rowMajor({1, 8}), {1, 8});
  RegionSide d{strided(1, 16, 16), {1, 16}, {0, 4}};
  OrReason<Plan> p = planClusterCopy(s, d, {1, 8}, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "a contiguous run starts at source 0 bytes / "
                        "destination 8 bytes; cp.async.bulk needs 16-byte "
                        "aligned addresses");
}

TEST(DSMEMPlanner, DestinationWritingOneAddressTwiceDeclines) {
  // Two bytes, both sent to destination element 0.
  RegionSide s = whole(TileLayout({Iter{2, 1, Axis::m}}), {2});
  RegionSide d = whole(TileLayout({Iter{2, 0, Axis::m}}), {2});
  OrReason<Plan> p = planClusterCopy(s, d, {2}, 8);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "destination layout maps two region elements to "
                        "element address 0");
}

TEST(DSMEMPlanner, LimitsAreInclusive) {
  // Exactly 1024 copies: 1024 padded rows of 16 bytes.
  RegionSide rows = whole(strided(1024, 8, 16), {1024, 8});
  RegionSide packed = whole(TileLayout::rowMajor({1024, 8}), {1024, 8});
  OrReason<Plan> p = planClusterCopy(rows, packed, {1024, 8}, 16);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_EQ(p->copies.size(), 1024u);
  RegionSide more = whole(strided(1025, 8, 16), {1025, 8});
  RegionSide morePacked = whole(TileLayout::rowMajor({1025, 8}), {1025, 8});
  p = planClusterCopy(more, morePacked, {1025, 8}, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "the region needs 1025 bulk copies; the planner "
                        "emits at most 1024");
  // Exactly 2^20 elements (fp4: 512 KiB, under the transaction limit).
  RegionSide big = whole(TileLayout::rowMajor({1024, 1024}), {1024, 1024});
  p = planClusterCopy(big, big, {1024, 1024}, 4);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_EQ(p->totalBytes, 1 << 19);
}

TEST(DSMEMPlanner, MisalignedRunDeclines) {
  // Rows of 16 bytes (8 f16) starting at element 4 (byte 8) of each row.
  RegionSide s{strided(2, 16, 16), {2, 16}, {0, 4}};
  RegionSide d = whole(TileLayout::rowMajor({2, 8}), {2, 8});
  OrReason<Plan> p = planClusterCopy(s, d, {2, 8}, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "a contiguous run starts at source 8 bytes / "
                        "destination 0 bytes; cp.async.bulk needs 16-byte "
                        "aligned addresses");
}

TEST(DSMEMPlanner, SubByteElementsAreCheckedInBits) {
  // fp4 rows of 32 elements (16 bytes) padded to 33: row 1 starts at bit
  // 132, half a byte past a 16-byte boundary. Truncating to bytes would
  // wrongly call that byte 16 and accept it.
  RegionSide s = whole(strided(2, 32, 33), {2, 32});
  RegionSide d = whole(TileLayout::rowMajor({2, 32}), {2, 32});
  OrReason<Plan> p = planClusterCopy(s, d, {2, 32}, 4);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "a contiguous run starts at source 132 bits / "
                        "destination 16 bytes; cp.async.bulk needs 16-byte "
                        "aligned addresses");
  // Aligned fp4 rows of 64 elements (32 bytes) are one copy each.
  RegionSide a = whole(strided(2, 64, 128), {2, 64});
  OrReason<Plan> q = planClusterCopy(a, a, {2, 64}, 4);
  ASSERT_TRUE(q) << q.reason();
  ASSERT_EQ(q->copies.size(), 2u);
  EXPECT_EQ(q->copies[1], (BulkCopy{64, 64, 32}));
  expectPlanMovesRegion(*q, a, a, {2, 64}, 4);
}

TEST(DSMEMPlanner, SubRegionWithOffsets) {
  // Rows 64..127 of a 128x64 f16 tile into rows 0..63 of another.
  RegionSide s{TileLayout::rowMajor({128, 64}), {128, 64}, {64, 0}};
  RegionSide d = whole(TileLayout::rowMajor({64, 64}), {64, 64});
  OrReason<Plan> p = planClusterCopy(s, d, {64, 64}, 16);
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->copies.size(), 1u);
  EXPECT_EQ(p->copies[0], (BulkCopy{8192, 0, 8192}));
}

TEST(DSMEMPlanner, IdenticalSwizzledLayoutsAreOneCopy) {
  // Same 128B-swizzled layout on both sides: bytes map to the same bytes.
  OrReason<TileLayout> sw = nvmmaSharedLayout(16, 64, 128, SwizzleMode::B128);
  ASSERT_TRUE(sw);
  RegionSide s = whole(*sw, {64, 128});
  OrReason<Plan> p = planClusterCopy(s, s, {64, 128}, 16);
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->copies.size(), 1u);
  EXPECT_EQ(p->copies[0], (BulkCopy{0, 0, 16384}));
  expectPlanMovesRegion(*p, s, s, {64, 128}, 16);
}

TEST(DSMEMPlanner, SwizzledToPlainUsesSixteenByteChunks) {
  OrReason<TileLayout> sw = nvmmaSharedLayout(16, 8, 64, SwizzleMode::B128);
  ASSERT_TRUE(sw);
  RegionSide s = whole(*sw, {8, 64});
  RegionSide d = whole(TileLayout::rowMajor({8, 64}), {8, 64});
  OrReason<Plan> p = planClusterCopy(s, d, {8, 64}, 16);
  ASSERT_TRUE(p) << p.reason();
  // Physical chunk p of row r holds logical chunk p ^ r; neighbours merge
  // when (p+1) ^ r == (p ^ r) + 1. Runs per row r = 0..7:
  // 1, 8, 4, 8, 2, 8, 4, 8 => 43 copies (row 0 is one 128-byte copy).
  EXPECT_EQ(p->copies.size(), 43u);
  EXPECT_EQ(p->copies[0], (BulkCopy{0, 0, 128}));
  expectPlanMovesRegion(*p, s, d, {8, 64}, 16);
}

TEST(DSMEMPlanner, RejectsNonMemoryAxes) {
  RegionSide s = whole(TileLayout({Iter{2, 1, Axis::cta}, Iter{64, 1, Axis::m}}),
                       {2, 64});
  OrReason<Plan> p = planClusterCopy(s, s, {2, 64}, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "source layout addresses axis 'cta'; a bulk copy "
                        "moves one CTA's shared memory");
}


//===----------------------------------------------------------------------===//
// groupIntoRuns: what the emitter turns into instructions and loops
//===----------------------------------------------------------------------===//

/// Expands runs back into copies: the independent check that grouping
/// neither loses nor invents a copy.
std::vector<BulkCopy> expand(llvm::ArrayRef<CopyRun> runs) {
  std::vector<BulkCopy> out;
  for (const CopyRun &r : runs)
    for (int64_t i = 0; i < r.count; ++i)
      out.push_back({r.first.srcByte + i * r.srcStride,
                     r.first.dstByte + i * r.dstStride, r.first.bytes});
  return out;
}

TEST(DSMEMRuns, SingleCopyIsOneRun) {
  llvm::SmallVector<CopyRun, 4> runs = groupIntoRuns({{0, 0, 16384}});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], (CopyRun{{0, 0, 16384}, 1, 0, 0}));
}

TEST(DSMEMRuns, PaddedRowsAreOneLoop) {
  RegionSide s = whole(strided(8, 128, 256), {8, 128});
  RegionSide d = whole(strided(8, 128, 512), {8, 128});
  OrReason<Plan> p = planClusterCopy(s, d, {8, 128}, 16);
  ASSERT_TRUE(p) << p.reason();
  llvm::SmallVector<CopyRun, 4> runs = groupIntoRuns(p->copies);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], (CopyRun{{0, 0, 256}, 8, 512, 1024}));
  EXPECT_EQ(expand(runs), std::vector<BulkCopy>(p->copies.begin(),
                                                p->copies.end()));
}

TEST(DSMEMRuns, BreaksOnSizeOrStrideChange) {
  std::vector<BulkCopy> copies = {{0, 0, 32},     {64, 128, 32},
                                  {128, 256, 32}, {160, 272, 32},
                                  {192, 288, 16}, {400, 400, 16}};
  llvm::SmallVector<CopyRun, 4> runs = groupIntoRuns(copies);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0], (CopyRun{{0, 0, 32}, 3, 64, 128}));
  EXPECT_EQ(runs[1], (CopyRun{{160, 272, 32}, 1, 0, 0}));
  EXPECT_EQ(runs[2], (CopyRun{{192, 288, 16}, 2, 208, 112}));
  EXPECT_EQ(expand(runs), copies);
}

TEST(DSMEMRuns, EmptyPlanHasNoRuns) {
  EXPECT_TRUE(groupIntoRuns({}).empty());
}

} // namespace

//===- Tcgen05CpPlannerTest.cpp - the tcgen05_cp copy_async planner
//---------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Descriptor fields and instruction lists are pinned for the warpx4
// broadcast of a 32x16 u8 tile (and its variations),
// every form and both cta_groups. Every plan is also run through the
// lowering checker: each instruction, as the emitter encodes it, goes
// through the PTX-semantics model of tcgen05.cp (descriptor rows, 16-byte
// chunks, the byte-level swizzle, the form's lanes and multicast) and the
// tensor-memory bytes it writes are compared with what the two layouts
// say, byte for byte.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/Tcgen05CpPlanner.h"

#include "PlannerTestUtil.h"

#include "gtest/gtest.h"

#include <map>

using namespace tile;
using namespace tile::tcgen05_cp;
using cuda::SmemSwizzle;

namespace {

using namespace tile::testing;

using Insts = std::vector<Instruction>;

TileLayout parse(std::initializer_list<Iter> shard,
                 std::initializer_list<Iter> replica = {},
                 std::initializer_list<AxisOffset> offsets = {},
                 Swizzle swizzle = {}) {
  return TileLayout(llvm::ArrayRef<Iter>(shard), llvm::ArrayRef<Iter>(replica),
                    llvm::ArrayRef<AxisOffset>(offsets), swizzle);
}

Request wholeTile(TileLayout shared, TileLayout tmem,
                  llvm::SmallVector<int64_t, 4> shape, unsigned bits) {
  Request r;
  r.elementBits = bits;
  r.shared = RegionSide{std::move(shared), shape,
                        llvm::SmallVector<int64_t, 4>(shape.size(), 0)};
  r.tmem = RegionSide{std::move(tmem), shape,
                      llvm::SmallVector<int64_t, 4>(shape.size(), 0)};
  r.sizes = shape;
  return r;
}

/// Plans `req` and checks the plan with the lowering checker.
Plan planAndCheck(const Request &req) {
  OrReason<Plan> plan = planSharedToTmemCopy(req);
  EXPECT_TRUE(plan) << plan.reason();
  if (!plan)
    return {};
  expectChecked(plan_check::checkTcgen05Cp(req, *plan), plan->form.name());
  return *plan;
}

std::string declineReason(const Request &req) {
  OrReason<Plan> plan = planSharedToTmemCopy(req);
  EXPECT_FALSE(plan) << "unexpectedly planned " << plan->form.name();
  return plan ? std::string() : plan.reason();
}

/// A 32-row uint8 tile (`shared` over `shape`) copied by
/// tcgen05.cp 32x128b.warpx4: broadcast to the four 32-lane sub-partitions
/// of `tmemCols` columns.
Request warpx4Broadcast(TileLayout shared, llvm::SmallVector<int64_t, 4> shape,
                        int64_t tmemCols) {
  Request r = wholeTile(std::move(shared),
                        parse({lane(32, 1), col(tmemCols, 1)}, {lane(4, 32)}),
                        shape, 8);
  r.tmem.shape = {32, tmemCols};
  return r;
}

//===----------------------------------------------------------------------===//
// The warpx4 broadcast of a 32x16 uint8 tile
//===----------------------------------------------------------------------===//

TEST(Tcgen05CpPlanner, Warpx4BroadcastOf32x16U8Tile) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  Plan p = planAndCheck(r);
  EXPECT_EQ(p.form.name(), "32x128b.warpx4");
  EXPECT_EQ(p.descriptor.swizzle, SmemSwizzle::None);
  EXPECT_EQ(p.descriptor.strideByteOffset, 128u); // 8 rows x 16 bytes
  EXPECT_EQ(p.descriptor.leadingByteOffset, 16u); // unused: one chunk a row
  EXPECT_FALSE(p.usesLeadingByteOffset);
  EXPECT_EQ(p.instructions, (Insts{{0, 0, 0}}));
  // The constant part of the descriptor: LBO 1, SBO 8, bit 46.
  EXPECT_EQ(p.descriptorTemplate(), 0x0000400800010000ull);
}

TEST(Tcgen05CpPlanner, Warpx4BroadcastOfSeveralMiddleTiles) {
  // 32x64 uint8: four 16-byte column groups, each its own core matrices.
  // Core-matrix layout: column group g at 512 g, row r at 16 r.
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(4, 512), mem(16, 1)}),
                              {32, 64}, 64);
  Plan p = planAndCheck(r);
  EXPECT_EQ(p.form.name(), "32x128b.warpx4");
  EXPECT_EQ(p.descriptor.strideByteOffset, 128u);
  EXPECT_EQ(p.instructions,
            (Insts{{0, 0, 0}, {0, 4, 512}, {0, 8, 1024}, {0, 12, 1536}}));
}

TEST(Tcgen05CpPlanner, Warpx4BroadcastOfSwizzledU8Tiles) {
  // 32 rows of W bytes of uint8 with a W-byte swizzle: W/16 instructions,
  // each starting 16 bytes further into the same swizzle rows.
  for (auto [mode, w, swz] : {std::tuple{SwizzleMode::B32, 32, SmemSwizzle::B32},
                              {SwizzleMode::B64, 64, SmemSwizzle::B64},
                              {SwizzleMode::B128, 128, SmemSwizzle::B128}}) {
    SCOPED_TRACE(w);
    Request r = warpx4Broadcast(nvmma(8, 32, w, mode), {32, w}, w);
    Plan p = planAndCheck(r);
    EXPECT_EQ(p.form.name(), "32x128b.warpx4");
    EXPECT_EQ(p.descriptor.swizzle, swz);
    EXPECT_EQ(p.descriptor.strideByteOffset, uint32_t(8 * w));
    Insts want;
    for (int64_t c = 0; c < w / 16; ++c)
      want.push_back({0, 4 * c, 16 * c});
    EXPECT_EQ(p.instructions, want);
  }
}

TEST(Tcgen05CpPlanner, Warpx4BroadcastOfTileStartingAtRow8) {
  // Rows 8..39 of a 64x16 uint8 tile: the descriptor starts 128 bytes in.
  Request r = warpx4Broadcast(parse({mem(64, 16), mem(16, 1)}), {32, 16}, 16);
  r.shared.shape = {64, 16};
  r.shared.offsets = {8, 0};
  Plan p = planAndCheck(r);
  EXPECT_EQ(p.instructions, (Insts{{0, 0, 128}}));
  // Swizzled: row 8 starts the second 128B atom (byte 1024).
  Request s =
      warpx4Broadcast(nvmma(8, 64, 128, SwizzleMode::B128), {32, 128}, 128);
  s.shared.shape = {64, 128};
  s.shared.offsets = {8, 0};
  Plan q = planAndCheck(s);
  ASSERT_EQ(q.instructions.size(), 8u);
  EXPECT_EQ(q.instructions[0], (Instruction{0, 0, 1024}));
  EXPECT_EQ(q.instructions[7], (Instruction{0, 28, 1024 + 112}));
}

//===----------------------------------------------------------------------===//
// Every form
//===----------------------------------------------------------------------===//

TEST(Tcgen05CpPlanner, Form128x256bAccumulatorFp32) {
  // 128x64 fp32, 128B swizzle, into a 128-lane accumulator: 8 instructions
  // of 8 columns; two atom columns (each 128 rows x 128 bytes = 16 KiB).
  Request r = wholeTile(nvmma(32, 128, 64, SwizzleMode::B128),
                        parse({lane(128, 1), col(64, 1)}), {128, 64}, 32);
  Plan p = planAndCheck(r);
  EXPECT_EQ(p.form.name(), "128x256b");
  EXPECT_EQ(p.descriptor.strideByteOffset, 1024u);
  EXPECT_EQ(p.descriptor.swizzle, SmemSwizzle::B128);
  EXPECT_EQ(p.instructions,
            (Insts{{0, 0, 0}, {0, 8, 32}, {0, 16, 64}, {0, 24, 96},
                   {0, 32, 16384}, {0, 40, 16416}, {0, 48, 16448},
                   {0, 56, 16480}}));
  EXPECT_EQ(p.descriptorTemplate(), 0x4000404000010000ull);
}

TEST(Tcgen05CpPlanner, Form128x256bNoSwizzleUsesLBO) {
  // Core matrices: 8 rows x 16 bytes; the second chunk of a row 2 KiB on.
  // fp32 128x8: row r chunk k at (r/8)*128 + (r%8)*16 + k*2048.
  Request r = wholeTile(
      parse({mem(16, 32), mem(8, 4), mem(2, 512), mem(4, 1)}),
      parse({lane(128, 1), col(8, 1)}), {128, 8}, 32);
  Plan p = planAndCheck(r);
  EXPECT_EQ(p.form.name(), "128x256b");
  EXPECT_TRUE(p.usesLeadingByteOffset);
  EXPECT_EQ(p.descriptor.leadingByteOffset, 2048u);
  EXPECT_EQ(p.descriptor.strideByteOffset, 128u);
  EXPECT_EQ(p.instructions, (Insts{{0, 0, 0}}));
}

TEST(Tcgen05CpPlanner, Form128x128bWhenRowsAreFourColumns) {
  // A tmem layout whose contiguous column runs are 4 columns (16 bytes):
  // columns 0-3 hold tile columns 0-3, columns 4-7 hold rows 128.. of an
  // M = 256 tile (Triton's TensorMemoryLayout block (128, 4)).
  Request r = wholeTile(nvmma(32, 256, 8, SwizzleMode::B32),
                        parse({col(2, 4), lane(128, 1), col(2, 8), col(4, 1)}),
                        {256, 8}, 32);
  Plan p = planAndCheck(r);
  EXPECT_EQ(p.form.name(), "128x128b");
  EXPECT_EQ(p.rejectedForms.size(), 1u);
  EXPECT_EQ(p.instructions,
            (Insts{{0, 0, 0}, {0, 4, 4096}, {0, 8, 16}, {0, 12, 4112}}));
}

TEST(Tcgen05CpPlanner, Form4x256bAfterTheWideFormsDecline) {
  // Tile row R = 4 l + q lives in lane 32 q + l (a scale-factor style
  // layout): no 128 consecutive rows, but four rows one core matrix apart
  // per lane group. Shared: unswizzled core matrices, 16-byte chunk k of
  // row R at (R / 8) * 128 + (R % 8) * 16 + 2048 k.
  Request r = wholeTile(
      parse({mem(16, 32), mem(8, 4), mem(2, 512), mem(4, 1)}),
      parse({lane(32, 1), lane(4, 32), col(8, 1)}), {128, 8}, 32);
  Plan p = planAndCheck(r);
  EXPECT_EQ(p.form.name(), "4x256b");
  ASSERT_EQ(p.rejectedForms.size(), 2u);
  EXPECT_EQ(p.rejectedForms[0].rfind("128x256b: row 1 is at shared byte +64",
                                     0),
            0u)
      << p.rejectedForms[0];
  EXPECT_EQ(p.descriptor.leadingByteOffset, 2048u);
  Insts want;
  for (int64_t l = 0; l < 32; ++l)
    want.push_back({l, 0, 64 * l});
  EXPECT_EQ(p.instructions, want);
}

TEST(Tcgen05CpPlanner, Form64x128bWarpx2Both) {
  // 02_13: rows 0..63 in lanes 0..63, replicated to 64..127.
  Request a = wholeTile(parse({mem(64, 4), mem(4, 1)}),
                        parse({lane(64, 1), col(4, 1)}, {lane(2, 64)}),
                        {64, 4}, 32);
  Plan p = planAndCheck(a);
  EXPECT_EQ(p.form.name(), "64x128b.warpx2::02_13");
  EXPECT_EQ(p.instructions, (Insts{{0, 0, 0}}));
  // 01_23: rows 0..31 -> lanes 0..31 (+32), rows 32..63 -> lanes 64..95 (+32).
  Request b = wholeTile(parse({mem(64, 4), mem(4, 1)}),
                        parse({lane(2, 64), lane(32, 1), col(4, 1)},
                              {lane(2, 32)}),
                        {64, 4}, 32);
  Plan q = planAndCheck(b);
  EXPECT_EQ(q.form.name(), "64x128b.warpx2::01_23");
  EXPECT_EQ(q.instructions, (Insts{{0, 0, 0}}));
}

TEST(Tcgen05CpPlanner, CtaGroupTwoAndSourceFormatsKeepThePlan) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  for (unsigned group : {1u, 2u})
    for (SourceFormat f : {SourceFormat::None, SourceFormat::B6x16P32,
                           SourceFormat::B4x16P64}) {
      r.ctaGroup = group;
      r.sourceFormat = f;
      Plan p = planAndCheck(r);
      EXPECT_EQ(p.ctaGroup, group);
      EXPECT_EQ(p.sourceFormat, f);
      EXPECT_EQ(p.instructions, (Insts{{0, 0, 0}}));
    }
  r.ctaGroup = 3;
  EXPECT_EQ(declineReason(r), "cta_group 3 (1 or 2)");
}

//===----------------------------------------------------------------------===//
// Rejections
//===----------------------------------------------------------------------===//

TEST(Tcgen05CpPlanner, RejectsSwizzledRowWhoseSecondChunkIsNotNext) {
  // 128 rows of 8 fp32 in 128B-swizzled rows, columns 4..7 32 bytes after
  // columns 0..3: a swizzled 256-bit row must be two adjacent chunks.
  TileLayout gap(llvm::ArrayRef<Iter>{mem(128, 32), mem(2, 8), mem(4, 1)}, {},
                 {}, nvmmaSwizzle(SwizzleMode::B128, 32));
  Request r = wholeTile(gap, parse({lane(128, 1), col(8, 1)}), {128, 8}, 32);
  // Two 128x128b copies per row pair are fine; the 256-bit form is not.
  planAndCheck(r);
  r.forcedShape = Shape::S128x256b;
  std::string why = declineReason(r);
  EXPECT_NE(why.find("the second 16-byte chunk of a row is at shared byte "
                     "+32; in a 128B-swizzled row it follows at +16"),
            std::string::npos)
      << why;
}

TEST(Tcgen05CpPlanner, RejectsSwizzledTileStartingMidAtom) {
  Request r =
      warpx4Broadcast(nvmma(8, 64, 128, SwizzleMode::B128), {32, 128}, 128);
  r.shared.shape = {64, 128};
  r.shared.offsets = {4, 0};
  EXPECT_EQ(declineReason(r),
            "32x128b.warpx4: "
            "shared start byte 512 is row 4 of a 128-byte swizzle atom: a "
            "swizzled tile must start at an atom's first row");
}

TEST(Tcgen05CpPlanner, RejectsSBONotSixteenByteAligned) {
  // Rows 16 bytes apart inside a core matrix, core matrices 136 bytes apart.
  Request r = warpx4Broadcast(parse({mem(4, 136), mem(8, 16), mem(16, 1)}),
                              {32, 16}, 16);
  EXPECT_EQ(declineReason(r), "32x128b.warpx4: "
            "SBO = 136 bytes (rows 0 -> 8) is not 16-byte "
                              "aligned");
}

TEST(Tcgen05CpPlanner, RejectsUnalignedTmemColumn) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  r.tmem.layout = parse({lane(32, 1), col(16, 1)}, {lane(4, 32)},
                        {AxisOffset{Axis::TCol, 8}});
  EXPECT_EQ(declineReason(r), "32x128b.warpx4: "
            "tensor-memory column offset 8 column bytes is "
                              "not 128-bit aligned (a multiple of 4 columns)");
}

TEST(Tcgen05CpPlanner, RejectsMoreThan128Lanes) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  r.tmem.layout = parse({lane(32, 1), col(16, 1)}, {lane(4, 32)},
                        {AxisOffset{Axis::TLane, 8}});
  EXPECT_EQ(declineReason(r), "32x128b.warpx4: "
            "an instruction at lane 8 writes lanes up to "
                              "135: more than tensor memory's 128 lanes");
  // One lane too far is as bad as eight: from lane 1, lane 128 is written.
  r.tmem.layout = parse({lane(32, 1), col(16, 1)}, {lane(4, 32)},
                        {AxisOffset{Axis::TLane, 1}});
  EXPECT_EQ(declineReason(r), "32x128b.warpx4: "
                              "an instruction at lane 1 writes lanes up to "
                              "128: more than tensor memory's 128 lanes");
}

TEST(Tcgen05CpPlanner, RejectsReplicaMatchingNoForm) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  r.tmem.layout = parse({lane(32, 1), col(16, 1)}, {lane(3, 32)});
  EXPECT_EQ(declineReason(r),
            "tensor-memory replica R[3:32@TLane] matches no tcgen05.cp "
            "multicast (none; R[2:64@TLane] warpx2::02_13; R[2:32@TLane] "
            "warpx2::01_23; R[4:32@TLane] warpx4)");
}

TEST(Tcgen05CpPlanner, RejectsForcedShapeAgainstReplica) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  r.forcedShape = Shape::S128x128b;
  EXPECT_EQ(declineReason(r), "cp_shape 128x128b does not fit the "
                              "tensor-memory replica: the destination's "
                              "multicast is 32x128b.warpx4");
}

TEST(Tcgen05CpPlanner, StatedMulticastIsCheckedAgainstTheReplica) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  r.statedMulticast = Multicast::Warpx4;
  EXPECT_EQ(planAndCheck(r).form.name(), "32x128b.warpx4");
  r.statedMulticast = Multicast::Warpx2_02_13;
  EXPECT_EQ(declineReason(r),
            "cp_multicast warpx2::02_13 disagrees with the destination: its "
            "replica R[4:32@TLane] is multicast warpx4");
  r.statedMulticast = Multicast::None;
  EXPECT_EQ(declineReason(r),
            "cp_multicast none disagrees with the destination: its replica "
            "R[4:32@TLane] is multicast warpx4");
  // A stated warpx2::01_23 on a tile without a replica.
  Request plain = wholeTile(parse({mem(128, 16), mem(16, 1)}),
                            parse({lane(128, 1), col(16, 1)}), {128, 16}, 8);
  plain.statedMulticast = Multicast::Warpx2_01_23;
  EXPECT_EQ(declineReason(plain),
            "cp_multicast warpx2::01_23 disagrees with the destination: it "
            "has no replica (no multicast)");
}

TEST(Tcgen05CpPlanner, RejectsRowMajorRowsWiderThanACoreMatrix) {
  // Plain row-major fp32 128x8 without swizzle: rows 32 bytes apart, but an
  // unswizzled descriptor walks 16-byte core-matrix rows.
  Request r = wholeTile(parse({mem(128, 8), mem(8, 1)}),
                        parse({lane(128, 1), col(8, 1)}), {128, 8}, 32);
  std::string why = declineReason(r);
  EXPECT_NE(why.find("128x256b: row 1 is at shared byte +32; the descriptor "
                     "walk (no swizzle: rows 16 bytes apart"),
            std::string::npos)
      << why;
}

TEST(Tcgen05CpPlanner, RejectsSubByteWithoutContainers) {
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  r.elementBits = 4;
  EXPECT_NE(declineReason(r).find("tcgen05.cp plans whole bytes"),
            std::string::npos);
  r.elementBits = 16;
  r.sourceFormat = SourceFormat::B4x16P64;
  EXPECT_EQ(declineReason(r), "src_format b4x16_p64 decompresses into 8-bit "
                              "containers; the tiles have 16-bit elements");
}

TEST(Tcgen05CpPlanner, CheckerCatchesACorruptedPlan) {
  // The checker must be able to fail: SBO 144 instead of 128 moves rows
  // 8.. of the warpx4 broadcast; a second instruction on the same columns
  // writes them twice; a column 4 further leaves the region unwritten.
  Request r = warpx4Broadcast(parse({mem(32, 16), mem(16, 1)}), {32, 16}, 16);
  OrReason<Plan> plan = planSharedToTmemCopy(r);
  ASSERT_TRUE(plan);
  Plan sbo = *plan;
  sbo.descriptor.strideByteOffset = 144;
  EXPECT_EQ(plan_check::checkTcgen05Cp(r, sbo).failure.value_or(""),
            "element (8, 0): tensor-memory lane 8, column byte 0 should "
            "receive shared byte 4224 (the shared layout); instruction 0 "
            "delivers shared byte 4240");
  Plan twice = *plan;
  twice.instructions.push_back(twice.instructions[0]);
  EXPECT_EQ(plan_check::checkTcgen05Cp(r, twice).failure.value_or(""),
            "instruction 1 writes tensor-memory lane 0, column byte 0 a "
            "second time");
  Plan moved = *plan;
  moved.instructions[0].column = 4;
  EXPECT_EQ(plan_check::checkTcgen05Cp(r, moved).failure.value_or(""),
            "element (0, 0): tensor-memory lane 0, column byte 0 is never "
            "written");
}

//===----------------------------------------------------------------------===//
// The Gluon tutorial's tcgen05_copy configuration matrix
//===----------------------------------------------------------------------===//

/// Triton's TensorMemoryLayout(block = (128, bn)) for an (M, N) fp32 tile:
/// blocks of 128 lanes x bn columns, placed along M first, then N.
TileLayout tritonTmemLayout(int64_t m, int64_t n, int64_t bn) {
  return parse({col(m / 128, bn), lane(128, 1), col(n / bn, (m / 128) * bn),
                col(bn, 1)});
}

TEST(Tcgen05CpPlanner, Tcgen05CopyTutorialMatrix) {
  int expectedPlanned = 0, beyondTutorial = 0, declinedAsTutorial = 0,
      noSharedLayout = 0;
  for (int64_t bn : {1, 2, 4, 8, 16, 32, 64, 128, 256})
    for (int64_t m : {128, 256})
      for (int64_t n : {16, 32, 64, 128, 256}) {
        if (n < bn || m * n * 4 > 228 * 1024)
          continue;
        for (auto [mode, sw] : {std::pair{SwizzleMode::B32, 32},
                                {SwizzleMode::B64, 64},
                                {SwizzleMode::B128, 128}}) {
          SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) +
                       " bn=" + std::to_string(bn) +
                       " swizzle=" + std::to_string(sw));
          if (n < sw / 4) {
            // The tutorial skips it too: no NVMMA layout that narrow.
            EXPECT_FALSE(nvmmaSharedLayout(32, m, n, mode));
            ++noSharedLayout;
            continue;
          }
          Request r = wholeTile(nvmma(32, m, n, mode),
                                tritonTmemLayout(m, n, bn), {m, n}, 32);
          bool tutorialSkips = m == 256 && sw / bn >= 8;
          if (!tutorialSkips) {
            Plan p = planAndCheck(r);
            EXPECT_EQ(p.form.name(), bn >= 8 || m == 128 ? "128x256b"
                                                          : "128x128b");
            ++expectedPlanned;
          } else if (bn >= 4) {
            // A 128-bit column run exists: planned (the tutorial's Triton
            // has no codegen for it; see docs/Tcgen05Copy.md).
            planAndCheck(r);
            ++beyondTutorial;
          } else {
            // Four consecutive columns hold rows r and r + 128
            // alternately: no 16-byte shared chunk feeds them.
            EXPECT_NE(declineReason(r).find(
                          "128x128b: a row's 16 column bytes come from "
                          "shared bytes that are not one contiguous chunk"),
                      std::string::npos);
            ++declinedAsTutorial;
          }
        }
      }
  // 61 (M, N, bn) x 3 swizzles = 183 configurations.
  EXPECT_EQ(expectedPlanned, 130);
  EXPECT_EQ(beyondTutorial, 21);
  EXPECT_EQ(declinedAsTutorial, 22);
  EXPECT_EQ(noSharedLayout, 10);
  std::printf("tcgen05_copy tutorial matrix: %d configurations the tutorial "
              "runs planned "
              "and simulated; %d it skips planned (128-bit column runs "
              "exist); %d it skips declined (tmem blocks < 128 bits); %d "
              "without an NVMMA layout (N < swizzle / 4)\n",
              expectedPlanned, beyondTutorial, declinedAsTutorial,
              noSharedLayout);
}

} // namespace

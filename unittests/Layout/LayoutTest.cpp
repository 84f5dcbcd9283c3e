//===- LayoutTest.cpp - pinned results of each layout operation ------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/Layout.h"

#include "gtest/gtest.h"

using namespace tile;

namespace {

Iter m(int64_t e, int64_t s) { return Iter{e, s, Axis::m}; }
Iter on(Axis a, int64_t e, int64_t s) { return Iter{e, s, a}; }

TEST(Axis, NamesRoundTrip) {
  for (unsigned a = 0; a < kNumAxes; ++a) {
    Axis axis = static_cast<Axis>(a);
    EXPECT_EQ(axisFromName(axisName(axis)), axis);
  }
  EXPECT_FALSE(axisFromName("lane"));
  EXPECT_TRUE(isThreadAxis(Axis::laneid));
  EXPECT_FALSE(isThreadAxis(Axis::TLane));
  EXPECT_TRUE(isTensorMemoryAxis(Axis::TCol));
}

TEST(Layout, ToStringUsesLayoutNotation) {
  EXPECT_EQ(TileLayout({m(32, 16), m(16, 1)}).toString(), "S[(32,16):(16,1)]");
  EXPECT_EQ(TileLayout({on(Axis::TLane, 32, 1), on(Axis::TCol, 16, 1)},
                       {on(Axis::TLane, 4, 32)})
                .toString(),
            "S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]");
  EXPECT_EQ(TileLayout({m(256, 1)}, {}, {AxisOffset{Axis::m, 8},
                                         AxisOffset{Axis::TCol, 4}},
                       Swizzle{3, 3, 3})
                .toString(),
            "S[256:1] + 8 + 4@TCol, swizzle<3,3,3>");
}

TEST(Layout, ValidateNamesTheProblem) {
  EXPECT_EQ(TileLayout({m(4, 1)}).validate(), "");
  EXPECT_EQ(TileLayout({m(0, 1)}).validate(),
            "shard iter 0 has extent 0; extents must be >= 1");
  EXPECT_EQ(TileLayout({m(4, 1)}, {m(2, -3)}).validate(),
            "replica iter 0 has stride -3; strides must be >= 0");
  EXPECT_EQ(TileLayout({m(4, 1)}, {}, {}, Swizzle{3, 3, 2}).validate(),
            "swizzle<3,3,2> is out of range: need 1 <= B <= 8, B <= S <= 16, "
            "M <= 16");
  // Magnitude limits keep sizes and spans inside int64.
  EXPECT_EQ(TileLayout({m((int64_t(1) << 32) + 1, 1)}).validate(),
            "shard iter 0 has extent 4294967297; extents must be <= 2^32");
  EXPECT_EQ(TileLayout({m(1 << 20, 1), m(1 << 20, 1), m(1 << 20, 1)})
                .validate(),
            "shard extents multiply to more than 2^48");
  EXPECT_EQ(TileLayout({m(1 << 20, int64_t(1) << 30)}).validate(),
            "shard iter 0 (1048576:1073741824) reaches beyond address 2^48");
  EXPECT_EQ(TileLayout({m(4, 1)}, {}, {AxisOffset{Axis::TCol, -1}}).validate(),
            "offset -1@TCol is outside [0, 2^48]");
}

TEST(Layout, SizeSpanCosize) {
  TileLayout l({m(8, 64), m(4, 512), m(64, 1)}, {}, {AxisOffset{Axis::m, 3}});
  EXPECT_EQ(l.size(), 2048);
  EXPECT_EQ(l.span(Axis::m), 1 + 7 * 64 + 3 * 512 + 63);
  EXPECT_EQ(l.cosize(Axis::m), 3 + 2048);
  TileLayout t({on(Axis::TLane, 32, 1), on(Axis::TCol, 16, 1)},
               {on(Axis::TLane, 4, 32)});
  EXPECT_EQ(t.size(), 512);
  EXPECT_EQ(t.replicaCount(), 4);
  EXPECT_EQ(t.cosize(Axis::TLane), 128);
  EXPECT_EQ(t.cosize(Axis::TCol), 16);
  EXPECT_EQ(t.cosize(Axis::m), 1);
  // A swizzle permutes inside its period: the cosize rounds up to it.
  TileLayout sw({m(4, 64), m(64, 1)}, {}, {}, Swizzle{3, 3, 3});
  EXPECT_EQ(sw.cosize(Axis::m), 512);
}

TEST(Layout, ApplyWithReplicaAndOffset) {
  TileLayout l({on(Axis::TLane, 32, 1), on(Axis::TCol, 16, 1)},
               {on(Axis::TLane, 4, 32)}, {AxisOffset{Axis::TCol, 256}});
  AxisAddress a = l.apply({5, 7}, {32, 16}, /*replica=*/3);
  EXPECT_EQ(at(a, Axis::TLane), 5 + 96);
  EXPECT_EQ(at(a, Axis::TCol), 256 + 7);
  EXPECT_EQ(at(a, Axis::m), 0);
}

TEST(Layout, CanonicalizeDropsUnitsAndFuses) {
  TileLayout l({m(1, 99), m(4, 8), m(2, 4), m(4, 1), on(Axis::laneid, 1, 3)},
               {on(Axis::TLane, 1, 5)},
               {AxisOffset{Axis::m, 2}, AxisOffset{Axis::m, 3},
                AxisOffset{Axis::TCol, 0}});
  TileLayout c = l.canonicalize();
  EXPECT_EQ(c.toString(), "S[32:1] + 5");
  // (4:8),(2:5) cannot fuse: 8 != 2*5.
  EXPECT_EQ(TileLayout({m(4, 8), m(2, 5)}).canonicalize().toString(),
            "S[(4,2):(8,5)]");
  // Different axes never fuse.
  EXPECT_EQ(TileLayout({on(Axis::TLane, 2, 16), on(Axis::TCol, 16, 1)})
                .canonicalize()
                .toString(),
            "S[(2,16):(16@TLane,1@TCol)]");
}

TEST(Layout, GroupSplitsIters) {
  // 256 contiguous elements grouped as 8 x 32 splits the one iter in two.
  OrReason<GroupedLayout> g = TileLayout({m(256, 1)}).group({8, 32});
  ASSERT_TRUE(g) << g.reason();
  EXPECT_EQ(g->rank(), 2u);
  EXPECT_EQ(g->group(0).vec(), std::vector<Iter>({m(8, 32)}));
  EXPECT_EQ(g->group(1).vec(), std::vector<Iter>({m(32, 1)}));
  // The swizzled 8x256 f16 tile: dim 1 is (4 atoms, 64 elements).
  OrReason<GroupedLayout> s =
      TileLayout({m(8, 64), m(4, 512), m(64, 1)}).group({8, 256});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->group(0).size(), 1u);
  EXPECT_EQ(s->group(1).vec(), std::vector<Iter>({m(4, 512), m(64, 1)}));
}

TEST(Layout, GroupFailsWithReason) {
  OrReason<GroupedLayout> g = TileLayout({m(6, 4), m(4, 1)}).group({4, 6});
  ASSERT_FALSE(g);
  EXPECT_EQ(g.reason(),
            "shard iter of extent 4 straddles dim 1 of shape (4,6)");
  OrReason<GroupedLayout> big =
      TileLayout({m(6, 1)}).group({int64_t(1) << 40, int64_t(1) << 40});
  ASSERT_FALSE(big);
  EXPECT_EQ(big.reason(),
            "shape (1099511627776,1099511627776) has more than 2^48 elements");
  OrReason<GroupedLayout> n = TileLayout({m(6, 1)}).group({4, 2});
  ASSERT_FALSE(n);
  EXPECT_EQ(n.reason(), "layout has 6 elements but shape (4,2) has 8");
}

TEST(Layout, SliceRowBlockOfSwizzledTile) {
  // Rows 8..15 and the second 64-column atom of a 16x128 f16 SW128 tile.
  OrReason<TileLayout> l =
      nvmmaSharedLayout(16, 16, 128, SwizzleMode::B128);
  ASSERT_TRUE(l);
  OrReason<SliceResult> s = l->slice({16, 128}, {8, 64}, {8, 64});
  ASSERT_TRUE(s) << s.reason();
  EXPECT_EQ(at(s->offset, Axis::m), 8 * 64 + 1 * 16 * 64);
  EXPECT_EQ(s->residual.toString(),
            "S[(8,64):(64,1)] + 1536, swizzle<3,3,3>");
}

TEST(Layout, SliceRejectsUnalignedAndWrappingRegions) {
  TileLayout l({m(4, 8), m(8, 1)});
  // Rows of 8 elements; a 16-element run starting mid-row is not affine.
  OrReason<SliceResult> a = TileLayout({m(4, 1), m(8, 4)}).slice({32}, {4}, {16});
  ASSERT_FALSE(a);
  EXPECT_EQ(a.reason(), "region [4, 20) of dim 0 is not aligned to its inner "
                        "iter of extent 8");
  OrReason<SliceResult> w = TileLayout({m(2, 1), m(8, 2)}).slice({16}, {6}, {4});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.reason(), "region [6, 10) of dim 0 wraps around an iter of "
                        "extent 8");
  OrReason<SliceResult> o = l.slice({4, 8}, {3, 0}, {2, 8});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.reason(), "region [3, 5) of dim 0 is outside [0, 4)");
}

TEST(Layout, SliceOfANonCanonicalSpelling) {
  // 64x32 u8 spelled (8,8,2,16):(128,16,1024,1): rows 8r+j at 128 r + 16 j
  // is row i at 16 i, so rows 4..36 are a plain row range, as they are for
  // the canonical spelling (64,2,16):(16,1024,1).
  TileLayout spelled({m(8, 128), m(8, 16), m(2, 1024), m(16, 1)});
  TileLayout canonical({m(64, 16), m(2, 1024), m(16, 1)});
  OrReason<SliceResult> a = spelled.slice({64, 32}, {4, 0}, {32, 32});
  OrReason<SliceResult> b = canonical.slice({64, 32}, {4, 0}, {32, 32});
  ASSERT_TRUE(a) << a.reason();
  ASSERT_TRUE(b) << b.reason();
  EXPECT_EQ(a->residual.toString(), "S[(32,2,16):(16,1024,1)] + 64");
  EXPECT_EQ(a->residual, b->residual);
}

TEST(Layout, PermuteDimsTransposes) {
  OrReason<TileLayout> t = TileLayout::rowMajor({4, 8}).permuteDims({4, 8}, {1, 0});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->toString(), "S[(8,4):(1,8)]");
  EXPECT_FALSE(TileLayout::rowMajor({4, 8}).permuteDims({4, 8}, {0, 0}));
}

TEST(Layout, DirectSumAndTile) {
  // 2x2 blocks of a 4x8 row-major tile, blocks placed column-major.
  TileLayout inner = TileLayout::rowMajor({4, 8});
  TileLayout outer({m(2, 32), m(2, 64)});
  OrReason<TileLayout> t = TileLayout::tile(outer, {2, 2}, inner, {4, 8});
  ASSERT_TRUE(t) << t.reason();
  EXPECT_EQ(t->toString(), "S[(2,4,2,8):(32,8,64,1)]");
  EXPECT_EQ(at(t->apply({5, 9}, {8, 16}), Axis::m), 32 + 8 + 64 + 1);

  OrReason<TileLayout> sum =
      TileLayout::directSum(TileLayout({on(Axis::warpid, 4, 1)}), inner);
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->toString(), "S[(4,4,8):(1@warpid,8,1)]");

  // A swizzled inner tile only composes with outer strides on its period.
  // A swizzled tile is whole 8-row atoms: 12 rows (a multiple of 4) or 4
  // rows are refused.
  EXPECT_FALSE(nvmmaSharedLayout(16, 12, 64, SwizzleMode::B128));
  EXPECT_FALSE(nvmmaSharedLayout(16, 4, 64, SwizzleMode::B64));
  OrReason<TileLayout> sw = nvmmaSharedLayout(16, 8, 64, SwizzleMode::B128);
  ASSERT_TRUE(sw);
  EXPECT_TRUE(TileLayout::directSum(TileLayout({m(2, 512)}), *sw));
  OrReason<TileLayout> bad = TileLayout::directSum(TileLayout({m(2, 64)}), *sw);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.reason(), "the outer layout's memory strides are not "
                          "multiples of the inner swizzle period 512");
}

TEST(Layout, TileTo) {
  OrReason<TileLayout> t = TileLayout::rowMajor({8, 8}).tileTo({8, 8}, {16, 24});
  ASSERT_TRUE(t) << t.reason();
  EXPECT_EQ(t->toString(), "S[(2,8,3,8):(192,8,64,1)]");
  OrReason<TileLayout> bad = TileLayout::rowMajor({8, 8}).tileTo({8, 8}, {12, 8});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.reason(),
            "target dim 0 (12) is not a multiple of the tile dim (8)");
}

TEST(Layout, ContiguousChain) {
  EXPECT_EQ(TileLayout::rowMajor({4, 8}).contiguousChain().elements, 32);
  ContiguousChain c = TileLayout({m(4, 100), m(8, 1)}).contiguousChain();
  EXPECT_EQ(c.elements, 8);
  EXPECT_EQ(c.iters, 1u);
  EXPECT_EQ(TileLayout({m(8, 2)}).contiguousChain().elements, 1);
  EXPECT_EQ(TileLayout({m(8, 1), on(Axis::laneid, 32, 1)})
                .contiguousChain()
                .elements,
            1);
}

TEST(Layout, StorageDropsThreadAxes) {
  // A register fragment: 8 values per thread, laneid owns rows.
  TileLayout frag({on(Axis::laneid, 32, 1), m(8, 1)},
                  {on(Axis::warpid, 4, 1)}, {AxisOffset{Axis::tx, 3}});
  EXPECT_EQ(frag.storage().toString(), "S[8:1]");
}

TEST(Builders, NvmmaSharedLayouts) {
  OrReason<TileLayout> sw128 = nvmmaSharedLayout(16, 8, 256, SwizzleMode::B128);
  ASSERT_TRUE(sw128);
  EXPECT_EQ(sw128->toString(), "S[(8,4,64):(64,512,1)], swizzle<3,3,3>");
  OrReason<TileLayout> sw32 = nvmmaSharedLayout(8, 32, 32, SwizzleMode::B32);
  ASSERT_TRUE(sw32);
  EXPECT_EQ(sw32->toString(), "S[(32,32):(32,1)], swizzle<1,4,3>");
  OrReason<TileLayout> none = nvmmaSharedLayout(32, 4, 4, SwizzleMode::None);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->toString(), "S[(4,4):(4,1)]");
  OrReason<TileLayout> bad = nvmmaSharedLayout(16, 8, 96, SwizzleMode::B128);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.reason(), "a 128B swizzle needs the contiguous dim (96) to be "
                          "a multiple of 64 elements");
}

TEST(Builders, NvmmaSwizzleClassification) {
  EXPECT_EQ(nvmmaSwizzle(SwizzleMode::B128, 16), (Swizzle{3, 3, 3}));
  EXPECT_EQ(nvmmaSwizzle(SwizzleMode::B64, 32), (Swizzle{2, 2, 3}));
  EXPECT_EQ(nvmmaSwizzle(SwizzleMode::B32, 8), (Swizzle{1, 4, 3}));
  EXPECT_EQ(classifyNvmmaSwizzle(Swizzle{3, 2, 3}, 32), SwizzleMode::B128);
  EXPECT_FALSE(classifyNvmmaSwizzle(Swizzle{3, 3, 3}, 32));
}

TEST(Builders, TensorMemoryLayouts) {
  OrReason<TileLayout> acc = tmemLaneLayout(128, 256);
  ASSERT_TRUE(acc);
  EXPECT_EQ(acc->toString(), "S[(128,256):(1@TLane,1@TCol)]");
  EXPECT_FALSE(tmemLaneLayout(256, 16));
  OrReason<TileLayout> bc = tmemWarpBroadcastLayout(16);
  ASSERT_TRUE(bc);
  EXPECT_EQ(bc->toString(), "S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]");
  OrReason<TileLayout> bc2 = tmemWarpBroadcastLayout(16, 2);
  ASSERT_TRUE(bc2);
  EXPECT_EQ(bc2->toString(), "S[(32,16):(1@TLane,1@TCol)] + R[2:64@TLane]");
}

TEST(LocalTiles, ThreadsAndRegisters) {
  // The wgmma m64n256 accumulator fragment: 128 threads, 128 registers.
  TileLayout fragment({Iter{4, 32, Axis::tid_in_wg}, Iter{2, 2, Axis::m},
                       Iter{8, 4, Axis::tid_in_wg}, Iter{32, 4, Axis::m},
                       Iter{4, 1, Axis::tid_in_wg}, Iter{2, 1, Axis::m}});
  OrReason<LocalThreads> t = localThreads(fragment);
  ASSERT_TRUE(t) << t.reason();
  EXPECT_EQ(t->threads, 128);
  EXPECT_EQ(t->registers, 128);
  // The same threads spelled as warps and lanes.
  TileLayout lanes({Iter{4, 1, Axis::wid_in_wg}, Iter{2, 2, Axis::m},
                    Iter{8, 4, Axis::laneid}, Iter{32, 4, Axis::m},
                    Iter{4, 1, Axis::laneid}, Iter{2, 1, Axis::m}});
  t = localThreads(lanes);
  ASSERT_TRUE(t) << t.reason();
  EXPECT_EQ(t->threads, 128);
  AxisAddress a = lanes.apply({17, 2}, {64, 256});
  EXPECT_EQ(threadInGroup(a), 37); // warp 1, q 1, r 1
  EXPECT_EQ(at(a, Axis::m), 0);
  // A warp's tile, and no thread axis at all.
  t = localThreads(TileLayout({Iter{32, 1, Axis::laneid}, Iter{4, 1, Axis::m}}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->threads, 32);
  t = localThreads(TileLayout({Iter{4, 1, Axis::m}}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->threads, 1);
  // A gap in the threads, a thread named twice, a CTA axis.
  EXPECT_FALSE(localThreads(
      TileLayout({Iter{64, 2, Axis::tid_in_wg}, Iter{2, 1, Axis::m}})));
  EXPECT_FALSE(localThreads(TileLayout(
      {Iter{128, 1, Axis::tid_in_wg}, Iter{2, 0, Axis::tid_in_wg}})));
  OrReason<LocalThreads> cta =
      localThreads(TileLayout({Iter{256, 1, Axis::tx}}));
  ASSERT_FALSE(cta);
  EXPECT_NE(cta.reason().find("uses axis tx"), std::string::npos);
}

} // namespace

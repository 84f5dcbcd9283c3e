//===- GemmChooserTest.cpp - the GEMM family's kernel choice ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tile::runtime::chooseGemm over a catalog written here in the generators'
// case-list schema: each rule of docs/Gemm.md ("The choice") on a problem
// where it decides, the K-part rule's normalisation, the cluster form's
// conditions, and malformed lists refused with a message naming them. No
// GPU: the clusters a GPU holds come from the test.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/GemmChooser.h"

#include "gtest/gtest.h"

using namespace tile::runtime;

namespace {

std::string tiles(llvm::StringRef name, int bn, int bk,
                  llvm::StringRef dtype = "bf16") {
  return "{\"kernel\": \"" + name.str() + "\", \"dtype\": \"" + dtype.str() +
         "\", \"out\": \"bf16\", \"b_mn\": false, "
         "\"bm\": 128, \"bn\": " +
         std::to_string(bn) + ", \"bk\": " + std::to_string(bk) +
         ", \"stages\": 4, \"block\": 384, \"copy\": \"tma\"}";
}

std::string split(llvm::StringRef name, int bm, bool swap, int cluster = 0,
                  bool streamK = false, int bn = 128,
                  llvm::StringRef dtype = "bf16", int bk = 64) {
  std::string s = "{\"kernel\": \"" + name.str() + "\", \"dtype\": \"" +
                  dtype.str() + "\", \"out\": \"bf16\", \"bm\": " +
                  std::to_string(bm) + ", \"bn\": " + std::to_string(bn) +
                  ", \"bk\": " + std::to_string(bk) +
                  ", \"stages\": 5, \"block\": 384, "
                  "\"swap_ab\": " +
                  (swap ? "true" : "false") +
                  ", \"stream_k\": " + (streamK ? "true" : "false");
  if (cluster)
    s += ", \"cluster\": " + std::to_string(cluster) +
         ", \"parts\": " + std::to_string(cluster);
  return s + "}";
}

const char *kReducers =
    "\"reducers\": ["
    "{\"kernel\": \"reduce16\", \"out\": \"bf16\", \"rows\": 16, \"cols\": 128, "
    "\"stream_k\": false},"
    "{\"kernel\": \"reduce64\", \"out\": \"bf16\", \"rows\": 64, \"cols\": 128, "
    "\"stream_k\": false},"
    "{\"kernel\": \"sreduce16\", \"out\": \"bf16\", \"rows\": 16, \"cols\": 128, "
    "\"stream_k\": true}]";

std::string familyJson() {
  return "{\"kernels\": [" + tiles("t256x32", 256, 32) + "," +
         tiles("t256x64", 256, 64) + "," + tiles("t192", 192, 64) + "," +
         tiles("t128", 128, 64) + "," + tiles("t64", 64, 64) + "," +
         tiles("e4_t128", 128, 128, "f8E4M3FN") + "," +
         // Not chosen: an A.B kernel, a B-multicast cluster, a version,
         // another schedule.
         "{\"kernel\": \"nn\", \"dtype\": \"bf16\", \"out\": \"bf16\", "
         "\"b_mn\": true, \"bm\": 128, \"bn\": 256, \"bk\": 64},"
         "{\"kernel\": \"multicast\", \"dtype\": \"bf16\", \"out\": \"bf16\", "
         "\"b_mn\": false, \"bm\": 128, \"bn\": 256, \"bk\": 64, \"cluster\": 2},"
         "{\"kernel\": \"t256_ldgsts\", \"dtype\": \"bf16\", \"out\": \"bf16\", "
         "\"b_mn\": false, \"bm\": 128, \"bn\": 256, \"bk\": 64, "
         "\"version_of\": \"t256x64\"},"
         "{\"kernel\": \"t128_pingpong\", \"dtype\": \"bf16\", \"out\": \"bf16\", "
         "\"b_mn\": false, \"bm\": 128, \"bn\": 128, \"bk\": 64, "
         "\"schedule\": \"pingpong\"}"
         "], \"epilogue_kernels\": []}";
}

std::string splitKJson() {
  return "{\"kernels\": [" + split("splitk", 128, false) + "," +
         split("swap64", 64, true) + "," + split("swap16", 16, true) + "," +
         split("swap32", 32, true) + "," + split("clusterk2", 128, false, 2) +
         "," + split("swap16_clusterk2", 16, true, 2) + "," +
         split("swap16_clusterk4", 16, true, 4) + "," +
         split("swap16_clusterk8", 16, true, 8) + "," +
         split("streamk", 128, false, 0, true) + "," +
         // 64-column swap-AB tiles, after the 128-column ones.
         split("swap16n", 16, true, 0, false, 64) + "," +
         split("swap16n_clusterk2", 16, true, 2, false, 64) + "," +
         split("swap64n", 64, true, 0, false, 64) + "," +
         split("e4_swap16", 16, true, 0, false, 128, "f8E4M3FN", 128) + "," +
         split("e4_swap16_clusterk2", 16, true, 2, false, 128, "f8E4M3FN",
               128) +
         "," + split("e4_swap16n", 16, true, 0, false, 64, "f8E4M3FN", 128) +
         "," +
         split("e4_swap16n_clusterk2", 16, true, 2, false, 64, "f8E4M3FN",
               128) +
         "], " + kReducers + "}";
}

GemmCatalog catalog() {
  llvm::Expected<GemmCatalog> c = GemmCatalog::parse(familyJson(), splitKJson());
  if (!c) {
    ADD_FAILURE() << llvm::toString(c.takeError());
    return {};
  }
  return std::move(*c);
}

/// Clusters held: 66 pairs, 30 clusters of 4 (an H200's counts).
int h200(const GemmKernelCase &c) { return c.cluster == 2 ? 66 : 30; }
int none(const GemmKernelCase &) { return 0; }

struct Chosen {
  std::string kernel;
  std::optional<int64_t> parts;
  std::string why;
};

Chosen choose(const GemmCatalog &cat, int64_t m, int64_t n, int64_t k,
              int (*held)(const GemmKernelCase &) = h200,
              GemmChooseOptions options = {}, int sms = 132,
              llvm::StringRef dtype = "bf16") {
  llvm::Expected<GemmChoice> c =
      chooseGemm(cat, dtype, m, n, k, sms, held, options);
  if (!c) {
    ADD_FAILURE() << llvm::toString(c.takeError());
    return {};
  }
  return {c->kernelCase->kernel, c->parts, c->why};
}

TEST(GemmCatalog, ReadsTheFormsAndLeavesOutWhatIsNotChosen) {
  GemmCatalog cat = catalog();
  EXPECT_EQ(cat.kernels().size(), 22u);
  EXPECT_EQ(cat.find("nn"), nullptr);
  EXPECT_EQ(cat.find("multicast"), nullptr);
  EXPECT_EQ(cat.find("t256_ldgsts"), nullptr);
  EXPECT_EQ(cat.find("t128_pingpong"), nullptr);
  ASSERT_NE(cat.find("t128"), nullptr);
  EXPECT_EQ(cat.find("t128")->form, GemmForm::Tiles);
  EXPECT_EQ(cat.find("t128")->module, "gemm");
  EXPECT_EQ(cat.find("splitk")->form, GemmForm::SplitK);
  EXPECT_EQ(cat.find("splitk")->module, "gemm_splitk");
  EXPECT_EQ(cat.find("swap16")->form, GemmForm::SwapAB);
  EXPECT_EQ(cat.find("swap16_clusterk4")->form, GemmForm::ClusterK);
  EXPECT_EQ(cat.find("swap16_clusterk4")->cluster, 4);
  EXPECT_TRUE(cat.find("swap16_clusterk4")->swapAB);
  EXPECT_EQ(cat.find("streamk")->form, GemmForm::StreamK);
  ASSERT_NE(cat.reducer("bf16", 64), nullptr);
  EXPECT_EQ(cat.reducer("bf16", 64)->kernel, "reduce64");
  EXPECT_EQ(cat.reducer("bf16", 16, /*streamK=*/true)->kernel, "sreduce16");
  EXPECT_EQ(cat.reducer("f16", 16), nullptr);
}

TEST(GemmCatalog, MalformedListsAreRefusedByName) {
  auto error = [](const std::string &family, const std::string &splitK) {
    llvm::Expected<GemmCatalog> c = GemmCatalog::parse(family, splitK);
    if (c)
      return std::string("parsed");
    return llvm::toString(c.takeError());
  };
  EXPECT_NE(error("{", splitKJson()).find("gemm.cases.json"),
            std::string::npos);
  EXPECT_NE(error("{}", splitKJson()).find("no 'kernels' list"),
            std::string::npos);
  EXPECT_NE(error(familyJson(), "{\"kernels\": []}").find("'reducers'"),
            std::string::npos);
  std::string noWidth = familyJson();
  noWidth.replace(noWidth.find("\"bn\": 256"), 9, "\"bn\": -1");
  EXPECT_NE(error(noWidth, splitKJson()).find("t256x32: 'bn'"),
            std::string::npos);
  EXPECT_NE(error("{\"kernels\": [{\"dtype\": \"bf16\"}]}", splitKJson())
                .find("'kernel'"),
            std::string::npos);
  // A family width without a measured efficiency is refused, not guessed.
  std::string odd = familyJson();
  odd.replace(odd.find("\"bn\": 64"), 8, "\"bn\": 96");
  EXPECT_NE(error(odd, splitKJson())
                .find("t64: no measured efficiency for 128 x 96 tiles"),
            std::string::npos)
      << error(odd, splitKJson());
  // "cluster": null is no cluster.
  std::string nullCluster = familyJson();
  nullCluster.replace(nullCluster.find("\"kernel\": \"t128\""), 16,
                      "\"kernel\": \"t128\", \"cluster\": null");
  EXPECT_EQ(error(nullCluster, splitKJson()), "parsed");
}

TEST(ChooseGemm, LargeProblemsTakeTheFewestWeightedWaves) {
  GemmCatalog cat = catalog();
  // 2048 tiles of 128 x 256 in 16 waves beat 2752 of 128 x 192 (21 waves,
  // 0.97 as fast); of the two 128 x 256 kernels the deeper K step wins.
  Chosen c = choose(cat, 8192, 8192, 4096);
  EXPECT_EQ(c.kernel, "t256x64");
  EXPECT_FALSE(c.parts);
  EXPECT_EQ(c.why, "2048 tiles of 128x256 on 132 SMs: 16 wave(s)");
  // 1024 x 6144: 192 tiles of 128 x 256 (2 waves, cost 512) lose to 256
  // of 128 x 192 (2 waves, 396) and 384 of 128 x 128 (3 waves, 413).
  EXPECT_EQ(choose(cat, 1024, 6144, 4096).kernel, "t192");
}

TEST(ChooseGemm, SmallMTakesTheNarrowestSwapABTile) {
  GemmCatalog cat = catalog();
  EXPECT_EQ(choose(cat, 16, 28672, 4096, none).kernel, "swap16");
  EXPECT_EQ(choose(cat, 17, 28672, 4096, none).kernel, "swap32");
  EXPECT_EQ(choose(cat, 64, 28672, 4096, none).kernel, "swap64");
  EXPECT_NE(choose(cat, 65, 28672, 4096, none).kernel.rfind("swap", 0), 0u);
  GemmChooseOptions noSwap;
  noSwap.allowSwapAB = false;
  EXPECT_EQ(choose(cat, 16, 28672, 4096, none, noSwap).kernel.rfind("swap", 0),
            std::string::npos);
}

TEST(ChooseGemm, SwapABCutsKToFillTheSMsAndSumsInAClusterWhenOneRoundHoldsIt) {
  GemmCatalog cat = catalog();
  // M = 1, N = 4096: 32 tiles, 64 K tiles: 4 parts of 16.
  Chosen work = choose(cat, 1, 4096, 4096, h200);
  EXPECT_EQ(work.kernel, "swap16"); // 32 clusters of 4 > the 30 held
  EXPECT_EQ(work.parts, 4);
  EXPECT_EQ(work.why,
            "M = 1 <= 64: swap-AB, 32 tiles of 16x128 x 4 K part(s) on 132 SMs");
  Chosen held = choose(cat, 1, 4096, 4096,
                       [](const GemmKernelCase &) { return 40; });
  EXPECT_EQ(held.kernel, "swap16_clusterk4");
  EXPECT_FALSE(held.parts);
  EXPECT_EQ(held.why, work.why + ", summed in clusters of 4");
  // A wave of tiles or more: one part, which a pair of CTAs splits when
  // each half keeps 4 K tiles.
  Chosen wide = choose(cat, 1, 28672, 4096, h200);
  EXPECT_EQ(wide.kernel, "swap16_clusterk2");
  Chosen shortK = choose(cat, 1, 28672, 448, h200); // 7 K tiles
  EXPECT_EQ(shortK.kernel, "swap16");
  EXPECT_EQ(shortK.parts, 1);
  Chosen noPairs = choose(cat, 1, 28672, 4096, none);
  EXPECT_EQ(noPairs.kernel, "swap16");
  EXPECT_EQ(noPairs.parts, 1);
  // Exactly as many tiles (30) as clusters of 4 held: one round, clusters.
  Chosen exact = choose(cat, 1, 30 * 128, 4096, h200);
  EXPECT_EQ(exact.kernel, "swap16_clusterk4");
  Chosen oneMore = choose(cat, 1, 31 * 128, 4096, h200);
  EXPECT_EQ(oneMore.kernel, "swap16");
  EXPECT_EQ(oneMore.parts, 4);
}

TEST(ChooseGemm, SwapABTakes64ColumnTilesWhere128ColumnOnesFillAQuarter) {
  GemmCatalog cat = catalog();
  // M = 1, N = 4096: 32 tiles of 128 columns (a quarter of 132 SMs or
  // less); K = 14336: 224 K tiles. 64 tiles of 64 columns, K in halves in
  // pairs of CTAs.
  Chosen longK = choose(cat, 1, 4096, 14336);
  EXPECT_EQ(longK.kernel, "swap16n_clusterk2");
  EXPECT_FALSE(longK.parts);
  EXPECT_EQ(longK.why,
            "M = 1 <= 64: swap-AB, 64 tiles of 16x64 x 2 K part(s) on 132 "
            "SMs, summed in clusters of 2 (128-column tiles would fill a "
            "quarter of the SMs or less)");
  // Without pairs: the workspace form of the 64-column tile.
  Chosen noPairs = choose(cat, 1, 4096, 14336, none);
  EXPECT_EQ(noPairs.kernel, "swap16n");
  EXPECT_EQ(noPairs.parts, 2);
  // bf16 at K = 4096 (64 K tiles): the 128-column tiles.
  EXPECT_EQ(choose(cat, 1, 4096, 4096).kernel, "swap16");
  // 8-bit operands at K = 4096 (32 K tiles of 128): 64-column tiles.
  EXPECT_EQ(choose(cat, 1, 4096, 4096, h200, {}, 132, "f8E4M3FN").kernel,
            "e4_swap16n_clusterk2");
  // N = 6144: 48 tiles of 128 columns, more than a quarter of the SMs.
  EXPECT_EQ(choose(cat, 1, 6144, 14336).kernel, "swap16_clusterk2");
  // ... of 264 SMs a quarter holds them.
  EXPECT_EQ(choose(cat, 1, 6144, 14336, h200, {}, 264).kernel,
            "swap16n_clusterk2");
  // N = 1024, K = 8192: the 128-column tiles in clusters of 8 stay.
  EXPECT_EQ(choose(cat, 1, 1024, 8192).kernel, "swap16_clusterk8");
  // M = 64 (no 64-row clusters in the catalog): 16 tiles of 64 columns
  // in 8 K parts against 8 of 128.
  Chosen rows64 = choose(cat, 64, 1024, 8192);
  EXPECT_EQ(rows64.kernel, "swap64n");
  EXPECT_EQ(rows64.parts, 8);
}

TEST(ChooseGemm, FewTilesAndALongKSplitK) {
  GemmCatalog cat = catalog();
  // (Without swap-AB, which takes M <= 256 where these split K: below.)
  GemmChooseOptions family;
  family.allowSwapAB = false;
  // 8 tiles of 128 x 128, 128 K tiles: 8 parts of 1024 (cost 170.7 x
  // (16 + 16) / (128 + 16) = 37.9 against 80 for 16 tiles of 128 x 64). No
  // cluster of 8 in the catalog.
  Chosen c = choose(cat, 128, 1024, 8192, h200, family);
  EXPECT_EQ(c.kernel, "splitk");
  EXPECT_EQ(c.parts, 8);
  EXPECT_EQ(c.why, "8 tiles of 128x128 x 8 K parts of 1024 on 132 SMs");
  // 32 tiles of 128 x 128 in 4 parts of 16 K tiles (cost 170.7 x 32 / 80
  // = 68.3) against 64 of 128 x 64 (80): the workspace form, 32 clusters
  // of 4 being more than the 30 held.
  Chosen four = choose(cat, 128, 4096, 4096, h200, family);
  EXPECT_EQ(four.kernel, "splitk");
  EXPECT_EQ(four.parts, 4);
  // Parts of few K tiles cost their fill: at K = 2048 (32 K tiles) the 4
  // parts of 8 cost 170.7 x 24 / 48 = 85.3, and one wave of 128 x 64 tiles
  // (80) is taken.
  EXPECT_EQ(choose(cat, 128, 4096, 2048).kernel, "t64");
  // One wave of 128 x 64 tiles (cost 80) beats 128 x 128 ones in 2 K
  // parts (102.4): 64 tiles of 128 x 64, not 32 pairs.
  EXPECT_EQ(choose(cat, 128, 8192, 4096).kernel, "t64");
  EXPECT_EQ(choose(cat, 256, 4096, 4096).kernel, "t64");
  // Two waves of them (160) lose to one of 128 x 128 (137.6), and seven
  // (560) to two of 128 x 256 (512).
  EXPECT_EQ(choose(cat, 256, 28672, 4096).kernel, "t256x64");
  EXPECT_EQ(choose(cat, 256, 6144, 4096).kernel, "t128");
}

TEST(ChooseGemm, MediumMTakesSwapABWhereTheFamilySplitsK) {
  GemmCatalog cat = catalog();
  // M = 128, N = 1024, K = 8192: the family would split 8 tiles of
  // 128 x 128 in 8 parts; swap-AB takes 2 x 8 tiles of 64 x 128 (A's
  // rows in two), K in 8 parts (at most 8), in the workspace form.
  Chosen c = choose(cat, 128, 1024, 8192);
  EXPECT_EQ(c.kernel, "swap64");
  EXPECT_EQ(c.parts, 8);
  EXPECT_EQ(c.why, "M = 128: swap-AB where 128-row tiles would split K, 16 "
                   "tiles of 64x128 x 8 K part(s) on 132 SMs");
  // M = 256: 32 tiles, 4 parts fill 128 SMs.
  Chosen m256 = choose(cat, 256, 1024, 8192);
  EXPECT_EQ(m256.kernel, "swap64");
  EXPECT_EQ(m256.parts, 4);
  // M = 96, N = 4096: 2 x 32 tiles in 2 parts.
  EXPECT_EQ(choose(cat, 96, 4096, 4096).parts, 2);
  // Where the family does not split K, its tiles stay. (Where 64-row
  // tiles would fill the SMs unsplit, the family's split stays:
  // TwoKPartsAreSummedByAPairOfCTAs.)
  EXPECT_EQ(choose(cat, 128, 4096, 2048).kernel, "t64");
  EXPECT_EQ(choose(cat, 256, 4096, 4096).kernel, "t64");
  // Above 256 rows the family splits K itself.
  Chosen m512 = choose(cat, 512, 512, 16384);
  EXPECT_EQ(m512.kernel, "splitk");
  // Without swap-AB: the family's split.
  GemmChooseOptions family;
  family.allowSwapAB = false;
  EXPECT_EQ(choose(cat, 128, 1024, 8192, h200, family).kernel, "splitk");
}

TEST(ChooseGemm, TwoKPartsAreSummedByAPairOfCTAs) {
  // Without a 128 x 64 tile, 64 tiles of 128 x 128 in 2 K parts (102.4)
  // beat one wave of them unsplit (137.6), and a pair of CTAs sums them.
  // (Swap-AB's 128 tiles of 64 x 128 would fill the SMs in one part: it
  // does not take M = 128 here.)
  std::string family = familyJson();
  family.replace(family.find("\"bn\": 64"), 8, "\"bn\": 128");
  llvm::Expected<GemmCatalog> cat = GemmCatalog::parse(family, splitKJson());
  ASSERT_TRUE(bool(cat)) << llvm::toString(cat.takeError());
  Chosen pair = choose(*cat, 128, 8192, 4096);
  EXPECT_EQ(pair.kernel, "clusterk2");
  EXPECT_EQ(pair.why, "64 tiles of 128x128 x 2 K parts of 2048 on 132 SMs, "
                      "summed in clusters of 2");
  EXPECT_EQ(choose(*cat, 128, 8192, 4096, none).kernel, "splitk");
}

TEST(SplitKParts, NoPartIsEmpty) {
  GemmCatalog cat = catalog();
  const GemmKernelCase &s = *cat.find("splitk");
  // 20 tiles on 132 SMs: 6 parts by the SM count, but 25 K tiles in parts
  // of ceil(25 / 6) = 5 make 5 parts.
  EXPECT_EQ(splitKParts(s, 128 * 4, 128 * 5, 25 * 64, 132, 2), 5);
  EXPECT_FALSE(splitKPartsValid(s, 25 * 64, 6));
  EXPECT_TRUE(splitKPartsValid(s, 25 * 64, 5));
  EXPECT_FALSE(splitKPartsValid(s, 25 * 64, 26));
  EXPECT_FALSE(splitKPartsValid(s, 25 * 64, 0));
  // At least 4 K tiles a part, at most 8 parts.
  EXPECT_EQ(splitKParts(s, 128, 128, 7 * 64, 132, 1), 1);
  EXPECT_EQ(splitKParts(s, 128, 128, 1000 * 64, 132, 2), 8);
  EXPECT_FALSE(splitKParts(s, 128, 128, 7 * 64, 132, 2));
}

TEST(ChooseGemm, BadProblemsAreRefused) {
  GemmCatalog cat = catalog();
  auto error = [&](llvm::StringRef dtype, int64_t m, int sms) {
    llvm::Expected<GemmChoice> c =
        chooseGemm(cat, dtype, m, 64, 64, sms, none);
    if (c)
      return std::string("chosen");
    return llvm::toString(c.takeError());
  };
  EXPECT_NE(error("f32", 64, 132).find("no kernel takes 'f32'"),
            std::string::npos);
  EXPECT_NE(error("bf16", -1, 132).find("a size is negative"),
            std::string::npos);
  EXPECT_NE(error("bf16", 64, 0).find("0 SMs"), std::string::npos);
  EXPECT_NE(error("bf16", int64_t(1) << 62, 132).find("above 2^32"),
            std::string::npos);
  // An empty problem still has a kernel (the caller launches nothing).
  EXPECT_EQ(error("bf16", 0, 132), "chosen");
}

} // namespace

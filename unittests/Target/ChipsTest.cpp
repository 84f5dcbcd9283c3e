//===- ChipsTest.cpp - the chip and PTX-version table ----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Pins the table against what LLVM 22's NVPTX backend and ptxas 13.0 were
// seen to accept (llc -mcpu=<chip> -mattr=+ptxNN on one intrinsic of each
// family, then ptxas -arch=<chip>): the lowest and highest PTX version of
// each chip and of each instruction family on it, and the chips that lack
// a family. tcgen05 is further limited to the chips MLIR 22's NVVM ops
// verify on (sm_100a, sm_101a).
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Chips.h"

#include "gtest/gtest.h"

using namespace tile::cuda;

namespace {

/// "min-max" or "none", the way the measurements were written down.
std::string rangeOf(llvm::StringRef chip, InstructionFamily family) {
  tile::OrReason<ChipInfo> info = lookupChip(chip);
  if (!info)
    return info.reason();
  std::optional<PtxRange> r = info->support(family);
  return r ? std::to_string(r->min) + "-" + std::to_string(r->max) : "none";
}

TEST(Chips, MinimumPtxOfEachChip) {
  // llc's default .version for the chip is also the lowest it accepts;
  // ptxas refuses a .target below it.
  const std::pair<const char *, PtxVersion> minimum[] = {
      {"sm_80", 70},   {"sm_86", 71},   {"sm_89", 78},   {"sm_90", 78},
      {"sm_90a", 80},  {"sm_100", 86},  {"sm_100a", 86}, {"sm_100f", 88},
      {"sm_101a", 86}, {"sm_101f", 88}, {"sm_103a", 88}, {"sm_110a", 90},
      {"sm_120", 87},  {"sm_120a", 87}, {"sm_120f", 88}, {"sm_121a", 88}};
  for (auto [name, ptx] : minimum) {
    tile::OrReason<ChipInfo> chip = lookupChip(name);
    ASSERT_TRUE(bool(chip)) << name;
    EXPECT_EQ(chip->ptx.min, ptx) << name;
    EXPECT_EQ(chip->ptx.max, 90u) << name;
  }
}

TEST(Chips, FamiliesPerChip) {
  using F = InstructionFamily;
  // Bulk copies: sm_90 and up, PTX 8.0 at the least.
  EXPECT_EQ(rangeOf("sm_80", F::BulkTensorCopy), "none");
  EXPECT_EQ(rangeOf("sm_90", F::BulkTensorCopy), "80-90");
  EXPECT_EQ(rangeOf("sm_90", F::BulkTensorReduce), "80-90");
  EXPECT_EQ(rangeOf("sm_90a", F::BulkCopyCluster), "80-90");
  EXPECT_EQ(rangeOf("sm_120a", F::BulkTensorCopy), "87-90");
  // TMA into shared::cta: PTX 8.6 even on sm_90.
  EXPECT_EQ(rangeOf("sm_90a", F::BulkTensorCopyToCta), "86-90");
  // Completion: expect-tx and fence.proxy.async from 8.0, the parity wait
  // from the chip's first version (7.8 on sm_90).
  EXPECT_EQ(rangeOf("sm_90", F::AsyncBarrier), "80-90");
  EXPECT_EQ(rangeOf("sm_90", F::MbarrierParityWait), "78-90");
  EXPECT_EQ(rangeOf("sm_80", F::MbarrierParityWait), "none");
  // cta_group copies: the a/f targets of sm_100, sm_101, sm_103, sm_110;
  // never sm_12x or a plain target.
  EXPECT_EQ(rangeOf("sm_100a", F::BulkTensorCopyCtaGroup), "86-90");
  EXPECT_EQ(rangeOf("sm_103f", F::BulkTensorCopyCtaGroup), "88-90");
  EXPECT_EQ(rangeOf("sm_120a", F::BulkTensorCopyCtaGroup), "none");
  // sm_101 is sm_110 from PTX 9.0 on: nothing of tcgen05 for sm_101 at 9.0.
  EXPECT_EQ(rangeOf("sm_101f", F::BulkTensorCopyCtaGroup), "88-88");
  // tcgen05: LLVM and ptxas also take sm_100f, sm_103a/f and sm_110a/f,
  // MLIR 22's NVVM ops only sm_100a and sm_101a.
  EXPECT_EQ(rangeOf("sm_100a", F::Tcgen05), "86-90");
  EXPECT_EQ(rangeOf("sm_101a", F::Tcgen05), "86-88");
  EXPECT_EQ(rangeOf("sm_100f", F::Tcgen05), "none");
  EXPECT_EQ(rangeOf("sm_103a", F::Tcgen05), "none");
  EXPECT_EQ(rangeOf("sm_110a", F::Tcgen05), "none");
  EXPECT_EQ(rangeOf("sm_121a", F::Tcgen05), "none");
  EXPECT_EQ(rangeOf("sm_100", F::Tcgen05), "none");
  EXPECT_EQ(rangeOf("sm_100a", F::Tcgen05MmaI8), "86-90");
  EXPECT_EQ(rangeOf("sm_101a", F::Tcgen05MmaI8), "86-88");
  EXPECT_EQ(rangeOf("sm_100f", F::Tcgen05MmaI8), "none");
  // Block scaling with .block16/.block32: PTX 8.8 everywhere.
  EXPECT_EQ(rangeOf("sm_100a", F::Tcgen05BlockScale), "88-90");
  EXPECT_EQ(rangeOf("sm_101a", F::Tcgen05BlockScale), "88-88");
  // wgmma: sm_90a alone.
  EXPECT_EQ(rangeOf("sm_90a", F::Wgmma), "80-90");
  EXPECT_EQ(rangeOf("sm_90", F::Wgmma), "none");
  EXPECT_EQ(rangeOf("sm_100a", F::Wgmma), "none");
  // The 32-byte-atom tensor-map swizzle: the H100's driver refused it
  // (CUDA_ERROR_INVALID_VALUE from cuTensorMapEncodeTiled, 2026-11-23).
  EXPECT_EQ(rangeOf("sm_90a", F::TensorMapSwizzleAtom32B), "none");
  EXPECT_EQ(rangeOf("sm_100a", F::TensorMapSwizzleAtom32B), "86-90");
  EXPECT_EQ(rangeOf("sm_120a", F::TensorMapSwizzleAtom32B), "87-90");
}

TEST(Chips, RangesIncludeBothEnds) {
  tile::OrReason<ChipInfo> chip = lookupChip("sm_100a");
  ASSERT_TRUE(bool(chip));
  EXPECT_TRUE(chip->ptx.contains(86));
  EXPECT_TRUE(chip->ptx.contains(90));
  EXPECT_FALSE(chip->ptx.contains(85));
  std::optional<PtxRange> scaled =
      chip->support(InstructionFamily::Tcgen05BlockScale);
  ASSERT_TRUE(scaled);
  EXPECT_TRUE(scaled->contains(88));
  EXPECT_TRUE(scaled->contains(90));
  EXPECT_FALSE(scaled->contains(87));
}

// cudaDevAttrMaxSharedMemoryPerBlockOptin per compute capability, every
// target of a chip number alike.
TEST(Chips, SharedMemoryPerBlock) {
  for (auto [name, bytes] : {std::pair<const char *, int64_t>{"sm_80", 166912},
                             {"sm_86", 101376},
                             {"sm_90", 232448},
                             {"sm_90a", 232448},
                             {"sm_100a", 232448},
                             {"sm_100f", 232448},
                             {"sm_120a", 101376}}) {
    tile::OrReason<ChipInfo> chip = lookupChip(name);
    ASSERT_TRUE(bool(chip)) << name;
    EXPECT_EQ(chip->sharedBytesPerBlock, bytes) << name;
    EXPECT_LE(bytes, largestSharedBytesPerBlock()) << name;
  }
  // The bound for checks that do not know the chip: the largest of them.
  EXPECT_EQ(largestSharedBytesPerBlock(), 232448);
}

TEST(Chips, UnknownChipsListTheKnownOnes) {
  std::string why = lookupChip("sm_1000a").reason();
  EXPECT_EQ(why.rfind("unknown chip 'sm_1000a'; known chips: sm_80, sm_86, "
                      "sm_89, sm_90, sm_90a, sm_100, sm_100a",
                      0),
            0u)
      << why;
  EXPECT_FALSE(lookupChip("gfx90a"));
  EXPECT_FALSE(lookupChip("sm_"));
  EXPECT_FALSE(lookupChip("sm_100b"));
}

TEST(Chips, PtxFeatures) {
  auto version = [](llvm::StringRef features) -> std::string {
    tile::OrReason<std::optional<PtxVersion>> v = ptxVersionOfFeatures(features);
    if (!v)
      return v.reason();
    return *v ? std::to_string(**v) : "none";
  };
  EXPECT_EQ(version(""), "none");
  EXPECT_EQ(version("+ptx86"), "86");
  EXPECT_EQ(version("+sm_100a,+ptx88"), "88");
  // LLVM ignores a PTX feature it does not know exactly (and falls back to
  // the chip's default): each is refused.
  for (const char *bad : {"+ptx8.8", "+ptx89", "+ptx79", " +ptx88", "+ptx088",
                          "ptx88", "+ptx99"})
    EXPECT_EQ(version(bad),
              "'" + std::string(bad) +
                  "' is not a PTX version feature LLVM knows (+ptx70 ... "
                  "+ptx78, +ptx80 ... +ptx88, +ptx90)")
        << bad;
  EXPECT_TRUE(isKnownPtxVersion(78));
  EXPECT_FALSE(isKnownPtxVersion(79));
  EXPECT_EQ(version("+ptx86,+ptx88"),
            "the features name two PTX versions, 8.6 and 8.8");
  EXPECT_EQ(ptxVersionName(86), "8.6");
}

} // namespace

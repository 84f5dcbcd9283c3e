//===- SanitizeReportTest.cpp - decoding sanitized kernels' reports -------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host half of the report format (tile/Manifest/SanitizeReport.h): the
// words a failing check writes, decoded and described as TileRuntime
// returns them. The device half is tested by test/Device/SanitizeTests.cpp
// and test/Transforms/sanitize.mlir.
//
//===----------------------------------------------------------------------===//

#include "tile/Manifest/SanitizeReport.h"

#include "gtest/gtest.h"

using namespace tile::sanitize;

namespace {

/// The words a thread of CTA (3, 1, 0), thread (37, 1, 0) writes.
std::array<uint32_t, kReportWords>
reportWords(uint32_t check, int64_t v0, int64_t v1, uint32_t ms,
            int64_t v2 = kNoCount, int64_t v3 = kNoCount) {
  std::array<uint32_t, kReportWords> w{};
  w[kStatus] = kReported;
  w[kCheck] = check;
  w[kCtaX] = 3;
  w[kCtaY] = 1;
  w[kThreadX] = 37;
  w[kThreadY] = 1;
  w[kValue0] = uint32_t(v0);
  w[kValue0 + 1] = uint32_t(uint64_t(v0) >> 32);
  w[kValue1] = uint32_t(v1);
  w[kValue1 + 1] = uint32_t(uint64_t(v1) >> 32);
  w[kWaitedMs] = ms;
  w[kValue2] = uint32_t(v2);
  w[kValue2 + 1] = uint32_t(uint64_t(v2) >> 32);
  w[kValue3] = uint32_t(v3);
  w[kValue3 + 1] = uint32_t(uint64_t(v3) >> 32);
  return w;
}

TEST(SanitizeReport, NothingWrittenIsNoReport) {
  std::array<uint32_t, kReportWords> w{};
  EXPECT_FALSE(decodeReport(w.data()));
  // A half-written report (status not yet set) is not one either.
  w = reportWords(2, 5, 6, 0);
  w[kStatus] = 1;
  EXPECT_FALSE(decodeReport(w.data()));
}

TEST(SanitizeReport, WordsDecodeToTheReport) {
  auto w = reportWords(4, int64_t(1) << 40 | 7, -1, 1002);
  std::optional<Report> r = decodeReport(w.data());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->check, 4u);
  EXPECT_EQ(r->cta[0], 3u);
  EXPECT_EQ(r->cta[1], 1u);
  EXPECT_EQ(r->cta[2], 0u);
  EXPECT_EQ(r->thread[0], 37u);
  EXPECT_EQ(r->thread[1], 1u);
  EXPECT_EQ(r->value0, int64_t(1) << 40 | 7);
  EXPECT_EQ(r->value1, -1);
  EXPECT_EQ(r->waitedMs, 1002u);
  EXPECT_EQ(r->value2, kNoCount);
  EXPECT_EQ(r->value3, kNoCount);
  auto counted = reportWords(4, 0, 0, 0, -4096, int64_t(3) << 32 | 1);
  EXPECT_EQ(decodeReport(counted.data())->value2, -4096);
  EXPECT_EQ(decodeReport(counted.data())->value3, int64_t(3) << 32 | 1);
}

TEST(SanitizeReport, TimeoutNamesKernelCheckThreadAndBarrier) {
  auto w = reportWords(4, 2, 1, 1002);
  std::string text =
      describeReport("gemm", *decodeReport(w.data()), CheckKind::WaitTimeout,
                     "k.mlir:12:5", "nvgpu.mbarrier.try_wait.parity of ...",
                     {128, 2, 1});
  EXPECT_EQ(text,
            "kernel 'gemm': sanitize check 4 (mbarrier-wait-timeout) failed "
            "at k.mlir:12:5, nvgpu.mbarrier.try_wait.parity of ...: CTA (3, "
            "1, 0), thread (37, 1, 0) (warp 5, warpgroup 1) waited 1002 ms "
            "for mbarrier 2 to complete its phase of parity 1 (a wrong "
            "parity or stage, too few arrivals, or more bytes expected than "
            "copied)");
}

TEST(SanitizeReport, TimeoutWithShadowCountsSaysArrivalsAndBytes) {
  // Phase with 1 of 2 arrivals, 128 bytes expected and never copied.
  auto w = reportWords(4, 1, 0, 300, 128, int64_t(2) << 32 | 1);
  std::string text =
      describeReport("k", *decodeReport(w.data()), CheckKind::WaitTimeout,
                     "k.mlir:1:1", "x", {128, 1, 1});
  EXPECT_NE(text.find("; its current phase has 1 of 2 arrivals and expects "
                      "128 bytes that no copy has brought"),
            std::string::npos)
      << text;
  auto over = reportWords(4, 1, 0, 300, -64, int64_t(1) << 32);
  text = describeReport("k", *decodeReport(over.data()),
                        CheckKind::WaitTimeout, "k.mlir:1:1", "x", {128, 1, 1});
  EXPECT_NE(text.find("has 0 of 1 arrivals, and its copies brought 64 bytes "
                      "more than were expected"),
            std::string::npos)
      << text;
}

TEST(SanitizeReport, BalanceAndArrivalChecksSayTheirCounts) {
  auto fewer = reportWords(6, 1, -4096, 0, 0);
  std::string text =
      describeReport("k", *decodeReport(fewer.data()), CheckKind::TxBalance,
                     "k.mlir:1:1", "x", {128, 1, 1});
  EXPECT_NE(text.find("(mbarrier-tx-balance)"), std::string::npos) << text;
  EXPECT_NE(text.find("saw mbarrier 1 complete its phase of parity 0 while "
                      "its arrivals since init had expected -4096 bytes "
                      "fewer than the copies"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("before its data lands"), std::string::npos) << text;
  auto arrival = reportWords(2, 3, 5, 0, 4, 1);
  text = describeReport("k", *decodeReport(arrival.data()),
                        CheckKind::ArrivalCount, "k.mlir:1:1", "x",
                        {128, 1, 1});
  EXPECT_NE(text.find("(mbarrier-arrival-count)"), std::string::npos) << text;
  EXPECT_NE(text.find("arrived on mbarrier 3 (init count 4) after 5 arrivals "
                      "since its init, with a count of 1"),
            std::string::npos)
      << text;
}

TEST(SanitizeReport, IndexChecksSayTheValueAndTheBound) {
  auto w = reportWords(0, 9, 3, 0);
  std::string barrier =
      describeReport("k", *decodeReport(w.data()), CheckKind::BarrierIndex,
                     "k.mlir:1:1", "x", {64, 1, 1});
  EXPECT_NE(barrier.find("(mbarrier-index)"), std::string::npos) << barrier;
  EXPECT_NE(barrier.find("used mbarrier 9 of a group of 3"), std::string::npos)
      << barrier;
  std::string region =
      describeReport("k", *decodeReport(w.data()), CheckKind::SharedRegion,
                     "k.mlir:1:1", "x", {64, 1, 1});
  EXPECT_NE(region.find("(shared-region)"), std::string::npos) << region;
  EXPECT_NE(region.find("used offset 9 where at most 3 is in range"),
            std::string::npos)
      << region;
  // Thread (37, 1) of a 64-wide block is linear thread 101: warp 3.
  EXPECT_NE(region.find("(warp 3, warpgroup 0)"), std::string::npos) << region;
}

TEST(SanitizeReport, KindNamesRoundTrip) {
  for (CheckKind kind :
       {CheckKind::WaitTimeout, CheckKind::BarrierIndex,
        CheckKind::SharedRegion, CheckKind::TxBalance, CheckKind::ArrivalCount})
    EXPECT_EQ(parseCheckKind(checkKindName(kind)), kind);
  EXPECT_FALSE(parseCheckKind("parity"));
}

} // namespace

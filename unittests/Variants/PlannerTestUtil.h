//===- PlannerTestUtil.h - helpers the planner tests share ------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Iter shorthands, the NVMMA shared layout as a test fixture, and the
// lowering checker's verdict as a test assertion, with a tally of what it
// checked printed when the test binary ends.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_VARIANTS_PLANNERTESTUTIL_H
#define TILE_UNITTESTS_VARIANTS_PLANNERTESTUTIL_H

#include "tile/Layout/Layout.h"
#include "tile/Variants/CUDA/PlanChecker.h"

#include "gtest/gtest.h"

#include <cstdio>

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

/// What the lowering checker verified in this test binary.
struct CheckTally {
  int plans = 0, skipped = 0, failed = 0;
  int64_t instructions = 0, elements = 0;
};
inline CheckTally &checkTally() {
  static CheckTally tally;
  return tally;
}

/// Prints the tally when the binary's tests end (tests run one process
/// per test under ctest; run the binary itself for the totals).
class CheckTallyPrinter : public ::testing::Environment {
public:
  void TearDown() override {
    const CheckTally &t = checkTally();
    if (t.plans)
      std::printf("lowering checker: %d plans modelled (%lld instructions, "
                  "%lld elements compared), %d skipped, %d failed\n",
                  t.plans, (long long)t.instructions, (long long)t.elements,
                  t.skipped, t.failed);
  }
};
inline ::testing::Environment *const kCheckTallyPrinter =
    ::testing::AddGlobalTestEnvironment(new CheckTallyPrinter);

/// Fails the test with the checker's first mismatch; counts the plan.
inline void expectChecked(const plan_check::CheckReport &r,
                          const std::string &what = "") {
  CheckTally &t = checkTally();
  ++t.plans;
  t.instructions += r.instructions;
  t.elements += r.elements;
  if (r.skipped)
    ++t.skipped;
  if (r.failure)
    ++t.failed;
  EXPECT_FALSE(r.failure) << what << (what.empty() ? "" : ": ")
                          << r.failure.value_or("");
  EXPECT_FALSE(r.skipped) << what << ": " << r.skipped.value_or("");
  EXPECT_GT(r.elements, 0) << what << ": the checker compared nothing";
}

} // namespace tile::testing

#endif // TILE_UNITTESTS_VARIANTS_PLANNERTESTUTIL_H

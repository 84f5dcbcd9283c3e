//===- Tcgen05MmaPlannerTest.cpp - the gemm_async tcgen05 planner
//-----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Issue lists and descriptor words are pinned for the f16 gemm_async
// example (examples/gemm_async.mlir: four tcgen05.mma over K 64), K
// slices, transposes, cta_group 2, tensor-memory A and block scaling. Every
// plan is also run through the lowering checker: each issue's words go
// through the PTX-semantics model of tcgen05.mma (the decoders, the
// canonical layouts in bytes, the byte-level swizzle, the data paths), and
// every A, B, D and scale element it touches is compared with where the
// tiles' own layouts (swizzle included) put it. The shape matrix counts
// what lowers and what is declined.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/GemmAsync/Tcgen05MmaPlanner.h"

#include "PlannerTestUtil.h"

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

#include <map>

using namespace tile;
using namespace tile::tcgen05_mma;
using cuda::MmaElement;
using cuda::MmaKind;
using cuda::SmemSwizzle;

namespace {

using namespace tile::testing;

RegionSide whole(TileLayout layout, llvm::SmallVector<int64_t, 4> shape) {
  return RegionSide{std::move(layout), shape,
                    llvm::SmallVector<int64_t, 4>(shape.size(), 0)};
}

/// D (or tmem A) of `rows x cols` with row r in lane r, at column `col0`.
TileLayout tmemRows(int64_t rows, int64_t cols, int64_t colStride = 1,
                    int64_t col0 = 0) {
  return TileLayout({lane(rows, 1), col(cols, colStride)}, {},
                    {AxisOffset{Axis::TCol, col0}});
}

/// The M 64 data path: row r in lane 32 (r / 16) + r % 16.
TileLayout tmemM64(int64_t cols) {
  return TileLayout({lane(4, 32), lane(16, 1), col(cols, 1)});
}

/// A folded data path (B, E: `parts` 2; G: 4): `rows` rows, the N columns
/// cut into `parts` slices stacked `rows` lanes apart.
TileLayout tmemFolded(int64_t rows, int64_t parts, int64_t cols) {
  return TileLayout(
      {lane(rows, 1), lane(parts, rows), col(cols / parts, 1)});
}

/// A K-major f16 request: A [M, K], B stored [N, K] (transpose_b), both
/// 128B-swizzled NVMMA tiles, C [M, N] f32 at column 0.
Request kMajorF16(int64_t m, int64_t n, int64_t k, SwizzleMode mode) {
  Request r;
  r.aSide = whole(nvmma(16, m, k, mode), {m, k});
  r.bSide = whole(nvmma(16, n, k, mode), {n, k});
  r.transposeB = true;
  r.cSide = whole(tmemRows(m, n), {m, n});
  r.m = m;
  r.n = n;
  r.k = k;
  return r;
}

/// Checks `plan` with the lowering checker; returns the elements compared.
int64_t check(const Request &req, const Plan &plan) {
  plan_check::CheckReport report = plan_check::checkTcgen05Mma(req, plan);
  expectChecked(report);
  return report.elements;
}

/// The checked plan of `r` into `out`; a fatal failure when there is none,
/// so a test ends instead of reading an empty plan (PLANNED below).
void plannedInto(const Request &r, Plan &out) {
  OrReason<Plan> p = planMma(r);
  ASSERT_TRUE(p) << p.reason();
  check(r, *p);
  out = *p;
}

/// `Plan name` = the plan of `request`, or the test stops there.
#define PLANNED(name, ...)                                                   \
  Plan name;                                                                 \
  ASSERT_NO_FATAL_FAILURE(plannedInto(__VA_ARGS__, name))

std::string declined(const Request &r) {
  OrReason<Plan> p = planMma(r);
  EXPECT_FALSE(p) << "planned unexpectedly";
  return p ? "" : p.reason();
}

struct Want {
  int64_t aByte, bByte;
  uint32_t dTmem;
  InputD inputD;
};
void expectIssues(const Plan &p, const std::vector<Want> &want) {
  ASSERT_EQ(p.issues.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("issue " + std::to_string(i));
    EXPECT_EQ(p.issues[i].aByte, want[i].aByte);
    EXPECT_EQ(p.issues[i].bByte, want[i].bByte);
    EXPECT_EQ(p.issues[i].dTmem, want[i].dTmem);
    EXPECT_EQ(p.issues[i].inputD, want[i].inputD);
  }
}

//===----------------------------------------------------------------------===//
// The f16 gemm_async example and its variations
//===----------------------------------------------------------------------===//

/// The gemm_async example: A 128x64 f16 K-major SW128; B 64x128 f16 (K x N,
/// N contiguous: MN-major SW128); C = tmem[0:128, 256:384] f32.
Request gemmExample() {
  Request r;
  r.aSide = whole(nvmma(16, 128, 64, SwizzleMode::B128), {128, 64});
  r.bSide = whole(nvmma(16, 64, 128, SwizzleMode::B128), {64, 128});
  r.cSide = RegionSide{tmemRows(128, 512), {128, 512}, {0, 256}};
  r.m = r.n = 128;
  r.k = 64;
  return r;
}

TEST(Tcgen05MmaPlanner, F16GemmExampleFourMmas) {
  Request r = gemmExample();
  PLANNED(p, r);
  EXPECT_EQ(p.kind, MmaKind::F16);
  EXPECT_EQ(p.instM, 128);
  EXPECT_EQ(p.instN, 128);
  EXPECT_EQ(p.instK, 16);
  // f16 -> f32, M128 N128, B MN-major (bit 16).
  EXPECT_EQ(p.issues[0].idesc, 0x08200010u | (1u << 16));
  ASSERT_TRUE(p.a);
  EXPECT_FALSE(p.a->mnMajor);
  // A: SBO 1024 B (8 rows of 128 B), LBO unread (16 B), 128B swizzle.
  EXPECT_EQ(p.a->descriptorTemplate(), 0x4000404000010000ull);
  EXPECT_FALSE(p.a->usesLbo);
  // B: MN-major SW128: LBO 8192 B (the next 64 N columns), SBO 1024 B (the
  // next 8 K rows).
  EXPECT_TRUE(p.b.mnMajor);
  EXPECT_TRUE(p.b.usesLbo);
  EXPECT_EQ(p.b.descriptor.leadingByteOffset, 8192u);
  EXPECT_EQ(p.b.descriptor.strideByteOffset, 1024u);
  EXPECT_EQ(p.b.descriptorTemplate(), 0x4000404002000000ull);
  // K = 64: 4 MMAs; A advances 32 B inside the swizzle row, B 16 K rows.
  expectIssues(p, {{0, 0, 256, InputD::Overwrite},
                   {32, 2048, 256, InputD::Accumulate},
                   {64, 4096, 256, InputD::Accumulate},
                   {96, 6144, 256, InputD::Accumulate}});
}

TEST(Tcgen05MmaPlanner, CheckerCatchesWrongDescriptors) {
  // The checker must be able to fail: the demo with B's LBO halved, with
  // A's second K step moved by one 16-byte chunk, and with a K step
  // dropped, is reported at the first wrong element.
  Request r = gemmExample();
  OrReason<Plan> p = planMma(r);
  ASSERT_TRUE(p);
  Plan lbo = *p;
  lbo.b.descriptor.leadingByteOffset = 4096;
  EXPECT_EQ(plan_check::checkTcgen05Mma(r, lbo).failure.value_or(""),
            "issue 0 (tile 0, 0, K step 0) multiplies B(64, 0) (as [N, K]): "
            "the layout has it at shared byte 12288, the instruction reads "
            "shared byte 8192");
  Plan step = *p;
  step.issues[1].aByte += 16;
  EXPECT_EQ(plan_check::checkTcgen05Mma(r, step).failure.value_or(""),
            "issue 1 (tile 0, 0, K step 1) multiplies A(0, 16): the layout "
            "has it at shared byte 4128, the instruction reads shared byte "
            "4144");
  Plan dropped = *p;
  dropped.issues.pop_back();
  EXPECT_EQ(plan_check::checkTcgen05Mma(r, dropped).failure.value_or(""),
            "no issue computes tile (0, 0) K step 3");
}

TEST(Tcgen05MmaPlanner, CheckerIgnoresUnreadDescriptorFields) {
  // A K-major swizzled operand never reads LBO (PTX: "not used, assumed
  // 1"): 0 (what other compilers write), 16 and 4096 all pass. SBO (the
  // next 8 rows) is read: a wrong one is reported.
  Request r = gemmExample();
  OrReason<Plan> p = planMma(r);
  ASSERT_TRUE(p && p->a);
  for (uint32_t lbo : {0u, 16u, 4096u}) {
    Plan q = *p;
    q.a->descriptor.leadingByteOffset = lbo;
    EXPECT_TRUE(plan_check::checkTcgen05Mma(r, q).passed()) << lbo;
  }
  Plan sbo = *p;
  sbo.a->descriptor.strideByteOffset += 1024;
  EXPECT_EQ(plan_check::checkTcgen05Mma(r, sbo).failure.value_or(""),
            "issue 0 (tile 0, 0, K step 0) multiplies A(8, 0): the layout has "
            "it at shared byte 5120, the instruction reads shared byte 6144");
}

TEST(Tcgen05MmaPlanner, AccumulateFlagDecidesTheFirstStep) {
  Request r = kMajorF16(128, 128, 32, SwizzleMode::B64);
  r.hasAccumulateFlag = true;
  PLANNED(p, r);
  ASSERT_EQ(p.issues.size(), 2u);
  EXPECT_EQ(p.issues[0].inputD, InputD::FromFlag);
  EXPECT_EQ(p.issues[1].inputD, InputD::Accumulate);
}

TEST(Tcgen05MmaPlanner, KSlices) {
  // Slices of a 128x64 K-major SW128 A and B (stored [N, K]).
  struct Slice {
    int64_t k0, k;
    std::vector<int64_t> starts;
  };
  for (const Slice &s : {Slice{0, 16, {0}}, Slice{16, 32, {32, 64}},
                         Slice{32, 32, {64, 96}}}) {
    SCOPED_TRACE("K slice " + std::to_string(s.k0) + ":" +
                 std::to_string(s.k0 + s.k));
    Request r = kMajorF16(128, 128, 64, SwizzleMode::B128);
    r.k = s.k;
    r.aSide.offsets = {0, s.k0};
    r.bSide.offsets = {0, s.k0};
    PLANNED(p, r);
    ASSERT_EQ(p.issues.size(), s.starts.size());
    for (size_t i = 0; i < s.starts.size(); ++i) {
      EXPECT_EQ(p.issues[i].aByte, s.starts[i]);
      EXPECT_EQ(p.issues[i].bByte, s.starts[i]);
    }
  }
}

TEST(Tcgen05MmaPlanner, TransposedOperands) {
  // transpose_a: A stored [K, M] with M contiguous (MN-major SW128);
  // B stored [K, N] (no transpose_b) with N contiguous.
  Request r;
  r.aSide = whole(nvmma(16, 64, 128, SwizzleMode::B128), {64, 128});
  r.transposeA = true;
  r.bSide = whole(nvmma(16, 64, 256, SwizzleMode::B128), {64, 256});
  r.cSide = whole(tmemRows(128, 256), {128, 256});
  r.m = 128;
  r.n = 256;
  r.k = 64;
  PLANNED(p, r);
  ASSERT_TRUE(p.a);
  EXPECT_TRUE(p.a->mnMajor);
  EXPECT_TRUE(p.b.mnMajor);
  // bf16 constant 0x08400490 is f16 here (formats 0) with both majors MN.
  EXPECT_EQ(p.issues[0].idesc, 0x08400010u | (3u << 15));
  // A: LBO 64 rows of K x 128 B = 8192 B; B: 64 x 128 B = 8192 B.
  EXPECT_EQ(p.a->descriptor.leadingByteOffset, 8192u);
  EXPECT_EQ(p.b.descriptor.leadingByteOffset, 8192u);
  expectIssues(p, {{0, 0, 0, InputD::Overwrite},
                   {2048, 2048, 0, InputD::Accumulate},
                   {4096, 4096, 0, InputD::Accumulate},
                   {6144, 6144, 0, InputD::Accumulate}});

  // Only B transposed (stored [N, K], K-major) with A MN-major.
  Request r2 = r;
  r2.bSide = whole(nvmma(16, 256, 64, SwizzleMode::B128), {256, 64});
  r2.transposeB = true;
  PLANNED(p2, r2);
  EXPECT_FALSE(p2.b.mnMajor);
  EXPECT_EQ(p2.issues[0].idesc, 0x08400010u | (1u << 15));
}

TEST(Tcgen05MmaPlanner, EverySwizzleAndMajor) {
  // Descriptor words for K-major and MN-major f16 operands in every
  // swizzle: A 128 x K (K = one swizzle row of elements, 16 without swizzle
  // in an 8x16 B core-matrix layout).
  struct Case {
    SwizzleMode mode;
    uint64_t kMajorWord;
  };
  // K-major: SBO = 8 rows x W bytes; LBO unread (16 B); swizzle 6/4/2.
  for (const Case &c :
       {Case{SwizzleMode::B32, 0xC000401000010000ull},
        Case{SwizzleMode::B64, 0x8000402000010000ull},
        Case{SwizzleMode::B128, 0x4000404000010000ull}}) {
    SCOPED_TRACE(swizzleModeName(c.mode).str());
    int64_t k = swizzleBytes(c.mode) / 2;
    Request r = kMajorF16(128, 64, k, c.mode);
    PLANNED(p, r);
    EXPECT_EQ(p.a->descriptorTemplate(), c.kMajorWord);
    EXPECT_EQ(p.issues.size(), size_t(k / 16));
    // MN-major in the same swizzle: A stored [K, M].
    Request t = r;
    t.bSide = whole(nvmma(16, 64, 32, SwizzleMode::B64), {64, 32});
    int64_t atom = swizzleBytes(c.mode) / 2; // elements of one swizzle row
    t.aSide = whole(nvmma(16, 32, 128, c.mode), {32, 128});
    t.transposeA = true;
    t.k = 32;
    PLANNED(q, t);
    EXPECT_TRUE(q.a->mnMajor);
    // LBO: the next `atom` M columns are 32 K rows x W bytes further; SBO:
    // 8 K rows x W bytes.
    EXPECT_EQ(q.a->descriptor.leadingByteOffset, uint32_t(32 * atom * 2));
    EXPECT_EQ(q.a->descriptor.strideByteOffset,
              uint32_t(8 * swizzleBytes(c.mode)));
  }
}

TEST(Tcgen05MmaPlanner, NoSwizzleCoreMatrices) {
  // K-major interleaved: 8x16 B core matrices, K-adjacent ones 128 B apart
  // (LBO), 8-row groups 512 B apart (SBO) for K = 32 f16.
  // flat (m, k) = m * 32 + k -> digits m/8, m%8, k/8, k%8.
  TileLayout a({mem(16, 256), mem(8, 8), mem(4, 64), mem(8, 1)});
  Request r = kMajorF16(128, 64, 32, SwizzleMode::B64);
  r.aSide = whole(a, {128, 32});
  PLANNED(p, r);
  EXPECT_FALSE(p.a->mnMajor);
  EXPECT_TRUE(p.a->usesLbo);
  EXPECT_EQ(p.a->descriptor.leadingByteOffset, 128u);
  EXPECT_EQ(p.a->descriptor.strideByteOffset, 512u);
  EXPECT_EQ(p.a->descriptor.swizzle, SmemSwizzle::None);
  // The second K step starts two core matrices (256 B) further.
  ASSERT_EQ(p.issues.size(), 2u);
  EXPECT_EQ(p.issues[1].aByte, 256);

  // MN-major interleaved A stored [K, M]: flat (k, m) = k * 128 + m ->
  // digits k/8, k%8, m/8, m%8; core matrices (8 K rows x 16 B of M) are
  // 128 B apart along M (SBO) and 4096 B apart along K (LBO).
  TileLayout t({mem(4, 2048), mem(8, 8), mem(16, 64), mem(8, 1)});
  Request q = r;
  q.aSide = whole(t, {32, 128});
  q.transposeA = true;
  PLANNED(pq, q);
  EXPECT_TRUE(pq.a->mnMajor);
  EXPECT_EQ(pq.a->descriptor.strideByteOffset, 128u);  // next 8 M
  EXPECT_EQ(pq.a->descriptor.leadingByteOffset, 4096u); // next 8 K
}

TEST(Tcgen05MmaPlanner, PlainRowMajorIsNotCanonical) {
  // A plain row-major 128x64 f16 tile without swizzle: row r+1 is 128 B
  // further, a core matrix needs 16 B.
  Request r = kMajorF16(128, 64, 64, SwizzleMode::B128);
  r.aSide = whole(TileLayout::rowMajor({128, 64}), {128, 64});
  EXPECT_EQ(declined(r),
            "A element (1, 0) is at element 64; the descriptor (K-major, no "
            "swizzle, LBO 16 B, SBO 1024 B) reads element 8 there");
}

TEST(Tcgen05MmaPlanner, CtaGroupTwo) {
  // M 256 N 256 for the pair: this CTA holds A 128 x 64, B 128 (N) x 64,
  // C 128 x 256.
  Request r;
  r.aSide = whole(nvmma(16, 128, 64, SwizzleMode::B128), {128, 64});
  r.bSide = whole(nvmma(16, 128, 64, SwizzleMode::B128), {128, 64});
  r.transposeB = true;
  r.cSide = whole(tmemRows(128, 256), {128, 256});
  r.m = 256;
  r.n = 256;
  r.k = 64;
  r.ctaGroup = 2;
  PLANNED(p, r);
  EXPECT_EQ(p.instM, 256);
  EXPECT_EQ(p.instN, 256);
  EXPECT_EQ(p.issues[0].idesc, 0x10400010u);
  expectIssues(p, {{0, 0, 0, InputD::Overwrite},
                   {32, 32, 0, InputD::Accumulate},
                   {64, 64, 0, InputD::Accumulate},
                   {96, 96, 0, InputD::Accumulate}});
  // M 128 for the pair (data path B): this CTA's 64 rows in lanes 0..63
  // for the first half of N and lanes 64..127 for the second, N/2 columns.
  Request h = r;
  h.m = 128;
  h.aSide = whole(nvmma(16, 64, 64, SwizzleMode::B128), {64, 64});
  h.cSide = whole(tmemFolded(64, 2, 256), {64, 256});
  PLANNED(q, h);
  EXPECT_EQ(q.instM, 128);
  EXPECT_EQ(q.dataPath, DataPath::B);
  EXPECT_EQ(q.issues.size(), 4u);
  EXPECT_EQ(q.issues[0].dTmem, 0u);
  // The M 64 (cta_group 1) organization, 16 rows per warp, is declined.
  h.cSide = whole(tmemM64(256), {64, 256});
  EXPECT_EQ(declined(h),
            "C element (0, 128) is in lane 0, TCol 128; data path B (M 128, "
            "cta_group 2) puts it in lane 64, TCol 0 (one element per 32-bit "
            "column)");
}

TEST(Tcgen05MmaPlanner, DataPathPlacesPinned) {
  // Each data path's (lane, column) of rows 0, 15, 16, 63 (127) and columns
  // 0, N/2-1, N/2, N-1, written out from the PTX ISA's layout figures.
  struct Pin {
    DataPath path;
    int64_t n, r, c, lane, column;
  };
  const Pin pins[] = {
      // A: M 256 cta_group 2, identity over 128 rows.
      {DataPath::A, 256, 0, 0, 0, 0},     {DataPath::A, 256, 127, 255, 127, 255},
      {DataPath::A, 256, 16, 128, 16, 128},
      // B: M 128 cta_group 2, N halves folded onto lanes 0-63 / 64-127.
      {DataPath::B, 256, 0, 0, 0, 0},     {DataPath::B, 256, 15, 127, 15, 127},
      {DataPath::B, 256, 16, 128, 80, 0}, {DataPath::B, 256, 63, 255, 127, 127},
      // D: M 128 cta_group 1, identity.
      {DataPath::D, 128, 127, 64, 127, 64}, {DataPath::D, 128, 63, 63, 63, 63},
      // E: M 64 .ws, folded like B.
      {DataPath::E, 128, 0, 63, 0, 63},   {DataPath::E, 128, 15, 64, 79, 0},
      {DataPath::E, 128, 63, 127, 127, 63},
      // F: M 64 cta_group 1, rows 16 per 32-lane sub-partition.
      {DataPath::F, 64, 15, 31, 15, 31},  {DataPath::F, 64, 16, 32, 32, 32},
      {DataPath::F, 64, 63, 63, 111, 63}, {DataPath::F, 64, 0, 0, 0, 0},
      // G: M 32 .ws, N quarters folded onto the four 32-lane slabs.
      {DataPath::G, 128, 0, 0, 0, 0},     {DataPath::G, 128, 15, 31, 15, 31},
      {DataPath::G, 128, 16, 32, 48, 0},  {DataPath::G, 128, 31, 63, 63, 31},
      {DataPath::G, 128, 0, 64, 64, 0},   {DataPath::G, 128, 31, 127, 127, 31},
  };
  for (const Pin &p : pins) {
    SCOPED_TRACE(dataPathName(p.path) + " (" + std::to_string(p.r) + ", " +
                 std::to_string(p.c) + ")");
    EXPECT_EQ(accumulatorPlace(p.path, p.n, p.r, p.c),
              (TmemPlace{p.lane, p.column}));
  }
  EXPECT_EQ(dataPathOf(2, 256, false), DataPath::A);
  EXPECT_EQ(dataPathOf(2, 128, false), DataPath::B);
  EXPECT_EQ(dataPathOf(1, 128, false), DataPath::D);
  EXPECT_EQ(dataPathOf(1, 128, true), DataPath::D);
  EXPECT_EQ(dataPathOf(1, 64, true), DataPath::E);
  EXPECT_EQ(dataPathOf(1, 64, false), DataPath::F);
  EXPECT_EQ(dataPathOf(1, 32, true), DataPath::G);
}

/// A K-major f16 .ws request: C on the data path of instruction M `m`.
Request weightStationaryF16(int64_t m, int64_t n, TileLayout c) {
  Request r = kMajorF16(m, n, 64, SwizzleMode::B128);
  r.cSide = whole(std::move(c), {m, n});
  r.weightStationary = true;
  return r;
}

TEST(Tcgen05MmaPlanner, WeightStationary) {
  // M 64 .ws (path E): N halves folded.
  PLANNED(e, weightStationaryF16(64, 128, tmemFolded(64, 2, 128)));
  EXPECT_TRUE(e.weightStationary);
  EXPECT_EQ(e.instM, 64);
  EXPECT_EQ(e.instN, 128);
  EXPECT_EQ(e.dataPath, DataPath::E);
  EXPECT_EQ(e.issues.size(), 4u);
  // M 32 .ws (path G): N quarters folded onto four 32-lane slabs.
  PLANNED(g, weightStationaryF16(32, 256, tmemFolded(32, 4, 256)));
  EXPECT_EQ(g.instM, 32);
  EXPECT_EQ(g.dataPath, DataPath::G);
  EXPECT_EQ(g.idesc.m, 32u);
  // M 128 .ws: path D.
  PLANNED(d, weightStationaryF16(128, 64, tmemRows(128, 64)));
  EXPECT_EQ(d.dataPath, DataPath::D);
  // The dense M 64 organization is not .ws's.
  EXPECT_EQ(declined(weightStationaryF16(64, 128, tmemM64(128))),
            "C element (0, 64) is in lane 0, TCol 64; data path E (M 64, .ws) "
            "puts it in lane 64, TCol 0 (one element per 32-bit column)");
  EXPECT_EQ(declined(weightStationaryF16(64, 96, tmemFolded(64, 2, 96))),
            "N = 96: .ws MMAs have N 64, 128 or 256; no such N divides the "
            "region's 96");
  Request pair = weightStationaryF16(64, 128, tmemFolded(64, 2, 128));
  pair.ctaGroup = 2;
  EXPECT_EQ(declined(pair), "tcgen05.mma.ws is cta_group 1 only");
  Request collector = weightStationaryF16(64, 128, tmemFolded(64, 2, 128));
  collector.collectorOp = CollectorOp::Fill;
  EXPECT_EQ(declined(collector),
            "a collector fill/use/lastuse names one MMA's operand; this op "
            "issues 4 MMAs (the planner does not chain collector uses)");
  collector.k = 16;
  collector.collectorBuffer = 2;
  PLANNED(one, collector);
  EXPECT_EQ(one.collectorBuffer, 2u);
  Request dense = kMajorF16(128, 128, 64, SwizzleMode::B128);
  dense.collectorBuffer = 1;
  EXPECT_EQ(declined(dense),
            "collector buffer b1: buffers b0..b3 hold B of tcgen05.mma.ws; "
            "the dense form collects A in one buffer");
}

TEST(Tcgen05MmaPlanner, InstructionShapeIsHonoured) {
  // 128x128 as two M128 x N64 instructions per K step.
  Request r = kMajorF16(128, 128, 64, SwizzleMode::B128);
  r.instructionShape = {{128, 64}};
  PLANNED(p, r);
  EXPECT_EQ(p.instN, 64);
  ASSERT_EQ(p.issues.size(), 8u);
  EXPECT_EQ(p.issues[4].dTmem, 64u);
  EXPECT_EQ(p.issues[4].bByte, 64 * 128);
  // M 64 instructions: C must then be on data path F.
  r.instructionShape = {{64, 128}};
  EXPECT_EQ(declined(r),
            "C element (16, 0) is in lane 16, TCol 0; data path F (M 64, "
            "cta_group 1) puts it in lane 32, TCol 0 (one element per 32-bit "
            "column)");
  for (auto [shape, why] :
       {std::pair{std::pair<int64_t, int64_t>{128, 40},
                  "instruction_shape 128x40: N = 40: cta_group 1 M 128 MMAs "
                  "have N a multiple of 16 in 16..256"},
        std::pair{std::pair<int64_t, int64_t>{256, 64},
                  "instruction_shape 256x64: M = 256: cta_group 1 MMAs have M "
                  "64 or 128"},
        std::pair{std::pair<int64_t, int64_t>{128, 96},
                  "instruction_shape 128x96: N 96 does not divide the "
                  "region's 128"}}) {
    r.instructionShape = shape;
    EXPECT_EQ(declined(r), why);
  }
}

TEST(Tcgen05MmaPlanner, MnMajorTf32NeedsTheAtom32BSwizzle) {
  // B [K 32, N 64] tf32, N contiguous: MN-major, read only through the
  // 128-byte swizzle of 32-byte atoms (descriptor layout type 1).
  Request r;
  r.a = r.b = MmaElement::TF32;
  r.aBits = r.bBits = 32;
  r.aSide = whole(nvmma(32, 128, 32, SwizzleMode::B128), {128, 32});
  r.bSide = whole(nvmma(32, 32, 64, SwizzleMode::B128Atom32B), {32, 64});
  r.cSide = whole(tmemRows(128, 64), {128, 64});
  r.m = 128;
  r.n = 64;
  r.k = 32;
  PLANNED(p, r);
  EXPECT_TRUE(p.b.mnMajor);
  EXPECT_EQ(p.b.descriptor.swizzle, SmemSwizzle::B128Atom32B);
  // Layout type 1 in bits 61-63; LBO = the next 32 N (1024 fp32 = 4096 B),
  // SBO = the next 4 K rows (512 B); the fixed 0b001 at bit 46.
  EXPECT_EQ(p.b.descriptorTemplate(), 0x2000402001000000ull);
  EXPECT_EQ(p.issues.size(), 4u);
  // The ordinary 128-byte swizzle on MN-major tf32 is refused.
  r.bSide = whole(nvmma(32, 32, 64, SwizzleMode::B128), {32, 64});
  EXPECT_EQ(declined(r),
            "B is MN-major tf32 with the 128B swizzle; tcgen05 reads MN-major "
            "tf32 only with the 128-byte swizzle of 32-byte atoms "
            "(swizzle<2,3,2>, descriptor layout type 1)");
  // And the 32-byte-atom swizzle on a K-major operand.
  r.bSide = whole(nvmma(32, 64, 32, SwizzleMode::B128Atom32B), {64, 32});
  r.transposeB = true;
  EXPECT_EQ(declined(r),
            "B uses the 128-byte swizzle of 32-byte atoms, which tcgen05.mma "
            "reads for MN-major tf32 operands only");
}

TEST(Tcgen05MmaPlanner, TensorMemoryA) {
  // A 128 x 64 f16 in tensor memory (packed: 2 elements per column) at
  // column 128; B [N, K] shared; C at column 0.
  Request r = kMajorF16(128, 128, 64, SwizzleMode::B128);
  r.aInTmem = true;
  r.aSide = whole(tmemRows(128, 64, 1, 256), {128, 64});
  PLANNED(p, r);
  EXPECT_FALSE(p.a);
  ASSERT_EQ(p.issues.size(), 4u);
  // Column 128 (TCol 256 f16 elements), +8 columns per K step of 16.
  for (int ki = 0; ki < 4; ++ki)
    EXPECT_EQ(p.issues[ki].aTmem, uint32_t(128 + 8 * ki));
  // A transposed in tensor memory is refused.
  r.transposeA = true;
  r.aSide = whole(tmemRows(64, 128), {64, 128});
  EXPECT_EQ(declined(r),
            "A in tensor memory is read K-major ([M, K], K along columns); "
            "transpose_a needs A in shared memory");
}

TEST(Tcgen05MmaPlanner, SeveralOutputTiles) {
  // M 256 N 256 K 32 with cta_group 1: 2 M tiles x 2 K steps; the two M
  // tiles of C sit in column blocks 0 and 256 of the same 128 lanes.
  Request r = kMajorF16(256, 256, 32, SwizzleMode::B64);
  r.cSide = whole(TileLayout({col(2, 256), lane(128, 1), col(256, 1)}),
                  {256, 256});
  PLANNED(p, r);
  EXPECT_EQ(p.instM, 128);
  EXPECT_EQ(p.instN, 256);
  ASSERT_EQ(p.issues.size(), 4u);
  // Order: (mi, ni) tiles, K innermost; the second M tile is 128 rows x 64
  // B = 8192 B further in A and 256 columns further in C.
  EXPECT_EQ(p.issues[2].mi, 1);
  EXPECT_EQ(p.issues[2].aByte, 8192);
  EXPECT_EQ(p.issues[2].dTmem, 256u);
  EXPECT_EQ(p.issues[3].aByte, 8192 + 32);
}

//===----------------------------------------------------------------------===//
// Kinds
//===----------------------------------------------------------------------===//

TEST(Tcgen05MmaPlanner, EveryDenseKind) {
  struct Case {
    MmaElement e;
    unsigned bits;
    cuda::MmaAccumulator d;
    MmaKind kind;
    int64_t k;
    uint32_t idesc;
  };
  // M 128 N 128, both K-major, 128B swizzle.
  for (const Case &c :
       {Case{MmaElement::F16, 16, cuda::MmaAccumulator::F32, MmaKind::F16, 16,
             0x08200010u},
        Case{MmaElement::BF16, 16, cuda::MmaAccumulator::F32, MmaKind::F16,
             16, 0x08200490u},
        Case{MmaElement::TF32, 32, cuda::MmaAccumulator::F32, MmaKind::TF32, 8,
             0x08200910u},
        Case{MmaElement::E4M3, 8, cuda::MmaAccumulator::F32, MmaKind::F8F6F4,
             32, 0x08200010u},
        Case{MmaElement::E5M2, 8, cuda::MmaAccumulator::F16, MmaKind::F8F6F4,
             32, 0x08200480u},
        Case{MmaElement::S8, 8, cuda::MmaAccumulator::S32, MmaKind::I8, 32,
             0x082004A0u},
        Case{MmaElement::U8, 8, cuda::MmaAccumulator::S32, MmaKind::I8, 32,
             0x08200020u}}) {
    SCOPED_TRACE(cuda::mmaElementName(c.e).str());
    int64_t k = 1024 / c.bits; // one 128-byte swizzle row of K
    Request r;
    r.a = r.b = c.e;
    r.aBits = r.bBits = c.bits;
    r.d = c.d;
    r.dBits = c.d == cuda::MmaAccumulator::F16 ? 16 : 32;
    r.aSide = whole(nvmma(c.bits, 128, k, SwizzleMode::B128), {128, k});
    r.bSide = whole(nvmma(c.bits, 128, k, SwizzleMode::B128), {128, k});
    r.transposeB = true;
    r.cSide = whole(tmemRows(128, 128, r.dBits == 16 ? 2 : 1), {128, 128});
    r.m = r.n = 128;
    r.k = k;
    PLANNED(p, r);
    EXPECT_EQ(p.kind, c.kind);
    EXPECT_EQ(p.instK, c.k);
    EXPECT_EQ(p.issues.size(), size_t(k / c.k));
    EXPECT_EQ(p.issues[0].idesc, c.idesc);
    // Each K step is 32 bytes further in both operands.
    EXPECT_EQ(p.issues[1].aByte, 32);
  }
}

/// A scale tile [rows, kBlocks] as tcgen05.mma reads it (PTX "Block
/// Scaling"; CUTLASS tmem_sf_frg): row r in lane r % 32 and column
/// colBase + r / 32 (with `halves`, the layout-B fold of B's scales: rows
/// of half h = r / (rows/2) from lane 64 h), K block b in byte b % 4 of
/// column group b / 4 (each group the rows' columns further), replicated
/// to the four 32-lane partitions (two per half).
TileLayout scaleLayout(int64_t rows, int64_t kBlocks, int64_t colBase,
                       bool halves = false) {
  llvm::SmallVector<Iter> it;
  int64_t hr = halves ? rows / 2 : rows, groups = std::max<int64_t>(1, hr / 32);
  if (halves)
    it.push_back(lane(2, 64));
  if (groups > 1)
    it.push_back(col(groups, 4));
  it.push_back(lane(std::min<int64_t>(hr, 32), 1));
  if (kBlocks > 4)
    it.push_back(col(kBlocks / 4, 4 * groups));
  it.push_back(col(std::min<int64_t>(kBlocks, 4), 1));
  return TileLayout(it, {lane(halves ? 2 : 4, 32)},
                    {AxisOffset{Axis::TCol, 4 * colBase}});
}

/// A block-scaled request: fp8 (8-bit) or packed fp4 (4-bit) A/B, 128B
/// swizzle, scale tiles [rows, K / vec] as scaleLayout places them: A's
/// from column 256, B's from column 272.
Request blockScaled(MmaElement e, unsigned bits, cuda::ScaleFactorType type,
                    int64_t k) {
  Request r;
  r.a = r.b = e;
  r.aBits = r.bBits = bits;
  r.scaleType = type;
  r.aSide = whole(nvmma(bits, 128, k, SwizzleMode::B128), {128, k});
  r.bSide = whole(nvmma(bits, 128, k, SwizzleMode::B128), {128, k});
  r.transposeB = true;
  r.cSide = whole(tmemRows(128, 128), {128, 128});
  r.m = r.n = 128;
  r.k = k;
  int64_t vec = type == cuda::ScaleFactorType::UE4M3 ? 16 : 32;
  r.sfaSide = whole(scaleLayout(128, k / vec, 256), {128, k / vec});
  r.sfbSide = whole(scaleLayout(128, k / vec, 272), {128, k / vec});
  return r;
}

TEST(Tcgen05MmaPlanner, BlockScaledKinds) {
  // mxf8f6f4 e4m3, ue8m0, K 128: 4 MMAs of K 32, one scale per row each:
  // scale bytes 0,1,2,3 of columns 256.. (A) and 272.. (B) -> ids 0..3.
  PLANNED(p, blockScaled(MmaElement::E4M3, 8,
                               cuda::ScaleFactorType::UE8M0, 128));
  EXPECT_EQ(p.kind, MmaKind::MXF8F6F4);
  ASSERT_EQ(p.issues.size(), 4u);
  for (unsigned ki = 0; ki < 4; ++ki) {
    EXPECT_EQ(p.issues[ki].sfaTmem, 256u);
    EXPECT_EQ(p.issues[ki].sfbTmem, 272u);
    OrReason<cuda::InstrDescriptor> d =
        cuda::InstrDescriptor::decode(p.issues[ki].idesc, p.kind);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->aScaleId, ki);
    EXPECT_EQ(d->bScaleId, ki);
  }
  EXPECT_EQ(p.issues[0].idesc, 0x08A00000u);
  EXPECT_EQ(p.issues[3].idesc, 0x08A00000u | (3u << 29) | (3u << 4));

  // mxf4 (packed e2m1, ue8m0), K 256 -> 4 MMAs of K 64 reading 2 scales a
  // row each: ids 0, 2 of the first column group (256..259), then the
  // next group (260..263).
  PLANNED(q,
      blockScaled(MmaElement::E2M1, 4, cuda::ScaleFactorType::UE8M0, 256));
  EXPECT_EQ(q.kind, MmaKind::MXF4);
  ASSERT_EQ(q.issues.size(), 4u);
  EXPECT_EQ(q.issues[0].sfaTmem, 256u);
  EXPECT_EQ(q.issues[1].sfaTmem, 256u);
  EXPECT_EQ(q.issues[2].sfaTmem, 260u);
  EXPECT_EQ(q.issues[3].sfbTmem, 276u);
  // mxf4 M128 N128 ue8m0: formats 1, ids 0 then 2.
  EXPECT_EQ(q.issues[0].idesc, 0x08A00480u);
  EXPECT_EQ(q.issues[1].idesc, 0x08A00480u | (2u << 29) | (2u << 4));

  // mxf4nvf4 (ue4m3, 16-element blocks), K 256: 4 scales per instruction,
  // one whole column group (4 columns of 32 rows) each.
  PLANNED(n,
      blockScaled(MmaElement::E2M1, 4, cuda::ScaleFactorType::UE4M3, 256));
  EXPECT_EQ(n.kind, MmaKind::MXF4NVF4);
  ASSERT_EQ(n.issues.size(), 4u);
  EXPECT_EQ(n.issues[1].sfaTmem, 260u);
  EXPECT_EQ(n.issues[3].sfaTmem, 268u);
  EXPECT_EQ(n.issues[0].idesc, 0x08200480u);
}

TEST(Tcgen05MmaPlanner, ScaleRowPlacesPinned) {
  // Row -> (column, lanes), written out from the readings in
  // docs/Tcgen05Mma.md.
  auto pin = [](ScaleRowPlace p) {
    return std::pair(p.column,
                     std::vector<int64_t>(p.lanes.begin(), p.lanes.end()));
  };
  using V = std::vector<int64_t>;
  EXPECT_EQ(pin(scaleRowPlace(DataPath::D, false, 128, 0)),
            std::pair(0l, V{0, 32, 64, 96}));
  EXPECT_EQ(pin(scaleRowPlace(DataPath::D, false, 128, 97)),
            std::pair(3l, V{1, 33, 65, 97}));
  EXPECT_EQ(pin(scaleRowPlace(DataPath::D, true, 256, 200)),
            std::pair(6l, V{8, 40, 72, 104}));
  EXPECT_EQ(pin(scaleRowPlace(DataPath::A, true, 256, 255)),
            std::pair(7l, V{31, 63, 95, 127}));
  // Layout B: A's 64 rows everywhere; B's N halves in partitions 0-1 / 2-3.
  EXPECT_EQ(pin(scaleRowPlace(DataPath::B, false, 256, 63)),
            std::pair(1l, V{31, 63, 95, 127}));
  EXPECT_EQ(pin(scaleRowPlace(DataPath::B, true, 256, 127)),
            std::pair(3l, V{31, 63}));
  EXPECT_EQ(pin(scaleRowPlace(DataPath::B, true, 256, 128)),
            std::pair(0l, V{64, 96}));
  EXPECT_EQ(pin(scaleRowPlace(DataPath::B, true, 32, 16)),
            std::pair(0l, V{64, 96}));
}

/// A pair (cta_group 2) mxf8f6f4 request, M x N for the pair, K 128: this
/// CTA's A (M/2 x 128), B (N/2 x 128), C, A's scales (M/2 rows) from column
/// 256 and B's (all N) from 260.
Request blockScaledPair(int64_t m, int64_t n) {
  Request r = blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE8M0,
                          128);
  r.ctaGroup = 2;
  r.m = m;
  r.n = n;
  r.aSide = whole(nvmma(8, m / 2, 128, SwizzleMode::B128), {m / 2, 128});
  r.bSide = whole(nvmma(8, n / 2, 128, SwizzleMode::B128), {n / 2, 128});
  r.cSide = m == 256 ? whole(tmemRows(128, n), {128, n})
                     : whole(tmemFolded(64, 2, n), {64, n});
  r.sfaSide = whole(scaleLayout(m / 2, 4, 256), {m / 2, 4});
  r.sfbSide = whole(scaleLayout(n, 4, 260, m == 128), {n, 4});
  return r;
}

TEST(Tcgen05MmaPlanner, BlockScaledPairAndWideN) {
  // M 256 N 256 pair (layout A): A's scales 4 columns (256..259), B's all
  // 256 rows in 8 columns (260..267); ids 0..3 per K step.
  PLANNED(p, blockScaledPair(256, 256));
  EXPECT_EQ(p.dataPath, DataPath::A);
  ASSERT_EQ(p.issues.size(), 4u);
  EXPECT_EQ(p.issues[0].sfaTmem, 256u);
  EXPECT_EQ(p.issues[0].sfbTmem, 260u);
  EXPECT_EQ(p.issues[3].sfbTmem, 260u);
  // M >> 7 = 2 at bit 27, N >> 3 = 32 at bit 17, UE8M0 at bit 23.
  EXPECT_EQ(p.issues[0].idesc, 0x10C00000u);
  EXPECT_EQ(p.issues[1].idesc, 0x30C00010u);
  EXPECT_EQ(p.issues[3].idesc, 0x70C00030u);
  // M 128 N 256 pair (layout B): this CTA's 64 rows of A's scales in 2
  // columns; B's halves in lanes 0-63 / 64-127, 4 columns each.
  PLANNED(q, blockScaledPair(128, 256));
  EXPECT_EQ(q.dataPath, DataPath::B);
  EXPECT_EQ(q.issues[2].sfaTmem, 256u);
  EXPECT_EQ(q.issues[2].sfbTmem, 260u);
  EXPECT_EQ(q.issues[2].idesc, 0x08C00000u | (2u << 29) | (2u << 4));
  // B's scales laid out unfolded under layout B: row 128 is read from lane
  // 64 (half 1), the tile has it in lanes 0, 32, 64, 96 of column 264.
  Request u = blockScaledPair(128, 256);
  u.sfbSide = whole(scaleLayout(256, 4, 260), {256, 4});
  EXPECT_EQ(declined(u),
            "scale factors B (128, 0) is at lane 0 TCol 1056, lane 32 TCol "
            "1056, lane 64 TCol 1056, lane 96 TCol 1056; the instruction "
            "reads it from lane 64, TCol 1040 (byte 0 of column 260)");
  // cta_group 1, N 256: B's scales in 8 columns.
  Request w =
      blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE8M0, 128);
  w.n = 256;
  w.bSide = whole(nvmma(8, 256, 128, SwizzleMode::B128), {256, 128});
  w.cSide = whole(tmemRows(128, 256), {128, 256});
  w.sfbSide = whole(scaleLayout(256, 4, 260), {256, 4});
  PLANNED(v, w);
  EXPECT_EQ(v.instN, 256);
  EXPECT_EQ(v.issues[1].sfbTmem, 260u);
  EXPECT_EQ(v.issues[1].idesc, 0x28C00010u);
}

TEST(Tcgen05MmaPlanner, ScaleIdsPerMmaAndBroadcast) {
  // One K block per column group (TCol stride 16 along K): every MMA reads
  // byte 0 (id 0) of the next 4 columns.
  Request r =
      blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE8M0, 128);
  r.sfaSide = whole(TileLayout({col(4, 4), lane(32, 1), col(4, 16)},
                               {lane(4, 32)},
                               {AxisOffset{Axis::TCol, 4 * 256}}),
                    {128, 4});
  r.sfbSide = whole(scaleLayout(128, 4, 288), {128, 4});
  PLANNED(p, r);
  for (unsigned ki = 0; ki < 4; ++ki) {
    EXPECT_EQ(p.issues[ki].sfaTmem, 256u + 4 * ki);
    EXPECT_EQ(p.issues[ki].idesc, 0x08A00000u | (ki << 4));
  }
  // K broadcast (stride 0 along K), one scale per MMA: every MMA reads the
  // same byte. A's scales all at byte 2 of columns 256..259.
  Request b = r;
  b.sfaSide = whole(TileLayout({col(4, 4), lane(32, 1), col(4, 0)},
                               {lane(4, 32)},
                               {AxisOffset{Axis::TCol, 4 * 256 + 2}}),
                    {128, 4});
  PLANNED(q, b);
  for (unsigned ki = 0; ki < 4; ++ki) {
    EXPECT_EQ(q.issues[ki].sfaTmem, 256u);
    EXPECT_EQ(q.issues[ki].idesc, 0x08A00000u | (2u << 29) | (ki << 4));
  }
  // K broadcast with 2 scales per MMA (mxf4): the instruction reads two
  // consecutive bytes, which a broadcast cannot give.
  Request f =
      blockScaled(MmaElement::E2M1, 4, cuda::ScaleFactorType::UE8M0, 256);
  f.sfaSide = whole(TileLayout({col(4, 4), lane(32, 1), col(8, 0)},
                               {lane(4, 32)},
                               {AxisOffset{Axis::TCol, 4 * 256}}),
                    {128, 8});
  EXPECT_EQ(declined(f),
            "scale factors A are broadcast along K (K blocks 0 and 1 share "
            "TCol 1024): an instruction reads 2 consecutive scale bytes a "
            "row, so each K block needs its own byte");
}

TEST(Tcgen05MmaPlanner, BlockScaledDeclines) {
  // Scales starting at byte 1 when an instruction reads 2 per row.
  Request r =
      blockScaled(MmaElement::E2M1, 4, cuda::ScaleFactorType::UE8M0, 256);
  r.sfaSide->offsets = {0, 1};
  r.k = 64;
  r.aSide.offsets = {0, 0};
  EXPECT_EQ(declined(r), "scale factors A for K block 0 start at byte 1 "
                         "of a column; an instruction reading 2 scale(s) per "
                         "row starts at byte 0 or 2");
  // fp4 without scales is kind::f8f6f4, which needs 8-bit containers.
  Request u =
      blockScaled(MmaElement::E2M1, 4, cuda::ScaleFactorType::UE8M0, 256);
  u.sfaSide.reset();
  u.sfbSide.reset();
  EXPECT_NE(declined(u).find("kind::f8f6f4 reads fp6/fp4 from 8-bit "
                             "containers"),
            std::string::npos);
  // e4m3 with ue4m3 scales is not a kind.
  Request e =
      blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE4M3, 128);
  EXPECT_EQ(declined(e), "block-scaled e4m3 x e4m3 is kind::mxf8f6f4, whose "
                         "scales are ue8m0, not ue4m3");
  // Block-scaled cta_group 1 MMAs are M 128 only: no M 64 form.
  Request m64 =
      blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE8M0, 128);
  m64.instructionShape = {{64, 128}};
  EXPECT_EQ(declined(m64), "instruction_shape 64x128: M = 64: block-scaled "
                           "cta_group 1 MMAs have M 128");
  m64.instructionShape.reset();
  m64.m = 64;
  EXPECT_EQ(declined(m64), "M = 64 is not a multiple of a block-scaled "
                           "cta_group 1 MMA's M (128)");
}

TEST(Tcgen05MmaPlanner, ScaleFactorLanesAreChecked) {
  // Regression (found by the lowering checker): the planner checked only
  // the columns of the scale tiles, so a lane permutation was planned and
  // the MMA would have scaled row 1 with another row's factors. Here rows
  // 1 and 16 trade lanes (row r in lane 2 (r % 16) + r / 16).
  Request r =
      blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE8M0, 128);
  r.sfaSide = whole(TileLayout({col(4, 4), lane(2, 1), lane(16, 2), col(4, 1)},
                               {lane(4, 32)},
                               {AxisOffset{Axis::TCol, 4 * 256}}),
                    {128, 4});
  EXPECT_EQ(declined(r),
            "scale factors A (1, 0) is at lane 2 TCol 1024, lane 34 TCol "
            "1024, lane 66 TCol 1024, lane 98 TCol 1024; the instruction "
            "reads it from lane 1, TCol 1024 (byte 0 of column 256)");
  // The layout this planner used to accept (row r in lane r, one column):
  // the other partitions' copies are missing.
  Request o =
      blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE8M0, 128);
  o.sfaSide = whole(tmemRows(128, 4, 1, 4 * 256), {128, 4});
  EXPECT_EQ(declined(o),
            "scale factors A (0, 0) is at lane 0 TCol 1024; the instruction "
            "reads it from lane 32, TCol 1024 (byte 0 of column 256)");
  // Scales start at lane 0.
  Request b =
      blockScaled(MmaElement::E4M3, 8, cuda::ScaleFactorType::UE8M0, 128);
  b.sfbSide->layout = TileLayout({col(4, 4), lane(32, 1), col(4, 1)},
                                 {lane(3, 32)},
                                 {AxisOffset{Axis::TLane, 4},
                                  AxisOffset{Axis::TCol, 4 * 272}});
  EXPECT_EQ(declined(b),
            "scale factors B (0, 0) is in lane 4 at the lowest; an "
            "instruction reads each 32-lane partition's copy of the scales "
            "from its first lane (scale address lane 0)");
}

//===----------------------------------------------------------------------===//
// Declines
//===----------------------------------------------------------------------===//

TEST(Tcgen05MmaPlanner, DeclinesNameTheRule) {
  EXPECT_EQ(declined(kMajorF16(96, 128, 64, SwizzleMode::B128)),
            "M = 96 is not a multiple of a cta_group 1 MMA's M (64 or 128)");
  EXPECT_EQ(declined(kMajorF16(128, 8, 64, SwizzleMode::B128)),
            "N = 8: cta_group 1 M 128 MMAs have N a multiple of 16 in "
            "16..256; no such N divides the region's 8");
  EXPECT_EQ(declined(kMajorF16(128, 128, 24, SwizzleMode::None)),
            "K = 24 is not a multiple of kind::f16's instruction K = 16 "
            "(256 bits of a row)");
  // A tile starting at row 4 of a 128B swizzle atom.
  Request r = kMajorF16(128, 128, 64, SwizzleMode::B128);
  r.aSide = whole(nvmma(16, 256, 64, SwizzleMode::B128), {256, 64});
  r.aSide.offsets = {4, 0};
  EXPECT_EQ(declined(r),
            "A instruction tile at (0, 0) starts at byte 512, row 4 of a "
            "128-byte swizzle atom: a swizzled operand starts on an atom's "
            "first row");
  // A K slice that straddles two 64B swizzle atoms is not one region the
  // layout can describe.
  Request s = kMajorF16(128, 128, 64, SwizzleMode::B64);
  s.k = 16;
  s.aSide.offsets = {0, 24};
  s.bSide.offsets = {0, 24};
  EXPECT_EQ(declined(s),
            "A region: region [24, 40) of dim 1 wraps around an iter of "
            "extent 32");
  // Mixed f16 x bf16.
  Request m = kMajorF16(128, 128, 64, SwizzleMode::B128);
  m.b = MmaElement::BF16;
  EXPECT_EQ(declined(m), "A and B types differ (f16 x bf16); only the "
                         "fp8/fp6/fp4 kinds mix types");
}

//===----------------------------------------------------------------------===//
// Shape legality matrix
//===----------------------------------------------------------------------===//

/// The widest instruction N the PTX ISA's shape table allows for (cta_group,
/// M) dividing `n`, restated apart from the planner; 0 if none.
int64_t predictedInstN(unsigned g, int64_t instM, int64_t n, bool i8) {
  auto legal = [&](int64_t c) {
    if (g == 2)
      return c % (i8 ? 32 : 16) == 0;
    if (instM == 128)
      return c % 16 == 0;
    return i8 ? c <= 32 ? c % 8 == 0 : c % 16 == 0 : c % 8 == 0;
  };
  for (int64_t c = std::min<int64_t>(n, 256); c >= 8; --c)
    if (n % c == 0 && legal(c))
      return c;
  return 0;
}

/// The outcome the shape rules (docs/Tcgen05Mma.md) predict: "plan", or
/// the rule ("M", "N", "K", "columns").
std::string predicted(unsigned g, int64_t m, int64_t n, int64_t k,
                      int64_t instK, bool i8) {
  int64_t instM = m % (128 * g) == 0 ? 128 * g : m % (64 * g) == 0 ? 64 * g : 0;
  if (!instM)
    return "M";
  if (!predictedInstN(g, instM, n, i8))
    return "N";
  if (k % instK)
    return "K";
  if ((m / instM) * n > 512)
    return "columns";
  return "plan";
}

TEST(Tcgen05MmaPlanner, ShapeMatrix) {
  // Every (dtype, cta_group, M, N, K) of the grid either plans (and
  // is checked) or is declined naming the rule; which one is predicted from
  // the rules independently of the planner.
  struct Type {
    MmaElement e;
    unsigned bits;
    cuda::MmaAccumulator d;
    int64_t instK;
  };
  const Type types[] = {{MmaElement::F16, 16, cuda::MmaAccumulator::F32, 16},
                        {MmaElement::BF16, 16, cuda::MmaAccumulator::F32, 16},
                        {MmaElement::TF32, 32, cuda::MmaAccumulator::F32, 8},
                        {MmaElement::E4M3, 8, cuda::MmaAccumulator::F32, 32},
                        {MmaElement::S8, 8, cuda::MmaAccumulator::S32, 32}};
  const int64_t ms[] = {32, 64, 128, 192, 256, 512};
  const int64_t ns[] = {8, 16, 24, 32, 48, 64, 96, 128, 256, 512};
  std::map<std::string, int> counts;
  for (const Type &t : types)
    for (unsigned g : {1u, 2u})
      for (int64_t m : ms)
        for (int64_t n : ns)
          for (int64_t kBytes : {32, 48, 128}) {
            const int64_t k = kBytes * 8 / t.bits;
            const int64_t mLocal = m / g, nLocal = n / g;
            const int64_t perChunk = 128 / t.bits;
            Request r;
            r.a = r.b = t.e;
            r.aBits = r.bBits = t.bits;
            r.d = t.d;
            // K-major 8x16 B core matrices (no swizzle) fit every K.
            auto coreMatrices = [&](int64_t rows) {
              return TileLayout(
                  {mem(std::max<int64_t>(rows / 8, 1), k * 8),
                   mem(std::min<int64_t>(rows, 8), perChunk),
                   mem(k / perChunk, 8 * perChunk), mem(perChunk, 1)});
            };
            r.aSide = whole(coreMatrices(mLocal), {mLocal, k});
            r.bSide = whole(coreMatrices(nLocal), {nLocal, k});
            r.transposeB = true;
            // C: M tiles side by side in columns, rows on the data path of
            // the widest instruction M the rows allow.
            int64_t instM = m % (128 * g) == 0 ? 128 * g : 64 * g;
            int64_t rows = instM / g, tiles = std::max<int64_t>(mLocal / rows, 1);
            bool i8 = t.e == MmaElement::S8;
            // cta_group 2 M 128 (data path B) folds each instruction's N.
            int64_t instN = std::max<int64_t>(predictedInstN(g, instM, n, i8), 2);
            TileLayout c =
                rows == 128
                    ? TileLayout({col(tiles, n), lane(128, 1), col(n, 1)})
                : g == 2
                    ? TileLayout({col(tiles, n), lane(64, 1),
                                  col(n / instN, instN / 2), lane(2, 64),
                                  col(instN / 2, 1)})
                    : TileLayout({col(tiles, n), lane(4, 32),
                                  lane(std::min<int64_t>(mLocal, 16), 1),
                                  col(n, 1)});
            if (mLocal % rows)
              c = TileLayout({lane(mLocal, 1), col(n, 1)});
            r.cSide = whole(c, {mLocal, n});
            r.m = m;
            r.n = n;
            r.k = k;
            r.ctaGroup = g;
            std::string what = cuda::mmaElementName(t.e).str() + " cg" +
                               std::to_string(g) + " M" + std::to_string(m) +
                               " N" + std::to_string(n) + " K" +
                               std::to_string(k);
            std::string want = predicted(g, m, n, k, t.instK, i8);
            OrReason<Plan> p = planMma(r);
            std::string got;
            if (p) {
              got = "plan";
              SCOPED_TRACE(what);
              check(r, *p);
              EXPECT_TRUE(shapeRule(g, p->instM, p->instN, false, p->kind)
                              .empty())
                  << what;
            } else if (p.reason().find("MMA's M") != std::string::npos) {
              got = "M";
            } else if (p.reason().find("MMAs have N") != std::string::npos) {
              got = "N";
            } else if (p.reason().find("instruction K") != std::string::npos) {
              got = "K";
            } else if (p.reason().find("tensor memory has 512") !=
                       std::string::npos) {
              got = "columns";
            } else {
              got = "other: " + p.reason();
            }
            EXPECT_EQ(got, want) << what << (p ? "" : ": " + p.reason());
            ++counts[got];
          }
  std::printf("shape matrix: %d planned; declined: %d on M, %d on N, %d on "
              "K, %d on tensor-memory columns\n",
              counts["plan"], counts["M"], counts["N"], counts["K"],
              counts["columns"]);
  int total = 0;
  for (auto &[what, n] : counts)
    total += n;
  EXPECT_EQ(total, 5 * 2 * 6 * 10 * 3);
  EXPECT_GT(counts["plan"], 0);
}

} // namespace


//===- RegisterTilePlannerTest.cpp - map / reduce / convert planners ------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each plan is executed on simulated register files (every thread of the
// group, every register, butterflies exchanging between lanes) filled from
// a random logical tile through the layouts, and every element every thread
// holds afterwards is compared with the logical reference. The layouts are
// the ones kernels use (wgmma accumulators, register-A fragments, the
// tcgen05.ld 32x32b row-per-thread layout, row-per-warp) and random ones.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/Local/RegisterTilePlanners.h"

#include "gtest/gtest.h"

#include <map>
#include <random>

using namespace tile;
using namespace tile::local;

namespace {

Iter tid(int64_t e, int64_t s) { return Iter{e, s, Axis::tid_in_wg}; }
Iter lane(int64_t e, int64_t s) { return Iter{e, s, Axis::laneid}; }
Iter reg(int64_t e, int64_t s) { return Iter{e, s, Axis::m}; }

/// The wgmma m64nN f32 accumulator: thread 32w + 4q + r holds
/// (16w + 8h + q, 8j + 2r + e) in register 4j + 2h + e.
TileLayout accumulator(int64_t n) {
  return TileLayout({tid(4, 32), reg(2, 2), tid(8, 4), reg(n / 8, 4),
                     tid(4, 1), reg(2, 1)});
}

/// Its row vector (64 x 1): row 16w + 8h + q in register h of the quad.
TileLayout accumulatorRows() {
  return TileLayout({tid(4, 32), reg(2, 1), tid(8, 4), reg(1, 0)},
                    {tid(4, 1)});
}

RegisterTable table(const TileLayout &layout, llvm::ArrayRef<int64_t> shape) {
  OrReason<RegisterTable> t = RegisterTable::build(layout, shape);
  EXPECT_TRUE(t) << t.reason();
  return *t;
}

using RegisterFile = std::vector<std::vector<int64_t>>; // [thread][register]

/// The register files a logical tile `data` fills through `t`, over
/// `threads` threads (-1 in unused registers).
RegisterFile fill(const RegisterTable &t, const std::vector<int64_t> &data,
                  int64_t threads) {
  RegisterFile file(threads, std::vector<int64_t>(t.registers(), -1));
  for (int64_t th = 0; th < threads; ++th)
    for (int64_t r : t.usedRegisters())
      file[th][r] = data[t.element(th, r)];
  return file;
}

std::vector<int64_t> randomData(int64_t size, std::mt19937 &rng) {
  std::uniform_int_distribution<int64_t> dist(-1000, 1000);
  std::vector<int64_t> v(size);
  for (int64_t &x : v)
    x = dist(rng);
  return v;
}

int64_t sizeOf(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// The shared-scratch step of a reduce plan: one writer lane per warp and
/// row stores its partial at the word the plan's key formula names, then
/// every thread adds the warps' words of its row.
std::vector<int64_t> combineWarps(const ReducePlan &plan,
                                  const ReducePlan::Row &row,
                                  const std::vector<int64_t> &partial) {
  const int64_t threads = partial.size();
  int64_t laneBits = 0;
  for (int64_t mask : plan.laneMasks)
    laneBits |= mask;
  std::map<int64_t, int64_t> scratch;
  for (int64_t t = 0; t < threads; ++t) {
    if (t & laneBits)
      continue;
    int64_t warp = 0;
    for (size_t i = 0; i < plan.warpMasks.size(); ++i)
      if (t & plan.warpMasks[i])
        warp |= int64_t(1) << i;
    int64_t word = row.key.elementOf(t) * plan.warpPartials() + warp;
    EXPECT_LT(word, plan.scratchWords);
    EXPECT_TRUE(scratch.emplace(word, partial[t]).second)
        << "word " << word << " written twice";
  }
  std::vector<int64_t> combined(threads, 0);
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t w = 0; w < plan.warpPartials(); ++w) {
      auto it = scratch.find(row.key.elementOf(t) * plan.warpPartials() + w);
      EXPECT_NE(it, scratch.end()) << "thread " << t << " reads an unwritten word";
      if (it != scratch.end())
        combined[t] += it->second;
    }
  return combined;
}

/// Runs a reduce plan (add) on simulated registers and compares every
/// output register of every thread with the row sums of `data`.
void expectReduceComputes(const ReducePlan &plan, const RegisterTable &in,
                          const RegisterTable &out,
                          llvm::ArrayRef<int64_t> dims, std::mt19937 &rng) {
  const int64_t threads = std::max(in.threads(), out.threads());
  std::vector<int64_t> data = randomData(sizeOf(in.shape()), rng);
  RegisterFile file = fill(in, data, threads);
  RegisterFile result(threads, std::vector<int64_t>(out.registers(), -1));
  for (const ReducePlan::Row &row : plan.rows) {
    std::vector<int64_t> partial(threads, 0);
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t r : row.inputRegisters)
        partial[t] += file[t][r];
    for (int64_t mask : plan.laneMasks) {
      std::vector<int64_t> next(threads);
      for (int64_t t = 0; t < threads; ++t)
        next[t] = partial[t] + partial[t ^ mask];
      partial = next;
    }
    if (!plan.warpMasks.empty())
      partial = combineWarps(plan, row, partial);
    for (int64_t t = 0; t < threads; ++t)
      result[t][row.outputRegister] = partial[t];
  }
  // Reference: row sums.
  std::map<int64_t, int64_t> sums;
  for (int64_t e = 0; e < sizeOf(in.shape()); ++e) {
    llvm::SmallVector<int64_t, 4> c = in.coord(e);
    for (int64_t d : dims)
      c[d] = 0;
    sums[out.flat(c)] += data[e];
  }
  ASSERT_EQ(plan.rows.size(), out.usedRegisters().size());
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t r : out.usedRegisters())
      ASSERT_EQ(result[t][r], sums[out.element(t, r)])
          << "thread " << t << " register " << r;
}

TEST(RegisterTableTest, AccumulatorIsTheWgmmaFragment) {
  RegisterTable t = table(accumulator(32), {64, 32});
  EXPECT_EQ(t.threads(), 128);
  EXPECT_EQ(t.registers(), 16);
  for (int64_t th = 0; th < 128; ++th)
    for (int64_t i = 0; i < 16; ++i) {
      int64_t w = th / 32, q = th % 32 / 4, r = th % 4;
      int64_t j = i / 4, h = i / 2 % 2, e = i % 2;
      llvm::SmallVector<int64_t, 4> c = t.coord(t.element(th, i));
      EXPECT_EQ(c[0], 16 * w + 8 * h + q);
      EXPECT_EQ(c[1], 8 * j + 2 * r + e);
    }
}

TEST(RegisterTableTest, ReplicatedRowVectorIsOnEveryThreadOfItsQuad) {
  RegisterTable t = table(accumulatorRows(), {64, 1});
  for (int64_t th = 0; th < 128; ++th)
    for (int64_t h = 0; h < 2; ++h)
      EXPECT_EQ(t.element(th, h), 16 * (th / 32) + 8 * h + th % 32 / 4);
  EXPECT_EQ(t.holders(t.flat({5, 0})).size(), 4u);
}

TEST(RegisterTableTest, RefusesReplicasAlongRegisters) {
  OrReason<RegisterTable> t =
      RegisterTable::build(TileLayout({lane(32, 1)}, {reg(2, 1)}), {32});
  ASSERT_FALSE(t);
  EXPECT_NE(t.reason().find("replicates along registers"), std::string::npos);
}

TEST(MapPlannerTest, BroadcastRowVectorSubtractsTheRowMaximum) {
  RegisterTable s = table(accumulator(64), {64, 64});
  RegisterTable m = table(accumulatorRows(), {64, 1});
  OrReason<MapPlan> plan = planMap(s, {s, m});
  ASSERT_TRUE(plan) << plan.reason();
  std::mt19937 rng(1);
  std::vector<int64_t> sData = randomData(64 * 64, rng),
                       mData = randomData(64, rng);
  RegisterFile sFile = fill(s, sData, 128), mFile = fill(m, mData, 128);
  for (int64_t t = 0; t < 128; ++t)
    for (const MapPlan::Element &e : plan->elements) {
      int64_t got = sFile[t][e.inputRegisters[0]] - mFile[t][e.inputRegisters[1]];
      llvm::SmallVector<int64_t, 4> c = s.coord(s.element(t, e.outputRegister));
      EXPECT_EQ(got, sData[s.flat(c)] - mData[c[0]]);
    }
  // Coordinates: thread 0's plus a step per thread bit.
  ASSERT_TRUE(plan->coordinatesAffine) << plan->coordinatesReason;
  for (int64_t t = 0; t < 128; ++t)
    for (const MapPlan::Element &e : plan->elements) {
      llvm::SmallVector<int64_t, 4> c = s.coord(s.element(t, e.outputRegister));
      for (int d = 0; d < 2; ++d) {
        int64_t x = e.coord[d];
        for (unsigned b = 0; b < 7; ++b)
          if (t >> b & 1)
            x += plan->threadBitStep[b][d];
        EXPECT_EQ(x, c[d]);
      }
    }
}

// O = guard ? O·alpha : O, simulated branch by branch: each group's guard
// register must hold, in every thread, the guard of every element it
// covers, and the groups must cover each output register once.
TEST(MapPlannerTest, GuardedMapBranchesOncePerRowAThreadHolds) {
  std::mt19937 rng(11);
  for (int64_t n : {16, 64, 256}) {
    RegisterTable o = table(accumulator(n), {64, n});
    RegisterTable alpha = table(accumulatorRows(), {64, 1});
    RegisterTable guard = table(accumulatorRows(), {64, 1});
    OrReason<MapPlan> plan = planMap(o, {o, alpha}, &guard);
    ASSERT_TRUE(plan) << plan.reason();
    // A thread holds rows r and r + 8: two branches.
    ASSERT_EQ(plan->guardGroups.size(), 2u);
    std::vector<int64_t> oData = randomData(64 * n, rng),
                         aData = randomData(64, rng), gData(64);
    for (int64_t &g : gData)
      g = rng() % 2;
    RegisterFile oFile = fill(o, oData, 128), aFile = fill(alpha, aData, 128),
                 gFile = fill(guard, gData, 128);
    RegisterFile result = oFile;
    std::vector<int> covered(o.registers(), 0);
    for (const MapPlan::GuardGroup &group : plan->guardGroups)
      for (size_t index : group.elements) {
        const MapPlan::Element &e = plan->elements[index];
        EXPECT_EQ(e.guardRegister, group.guardRegister);
        ++covered[e.outputRegister];
        for (int64_t t = 0; t < 128; ++t)
          if (gFile[t][group.guardRegister])
            result[t][e.outputRegister] = oFile[t][e.inputRegisters[0]] *
                                          aFile[t][e.inputRegisters[1]];
      }
    for (int64_t r : o.usedRegisters())
      EXPECT_EQ(covered[r], 1) << "register " << r;
    for (int64_t t = 0; t < 128; ++t)
      for (int64_t r : o.usedRegisters()) {
        llvm::SmallVector<int64_t, 4> c = o.coord(o.element(t, r));
        int64_t want = gData[c[0]] ? oData[o.flat(c)] * aData[c[0]]
                                   : oData[o.flat(c)];
        EXPECT_EQ(result[t][r], want) << "thread " << t << " register " << r;
      }
  }
  // A guard whose rows sit on lanes other than the row's is refused,
  // naming the guard.
  RegisterTable o = table(accumulator(16), {64, 16});
  TileLayout elsewhere({tid(4, 32), reg(2, 1), tid(8, 1), reg(1, 0)},
                       {tid(4, 8)});
  RegisterTable guard = table(elsewhere, {64, 1});
  OrReason<MapPlan> bad = planMap(o, {o}, &guard);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.reason().find("of the `where` guard"), std::string::npos)
      << bad.reason();
  // An unguarded plan has no groups.
  OrReason<MapPlan> plain = planMap(o, {o});
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->guardGroups.empty());
  EXPECT_EQ(plain->elements.front().guardRegister, -1);
}

TEST(MapPlannerTest, RefusesARowVectorHeldByOneThreadOfTheQuad) {
  RegisterTable s = table(accumulator(16), {64, 16});
  // Rows on lanes 0, 4, 8, ... only: 32 threads of the 128 hold them.
  TileLayout rows({tid(4, 32), reg(2, 1), tid(8, 4), reg(1, 0)}, {});
  OrReason<RegisterTable> bad = RegisterTable::build(rows, {64, 1});
  // Not even a local layout: its threads do not cover the warpgroup.
  EXPECT_FALSE(bad);
  // A uniform scalar is held by everybody and broadcasts.
  RegisterTable scalar = table(TileLayout({reg(1, 0), reg(1, 0)}), {1, 1});
  EXPECT_TRUE(planMap(s, {scalar}));
  // A column vector in the row layout's places is not where columns are.
  RegisterTable column = table(
      TileLayout({reg(1, 0), tid(4, 32), reg(2, 1), tid(8, 4)}, {tid(4, 1)}),
      {1, 64});
  OrReason<MapPlan> plan = planMap(s, {column});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.reason().find("does not hold element"), std::string::npos)
      << plan.reason();
}

TEST(ReducePlannerTest, AccumulatorRowsReduceOverTheQuad) {
  std::mt19937 rng(2);
  for (int64_t n : {8, 16, 64, 256}) {
    RegisterTable s = table(accumulator(n), {64, n});
    RegisterTable m = table(accumulatorRows(), {64, 1});
    EXPECT_FALSE(planReduce(s, m, {1}, /*allowLanes=*/false));
    OrReason<ReducePlan> plan = planReduce(s, m, {1}, true);
    ASSERT_TRUE(plan) << plan.reason();
    EXPECT_EQ(plan->laneMasks, (llvm::SmallVector<int64_t, 5>{1, 2}));
    EXPECT_EQ(plan->rows.front().inputRegisters.size(), size_t(n / 4));
    expectReduceComputes(*plan, s, m, {1}, rng);
  }
}

TEST(ReducePlannerTest, TwoInstructionAccumulatorRowsReduceOverTheQuad) {
  // M = 128 in one warpgroup (two m64 instructions, 32 registers each):
  // row 64i + 16w + 8h + q in register 32i + 4j + 2h + e.
  std::mt19937 rng(8);
  RegisterTable s = table(TileLayout({reg(2, 32), tid(4, 32), reg(2, 2),
                                      tid(8, 4), reg(8, 4), tid(4, 1),
                                      reg(2, 1)}),
                          {128, 64});
  RegisterTable m = table(TileLayout({reg(2, 2), tid(4, 32), reg(2, 1),
                                      tid(8, 4), reg(1, 0)},
                                     {tid(4, 1)}),
                          {128, 1});
  OrReason<ReducePlan> plan = planReduce(s, m, {1}, true);
  ASSERT_TRUE(plan) << plan.reason();
  EXPECT_EQ(plan->rows.size(), 4u);
  expectReduceComputes(*plan, s, m, {1}, rng);
  // The broadcast map back onto the accumulator reads register 2i + h.
  OrReason<MapPlan> map = planMap(s, {s, m});
  ASSERT_TRUE(map) << map.reason();
  for (const MapPlan::Element &e : map->elements)
    EXPECT_EQ(e.inputRegisters[1],
              2 * (e.outputRegister / 32) + (e.outputRegister / 2) % 2);
}

TEST(ReducePlannerTest, RowPerThreadIsInThread) {
  // tcgen05.ld 32x32b: thread t holds row t, column j in register j.
  std::mt19937 rng(3);
  RegisterTable in = table(TileLayout({tid(128, 1), reg(32, 1)}), {128, 32});
  RegisterTable out = table(TileLayout({tid(128, 1), reg(1, 0)}), {128, 1});
  OrReason<ReducePlan> plan = planReduce(in, out, {1}, false);
  ASSERT_TRUE(plan) << plan.reason();
  EXPECT_TRUE(plan->laneMasks.empty());
  expectReduceComputes(*plan, in, out, {1}, rng);
}

TEST(ReducePlannerTest, RowPerWarpButterfliesOverEveryLane) {
  std::mt19937 rng(4);
  // 4 rows (one per warp) of 64: lane l holds columns 2l, 2l + 1.
  RegisterTable in =
      table(TileLayout({tid(4, 32), tid(32, 1), reg(2, 1)}), {4, 64});
  RegisterTable out =
      table(TileLayout({tid(4, 32), reg(1, 0)}, {tid(32, 1)}), {4, 1});
  OrReason<ReducePlan> plan = planReduce(in, out, {1}, true);
  ASSERT_TRUE(plan) << plan.reason();
  EXPECT_EQ(plan->laneMasks.size(), 5u);
  expectReduceComputes(*plan, in, out, {1}, rng);
}

TEST(ReducePlannerTest, RefusesRowsAcrossWarpsAndWrongOwners) {
  RegisterTable s = table(accumulator(16), {64, 16});
  // Column sums: rows span lanes and warps.
  RegisterTable cols = table(
      TileLayout({reg(1, 0), reg(2, 2), tid(4, 1), reg(2, 1)}, {tid(32, 4)}),
      {1, 16});
  OrReason<ReducePlan> plan = planReduce(s, cols, {0}, true);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.reason().find("warps"), std::string::npos) << plan.reason();
  EXPECT_TRUE(planReduce(s, cols, {0}, true, /*allowWarps=*/true));
  // An output whose rows sit on other quads than the inputs'.
  RegisterTable shifted = table(
      TileLayout({tid(4, 32), reg(2, 1), tid(8, 1), reg(1, 0)}, {tid(4, 8)}),
      {64, 1});
  plan = planReduce(s, shifted, {1}, true);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.reason().find("of its row does not hold it"), std::string::npos)
      << plan.reason();
}

/// Runs a shared-convert plan: the writers store their registers at the
/// plan's element addresses (each at most once), then every thread loads its
/// result registers; compares with `data` through the result's table.
void expectSharedConvertMoves(const SharedConvertPlan &plan,
                              const RegisterTable &source,
                              const RegisterTable &result, std::mt19937 &rng) {
  std::vector<int64_t> data = randomData(sizeOf(source.shape()), rng);
  RegisterFile file = fill(source, data, 128);
  std::map<int64_t, int64_t> scratch;
  for (int64_t t = 0; t < 128; ++t) {
    if (t & plan.replicaBits)
      continue;
    for (const AffineRegister &w : plan.writes) {
      int64_t e = w.elementOf(t);
      ASSERT_LT(e, plan.elements);
      ASSERT_TRUE(scratch.emplace(e, file[t][w.reg]).second)
          << "element " << e << " written twice";
    }
  }
  ASSERT_EQ(plan.reads.size(), result.usedRegisters().size());
  for (int64_t t = 0; t < 128; ++t)
    for (const AffineRegister &r : plan.reads) {
      auto it = scratch.find(r.elementOf(t));
      ASSERT_NE(it, scratch.end()) << "thread " << t << " reads an unwritten element";
      ASSERT_EQ(it->second, data[result.element(t, r.reg)])
          << "thread " << t << " register " << r.reg;
    }
}

TEST(SharedConvertPlannerTest, AccumulatorToRowPerThreadAndBack) {
  std::mt19937 rng(13);
  for (int64_t n : {16, 64}) {
    RegisterTable acc = table(accumulator(n), {64, n});
    RegisterTable rows =
        table(TileLayout({tid(64, 1), reg(n, 1)}, {tid(2, 64)}), {64, n});
    EXPECT_FALSE(planRegisterConvert(acc, rows));
    EXPECT_FALSE(planShuffleConvert(acc, rows));
    OrReason<SharedConvertPlan> there = planSharedConvert(acc, rows);
    ASSERT_TRUE(there) << there.reason();
    EXPECT_EQ(there->replicaBits, 0);
    expectSharedConvertMoves(*there, acc, rows, rng);
    // Back: only threads 0-63 write (64-127 hold replicas).
    OrReason<SharedConvertPlan> back = planSharedConvert(rows, acc);
    ASSERT_TRUE(back) << back.reason();
    EXPECT_EQ(back->replicaBits, 64);
    expectSharedConvertMoves(*back, rows, acc, rng);
  }
  // A warp's tile is written by every warp: refused.
  RegisterTable warp = table(TileLayout({lane(32, 1), reg(4, 1)}), {32, 4});
  OrReason<SharedConvertPlan> refused = planSharedConvert(warp, warp);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.reason().find("warpgroup"), std::string::npos)
      << refused.reason();
}

TEST(ConvertPlannerTest, AccumulatorToRegisterAIsARenaming) {
  // The register-A fragment of m64k16 for 16-bit types is the layout of a
  // 64 x 16 accumulator: P = S converted needs no data movement.
  RegisterTable s = table(accumulator(64), {64, 64});
  OrReason<ConvertPlan> plan = planRegisterConvert(s, s);
  ASSERT_TRUE(plan) << plan.reason();
  for (auto [r, from] : plan->moves)
    EXPECT_EQ(r, from);
  // Another layout of the same elements per thread: registers permuted.
  TileLayout permuted({tid(4, 32), reg(2, 1), tid(8, 4), reg(8, 4), tid(4, 1),
                       reg(2, 2)});
  RegisterTable p = table(permuted, {64, 64});
  plan = planRegisterConvert(s, p);
  ASSERT_TRUE(plan) << plan.reason();
  for (int64_t t = 0; t < 128; ++t)
    for (auto [r, from] : plan->moves)
      EXPECT_EQ(p.element(t, r), s.element(t, from));
  // Rows moved to other threads: refused.
  TileLayout transposedThreads({tid(4, 32), reg(2, 2), tid(8, 1), reg(8, 4),
                                tid(4, 8), reg(2, 1)});
  OrReason<ConvertPlan> bad =
      planRegisterConvert(s, table(transposedThreads, {64, 64}));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.reason().find("cross threads"), std::string::npos)
      << bad.reason();
}

TileLayout randomLayout(unsigned rowBits, unsigned colBits, std::mt19937 &rng,
                        unsigned threadBits = 7);

/// Runs a shuffle plan on simulated registers: every result register of
/// every thread must receive the source element at the same coordinate.
void expectShuffleMoves(const ShuffleConvertPlan &plan,
                        const RegisterTable &source,
                        const RegisterTable &result) {
  const int64_t threads = std::max(source.threads(), result.threads());
  ASSERT_EQ(plan.moves.size(), result.usedRegisters().size());
  for (int64_t t = 0; t < threads; ++t)
    for (const ShuffleConvertPlan::Move &m : plan.moves) {
      int64_t lane = m.laneXor;
      for (int b = 0; b < 5; ++b)
        if (t >> b & 1)
          lane ^= m.laneBitColumn[b];
      int64_t from = (t & ~int64_t(31)) | lane;
      ASSERT_EQ(source.element(from, m.sourceRegister),
                result.element(t, m.resultRegister))
          << "thread " << t << " register " << m.resultRegister;
    }
}

TEST(ShuffleConvertPlannerTest, LaneBitsPermutedWithinTheWarp) {
  // The accumulator with q and r's thread bits swapped: every element
  // stays in its warp and register, in another lane.
  RegisterTable s = table(accumulator(64), {64, 64});
  TileLayout swapped({tid(4, 32), reg(2, 2), tid(8, 1), reg(8, 4), tid(4, 8),
                      reg(2, 1)});
  RegisterTable p = table(swapped, {64, 64});
  EXPECT_FALSE(planRegisterConvert(s, p));
  OrReason<ShuffleConvertPlan> plan = planShuffleConvert(s, p);
  ASSERT_TRUE(plan) << plan.reason();
  EXPECT_FALSE(plan->moves.front().isButterfly());
  expectShuffleMoves(*plan, s, p);
}

TEST(ShuffleConvertPlannerTest, RefusesAThreadDependentSourceRegister) {
  // A warp's 32 x 2 tile: lane l holds row l (two registers) in the source
  // and rows 2(l / 2) .. + 1 of column l % 2 in the result: the register a
  // lane would send depends on who asks.
  RegisterTable src = table(TileLayout({lane(32, 1), reg(2, 1)}), {32, 2});
  RegisterTable dst =
      table(TileLayout({lane(16, 2), reg(2, 1), lane(2, 1)}), {32, 2});
  OrReason<ShuffleConvertPlan> plan = planShuffleConvert(src, dst);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.reason().find("would depend on the thread"),
            std::string::npos)
      << plan.reason();
}

TEST(ShuffleConvertPlannerTest, RefusesDataCrossingWarps) {
  RegisterTable s = table(accumulator(16), {64, 16});
  // Warps hold other rows than the accumulator's warps.
  TileLayout rowsAcrossWarps({tid(4, 1), reg(2, 2), tid(8, 4), reg(2, 4),
                              tid(4, 32), reg(2, 1)});
  OrReason<ShuffleConvertPlan> plan =
      planShuffleConvert(s, table(rowsAcrossWarps, {64, 16}));
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.reason().find("must cross warps"), std::string::npos)
      << plan.reason();
}

TEST(RegisterTilePlannerPropertyTest, RandomShufflesMoveTheRightElements) {
  std::mt19937 rng(7);
  int planned = 0;
  for (int trial = 0; trial < 300; ++trial) {
    // One warp's 2^4 x 2^4 tile: random lane/register bit assignments on
    // both sides; any plan must be right, and bit permutations that keep
    // registers fixed must be planned.
    TileLayout a = randomLayout(4, 4, rng, 5), b = randomLayout(4, 4, rng, 5);
    auto toLanes = [](const TileLayout &l) {
      llvm::SmallVector<Iter> shard, replica;
      for (Iter it : l.shard()) {
        if (it.axis == Axis::tid_in_wg)
          it.axis = Axis::laneid;
        shard.push_back(it);
      }
      for (Iter it : l.replica()) {
        it.axis = Axis::laneid;
        replica.push_back(it);
      }
      return TileLayout(shard, replica);
    };
    RegisterTable ta = table(toLanes(a), {16, 16});
    RegisterTable tb = table(toLanes(b), {16, 16});
    OrReason<ShuffleConvertPlan> plan = planShuffleConvert(ta, tb);
    if (plan) {
      ++planned;
      expectShuffleMoves(*plan, ta, tb);
    }
    // The lane strides of `a` permuted, registers untouched: every element
    // keeps its register and moves to a lane a bit permutation names, so a
    // plan must exist.
    llvm::SmallVector<Iter> shard(toLanes(a).shard());
    llvm::SmallVector<int64_t> laneStrides;
    for (const Iter &it : shard)
      if (it.axis == Axis::laneid)
        laneStrides.push_back(it.stride);
    std::shuffle(laneStrides.begin(), laneStrides.end(), rng);
    size_t next = 0;
    for (Iter &it : shard)
      if (it.axis == Axis::laneid)
        it.stride = laneStrides[next++];
    RegisterTable tp = table(TileLayout(shard, toLanes(a).replica()), {16, 16});
    OrReason<ShuffleConvertPlan> permuted = planShuffleConvert(ta, tp);
    ASSERT_TRUE(permuted) << permuted.reason();
    expectShuffleMoves(*permuted, ta, tp);
  }
  EXPECT_GT(planned, 0);
}

/// A random local layout of a 2^rowBits x 2^colBits tile: each index bit
/// is a thread bit or a register bit; thread bits not used by the tile
/// become replicas.
TileLayout randomLayout(unsigned rowBits, unsigned colBits, std::mt19937 &rng,
                        unsigned threadBits) {
  const unsigned bits = rowBits + colBits;
  std::vector<int> isThread(bits, 0);
  unsigned used = std::min(threadBits, bits);
  std::fill(isThread.begin(), isThread.begin() + used, 1);
  std::shuffle(isThread.begin(), isThread.end(), rng);
  std::vector<int64_t> threadStride, regStride;
  for (unsigned b = 0; b < threadBits; ++b)
    threadStride.push_back(int64_t(1) << b);
  std::shuffle(threadStride.begin(), threadStride.end(), rng);
  for (unsigned b = 0; b + used < bits; ++b)
    regStride.push_back(int64_t(1) << b);
  std::shuffle(regStride.begin(), regStride.end(), rng);
  llvm::SmallVector<Iter> shard, replica;
  size_t nextThread = 0, nextReg = 0;
  for (unsigned b = 0; b < bits; ++b)
    shard.push_back(isThread[b] ? tid(2, threadStride[nextThread++])
                                : reg(2, regStride[nextReg++]));
  for (; nextThread < threadBits; ++nextThread)
    replica.push_back(tid(2, threadStride[nextThread]));
  return TileLayout(shard, replica);
}

TEST(ReducePlannerTest, ColumnSumsCombineWarpsThroughScratch) {
  // Columns of the m64nN accumulator span 8 lanes (xor 4, 8, 16) and the 4
  // warps (xor 32, 64): 4 partials per output element in scratch.
  std::mt19937 rng(11);
  for (int64_t n : {8, 16, 64}) {
    RegisterTable s = table(accumulator(n), {64, n});
    RegisterTable cols = table(
        TileLayout({reg(1, 0), reg(n / 8, 2), tid(4, 1), reg(2, 1)},
                   {tid(32, 4)}),
        {1, n});
    OrReason<ReducePlan> plan = planReduce(s, cols, {0}, true, true);
    ASSERT_TRUE(plan) << plan.reason();
    EXPECT_EQ(plan->laneMasks, (llvm::SmallVector<int64_t, 5>{4, 8, 16}));
    EXPECT_EQ(plan->warpMasks, (llvm::SmallVector<int64_t, 2>{32, 64}));
    EXPECT_EQ(plan->scratchWords, n * 4);
    expectReduceComputes(*plan, s, cols, {0}, rng);
  }
  // The whole tile to one scalar held by every thread.
  RegisterTable s = table(accumulator(16), {64, 16});
  RegisterTable all =
      table(TileLayout({reg(1, 0), reg(1, 0)}, {tid(128, 1)}), {1, 1});
  OrReason<ReducePlan> plan = planReduce(s, all, {0, 1}, true, true);
  ASSERT_TRUE(plan) << plan.reason();
  EXPECT_EQ(plan->laneMasks.size(), 5u);
  EXPECT_EQ(plan->scratchWords, 4);
  expectReduceComputes(*plan, s, all, {0, 1}, rng);
}

TEST(RegisterTilePlannerPropertyTest, RandomLayoutsReduceExactlyOrRefuse) {
  std::mt19937 rng(5);
  int planned = 0, refused = 0;
  for (int trial = 0; trial < 200; ++trial) {
    unsigned rowBits = 2 + rng() % 5, colBits = 1 + rng() % 5;
    if (rowBits + colBits < 7)
      colBits = 7 - rowBits;
    TileLayout inLayout = randomLayout(rowBits, colBits, rng);
    int64_t rows = int64_t(1) << rowBits, cols = int64_t(1) << colBits;
    RegisterTable in = table(inLayout, {rows, cols});
    // The output: where the input's rows are, replicated on the threads
    // whose bits only move the column (the natural reduce result).
    llvm::SmallVector<Iter> shard, replica;
    unsigned bit = 0;
    for (const Iter &it : inLayout.shard()) {
      if (bit++ < rowBits)
        shard.push_back(it);
      else if (it.axis != Axis::m)
        replica.push_back(it);
    }
    shard.push_back(reg(1, 0));
    for (const Iter &it : inLayout.replica())
      replica.push_back(it);
    // Registers of the row part, renumbered densely.
    int64_t stride = 1;
    llvm::SmallVector<Iter> dense;
    for (size_t i = shard.size(); i-- > 0;) {
      Iter it = shard[i];
      if (it.axis == Axis::m && it.extent > 1) {
        it.stride = stride;
        stride *= it.extent;
      }
      dense.insert(dense.begin(), it);
    }
    OrReason<RegisterTable> out =
        RegisterTable::build(TileLayout(dense, replica), {rows, 1});
    ASSERT_TRUE(out) << out.reason();
    OrReason<ReducePlan> plan = planReduce(in, *out, {1}, true);
    if (!plan) {
      ++refused;
      EXPECT_NE(plan.reason().find("warps"), std::string::npos)
          << plan.reason();
      // Through shared scratch, every such row reduces.
      plan = planReduce(in, *out, {1}, true, /*allowWarps=*/true);
      ASSERT_TRUE(plan) << plan.reason();
      EXPECT_FALSE(plan->warpMasks.empty());
      expectReduceComputes(*plan, in, *out, {1}, rng);
      continue;
    }
    ++planned;
    expectReduceComputes(*plan, in, *out, {1}, rng);
  }
  EXPECT_GT(planned, 20);
  EXPECT_GT(refused, 20);
}

TEST(RegisterTilePlannerPropertyTest, RandomConvertsMoveTheRightElements) {
  std::mt19937 rng(6);
  int planned = 0;
  for (int trial = 0; trial < 200; ++trial) {
    TileLayout a = randomLayout(4, 5, rng);
    // Same thread bits, registers permuted: always a renaming.
    llvm::SmallVector<Iter> shard(a.shard());
    llvm::SmallVector<int64_t> regStrides;
    for (const Iter &it : shard)
      if (it.axis == Axis::m)
        regStrides.push_back(it.stride);
    std::shuffle(regStrides.begin(), regStrides.end(), rng);
    size_t k = 0;
    for (Iter &it : shard)
      if (it.axis == Axis::m)
        it.stride = regStrides[k++];
    TileLayout b(shard, a.replica());
    RegisterTable ta = table(a, {16, 32}), tb = table(b, {16, 32});
    OrReason<ConvertPlan> plan = planRegisterConvert(ta, tb);
    ASSERT_TRUE(plan) << plan.reason();
    for (int64_t t = 0; t < 128; ++t)
      for (auto [r, from] : plan->moves)
        ASSERT_EQ(tb.element(t, r), ta.element(t, from));
    // Against an unrelated random layout: a plan only where it is right.
    TileLayout c = randomLayout(4, 5, rng);
    RegisterTable tc = table(c, {16, 32});
    OrReason<ConvertPlan> other = planRegisterConvert(ta, tc);
    if (!other) {
      // A decline must be justified: some thread lacks an element, or
      // holds it in a register that depends on the thread.
      bool justified = false;
      for (int64_t r : tc.usedRegisters()) {
        int64_t first = ta.registerOf(0, tc.element(0, r));
        for (int64_t t = 0; t < 128 && !justified; ++t) {
          int64_t here = ta.registerOf(t, tc.element(t, r));
          justified = here < 0 || here != first;
        }
      }
      EXPECT_TRUE(justified) << other.reason();
      continue;
    }
    ++planned;
    for (int64_t t = 0; t < 128; ++t)
      for (auto [r, from] : other->moves)
        ASSERT_EQ(tc.element(t, r), ta.element(t, from));
  }
  (void)planned;
}

} // namespace

namespace {

TEST(RegisterTilePlannerPropertyTest, RandomLayoutsConvertThroughShared) {
  // Any two warpgroup layouts of one tile (random, possibly with replicas):
  // the shared-memory plan moves every element once, to every thread that
  // holds it in the result.
  std::mt19937 rng(17);
  int planned = 0;
  for (int trial = 0; trial < 200; ++trial) {
    unsigned threadBits = 5 + rng() % 3; // replicated when below 7
    TileLayout a = randomLayout(4, 5, rng, threadBits);
    if (threadBits < 7)
      a = TileLayout(llvm::SmallVector<Iter>(a.shard()),
                     {tid(int64_t(1) << (7 - threadBits),
                          int64_t(1) << threadBits)});
    TileLayout b = randomLayout(4, 5, rng);
    OrReason<RegisterTable> ta = RegisterTable::build(a, {16, 32});
    ASSERT_TRUE(ta) << ta.reason();
    RegisterTable tb = table(b, {16, 32});
    OrReason<SharedConvertPlan> plan = planSharedConvert(*ta, tb);
    ASSERT_TRUE(plan) << plan.reason();
    EXPECT_EQ(plan->replicaBits,
              threadBits < 7 ? 127 & ~((int64_t(1) << threadBits) - 1) : 0);
    expectSharedConvertMoves(*plan, *ta, tb, rng);
    ++planned;
  }
  EXPECT_EQ(planned, 200);
}

} // namespace

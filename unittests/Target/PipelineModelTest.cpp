//===- PipelineModelTest.cpp - the mbarrier / async-group model -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Model/PipelineModel.h"

#include <gtest/gtest.h>

using namespace tile::cuda::model;

namespace {

// Distinct tags standing for ops.
const int opInit = 0, opArrive = 0, opWait = 0, opCopy = 0, opRead = 0,
          opWrite = 0, opExit = 0, opBar = 0;

SharedBox box(int64_t buffer, int64_t stage, int64_t rows = 64) {
  SharedBox b;
  b.buffer = buffer;
  b.lo = {stage, 0};
  b.hi = {stage + 1, rows};
  return b;
}

/// One barrier group of `n`, initialized by thread 0 with `count`, fenced
/// and published to `threads` threads through the CTA barrier.
/// Rows 0..31 (`top`) or 32..63 of stage 0 of buffer 0.
SharedBox half(bool top) {
  SharedBox b = box(0, 0);
  (top ? b.hi[1] : b.lo[1]) = 32;
  return b;
}

PipelineModel ready(int64_t threads, int64_t n, int64_t count) {
  PipelineModel model(threads, {n});
  for (int64_t i = 0; i < n; ++i)
    model.init(0, {0, i}, count, &opInit);
  model.fenceInit(0);
  for (int64_t t = 0; t < threads; ++t)
    model.barArrive(t, -1, -1, &opBar);
  return model;
}

/// Thread 0 announces and copies 128 bytes into box(0, 0) on barrier
/// {0, 0}, and the copy lands (phase 0 completes).
void loadStage(PipelineModel &model) {
  model.expectTx(0, {0, 0}, 128, &opArrive);
  model.arrive(0, {0, 0}, 1, &opArrive);
  model.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  model.completeOldest();
}

TEST(PipelineModelTest, BoxesOverlapPerDim) {
  EXPECT_TRUE(box(0, 1).overlaps(box(0, 1)));
  EXPECT_FALSE(box(0, 1).overlaps(box(0, 2)));
  EXPECT_FALSE(box(0, 1).overlaps(box(1, 1)));
  SharedBox top = box(0, 0, 32), whole = box(0, 0, 64);
  top.lo[1] = 32;
  top.hi[1] = 64;
  EXPECT_TRUE(top.overlaps(whole));
}

TEST(PipelineModelTest, FreshBarrierPassesParityOneOnly) {
  PipelineModel model = ready(1, 1, 2);
  EXPECT_TRUE(model.wouldPass({0, 0}, true));
  EXPECT_FALSE(model.wouldPass({0, 0}, false));
  model.arrive(0, {0, 0}, 1, &opArrive);
  EXPECT_FALSE(model.wouldPass({0, 0}, false)) << "1 of 2 arrivals";
  model.arrive(0, {0, 0}, 1, &opArrive);
  EXPECT_TRUE(model.wouldPass({0, 0}, false)) << "phase 0 completed";
  EXPECT_FALSE(model.wouldPass({0, 0}, true)) << "phase 1 is current";
  EXPECT_FALSE(model.failed());
}

TEST(PipelineModelTest, TransactionBytesHoldThePhase) {
  PipelineModel model = ready(1, 1, 1);
  model.expectTx(0, {0, 0}, 4096, &opArrive);
  model.arrive(0, {0, 0}, 1, &opArrive);
  model.copyIntoShared(0, box(0, 0), {0, 0}, 4096, &opCopy);
  EXPECT_FALSE(model.wouldPass({0, 0}, false)) << "bytes outstanding";
  EXPECT_EQ(model.barrierState({0, 0}),
            "phase 0 has 1 of 1 arrivals and waits for 4096 more bytes");
  EXPECT_TRUE(model.completeOldest());
  EXPECT_FALSE(model.completeOldest());
  EXPECT_TRUE(model.wouldPass({0, 0}, false));
  EXPECT_FALSE(model.failed());
}

TEST(PipelineModelTest, WaitingTwiceOnOnePhaseIsStale) {
  PipelineModel model = ready(1, 1, 1);
  model.arrive(0, {0, 0}, 1, &opArrive);
  EXPECT_TRUE(model.tryWait(0, {0, 0}, false, &opWait));
  EXPECT_FALSE(model.failed());
  EXPECT_TRUE(model.tryWait(0, {0, 0}, false, &opWait));
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find(
                "passes on phase 0, which it already waited for"),
            std::string::npos)
      << model.getFindings()[0].message;
}

TEST(PipelineModelTest, ConsumersTakingTurnsSkipPhases) {
  // Two consumers alternate over one barrier (ping-pong): each sees every
  // other phase, which is no error.
  PipelineModel model = ready(2, 1, 1);
  for (int phase = 0; phase < 6; ++phase) {
    model.arrive(0, {0, 0}, 1, &opArrive);
    EXPECT_TRUE(model.tryWait(1, {0, 0}, false, &opWait)); // phase 2p
    model.arrive(0, {0, 0}, 1, &opArrive);
  }
  EXPECT_FALSE(model.failed());
}

TEST(PipelineModelTest, ArrivingBeyondTheInitCount) {
  // The phase has its one arrival and waits for bytes: a second arrival
  // is one more than the init count allows.
  PipelineModel model = ready(1, 1, 1);
  model.expectTx(0, {0, 0}, 128, &opArrive);
  model.arrive(0, {0, 0}, 1, &opArrive);
  EXPECT_FALSE(model.failed());
  model.arrive(0, {0, 0}, 1, &opArrive);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find(
                "more arrivals than its init count"),
            std::string::npos)
      << model.getFindings()[0].message;
}

TEST(PipelineModelTest, ReinitializingStartsOver) {
  PipelineModel model = ready(1, 1, 1);
  model.arrive(0, {0, 0}, 1, &opArrive);
  EXPECT_TRUE(model.tryWait(0, {0, 0}, false, &opWait)); // phase 0
  model.init(0, {0, 0}, 1, &opInit);
  model.arrive(0, {0, 0}, 1, &opArrive);
  EXPECT_TRUE(model.tryWait(0, {0, 0}, false, &opWait)); // phase 0 again
  EXPECT_FALSE(model.failed());
}

TEST(PipelineModelTest, AnArrivalReleasesWhatItsThreadKnows) {
  // Thread 0 waits for the copy, then arrives on barrier 1; thread 1
  // waits on barrier 1 and may read what the copy brought.
  PipelineModel model = ready(2, 2, 1);
  loadStage(model);
  EXPECT_TRUE(model.tryWait(0, {0, 0}, false, &opWait));
  model.arrive(0, {0, 1}, 1, &opArrive);
  EXPECT_TRUE(model.tryWait(1, {0, 1}, false, &opWait));
  model.readShared(1, box(0, 0), &opRead);
  EXPECT_FALSE(model.failed());
}

TEST(PipelineModelTest, ReadingAnotherWarpsStoreNeedsASynchronization) {
  // Warp 1 (thread 32) stores the bottom half of a staging tile and warp 0
  // (thread 0) the top; thread 0 then reads the whole tile.
  SharedBox top = half(true), bottom = half(false);
  PipelineModel unordered = ready(64, 2, 1);
  unordered.writeShared(0, top, &opWrite);
  unordered.writeShared(32, bottom, &opWrite);
  unordered.readShared(1, top, &opRead); // its own warp's store: in order
  EXPECT_FALSE(unordered.failed());
  unordered.readShared(0, box(0, 0), &opRead);
  ASSERT_TRUE(unordered.failed());
  EXPECT_NE(unordered.getFindings().front().message.find(
                "thread 32 (warpgroup 0, warp 1, lane 0) stored without "
                "synchronizing"),
            std::string::npos)
      << unordered.getFindings().front().message;

  // A named barrier both warps take part in orders the stores before a
  // TMA store reading the tile; a store after it is not ordered before
  // the next read.
  PipelineModel barrier = ready(64, 2, 1);
  barrier.writeShared(0, top, &opWrite);
  barrier.writeShared(32, bottom, &opWrite);
  for (int64_t t : {0, 32})
    barrier.barArrive(t, 1, 64, &opBar, 32);
  int64_t leader[] = {0};
  barrier.asyncRead(leader, AsyncGroupKind::Bulk, box(0, 0), &opRead);
  barrier.commitGroup(0, AsyncGroupKind::Bulk);
  barrier.waitGroup(0, AsyncGroupKind::Bulk, 0);
  EXPECT_FALSE(barrier.failed());
  barrier.writeShared(32, bottom, &opWrite);
  barrier.asyncRead(leader, AsyncGroupKind::Bulk, box(0, 0), &opRead);
  EXPECT_TRUE(barrier.failed());

  // So does an mbarrier phase that a lane of the storing warp arrived on
  // (lane 0 releasing after lane 31 stored: one warp, program order) and
  // the reader waited for.
  PipelineModel phase = ready(64, 2, 1);
  phase.writeShared(63, bottom, &opWrite);
  phase.arrive(32, {0, 1}, 1, &opArrive);
  EXPECT_TRUE(phase.tryWait(0, {0, 1}, false, &opWait));
  phase.readShared(0, bottom, &opRead);
  EXPECT_FALSE(phase.failed());
}

TEST(PipelineModelTest, ConsecutivePhasesAreFine) {
  PipelineModel model = ready(2, 1, 1);
  // Producer (thread 0) waits on a fresh "empty" barrier with parity 1,
  // then on each release; the releases come from thread 1.
  EXPECT_TRUE(model.tryWait(0, {0, 0}, true, &opWait)); // phase -1
  for (int round = 0; round < 4; ++round) {
    EXPECT_FALSE(model.wouldPass({0, 0}, round & 1));
    model.arrive(1, {0, 0}, 1, &opArrive);
    EXPECT_TRUE(model.tryWait(0, {0, 0}, round & 1, &opWait));
  }
  EXPECT_FALSE(model.failed());
}

TEST(PipelineModelTest, OverwritingUnderAWgmmaIsARace) {
  PipelineModel model = ready(2, 1, 1);
  int64_t readers[] = {1};
  model.asyncRead(readers, AsyncGroupKind::Wgmma, box(0, 0), &opRead);
  model.commitGroup(1, AsyncGroupKind::Wgmma);
  model.waitGroup(1, AsyncGroupKind::Wgmma, 1); // still in flight
  model.copyIntoShared(0, box(0, 1), {0, 0}, 128, &opCopy);
  EXPECT_FALSE(model.failed()) << "another stage";
  model.completeOldest();
  model.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  ASSERT_TRUE(model.failed());
  const Finding &f = model.getFindings()[0];
  EXPECT_NE(f.message.find("while a wgmma issued by thread 1"),
            std::string::npos)
      << f.message;
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0].first, &opRead);
}

/// Thread 0 produces; threads 1 and 2 (two warps of a warpgroup) issue one
/// wgmma reading stage 0 and release it on barrier 1 (two arrivals), each
/// before or after its own wait_group retires the wgmma; then thread 0
/// waits for that phase and copies into stage 0.
bool stageReleased(bool firstWaitsFirst, bool secondWaitsFirst,
                   std::string *message = nullptr,
                   bool barrierBeforeCopy = false) {
  PipelineModel model(3, {2});
  model.init(0, {0, 0}, 1, &opInit);
  model.init(0, {0, 1}, 2, &opInit);
  model.fenceInit(0);
  for (int64_t t = 0; t < 3; ++t)
    model.barArrive(t, -1, -1, &opBar);
  int64_t readers[] = {1, 2};
  model.asyncRead(readers, AsyncGroupKind::Wgmma, box(0, 0), &opRead);
  for (int64_t t : {1, 2})
    model.commitGroup(t, AsyncGroupKind::Wgmma);
  for (auto [t, waitsFirst] : {std::pair<int64_t, bool>{1, firstWaitsFirst},
                               {2, secondWaitsFirst}}) {
    if (waitsFirst)
      model.waitGroup(t, AsyncGroupKind::Wgmma, 0);
    model.arrive(t, {0, 1}, 1, &opArrive);
    if (!waitsFirst)
      model.waitGroup(t, AsyncGroupKind::Wgmma, 0);
  }
  EXPECT_TRUE(model.tryWait(0, {0, 1}, false, &opWait));
  if (barrierBeforeCopy)
    for (int64_t t = 0; t < 3; ++t)
      model.barArrive(t, -1, -1, &opBar);
  model.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  if (message && model.failed())
    *message = model.getFindings()[0].message;
  return !model.failed();
}

TEST(PipelineModelTest, ReleasingAStageBeforeRetiringItsWgmmaIsARace) {
  // Thread 1's wait retires the wgmma for the whole warpgroup before thread
  // 2 arrives, but thread 2's arrival is not ordered after that wait: the
  // phase completes with both arrivals early.
  std::string message;
  EXPECT_FALSE(stageReleased(false, false, &message));
  EXPECT_NE(message.find("released it on mbarrier 1 of group 0 before its "
                         "tile.wait_group wgmma retired the wgmma"),
            std::string::npos)
      << message;
}

TEST(PipelineModelTest, ABarrierAfterTheRetiringWaitsOrdersTheWrite) {
  // Both arrivals early, but the producer then shares a CTA barrier with
  // the threads that retired the wgmma.
  EXPECT_TRUE(stageReleased(false, false, nullptr, true));
}

TEST(PipelineModelTest, OneArrivalAfterItsOwnWaitReleasesTheStage) {
  // The phase completes after every arrival, so after the one that came
  // after its thread's wait saw the wgmma complete.
  EXPECT_TRUE(stageReleased(true, true));
  EXPECT_TRUE(stageReleased(true, false));
  EXPECT_TRUE(stageReleased(false, true));
}

TEST(PipelineModelTest, RetiredWgmmaFreesItsOperands) {
  PipelineModel model = ready(2, 1, 1);
  int64_t readers[] = {1};
  model.asyncRead(readers, AsyncGroupKind::Wgmma, box(0, 0), &opRead);
  model.waitGroup(1, AsyncGroupKind::Wgmma, 0);
  model.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  EXPECT_TRUE(model.failed()) << "an uncommitted wgmma is not retired";
  PipelineModel again = ready(2, 1, 1);
  again.asyncRead(readers, AsyncGroupKind::Wgmma, box(0, 0), &opRead);
  again.commitGroup(1, AsyncGroupKind::Wgmma);
  again.waitGroup(1, AsyncGroupKind::Wgmma, 0);
  again.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  EXPECT_FALSE(again.failed());
}

TEST(PipelineModelTest, ReadingBeforeTheCopyCompletesIsARace) {
  PipelineModel model = ready(2, 1, 1);
  model.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  model.readShared(1, box(0, 0), &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("has not completed"),
            std::string::npos);
}

TEST(PipelineModelTest, ReadingWithoutWaitingForThePhaseIsARace) {
  PipelineModel model = ready(2, 1, 1);
  loadStage(model);
  model.readShared(1, box(0, 0), &opRead);
  ASSERT_TRUE(model.failed()) << "completed, but thread 1 never waited";
  PipelineModel waited = ready(2, 1, 1);
  loadStage(waited);
  EXPECT_TRUE(waited.tryWait(1, {0, 0}, false, &opWait));
  waited.readShared(1, box(0, 0), &opRead);
  EXPECT_FALSE(waited.failed());
}

TEST(PipelineModelTest, AWaitIsPassedOnThroughABarrier) {
  // Thread 0 waits for the copy; threads 1 and 2 learn of it through named
  // barrier 1, which thread 0 takes part in; thread 3 does not.
  PipelineModel model = ready(4, 1, 1);
  loadStage(model);
  EXPECT_TRUE(model.tryWait(0, {0, 0}, false, &opWait));
  for (int64_t t : {0, 1, 2}) // each standing for its warp's 32
    model.barArrive(t, 1, 96, &opBar, 32);
  model.readShared(1, box(0, 0), &opRead);
  model.readShared(2, box(0, 0), &opRead);
  EXPECT_FALSE(model.failed());
  model.readShared(3, box(0, 0), &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("thread 3 "),
            std::string::npos);
}

TEST(PipelineModelTest, ThreadsThatSharedWhatTheyKnewLearnApart) {
  // After the CTA barrier all four threads share what they know; threads 0
  // and 1 then make the same wait in turn (as lanes of a warp do), thread 2
  // does not, and only what a barrier passes on reaches thread 2, not 3.
  PipelineModel model = ready(4, 1, 1);
  loadStage(model);
  EXPECT_TRUE(model.tryWait(0, {0, 0}, false, &opWait));
  EXPECT_TRUE(model.tryWait(1, {0, 0}, false, &opWait));
  model.readShared(0, box(0, 0), &opRead);
  model.readShared(1, box(0, 0), &opRead);
  EXPECT_FALSE(model.failed());
  PipelineModel forked = ready(4, 1, 1);
  loadStage(forked);
  EXPECT_TRUE(forked.tryWait(0, {0, 0}, false, &opWait));
  EXPECT_TRUE(forked.tryWait(1, {0, 0}, false, &opWait));
  for (int64_t t : {1, 2}) // each standing for its warp's 32
    forked.barArrive(t, 1, 64, &opBar, 32);
  forked.readShared(2, box(0, 0), &opRead);
  EXPECT_FALSE(forked.failed());
  forked.readShared(3, box(0, 0), &opRead);
  ASSERT_TRUE(forked.failed());
  EXPECT_NE(forked.getFindings()[0].message.find("thread 3 "),
            std::string::npos);
  model.readShared(2, box(0, 0), &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("thread 2 "),
            std::string::npos);
}

TEST(PipelineModelTest, TmaCopyNeedsAFencedInit) {
  PipelineModel model(1, {1});
  model.init(0, {0, 0}, 1, &opInit);
  model.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("tile.fence mbarrier_init"),
            std::string::npos);
}

TEST(PipelineModelTest, InitIsVisibleOnlyAfterABarrier) {
  PipelineModel model(64, {1});
  model.init(0, {0, 0}, 1, &opInit);
  model.arrive(0, {0, 0}, 1, &opArrive);
  EXPECT_FALSE(model.failed()) << "the initializing thread itself";
  model.arrive(40, {0, 0}, 1, &opArrive);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("before a barrier"),
            std::string::npos);

  PipelineModel published(64, {1});
  published.init(0, {0, 0}, 1, &opInit);
  int64_t generation = 0;
  for (int64_t t = 0; t < 64; ++t) {
    EXPECT_FALSE(published.barPassed(0, -1, 0));
    generation = published.barArrive(t, -1, -1, &opBar);
  }
  EXPECT_TRUE(published.barPassed(0, -1, generation));
  published.arrive(40, {0, 0}, 1, &opArrive);
  EXPECT_FALSE(published.failed());
}

TEST(PipelineModelTest, NamedBarrierCountsMustAgree) {
  PipelineModel model(256, {});
  model.barArrive(0, 1, 128, &opBar);
  model.barArrive(1, 1, 256, &opBar);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("expecting 256 threads"),
            std::string::npos);
}

TEST(PipelineModelTest, ExitingUnderATmaStoreIsReported) {
  PipelineModel model = ready(1, 1, 1);
  int64_t store[] = {0};
  model.asyncRead(store, AsyncGroupKind::Bulk, box(0, 0), &opRead);
  model.commitGroup(0, AsyncGroupKind::Bulk);
  model.exitThread(0, &opExit);
  ASSERT_TRUE(model.failed());
  EXPECT_EQ(model.getFindings()[0].op, &opExit);

  PipelineModel waited = ready(1, 1, 1);
  waited.asyncRead(store, AsyncGroupKind::Bulk, box(0, 0), &opRead);
  waited.commitGroup(0, AsyncGroupKind::Bulk);
  waited.waitGroup(0, AsyncGroupKind::Bulk, 0);
  waited.exitThread(0, &opExit);
  EXPECT_FALSE(waited.failed());
}

TEST(PipelineModelTest, CtaBarrierStopsWaitingForExitedThreads) {
  PipelineModel model(2, {});
  int64_t generation = model.barArrive(0, -1, -1, &opBar);
  EXPECT_FALSE(model.barPassed(0, -1, generation));
  model.exitThread(1, &opExit);
  EXPECT_TRUE(model.barPassed(0, -1, generation));
}

TEST(PipelineModelTest, DeadlockNamesEveryWait) {
  PipelineModel model = ready(2, 2, 1);
  model.reportDeadlock({{0, &opWait, BarrierRef{0, 1}, -1, false},
                        {1, &opBar, std::nullopt, 3, false}});
  ASSERT_TRUE(model.failed());
  const Finding &f = model.getFindings()[0];
  EXPECT_NE(f.message.find("waits for parity 0 on mbarrier 1 of group 0: "
                           "phase 0 has 0 of 1 arrivals"),
            std::string::npos)
      << f.message;
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].second.find("at named barrier 3"), std::string::npos);
}

TEST(PipelineModelTest, Tcgen05CommitTracksAllEarlierWork) {
  // Thread 0 issues two MMAs into one accumulator (buffer 1), committing to
  // a stage barrier after each and to the accumulator barrier at the end;
  // thread 1 waits for the accumulator barrier and reads.
  PipelineModel model = ready(2, 3, 1);
  SharedBox acc = box(1, 0);
  SharedBox operands[] = {box(0, 0)};
  model.tcgen05Op(0, operands, {acc}, &opCopy);
  model.tcgen05Commit(0, {0, 0}, &opArrive);
  model.tcgen05Op(0, operands, {acc}, &opCopy);
  EXPECT_FALSE(model.failed()) << "MMAs on one pipe are in order";
  model.tcgen05Commit(0, {0, 1}, &opArrive);
  model.tcgen05Commit(0, {0, 2}, &opArrive); // nothing since the last one
  model.readShared(1, acc, &opRead);
  ASSERT_TRUE(model.failed()) << "read before any commit arrived";
  EXPECT_NE(model.getFindings()[0].message.find("not committed yet"),
            std::string::npos)
      << model.getFindings()[0].message;

  PipelineModel waited = ready(2, 3, 1);
  waited.tcgen05Op(0, operands, {acc}, &opCopy);
  waited.tcgen05Commit(0, {0, 0}, &opArrive);
  waited.tcgen05Op(0, operands, {acc}, &opCopy);
  waited.tcgen05Commit(0, {0, 1}, &opArrive);
  waited.tcgen05Commit(0, {0, 2}, &opArrive);
  while (waited.completeOldest()) {
  }
  // The last commit tracks both MMAs although none was issued after the
  // one before it.
  EXPECT_TRUE(waited.tryWait(1, {0, 2}, false, &opWait));
  waited.readShared(1, acc, &opRead);
  EXPECT_FALSE(waited.failed());
  // The operands were released by the commits: a copy may refill them.
  waited.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  EXPECT_FALSE(waited.failed());
}

TEST(PipelineModelTest, Tcgen05OperandsStayReadUntilTheCommitArrives) {
  PipelineModel model = ready(1, 1, 1);
  SharedBox operands[] = {box(0, 0)};
  model.tcgen05Op(0, operands, {box(1, 0)}, &opRead);
  model.tcgen05Commit(0, {0, 0}, &opArrive);
  model.copyIntoShared(0, box(0, 0), {0, 0}, 128, &opCopy);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("a tcgen05 MMA or copy"),
            std::string::npos);
}

TEST(PipelineModelTest, ReleasingTensorMemoryUnderAnMma) {
  PipelineModel model = ready(1, 1, 1);
  model.tcgen05Op(0, {}, {box(3, 0)}, &opCopy);
  model.tcgen05Commit(0, {0, 0}, &opArrive);
  int64_t views[] = {3};
  model.releaseTensorMemory(0, views, &opExit);
  ASSERT_TRUE(model.failed());
  EXPECT_EQ(model.getFindings()[0].op, &opExit);

  PipelineModel done = ready(1, 1, 1);
  done.tcgen05Op(0, {}, {box(3, 0)}, &opCopy);
  done.tcgen05Commit(0, {0, 0}, &opArrive);
  done.completeOldest();
  done.releaseTensorMemory(0, views, &opExit);
  EXPECT_FALSE(done.failed());
}

/// Threads 0 and 1 each copy half of stage 0 (rows 0..31, 32..63) by
/// cp.async, completing through their cp.async groups.
void copyHalvesByGroup(PipelineModel &model) {
  model.copyIntoSharedByGroup(0, half(true), &opCopy, 2, box(0, 0));
  model.copyIntoSharedByGroup(1, half(false), &opCopy, 2, box(0, 0));
}

/// Both threads copy their half, commit and wait for it.
void landHalvesByGroup(PipelineModel &model) {
  copyHalvesByGroup(model);
  for (int64_t t : {0, 1}) {
    model.commitGroup(t, AsyncGroupKind::CpAsync);
    model.waitGroup(t, AsyncGroupKind::CpAsync, 0);
  }
}

TEST(PipelineModelTest, CpAsyncLandsWhenItsGroupRetires) {
  PipelineModel model(2, {});
  copyHalvesByGroup(model);
  model.commitGroup(0, AsyncGroupKind::CpAsync);
  model.commitGroup(1, AsyncGroupKind::CpAsync);
  model.waitGroup(0, AsyncGroupKind::CpAsync, 0);
  // Thread 1 has not waited for its half.
  model.readShared(0, box(0, 0), &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("has not landed"),
            std::string::npos);
  EXPECT_NE(model.getFindings()[0].message.find("thread 1 "),
            std::string::npos);
}

TEST(PipelineModelTest, CpAsyncNeedsABarrierAfterEveryWait) {
  // Both wait, but thread 0 reads thread 1's half without a barrier.
  PipelineModel model(2, {});
  landHalvesByGroup(model);
  model.readShared(0, box(0, 0), &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("without synchronizing"),
            std::string::npos);
  // With the barrier after the waits, both read the whole stage.
  PipelineModel synced(2, {});
  copyHalvesByGroup(synced);
  for (int64_t t : {0, 1}) {
    synced.commitGroup(t, AsyncGroupKind::CpAsync);
    synced.waitGroup(t, AsyncGroupKind::CpAsync, 0);
    synced.barArrive(t, -1, -1, &opBar);
  }
  synced.readShared(0, box(0, 0), &opRead);
  synced.readShared(1, box(0, 0), &opRead);
  EXPECT_FALSE(synced.failed());
}

TEST(PipelineModelTest, CpAsyncOwnRowsStillNeedTheOthersWaits) {
  // Each thread waits for its group and reads the rows the model gave it:
  // the planner deals vectors round-robin, so they may be the other's.
  PipelineModel model(2, {});
  landHalvesByGroup(model);
  model.readShared(0, half(true), &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("thread 1 "),
            std::string::npos);
}

TEST(PipelineModelTest, CpAsyncRefillMeetsTheOthersReadsOfTheStage) {
  // The stage landed and every thread knows it; then thread 1 starts the
  // next copy into it (its share: the bottom rows) while thread 0 still
  // reads the top rows. The planner's vectors of that share may be among
  // the top rows: a race, though the model's row slices do not overlap.
  PipelineModel model(2, {});
  landHalvesByGroup(model);
  for (int64_t t : {0, 1})
    model.barArrive(t, -1, -1, &opBar);
  model.readShared(0, half(true), &opRead);
  ASSERT_FALSE(model.failed()) << model.getFindings()[0].message;
  model.copyIntoSharedByGroup(1, half(false), &opCopy, 2, box(0, 0));
  model.readShared(0, half(true), &opRead);
  EXPECT_TRUE(model.failed());
}

TEST(PipelineModelTest, CpAsyncCopiesOfTwoScopesAreApart) {
  // Two one-thread scopes (e.g. two warps' own copies) each copy and read
  // their own stage after their own wait: no barrier between them needed.
  PipelineModel model(2, {});
  for (int64_t t : {0, 1}) {
    model.copyIntoSharedByGroup(t, box(0, t), &opCopy, 1, box(0, t));
    model.commitGroup(t, AsyncGroupKind::CpAsync);
    model.waitGroup(t, AsyncGroupKind::CpAsync, 0);
    model.readShared(t, box(0, t), &opRead);
  }
  EXPECT_FALSE(model.failed());
}

TEST(PipelineModelTest, CpAsyncCopyReachedByPartOfItsScope) {
  // A copy of two threads' scope that only thread 0 issues.
  PipelineModel model(2, {});
  SharedBox top = half(true);
  model.copyIntoSharedByGroup(0, top, &opCopy, 2, box(0, 0));
  model.commitGroup(0, AsyncGroupKind::CpAsync);
  model.waitGroup(0, AsyncGroupKind::CpAsync, 0);
  model.readShared(0, top, &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("only 1 of its 2 threads"),
            std::string::npos);
}

TEST(PipelineModelTest, CpAsyncUnderANewerStoreIsStillChecked) {
  // A pending cp.async into the top half, then an ordinary store into the
  // bottom half (padding): the newest write over the stage is the store,
  // but a read of the whole stage still races with the copy.
  PipelineModel model(1, {});
  model.copyIntoSharedByGroup(0, half(true), &opCopy, 1, half(true));
  model.commitGroup(0, AsyncGroupKind::CpAsync);
  model.writeShared(0, half(false), &opWrite);
  EXPECT_FALSE(model.failed());
  model.readShared(0, box(0, 0), &opRead);
  ASSERT_TRUE(model.failed());
  EXPECT_NE(model.getFindings()[0].message.find("has not landed"),
            std::string::npos);
}

TEST(PipelineModelTest, CpAsyncWaitCountsCommittedGroupsOnly) {
  // Stage 0, then stage 1, one group each: wait(1) retires stage 0 only;
  // an uncommitted copy is not retired by wait(0).
  PipelineModel model(1, {});
  model.copyIntoSharedByGroup(0, box(0, 0), &opCopy, 1, box(0, 0));
  model.commitGroup(0, AsyncGroupKind::CpAsync);
  model.copyIntoSharedByGroup(0, box(0, 1), &opCopy, 1, box(0, 1));
  model.commitGroup(0, AsyncGroupKind::CpAsync);
  model.waitGroup(0, AsyncGroupKind::CpAsync, 1);
  model.readShared(0, box(0, 0), &opRead);
  EXPECT_FALSE(model.failed());
  model.readShared(0, box(0, 1), &opRead);
  ASSERT_TRUE(model.failed()) << "stage 1's group is still in flight";

  PipelineModel open(1, {});
  open.copyIntoSharedByGroup(0, box(0, 0), &opCopy, 1, box(0, 0));
  open.waitGroup(0, AsyncGroupKind::CpAsync, 0);
  open.readShared(0, box(0, 0), &opRead);
  EXPECT_TRUE(open.failed()) << "the copy's group was never committed";
}

TEST(PipelineModelTest, CpAsyncIntoAStageStillFillingIsARace) {
  PipelineModel model(1, {});
  model.copyIntoSharedByGroup(0, box(0, 0), &opCopy, 1, box(0, 0));
  model.commitGroup(0, AsyncGroupKind::CpAsync);
  model.copyIntoSharedByGroup(0, box(0, 0), &opWrite, 1, box(0, 0));
  ASSERT_TRUE(model.failed());
  EXPECT_EQ(model.getFindings()[0].op, &opWrite);
}

TEST(PipelineModelTest, InitCountOutOfRange) {
  PipelineModel model(1, {1});
  model.init(0, {0, 0}, 0, &opInit);
  EXPECT_TRUE(model.failed());
}

} // namespace

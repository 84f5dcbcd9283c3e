//===- PipelineModel.h - mbarriers, async groups and shared hazards -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The synchronization half of the PTX-semantics model: what a CTA's
// mbarriers, named barriers and asynchronous units do, step by step, so a
// kernel's barrier protocol can be executed on sample sizes and its
// mistakes observed rather than guessed. Written from the PTX ISA's
// definitions, MLIR-free; the caller (an interpreter of the kernel's IR)
// says which thread does what, the model answers whether a wait passes and
// records what went wrong.
//
//  - mbarrier: `init(count)` starts phase 0 expecting `count` arrivals and
//    no transaction bytes. A phase completes when every expected arrival
//    came and the tx-count is back at zero; the next phase expects `count`
//    again. `try_wait.parity(p)` passes once the phase of parity p has
//    completed: while the current (incomplete) phase has parity != p. A
//    fresh barrier therefore passes parity 1 at once.
//  - Asynchronous completions (a TMA load's bytes) happen at a time the
//    program does not control: the model delivers them only when no thread
//    can move (`completeOldest`), the latest a slow copy engine could.
//  - wgmma and bulk (TMA store) groups: an op joins its thread's open
//    group; `commit` closes it; `wait(N)` retires all but the newest N
//    committed groups. wgmmas retire only there, the latest they may.
//  - cp.async groups (copies into shared memory that name no mbarrier):
//    the same, and the bytes land only when the group retires. Another
//    thread reads them safely once it synchronized with the issuer after
//    that wait (a barrier both took part in, an mbarrier phase the issuer
//    arrived on).
//  - tcgen05: MMAs and tcgen05.cp run in order on one pipe; a
//    tcgen05.commit arrives on its barrier once the thread's earlier
//    tcgen05 work completed (delivered, like a copy, only when no thread
//    can move). Tensor memory they write is read safely only by a thread
//    that waited for that arrival's phase.
//  - Named barriers (`bar.sync id, count`): complete when `count` threads
//    arrived.
//
// Happens-before: a thread knows a phase completed once it waited for it,
// or acquired it from the arrivals of a phase it waited for, or shared a
// barrier with a thread that knew it.
//
// Findings: a shared or tensor-memory box overwritten while an async reader
// may still read it or a copy into it is pending; a box read before the
// copy or MMA writing it completed, or by a thread that does not know the
// phase it completed in; a box read where another warp's ordinary store
// wrote without that store happening before (a warp's stores are known to
// its lanes and passed on through the same barriers and arrivals as
// phases); a wait that passes on a phase its thread already
// waited for (parity not flipped, wrong stage); an arrival beyond a phase's
// count; a TMA copy on a barrier whose init was not fenced, or a barrier
// used before its init is visible; tensor memory released under an MMA;
// named-barrier counts that disagree; a thread that exits with a TMA store
// or DSMEM copy still reading shared memory; deadlock (every thread waits
// and nothing is in flight), with the state of every barrier waited on.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_MODEL_PIPELINEMODEL_H
#define TILE_TARGET_CUDA_MODEL_PIPELINEMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tile::cuda::model {

/// The op that did something, for diagnostics: opaque to the model.
using OpTag = const void *;

/// An mbarrier: entry `index` of barrier group `group`.
struct BarrierRef {
  int64_t group = 0;
  int64_t index = 0;
  bool operator<(const BarrierRef &o) const {
    return group != o.group ? group < o.group : index < o.index;
  }
  bool operator==(const BarrierRef &o) const {
    return group == o.group && index == o.index;
  }
};

/// A box of a shared buffer in its logical coordinates: [lo, hi) per dim.
struct SharedBox {
  int64_t buffer = 0;
  llvm::SmallVector<int64_t, 4> lo, hi;
  bool overlaps(const SharedBox &other) const;
};

/// CpAsync: cp.async copies into shared memory that complete through their
/// thread's groups (`copyIntoSharedByGroup`), not an mbarrier.
enum class AsyncGroupKind { Wgmma, Bulk, Tcgen05, Dsmem, CpAsync };

struct Finding {
  std::string message;
  OpTag op = nullptr;
  /// Other ops involved, each with what it did.
  llvm::SmallVector<std::pair<OpTag, std::string>, 4> notes;
};

class PipelineModel {
public:
  /// `threads`: every thread of the cluster, `threadsPerCta` of them per
  /// CTA (0: one CTA), numbered CTA by CTA; `groupSizes[g]`: barriers in
  /// group g (a group per CTA and barrier group of the kernel).
  PipelineModel(int64_t threads, std::vector<int64_t> groupSizes,
                int64_t threadsPerCta = 0);
  PipelineModel(PipelineModel &&);
  PipelineModel &operator=(PipelineModel &&);
  ~PipelineModel();

  /// Names barrier groups and buffers in messages (set by the caller).
  std::vector<std::string> groupNames;
  std::vector<std::string> bufferNames;
  /// "CTA 1 thread 128 (warpgroup 1, warp 4, lane 0)".
  std::string threadName(int64_t thread) const;

  // -- mbarriers (every call by one thread) ------------------------------
  void init(int64_t thread, BarrierRef barrier, int64_t count, OpTag op);
  /// The thread's earlier inits made visible to the async proxy: for its
  /// own CTA (fence.proxy.async) or, `clusterScope`, the cluster
  /// (fence.mbarrier_init).
  void fenceInit(int64_t thread, bool clusterScope = true);
  void arrive(int64_t thread, BarrierRef barrier, int64_t count, OpTag op);
  void expectTx(int64_t thread, BarrierRef barrier, int64_t bytes, OpTag op);
  /// Whether `try_wait.parity(parity)` would pass now (an uninitialized
  /// barrier: true, so that `tryWait` reports it).
  bool wouldPass(BarrierRef barrier, bool parity) const;
  /// Whether `try_wait.parity(parity)` passes now; a pass is recorded as
  /// the thread observing the phase it saw complete.
  bool tryWait(int64_t thread, BarrierRef barrier, bool parity, OpTag op);

  // -- named and CTA barriers -------------------------------------------
  /// Arrives at barrier `id` of the thread's CTA expecting `count` threads
  /// (`kAllThreadsOfCta`: those of the CTA that have not exited); id -1 is
  /// the CTA barrier, `kClusterBarrier` (with `kAllThreadsOfCluster`) the
  /// cluster's. Returns the generation to wait for.
  static constexpr int64_t kAllThreadsOfCta = -1;
  static constexpr int64_t kAllThreadsOfCluster = -2;
  static constexpr int64_t kClusterBarrier = -2;
  /// Ids from here: the four warps of warpgroup `id - kWgmmaIssue` issuing
  /// one wgmma together.
  static constexpr int64_t kWgmmaIssue = 1 << 20;
  /// `arrivals`: what the arrival counts for (a lane of a warp arriving at
  /// a counted barrier: the warp's 32 go to its first active lane).
  int64_t barArrive(int64_t thread, int64_t id, int64_t count, OpTag op,
                    int64_t arrivals = 1);
  bool barPassed(int64_t thread, int64_t id, int64_t generation) const;

  // -- shared memory and asynchronous units -----------------------------
  /// A TMA load (or, with `source`, a DSMEM copy reading `source` until it
  /// completes) into `box`, completing `bytes` on `barrier`.
  void copyIntoShared(int64_t thread, const SharedBox &box, BarrierRef barrier,
                      int64_t bytes, OpTag op,
                      const SharedBox *source = nullptr);
  /// A cp.async copy by `thread` into `box`, its share of a copy of
  /// `region` by `threads` threads (the thread's n-th execution of `op`
  /// joins the others' n-th), joining its open cp.async group: the share
  /// lands when a `waitGroup(thread, CpAsync, …)` retires the group. A
  /// read of any of the region needs every issuer's share landed and
  /// ordered before it (which thread moves which bytes is the planner's).
  void copyIntoSharedByGroup(int64_t thread, const SharedBox &box, OpTag op,
                             int64_t threads, const SharedBox &region);
  /// An asynchronous read of `box` joining `threads`' open group of `kind`
  /// (a wgmma operand: the warp's threads; a TMA store: one thread). A
  /// wgmma is one operation of its warpgroup: `collective` (>= 0) names
  /// the instance, each of its `joiners` warps' calls joins it, and the
  /// first wait of any of them that retires it retires it for all.
  void asyncRead(llvm::ArrayRef<int64_t> threads, AsyncGroupKind kind,
                 const SharedBox &box, OpTag op, int64_t collective = -1,
                 int64_t joiners = 0);
  void commitGroup(int64_t thread, AsyncGroupKind kind);
  void waitGroup(int64_t thread, AsyncGroupKind kind, int64_t pending);
  /// Ordinary (synchronous) accesses by `thread` (one per warp suffices).
  void readShared(int64_t thread, const SharedBox &box, OpTag op);
  void writeShared(int64_t thread, const SharedBox &box, OpTag op);

  // -- tcgen05 (tensor memory) -----------------------------------------
  /// A tcgen05.mma or tcgen05.cp by `thread`: reads `reads` (shared or
  /// tensor memory), writes `writes` (tensor memory; both CTAs' for a
  /// cta_group 2 MMA), asynchronously until a later `tcgen05Commit` of the
  /// thread completes.
  void tcgen05Op(int64_t thread, llvm::ArrayRef<SharedBox> reads,
                 llvm::ArrayRef<SharedBox> writes, OpTag op);
  /// tcgen05.commit: arrives once on `barrier` when the thread's earlier
  /// tcgen05 work has completed (delivered like a copy's bytes).
  void tcgen05Commit(int64_t thread, BarrierRef barrier, OpTag op);
  /// tcgen05.dealloc of the allocation `buffers` view.
  void releaseTensorMemory(int64_t thread, llvm::ArrayRef<int64_t> buffers,
                           OpTag op);

  // -- setmaxnreg ------------------------------------------------------
  /// `setmaxnreg.dec` gives registers to its CTA's pool, `.inc` takes them
  /// (blocking until the pool holds enough); `amount` counts registers of
  /// all the warp's threads. `acquireRegisters` is false while blocked.
  void releaseRegisters(int64_t cta, int64_t amount);
  bool acquireRegisters(int64_t cta, int64_t amount);
  /// A wait in `reportDeadlock` for registers (`namedBarrier`).
  static constexpr int64_t kRegisterWait = -3;

  void exitThread(int64_t thread, OpTag op);
  /// Delivers the oldest pending asynchronous completion; false if none.
  bool completeOldest();

  /// Call when no thread can move and nothing is pending: reports the
  /// waits (`blocked`: thread, op, barrier or named-barrier description).
  struct BlockedWait {
    int64_t thread;
    OpTag op;
    std::optional<BarrierRef> barrier;
    int64_t namedBarrier = -1;
    bool parity = false; ///< an mbarrier wait's
  };
  void reportDeadlock(llvm::ArrayRef<BlockedWait> blocked);

  /// A stage index outside its group, an unsupported use: the caller's.
  void report(Finding finding);

  bool failed() const { return !findings.empty(); }
  /// Changes whenever a wait may have become passable (a phase or a
  /// barrier generation completed): a blocked thread need not poll before.
  uint64_t epoch() const;
  const std::vector<Finding> &getFindings() const { return findings; }

  std::string barrierName(BarrierRef barrier) const;
  /// "[0, 0..63, 0..63] of the shared buffer on line 12".
  std::string boxName(const SharedBox &box) const;
  /// "phase 3 (0 of 8 arrivals, 0 of 49152 bytes outstanding)".
  std::string barrierState(BarrierRef barrier) const;

  /// The state, opaque here (public so the implementation's helpers see it).
  struct Impl;

private:
  std::unique_ptr<Impl> impl;
  std::vector<Finding> findings;
};

} // namespace tile::cuda::model

#endif // TILE_TARGET_CUDA_MODEL_PIPELINEMODEL_H

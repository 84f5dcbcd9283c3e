//===- PipelineModel.cpp - mbarriers, async groups and shared hazards -----===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Model/PipelineModel.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

using namespace tile::cuda::model;

bool SharedBox::overlaps(const SharedBox &other) const {
  if (buffer != other.buffer)
    return false;
  for (size_t d = 0; d < lo.size() && d < other.lo.size(); ++d)
    if (hi[d] <= other.lo[d] || other.hi[d] <= lo[d] || lo[d] >= hi[d] ||
        other.lo[d] >= other.hi[d])
      return false;
  return true;
}

namespace {

struct AsyncReadEntry;
using EntryPtr = std::shared_ptr<AsyncReadEntry>;

/// Per thread: barrier (or cp.async / store key) -> the latest phase whose
/// completion happened before the thread's next step. Threads that took
/// part in one barrier share a single map until one of them learns more
/// (copy on write), and the last change of each kind is remembered, so the
/// lanes of a warp making the same change in turn share its result: a warp
/// costs one map, not 32.
class Knowledge {
public:
  using Map = llvm::DenseMap<int64_t, int64_t>;
  using MapPtr = std::shared_ptr<const Map>;

  /// `map[key]` becomes at least `phase` (inserted when missing).
  static void raiseIn(Map &map, int64_t key, int64_t phase) {
    int64_t &k = map.try_emplace(key, phase).first->second;
    k = std::max(k, phase);
  }

  explicit Knowledge(int64_t threads)
      : of(threads, std::make_shared<const Map>()) {}

  const MapPtr &shared(int64_t thread) const { return of[thread]; }

  bool knows(int64_t thread, int64_t key, int64_t phase) const {
    auto it = of[thread]->find(key);
    return it != of[thread]->end() && it->second >= phase;
  }

  /// The thread's entry for `key` becomes at least `phase` (inserted when
  /// missing, as try_emplace then max).
  void raise(int64_t thread, int64_t key, int64_t phase) {
    const Map &map = *of[thread];
    auto it = map.find(key);
    if (it != map.end() && it->second >= phase)
      return;
    change(thread, {Kind::Raise, key, phase, {}},
           [&](Map &m) { raiseIn(m, key, phase); });
  }

  /// The thread's entry for `key` becomes `value`.
  void set(int64_t thread, int64_t key, int64_t value) {
    auto it = of[thread]->find(key);
    if (it != of[thread]->end() && it->second == value)
      return;
    change(thread, {Kind::Set, key, value, {}},
           [&](Map &m) { m[key] = value; });
  }

  void erase(int64_t thread, int64_t key) {
    if (!of[thread]->count(key))
      return;
    change(thread, {Kind::Erase, key, 0, {}},
           [&](Map &m) { m.erase(key); });
  }

  /// Every entry of `from` raised into the thread's.
  void raiseAll(int64_t thread, const MapPtr &from) {
    const Map &map = *of[thread];
    bool news = llvm::any_of(*from, [&](const auto &entry) {
      auto it = map.find(entry.first);
      return it == map.end() || it->second < entry.second;
    });
    if (!news)
      return;
    change(thread, {Kind::RaiseAll, 0, 0, from}, [&](Map &m) {
      for (auto [key, phase] : *from)
        raiseIn(m, key, phase);
    });
  }

  /// After a barrier: each of `threads` knows what any of them knew.
  void share(llvm::ArrayRef<int64_t> threads) {
    llvm::SmallPtrSet<const Map *, 8> distinct;
    for (int64_t t : threads)
      distinct.insert(of[t].get());
    if (distinct.size() < 2)
      return;
    auto merged = std::make_shared<Map>();
    for (const Map *map : distinct)
      for (auto [key, phase] : *map)
        raiseIn(*merged, key, phase);
    MapPtr result = std::move(merged);
    for (int64_t t : threads)
      of[t] = result;
  }

private:
  enum class Kind { Raise, Set, Erase, RaiseAll };
  struct Change {
    Kind kind;
    int64_t key, value;
    MapPtr from; ///< what a RaiseAll reads
    bool operator==(const Change &o) const {
      return kind == o.kind && key == o.key && value == o.value &&
             from == o.from;
    }
  };
  /// The last change of a kind: from which map, what, and the map it gave.
  /// The maps are held, so no address is reused while it is remembered.
  struct Memo {
    MapPtr before, after;
    Change what{Kind::Raise, 0, 0, {}};
  };

  template <typename Edit>
  void change(int64_t thread, Change what, Edit edit) {
    Memo &memo = memos[int(what.kind)];
    if (memo.before == of[thread] && memo.what == what) {
      of[thread] = memo.after;
      return;
    }
    auto copy = std::make_shared<Map>(*of[thread]);
    edit(*copy);
    memo.before = of[thread];
    memo.what = std::move(what);
    memo.after = of[thread] = std::move(copy);
  }

  std::vector<MapPtr> of;
  Memo memos[4];
};

/// An arrival on an mbarrier by a thread whose warpgroup issued a wgmma
/// that the thread's own `tile.wait_group wgmma` had not retired yet.
struct EarlyRelease {
  EntryPtr entry;
  const void *op = nullptr;
  int64_t thread = 0;
};

struct Barrier {
  bool initialized = false;
  int64_t count = 0;
  int64_t pending = 0;   ///< arrivals the current phase still expects
  int64_t tx = 0;        ///< transaction bytes outstanding (may go < 0)
  int64_t completed = 0; ///< phases completed since init
  int64_t initThread = -1;
  const void *initOp = nullptr;
  bool fenced = false;    ///< fence.mbarrier_init: the whole cluster
  bool fencedCta = false; ///< fence.proxy.async: the initializing CTA
  /// What the arrivals of the current phase release (the phases their
  /// threads knew complete), and of the last completed one: a wait that
  /// observes a phase acquires it.
  Knowledge::Map releasing;
  Knowledge::MapPtr released = std::make_shared<const Knowledge::Map>();
  /// The map of the last arrival merged into `releasing` (lanes of a warp
  /// arriving in turn share one).
  Knowledge::MapPtr lastReleaser;
  /// The wgmma reads this phase's arrivals released before (early) or
  /// after (safe) the arriving thread's own wait retired them; of the last
  /// completed phase, the reads it released only early (unsafe) and safe.
  std::vector<EarlyRelease> early;
  std::vector<EntryPtr> safe;
  std::vector<EarlyRelease> unsafeReleased;
  std::vector<EntryPtr> safeReleased;
  /// The entries of `early`, `safe` and `safeReleased`, for lookups.
  llvm::SmallPtrSet<const AsyncReadEntry *, 16> earlySet, safeSet,
      safeReleasedSet;
};

/// One execution of a cooperative cp.async copy completing through groups:
/// every thread of its exec scope issues a share, which lands when that
/// thread retires its group. Which thread moves which bytes is the
/// planner's round-robin of vectors, so a reader of any of the region
/// must know every issuer's group retired.
struct CpAsyncCopy {
  const void *op = nullptr;
  int64_t threads = 1; ///< the exec scope's
  SharedBox region;
  std::vector<std::pair<int64_t, int64_t>> issuers; ///< (thread, group)
};
using CpAsyncCopyPtr = std::shared_ptr<CpAsyncCopy>;

/// A write into shared memory: a TMA load (pending until delivered, then
/// completed in `phase` of `barrier`) or an ordinary store.
struct Write {
  SharedBox box;
  const void *op;
  int64_t thread;
  bool pending;
  std::optional<BarrierRef> barrier; ///< a copy's
  int64_t bytes = 0;
  bool tcgen05 = false; ///< an MMA's accumulator or a tcgen05.cp
  /// The barrier phases whose completion shows this write completed: a
  /// copy's own, or each later tcgen05.commit of the issuing thread (a
  /// commit tracks all of the thread's earlier tcgen05 work).
  llvm::SmallVector<std::pair<BarrierRef, int64_t>, 2> completions;
  /// A cp.async copy completing through its thread's groups: the index of
  /// the group (0, 1, … as the thread commits them); -1 otherwise.
  int64_t cpAsyncGroup = -1;
  /// An ordinary store: its warp's count of stores with it (1, 2, …); a
  /// reader in another warp must know it (Impl::storeKey). 0 otherwise.
  int64_t storeIndex = 0;
  CpAsyncCopyPtr cpAsyncCopy; ///< the copy execution it is a share of
};
using WritePtr = std::shared_ptr<Write>;

struct AsyncReadEntry {
  SharedBox box;
  const void *op;
  AsyncGroupKind kind;
  llvm::BitVector owners; ///< threads that have not retired it
  int64_t firstOwner = 0;
  /// A wgmma's: the threads that issued it, and those whose own
  /// `tile.wait_group wgmma` retired it.
  llvm::BitVector issuers, retiredBy;
};

struct ThreadGroups {
  std::vector<EntryPtr> open;
  std::deque<std::vector<EntryPtr>> committed;
};

/// The tcgen05 work a commit tracks.
struct Tcgen05Work {
  std::vector<EntryPtr> reads;
  std::vector<WritePtr> writes;
};

/// What completes when no thread can move, oldest first: a TMA load's
/// bytes, or a tcgen05.commit (its thread's earlier tcgen05 work, then an
/// arrival).
struct PendingEvent {
  WritePtr copy;
  EntryPtr copySource; ///< a DSMEM copy's source, read until it completes
  std::optional<BarrierRef> commitBarrier;
  Tcgen05Work work;
};

struct NamedBarrier {
  int64_t generation = 0;
  int64_t expected = 0; ///< 0: no generation started
  std::vector<int64_t> arrived;
  int64_t arrivals = 0; ///< a warp counts as 32 at a counted barrier
  const void *firstOp = nullptr;
};

} // namespace

struct PipelineModel::Impl {
  int64_t threads;
  int64_t threadsPerCta;
  int64_t live;               ///< threads that have not exited
  std::vector<int64_t> liveInCta;
  std::vector<int64_t> registerPool; ///< per CTA, released by setmaxnreg.dec
  int64_t ctaOf(int64_t thread) const { return thread / threadsPerCta; }
  std::vector<int64_t> groupSizes;
  std::vector<std::vector<Barrier>> barriers;
  std::vector<bool> exited;
  /// Barriers numbered across groups.
  std::vector<int64_t> firstOfGroup;
  int64_t flat(BarrierRef ref) const {
    return firstOfGroup[ref.group] + ref.index;
  }
  /// In `knows`, after the barriers: thread t's cp.async groups, the
  /// newest retired group's index.
  int64_t totalBarriers = 0;
  int64_t cpAsyncKey(int64_t thread) const { return totalBarriers + thread; }
  /// In `knows`, after those: warp w's ordinary shared stores, the count
  /// of them known to have happened. Every lane of the warp knows its
  /// warp's stores (program order), so whichever lane then arrives or
  /// takes part in a barrier passes them on.
  int64_t storeKey(int64_t warp) const { return totalBarriers + threads + warp; }
  std::vector<int64_t> storesDone; ///< per warp
  /// Per thread: cp.async groups committed, and retired by its waits.
  std::vector<int64_t> cpAsyncCommitted, cpAsyncRetired;
  /// (op, thread) -> the thread's executions of the op; (op, the exec
  /// scope's instance, n) -> that scope's n-th cooperative copy, shared by
  /// its threads' shares.
  std::map<std::pair<const void *, int64_t>, int64_t> cpAsyncExecutions;
  std::map<std::tuple<const void *, int64_t, int64_t>, CpAsyncCopyPtr>
      cpAsyncCopies;
  /// (thread, barrier) -> the last phase the thread saw complete.
  llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t> observed;
  /// Per thread: barrier -> the latest phase whose completion happened
  /// before the thread's next step (its own waits, and other threads' waits
  /// passed on through a barrier both took part in).
  Knowledge knows{0};
  /// Barriers whose init each thread may rely on.
  std::vector<llvm::BitVector> visible;
  /// Per thread: the barriers it initialized (a later init by another
  /// thread takes one over: Barrier::initThread says who holds it).
  std::vector<llvm::SmallVector<BarrierRef, 4>> initializedBy;
  std::vector<WritePtr> writes;      ///< recent writes, oldest first
  std::deque<PendingEvent> pending;  ///< oldest first
  std::vector<EntryPtr> reads;      ///< async reads, live while owned
  /// The latest wgmma reads, retired or not, for the arrivals that release
  /// them (Barrier::early); at most kRecentWgmmas.
  std::deque<EntryPtr> recentWgmmas;
  static constexpr size_t kRecentWgmmas = 512;
  /// Per thread: wgmma reads that phases it waited for released only
  /// before their issuers retired them, and no later phase released.
  std::vector<std::vector<std::pair<EarlyRelease, BarrierRef>>> acquiredEarly;
  /// A warpgroup's wgmma read, until every warp of it joined.
  struct Collective {
    EntryPtr entry;
    int64_t joinersLeft;
  };
  std::map<int64_t, Collective> collective;
  static constexpr int kKinds = 5; ///< AsyncGroupKind's
  std::vector<ThreadGroups> groups; ///< [thread * kKinds + kind]
  ThreadGroups &groupsOf(int64_t thread, AsyncGroupKind kind) {
    return groups[thread * kKinds + int(kind)];
  }
  /// (CTA, id) -> a named barrier; CTA -1 holds the cluster barrier.
  std::map<std::pair<int64_t, int64_t>, NamedBarrier> named;
  std::pair<int64_t, int64_t> barrierKey(int64_t thread, int64_t id) const {
    return id == kClusterBarrier ? std::make_pair(int64_t(-1), id)
                                 : std::make_pair(ctaOf(thread), id);
  }
  uint64_t epoch = 0;

  Barrier &at(BarrierRef ref) { return barriers[ref.group][ref.index]; }
  const Barrier &at(BarrierRef ref) const {
    return barriers[ref.group][ref.index];
  }
};

PipelineModel::PipelineModel(int64_t threads, std::vector<int64_t> groupSizes,
                             int64_t threadsPerCta)
    : impl(std::make_unique<Impl>()) {
  impl->threads = threads;
  impl->threadsPerCta = threadsPerCta > 0 ? threadsPerCta : threads;
  impl->live = threads;
  impl->liveInCta.assign(threads / impl->threadsPerCta, impl->threadsPerCta);
  impl->registerPool.assign(impl->liveInCta.size(), 0);
  impl->groupSizes = groupSizes;
  int64_t total = 0;
  for (int64_t size : groupSizes) {
    impl->barriers.emplace_back(size);
    impl->firstOfGroup.push_back(total);
    total += size;
  }
  impl->totalBarriers = total;
  impl->cpAsyncCommitted.assign(threads, 0);
  impl->cpAsyncRetired.assign(threads, 0);
  impl->storesDone.assign((threads + 31) / 32, 0);
  impl->exited.assign(threads, false);
  impl->visible.assign(threads, llvm::BitVector(total));
  impl->initializedBy.resize(threads);
  impl->knows = Knowledge(threads);
  impl->acquiredEarly.resize(threads);
  impl->groups.resize(threads * Impl::kKinds);
}

PipelineModel::PipelineModel(PipelineModel &&) = default;
PipelineModel &PipelineModel::operator=(PipelineModel &&) = default;
PipelineModel::~PipelineModel() = default;

std::string PipelineModel::threadName(int64_t thread) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t perCta = impl->threadsPerCta;
  if (impl->threads > perCta)
    os << "CTA " << thread / perCta << " ";
  int64_t local = thread % perCta;
  os << "thread " << local << " (warpgroup " << local / 128 << ", warp "
     << local / 32 << ", lane " << local % 32 << ")";
  return text;
}

std::string PipelineModel::barrierName(BarrierRef barrier) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "mbarrier " << barrier.index << " of ";
  if (barrier.group < int64_t(groupNames.size()))
    os << groupNames[barrier.group];
  else
    os << "group " << barrier.group;
  return text;
}

std::string PipelineModel::barrierState(BarrierRef barrier) const {
  const Barrier &b = impl->at(barrier);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!b.initialized)
    return "never initialized";
  os << "phase " << b.completed << " has " << b.count - b.pending << " of "
     << b.count << " arrivals";
  if (b.tx > 0)
    os << " and waits for " << b.tx << " more bytes";
  else if (b.tx < 0)
    os << " and received " << -b.tx
       << " bytes more than announced (its tx-count cannot reach 0)";
  return text;
}

void PipelineModel::report(Finding finding) {
  findings.push_back(std::move(finding));
}

void PipelineModel::init(int64_t thread, BarrierRef barrier, int64_t count,
                         OpTag op) {
  Barrier &b = impl->at(barrier);
  int64_t previousInitThread = b.initThread;
  b = Barrier();
  b.initialized = true;
  // A re-initialized barrier starts from phase 0: what threads saw of it
  // before no longer counts.
  int64_t flat = impl->flat(barrier);
  for (int64_t t = 0; t < impl->threads; ++t) {
    impl->observed.erase({t, flat});
    impl->knows.erase(t, flat);
  }
  ++impl->epoch;
  b.count = b.pending = count;
  b.initThread = thread;
  b.initOp = op;
  // Listed once per taking over (a barrier it already held is listed).
  if (previousInitThread != thread)
    impl->initializedBy[thread].push_back(barrier);
  impl->visible[thread].set(impl->flat(barrier));
  if (count < 1 || count > (int64_t(1) << 20) - 1)
    report({barrierName(barrier) + " initialized with " +
                std::to_string(count) +
                " expected arrivals (PTX allows 1 to 2^20 - 1)",
            op});
}

void PipelineModel::fenceInit(int64_t thread, bool clusterScope) {
  for (BarrierRef ref : impl->initializedBy[thread]) {
    Barrier &b = impl->at(ref);
    if (b.initThread == thread) {
      b.fencedCta = true;
      b.fenced |= clusterScope;
    }
  }
}

/// Whether `thread` may use `barrier` (initialized, and its init published
/// to the thread by a barrier both took part in); reports otherwise.
static bool checkUsable(PipelineModel &model, PipelineModel::Impl &impl,
                        int64_t thread, BarrierRef barrier, OpTag op,
                        const char *what) {
  const auto &b = impl.at(barrier);
  if (!b.initialized) {
    model.report({model.threadName(thread) + " " + what +
                      " " + model.barrierName(barrier) +
                      " before any thread initialized it",
                  op});
    return false;
  }
  if (!impl.visible[thread].test(impl.flat(barrier))) {
    Finding finding{model.threadName(thread) + " " + what +
                        " " + model.barrierName(barrier) +
                        " before a barrier (gpu.barrier or a named barrier "
                        "with the initializing thread) made its "
                        "initialization visible",
                    op};
    finding.notes.push_back({b.initOp, "initialized here by " +
                                           model.threadName(
                                               b.initThread)});
    model.report(std::move(finding));
    return false;
  }
  return true;
}

static void completeIfDone(PipelineModel::Impl &impl, Barrier &b) {
  if (b.pending == 0 && b.tx == 0) {
    ++impl.epoch;
    ++b.completed;
    b.released = std::make_shared<const Knowledge::Map>(std::move(b.releasing));
    b.releasing.clear();
    b.lastReleaser = nullptr;
    // A wgmma read is released safely when one of the phase's arrivals came
    // after its thread's own wait retired it (that wait saw the warpgroup's
    // wgmma complete; the phase completes after every arrival).
    b.unsafeReleased.clear();
    for (EarlyRelease &e : b.early) // distinct entries
      if (!b.safeSet.count(e.entry.get()))
        b.unsafeReleased.push_back(std::move(e));
    b.safeReleased = std::move(b.safe);
    b.safeReleasedSet = std::move(b.safeSet);
    b.early.clear();
    b.safe.clear();
    b.earlySet.clear();
    b.safeSet.clear();
    b.pending = b.count;
  }
}

/// An arrival by `thread` releases the wgmma reads its warpgroup issued:
/// safely where its own wait retired them, early otherwise.
static void noteWgmmaReleases(PipelineModel::Impl &impl, Barrier &b,
                              int64_t thread, OpTag op) {
  for (const EntryPtr &entry : impl.recentWgmmas) {
    if (!entry->issuers.test(thread))
      continue;
    if (entry->retiredBy.test(thread)) {
      if (b.safeSet.insert(entry.get()).second)
        b.safe.push_back(entry);
    } else if (b.earlySet.insert(entry.get()).second) {
      b.early.push_back({entry, op, thread});
    }
  }
}

void PipelineModel::arrive(int64_t thread, BarrierRef barrier, int64_t count,
                           OpTag op) {
  if (!checkUsable(*this, *impl, thread, barrier, op, "arrives on"))
    return;
  Barrier &b = impl->at(barrier);
  noteWgmmaReleases(*impl, b, thread, op);
  // The arrival releases what the thread knows (mbarrier.arrive has
  // release semantics; the wait that observes the phase acquires it).
  if (b.lastReleaser != impl->knows.shared(thread)) {
    b.lastReleaser = impl->knows.shared(thread);
    for (auto [other, phase] : *b.lastReleaser)
      Knowledge::raiseIn(b.releasing, other, phase);
  }
  // Arrivals complete phases in turn; one on a phase that has all its
  // arrivals and waits for bytes only is more than the init count allows
  // (PTX leaves the pending count's underflow undefined).
  while (count > 0 && b.count > 0) {
    if (b.pending == 0) {
      report({threadName(thread) + " arrives on " + barrierName(barrier) +
                  " whose " + barrierState(barrier) +
                  ": more arrivals than its init count",
              op});
      return;
    }
    int64_t taken = std::min(count, b.pending);
    b.pending -= taken;
    count -= taken;
    completeIfDone(*impl, b);
  }
}

void PipelineModel::expectTx(int64_t thread, BarrierRef barrier,
                             int64_t bytes, OpTag op) {
  if (!checkUsable(*this, *impl, thread, barrier, op, "announces bytes on"))
    return;
  Barrier &b = impl->at(barrier);
  if (bytes < 0 || bytes > (int64_t(1) << 40) ||
      llvm::AddOverflow(b.tx, bytes, b.tx))
    report({threadName(thread) + " announces " + std::to_string(bytes) +
                " transaction bytes on " + barrierName(barrier) +
                " (more than any phase can receive)",
            op});
}

bool PipelineModel::wouldPass(BarrierRef barrier, bool parity) const {
  const Barrier &b = impl->at(barrier);
  return !b.initialized || (b.completed & 1) != int64_t(parity);
}

bool PipelineModel::tryWait(int64_t thread, BarrierRef barrier, bool parity,
                            OpTag op) {
  if (!checkUsable(*this, *impl, thread, barrier, op, "waits on"))
    return true;
  const Barrier &b = impl->at(barrier);
  if ((b.completed & 1) == int64_t(parity))
    return false;
  int64_t seen = b.completed - 1;
  impl->knows.raise(thread, impl->flat(barrier), seen);
  // The arrivals of the phase it saw complete released what they knew.
  if (seen == b.completed - 1) {
    impl->knows.raiseAll(thread, b.released);
    // And the wgmma reads they released: safely, or before retiring them.
    auto &acquired = impl->acquiredEarly[thread];
    llvm::erase_if(acquired, [&](const auto &a) {
      return b.safeReleasedSet.count(a.first.entry.get()) > 0;
    });
    for (const EarlyRelease &e : b.unsafeReleased)
      if (llvm::none_of(acquired,
                        [&](const auto &a) { return a.first.entry == e.entry; }))
        acquired.push_back({e, barrier});
  }
  auto [it, first] =
      impl->observed.insert({{thread, impl->flat(barrier)}, seen});
  if (!first) {
    int64_t before = it->second;
    it->second = seen;
    if (seen == before)
      report({threadName(thread) + " waits on " + barrierName(barrier) +
                  " with parity " + std::to_string(parity) +
                  " and passes on phase " + std::to_string(seen) +
                  ", which it already waited for: the parity did not flip "
                  "(or the stage is wrong) and the data is not the new "
                  "phase's",
              op});

  }
  return true;
}

/// Ends a barrier generation once every expected thread arrived; then
/// everything each participant saw initialized is seen by all.
static void completeIfAllArrived(PipelineModel::Impl &impl, NamedBarrier &bar) {
  if (bar.arrived.empty() || bar.arrivals < bar.expected)
    return;
  llvm::BitVector all(impl.visible.front().size());
  for (int64_t t : bar.arrived)
    all |= impl.visible[t];
  for (int64_t t : bar.arrived)
    impl.visible[t] = all;
  // So is every completed phase one of them waited for.
  impl.knows.share(bar.arrived);
  // A wgmma read released early is over for them once a participant had
  // retired it.
  llvm::BitVector participants(impl.threads);
  for (int64_t t : bar.arrived)
    participants.set(t);
  for (int64_t t : bar.arrived)
    llvm::erase_if(impl.acquiredEarly[t], [&](const auto &a) {
      return a.first.entry->retiredBy.anyCommon(participants);
    });
  bar.arrived.clear();
  bar.arrivals = 0;
  ++bar.generation;
  ++impl.epoch;
}

int64_t PipelineModel::barArrive(int64_t thread, int64_t id, int64_t count,
                                 OpTag op, int64_t arrivals) {
  NamedBarrier &bar = impl->named[impl->barrierKey(thread, id)];
  if (count != kAllThreadsOfCta && count != kAllThreadsOfCluster &&
      (count <= 0 || count % 32)) {
    report({threadName(thread) + " arrives at named barrier " +
                std::to_string(id) + " with a thread count of " +
                std::to_string(count) + " (a positive multiple of 32)",
            op});
    return bar.generation;
  }
  int64_t expected = count == kAllThreadsOfCta
                         ? impl->liveInCta[impl->ctaOf(thread)]
                     : count == kAllThreadsOfCluster ? impl->live
                                                     : count;
  if (bar.arrived.empty()) {
    bar.expected = expected;
    bar.firstOp = op;
  } else if (count >= 0 && bar.expected != expected) {
    Finding finding{threadName(thread) + " arrives at named barrier " +
                        std::to_string(id) + " expecting " +
                        std::to_string(expected) + " threads, where others "
                        "expect " + std::to_string(bar.expected),
                    op};
    finding.notes.push_back({bar.firstOp, "the first arrival of this "
                                          "generation"});
    report(std::move(finding));
  }
  bar.arrived.push_back(thread);
  bar.arrivals += arrivals;
  int64_t generation = bar.generation;
  completeIfAllArrived(*impl, bar);
  return generation;
}

uint64_t PipelineModel::epoch() const { return impl->epoch; }

bool PipelineModel::barPassed(int64_t thread, int64_t id,
                              int64_t generation) const {
  auto it = impl->named.find(impl->barrierKey(thread, id));
  return it != impl->named.end() && it->second.generation > generation;
}

std::string PipelineModel::boxName(const SharedBox &box) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  for (size_t d = 0; d < box.lo.size(); ++d) {
    if (d)
      os << ", ";
    if (box.hi[d] == box.lo[d] + 1)
      os << box.lo[d];
    else
      os << box.lo[d] << ".." << box.hi[d] - 1;
  }
  os << "] of ";
  if (box.buffer < int64_t(bufferNames.size()))
    os << bufferNames[box.buffer];
  else
    os << "buffer " << box.buffer;
  return text;
}

/// Reports a write of `box` while an async read or a pending copy overlaps.
static void checkWrite(PipelineModel &model, PipelineModel::Impl &impl,
                       int64_t thread, const SharedBox &box, OpTag op,
                       const char *what,
                       const CpAsyncCopy *sameCopy = nullptr) {
  for (const EntryPtr &read : impl.reads)
    if (read->owners.any() && read->box.overlaps(box)) {
      const char *reader = read->kind == AsyncGroupKind::Wgmma ? "a wgmma"
                           : read->kind == AsyncGroupKind::Bulk
                               ? "a TMA store"
                           : read->kind == AsyncGroupKind::Dsmem
                               ? "a DSMEM copy"
                               : "a tcgen05 MMA or copy";
      Finding finding{
          model.threadName(thread) + " " + what + " " +
              model.boxName(box) + " while " + reader +
              " issued by " + model.threadName(read->firstOwner) +
              " may still read " + model.boxName(read->box) +
              (read->kind == AsyncGroupKind::Tcgen05
                   ? std::string(" (its tcgen05.commit has not arrived, nor "
                                 "been waited for by this thread)")
               : read->kind == AsyncGroupKind::Dsmem
                   ? std::string(" (it has not completed on the receiver's "
                                 "mbarrier)")
                   : std::string(" (its group has not been retired by "
                                 "tile.wait_group ") +
                         (read->kind == AsyncGroupKind::Wgmma ? "wgmma"
                                                              : "bulk") +
                         " in that thread, nor released to this one)"),
          op};
      finding.notes.push_back({read->op, "the reader"});
      model.report(std::move(finding));
      return;
    }
  // A stage handed over by arrivals that came before the wgmma reading it
  // retired in their threads: the wait that acquired the phase orders
  // nothing after the wgmma.
  for (const auto &[early, barrier] : impl.acquiredEarly[thread])
    if (early.entry->box.overlaps(box)) {
      Finding finding{
          model.threadName(thread) + " " + what + " " + model.boxName(box) +
              " while a wgmma issued by " +
              model.threadName(early.entry->firstOwner) +
              " may still read " + model.boxName(early.entry->box) + ": " +
              model.threadName(early.thread) + " released it on " +
              model.barrierName(barrier) +
              " before its tile.wait_group wgmma retired the wgmma, as did "
              "every other arrival of the phase this thread waited for",
          op};
      finding.notes.push_back({early.entry->op, "the reader"});
      finding.notes.push_back({early.op, "the early release"});
      model.report(std::move(finding));
      return;
    }
  for (const WritePtr &w : impl.writes) {
    if (!w->pending || !w->box.overlaps(box))
      continue;
    // Another thread's share of the same cooperative copy.
    if (sameCopy && w->cpAsyncCopy.get() == sameCopy)
      continue;
    Finding finding{model.threadName(thread) + " " + what +
                        " " + model.boxName(box) +
                        " while an earlier copy into " + model.boxName(w->box) +
                        " has not completed",
                    op};
    finding.notes.push_back({w->op, "the earlier copy, issued by " +
                                        model.threadName(w->thread)});
    model.report(std::move(finding));
    return;
  }
}

/// Whether `outer` holds every element of `inner`.
static bool contains(const SharedBox &outer, const SharedBox &inner) {
  if (outer.buffer != inner.buffer)
    return false;
  for (size_t d = 0; d < outer.lo.size() && d < inner.lo.size(); ++d)
    if (outer.lo[d] > inner.lo[d] || outer.hi[d] < inner.hi[d])
      return false;
  return true;
}

/// Reports (and returns true) a read of `box` by `threads` before every
/// share of the cooperative cp.async copy `copy` landed and was ordered
/// before the read: whichever of its bytes the read touches, any issuer
/// may have moved them.
static bool reportCpAsyncRead(PipelineModel &model, PipelineModel::Impl &impl,
                              llvm::ArrayRef<int64_t> threads,
                              const SharedBox &box, OpTag op,
                              const CpAsyncCopy &copy) {
  auto report = [&](std::string message) {
    Finding finding{std::move(message), op};
    finding.notes.push_back({copy.op, "the copy"});
    model.report(std::move(finding));
    return true;
  };
  if (int64_t(copy.issuers.size()) < copy.threads)
    return report(model.threadName(threads.front()) + " reads " +
                  model.boxName(box) + ", which a cp.async copy into " +
                  model.boxName(copy.region) + " fills, but only " +
                  std::to_string(copy.issuers.size()) + " of its " +
                  std::to_string(copy.threads) +
                  " threads issued their share (a copy only some of its "
                  "threads reach, or a read before the others reached it)");
  for (auto [issuer, group] : copy.issuers)
    if (impl.cpAsyncRetired[issuer] <= group)
      return report(model.threadName(threads.front()) + " reads " +
                    model.boxName(box) + " while the cp.async copy of " +
                    model.threadName(issuer) + " into " +
                    model.boxName(copy.region) +
                    " has not landed (no tile.wait_group cp_async of that "
                    "thread retired its group " +
                    std::to_string(group) + ")");
  for (int64_t thread : threads)
    for (auto [issuer, group] : copy.issuers) {
      if (impl.knows.knows(thread, impl.cpAsyncKey(issuer), group))
        continue;
      return report(
          model.threadName(thread) + " reads " + model.boxName(box) +
          ", which a cp.async copy of " + model.threadName(issuer) +
          " filled, without synchronizing with that thread after its "
          "tile.wait_group cp_async retired the copy (a barrier both take "
          "part in, after the wait)");
    }
  return false;
}

/// A read of what another warp's ordinary store wrote needs that store
/// ordered before it: the reader synchronized with the writer after the
/// store (a barrier both took part in, an mbarrier phase the writer arrived
/// on). Lanes of one warp see their warp's stores in program order.
static bool reportUnorderedStore(PipelineModel &model,
                                 PipelineModel::Impl &impl,
                                 llvm::ArrayRef<int64_t> threads,
                                 const SharedBox &box, OpTag op,
                                 const Write &store) {
  for (int64_t thread : threads) {
    if (thread / 32 == store.thread / 32)
      continue;
    if (impl.knows.knows(thread, impl.storeKey(store.thread / 32),
                         store.storeIndex))
      continue;
    Finding finding{model.threadName(thread) + " reads " + model.boxName(box) +
                        ", which " + model.threadName(store.thread) +
                        " stored without synchronizing with it after the "
                        "store (a barrier both take part in, or an mbarrier "
                        "phase a lane of the storing warp arrived on)",
                    op};
    finding.notes.push_back({store.op, "the store"});
    model.report(std::move(finding));
    return true;
  }
  return false;
}

/// Reports a read of `box` by `threads` racing with the copy that fills it,
/// or with another warp's store not ordered before it. Every cp.async copy
/// and every other warp's ordinary store among the writes over the box is
/// checked, newest first, down to a write that holds the whole box; of the
/// other writes, the newest.
static void checkRead(PipelineModel &model, PipelineModel::Impl &impl,
                      llvm::ArrayRef<int64_t> threads, const SharedBox &box,
                      OpTag op, bool byTcgen05 = false) {
  const Write *w = nullptr;
  std::set<const CpAsyncCopy *> checked;
  for (auto it = impl.writes.rbegin(); it != impl.writes.rend(); ++it) {
    const Write &write = **it;
    // A cooperative cp.async copy's shares are the planner's round robin of
    // vectors, not the row slices the model gives each thread: a read of
    // any of its region meets every share (a refill another warp issued
    // while this one still reads the stage).
    if (!(write.cpAsyncCopy ? write.cpAsyncCopy->region : write.box)
             .overlaps(box))
      continue;
    if (write.cpAsyncCopy) {
      if (checked.insert(write.cpAsyncCopy.get()).second &&
          reportCpAsyncRead(model, impl, threads, box, op,
                            *write.cpAsyncCopy))
        return;
    } else {
      if (write.storeIndex > 0 &&
          reportUnorderedStore(model, impl, threads, box, op, write))
        return;
      if (!w)
        w = &write;
    }
    if (contains(write.box, box))
      break;
  }
  if (!w)
    return;
  // The tcgen05 pipe executes in order: an MMA reads what an earlier MMA or
  // tcgen05.cp wrote.
  if (byTcgen05 && w->tcgen05)
    return;
  if (w->pending) {
    Finding finding{model.threadName(threads.front()) +
                        " reads " + model.boxName(box) + " while " +
                        (w->tcgen05 ? "the tcgen05 MMA or copy writing "
                                    : "the copy into ") +
                        model.boxName(w->box) + " " +
                        (w->barrier ? "(completing on " +
                                          model.barrierName(*w->barrier) + ")"
                                    : std::string("(not committed yet)")) +
                        " has not completed",
                    op};
    finding.notes.push_back({w->op, "the copy, issued by " +
                                        model.threadName(w->thread)});
    model.report(std::move(finding));
    return;
  }
  if (w->completions.empty())
    return; // an ordinary store
  for (int64_t thread : threads) {
    bool waited = llvm::any_of(w->completions, [&](const auto &c) {
      return impl.knows.knows(thread, impl.flat(c.first), c.second);
    });
    if (waited)
      continue;
    auto [barrier, phase] = w->completions.front();
    auto seen = impl.observed.find({thread, impl.flat(barrier)});
    Finding finding{
        model.threadName(thread) + " reads " + model.boxName(box) +
            ", which " + (w->tcgen05 ? "a tcgen05 MMA or copy" : "a copy") +
            " completed in phase " + std::to_string(phase) + " of " +
            model.barrierName(barrier) +
            ", without having waited for that phase, itself or through a "
            "barrier with a thread that did (the last it waited for: " +
            (seen == impl.observed.end() ? std::string("none")
                                         : std::to_string(seen->second)) +
            ")",
        op};
    finding.notes.push_back({w->op, w->tcgen05 ? "the writer" : "the copy"});
    model.report(std::move(finding));
    return;
  }
}

/// Keeps the write list short: a write supersedes earlier completed writes
/// of the same box.
static WritePtr addWrite(PipelineModel::Impl &impl, Write write) {
  llvm::erase_if(impl.writes, [&](const WritePtr &w) {
    return !w->pending && w->box.buffer == write.box.buffer &&
           w->box.lo == write.box.lo && w->box.hi == write.box.hi;
  });
  impl.writes.push_back(std::make_shared<Write>(std::move(write)));
  return impl.writes.back();
}

/// A new asynchronous read of `box`, owned by `owner` until retired.
static EntryPtr addRead(PipelineModel::Impl &impl, const SharedBox &box,
                        OpTag op, AsyncGroupKind kind, int64_t owner) {
  auto entry = std::make_shared<AsyncReadEntry>();
  entry->box = box;
  entry->op = op;
  entry->kind = kind;
  entry->owners.resize(impl.threads);
  entry->owners.set(owner);
  entry->firstOwner = owner;
  impl.reads.push_back(entry);
  return entry;
}

void PipelineModel::copyIntoShared(int64_t thread, const SharedBox &box,
                                   BarrierRef barrier, int64_t bytes,
                                   OpTag op, const SharedBox *source) {
  if (!checkUsable(*this, *impl, thread, barrier, op,
                   "issues a copy completing on"))
    return;
  const Barrier &b = impl->at(barrier);
  // A proxy fence after the init serves copies from the same CTA; another
  // CTA's copy needs the cluster-scope fence.mbarrier_init.
  bool sameCta = impl->ctaOf(thread) == impl->ctaOf(b.initThread);
  if (!(b.fenced || (sameCta && b.fencedCta))) {
    Finding finding{threadName(thread) + " issues a TMA copy completing on " +
                        barrierName(barrier) +
                        ", whose initialization no `tile.fence "
                        "mbarrier_init` made visible to the async proxy",
                    op};
    finding.notes.push_back({b.initOp, "initialized here"});
    report(std::move(finding));
    return;
  }
  checkWrite(*this, *impl, thread, box, op, "copies into");
  if (failed())
    return;
  PendingEvent event;
  if (source) {
    int64_t threads[] = {thread};
    checkRead(*this, *impl, threads, *source, op);
    event.copySource =
        addRead(*impl, *source, op, AsyncGroupKind::Dsmem, thread);
  }
  event.copy = addWrite(*impl, {box, op, thread, true, barrier, bytes});
  impl->pending.push_back(std::move(event));
}

void PipelineModel::copyIntoSharedByGroup(int64_t thread, const SharedBox &box,
                                          OpTag op, int64_t threads,
                                          const SharedBox &region) {
  // The thread's n-th execution of the op is a share of the copy its
  // scope's threads (a warp, warpgroup or CTA: `threads` consecutive
  // threads) make in their n-th.
  int64_t n = ++impl->cpAsyncExecutions[{op, thread}];
  int64_t scope = thread / std::max<int64_t>(threads, 1);
  CpAsyncCopyPtr &copy = impl->cpAsyncCopies[{op, scope, n}];
  if (!copy) {
    copy = std::make_shared<CpAsyncCopy>();
    copy->op = op;
    copy->threads = threads;
    copy->region = region;
  }
  checkWrite(*this, *impl, thread, box, op, "copies into", copy.get());
  if (failed())
    return;
  copy->issuers.push_back({thread, impl->cpAsyncCommitted[thread]});
  Write w{box, op, thread, true, std::nullopt, 0};
  w.cpAsyncGroup = impl->cpAsyncCommitted[thread];
  w.cpAsyncCopy = copy;
  addWrite(*impl, std::move(w));
}

void PipelineModel::asyncRead(llvm::ArrayRef<int64_t> threads,
                              AsyncGroupKind kind, const SharedBox &box,
                              OpTag op, int64_t collective, int64_t joiners) {
  // A warp joining a warpgroup's wgmma reads when the first one did (the
  // four issue together): only the first read is checked.
  bool joining = collective >= 0 && impl->collective.count(collective);
  if (!joining) {
    checkRead(*this, *impl, threads, box, op);
    if (failed())
      return;
  }
  EntryPtr entry;
  if (collective >= 0) {
    auto [it, first] =
        impl->collective.insert({collective, Impl::Collective{nullptr, joiners}});
    --it->second.joinersLeft;
    if (!first) {
      entry = it->second.entry;
      if (it->second.joinersLeft <= 0)
        impl->collective.erase(it);
      // Retired already by another warp's wait: the read is over.
      if (!entry || entry->owners.none())
        return;
    }
  }
  if (!entry) {
    entry = addRead(*impl, box, op, kind, threads.front());
    if (kind == AsyncGroupKind::Wgmma) {
      entry->issuers.resize(impl->threads);
      entry->retiredBy.resize(impl->threads);
      impl->recentWgmmas.push_back(entry);
      if (impl->recentWgmmas.size() > Impl::kRecentWgmmas)
        impl->recentWgmmas.pop_front();
    }
    if (collective >= 0) {
      auto it = impl->collective.find(collective);
      if (it->second.joinersLeft > 0)
        it->second.entry = entry;
      else
        impl->collective.erase(it);
    }
  }
  for (int64_t t : threads) {
    entry->owners.set(t);
    if (kind == AsyncGroupKind::Wgmma)
      entry->issuers.set(t);
    impl->groupsOf(t, kind).open.push_back(entry);
  }
}

void PipelineModel::commitGroup(int64_t thread, AsyncGroupKind kind) {
  if (kind == AsyncGroupKind::CpAsync) {
    ++impl->cpAsyncCommitted[thread];
    return;
  }
  ThreadGroups &g = impl->groupsOf(thread, kind);
  g.committed.push_back(std::move(g.open));
  g.open.clear();
}

void PipelineModel::waitGroup(int64_t thread, AsyncGroupKind kind,
                              int64_t pending) {
  if (kind == AsyncGroupKind::CpAsync) {
    int64_t retired = impl->cpAsyncCommitted[thread] - std::max<int64_t>(pending, 0);
    if (retired <= impl->cpAsyncRetired[thread])
      return;
    impl->cpAsyncRetired[thread] = retired;
    for (const WritePtr &w : impl->writes)
      if (w->pending && w->thread == thread && w->cpAsyncGroup >= 0 &&
          w->cpAsyncGroup < retired)
        w->pending = false;
    impl->knows.raise(thread, impl->cpAsyncKey(thread), retired - 1);
    ++impl->epoch;
    return;
  }
  ThreadGroups &g = impl->groupsOf(thread, kind);
  bool retired = false;
  while (int64_t(g.committed.size()) > std::max<int64_t>(pending, 0)) {
    for (const EntryPtr &entry : g.committed.front()) {
      // A wgmma completed for its whole warpgroup; this thread knows it.
      if (entry->kind == AsyncGroupKind::Wgmma) {
        entry->owners.reset();
        entry->retiredBy.set(thread);
      } else
        entry->owners.reset(thread);
      retired |= entry->owners.none();
    }
    g.committed.pop_front();
  }
  if (retired) {
    llvm::erase_if(impl->reads,
                   [](const EntryPtr &e) { return e->owners.none(); });
  }
}

void PipelineModel::readShared(int64_t thread, const SharedBox &box,
                               OpTag op) {
  int64_t threads[] = {thread};
  checkRead(*this, *impl, threads, box, op);
}

void PipelineModel::writeShared(int64_t thread, const SharedBox &box,
                                OpTag op) {
  checkWrite(*this, *impl, thread, box, op, "writes");
  if (failed())
    return;
  Write store{box, op, thread, false, std::nullopt, 0};
  int64_t warp = thread / 32;
  store.storeIndex = ++impl->storesDone[warp];
  for (int64_t lane = warp * 32;
       lane < std::min<int64_t>(warp * 32 + 32, impl->threads); ++lane)
    impl->knows.set(lane, impl->storeKey(warp), store.storeIndex);
  addWrite(*impl, std::move(store));
}

void PipelineModel::exitThread(int64_t thread, OpTag op) {
  if (impl->exited[thread])
    return;
  for (const EntryPtr &entry : impl->reads)
    if ((entry->kind == AsyncGroupKind::Bulk ||
         entry->kind == AsyncGroupKind::Dsmem) &&
        entry->owners.test(thread)) {
      Finding finding{threadName(thread) + " exits while its " +
                          (entry->kind == AsyncGroupKind::Bulk
                               ? "TMA store"
                               : "DSMEM copy") +
                          " may still read " +
                          boxName(entry->box) +
                          (entry->kind == AsyncGroupKind::Bulk
                               ? " (no tile.wait_group bulk retired it)"
                               : " (nothing ordered its completion before "
                                 "the exit)"),
                      op};
      finding.notes.push_back({entry->op, entry->kind == AsyncGroupKind::Bulk
                                              ? "the store"
                                              : "the copy"});
      report(std::move(finding));
      break;
    }
  impl->exited[thread] = true;
  --impl->live;
  --impl->liveInCta[impl->ctaOf(thread)];
  // The CTA and cluster barriers no longer expect this thread.
  for (int64_t id : {int64_t(-1), kClusterBarrier}) {
    auto it = impl->named.find(impl->barrierKey(thread, id));
    if (it == impl->named.end() || it->second.arrived.empty())
      continue;
    it->second.expected = id == -1 ? impl->liveInCta[impl->ctaOf(thread)]
                                   : impl->live;
    completeIfAllArrived(*impl, it->second);
  }
}

void PipelineModel::releaseRegisters(int64_t cta, int64_t amount) {
  impl->registerPool[cta] += amount;
  ++impl->epoch;
}

bool PipelineModel::acquireRegisters(int64_t cta, int64_t amount) {
  if (impl->registerPool[cta] < amount)
    return false;
  impl->registerPool[cta] -= amount;
  return true;
}

bool PipelineModel::completeOldest() {
  if (impl->pending.empty())
    return false;
  PendingEvent event = std::move(impl->pending.front());
  impl->pending.pop_front();
  if (event.copy) {
    Write &w = *event.copy;
    w.pending = false;
    Barrier &b = impl->at(*w.barrier);
    w.completions.push_back({*w.barrier, b.completed});
    b.tx -= w.bytes; // bytes <= 2^40 per copy: no overflow
    completeIfDone(*impl, b);
    if (event.copySource) {
      event.copySource->owners.reset();
      llvm::erase_if(impl->reads,
                     [](const EntryPtr &e) { return e->owners.none(); });
    }
    return true;
  }
  // A commit: its work completes, then it arrives once.
  Barrier &b = impl->at(*event.commitBarrier);
  for (const WritePtr &w : event.work.writes) {
    w->pending = false;
    w->completions.push_back({*event.commitBarrier, b.completed});
  }
  for (const EntryPtr &read : event.work.reads)
    read->owners.reset();
  llvm::erase_if(impl->reads,
                 [](const EntryPtr &e) { return e->owners.none(); });
  if (b.pending > 0) {
    --b.pending;
    completeIfDone(*impl, b);
  }
  return true;
}

void PipelineModel::tcgen05Op(int64_t thread, llvm::ArrayRef<SharedBox> reads,
                              llvm::ArrayRef<SharedBox> writes, OpTag op) {
  int64_t threads[] = {thread};
  for (const SharedBox &box : reads) {
    checkRead(*this, *impl, threads, box, op, /*byTcgen05=*/true);
    if (failed())
      return;
    addRead(*impl, box, op, AsyncGroupKind::Tcgen05, thread);
  }
  // Only the tcgen05 pipe writes tensor memory, in order: no check against
  // its own earlier writes.
  for (const SharedBox &box : writes) {
    Write w{box, op, thread, true, std::nullopt, 0};
    w.tcgen05 = true;
    addWrite(*impl, std::move(w));
  }
}

void PipelineModel::tcgen05Commit(int64_t thread, BarrierRef barrier,
                                  OpTag op) {
  if (!checkUsable(*this, *impl, thread, barrier, op, "commits to"))
    return;
  // It tracks every earlier tcgen05 operation of the thread.
  PendingEvent event;
  event.commitBarrier = barrier;
  for (const WritePtr &w : impl->writes)
    if (w->tcgen05 && w->thread == thread)
      event.work.writes.push_back(w);
  for (const EntryPtr &read : impl->reads)
    if (read->kind == AsyncGroupKind::Tcgen05 && read->owners.test(thread))
      event.work.reads.push_back(read);
  impl->pending.push_back(std::move(event));
}

void PipelineModel::releaseTensorMemory(int64_t thread,
                                        llvm::ArrayRef<int64_t> buffers,
                                        OpTag op) {
  for (const WritePtr &w : impl->writes)
    if (w->pending && llvm::is_contained(buffers, w->box.buffer)) {
      Finding finding{threadName(thread) +
                          " releases tensor memory while a tcgen05 MMA or "
                          "copy may still write " +
                          boxName(w->box) +
                          " (no wait on its commit's barrier came first)",
                      op};
      finding.notes.push_back({w->op, "the writer"});
      report(std::move(finding));
      return;
    }
}

void PipelineModel::reportDeadlock(llvm::ArrayRef<BlockedWait> blocked) {
  if (blocked.empty())
    return;
  auto describe = [&](const BlockedWait &wait) {
    std::string text = threadName(wait.thread) + " waits ";
    if (wait.barrier) {
      text += "for parity " + std::to_string(wait.parity) + " on " +
              barrierName(*wait.barrier) + ": " + barrierState(*wait.barrier);
      // Phases completing faster than their waiter: too many arrivals.
      auto seen = impl->observed.find({wait.thread, impl->flat(*wait.barrier)});
      const Barrier &b = impl->at(*wait.barrier);
      if (seen != impl->observed.end() && b.completed > seen->second + 2)
        text += "; " + std::to_string(b.completed - seen->second - 1) +
                " phases completed since this thread last waited on it "
                "(phase " + std::to_string(seen->second) +
                "): more arrivals per phase than its init count?";
    }
    else if (wait.namedBarrier == -1)
      text += "at a CTA barrier";
    else if (wait.namedBarrier == kClusterBarrier)
      text += "at the cluster barrier";
    else if (wait.namedBarrier == kRegisterWait)
      text += "at a setmaxnreg.inc for registers no setmaxnreg.dec of its "
              "CTA released (" +
              std::to_string(impl->registerPool[impl->ctaOf(wait.thread)]) +
              " in the pool)";
    else if (wait.namedBarrier >= kWgmmaIssue)
      text += "at a wgmma for the other warps of warpgroup " +
              std::to_string(wait.namedBarrier - kWgmmaIssue) +
              " (all four issue it)";
    else
      text += "at named barrier " + std::to_string(wait.namedBarrier);
    return text;
  };
  Finding finding{"the kernel deadlocks: every thread waits and no copy is "
                  "in flight; " +
                      describe(blocked.front()),
                  blocked.front().op};
  std::set<OpTag> noted;
  noted.insert(blocked.front().op);
  for (const BlockedWait &wait : blocked.drop_front())
    if (noted.insert(wait.op).second)
      finding.notes.push_back({wait.op, describe(wait)});
  report(std::move(finding));
}

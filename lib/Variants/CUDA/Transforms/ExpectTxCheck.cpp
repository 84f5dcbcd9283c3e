//===- ExpectTxCheck.cpp - announced bytes == bytes completing --------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An mbarrier phase that tracks bulk copies completes when its arrivals are
// in and its transaction count is back to zero. Announcing fewer bytes than
// land lets the phase complete before the data is there; announcing more
// hangs every thread waiting on it. Both come from a hand-typed byte count,
// which this check compares with the copies' own sizes.
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <tuple>

using namespace mlir;
using namespace tile;

namespace {

/// Which mbarrier an operand names: a group entry (a constant index, or the
/// same SSA index value), or a pointer (a global's symbol, or an SSA value).
using BarrierKey = std::tuple<const void *, const void *, int64_t>;

std::optional<int64_t> constantOf(Value value) {
  APInt constant;
  if (value && matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  return std::nullopt;
}

BarrierKey barrierKey(Value barrier, Value index) {
  if (isa<nvgpu::MBarrierGroupType>(barrier.getType())) {
    if (std::optional<int64_t> c = constantOf(index))
      return {barrier.getAsOpaquePointer(), nullptr, *c};
    return {barrier.getAsOpaquePointer(), index.getAsOpaquePointer(), 0};
  }
  if (auto address = barrier.getDefiningOp<LLVM::AddressOfOp>())
    return {address.getGlobalNameAttr().getAsOpaquePointer(), nullptr, 0};
  return {barrier.getAsOpaquePointer(), nullptr, 0};
}

enum class EventKind { Announce, Complete, Wait };

struct Event {
  Operation *op;
  EventKind kind;
  std::optional<int64_t> bytes; ///< none: not a constant
  std::string why;              ///< why `bytes` is unknown
  /// The bytes one issue moves (a copy's region, an announcement's count),
  /// before multicast or loop repetition; none when not a constant.
  std::optional<int64_t> issueBytes;
  /// How often the event repeats within its phase (loops inside the one
  /// holding every event of the barrier).
  int64_t repeats = 1;
};

/// `128x64xf16`: the copy's region (static sizes, whatever the buffers').
std::string regionText(CopyAsyncOp copy) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(copy.getSizes(), os, "x");
  os << "x" << copy.getSrcType().getElementType();
  return text;
}

bool readsClusterRank(Value value, int depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 8)
    return false;
  StringRef name = def->getName().getStringRef();
  if (name == "nvvm.read.ptx.sreg.cluster.ctarank" ||
      name.starts_with("nvvm.read.ptx.sreg.cluster.ctaid") ||
      name == "gpu.cluster_block_id")
    return true;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return readsClusterRank(operand, depth + 1);
  });
}

/// How many CTAs of the cluster issue `copy`: all of them (1 per CTA,
/// returned as 0), one (it is in the `then` of `rank == constant`), or
/// unknown (another rank-dependent guard).
std::optional<int64_t> issuingCtas(CopyAsyncOp copy) {
  bool single = false;
  for (Operation *op = copy; !isa<FunctionOpInterface>(op->getParentOp());
       op = op->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(op->getParentOp());
    if (!ifOp || !readsClusterRank(ifOp.getCondition()))
      continue;
    auto cmp = ifOp.getCondition().getDefiningOp<arith::CmpIOp>();
    bool eqConstant = cmp && cmp.getPredicate() == arith::CmpIPredicate::eq &&
                      (constantOf(cmp.getLhs()) || constantOf(cmp.getRhs()));
    if (!eqConstant || op->getParentRegion() != &ifOp.getThenRegion())
      return std::nullopt;
    single = true;
  }
  return single ? 1 : 0;
}

/// The bytes `copy` completes on its barrier, per CTA.
Event completionOf(CopyAsyncOp copy) {
  Event event{copy, EventKind::Complete, std::nullopt, ""};
  int64_t elements = 1;
  for (int64_t size : copy.getSizes())
    elements *= size;
  int64_t bytes = elements * copy.getSrcType().getElementBits() / 8;
  event.issueBytes = bytes;
  if (copy.getCtaMask()) {
    std::optional<int64_t> mask = constantOf(copy.getCtaMask());
    if (!mask) {
      event.why = "a multicast copy's cta_mask is not a constant (each CTA "
                  "of the mask receives the bytes)";
      return event;
    }
    // Each CTA of the mask receives the bytes of every issuer: one issuer
    // (a `rank == c` guard) delivers them once, every CTA issuing its
    // share delivers them once per CTA of the mask.
    std::optional<int64_t> issuers = issuingCtas(copy);
    if (!issuers) {
      event.why = "a multicast copy under a cluster-rank-dependent guard "
                  "other than `rank == constant`: how many CTAs issue it "
                  "is not known";
      return event;
    }
    if (*issuers == 0)
      bytes *= llvm::popcount(uint64_t(*mask) & 0xffff);
  }
  if (copy.getMbarCta()) {
    event.why = "a copy with mbar_cta completes on that CTA's barrier, and "
                "the bytes of the pair's copies are not added up across "
                "CTAs here";
    return event;
  }
  event.bytes = bytes;
  return event;
}

/// The loops between `op` and its function, outermost first.
SmallVector<Operation *> enclosingLoops(Operation *op) {
  SmallVector<Operation *> loops;
  for (Operation *parent = op->getParentOp();
       parent && !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface>(parent))
      loops.push_back(parent);
  std::reverse(loops.begin(), loops.end());
  return loops;
}

std::optional<int64_t> tripCount(Operation *loop) {
  auto forOp = dyn_cast<scf::ForOp>(loop);
  if (!forOp)
    return std::nullopt;
  std::optional<int64_t> lb = constantOf(forOp.getLowerBound()),
                         ub = constantOf(forOp.getUpperBound()),
                         step = constantOf(forOp.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub <= *lb ? 0 : llvm::divideCeil(*ub - *lb, *step);
}

/// `wait` orders `later` after it on every path: `later` is nested in an op
/// that follows `wait` in `wait`'s block.
bool precedes(Operation *wait, Operation *later) {
  Operation *ancestor = wait->getBlock()->findAncestorOpInBlock(*later);
  return ancestor && ancestor != wait && wait->isBeforeInBlock(ancestor);
}

/// The (scf.if, branch) pairs `op` is nested in.
SmallVector<std::pair<Operation *, Region *>> branchesOf(Operation *op) {
  SmallVector<std::pair<Operation *, Region *>> out;
  for (Operation *at = op; !isa<FunctionOpInterface>(at->getParentOp());
       at = at->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(at->getParentOp()))
      out.push_back({ifOp, at->getParentRegion()});
  return out;
}

/// The scf.if with `a` and `b` on different branches (on one CTA they
/// never both run), or null.
Operation *separatingIf(Operation *a, Operation *b) {
  for (auto [ifA, branchA] : branchesOf(a))
    for (auto [ifB, branchB] : branchesOf(b))
      if (ifA == ifB && branchA != branchB)
        return ifA;
  return nullptr;
}

/// The cluster a kernel declares (`known_cluster_size`): its CTA count (0:
/// none declared) and whether it is one-dimensional (then
/// `gpu.cluster_block_id x` is the rank).
struct Cluster {
  int64_t size = 0;
  bool linear = false;
};

Cluster clusterOf(FunctionOpInterface function) {
  Cluster cluster;
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
  if (!kernel)
    return cluster;
  std::optional<ArrayRef<int32_t>> dims = kernel.getKnownClusterSize();
  if (!dims || dims->size() != 3 ||
      llvm::any_of(*dims, [](int32_t d) { return d < 1 || d > 16; }))
    return cluster;
  cluster.size = int64_t((*dims)[0]) * (*dims)[1] * (*dims)[2];
  cluster.linear = (*dims)[1] == 1 && (*dims)[2] == 1;
  return cluster;
}

/// `value` on the CTA of cluster rank `rank`: constants, the rank, and
/// integer arithmetic and comparisons over them; none for anything else
/// (thread ids, loads, loop indices).
std::optional<int64_t> valueOnRank(Value value, int64_t rank,
                                   const Cluster &cluster, int depth = 0) {
  if (depth > 16)
    return std::nullopt;
  if (std::optional<int64_t> c = constantOf(value))
    return c;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (def->getName().getStringRef() == "nvvm.read.ptx.sreg.cluster.ctarank")
    return rank;
  if (auto id = dyn_cast<gpu::ClusterBlockIdOp>(def)) {
    if (cluster.linear && id.getDimension() == gpu::Dimension::x)
      return rank;
    return std::nullopt;
  }
  auto operand = [&](unsigned i) {
    return valueOnRank(def->getOperand(i), rank, cluster, depth + 1);
  };
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp, arith::TruncIOp>(def))
    return operand(0);
  if (def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = operand(0), b = operand(1);
  if (!a || !b)
    return std::nullopt;
  uint64_t ua = uint64_t(*a), ub = uint64_t(*b);
  if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::eq: return *a == *b;
    case P::ne: return *a != *b;
    case P::slt: return *a < *b;
    case P::sle: return *a <= *b;
    case P::sgt: return *a > *b;
    case P::sge: return *a >= *b;
    case P::ult: return ua < ub;
    case P::ule: return ua <= ub;
    case P::ugt: return ua > ub;
    case P::uge: return ua >= ub;
    }
    return std::nullopt;
  }
  int64_t result = 0;
  if (isa<arith::AddIOp>(def))
    return llvm::AddOverflow(*a, *b, result) ? std::nullopt
                                              : std::optional<int64_t>(result);
  if (isa<arith::SubIOp>(def))
    return llvm::SubOverflow(*a, *b, result) ? std::nullopt
                                              : std::optional<int64_t>(result);
  if (isa<arith::MulIOp>(def))
    return llvm::MulOverflow(*a, *b, result) ? std::nullopt
                                              : std::optional<int64_t>(result);
  if (isa<arith::AndIOp>(def))
    return *a & *b;
  if (isa<arith::OrIOp>(def))
    return *a | *b;
  if (isa<arith::XOrIOp>(def))
    return *a ^ *b;
  if (isa<arith::ShLIOp>(def) && ub < 63)
    return int64_t(ua << ub);
  if (isa<arith::ShRUIOp>(def) && ub < 64)
    return int64_t(ua >> ub);
  if (isa<arith::RemUIOp>(def) && ub != 0)
    return int64_t(ua % ub);
  if (isa<arith::DivUIOp>(def) && ub != 0)
    return int64_t(ua / ub);
  return std::nullopt;
}

/// Whether `op` runs on the CTA of rank `rank`: every scf.if around it
/// whose condition is a function of the rank takes the branch holding it.
/// Other conditions count as taken, as everywhere in this check, except
/// the `splitting` ones (events on both branches): none when one of those
/// does not depend on the rank alone.
std::optional<bool> runsOnRank(Operation *op, int64_t rank,
                               const Cluster &cluster,
                               const DenseSet<Operation *> &splitting) {
  for (auto [at, region] : branchesOf(op)) {
    auto ifOp = cast<scf::IfOp>(at);
    std::optional<int64_t> taken =
        valueOnRank(ifOp.getCondition(), rank, cluster);
    if (!taken) {
      if (splitting.contains(at))
        return std::nullopt;
      continue;
    }
    if (region != (*taken ? &ifOp.getThenRegion() : &ifOp.getElseRegion()))
      return false;
  }
  return true;
}

/// How many times a copy issued by CTA `from` completes its bytes on CTA
/// `to`'s barrier: once per destination (its mask's CTAs, or itself) whose
/// signal lands there. With mbar_cta the signal goes to the CTA of the
/// destination's pair that mbar_cta names relative to the issuer. Sets
/// `undecided` (and returns 0) when the mask or mbar_cta is not a function
/// of the rank.
int64_t deliveriesTo(CopyAsyncOp copy, int64_t from, int64_t to,
                     const Cluster &cluster,
                     std::optional<std::string> &undecided) {
  SmallVector<int64_t, 4> destinations;
  if (copy.getCtaMask()) {
    std::optional<int64_t> mask = valueOnRank(copy.getCtaMask(), from, cluster);
    if (!mask) {
      undecided = "a multicast copy's cta_mask is not a function of the "
                  "cluster rank";
      return 0;
    }
    for (int64_t d = 0; d < 16; ++d)
      if ((*mask >> d) & 1)
        destinations.push_back(d);
  } else {
    destinations.push_back(from);
  }
  std::optional<int64_t> signalled;
  if (copy.getMbarCta()) {
    signalled = valueOnRank(copy.getMbarCta(), from, cluster);
    if (!signalled || *signalled < 0 || *signalled >= cluster.size ||
        (*signalled & ~int64_t(1)) != (from & ~int64_t(1))) {
      undecided = "a copy's mbar_cta is not a function of the cluster rank "
                  "naming a CTA of the issuer's pair";
      return 0;
    }
  }
  int64_t count = 0;
  for (int64_t d : destinations) {
    int64_t at = signalled ? (d & ~int64_t(1)) + (*signalled & 1) : d;
    count += at == to;
  }
  return count;
}

/// The phase's bytes on every CTA of the cluster, when the branches that
/// separate its events depend on the cluster rank alone (one CTA loads
/// half a multicast tile, its peer the other): announced on CTA r along
/// r's own branches; completing on r from every CTA q whose branches issue
/// a copy delivering to r (its multicast mask holds r, or q = r). Returns
/// false, changing nothing but `why`, when that cannot be decided.
bool provePerRank(ArrayRef<Event *> events, const Cluster &cluster,
                  const DenseSet<Operation *> &splitting, bool &failed,
                  std::string &why) {
  if (cluster.size < 1 || cluster.size > 16) {
    bool rankDependent = llvm::any_of(splitting, [](Operation *ifOp) {
      return readsClusterRank(cast<scf::IfOp>(ifOp).getCondition());
    });
    why = rankDependent || splitting.empty()
              ? "the kernel declares no known_cluster_size of at most 16 CTAs"
              : "a branch condition is not a function of the cluster rank "
                "alone";
    return false;
  }
  SmallVector<SmallVector<bool>> runs(events.size());
  SmallVector<int64_t> perIssue(events.size(), 0);
  for (auto [i, e] : llvm::enumerate(events)) {
    if (e->kind == EventKind::Wait)
      continue;
    if (!e->issueBytes || e->repeats < 0 ||
        llvm::MulOverflow(*e->issueBytes, e->repeats, perIssue[i])) {
      why = "a byte count or a loop trip count is not a constant";
      return false;
    }
    auto copy = dyn_cast<CopyAsyncOp>(e->op);
    if (!copy && e->kind == EventKind::Complete) {
      why = e->why;
      return false;
    }
    for (int64_t r = 0; r < cluster.size; ++r) {
      std::optional<bool> on = runsOnRank(e->op, r, cluster, splitting);
      if (!on) {
        why = "a branch condition is not a function of the cluster rank "
              "alone";
        return false;
      }
      runs[i].push_back(*on);
    }
  }
  std::optional<std::string> undecided;
  auto deliveries = [&](CopyAsyncOp copy, int64_t from, int64_t to) {
    return deliveriesTo(copy, from, to, cluster, undecided);
  };
  for (int64_t r = 0; r < cluster.size; ++r) {
    int64_t announced = 0, completing = 0;
    Operation *firstAnnounce = nullptr;
    bool overflow = false;
    for (auto [i, e] : llvm::enumerate(events)) {
      if (e->kind == EventKind::Announce && runs[i][r]) {
        overflow |= llvm::AddOverflow(announced, perIssue[i], announced);
        firstAnnounce = firstAnnounce ? firstAnnounce : e->op;
      } else if (e->kind == EventKind::Complete) {
        for (int64_t q = 0; q < cluster.size; ++q) {
          int64_t times = runs[i][q]
                              ? deliveries(cast<CopyAsyncOp>(e->op), q, r)
                              : 0;
          int64_t bytes = 0;
          overflow |= llvm::MulOverflow(perIssue[i], times, bytes) ||
                      llvm::AddOverflow(completing, bytes, completing);
        }
      }
    }
    if (undecided) {
      why = *undecided;
      return false;
    }
    if (overflow) {
      why = "a byte count is negative or the sum overflows 64 bits";
      return false;
    }
    if (announced == completing)
      continue;
    failed = true;
    Operation *anchor = firstAnnounce ? firstAnnounce : events.front()->op;
    InFlightDiagnostic diag = anchor->emitError();
    diag << "on CTA " << r << " of the cluster of " << cluster.size
         << ", this mbarrier's phase announces " << announced
         << " bytes but the copies completing on it bring " << completing
         << " bytes"
         << (announced > completing
                 ? ": a wait on it never returns"
                 : ": the phase can complete before all the data lands");
    for (auto [i, e] : llvm::enumerate(events)) {
      if (e->kind != EventKind::Complete)
        continue;
      for (int64_t q = 0; q < cluster.size; ++q)
        if (int64_t times = runs[i][q]
                                ? deliveries(cast<CopyAsyncOp>(e->op), q, r)
                                : 0)
          diag.attachNote(e->op->getLoc())
              << "completes " << perIssue[i] * times << " bytes on CTA " << r
              << " when CTA " << q << " issues it";
    }
    return true;
  }
  return true;
}

void reportPhase(ArrayRef<Event *> events, const Cluster &cluster,
                 bool &failed) {
  DenseSet<Operation *> splitting;
  Event *firstSplit = nullptr;
  for (size_t i = 0; i < events.size(); ++i)
    for (size_t j = i + 1; j < events.size(); ++j)
      if (events[i]->kind != EventKind::Wait &&
          events[j]->kind != EventKind::Wait)
        if (Operation *ifOp = separatingIf(events[i]->op, events[j]->op)) {
          splitting.insert(ifOp);
          firstSplit = firstSplit ? firstSplit : events[i];
        }
  // A copy completing on another CTA's barrier is always added up per CTA.
  bool crossCta = llvm::any_of(events, [](Event *e) {
    auto copy = dyn_cast<CopyAsyncOp>(e->op);
    return copy && copy.getMbarCta();
  });
  if (firstSplit || crossCta) {
    std::string why;
    if (provePerRank(events, cluster, splitting, failed, why))
      return;
    if (!firstSplit) {
      events.front()->op->emitRemark()
          << "expect-tx accounting of this mbarrier not proven: its bytes "
             "per CTA are not added up: "
          << why;
      return;
    }
    firstSplit->op->emitRemark()
        << "expect-tx accounting of this mbarrier not proven: its "
           "announcements or copies sit on different branches of one "
           "scf.if, and its bytes per CTA are not added up: "
        << why;
    return;
  }
  Event *firstAnnounce = nullptr, *firstComplete = nullptr;
  int64_t announced = 0, completing = 0;
  for (Event *e : events) {
    if (e->kind == EventKind::Wait)
      continue;
    Event *&first =
        e->kind == EventKind::Announce ? firstAnnounce : firstComplete;
    if (!first)
      first = e;
    if (!e->bytes) {
      (firstAnnounce ? firstAnnounce : e)
          ->op->emitRemark()
          << "expect-tx accounting of this mbarrier not proven: " << e->why;
      return;
    }
    int64_t &sum = e->kind == EventKind::Announce ? announced : completing;
    if (*e->bytes < 0 || llvm::AddOverflow(sum, *e->bytes, sum)) {
      e->op->emitRemark() << "expect-tx accounting of this mbarrier not "
                             "proven: a byte count is negative or the sum "
                             "overflows 64 bits";
      return;
    }
  }
  if (!firstAnnounce && !firstComplete)
    return;
  if (announced == completing)
    return;
  failed = true;
  if (!firstAnnounce) {
    InFlightDiagnostic diag = firstComplete->op->emitError();
    diag << "copies complete " << completing
         << " bytes on an mbarrier whose phase announces none (no "
            "mbarrier.arrive.expect_tx): the phase can complete before the "
            "data lands";
    return;
  }
  InFlightDiagnostic diag = firstAnnounce->op->emitError();
  diag << "announces " << announced << " bytes on this mbarrier but the "
       << "copies completing on it in this phase bring " << completing
       << " bytes";
  if (announced > completing)
    diag << ": a wait on it never returns";
  else
    diag << ": the phase can complete before all the data lands";
  for (Event *e : events) {
    if (e->kind == EventKind::Announce && e != firstAnnounce)
      diag.attachNote(e->op->getLoc()) << "announces " << *e->bytes << " bytes";
    if (e->kind != EventKind::Complete)
      continue;
    auto copy = cast<CopyAsyncOp>(e->op);
    diag.attachNote(e->op->getLoc())
        << "completes " << *e->bytes << " bytes (a " << regionText(copy)
        << " region)";
  }
  if (!firstComplete)
    diag.attachNote() << "no copy_async completes on this mbarrier";
}

/// Every event's repeat count inside the innermost loop holding them all,
/// then the phases split by the waits at that level.
void checkBarrier(SmallVectorImpl<Event> &events, const Cluster &cluster,
                  bool &failed) {
  if (llvm::none_of(events,
                    [](const Event &e) { return e.kind != EventKind::Wait; }))
    return;
  SmallVector<SmallVector<Operation *>> loops;
  for (Event &e : events)
    loops.push_back(enclosingLoops(e.op));
  // The loops shared by a set of chains.
  auto commonPrefix = [&](auto include) {
    std::optional<ArrayRef<Operation *>> prefix;
    for (auto [e, chain] : llvm::zip(events, loops)) {
      if (!include(e, chain))
        continue;
      if (!prefix) {
        prefix = ArrayRef<Operation *>(chain);
        continue;
      }
      size_t n = 0;
      while (n < prefix->size() && n < chain.size() && chain[n] == (*prefix)[n])
        ++n;
      prefix = prefix->take_front(n);
    }
    return prefix.value_or(ArrayRef<Operation *>());
  };
  // Announcements and completions are counted within the loops they share.
  // A wait in a loop none of them is in, on the other branch of an scf.if
  // from every one of them (the consumers' tile loop of a persistent
  // kernel, beside the producer's), waits on another path: it neither
  // widens that scope nor splits its phases. A wait in a later loop of the
  // same threads still does.
  ArrayRef<Operation *> arming = commonPrefix(
      [](const Event &e, ArrayRef<Operation *>) {
        return e.kind != EventKind::Wait;
      });
  auto onArmingPath = [&](const Event &e, ArrayRef<Operation *> chain) {
    if (e.kind != EventKind::Wait)
      return true;
    size_t shared = std::min(chain.size(), arming.size());
    if (chain.take_front(shared) == arming.take_front(shared))
      return true;
    return !llvm::all_of(events, [&](const Event &other) {
      return other.kind == EventKind::Wait || separatingIf(e.op, other.op);
    });
  };
  const size_t common = commonPrefix(onArmingPath).size();
  SmallVector<Operation *> phaseMarkers;
  for (auto [e, chain] : llvm::zip(events, loops)) {
    if (e.kind == EventKind::Wait) {
      if (onArmingPath(e, chain) && chain.size() == common)
        phaseMarkers.push_back(e.op);
      continue;
    }
    for (size_t level = common; level < chain.size(); ++level) {
      std::optional<int64_t> trips = tripCount(chain[level]);
      int64_t repeated = 0;
      if (e.bytes && !trips) {
        e.bytes.reset();
        e.why = "it is inside a loop without a constant trip count that "
                "the other operations on the barrier are not in";
      } else if (e.bytes && llvm::MulOverflow(*e.bytes, *trips, repeated)) {
        e.bytes.reset();
        e.why = "its bytes times its loop's trip count overflow 64 bits";
      } else if (e.bytes) {
        e.bytes = repeated;
      }
      if (!trips || llvm::MulOverflow(e.repeats, *trips, e.repeats)) {
        e.repeats = -1; // unknown
        break;
      }
    }
  }
  std::map<size_t, SmallVector<Event *>> phases;
  for (Event &e : events) {
    size_t phase = llvm::count_if(
        phaseMarkers, [&](Operation *w) { return precedes(w, e.op); });
    phases[phase].push_back(&e);
  }
  for (auto &[phase, phaseEvents] : phases)
    reportPhase(phaseEvents, cluster, failed);
}

} // namespace

LogicalResult tile::kernel_checks::checkExpectTx(FunctionOpInterface function) {
  std::map<BarrierKey, SmallVector<Event>> byBarrier;
  std::vector<BarrierKey> order;
  auto add = [&](BarrierKey key, Event event) {
    auto [it, inserted] = byBarrier.try_emplace(key);
    if (inserted)
      order.push_back(key);
    it->second.push_back(std::move(event));
  };
  auto announce = [&](Operation *op, Value count) {
    Event e{op, EventKind::Announce, constantOf(count), ""};
    e.issueBytes = e.bytes;
    if (!e.bytes)
      e.why = "its byte count is not a constant";
    return e;
  };
  // A barrier passed in is the caller's to arm when no announcement here
  // names it.
  DenseSet<BarrierKey> fromCaller;
  auto passedIn = [&](Value barrier) {
    return isa<BlockArgument>(barrier) &&
           cast<BlockArgument>(barrier).getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(
               cast<BlockArgument>(barrier).getOwner()->getParentOp());
  };
  function->walk([&](CopyAsyncOp copy) {
    if (copy.getMbar() && passedIn(copy.getMbar()))
      fromCaller.insert(barrierKey(copy.getMbar(), copy.getMbarIndex()));
  });
  // Copies the check cannot see: called functions, nvgpu's own TMA ops.
  bool unseenCopies = false;
  function->walk([&](Operation *op) {
    if (isa<CallOpInterface, nvgpu::TmaAsyncLoadOp>(op))
      unseenCopies = true;
  });
  function->walk([&](Operation *op) {
    if (auto a = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op))
      add(barrierKey(a.getBarriers(), a.getMbarId()),
          announce(op, a.getTxcount()));
    else if (auto a = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op))
      add(barrierKey(a.getAddr(), {}), announce(op, a.getTxcount()));
    else if (auto a = dyn_cast<NVVM::MBarrierExpectTxOp>(op))
      add(barrierKey(a.getAddr(), {}), announce(op, a.getTxcount()));
    else if (auto copy = dyn_cast<CopyAsyncOp>(op); copy && copy.getMbar())
      add(barrierKey(copy.getMbar(), copy.getMbarIndex()), completionOf(copy));
    else if (auto w = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op))
      add(barrierKey(w.getBarriers(), w.getMbarId()),
          Event{op, EventKind::Wait, std::nullopt, ""});
    else if (auto w = dyn_cast<NVVM::MBarrierTryWaitParityOp>(op))
      add(barrierKey(w.getAddr(), {}),
          Event{op, EventKind::Wait, std::nullopt, ""});
    else if (op->getName().getStringRef().starts_with("nvvm.cp.async.bulk"))
      // A bulk copy written in NVVM: its bytes are not read back here.
      for (Value operand : op->getOperands())
        if (auto ptr = dyn_cast<LLVM::LLVMPointerType>(operand.getType());
            ptr && ptr.getAddressSpace() == 3)
          add(barrierKey(operand, {}),
              Event{op, EventKind::Complete, std::nullopt,
                    "an nvvm bulk copy completes on it"});
  });
  bool failed = false;
  for (const BarrierKey &key : order) {
    SmallVector<Event> &events = byBarrier[key];
    // A pointer operand of a raw bulk copy that is no announced barrier.
    bool announced = llvm::any_of(
        events, [](const Event &e) { return e.kind == EventKind::Announce; });
    bool copied = llvm::any_of(
        events, [](const Event &e) { return isa<CopyAsyncOp>(e.op); });
    if (!announced && (fromCaller.contains(key) || !copied))
      continue;
    if (unseenCopies && (!announced || !copied)) {
      events.front().op->emitRemark()
          << "expect-tx accounting of this mbarrier not proven: the "
             "function calls others or issues nvgpu TMA copies, which may "
             "announce or complete on it";
      continue;
    }
    checkBarrier(events, clusterOf(function), failed);
  }
  return mlir::failure(failed);
}

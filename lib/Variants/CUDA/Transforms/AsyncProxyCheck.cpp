//===- AsyncProxyCheck.cpp - proxy fences and in-flight readers -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// TMA, bulk copies and the tensor core read shared memory through the async
// proxy. Ordinary stores become visible to it only after a
// fence.proxy.async; without one the copy or MMA may read stale bytes. And
// an async reader works after the op that started it returns: a buffer it
// reads must not be overwritten before its completion is observed.
// cp.async (the ldgsts variant) writes through the generic proxy too: its
// bytes need the fence once they are known to have landed (after the
// mbarrier wait or the cp.async group wait), by the thread that reads.
// Stores by other threads (a branch this thread does not take) need it
// from them before the barrier that publishes them, or from this thread
// after it.
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tile;

namespace {

/// A commit or wait of cp.async groups: those hold writes into shared
/// memory (through the generic proxy), no async reader.
bool isCpAsyncGroupOp(Operation &op) {
  if (auto commit = dyn_cast<CommitGroupOp>(op))
    return commit.getGroup() == AsyncGroup::cp_async;
  if (auto wait = dyn_cast<WaitGroupOp>(op))
    return wait.getGroup() == AsyncGroup::cp_async;
  return false;
}

/// A fence that orders generic-proxy writes before async-proxy reads.
bool isProxyAsyncFence(Operation &op) {
  if (auto fence = dyn_cast<FenceOp>(op))
    return fence.getKind() == FenceKind::proxy_async;
  if (auto fence = dyn_cast<NVVM::FenceProxyOp>(op))
    return fence.getKind() == NVVM::ProxyKind::async_shared ||
           fence.getKind() == NVVM::ProxyKind::async;
  return false;
}

/// A copy into shared memory by cp.async (the ldgsts variant), whose
/// writes go through the generic proxy. The check runs before selection:
/// a cooperative exec scope (only cp.async shares a copy among threads),
/// or a copy that names the variant.
bool isCpAsyncCopy(CopyAsyncOp copy) {
  if (copy.getSrcType().getScope() != MemoryScope::global ||
      copy.getDstType().getScope() != MemoryScope::shared)
    return false;
  if (copy.getExec() != ExecScope::thread)
    return true;
  for (StringRef name : {"dispatch", "variant"})
    if (auto pinned = copy->getAttrOfType<StringAttr>(name);
        pinned && pinned.getValue() == "ldgsts")
      return true;
  return false;
}

/// An async reader of a shared buffer and how its completion is observed.
struct InFlight {
  Operation *reader;
  enum Kind { Bulk, Wgmma, Tcgen05 } kind;
  unsigned group = 0; ///< commit-group sequence number (bulk, wgmma)
  bool committed = false;
  Value barrier;      ///< tcgen05: the commit's barrier and index
  Value barrierIndex;
  /// Started by other threads (a guarded branch this walk's thread does
  /// not take); `othersWaited`: they have waited for it, and this thread
  /// may rely on that after a CTA barrier or an mbarrier wait.
  bool byOthers = false;
  bool othersWaited = false;
};

struct State {
  /// Shared buffer -> the last ordinary store to it since the last fence,
  /// or the wait after which cp.async bytes in it are known to have landed.
  llvm::MapVector<Value, Operation *> unfenced;
  /// Buffers this thread's cp.async group copies (no mbarrier) wrote
  /// since its last `wait_group cp_async, 0`.
  llvm::SetVector<Value> cpAsyncPending;
  /// Ordinary stores by other threads since their last proxy fence, not
  /// yet published to this thread by a barrier or an mbarrier wait.
  llvm::MapVector<Value, Operation *> othersUnfenced;
  /// Shared buffer -> async readers that may still be reading it.
  llvm::MapVector<Value, SmallVector<InFlight, 2>> inFlight;
  unsigned committedGroups[2] = {0, 0};
  /// The other threads' async groups (see walkPaths).
  unsigned othersGroups[2] = {0, 0};
  /// > 0 while the walk follows what other threads do.
  int otherThreads = 0;

  void merge(const State &other) {
    for (auto &[buffer, op] : other.unfenced)
      unfenced.insert({buffer, op});
    cpAsyncPending.insert(other.cpAsyncPending.begin(),
                          other.cpAsyncPending.end());
    for (auto &[buffer, op] : other.othersUnfenced)
      othersUnfenced.insert({buffer, op});
    // A reader on both paths keeps the less advanced of its two states:
    // committed, waited for by its issuers, only where both paths did.
    for (auto &[buffer, readers] : other.inFlight)
      for (const InFlight &r : readers) {
        auto mine = llvm::find_if(inFlight[buffer], [&](const InFlight &m) {
          return m.reader == r.reader && m.byOthers == r.byOthers;
        });
        if (mine == inFlight[buffer].end()) {
          inFlight[buffer].push_back(r);
          continue;
        }
        mine->othersWaited &= r.othersWaited;
        if (mine->committed && r.committed)
          mine->group = std::max(mine->group, r.group);
        mine->committed &= r.committed;
      }
    for (int k = 0; k < 2; ++k) {
      committedGroups[k] = std::max(committedGroups[k], other.committedGroups[k]);
      othersGroups[k] = std::max(othersGroups[k], other.othersGroups[k]);
    }
  }
};

bool sameBarrier(Value a, Value ai, Value b, Value bi) {
  if (a != b)
    return false;
  if (ai == bi)
    return true;
  APInt x, y;
  return ai && bi && matchPattern(ai, m_ConstantInt(&x)) &&
         matchPattern(bi, m_ConstantInt(&y)) && x == y;
}

/// The shared buffers whose address `value` was derived from.
void buffersBehind(Value value, SmallVectorImpl<Value> &out, int depth = 0) {
  if (!value || depth > 16)
    return;
  Operation *def = value.getDefiningOp();
  if (auto base = dyn_cast_or_null<BaseAddressOp>(def)) {
    if (base.getBuffer().getType().getScope() == MemoryScope::shared)
      out.push_back(base.getBuffer());
    return;
  }
  if (isa_and_nonnull<LLVM::GEPOp, LLVM::AddrSpaceCastOp, LLVM::BitcastOp>(def))
    buffersBehind(def->getOperand(0), out, depth + 1);
}

class Checker {
public:
  bool failed = false;

  /// The buffers cp.async copies completing on each mbarrier group write.
  explicit Checker(FunctionOpInterface function) {
    function->walk([&](CopyAsyncOp copy) {
      if (copy.getMbar() && isCpAsyncCopy(copy))
        cpAsyncInto[copy.getMbar()].insert(copy.getDst());
    });
  }

  void visit(Operation &op, State &state) {
    if (state.otherThreads > 0)
      return visitOthers(op, state);
    // A CTA barrier publishes what other threads waited for, and what
    // they stored.
    if (isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op)) {
      publishOthersStores(state);
      return releaseOthersWaited(state);
    }
    if (auto named = dyn_cast<NamedBarrierOp>(op)) {
      if (!named.getArrive()) {
        publishOthersStores(state);
        releaseOthersWaited(state);
      }
      return;
    }
    if (isa<FenceOp, NVVM::FenceProxyOp>(op)) {
      if (isProxyAsyncFence(op))
        state.unfenced.clear();
      return;
    }
    if (auto copy = dyn_cast<CopyAsyncOp>(op))
      return visitCopy(copy, state);
    if (auto gemm = dyn_cast<GemmAsyncOp>(op))
      return visitGemm(gemm, state);
    // The threads that started another thread's reader run this op too
    // when it lies in no scf.if branch that does not also hold the reader.
    auto commitAll = [&](InFlight::Kind kind) {
      commitGroup(state, kind);
      commitGroup(state, kind, /*byOthers=*/true, &op);
    };
    auto waitAll = [&](InFlight::Kind kind, unsigned pending) {
      waitGroup(state, kind, pending);
      waitGroup(state, kind, pending, /*byOthers=*/true, &op);
    };
    if (auto wait = dyn_cast<WaitGroupOp>(op);
        wait && wait.getGroup() == AsyncGroup::cp_async) {
      // This thread's cp.async bytes (some of them, all at pending 0) have
      // landed: written through the generic proxy.
      for (Value buffer : state.cpAsyncPending)
        state.unfenced[buffer] = &op;
      if (wait.getPending() == 0)
        state.cpAsyncPending.clear();
      return;
    }
    if (isCpAsyncGroupOp(op))
      return;
    if (auto commit = dyn_cast<CommitGroupOp>(op))
      return commitAll(commit.getGroup() == AsyncGroup::bulk
                           ? InFlight::Bulk
                           : InFlight::Wgmma);
    if (isa<NVVM::CpAsyncBulkCommitGroupOp>(op))
      return commitAll(InFlight::Bulk);
    if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op))
      return commitAll(InFlight::Wgmma);
    if (auto wait = dyn_cast<WaitGroupOp>(op))
      return waitAll(wait.getGroup() == AsyncGroup::bulk ? InFlight::Bulk
                                                         : InFlight::Wgmma,
                     wait.getPending());
    if (auto wait = dyn_cast<NVVM::CpAsyncBulkWaitGroupOp>(op))
      return waitAll(InFlight::Bulk, wait.getGroup());
    if (auto wait = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op))
      return waitAll(InFlight::Wgmma, wait.getGroup());
    if (auto commit = dyn_cast<MmaCommitOp>(op)) {
      commitToBarrier(state, commit.getMbar(), commit.getMbarIndex());
      commitToBarrier(state, commit.getMbar(), commit.getMbarIndex(), true,
                      &op);
      return;
    }
    if (auto commit = dyn_cast<NVVM::Tcgen05CommitOp>(op)) {
      commitToBarrier(state, commit.getAddr(), Value());
      commitToBarrier(state, commit.getAddr(), Value(), true, &op);
      return;
    }
    if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op)) {
      publishOthersStores(state);
      cpAsyncLanded(state, wait.getBarriers(), &op);
      return barrierWait(state, wait.getBarriers(), wait.getMbarId());
    }
    if (auto wait = dyn_cast<NVVM::MBarrierTryWaitParityOp>(op)) {
      publishOthersStores(state);
      return barrierWait(state, wait.getAddr(), Value());
    }
    for (Value buffer : ordinaryWrites(op))
      ordinaryWrite(&op, buffer, state);
  }

private:
  DenseSet<Operation *> reported;
  DenseMap<Value, llvm::SetVector<Value>> cpAsyncInto;
  /// Stores seen as other threads' (in a branch this thread does not take).
  DenseSet<Operation *> othersStores;

  /// A barrier or an mbarrier wait: other threads' unfenced stores before
  /// it are this thread's to fence before an async read.
  void publishOthersStores(State &state) {
    for (auto &[buffer, op] : state.othersUnfenced)
      state.unfenced.insert({buffer, op});
    state.othersUnfenced.clear();
  }

  /// The shared buffers `op` writes with the executing threads' own stores
  /// (the generic proxy): an LLVM store, or a tile op other than the async
  /// copies and MMAs writing a shared tile.
  static SmallVector<Value, 2> ordinaryWrites(Operation &op) {
    SmallVector<Value, 2> buffers;
    if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
      buffersBehind(store.getAddr(), buffers);
      return buffers;
    }
    if (isa<CopyAsyncOp, GemmAsyncOp>(op) || !isa<TileDialect>(op.getDialect()))
      return buffers;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> writes;
      effects.getEffects(writes);
      for (const MemoryEffects::EffectInstance &w : writes)
        if (isa<MemoryEffects::Write>(w.getEffect()))
          if (Value buffer = w.getValue())
            if (auto type = dyn_cast<BufferType>(buffer.getType());
                type && type.getScope() == MemoryScope::shared)
              buffers.push_back(buffer);
    }
    return buffers;
  }

  /// A wait on `barrier` (any index of the group): the bytes of the
  /// cp.async copies completing on it have landed, through the generic
  /// proxy, in the buffers they write.
  void cpAsyncLanded(State &state, Value barrier, Operation *wait) {
    auto it = cpAsyncInto.find(barrier);
    if (it == cpAsyncInto.end())
      return;
    for (Value buffer : it->second)
      state.unfenced[buffer] = wait;
  }

  void visitCopy(CopyAsyncOp copy, State &state) {
    BufferType src = copy.getSrcType(), dst = copy.getDstType();
    if (!copy.getMbar() && isCpAsyncCopy(copy))
      state.cpAsyncPending.insert(copy.getDst());
    if (src.getScope() == MemoryScope::shared) {
      asyncRead(copy, copy.getSrc(), state);
      if (copy.getSrcOffsets().empty()) {
        if (dst.getScope() == MemoryScope::global)
          state.inFlight[copy.getSrc()].push_back({copy, InFlight::Bulk});
        else if (dst.getScope() == MemoryScope::tmem)
          state.inFlight[copy.getSrc()].push_back({copy, InFlight::Tcgen05});
      }
    }
    if (dst.getScope() == MemoryScope::shared && !copy.getRemoteCta() &&
        copy.getDstOffsets().empty())
      overwrite(copy, copy.getDst(), state, "copy_async writes");
  }

  void visitGemm(GemmAsyncOp gemm, State &state) {
    // Selection has not run yet: a register accumulator is wgmma's (its
    // groups complete it), a tensor-memory one tcgen05's (a commit does).
    bool wgmma = cast<BufferType>(gemm.getC().getType()).getScope() ==
                 MemoryScope::local;
    auto read = [&](Value buffer, OperandRange offsets) {
      if (cast<BufferType>(buffer.getType()).getScope() != MemoryScope::shared)
        return;
      asyncRead(gemm, buffer, state);
      if (offsets.empty())
        state.inFlight[buffer].push_back(
            {gemm, wgmma ? InFlight::Wgmma : InFlight::Tcgen05});
    };
    read(gemm.getA(), gemm.getAOffsets());
    read(gemm.getB(), gemm.getBOffsets());
  }

  void asyncRead(Operation *reader, Value buffer, State &state) {
    auto it = state.unfenced.find(buffer);
    if (it == state.unfenced.end() || !reported.insert(reader).second)
      return;
    InFlightDiagnostic diag = reader->emitError();
    if (isa<nvgpu::MBarrierTryWaitParityOp, WaitGroupOp>(it->second)) {
      diag << "reads a shared buffer through the async proxy that cp.async "
              "copies wrote (through the generic proxy) with no `tile.fence "
              "proxy_async` since their bytes landed: the copy or MMA may "
              "read stale bytes";
      diag.attachNote(it->second->getLoc())
          << "the cp.async bytes are known to have landed here; fence "
             "after this";
    } else if (othersStores.contains(it->second)) {
      diag << "reads a shared buffer through the async proxy that other "
              "threads wrote with ordinary stores, with no `tile.fence "
              "proxy_async` by them before the barrier that publishes the "
              "stores nor by this thread after it: the copy or MMA may read "
              "stale bytes";
      diag.attachNote(it->second->getLoc())
          << "written here by the other threads";
    } else {
      diag << "reads a shared buffer through the async proxy that threads "
              "wrote with ordinary stores and no `tile.fence proxy_async` "
              "since: the copy or MMA may read stale bytes";
      diag.attachNote(it->second->getLoc()) << "written here";
    }
    failed = true;
  }

  void ordinaryWrite(Operation *op, Value buffer, State &state) {
    overwrite(op, buffer, state, "threads write");
    state.unfenced[buffer] = op;
  }

  void overwrite(Operation *writer, Value buffer, State &state,
                 StringRef what) {
    auto it = state.inFlight.find(buffer);
    if (it == state.inFlight.end() || it->second.empty() ||
        !reported.insert(writer).second)
      return;
    const InFlight &r = it->second.front();
    InFlightDiagnostic diag = writer->emitError();
    diag << what << " a shared buffer that an asynchronous "
         << r.reader->getName() << " may still be reading: ";
    if (r.byOthers && r.othersWaited) {
      diag << "the threads that issued it wait for it, but nothing orders "
              "this write after their wait (a CTA barrier, or an mbarrier "
              "they release after it)";
      diag.attachNote(r.reader->getLoc()) << "the asynchronous reader";
      failed = true;
      return;
    }
    switch (r.kind) {
    case InFlight::Bulk:
      diag << "commit its bulk group and wait for it first "
              "(`tile.commit_group bulk`, `tile.wait_group bulk, 0 {read}`)";
      break;
    case InFlight::Wgmma:
      diag << "wait for its wgmma group first (`tile.wait_group wgmma, N`)";
      break;
    case InFlight::Tcgen05:
      diag << "commit it to an mbarrier and wait on that barrier first "
              "(`tile.mma_commit`, `nvgpu.mbarrier.try_wait.parity`)";
      break;
    }
    diag.attachNote(r.reader->getLoc()) << "the asynchronous reader";
    failed = true;
  }

  /// What other threads start, commit and wait for, in a branch this
  /// walk's thread does not take: recorded, never reported.
  void visitOthers(Operation &op, State &state) {
    if (isProxyAsyncFence(op)) {
      state.othersUnfenced.clear();
      return;
    }
    for (Value buffer : ordinaryWrites(op)) {
      state.othersUnfenced[buffer] = &op;
      othersStores.insert(&op);
    }
    auto record = [&](Operation *reader, Value buffer, InFlight::Kind kind) {
      InFlight r{reader, kind};
      r.byOthers = true;
      state.inFlight[buffer].push_back(r);
    };
    if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
      BufferType dst = copy.getDstType();
      if (copy.getSrcType().getScope() == MemoryScope::shared &&
          copy.getSrcOffsets().empty()) {
        if (dst.getScope() == MemoryScope::global)
          record(copy, copy.getSrc(), InFlight::Bulk);
        else if (dst.getScope() == MemoryScope::tmem)
          record(copy, copy.getSrc(), InFlight::Tcgen05);
      }
      return;
    }
    if (auto gemm = dyn_cast<GemmAsyncOp>(op)) {
      bool wgmma = cast<BufferType>(gemm.getC().getType()).getScope() ==
                   MemoryScope::local;
      for (auto [buffer, offsets] :
           {std::pair<Value, OperandRange>{gemm.getA(), gemm.getAOffsets()},
            {gemm.getB(), gemm.getBOffsets()}})
        if (cast<BufferType>(buffer.getType()).getScope() ==
                MemoryScope::shared &&
            offsets.empty())
          record(gemm, buffer, wgmma ? InFlight::Wgmma : InFlight::Tcgen05);
      return;
    }
    auto kindOf = [](AsyncGroup g) {
      return g == AsyncGroup::bulk ? InFlight::Bulk : InFlight::Wgmma;
    };
    if (isCpAsyncGroupOp(op))
      return;
    if (auto commit = dyn_cast<CommitGroupOp>(op))
      return commitGroup(state, kindOf(commit.getGroup()), /*byOthers=*/true);
    if (isa<NVVM::CpAsyncBulkCommitGroupOp>(op))
      return commitGroup(state, InFlight::Bulk, true);
    if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op))
      return commitGroup(state, InFlight::Wgmma, true);
    if (auto wait = dyn_cast<WaitGroupOp>(op))
      return waitGroup(state, kindOf(wait.getGroup()), wait.getPending(),
                       true);
    if (auto wait = dyn_cast<NVVM::CpAsyncBulkWaitGroupOp>(op))
      return waitGroup(state, InFlight::Bulk, wait.getGroup(), true);
    if (auto wait = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op))
      return waitGroup(state, InFlight::Wgmma, wait.getGroup(), true);
    if (auto commit = dyn_cast<MmaCommitOp>(op))
      return commitToBarrier(state, commit.getMbar(), commit.getMbarIndex(),
                             true);
    if (auto commit = dyn_cast<NVVM::Tcgen05CommitOp>(op))
      return commitToBarrier(state, commit.getAddr(), Value(), true);
  }

  /// Readers other threads waited for are retired for this thread too.
  void releaseOthersWaited(State &state) {
    for (auto &[buffer, readers] : state.inFlight)
      llvm::erase_if(readers, [](const InFlight &r) {
        return r.byOthers && r.othersWaited;
      });
  }

  /// Whether the threads that started `r` also run `op` (this thread's
  /// op): every scf.if branch holding `op` holds `r`'s op too. Null `op`:
  /// the other threads' own op.
  static bool issuersRun(const InFlight &r, Operation *op) {
    if (!op)
      return true;
    for (Region *region = op->getParentRegion(); region;
         region = region->getParentOp()->getParentRegion()) {
      if (isa<FunctionOpInterface>(region->getParentOp()))
        break;
      if (isa<scf::IfOp>(region->getParentOp()) &&
          !region->isAncestor(r.reader->getParentRegion()))
        return false;
    }
    return true;
  }

  void commitToBarrier(State &state, Value barrier, Value index,
                       bool byOthers = false, Operation *at = nullptr) {
    for (auto &[buffer, readers] : state.inFlight)
      for (InFlight &r : readers)
        if (r.kind == InFlight::Tcgen05 && !r.committed &&
            r.byOthers == byOthers && (!byOthers || issuersRun(r, at))) {
          r.committed = true;
          r.barrier = barrier;
          r.barrierIndex = index;
        }
  }

  /// Async groups are per thread: this thread's and the other threads'
  /// are counted apart.
  void commitGroup(State &state, InFlight::Kind kind, bool byOthers = false,
                   Operation *at = nullptr) {
    unsigned group = ++(byOthers ? state.othersGroups
                                 : state.committedGroups)[kind];
    for (auto &[buffer, readers] : state.inFlight)
      for (InFlight &r : readers)
        if (r.kind == kind && !r.committed && r.byOthers == byOthers &&
            (!byOthers || issuersRun(r, at))) {
          r.committed = true;
          r.group = group;
        }
  }

  /// At most `pending` of the latest committed groups stay in flight. The
  /// other threads' wait only marks their readers: this thread relies on
  /// it after a CTA barrier or an mbarrier wait.
  void waitGroup(State &state, InFlight::Kind kind, unsigned pending,
                 bool byOthers = false, Operation *at = nullptr) {
    unsigned latest =
        (byOthers ? state.othersGroups : state.committedGroups)[kind];
    for (auto &[buffer, readers] : state.inFlight) {
      auto done = [&](const InFlight &r) {
        return r.kind == kind && r.committed && r.byOthers == byOthers &&
               r.group + pending <= latest &&
               (!byOthers || issuersRun(r, at));
      };
      if (byOthers) {
        for (InFlight &r : readers)
          if (done(r))
            r.othersWaited = true;
      } else {
        llvm::erase_if(readers, done);
      }
    }
  }

  /// A wait on a commit's barrier retires its MMAs and copies (whoever
  /// committed them); like a CTA barrier it also publishes what other
  /// threads waited for (they release a stage through mbarriers).
  void barrierWait(State &state, Value barrier, Value index) {
    for (auto &[buffer, readers] : state.inFlight)
      llvm::erase_if(readers, [&](const InFlight &r) {
        return (r.kind == InFlight::Tcgen05 && r.committed &&
                sameBarrier(r.barrier, r.barrierIndex, barrier, index)) ||
               (r.byOthers && r.othersWaited);
      });
  }
};

} // namespace

LogicalResult
tile::kernel_checks::checkAsyncProxy(FunctionOpInterface function) {
  if (function.isExternal())
    return success();
  Region &body = function.getFunctionBody();
  if (!body.hasOneBlock())
    return success(); // unstructured control flow is not analysed
  // One checker for every guard assignment: an op is reported once, when
  // some assignment (some thread's path) shows the bug.
  Checker checker(function);
  kernel_checks::walkPerGuardAssignment(
      function, [&](const kernel_checks::DecidedGuards *decided) {
        State state;
        kernel_checks::walkPaths(
            body.front(), state,
            [&](Operation &op, State &s) { checker.visit(op, s); },
            /*inLoop=*/false, decided);
      });
  return mlir::failure(checker.failed);
}

SmallVector<SmallVector<Value, 2>>
tile::kernel_checks::correlatedGuards(FunctionOpInterface function,
                                      unsigned limit) {
  auto insideLoop = [&](Value v) {
    for (Operation *at = v.getParentRegion()->getParentOp();
         at && at != function.getOperation(); at = at->getParentOp())
      if (isa<LoopLikeOpInterface>(at))
        return true;
    return false;
  };
  auto sameCondition = [](Value a, Value b) {
    if (a == b)
      return true;
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    return x && y && isPure(x) && x->getNumRegions() == 0 &&
           OperationEquivalence::isEquivalentTo(
               x, y, OperationEquivalence::IgnoreLocations);
  };
  SmallVector<SmallVector<Value, 2>> classes;
  SmallVector<unsigned> uses;
  function.getFunctionBody().walk([&](scf::IfOp ifOp) {
    Value cond = ifOp.getCondition();
    if (insideLoop(cond))
      return;
    for (auto [i, members] : llvm::enumerate(classes))
      if (sameCondition(members.front(), cond)) {
        if (!llvm::is_contained(members, cond))
          members.push_back(cond);
        ++uses[i];
        return;
      }
    classes.push_back({cond});
    uses.push_back(1);
  });
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < classes.size(); ++i)
    if (uses[i] >= 2)
      order.push_back(i);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return uses[a] > uses[b];
  });
  SmallVector<SmallVector<Value, 2>> out;
  for (unsigned i : llvm::ArrayRef(order).take_front(limit))
    out.push_back(classes[i]);
  return out;
}

//===- WgmmaRegisterCheck.cpp - no register access under an MMA in flight ===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A wgmma writes its register accumulator (and reads a register A)
// asynchronously, until the `tile.wait_group wgmma, N` that retires its
// group. Reading or writing the accumulator before that (a softmax of S
// while the MMA producing it runs, FlashAttention's overlap gone wrong), or
// writing a register A an MMA still reads, gives wrong results with no
// error from the hardware. The check follows each path (loops, nested or
// not, until their head state is stable): a gemm_async with a local C is in
// flight from its issue; `commit_group wgmma` closes a group;
// `wait_group wgmma, N` retires every group but the newest N (uncommitted
// MMAs stay in flight). Another MMA on the same accumulator is fine (MMAs
// of a warpgroup complete in order).
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tile;

namespace {

struct InFlight {
  /// Commits issued after the MMA's own (-1: not committed yet).
  int64_t age = -1;
};

struct State {
  llvm::MapVector<Operation *, InFlight> mmas;
  void merge(const State &other) {
    for (auto &[op, flight] : other.mmas) {
      auto [it, inserted] = mmas.insert({op, flight});
      // The younger of the two paths retires later.
      if (!inserted &&
          (flight.age == -1 || (it->second.age != -1 &&
                                flight.age < it->second.age)))
        it->second.age = flight.age;
    }
  }
};

bool operator==(const State &a, const State &b) {
  if (a.mmas.size() != b.mmas.size())
    return false;
  for (auto &[op, flight] : a.mmas) {
    auto it = b.mmas.find(op);
    if (it == b.mmas.end() || it->second.age != flight.age)
      return false;
  }
  return true;
}

/// Visits the ops of `block` with the state of every path: both branches
/// of an `scf.if` (merged after), and each loop's body from its head state
/// until that state no longer changes (the head: the entry, or the end of
/// any trip), so a value carried into the next trip of any loop, nested or
/// not, is seen. Ages are capped (wait_group's pending count is < 64), so
/// the iteration ends.
template <typename Visit>
void walkToFixpoint(Block &block, State &state, const Visit &visit) {
  for (Operation &op : block) {
    if (isa<FunctionOpInterface>(op))
      continue;
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      State thenState = state;
      walkToFixpoint(ifOp.getThenRegion().front(), thenState, visit);
      if (!ifOp.getElseRegion().empty())
        walkToFixpoint(ifOp.getElseRegion().front(), state, visit);
      state.merge(thenState);
      continue;
    }
    if (isa<LoopLikeOpInterface>(op)) {
      State head = state;
      for (int trip = 0; trip < 70; ++trip) {
        State end = head;
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            walkToFixpoint(inner, end, visit);
        State next = state;
        next.merge(end);
        next.merge(head);
        if (next == head)
          break;
        head = next;
      }
      state = head;
      continue;
    }
    visit(op, state);
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        walkToFixpoint(inner, state, visit);
  }
}

bool isLocal(Value v) {
  auto type = dyn_cast<BufferType>(v.getType());
  return type && type.getScope() == MemoryScope::local;
}

} // namespace

LogicalResult
tile::kernel_checks::checkWgmmaRegisters(FunctionOpInterface function) {
  if (function.isExternal())
    return success();
  bool failed = false;
  llvm::DenseSet<std::pair<Operation *, Operation *>> reported;
  State state;
  walkToFixpoint(function.getFunctionBody().front(), state,
            [&](Operation &op, State &s) {
              if (auto commit = dyn_cast<CommitGroupOp>(op)) {
                if (commit.getGroup() == AsyncGroup::wgmma)
                  for (auto &[mma, flight] : s.mmas)
                    flight.age = std::min<int64_t>(flight.age + 1, 64);
                return;
              }
              if (auto wait = dyn_cast<WaitGroupOp>(op)) {
                if (wait.getGroup() != AsyncGroup::wgmma)
                  return;
                int64_t pending = wait.getPending();
                s.mmas.remove_if([&](auto &entry) {
                  return entry.second.age >= pending;
                });
                return;
              }
              auto gemm = dyn_cast<GemmAsyncOp>(op);
              for (auto &[mmaOp, flight] : s.mmas) {
                auto mma = cast<GemmAsyncOp>(mmaOp);
                Value acc = mma.getC(), a = mma.getA();
                for (OpOperand &use : op.getOpOperands()) {
                  Value v = use.get();
                  bool isAcc = v == acc;
                  bool isA = isLocal(a) && v == a;
                  if (!isAcc && !isA)
                    continue;
                  // Chained MMAs: the same accumulator, or reading the
                  // same register A, in order. (Accumulating into another
                  // MMA's register A in flight is a write: refused.)
                  if (gemm && ((isAcc && gemm.getC() == v) ||
                               (isA && gemm.getA() == v)))
                    continue;
                  if (isA && !isa<LoadOp, FillOp, ConvertOp, MapOp, ReduceOp,
                                  GemmAsyncOp>(op))
                    continue; // reading A while an MMA reads it is fine
                  if (isA) {
                    // Only a write of A races with the MMA reading it.
                    bool writes =
                        (isa<LoadOp>(op) && cast<LoadOp>(op).getDst() == v) ||
                        (isa<FillOp>(op)) ||
                        (isa<ConvertOp>(op) &&
                         cast<ConvertOp>(op).getResult() == v) ||
                        (isa<MapOp>(op) && cast<MapOp>(op).getOutput() == v) ||
                        (isa<ReduceOp>(op) &&
                         cast<ReduceOp>(op).getOutput() == v) ||
                        (gemm && gemm.getC() == v);
                    if (!writes)
                      continue;
                  }
                  if (!reported.insert({&op, mmaOp}).second)
                    continue;
                  InFlightDiagnostic diag = op.emitError();
                  if (isAcc)
                    diag << "uses the register accumulator of a wgmma that "
                            "may still be writing it: wait for its group "
                            "(tile.wait_group wgmma, 0 after its "
                            "commit_group) first";
                  else
                    diag << "writes the register A of a wgmma that may "
                            "still be reading it: wait for its group "
                            "(tile.wait_group wgmma) first";
                  diag.attachNote(mmaOp->getLoc())
                      << "the gemm_async in flight"
                      << (flight.age < 0 ? " (its group is not committed)"
                                         : "");
                  failed = true;
                }
              }
              // Issued again (a loop's next trip): the youngest now.
              if (gemm && isLocal(gemm.getC()))
                s.mmas[&op] = InFlight{};
            });
  return success(!failed);
}

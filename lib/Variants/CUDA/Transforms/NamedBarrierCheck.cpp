//===- NamedBarrierCheck.cpp - one thread count per named barrier ---------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every bar.sync / bar.arrive of one barrier id in a function must name the
// same thread count: a generation completes when that many threads arrived,
// so two counts make one role wait for arrivals that never come or pass
// before the other's. Checked here for constant ids and counts
// (tile.named_barrier, nvvm.barrier, nvvm.barrier.arrive); the pipeline
// simulation checks the counts it computes as it runs.
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace tile;

namespace {

/// The constant (id, count) of a named-barrier op, if it is one with both
/// known.
std::optional<std::pair<int64_t, int64_t>> namedBarrierOf(Operation *op) {
  Value id, count;
  if (auto named = dyn_cast<NamedBarrierOp>(op)) {
    id = named.getId();
    count = named.getThreads();
  } else if (auto bar = dyn_cast<NVVM::BarrierOp>(op)) {
    id = bar.getBarrierId();
    count = bar.getNumberOfThreads();
  } else if (auto arrive = dyn_cast<NVVM::BarrierArriveOp>(op)) {
    id = arrive.getBarrierId();
    count = arrive.getNumberOfThreads();
  }
  APInt idValue(32, 0), countValue;
  if (!count || !matchPattern(count, m_ConstantInt(&countValue)) ||
      (id && !matchPattern(id, m_ConstantInt(&idValue))))
    return std::nullopt;
  return std::make_pair(idValue.getSExtValue(), countValue.getSExtValue());
}

} // namespace

LogicalResult
tile::kernel_checks::checkNamedBarriers(FunctionOpInterface function) {
  bool ok = true;
  std::map<int64_t, std::pair<int64_t, Operation *>> first;
  function->walk([&](Operation *op) {
    std::optional<std::pair<int64_t, int64_t>> bar = namedBarrierOf(op);
    if (!bar)
      return;
    auto [it, inserted] = first.try_emplace(bar->first, bar->second, op);
    if (inserted || it->second.first == bar->second)
      return;
    InFlightDiagnostic diag =
        op->emitError() << "named barrier " << bar->first << " with "
                        << bar->second << " threads, where another use has "
                        << it->second.first
                        << ": a generation completes when that many threads "
                           "arrived, so the two roles do not meet";
    diag.attachNote(it->second.second->getLoc())
        << "the use with " << it->second.first << " threads";
    ok = false;
  });
  return success(ok);
}

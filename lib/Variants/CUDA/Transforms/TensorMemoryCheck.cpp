//===- TensorMemoryCheck.cpp - tensor-memory budget and release -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tcgen05.alloc blocks until the columns are free, so asking for more than
// the SM's 512 at once, or leaving columns allocated when the CTA exits,
// hangs this or a later CTA instead of failing.
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tile;

namespace {

/// Tensor memory has 512 columns per SM (128 lanes x 512 x 32 bit).
constexpr int64_t kTensorMemoryColumns = 512;

struct State {
  llvm::MapVector<TmemAllocOp, int64_t> live;
  void merge(const State &other) {
    for (auto &[alloc, columns] : other.live)
      live.insert({alloc, columns});
  }
};

/// Whether the ops of `block` from `from` on release `alloc` on every path.
bool releases(Block &block, Block::iterator from, TmemAllocOp alloc) {
  for (auto it = from; it != block.end(); ++it) {
    if (auto dealloc = dyn_cast<TmemDeallocOp>(*it))
      if (dealloc.getAddress() == alloc.getAddress())
        return true;
    if (auto ifOp = dyn_cast<scf::IfOp>(*it))
      if (!ifOp.getElseRegion().empty() &&
          releases(ifOp.getThenRegion().front(),
                   ifOp.getThenRegion().front().begin(), alloc) &&
          releases(ifOp.getElseRegion().front(),
                   ifOp.getElseRegion().front().begin(), alloc))
        return true;
  }
  return false;
}

} // namespace

LogicalResult
tile::kernel_checks::checkTensorMemory(FunctionOpInterface function) {
  if (function.isExternal())
    return success();
  bool failed = false;
  DenseSet<Operation *> reported;
  State state;
  Region &body = function.getFunctionBody();
  if (!body.hasOneBlock())
    return success(); // unstructured control flow is not analysed
  walkPaths(body.front(), state, [&](Operation &op, State &s) {
    if (auto alloc = dyn_cast<TmemAllocOp>(op)) {
      int64_t total = alloc.getColumns();
      for (auto &[other, columns] : s.live)
        if (other != alloc)
          total += columns;
      s.live[alloc] = alloc.getColumns();
      if (total > kTensorMemoryColumns && reported.insert(alloc).second) {
        InFlightDiagnostic diag = alloc.emitError();
        diag << "allocates " << alloc.getColumns() << " tensor-memory columns "
             << "while " << total - alloc.getColumns()
             << " are still allocated: " << total
             << " at once, more than the " << kTensorMemoryColumns
             << " an SM has (tcgen05.alloc would wait forever)";
        for (auto &[other, columns] : s.live)
          if (other != alloc)
            diag.attachNote(other.getLoc())
                << columns << " columns allocated here";
        failed = true;
      }
      return;
    }
    if (auto dealloc = dyn_cast<TmemDeallocOp>(op)) {
      auto alloc = dealloc.getAddress().getDefiningOp<TmemAllocOp>();
      if (!alloc)
        return;
      if (alloc.getColumns() != dealloc.getColumns() &&
          reported.insert(dealloc).second) {
        dealloc.emitError()
            << "releases " << dealloc.getColumns() << " columns of an "
            << "allocation of " << alloc.getColumns()
            << "; tcgen05.dealloc must release what tcgen05.alloc allocated";
        failed = true;
      }
      s.live.erase(alloc);
    }
  });

  function->walk([&](TmemAllocOp alloc) {
    if (releases(*alloc->getBlock(), std::next(alloc->getIterator()), alloc))
      return;
    InFlightDiagnostic diag = alloc.emitError();
    diag << "allocates " << alloc.getColumns() << " tensor-memory columns "
         << "that are not released on every path: a tile.tmem_dealloc of "
            "this address must follow it in its block, or in both branches "
            "of an scf.if (a loop may run no trip)";
    for (Operation *user : alloc.getAddress().getUsers())
      if (isa<TmemDeallocOp>(user))
        diag.attachNote(user->getLoc())
            << "released here, which not every path reaches";
    failed = true;
  });
  return mlir::failure(failed);
}

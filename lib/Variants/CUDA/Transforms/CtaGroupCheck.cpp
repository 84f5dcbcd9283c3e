//===- CtaGroupCheck.cpp - one cta_group per function -----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ptxas 13.0 rejects a function whose tcgen05 instructions mix cta_group::1
// and ::2 (a kernel uses one .cta_group), and a commit of the other group
// does not track the MMAs: both are reported here, on the ops, before
// lowering.
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tile;

namespace {

/// The cta_group `op` issues its tcgen05 instruction with, or 0 when it is
/// not a tcgen05 operation.
unsigned ctaGroupOf(Operation *op) {
  if (auto gemm = dyn_cast<GemmAsyncOp>(op))
    return gemm.getCtaGroup().value_or(1);
  if (auto alloc = dyn_cast<TmemAllocOp>(op))
    return alloc.getCtaGroup().value_or(1);
  if (auto dealloc = dyn_cast<TmemDeallocOp>(op))
    return dealloc.getCtaGroup().value_or(1);
  if (auto commit = dyn_cast<MmaCommitOp>(op))
    return commit.getCtaGroup().value_or(1);
  if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
    if (copy.getDstType().getScope() != MemoryScope::tmem)
      return 0;
    return copy.getCtaGroup().value_or(1);
  }
  if (!op->getName().getStringRef().starts_with("nvvm.tcgen05."))
    return 0;
  for (StringRef name : {"group", "ctaGroup"})
    if (auto attr = dyn_cast_or_null<NVVM::CTAGroupKindAttr>(
            op->getInherentAttr(name).value_or(Attribute())))
      return attr.getValue() == NVVM::CTAGroupKind::CTA_2 ? 2 : 1;
  return 0;
}

} // namespace

LogicalResult tile::kernel_checks::checkCtaGroup(FunctionOpInterface function) {
  bool failed = false;
  Operation *first = nullptr;
  unsigned firstGroup = 0;
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != function.getOperation() && isa<FunctionOpInterface>(op))
      return WalkResult::skip(); // a nested function is checked alone
    unsigned group = ctaGroupOf(op);
    if (!group)
      return WalkResult::advance();
    if (!first) {
      first = op;
      firstGroup = group;
      return WalkResult::advance();
    }
    if (group == firstGroup)
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitError();
    if (isa<NVVM::Tcgen05CommitOp, MmaCommitOp>(op))
      diag << "tcgen05.commit uses cta_group::" << group
           << " but the tcgen05 operations it would track use cta_group::"
           << firstGroup
           << "; a commit tracks the operations of its own cta_group";
    else
      diag << "uses cta_group::" << group << " but this function's "
           << "first tcgen05 operation uses cta_group::" << firstGroup
           << "; ptxas rejects a function that mixes them (one "
              "cta_group per kernel)";
    diag.attachNote(first->getLoc())
        << "first tcgen05 operation (cta_group::" << firstGroup << ")";
    failed = true;
    return WalkResult::advance();
  });
  return mlir::failure(failed);
}

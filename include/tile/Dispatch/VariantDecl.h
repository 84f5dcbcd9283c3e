//===- VariantDecl.h - declare a variant once, typed -------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A variant is declared once, in one place, with the op type it implements
// and the type of its plan:
//
//   registerVariant(registry, VariantDecl<CopyAsyncOp, dsmem::Plan>{
//       "dsmem", kDSMEMPriority,
//       {{"has_mbar", hasMbar}, ...},  // Verdict(CopyAsyncOp, const DispatchContext &)
//       planDSMEM,                     // OrReason<dsmem::Plan>(CopyAsyncOp, ...)
//       /*prepare=*/nullptr,           // optional kernel-ABI step
//       emitDSMEM});                   // (op, const dsmem::Plan &, lowered, ...)
//
// Predicates, planner and emitter see the op as its own class and the plan
// as the planner made it: no casts, and the plan is computed once per op
// (dispatch keeps it from selection to lowering; PlanCache.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_VARIANTDECL_H
#define TILE_DISPATCH_VARIANTDECL_H

#include "tile/Dispatch/Registry.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"

namespace tile::dispatch {

/// A named predicate over `OpT`.
template <typename OpT> struct OpPredicate {
  std::string name;
  std::function<Verdict(OpT, const DispatchContext &)> check;
};

template <typename OpT, typename PlanT> struct VariantDecl {
  std::string name;
  int priority = 0;
  std::vector<OpPredicate<OpT>> predicates;
  /// Required: the plan, or the reason the variant declines.
  std::function<OrReason<PlanT>(OpT, const DispatchContext &)> plan;
  /// Optional: kernel-ABI work before any op is rewritten.
  std::function<llvm::LogicalResult(OpT, PlanT &, const DispatchContext &,
                                    KernelABI &)>
      prepare;
  /// Optional (a variant without one is selectable, not lowerable).
  std::function<llvm::LogicalResult(OpT, const PlanT &, mlir::ValueRange,
                                    const DispatchContext &,
                                    mlir::RewriterBase &)>
      emit;
  /// Optional: the instruction families the op is emitted as.
  std::function<llvm::SmallVector<cuda::InstructionFamily, 2>(OpT)> families;
  std::string family = kCudaFamily.str();
  /// Optional: bytes of shared scratch the emitted code uses (Registry.h).
  std::function<int64_t(OpT, const PlanT &)> sharedScratch;
};

/// The type-erased form of `decl`.
template <typename OpT, typename PlanT>
Variant eraseVariant(VariantDecl<OpT, PlanT> decl) {
  Variant v;
  v.opName = OpT::getOperationName().str();
  v.family = std::move(decl.family);
  v.name = std::move(decl.name);
  v.priority = decl.priority;
  for (OpPredicate<OpT> &p : decl.predicates)
    v.predicates.push_back(
        {std::move(p.name),
         [check = std::move(p.check)](mlir::Operation *op,
                                      const DispatchContext &context) {
           return check(llvm::cast<OpT>(op), context);
         }});
  v.plan = [plan = std::move(decl.plan)](
               mlir::Operation *op,
               const DispatchContext &context) -> OrReason<AnyPlan> {
    OrReason<PlanT> planned = plan(llvm::cast<OpT>(op), context);
    if (!planned)
      return OrReason<AnyPlan>::failure(planned.reason());
    return AnyPlan(std::make_shared<PlanT>(std::move(*planned)));
  };
  if (decl.prepare)
    v.prepare = [prepare = std::move(decl.prepare)](
                    mlir::Operation *op, AnyPlan &plan,
                    const DispatchContext &context, KernelABI &abi) {
      return prepare(llvm::cast<OpT>(op), *static_cast<PlanT *>(plan.get()),
                     context, abi);
    };
  if (decl.families)
    v.families = [families = std::move(decl.families)](mlir::Operation *op) {
      return families(llvm::cast<OpT>(op));
    };
  if (decl.sharedScratch)
    v.sharedScratch = [scratch = std::move(decl.sharedScratch)](
                          mlir::Operation *op, const AnyPlan &plan) {
      return scratch(llvm::cast<OpT>(op),
                     *static_cast<const PlanT *>(plan.get()));
    };
  if (decl.emit)
    v.emit = [emit = std::move(decl.emit)](
                 mlir::Operation *op, const AnyPlan &plan,
                 mlir::ValueRange lowered, const DispatchContext &context,
                 mlir::RewriterBase &rewriter) {
      return emit(llvm::cast<OpT>(op), *static_cast<const PlanT *>(plan.get()),
                  lowered, context, rewriter);
    };
  return v;
}

/// Declares `decl` in `registry`; false when its name is already taken for
/// the op and family.
template <typename OpT, typename PlanT>
bool registerVariant(VariantRegistry &registry, VariantDecl<OpT, PlanT> decl) {
  return registry.registerVariant(eraseVariant(std::move(decl)));
}

} // namespace tile::dispatch

#endif // TILE_DISPATCH_VARIANTDECL_H

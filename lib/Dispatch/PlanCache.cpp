//===- PlanCache.cpp - each op planned once per pipeline run ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dispatch/PlanCache.h"

using namespace mlir;
using namespace tile::dispatch;

void PlanCache::remember(Operation *op, const Variant &variant,
                         const DispatchContext &context, AnyPlan plan) {
  std::lock_guard<std::mutex> lock(mutex);
  entries.insert_or_assign(
      op, Entry{&variant, OperationFingerPrint(op),
                llvm::to_vector(op->getOperandTypes()), context.target.chip,
                std::move(plan)});
}

bool PlanCache::matches(const Entry &entry, Operation *op,
                        const Variant &variant,
                        const DispatchContext &context) {
  return entry.variant == &variant && entry.chip == context.target.chip &&
         llvm::equal(entry.operandTypes, op->getOperandTypes()) &&
         entry.fingerprint == OperationFingerPrint(op);
}

tile::OrReason<AnyPlan> PlanCache::planOf(Operation *op, const Variant &variant,
                                          const DispatchContext &context) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(op);
    if (it != entries.end() && matches(it->second, op, variant, context)) {
      ++numReused;
      return it->second.plan;
    }
    ++numPlanned;
  }
  OrReason<AnyPlan> plan =
      variant.plan ? variant.plan(op, context) : OrReason<AnyPlan>(AnyPlan());
  if (plan)
    remember(op, variant, context, *plan);
  return plan;
}

void PlanCache::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  entries.clear();
}

//===- PlanCache.cpp - each op planned once per pipeline run ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dispatch/PlanCache.h"

using namespace mlir;
using namespace tile::dispatch;

void PlanCache::remember(Operation *op, const Variant &variant, AnyPlan plan) {
  entries.insert_or_assign(
      op, Entry{&variant, OperationFingerPrint(op), std::move(plan)});
}

tile::OrReason<AnyPlan> PlanCache::planOf(Operation *op, const Variant &variant,
                                          const DispatchContext &context) {
  auto it = entries.find(op);
  if (it != entries.end() && it->second.variant == &variant &&
      it->second.fingerprint == OperationFingerPrint(op)) {
    ++numReused;
    return it->second.plan;
  }
  ++numPlanned;
  OrReason<AnyPlan> plan =
      variant.plan ? variant.plan(op, context) : OrReason<AnyPlan>(AnyPlan());
  if (plan)
    remember(op, variant, *plan);
  return plan;
}

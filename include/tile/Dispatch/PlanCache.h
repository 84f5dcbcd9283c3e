//===- PlanCache.h - each op planned once per pipeline run -------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Selection plans every viable candidate; lowering needs the chosen one's
// plan again. `--tile-to-nvvm` gives both passes one PlanCache, so the plan
// made at selection is the one lowering emits. An entry is reused only
// while the op is unchanged (same operation fingerprint: operand values,
// attributes, result types, location; and the same operand types and
// target chip) and still names the same variant; anything else plans
// again. Passes run on their own (without a shared cache) plan in each
// pass; the lowering pass clears the cache when it is done.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_PLANCACHE_H
#define TILE_DISPATCH_PLANCACHE_H

#include "tile/Dispatch/Registry.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace tile::dispatch {

class PlanCache {
public:
  /// Remembers `plan` as `variant`'s plan of `op` in its current form for
  /// `context`'s chip.
  void remember(mlir::Operation *op, const Variant &variant,
                const DispatchContext &context, AnyPlan plan);

  /// The plan of `op` by `variant`: the remembered one when `op` is
  /// unchanged since, else planned now (and remembered).
  OrReason<AnyPlan> planOf(mlir::Operation *op, const Variant &variant,
                           const DispatchContext &context);

  /// Forgets every plan (the counters stay).
  void clear();

  /// How many planOf calls reused a plan / had to plan.
  unsigned reused() const { return numReused; }
  unsigned planned() const { return numPlanned; }

private:
  struct Entry {
    const Variant *variant;
    mlir::OperationFingerPrint fingerprint;
    llvm::SmallVector<mlir::Type> operandTypes;
    std::string chip;
    AnyPlan plan;
  };
  static bool matches(const Entry &entry, mlir::Operation *op,
                      const Variant &variant, const DispatchContext &context);
  /// Passes of one pipeline may run on several ops in parallel.
  std::mutex mutex;
  std::unordered_map<mlir::Operation *, Entry> entries;
  unsigned numReused = 0, numPlanned = 0;
};

/// A pass of class `PassT` (with a `cache` member) built from `options` and
/// sharing `cache` with the other passes of its pipeline.
template <typename PassT, typename OptionsT>
std::unique_ptr<mlir::Pass> withPlanCache(const OptionsT &options,
                                          std::shared_ptr<PlanCache> cache) {
  auto pass = std::make_unique<PassT>(options);
  pass->cache = std::move(cache);
  return pass;
}

} // namespace tile::dispatch

#endif // TILE_DISPATCH_PLANCACHE_H

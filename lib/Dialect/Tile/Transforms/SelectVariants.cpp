//===- SelectVariants.cpp - --tile-select-variants --------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dispatch/PlanCache.h"
#include "tile/Dispatch/Registry.h"


namespace tile {
#define GEN_PASS_DEF_TILESELECTVARIANTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

struct SelectVariantsPass
    : public tile::impl::TileSelectVariantsBase<SelectVariantsPass> {
  using TileSelectVariantsBase::TileSelectVariantsBase;

  /// Where the chosen plans go for --tile-lower-variants (set in a
  /// pipeline; null when the pass runs alone).
  std::shared_ptr<PlanCache> cache;

  void runOnOperation() override {
    bool failedAny = false;
    getOperation()->walk([&](DispatchOpInterface op) {
      if (failed(select(op)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult select(DispatchOpInterface op) {
    std::optional<DispatchContext> maybeContext =
        dispatchContextFor(op, chip);
    if (!maybeContext)
      return failure();
    const DispatchContext &context = *maybeContext;
    const std::string &chipName = context.target.chip;
    std::optional<StringRef> forced = op.getForcedVariant();
    Selection selection = selectVariant(op, context, forced);
    if (!selection.error.empty())
      return op->emitError() << selection.error;
    if (!selection.chosen) {
      InFlightDiagnostic diag = op->emitError();
      if (selection.reports.empty()) {
        diag << "no variants of " << op->getName()
             << " are registered for " << context.family;
        return diag;
      }
      if (forced)
        diag << "forced variant '" << *forced << "' cannot implement this "
             << op->getName() << " on " << chipName;
      else
        diag << "no variant of " << op->getName()
             << " can implement this op on " << chipName;
      for (const CandidateReport &report : selection.reports)
        if (!forced || report.variant->name == *forced)
          diag.attachNote() << report.describe();
      return diag;
    }
    op.setSelectedVariant(selection.chosen->name);
    ++numSelected;
    if (cache)
      cache->remember(op, *selection.chosen, context, selection.plan);
    if (explain) {
      InFlightDiagnostic remark = op->emitRemark()
                                  << "selected " << selection.chosen->name
                                  << " (priority "
                                  << selection.chosen->priority << ") on "
                                  << chipName;
      for (const CandidateReport &report : selection.reports) {
        if (report.variant == selection.chosen)
          continue;
        if (report.viable())
          remark.attachNote()
              << report.variant->name << " (priority "
              << report.variant->priority << "): viable, "
              << (forced ? "not the forced variant" : "lower priority");
        else
          remark.attachNote() << report.describe();
      }
    }
    return success();
  }
};

} // namespace

std::unique_ptr<Pass>
tile::createTileSelectVariants(const TileSelectVariantsOptions &options,
                               std::shared_ptr<PlanCache> cache) {
  return withPlanCache<SelectVariantsPass>(options, std::move(cache));
}

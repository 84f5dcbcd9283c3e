//===- VerifyKernels.cpp - kernel-wide checks before lowering ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Variants/CUDA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tile {
#define GEN_PASS_DEF_TILEVERIFYKERNELS
#include "tile/Variants/CUDA/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

namespace {

/// A detached copy of `function` with integer arithmetic folded and
/// common subexpressions merged: the static checks compare barrier indices
/// and byte counts as SSA values, and an index recomputed in another role
/// (or a count spelled `24576 + 24576`) must be the same value to them.
/// The copy's ops keep the original locations, so its diagnostics point at
/// the source; nothing outside the function changes (the pass may run on
/// functions in parallel). The caller erases it.
Operation *canonicalView(FunctionOpInterface function,
                         const FrozenRewritePatternSet &arithPatterns) {
  Operation *copy = function->clone();
  // Blocks and regions stay as written: only values are simplified.
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  (void)applyPatternsGreedily(copy, arithPatterns, config);
  IRRewriter rewriter(function->getContext());
  DominanceInfo dominance(copy);
  eliminateCommonSubExpressions(rewriter, dominance, copy);
  return copy;
}

struct VerifyKernelsPass
    : public tile::impl::TileVerifyKernelsBase<VerifyKernelsPass> {
  using TileVerifyKernelsBase::TileVerifyKernelsBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet patterns(context);
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (name.getDialectNamespace() ==
          arith::ArithDialect::getDialectNamespace())
        name.getCanonicalizationPatterns(patterns, context);
    arithPatterns = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  FrozenRewritePatternSet arithPatterns;

  void runOnOperation() override {
    bool failed = false;
    SmallVector<FunctionOpInterface> functions;
    getOperation()->walk(
        [&](FunctionOpInterface function) { functions.push_back(function); });
    for (FunctionOpInterface function : functions) {
      // Every check runs, so one pass reports every problem. The static
      // ones read the canonical view; the simulation computes values and
      // reads the function itself.
      Operation *view = canonicalView(function, arithPatterns);
      for (auto check :
           {kernel_checks::checkCtaGroup, kernel_checks::checkExpectTx,
            kernel_checks::checkAsyncProxy, kernel_checks::checkTensorMemory,
            kernel_checks::checkWgmmaRegisters,
            kernel_checks::checkNamedBarriers})
        if (mlir::failed(check(cast<FunctionOpInterface>(view))))
          failed = true;
      view->erase();
      if (mlir::failed(
              kernel_checks::checkPipelines(function, simulationRemarks)))
        failed = true;
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace

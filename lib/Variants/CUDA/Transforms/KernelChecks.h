//===- KernelChecks.h - the checks of --tile-verify-kernels ------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each check reads one function and reports on its ops; failure means it
// emitted an error (remarks for what it could not prove do not fail).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_TRANSFORMS_KERNELCHECKS_H
#define TILE_LIB_VARIANTS_CUDA_TRANSFORMS_KERNELCHECKS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace tile::kernel_checks {

mlir::LogicalResult checkCtaGroup(mlir::FunctionOpInterface function);
mlir::LogicalResult checkExpectTx(mlir::FunctionOpInterface function);
mlir::LogicalResult checkAsyncProxy(mlir::FunctionOpInterface function);
mlir::LogicalResult checkTensorMemory(mlir::FunctionOpInterface function);
mlir::LogicalResult checkWgmmaRegisters(mlir::FunctionOpInterface function);
mlir::LogicalResult checkNamedBarriers(mlir::FunctionOpInterface function);
/// Simulates the kernel's barrier protocol (PipelineSimulation.cpp);
/// `remarks`: say when a kernel is outside the model.
mlir::LogicalResult checkPipelines(mlir::FunctionOpInterface function,
                                   bool remarks);

/// Visits the ops of `block` in program order with a `State` per path:
/// both branches of an `scf.if` from the state before it (merged after),
/// an outermost loop's body twice (a value carried into the next trip is
/// seen; inner loops once, so nesting stays linear) and merged with the
/// state before it (zero trips). `State` has `void merge(const State &)`;
/// nested functions are skipped.
template <typename State, typename Visit>
void walkPaths(mlir::Block &block, State &state, const Visit &visit,
               bool inLoop = false) {
  for (mlir::Operation &op : block) {
    if (llvm::isa<mlir::FunctionOpInterface>(op))
      continue;
    if (auto ifOp = llvm::dyn_cast<mlir::scf::IfOp>(op)) {
      State thenState = state;
      walkPaths(ifOp.getThenRegion().front(), thenState, visit, inLoop);
      if (!ifOp.getElseRegion().empty())
        walkPaths(ifOp.getElseRegion().front(), state, visit, inLoop);
      state.merge(thenState);
      continue;
    }
    if (llvm::isa<mlir::LoopLikeOpInterface>(op)) {
      State before = state;
      for (int trip = 0; trip < (inLoop ? 1 : 2); ++trip)
        for (mlir::Region &region : op.getRegions())
          for (mlir::Block &inner : region)
            walkPaths(inner, state, visit, /*inLoop=*/true);
      state.merge(before);
      continue;
    }
    visit(op, state);
    for (mlir::Region &region : op.getRegions())
      for (mlir::Block &inner : region)
        walkPaths(inner, state, visit, inLoop);
  }
}

} // namespace tile::kernel_checks

#endif // TILE_LIB_VARIANTS_CUDA_TRANSFORMS_KERNELCHECKS_H

//===- VerifyKernels.cpp - kernel-wide checks before lowering ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Variants/CUDA/Transforms/Passes.h"

namespace tile {
#define GEN_PASS_DEF_TILEVERIFYKERNELS
#include "tile/Variants/CUDA/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

namespace {

struct VerifyKernelsPass
    : public tile::impl::TileVerifyKernelsBase<VerifyKernelsPass> {
  using TileVerifyKernelsBase::TileVerifyKernelsBase;

  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](FunctionOpInterface function) {
      // Every check runs, so one pass reports every problem.
      for (auto check :
           {kernel_checks::checkCtaGroup, kernel_checks::checkExpectTx,
            kernel_checks::checkAsyncProxy, kernel_checks::checkTensorMemory,
            kernel_checks::checkWgmmaRegisters})
        if (mlir::failed(check(function)))
          failed = true;
      if (mlir::failed(
              kernel_checks::checkPipelines(function, simulationRemarks)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace

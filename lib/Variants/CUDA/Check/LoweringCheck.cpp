//===- LoweringCheck.cpp - what the variants' IR checkers share -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"

#include "tile/Variants/CUDA/BuiltinVariants.h"

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;

LogicalResult lowering_check::reportOn(Operation *op, StringRef variant,
                                       const plan_check::CheckReport &report) {
  if (report.failure)
    return op->emitError() << "lowering check (" << variant
                           << "): " << *report.failure;
  if (report.skipped)
    return op->emitError() << "lowering check (" << variant
                           << "): not checked: " << *report.skipped;
  return success();
}

LogicalResult lowering_check::reportOn(Operation *op, StringRef variant,
                                       const Status &status) {
  if (status)
    return success();
  return op->emitError() << "lowering check (" << variant
                         << "): " << status.reason();
}

Status lowering_check::unexpectedInstruction(Operation *inst) {
  return Status::failure("the lowering emits '" +
                         inst->getName().getStringRef().str() +
                         "', which the check does not model");
}

OrReason<int64_t> lowering_check::valueOf(const EmittedValues &values,
                                          Operation *inst, Value operand,
                                          StringRef what) {
  OrReason<int64_t> v = values.get(operand);
  if (!v)
    return OrReason<int64_t>::failure(describeOperand(inst, what) + " " +
                                      v.reason());
  return v;
}

void tile::registerBuiltinLoweringChecks(dispatch::VariantRegistry &registry) {
  using namespace lowering_check;
  registry.setCheck("tile.copy_async", dispatch::kCudaFamily, "tma",
                    checkTMALowering);
  registry.setCheck("tile.copy_async", dispatch::kCudaFamily, "ldgsts",
                    checkLdgstsLowering);
  registry.setCheck("tile.copy_async", dispatch::kCudaFamily, "dsmem",
                    checkDSMEMLowering);
  registry.setCheck("tile.copy_async", dispatch::kCudaFamily, "tcgen05_cp",
                    checkTcgen05CpLowering);
  registry.setCheck("tile.gemm_async", dispatch::kCudaFamily, "tcgen05",
                    checkTcgen05MmaLowering);
  registry.setCheck("tile.gemm_async", dispatch::kCudaFamily, "wgmma",
                    checkWgmmaLowering);
}

//===- DispatchContext.cpp - the target a tile op is compiled for -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Kept apart from Registry.cpp: NVVMDialect.h is the most expensive header
// of the build, and the registry itself needs no dialect.
//
//===----------------------------------------------------------------------===//

#include "tile/Dispatch/Registry.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tile::dispatch;

std::optional<std::string> tile::dispatch::enclosingTargetChip(Operation *op) {
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  if (!module || !module.getTargetsAttr())
    return std::nullopt;
  for (Attribute target : module.getTargetsAttr())
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
      return nvvm.getChip().str();
  return std::nullopt;
}

std::optional<DispatchContext>
tile::dispatch::dispatchContextFor(Operation *op, StringRef fallbackChip) {
  // An #nvvm.target makes the family cuda; without a target the chip option
  // (or sm_100a) is a cuda chip too, the only family tile-mlir ships.
  std::string chip = enclosingTargetChip(op).value_or(
      fallbackChip.empty() ? "sm_100a" : fallbackChip.str());
  std::optional<TargetInfo> target = TargetInfo::parse(chip);
  if (!target) {
    op->emitError() << "unsupported target chip '" << chip
                    << "'; expected sm_<version>[a|f]";
    return std::nullopt;
  }
  return DispatchContext{kCudaFamily.str(), *target};
}

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

namespace {
NVVM::NVVMTargetAttr enclosingTarget(Operation *op) {
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  if (!module || !module.getTargetsAttr())
    return {};
  for (Attribute target : module.getTargetsAttr())
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
      return nvvm;
  return {};
}
} // namespace

std::string tile::dispatch::dispatchFamilyOf(Operation *op) {
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  ArrayAttr targets = module ? module.getTargetsAttr() : ArrayAttr();
  if (!targets || targets.empty() || isa<NVVM::NVVMTargetAttr>(targets[0]))
    return kCudaFamily.str();
  return targets[0].getDialect().getNamespace().str();
}

std::optional<std::string> tile::dispatch::enclosingTargetChip(Operation *op) {
  if (NVVM::NVVMTargetAttr target = enclosingTarget(op))
    return target.getChip().str();
  return std::nullopt;
}

std::optional<DispatchContext>
tile::dispatch::dispatchContextFor(Operation *op, StringRef fallbackChip) {
  // Another family has no cuda chip: its variants see only the family.
  std::string family = dispatchFamilyOf(op);
  if (family != kCudaFamily)
    return DispatchContext{family, TargetInfo()};
  // An #nvvm.target makes the family cuda; without a target the chip option
  // (or sm_100a) is a cuda chip too, the only family tile-mlir ships.
  std::string chip = enclosingTargetChip(op).value_or(
      fallbackChip.empty() ? "sm_100a" : fallbackChip.str());
  OrReason<TargetInfo> target = TargetInfo::parse(chip);
  if (!target) {
    op->emitError() << target.reason();
    return std::nullopt;
  }
  if (NVVM::NVVMTargetAttr nvvm = enclosingTarget(op)) {
    OrReason<std::optional<cuda::PtxVersion>> ptx =
        cuda::ptxVersionOfFeatures(nvvm.getFeatures());
    if (!ptx) {
      op->emitError() << "#nvvm.target features: " << ptx.reason();
      return std::nullopt;
    }
    target->ptx = *ptx;
  }
  return DispatchContext{kCudaFamily.str(), *target};
}

//===- BuiltinVariants.cpp - tile-mlir's own variants -----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "Local/LocalAccess.h"
#include "Local/LocalCommon.h"

void tile::registerBuiltinVariants(dispatch::VariantRegistry &registry) {
  registerTMAVariant(registry);
  registerLdgstsVariant(registry);
  registerDSMEMVariant(registry);
  registerTcgen05CpVariant(registry);
  registerTcgen05MmaVariant(registry);
  registerWgmmaVariant(registry);
  local::registerMapVariant(registry);
  local::registerReduceVariants(registry);
  local::registerConvertVariants(registry);
  local::registerStoreVariants(registry);
  local::registerLoadVariants(registry);
  registerBuiltinLoweringChecks(registry);
  local::registerLocalComputeChecks(registry);
  local::registerSharedScratchChecks(registry);
  local::registerLocalAccessChecks(registry);
}

//===- KernelABI.cpp - kernel parameters variants add -----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dispatch/KernelABI.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/CUDA/HardwareLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tile::dispatch;
using tile::TensorMapPlanAttr;

namespace {

/// The tensor-map records of `kernel`.
SmallVector<TensorMapPlanAttr> tensorMapsOf(gpu::GPUFuncOp kernel) {
  SmallVector<TensorMapPlanAttr> maps;
  if (auto existing = kernel->getAttrOfType<ArrayAttr>(kTensorMapsAttr))
    for (Attribute map : existing)
      maps.push_back(cast<TensorMapPlanAttr>(map));
  return maps;
}

gpu::GPUFuncOp enclosingKernel(Operation *op) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  return kernel && kernel.isKernel() ? kernel : gpu::GPUFuncOp();
}

} // namespace

FailureOr<unsigned> KernelABI::addTensorMapParam(Operation *op,
                                                 TensorMapPlanAttr plan) {
  gpu::GPUFuncOp kernel = enclosingKernel(op);
  if (!kernel)
    return op->emitError()
           << "a tensor-map copy must be inside a gpu.func kernel: its "
              "tensor map is a kernel parameter";
  for (TensorMapPlanAttr map : tensorMapsOf(kernel))
    if (map.withParam(0) == plan.withParam(0))
      return unsigned(map.getParam());
  MLIRContext *ctx = op->getContext();
  unsigned index = kernel.getNumArguments();
  NamedAttrList argAttrs;
  argAttrs.append(LLVM::LLVMDialect::getAlignAttrName(),
                  IntegerAttr::get(IntegerType::get(ctx, 64),
                                   cuda::kTensorMapBytes));
  if (failed(kernel.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                                   argAttrs.getDictionary(ctx), op->getLoc())))
    return op->emitError() << "cannot add the tensor-map parameter to kernel "
                           << kernel.getName();
  SmallVector<Attribute> maps;
  for (TensorMapPlanAttr map : tensorMapsOf(kernel))
    maps.push_back(map);
  maps.push_back(plan.withParam(index));
  kernel->setAttr(kTensorMapsAttr, ArrayAttr::get(ctx, maps));
  return index;
}

SmallVector<std::string> tile::dispatch::loweredParamParts(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return {""};
  SmallVector<std::string> parts = {"allocated", "aligned", "offset"};
  for (int64_t d = 0; d < memref.getRank(); ++d)
    parts.push_back("size[" + std::to_string(d) + "]");
  for (int64_t d = 0; d < memref.getRank(); ++d)
    parts.push_back("stride[" + std::to_string(d) + "]");
  return parts;
}

unsigned tile::dispatch::loweredParamIndex(FunctionType signature,
                                           unsigned sourceIndex) {
  unsigned index = 0;
  for (unsigned i = 0; i < sourceIndex; ++i)
    index += loweredParamParts(signature.getInput(i)).size();
  return index;
}

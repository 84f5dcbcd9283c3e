//===- KernelABI.cpp - kernel parameters variants add -----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dispatch/KernelABI.h"
#include "tile/Dispatch/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tile {
#define GEN_PASS_DEF_TILEFINALIZEKERNELABI
#include "tile/Dispatch/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile::dispatch;

FailureOr<unsigned> KernelABI::tensorMapParam(Operation *op,
                                              DictionaryAttr plan) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  if (!kernel || !kernel.isKernel())
    return op->emitError()
           << "a tensor-map copy must be inside a gpu.func kernel: its "
              "tensor map is a kernel parameter";
  MLIRContext *ctx = op->getContext();
  SmallVector<Attribute> maps;
  if (auto existing = kernel->getAttrOfType<ArrayAttr>(kTensorMapsAttr))
    maps.assign(existing.begin(), existing.end());
  for (Attribute map : maps) {
    auto dict = cast<DictionaryAttr>(map);
    NamedAttrList withoutParam(dict);
    Attribute param = withoutParam.erase("param");
    if (withoutParam.getDictionary(ctx) == plan)
      return static_cast<unsigned>(cast<IntegerAttr>(param).getInt());
  }
  unsigned index = kernel.getNumArguments();
  NamedAttrList argAttrs;
  argAttrs.append(LLVM::LLVMDialect::getAlignAttrName(),
                  IntegerAttr::get(IntegerType::get(ctx, 64), kTensorMapBytes));
  // Appending an argument to a gpu.func body cannot fail (no type
  // constraint or block to reconcile).
  LogicalResult appended =
      kernel.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                            argAttrs.getDictionary(ctx), op->getLoc());
  assert(succeeded(appended) && "appending a kernel argument failed");
  (void)appended;
  NamedAttrList entry(plan);
  entry.set("param", IntegerAttr::get(IntegerType::get(ctx, 64), index));
  maps.push_back(entry.getDictionary(ctx));
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

namespace {

struct FinalizeKernelABIPass
    : public tile::impl::TileFinalizeKernelABIBase<FinalizeKernelABIPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      auto maps = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr);
      if (!maps)
        return;
      auto signature = func->getAttrOfType<TypeAttr>(kSourceSignatureAttr);
      if (!signature || !isa<FunctionType>(signature.getValue())) {
        func.emitError() << "tensor maps without " << kSourceSignatureAttr
                         << "; run --tile-lower-variants";
        return signalPassFailure();
      }
      auto type = cast<FunctionType>(signature.getValue());
      SmallVector<Attribute> updated;
      for (auto map : maps.getAsRange<DictionaryAttr>()) {
        unsigned source = cast<IntegerAttr>(map.get("param")).getInt();
        unsigned lowered = loweredParamIndex(type, source);
        if (lowered >= func.getNumArguments() ||
            !isa<LLVM::LLVMPointerType>(func.getArgument(lowered).getType())) {
          func.emitError() << "tensor-map parameter " << source
                           << " has no pointer parameter after lowering";
          return signalPassFailure();
        }
        func.setArgAttr(lowered, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            IntegerType::get(ctx, 8), kTensorMapBytes)));
        func.setArgAttr(lowered, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(IntegerType::get(ctx, 64),
                                         kTensorMapBytes));
        func.setArgAttr(lowered, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
        NamedAttrList entry(map);
        entry.set("lowered_param",
                  IntegerAttr::get(IntegerType::get(ctx, 64), lowered));
        if (auto global = map.getAs<IntegerAttr>("global_arg"))
          entry.set("lowered_global_param",
                    IntegerAttr::get(IntegerType::get(ctx, 64),
                                     loweredParamIndex(type, global.getInt()) +
                                         1)); // the aligned pointer
        updated.push_back(entry.getDictionary(ctx));
      }
      func->setAttr(kTensorMapsAttr, ArrayAttr::get(ctx, updated));
    });
  }
};

} // namespace

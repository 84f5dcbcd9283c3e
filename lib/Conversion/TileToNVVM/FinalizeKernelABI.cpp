//===- FinalizeKernelABI.cpp - --tile-finalize-kernel-abi -------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// After convert-gpu-to-nvvm: tensor-map parameters become by-value grid
// constants, and each #tile.tensor_map_plan records the lowered parameter
// indices the manifest needs.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Target/CUDA/HardwareLimits.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tile {
#define GEN_PASS_DEF_TILEFINALIZEKERNELABI
#include "tile/Conversion/TileToNVVM/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

/// `!llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 128,
/// nvvm.grid_constant}` on parameter `index` of `func`.
void makeByValueGridConstant(LLVM::LLVMFuncOp func, unsigned index) {
  MLIRContext *ctx = func.getContext();
  func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                  TypeAttr::get(LLVM::LLVMArrayType::get(
                      IntegerType::get(ctx, 8), cuda::kTensorMapBytes)));
  func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                  IntegerAttr::get(IntegerType::get(ctx, 64),
                                   cuda::kTensorMapBytes));
  func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                  UnitAttr::get(ctx));
}

struct FinalizeKernelABIPass
    : public tile::impl::TileFinalizeKernelABIBase<FinalizeKernelABIPass> {
  LogicalResult finalize(LLVM::LLVMFuncOp func, ArrayAttr maps) {
    auto signature = func->getAttrOfType<TypeAttr>(kSourceSignatureAttr);
    if (!signature || !isa<FunctionType>(signature.getValue()))
      return func.emitError() << "tensor maps without " << kSourceSignatureAttr
                              << "; run --tile-lower-variants";
    auto type = cast<FunctionType>(signature.getValue());
    SmallVector<Attribute> updated;
    for (auto map : maps.getAsRange<TensorMapPlanAttr>()) {
      // The verifier keeps the indices inside the source signature.
      if (map.getParam() >= type.getNumInputs() ||
          map.getGlobalArg() >= type.getNumInputs())
        return func.emitError() << "tensor-map plan outside the kernel's "
                                   "source signature";
      unsigned lowered = loweredParamIndex(type, map.getParam());
      if (lowered >= func.getNumArguments() ||
          !isa<LLVM::LLVMPointerType>(func.getArgument(lowered).getType()))
        return func.emitError()
               << "tensor-map parameter " << map.getParam()
               << " has no pointer parameter after lowering";
      makeByValueGridConstant(func, lowered);
      // The aligned pointer is the second part of a lowered memref.
      unsigned global = loweredParamIndex(type, map.getGlobalArg()) + 1;
      updated.push_back(map.withLoweredParams(lowered, global));
    }
    func->setAttr(kTensorMapsAttr, ArrayAttr::get(&getContext(), updated));
    return success();
  }

  void runOnOperation() override {
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      if (auto maps = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr))
        if (failed(finalize(func, maps)))
          signalPassFailure();
    });
  }
};

} // namespace

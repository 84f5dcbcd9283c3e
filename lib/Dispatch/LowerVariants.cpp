//===- LowerVariants.cpp - --tile-lower-variants ----------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A dialect conversion: buffers become addresses, copy_async / gemm_async go
// through the emitter of their selected variant (the registry owns the
// per-variant code). Everything that can be checked before rewriting is
// checked first and reported together, so a failed run leaves the IR intact.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Dispatch/LowerVariants.h"
#include "tile/Dispatch/Passes.h"
#include "tile/Dispatch/Registry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tile {
#define GEN_PASS_DEF_TILELOWERVARIANTS
#include "tile/Dispatch/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

void tile::populateTileBufferTypeConversions(TypeConverter &converter) {
  converter.addConversion([](BufferType type) -> std::optional<Type> {
    MLIRContext *ctx = type.getContext();
    switch (type.getScope()) {
    case MemoryScope::global:
      return LLVM::LLVMPointerType::get(ctx, 1);
    case MemoryScope::shared:
      return LLVM::LLVMPointerType::get(ctx, 3);
    case MemoryScope::tmem:
      return IntegerType::get(ctx, 32);
    case MemoryScope::local:
      break;
    }
    return std::nullopt;
  });
}

namespace {

/// `tile.alloc_shared` -> an internal shared global + its address.
struct AllocSharedLowering : OpConversionPattern<AllocSharedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllocSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *table = SymbolTable::getNearestSymbolTable(op);
    if (!table)
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
    std::string name;
    for (unsigned n = 0;; ++n) {
      name = "__tile_shared_" + std::to_string(n);
      if (!SymbolTable::lookupSymbolIn(table, name))
        break;
    }
    MLIRContext *ctx = op.getContext();
    auto arrayType = LLVM::LLVMArrayType::get(
        IntegerType::get(ctx, 8), static_cast<uint64_t>(op.getAllocationBytes()));
    {
      OpBuilder::InsertionGuard guard(rewriter);
      // Before the function that allocates, so globals read in order.
      Operation *owner = op;
      while (owner->getParentOp() != table)
        owner = owner->getParentOp();
      rewriter.setInsertionPoint(owner);
      LLVM::GlobalOp::create(rewriter, op.getLoc(), arrayType,
                             /*isConstant=*/false, LLVM::Linkage::Internal,
                             name, /*value=*/Attribute(),
                             op.getEffectiveAlignment(), /*addrSpace=*/3);
    }
    rewriter.replaceOpWithNewOp<LLVM::AddressOfOp>(
        op, LLVM::LLVMPointerType::get(ctx, 3), name);
    return success();
  }
};

/// `tile.from_memref` -> the address of the memref's element 0.
struct FromMemrefLowering : OpConversionPattern<FromMemrefOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FromMemrefOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value memref = adaptor.getSource();
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, memref);
    // An explicit buffer layout carries the memref offset (`k@m`) and counts
    // from the aligned pointer; without one the buffer starts at the
    // memref's element 0, `offset` elements further.
    if (!op.getResult().getType().getLayout()) {
      auto metadata =
          memref::ExtractStridedMetadataOp::create(rewriter, loc, memref);
      unsigned bits = op.getResult().getType().getElementBits();
      Value offset = metadata.getOffset();
      Value offsetBytes;
      if (bits % 8 == 0) {
        Value elementBytes =
            arith::ConstantIndexOp::create(rewriter, loc, bits / 8);
        offsetBytes = arith::MulIOp::create(rewriter, loc, offset, elementBytes);
      } else {
        Value elementBits = arith::ConstantIndexOp::create(rewriter, loc, bits);
        Value offsetBits =
            arith::MulIOp::create(rewriter, loc, offset, elementBits);
        Value eight = arith::ConstantIndexOp::create(rewriter, loc, 8);
        offsetBytes = arith::DivUIOp::create(rewriter, loc, offsetBits, eight);
      }
      address = arith::AddIOp::create(rewriter, loc, address, offsetBytes);
    }
    Value asInt = arith::IndexCastUIOp::create(
        rewriter, loc, rewriter.getI64Type(), address);
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(
        op, LLVM::LLVMPointerType::get(op.getContext(), 1), asInt);
    return success();
  }
};

/// Ops whose lowered value is their single operand: `tile.tmem_buffer` is
/// its i32 tensor-memory address, `tile.base_address` the lowered buffer.
template <typename OpTy>
struct ForwardOperandLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperands().front());
    return success();
  }
};

/// copy_async / gemm_async -> the selected variant's emitter.
template <typename OpTy>
struct SelectedVariantLowering : OpConversionPattern<OpTy> {
  SelectedVariantLowering(const TypeConverter &converter, MLIRContext *ctx,
                          StringRef fallbackChip)
      : OpConversionPattern<OpTy>(converter, ctx),
        fallbackChip(fallbackChip.str()) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto name = op->template getAttrOfType<StringAttr>("variant");
    if (!name)
      return rewriter.notifyMatchFailure(op, "no variant selected");
    const Variant *variant =
        findVariant(op->getName().getStringRef(), "cuda", name.getValue());
    if (!variant || !variant->emit)
      return rewriter.notifyMatchFailure(op, "variant cannot lower");
    std::optional<DispatchContext> context =
        dispatchContextFor(op, fallbackChip);
    if (!context)
      return failure();
    if (failed(variant->emit(op, adaptor.getOperands(), *context, rewriter)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }

  std::string fallbackChip;
};

/// `file:line:col` for file locations, the printed location otherwise.
std::string describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" +
            std::to_string(file.getLine()) + ":" +
            std::to_string(file.getColumn()))
        .str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (isa<FileLineColLoc>(inner))
        return describeLocation(inner);
  if (auto named = dyn_cast<NameLoc>(loc))
    return describeLocation(named.getChildLoc());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

struct LowerVariantsPass
    : public tile::impl::TileLowerVariantsBase<LowerVariantsPass> {
  using TileLowerVariantsBase::TileLowerVariantsBase;

  /// Checks every op before anything is rewritten; reports all problems.
  LogicalResult checkLowerable() {
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      if (!isa<CopyAsyncOp, GemmAsyncOp>(op))
        return;
      auto name = op->getAttrOfType<StringAttr>("variant");
      if (!name) {
        op->emitError() << "no variant selected for this " << op->getName()
                        << "; run --tile-select-variants first";
        ok = false;
        return;
      }
      const Variant *variant =
          findVariant(op->getName().getStringRef(), "cuda", name.getValue());
      if (!variant) {
        op->emitError() << "variant '" << name.getValue()
                        << "' is not registered for " << op->getName()
                        << " on cuda";
        ok = false;
      } else if (!variant->emit) {
        op->emitError() << "variant '" << name.getValue()
                        << "' cannot lower " << op->getName()
                        << " yet: it registers no emitter";
        ok = false;
      }
      if (!dispatchContextFor(op, chip))
        ok = false;
    });
    getOperation()->walk([&](FunctionOpInterface func) {
      int64_t bytes = 0;
      func.walk([&](AllocSharedOp alloc) {
        bytes = llvm::alignTo(bytes, alloc.getEffectiveAlignment()) +
                alloc.getAllocationBytes();
      });
      if (bytes > kMaxStaticSharedBytes) {
        func.emitError() << "static shared allocations total " << bytes
                         << " bytes; the static shared-memory limit is "
                         << kMaxStaticSharedBytes << " bytes";
        ok = false;
      }
    });
    return success(ok);
  }

  /// `tile.dispatch` on every function with tile ops; the source signature
  /// on every GPU kernel.
  void recordForManifest() {
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](FunctionOpInterface func) {
      SmallVector<Attribute> decisions;
      func.walk([&](Operation *op) {
        if (!isa<CopyAsyncOp, GemmAsyncOp>(op))
          return;
        NamedAttrList entry;
        entry.append("op", StringAttr::get(ctx, op->getName().getStringRef()));
        entry.append("variant", op->getAttr("variant"));
        entry.append("loc",
                     StringAttr::get(ctx, describeLocation(op->getLoc())));
        decisions.push_back(entry.getDictionary(ctx));
      });
      if (!decisions.empty())
        func->setAttr(kDispatchAttr, ArrayAttr::get(ctx, decisions));
      if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(func.getOperation()))
        if (gpuFunc.isKernel())
          func->setAttr(kSourceSignatureAttr,
                        TypeAttr::get(gpuFunc.getFunctionType()));
    });
  }

  /// Each variant's kernel-ABI work (tensor-map parameters), before any op
  /// is rewritten and before the source signature is recorded.
  LogicalResult prepareKernelABI() {
    KernelABI abi;
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      if (!isa<CopyAsyncOp, GemmAsyncOp>(op))
        return;
      const Variant *variant = findVariant(
          op->getName().getStringRef(), "cuda",
          op->getAttrOfType<StringAttr>("variant").getValue());
      if (!variant->prepare)
        return;
      std::optional<DispatchContext> context = dispatchContextFor(op, chip);
      if (!context || failed(variant->prepare(op, *context, abi)))
        ok = false;
    });
    return success(ok);
  }

  void runOnOperation() override {
    if (failed(checkLowerable()) || failed(prepareKernelABI()))
      return signalPassFailure();
    recordForManifest();

    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    populateTileBufferTypeConversions(converter);
    RewritePatternSet patterns(ctx);
    populateTileLowerVariantsPatterns(converter, patterns, chip);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    // Buffers may cross function boundaries and structured control flow;
    // those ops are rewritten to carry the lowered values.
    populateAnyFunctionOpInterfaceTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (auto func = dyn_cast<FunctionOpInterface>(op)) {
        auto type = dyn_cast<FunctionType>(func.getFunctionType());
        return !type || (converter.isSignatureLegal(type) &&
                         converter.isLegal(&func.getFunctionBody()));
      }
      return converter.isLegal(op);
    });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void tile::populateTileLowerVariantsPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             StringRef fallbackChip) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<AllocSharedLowering, FromMemrefLowering,
               ForwardOperandLowering<TmemBufferOp>,
               ForwardOperandLowering<BaseAddressOp>>(converter, ctx);
  patterns.add<SelectedVariantLowering<CopyAsyncOp>,
               SelectedVariantLowering<GemmAsyncOp>>(converter, ctx,
                                                     fallbackChip);
}

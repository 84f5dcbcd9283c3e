//===- TileToNVVM.cpp - tile ops -> NVVM/LLVM patterns -------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The patterns of --tile-lower-variants: buffer ops become addresses, and
// each dispatch op is rewritten by the emitter of its selected variant (the
// registry owns the per-variant code).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/LocalTiles.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Target/CUDA/HardwareLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#include <numeric>

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using NVVM::NVVMMemorySpace;

void tile::populateTileBufferTypeConversions(TypeConverter &converter) {
  converter.addConversion([](BufferType type) -> std::optional<Type> {
    MLIRContext *ctx = type.getContext();
    switch (type.getScope()) {
    case MemoryScope::global:
      return LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Global));
    case MemoryScope::shared:
      return LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Shared));
    case MemoryScope::tmem:
      return IntegerType::get(ctx, 32);
    case MemoryScope::local:
      // A per-thread alloca, promoted to registers by LLVM.
      return LLVM::LLVMPointerType::get(ctx);
    }
    return std::nullopt;
  });
}

namespace {

/// The operation directly inside `table` that holds `op`: new globals go
/// before it, so globals read in order.
Operation *ownerIn(Operation *table, Operation *op) {
  while (op->getParentOp() != table)
    op = op->getParentOp();
  return op;
}

/// `tile.alloc_shared` -> its address: in a kernel's dynamic shared segment
/// when --tile-assign-shared-offsets gave it an offset, else an internal
/// shared global.
struct AllocSharedLowering : OpConversionPattern<AllocSharedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllocSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *table = SymbolTable::getNearestSymbolTable(op);
    if (!table)
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
    if (op.getOffset())
      return lowerDynamic(op, table, rewriter);
    return lowerStatic(op, table, rewriter);
  }

  static LogicalResult lowerStatic(AllocSharedOp op, Operation *table,
                                   ConversionPatternRewriter &rewriter) {
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
      rewriter.setInsertionPoint(ownerIn(table, op));
      LLVM::GlobalOp::create(rewriter, op.getLoc(), arrayType,
                             /*isConstant=*/false, LLVM::Linkage::Internal,
                             name, /*value=*/Attribute(),
                             op.getEffectiveAlignment(),
                             unsigned(NVVMMemorySpace::Shared));
    }
    rewriter.replaceOpWithNewOp<LLVM::AddressOfOp>(
        op, LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Shared)),
        name);
    return success();
  }

  static LogicalResult lowerDynamic(AllocSharedOp op, Operation *,
                                    ConversionPatternRewriter &rewriter) {
    FailureOr<Value> address = dynamicSegmentAddress(
        rewriter, op.getLoc(), op, static_cast<int64_t>(*op.getOffset()));
    if (failed(address))
      return failure();
    rewriter.replaceOp(op, *address);
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
        op,
        LLVM::LLVMPointerType::get(op.getContext(),
                                   unsigned(NVVMMemorySpace::Global)),
        asInt);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Register-resident (local) tiles
//===----------------------------------------------------------------------===//

/// `tile.alloc_local` -> an `llvm.alloca` of the thread's elements (the
/// layout's memory cosize) in the function's entry block: SROA promotes
/// only entry-block allocas, and every access below uses constant indices.
struct AllocLocalLowering : OpConversionPattern<AllocLocalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllocLocalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BufferType type = op.getResult().getType();
    int64_t registers = type.getEffectiveLayout()->cosize(Axis::m);
    Region *body = op->getParentRegion();
    while (body->getParentOp() &&
           !body->getParentOp()->hasTrait<mlir::OpTrait::IsIsolatedFromAbove>())
      body = body->getParentOp()->getParentRegion();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&body->front());
    Location loc = op.getLoc();
    Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                         rewriter.getI32IntegerAttr(1));
    auto array = LLVM::LLVMArrayType::get(
        registerStorageType(type.getElementType()),
        static_cast<uint64_t>(registers));
    Value alloca = LLVM::AllocaOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(op.getContext()), array, one,
        /*alignment=*/16);
    rewriter.replaceOp(op, alloca);
    return success();
  }
};

/// Register `index` of a lowered local tile.
static Value localElement(OpBuilder &b, Location loc, Value tile,
                          Type element, int64_t registers, int64_t index) {
  return localRegisterAddress(b, loc, tile, element, registers, index);
}

/// `tile.fill` -> one store per register (an fp8 value as its bits).
struct FillLowering : OpConversionPattern<FillOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BufferType type = op.getBuffer().getType();
    int64_t registers = type.getEffectiveLayout()->cosize(Axis::m);
    Type storage = registerStorageType(type.getElementType());
    Value value = adaptor.getValue();
    if (value.getType() != storage)
      value = arith::BitcastOp::create(rewriter, op.getLoc(), storage, value);
    for (const LocalElements::Element &e : localElements(type).elements) {
      Value ptr = localElement(rewriter, op.getLoc(), adaptor.getBuffer(),
                               storage, registers, e.reg);
      LLVM::StoreOp::create(rewriter, op.getLoc(), value, ptr);
    }
    rewriter.eraseOp(op);
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

/// `buffer` (lowered) moved by its region's runtime leading indices (one
/// stage of a ring): shared + index * step bytes, tensor memory + index *
/// column step (getIndexStep allows no lane step). Planners plan those
/// indices at 0.
FailureOr<Value> indexBuffer(Operation *op, Value buffer, BufferType type,
                             ArrayRef<int64_t> staticOffsets,
                             ArrayRef<Value> indices, size_t regionRank,
                             ConversionPatternRewriter &rewriter) {
  if (type.getScope() == MemoryScope::global)
    return buffer; // TMA takes global indices as coordinates.
  Location loc = op->getLoc();
  const size_t lead = type.getRank() - regionRank;
  const int64_t bits = type.getElementBits();
  size_t next = 0;
  for (size_t d = 0; d < staticOffsets.size(); ++d) {
    if (!ShapedType::isDynamic(staticOffsets[d]))
      continue;
    Value index = indices[next++];
    if (d >= lead)
      continue; // region offsets are the planners' to refuse
    OrReason<AxisAddress> step = type.getIndexStep(d);
    if (!step)
      return op->emitError() << "runtime index of " << step.reason(), failure();
    if (type.getScope() == MemoryScope::shared) {
      Value i = arith::IndexCastOp::create(rewriter, loc,
                                           rewriter.getI64Type(), index);
      Value bytes = arith::MulIOp::create(
          rewriter, loc, i,
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                       at(*step, Axis::m) * bits / 8));
      buffer = LLVM::GEPOp::create(rewriter, loc, buffer.getType(),
                                   rewriter.getI8Type(), buffer,
                                   ArrayRef<LLVM::GEPArg>{bytes});
      continue;
    }
    int64_t cell = at(*step, Axis::TCol) * bits / 32;
    Value i = arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                         index);
    Value add = arith::MulIOp::create(
        rewriter, loc, i,
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                     cell));
    buffer = arith::AddIOp::create(rewriter, loc, buffer, add);
  }
  return buffer;
}

/// `operands` with each buffer of a copy_async / gemm_async moved to the
/// stage its runtime leading indices name.
FailureOr<SmallVector<Value>>
indexBuffers(Operation *op, ArrayRef<Value> operands,
             ConversionPatternRewriter &rewriter) {
  SmallVector<Value> out(operands);
  auto index = [&](OpOperand &buffer, OperandRange offsets,
                   ArrayRef<int64_t> staticOffsets, size_t regionRank) {
    if (offsets.empty())
      return success(); // no runtime index
    ArrayRef<Value> indices =
        operands.slice(offsets.getBeginOperandIndex(), offsets.size());
    unsigned n = buffer.getOperandNumber();
    FailureOr<Value> v =
        indexBuffer(op, operands[n], cast<BufferType>(buffer.get().getType()),
                    staticOffsets, indices, regionRank, rewriter);
    if (failed(v))
      return failure();
    out[n] = *v;
    return success();
  };
  LogicalResult ok = success();
  if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
    size_t rank = copy.getSizes().size();
    ok = index(copy.getSrcMutable(), copy.getSrcOffsets(),
               copy.getSrcStaticOffsets(), rank);
    if (succeeded(ok))
      ok = index(copy.getDstMutable(), copy.getDstOffsets(),
                 copy.getDstStaticOffsets(), rank);
    // The emitters take the barrier as an address.
    if (copy.getMbarIndex()) {
      unsigned n = copy.getMbarMutable()[0].getOperandNumber();
      out[n] = barrierAddress(rewriter, op->getLoc(), operands[n],
                              operands[n + 1]);
    }
  } else if (auto load = dyn_cast<LoadOp>(op)) {
    // tcgen05.ld reads the stage its runtime leading indices name; the
    // other variants fold every runtime offset into their addresses.
    if (load.getSrc().getType().getScope() == MemoryScope::tmem)
      ok = index(load.getSrcMutable(), load.getSrcOffsets(),
                 load.getSrcStaticOffsets(), 2);
  } else if (auto gemm = dyn_cast<GemmAsyncOp>(op)) {
    ok = index(gemm.getCMutable(), gemm.getCOffsets(),
               gemm.getCStaticOffsets(), 2);
    if (succeeded(ok))
      ok = index(gemm.getAMutable(), gemm.getAOffsets(),
                 gemm.getAStaticOffsets(), 2);
    if (succeeded(ok))
      ok = index(gemm.getBMutable(), gemm.getBOffsets(),
                 gemm.getBStaticOffsets(), 2);
  }
  if (failed(ok))
    return failure();
  return out;
}

/// A dispatch op -> its selected variant's emitter, from the plan made
/// before the conversion (or planned now when there is none).
struct DispatchOpLowering
    : OpInterfaceConversionPattern<DispatchOpInterface> {
  DispatchOpLowering(const TypeConverter &converter, MLIRContext *ctx,
                     StringRef fallbackChip, const PlannedOps *planned,
                     LoweringCheck *check)
      : OpInterfaceConversionPattern<DispatchOpInterface>(converter, ctx),
        fallbackChip(fallbackChip.str()), planned(planned), check(check) {}

  LogicalResult
  matchAndRewrite(DispatchOpInterface op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<PlannedOp> work = plannedOp(op);
    if (!work)
      return failure();
    FailureOr<SmallVector<Value>> indexed =
        indexBuffers(op, operands, rewriter);
    if (failed(indexed))
      return failure();
    // The check reads what the emitter inserts, on the indexed buffers.
    Operation *before = op->getPrevNode();
    if (failed(work->variant->emit(op, work->plan, *indexed, work->context,
                                   rewriter)))
      return failure();
    if (check && check->enabled)
      runCheck(op, before, *indexed, *work);
    rewriter.eraseOp(op);
    return success();
  }

  /// The translation validation of what the emitter put between `before`
  /// and `op` (the emitters insert just before the op).
  void runCheck(Operation *op, Operation *before, ArrayRef<Value> operands,
                const PlannedOp &work) const {
    SmallVector<Operation *> emitted;
    for (Operation *it = before ? before->getNextNode()
                                : &op->getBlock()->front();
         it && it != op; it = it->getNextNode())
      emitted.push_back(it);
    if (check->beforeCheck)
      check->beforeCheck(op, emitted);
    if (!work.variant->check) {
      // A variant from another compiler may come without one: its output
      // is lowered, not refused, with a warning (the check was asked for,
      // so a quiet tool still says what it could not prove).
      op->emitWarning() << "lowering check: variant '" << work.variant->name
                       << "' registers no check of its emitted IR (see "
                          "VariantRegistry::setCheck): not proven";
      return;
    }
    if (failed(work.variant->check(op, operands, emitted, work.context)))
      check->failed = true;
  }

  std::optional<PlannedOp> plannedOp(DispatchOpInterface op) const {
    if (planned)
      if (auto it = planned->find(op); it != planned->end())
        return it->second;
    std::optional<StringRef> name = op.getSelectedVariant();
    if (!name)
      return std::nullopt;
    std::optional<DispatchContext> context =
        dispatchContextFor(op, fallbackChip);
    if (!context)
      return std::nullopt;
    const Variant *variant = findVariant(op->getName().getStringRef(),
                                         context->family, *name);
    if (!variant || !variant->emit)
      return std::nullopt;
    // Kernel parameters cannot be added in the middle of a conversion.
    if (variant->prepare) {
      op->emitError() << variant->name
                      << " adds kernel parameters before the conversion: "
                         "lower it with --tile-lower-variants";
      return std::nullopt;
    }
    OrReason<AnyPlan> plan = variant->plan ? variant->plan(op, *context)
                                           : OrReason<AnyPlan>(AnyPlan());
    if (!plan) {
      op->emitError() << variant->name
                      << " planner declined at lowering: " << plan.reason();
      return std::nullopt;
    }
    return PlannedOp{variant, *context, *plan};
  }

  std::string fallbackChip;
  const PlannedOps *planned;
  LoweringCheck *check;
};

} // namespace

void tile::populateTileLowerVariantsPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             StringRef fallbackChip,
                                             const PlannedOps *planned,
                                             LoweringCheck *check,
                                             const WgmmaAccumulators *waited) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<AllocSharedLowering, FromMemrefLowering, AllocLocalLowering,
               FillLowering,
               ForwardOperandLowering<TmemBufferOp>,
               ForwardOperandLowering<BaseAddressOp>>(converter, ctx);
  patterns.add<DispatchOpLowering>(converter, ctx, fallbackChip, planned,
                                   check);
  populateTileSyncToNVVMPatterns(converter, patterns, waited);
}

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
#include "tile/Dialect/Tile/IR/StMatrixPlanner.h"
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

  /// base + (-base mod alignment) + offset, where base is the extern
  /// segment (`extern __shared__ char __tile_dynamic_shared[]`). It is
  /// declared 16-byte aligned, what the driver guarantees: a larger
  /// declared alignment would let LLVM fold the rounding away.
  static LogicalResult lowerDynamic(AllocSharedOp op, Operation *table,
                                    ConversionPatternRewriter &rewriter) {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto kernel = op->getParentOfType<FunctionOpInterface>();
    auto alignmentAttr = kernel ? kernel->getAttrOfType<IntegerAttr>(
                                      kDynamicSharedAlignmentAttr)
                                : IntegerAttr();
    if (!alignmentAttr)
      return rewriter.notifyMatchFailure(op, "no segment alignment");
    Operation *segment = SymbolTable::lookupSymbolIn(table, kDynamicSharedSymbol);
    if (segment && !isa<LLVM::GlobalOp>(segment))
      return op.emitError() << "@" << kDynamicSharedSymbol
                            << " names something other than the dynamic "
                               "shared segment";
    if (!segment) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ownerIn(table, op));
      LLVM::GlobalOp::create(
          rewriter, loc, LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kDynamicSharedSymbol,
          /*value=*/Attribute(), cuda::kDynamicSharedBaseAlignment,
          unsigned(NVVMMemorySpace::Shared));
    }
    auto ptrType =
        LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Shared));
    Value base = LLVM::AddressOfOp::create(rewriter, loc, ptrType,
                                           kDynamicSharedSymbol);
    int64_t alignment = alignmentAttr.getInt();
    if (alignment > cuda::kDynamicSharedBaseAlignment) {
      // Shared addresses fit in 32 bits; only the low ones matter here.
      Type i32 = rewriter.getI32Type();
      Value address = LLVM::PtrToIntOp::create(rewriter, loc, i32, base);
      Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
      Value mask = LLVM::ConstantOp::create(rewriter, loc, i32, alignment - 1);
      Value negated = LLVM::SubOp::create(rewriter, loc, zero, address);
      Value padding = LLVM::AndOp::create(rewriter, loc, negated, mask);
      base = LLVM::GEPOp::create(rewriter, loc, ptrType, rewriter.getI8Type(),
                                 base, ArrayRef<LLVM::GEPArg>{padding});
    }
    int64_t offset = static_cast<int64_t>(*op.getOffset());
    if (offset == 0) {
      rewriter.replaceOp(op, base);
      return success();
    }
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, ptrType, rewriter.getI8Type(), base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
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

/// The widest vector store (in elements) that can start at element `i` of
/// a store plan: consecutive registers going to consecutive offsets, the
/// offset and the runtime base aligned to the width, at most 16 bytes and
/// inside one chunk the swizzle keeps whole.
static int64_t vectorWidth(const LocalElements &local,
                           const LocalAccessPlan &plan, size_t i,
                           int64_t baseAlignment, int64_t bufferAlignment,
                           unsigned bits) {
  int64_t limit = std::min<int64_t>(128 / bits, bufferAlignment * 8 / bits);
  if (!plan.swizzle.isIdentity())
    limit = std::min<int64_t>(limit, int64_t(1) << plan.swizzle.base);
  int64_t width = 1;
  for (int64_t w = 2; w <= limit; w *= 2) {
    if (i + w > local.elements.size() || plan.elementOffset[i] % w ||
        (baseAlignment && baseAlignment % w))
      break;
    bool run = true;
    for (int64_t k = 1; k < w && run; ++k)
      run = local.elements[i + k].reg == local.elements[i].reg + k &&
            plan.elementOffset[i + k] == plan.elementOffset[i] + k;
    if (!run)
      break;
    width = w;
  }
  return width;
}

/// A thread's addressing of a local tile's elements in a global or shared
/// region: its base offset (the region's runtime offsets and its thread
/// digits, emitted once) and the base's known alignment in elements.
struct ThreadBase {
  Value offset; // null when zero
  int64_t alignment = 0;
};

static ThreadBase threadBase(OpBuilder &b, Location loc,
                             const LocalAccessPlan &plan,
                             const LocalElements &local, size_t lead,
                             ArrayRef<int64_t> staticOffsets,
                             ValueRange dynamic, Value thread = Value()) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  ThreadBase base;
  auto add = [&](Value v, int64_t step) {
    base.offset = base.offset ? LLVM::AddOp::create(b, loc, base.offset, v)
                              : v;
    base.alignment = std::gcd(base.alignment, step);
  };
  size_t next = 0;
  for (auto [d, offset] : llvm::enumerate(staticOffsets)) {
    if (!ShapedType::isDynamic(offset))
      continue;
    Value index = arith::IndexCastOp::create(b, loc, i64, dynamic[next++]);
    add(LLVM::MulOp::create(b, loc, index, constant(plan.runtimeStride[d])),
        plan.runtimeStride[d]);
  }
  if (!local.threadIters.empty()) {
    if (!thread) {
      Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
      thread = LLVM::ZExtOp::create(b, loc, i64, tid);
    }
    for (const LocalElements::ThreadIter &t : local.threadIters) {
      // digit = (thread / stride) % extent; the group (warp or warpgroup)
      // is a power of two, so this also drops the group id.
      Value digit =
          LLVM::UDivOp::create(b, loc, thread, constant(t.threadStride));
      digit = LLVM::URemOp::create(b, loc, digit, constant(t.extent));
      int64_t step = t.coordStep * plan.runtimeStride[lead + t.dim];
      add(LLVM::MulOp::create(b, loc, digit, constant(step)), step);
    }
  }
  return base;
}

static Value swizzledAddress(OpBuilder &b, Location loc, Value at,
                             const Swizzle &swizzle, Value buffer,
                             Type element);

/// The address of element run `i` of a plan: base + its constant offset,
/// through the buffer's swizzle (x ^ ((x & mask) >> shift)).
static Value elementAddress(OpBuilder &b, Location loc, const ThreadBase &base,
                            const LocalAccessPlan &plan, size_t i,
                            Value buffer, Type element) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value at = constant(plan.elementOffset[i]);
  if (base.offset)
    at = LLVM::AddOp::create(b, loc, base.offset, at);
  return swizzledAddress(b, loc, at, plan.swizzle, buffer, element);
}

/// buffer + swizzle(at) elements (x ^ ((x & mask) >> shift)).
static Value swizzledAddress(OpBuilder &b, Location loc, Value at,
                             const Swizzle &swizzle, Value buffer,
                             Type element) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  if (!swizzle.isIdentity()) {
    int64_t mask = ((int64_t(1) << swizzle.bits) - 1)
                   << (swizzle.base + swizzle.shift);
    Value bits = LLVM::AndOp::create(b, loc, at, constant(mask));
    Value shift = constant(swizzle.shift);
    Value moved = LLVM::LShrOp::create(b, loc, bits, shift);
    at = LLVM::XOrOp::create(b, loc, at, moved);
  }
  return LLVM::GEPOp::create(b, loc, buffer.getType(), element, buffer,
                             ArrayRef<LLVM::GEPArg>{at});
}

/// What a vector access may assume of `memory`'s base address: a shared
/// allocation's alignment, else only the element's.
static int64_t bufferAlignment(Value memory, BufferType type) {
  if (auto alloc = memory.getDefiningOp<AllocSharedOp>())
    return alloc.getEffectiveAlignment();
  return std::max(1u, type.getElementBits() / 8);
}

/// A float value converted to `to` (rounded to nearest even when narrower;
/// bf16 <-> f16 through f32, neither holds the other).
static Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth()) {
    v = LLVM::FPExtOp::create(b, loc, b.getF32Type(), v);
    return LLVM::FPTruncOp::create(b, loc, to, v);
  }
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return LLVM::FPTruncOp::create(b, loc, to, v);
  return LLVM::FPExtOp::create(b, loc, to, v);
}

/// The stmatrix request of a store (stmatrix::Request): every thread's
/// element offsets (its digits plus the plan's constants), what the
/// runtime base is a multiple of (the buffer's alignment, the runtime
/// offsets' strides), the swizzle's chunk.
static stmatrix::Request stMatrixRequest(StoreOp op,
                                         const LocalAccessPlan &plan,
                                         const LocalElements &local,
                                         int64_t threads, int64_t alignment) {
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  const size_t lead = dst.getRank() - src.getRank();
  stmatrix::Request req;
  req.bits = dst.getElementBits();
  req.offset.assign(threads, {});
  for (int64_t t = 0; t < threads; ++t) {
    int64_t digits = 0;
    for (const LocalElements::ThreadIter &it : local.threadIters)
      digits += (t / it.threadStride) % it.extent * it.coordStep *
                plan.runtimeStride[lead + it.dim];
    for (int64_t offset : plan.elementOffset)
      req.offset[t].push_back(digits + offset);
  }
  req.baseAlignment = std::max<int64_t>(1, alignment * 8 / req.bits);
  for (auto [d, offset] : llvm::enumerate(op.getDstStaticOffsets()))
    if (ShapedType::isDynamic(offset))
      req.baseAlignment = std::gcd(req.baseAlignment, plan.runtimeStride[d]);
  req.swizzleChunk =
      plan.swizzle.isIdentity() ? 0 : int64_t(1) << plan.swizzle.base;
  return req;
}

/// `tile.store` -> the thread's base offset once (its digits and the
/// region's runtime offsets), then per run of consecutive elements a load
/// of their registers, the conversion, and one (vector) store at the base
/// plus the run's constant offset, swizzled like the destination. Into
/// shared memory on sm_90+, when stmatrix::planStMatrix accepts the
/// elements' places, `nvvm.stmatrix` instead: per instruction the row
/// address this lane supplies (its row thread's digits plus the
/// instruction's lane-bit constants, swizzled) and its registers packed in
/// pairs.
struct StoreLowering : OpConversionPattern<StoreOp> {
  StoreLowering(const TypeConverter &converter, MLIRContext *ctx,
                StringRef fallbackChip)
      : OpConversionPattern(converter, ctx), fallbackChip(fallbackChip.str()) {
  }

  /// Whether `op` may use stmatrix (sm_90+, a shared destination of
  /// 16-bit elements) and its plan, if the elements' places allow it.
  std::optional<stmatrix::Plan>
  stMatrixPlan(StoreOp op, const LocalAccessPlan &plan,
               const LocalElements &local) const {
    BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
    if (dst.getScope() != MemoryScope::shared || dst.getElementBits() != 16)
      return std::nullopt;
    std::optional<DispatchContext> context =
        dispatchContextFor(op, fallbackChip);
    if (!context || context->target.sm < 90)
      return std::nullopt;
    OrReason<LocalThreads> threads =
        localThreads(*src.getEffectiveLayout());
    if (!threads)
      return std::nullopt;
    OrReason<stmatrix::Plan> st = stmatrix::planStMatrix(
        stMatrixRequest(op, plan, local, threads->threads,
                        bufferAlignment(op.getDst(), dst)));
    if (!st)
      return std::nullopt;
    return *st;
  }

  void emitStMatrix(StoreOp op, OpAdaptor adaptor, const stmatrix::Plan &st,
                    const LocalAccessPlan &plan, const LocalElements &local,
                    ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
    Type i64 = rewriter.getI64Type(), i32 = rewriter.getI32Type();
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64,
                                      rewriter.getI64IntegerAttr(v));
    };
    // The row thread: the warp's lane 4 (l % 8), or (l % 8) / 2 transposed.
    Value tid = LLVM::ZExtOp::create(
        rewriter, loc, i64, NVVM::ThreadIdXOp::create(rewriter, loc, i32));
    Value warp = LLVM::AndOp::create(rewriter, loc, tid, constant(~int64_t(31)));
    Value x = LLVM::AndOp::create(rewriter, loc, tid, constant(7));
    Value lanePart =
        st.transpose
            ? LLVM::LShrOp::create(rewriter, loc, x, constant(1)).getResult()
            : LLVM::ShlOp::create(rewriter, loc, x, constant(2)).getResult();
    Value rowThread = LLVM::AddOp::create(rewriter, loc, warp, lanePart);
    ThreadBase base = threadBase(rewriter, loc, plan, local,
                                 dst.getRank() - src.getRank(),
                                 op.getDstStaticOffsets(),
                                 adaptor.getDstOffsets(), rowThread);
    // Lane bits the row constants step on, extracted once.
    Value laneBit[5];
    for (int b = 0; b < 5; ++b) {
      bool used = llvm::any_of(st.instructions, [&](const auto &instr) {
        return instr.laneBitStep[b] != 0;
      });
      if (!used)
        continue;
      Value shifted = LLVM::LShrOp::create(rewriter, loc, tid, constant(b));
      laneBit[b] = LLVM::AndOp::create(rewriter, loc, shifted, constant(1));
    }
    Type from = registerStorageType(src.getElementType());
    Type to = registerStorageType(dst.getElementType());
    int64_t registers = src.getEffectiveLayout()->cosize(Axis::m);
    auto pairType = VectorType::get({2}, to);
    for (const stmatrix::Instruction &instr : st.instructions) {
      Value at = constant(instr.rowBase);
      for (int b = 0; b < 5; ++b)
        if (instr.laneBitStep[b])
          at = LLVM::AddOp::create(
              rewriter, loc, at,
              LLVM::MulOp::create(rewriter, loc, laneBit[b],
                                  constant(instr.laneBitStep[b])));
      if (base.offset)
        at = LLVM::AddOp::create(rewriter, loc, base.offset, at);
      Value ptr =
          swizzledAddress(rewriter, loc, at, plan.swizzle, adaptor.getDst(), to);
      SmallVector<Value, 4> sources;
      for (int64_t i = 0; i < instr.count; ++i) {
        auto [first, second] = st.pairs[instr.firstPair + i];
        Value word = LLVM::UndefOp::create(rewriter, loc, pairType);
        const int64_t halves[2] = {first, second};
        for (auto [k, element] : llvm::enumerate(halves)) {
          Value reg = LLVM::LoadOp::create(
              rewriter, loc, from,
              localElement(rewriter, loc, adaptor.getSrc(), from, registers,
                           local.elements[element].reg));
          word = LLVM::InsertElementOp::create(
              rewriter, loc, word, convertFloat(rewriter, loc, reg, to),
              LLVM::ConstantOp::create(rewriter, loc, i32,
                                       rewriter.getI32IntegerAttr(k)));
        }
        sources.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, word));
      }
      MLIRContext *ctx = op.getContext();
      NVVM::StMatrixOp::create(
          rewriter, loc, ptr, sources,
          st.transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
          NVVM::LdStMatrixEltType::B16);
    }
  }

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
    LocalAccessPlan plan =
        *planLocalAccess(src, dst, op.getDstStaticOffsets());
    LocalElements local = localElements(src);
    if (std::optional<stmatrix::Plan> st = stMatrixPlan(op, plan, local)) {
      emitStMatrix(op, adaptor, *st, plan, local, rewriter);
      rewriter.eraseOp(op);
      return success();
    }
    ThreadBase base =
        threadBase(rewriter, loc, plan, local, dst.getRank() - src.getRank(),
                   op.getDstStaticOffsets(), adaptor.getDstOffsets());
    Type from = registerStorageType(src.getElementType()),
         to = registerStorageType(dst.getElementType());
    unsigned bits = dst.getElementBits();
    int64_t alignment = bufferAlignment(op.getDst(), dst);
    int64_t registers = src.getEffectiveLayout()->cosize(Axis::m);
    for (size_t i = 0; i < local.elements.size();) {
      int64_t width =
          vectorWidth(local, plan, i, base.alignment, alignment, bits);
      Value value;
      if (width > 1)
        value = LLVM::UndefOp::create(rewriter, loc,
                                      VectorType::get({width}, to));
      for (int64_t k = 0; k < width; ++k) {
        Value reg = LLVM::LoadOp::create(
            rewriter, loc, from,
            localElement(rewriter, loc, adaptor.getSrc(), from, registers,
                         local.elements[i + k].reg));
        reg = convertFloat(rewriter, loc, reg, to);
        value = width == 1 ? reg
                           : LLVM::InsertElementOp::create(
                                 rewriter, loc, value, reg,
                                 LLVM::ConstantOp::create(
                                     rewriter, loc, rewriter.getI64Type(),
                                     rewriter.getI64IntegerAttr(k)))
                                 .getResult();
      }
      Value ptr =
          elementAddress(rewriter, loc, base, plan, i, adaptor.getDst(), to);
      LLVM::StoreOp::create(rewriter, loc, value, ptr,
                            /*alignment=*/unsigned(width * bits / 8));
      i += width;
    }
    rewriter.eraseOp(op);
    return success();
  }

  std::string fallbackChip;
};

/// `tile.load` from global or shared memory -> the converse of
/// StoreLowering: per run one (vector) load, the conversion, and a store
/// into each register.
struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
    if (src.getScope() == MemoryScope::tmem)
      return failure(); // TmemLoadLowering
    Location loc = op.getLoc();
    LocalAccessPlan plan =
        *planLocalAccess(dst, src, op.getSrcStaticOffsets());
    LocalElements local = localElements(dst);
    ThreadBase base =
        threadBase(rewriter, loc, plan, local, src.getRank() - dst.getRank(),
                   op.getSrcStaticOffsets(), adaptor.getSrcOffsets());
    Type from = registerStorageType(src.getElementType()),
         to = registerStorageType(dst.getElementType());
    unsigned bits = src.getElementBits();
    int64_t alignment = bufferAlignment(op.getSrc(), src);
    int64_t registers = dst.getEffectiveLayout()->cosize(Axis::m);
    for (size_t i = 0; i < local.elements.size();) {
      int64_t width =
          vectorWidth(local, plan, i, base.alignment, alignment, bits);
      Type type = width > 1 ? Type(VectorType::get({width}, from)) : from;
      Value ptr =
          elementAddress(rewriter, loc, base, plan, i, adaptor.getSrc(), from);
      Value value = LLVM::LoadOp::create(rewriter, loc, type, ptr,
                                         /*alignment=*/unsigned(width * bits / 8));
      for (int64_t k = 0; k < width; ++k) {
        Value element =
            width == 1 ? value
                       : LLVM::ExtractElementOp::create(
                             rewriter, loc, value,
                             LLVM::ConstantOp::create(
                                 rewriter, loc, rewriter.getI64Type(),
                                 rewriter.getI64IntegerAttr(k)))
                             .getResult();
        LLVM::StoreOp::create(
            rewriter, loc, convertFloat(rewriter, loc, element, to),
            localElement(rewriter, loc, adaptor.getDst(), to, registers,
                         local.elements[i + k].reg));
      }
      i += width;
    }
    rewriter.eraseOp(op);
    return success();
  }
};

FailureOr<Value> indexBuffer(Operation *op, Value buffer, BufferType type,
                             ArrayRef<int64_t> staticOffsets,
                             ArrayRef<Value> indices, size_t regionRank,
                             ConversionPatternRewriter &rewriter);

/// `tile.load` from tensor memory -> per warp one `tcgen05.ld` 32x32b of
/// the region's columns at lane 32 * (warp % 4) (thread t reads lane t),
/// the wait, and the registers filled from its result.
struct TmemLoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
    if (src.getScope() != MemoryScope::tmem)
      return failure();
    Location loc = op.getLoc();
    TmemLoadPlan plan = *planTmemLoad(src, dst, op.getSrcStaticOffsets());
    FailureOr<Value> region = indexBuffer(
        op, adaptor.getSrc(), src, op.getSrcStaticOffsets(),
        llvm::to_vector(adaptor.getSrcOffsets()), 2, rewriter);
    if (failed(region))
      return failure();
    Type i32 = rewriter.getI32Type();
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i32,
                                      rewriter.getI32IntegerAttr(v));
    };
    // Address (lane << 16) | column: the warp's 32 lanes, the region's
    // first column.
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
    Value warp = LLVM::LShrOp::create(rewriter, loc, tid, constant(5));
    Value quarter = LLVM::AndOp::create(rewriter, loc, warp, constant(3));
    Value lane = LLVM::ShlOp::create(rewriter, loc, quarter, constant(21));
    Value row = LLVM::AddOp::create(rewriter, loc, *region, lane);
    Value address =
        LLVM::AddOp::create(rewriter, loc, row, constant(plan.column));
    Value ptr = LLVM::IntToPtrOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(op.getContext(), 6),
        address);
    Type result = plan.columns == 1
                      ? i32
                      : Type(VectorType::get({plan.columns}, i32));
    Value cells = NVVM::Tcgen05LdOp::create(
        rewriter, loc, result, /*pack=*/nullptr,
        NVVM::Tcgen05LdStShapeAttr::get(op.getContext(),
                                        NVVM::Tcgen05LdStShape::SHAPE_32X32B),
        ptr, /*offset=*/Value());
    NVVM::Tcgen05WaitOp::create(rewriter, loc, NVVM::Tcgen05WaitKind::LOAD);
    Type element = dst.getElementType();
    int64_t registers = dst.getEffectiveLayout()->cosize(Axis::m);
    for (int64_t j = 0; j < plan.columns; ++j) {
      Value cell = plan.columns == 1
                       ? cells
                       : LLVM::ExtractElementOp::create(
                             rewriter, loc, cells,
                             LLVM::ConstantOp::create(
                                 rewriter, loc, rewriter.getI64Type(),
                                 rewriter.getI64IntegerAttr(j)))
                             .getResult();
      if (element != i32)
        cell = LLVM::BitcastOp::create(rewriter, loc, element, cell);
      LLVM::StoreOp::create(rewriter, loc, cell,
                            localElement(rewriter, loc, adaptor.getDst(),
                                         element, registers, j));
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
      op->emitError() << "lowering check: variant '" << work.variant->name
                      << "' registers no check of its emitted IR";
      check->failed = true;
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
                                             LoweringCheck *check) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<StoreLowering>(converter, ctx, fallbackChip);
  patterns.add<AllocSharedLowering, FromMemrefLowering, AllocLocalLowering,
               FillLowering, LoadLowering, TmemLoadLowering,
               ForwardOperandLowering<TmemBufferOp>,
               ForwardOperandLowering<BaseAddressOp>>(converter, ctx);
  patterns.add<DispatchOpLowering>(converter, ctx, fallbackChip, planned,
                                   check);
  populateTileSyncToNVVMPatterns(converter, patterns);
}

//===- Store.cpp - the stmatrix and vector variants of tile.store ---------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `vector`: the thread's base offset once (its digits and the region's
// runtime offsets), then per run of consecutive elements a load of their
// registers, the conversion, and one (vector) store at the base plus the
// run's constant offset, swizzled like the destination.
// `stmatrix` (shared 16-bit destinations, sm_90+, where
// stmatrix::planStMatrix accepts the elements' places): per instruction
// the row address this lane supplies (its row thread's digits plus the
// instruction's lane-bit constants, swizzled) and its registers packed in
// pairs.
//
//===----------------------------------------------------------------------===//

#include "LocalAccess.h"
#include "LocalCommon.h"

#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using namespace tile::local;

namespace {

struct StMatrixStorePlan {
  LocalAccessPlan access;
  stmatrix::Plan st;
};

OrReason<LocalAccessPlan> planVectorStore(StoreOp op, const DispatchContext &) {
  return planLocalAccess(op.getSrc().getType(), op.getDst().getType(),
                         op.getDstStaticOffsets());
}

Verdict sharedDestination(StoreOp op, const DispatchContext &) {
  if (op.getDst().getType().getScope() == MemoryScope::shared)
    return Verdict::success();
  return Verdict::failure("stmatrix stores into shared memory; the "
                          "destination is global");
}

Verdict sixteenBitDestination(StoreOp op, const DispatchContext &) {
  unsigned bits = op.getDst().getType().getElementBits();
  if (bits == 16)
    return Verdict::success();
  return Verdict::failure("stmatrix stores 16-bit elements; the "
                          "destination's are " + std::to_string(bits) +
                          "-bit");
}

Verdict stMatrixTarget(StoreOp, const DispatchContext &context) {
  if (context.target.sm >= 90)
    return Verdict::success();
  return Verdict::failure("stmatrix needs sm_90+, not " +
                          context.target.chip);
}

OrReason<StMatrixStorePlan> planStMatrixStore(StoreOp op,
                                              const DispatchContext &) {
  using R = OrReason<StMatrixStorePlan>;
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  OrReason<LocalAccessPlan> access =
      planLocalAccess(src, dst, op.getDstStaticOffsets());
  if (!access)
    return R::failure(access.reason());
  OrReason<LocalThreads> threads = localThreads(*src.getEffectiveLayout());
  if (!threads)
    return R::failure(threads.reason());
  OrReason<stmatrix::Plan> st = stmatrix::planStMatrix(matrixRequest(
      src, dst, op.getDstStaticOffsets(), *access, localElements(src),
      threads->threads, bufferAlignment(op.getDst(), dst)));
  if (!st)
    return R::failure(st.reason());
  return StMatrixStorePlan{*access, *st};
}

LogicalResult emitStMatrix(StoreOp op, const StMatrixStorePlan &stPlan,
                         ValueRange lowered, const DispatchContext &,
                         RewriterBase &rewriter) {
  const stmatrix::Plan &st = stPlan.st;
  const LocalAccessPlan &plan = stPlan.access;
  LocalElements local = localElements(op.getSrc().getType());
  Location loc = op.getLoc();
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  Type i32 = rewriter.getI32Type();
  Type from = registerStorageType(src.getElementType());
  Type to = registerStorageType(dst.getElementType());
  MatrixRowAddresses rows(rewriter, loc, st, plan, local,
                          dst.getRank() - src.getRank(),
                          op.getDstStaticOffsets(), lowered.drop_front(2),
                          lowered[1], to);
  int64_t registers = src.getEffectiveLayout()->cosize(Axis::m);
  auto pairType = VectorType::get({2}, to);
  for (const stmatrix::Instruction &instr : st.instructions) {
    Value ptr = rows.at(instr);
    SmallVector<Value, 4> sources;
    for (int64_t i = 0; i < instr.count; ++i) {
      auto [first, second] = st.pairs[instr.firstPair + i];
      Value word = LLVM::UndefOp::create(rewriter, loc, pairType);
      const int64_t halves[2] = {first, second};
      for (auto [k, element] : llvm::enumerate(halves)) {
        Value reg = LLVM::LoadOp::create(
            rewriter, loc, from,
            localRegisterAddress(rewriter, loc, lowered[0], from, registers,
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
  return success();
}

LogicalResult emitVectorStore(StoreOp op, const LocalAccessPlan &plan,
                            ValueRange lowered, const DispatchContext &,
                            RewriterBase &rewriter) {
  Location loc = op.getLoc();
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  LocalElements local = localElements(src);
  ThreadBase base =
      threadBase(rewriter, loc, plan, local, dst.getRank() - src.getRank(),
                 op.getDstStaticOffsets(), lowered.drop_front(2));
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
          localRegisterAddress(rewriter, loc, lowered[0], from, registers,
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
        elementAddress(rewriter, loc, base, plan, i, lowered[1], to);
    LLVM::StoreOp::create(rewriter, loc, value, ptr,
                          /*alignment=*/unsigned(width * bits / 8));
    i += width;
  }
  return success();
}

} // namespace

void tile::local::registerStoreVariants(VariantRegistry &registry) {
  registerVariant(registry, VariantDecl<StoreOp, StMatrixStorePlan>{
                                "stmatrix",
                                kStoreStMatrixPriority,
                                {{"shared_destination", sharedDestination},
                                 {"sixteen_bit_destination",
                                  sixteenBitDestination},
                                 {"stmatrix_target", stMatrixTarget}},
                                planStMatrixStore,
                                /*prepare=*/nullptr,
                                emitStMatrix});
  registerVariant(registry, VariantDecl<StoreOp, LocalAccessPlan>{
                                "vector",
                                kStoreVectorPriority,
                                {},
                                planVectorStore,
                                // A declared alignment the vectors use
                                // is checked at launch.
                                [](StoreOp op, LocalAccessPlan &,
                                   const DispatchContext &, KernelABI &abi) {
                                  return requireDeclaredAlignment(
                                      op, op.getDst(), abi, "tile.store");
                                },
                                emitVectorStore});
}

//===- Load.cpp - the vector and tcgen05_ld variants of tile.load ---------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `vector` (global or shared sources): the converse of tile.store's vector
// variant: per run one (vector) load, the conversion, and a store into
// each register. `tcgen05_ld` (tensor memory): per warp one tcgen05.ld
// 32x32b of the region's columns at lane 32 (warp % 4) (thread t reads
// lane t), the wait, and the registers filled from its result.
// `ldmatrix` (shared 16-bit sources, sm_75+, where the stmatrix planner
// accepts the elements' places: ldmatrix moves the same fragments the
// other way): per instruction the row address this lane supplies and its
// registers unpacked from the words it receives.
//
//===----------------------------------------------------------------------===//

#include "LocalAccess.h"
#include "LocalCommon.h"

#include "../TargetPredicate.h"
#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using namespace tile::local;

namespace {

Verdict memorySource(LoadOp op, const DispatchContext &) {
  MemoryScope scope = op.getSrc().getType().getScope();
  if (scope == MemoryScope::global || scope == MemoryScope::shared)
    return Verdict::success();
  return Verdict::failure("loads from global or shared memory; the source "
                          "is in " + stringifyMemoryScope(scope).str());
}

Verdict tensorMemorySource(LoadOp op, const DispatchContext &) {
  MemoryScope scope = op.getSrc().getType().getScope();
  if (scope == MemoryScope::tmem)
    return Verdict::success();
  return Verdict::failure("tcgen05.ld reads tensor memory; the source is "
                          "in " + stringifyMemoryScope(scope).str());
}

/// The chip table says which chips have tcgen05 (Target/CUDA/Chips.h).
Verdict tcgen05Target(LoadOp, const DispatchContext &context) {
  if (context.target.info.support(cuda::InstructionFamily::Tcgen05))
    return Verdict::success();
  return Verdict::failure(needsOneOf("tcgen05.ld", context.target,
                                     cuda::InstructionFamily::Tcgen05));
}

OrReason<LocalAccessPlan> planVectorLoad(LoadOp op, const DispatchContext &) {
  return planLocalAccess(op.getDst().getType(), op.getSrc().getType(),
                         op.getSrcStaticOffsets());
}

OrReason<TmemLoadPlan> planTcgen05Load(LoadOp op, const DispatchContext &) {
  return planTmemLoad(op.getSrc().getType(), op.getDst().getType(),
                      op.getSrcStaticOffsets());
}

LogicalResult emitVectorLoad(LoadOp op, const LocalAccessPlan &plan,
                           ValueRange lowered, const DispatchContext &,
                           RewriterBase &rewriter) {
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  Location loc = op.getLoc();
  LocalElements local = localElements(dst);
  ThreadBase base =
      threadBase(rewriter, loc, plan, local, src.getRank() - dst.getRank(),
                 op.getSrcStaticOffsets(), lowered.slice(1, op.getSrcOffsets().size()));
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
        elementAddress(rewriter, loc, base, plan, i, lowered[0], from);
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
          localRegisterAddress(rewriter, loc, lowered.back(), to, registers,
                       local.elements[i + k].reg));
    }
    i += width;
  }
  return success();
}

LogicalResult emitTcgen05Load(LoadOp op, const TmemLoadPlan &plan,
                            ValueRange lowered, const DispatchContext &,
                            RewriterBase &rewriter) {
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  Location loc = op.getLoc();
  // The source as dispatch lowered it: moved to the stage its runtime
  // leading indices name.
  Value region = lowered[0];
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
  Value row = LLVM::AddOp::create(rewriter, loc, region, lane);
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
                          localRegisterAddress(rewriter, loc, lowered.back(),
                                       element, registers, j));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

struct LdMatrixLoadPlan {
  LocalAccessPlan access;
  stmatrix::Plan matrices;
};

Verdict sharedSource(LoadOp op, const DispatchContext &) {
  if (op.getSrc().getType().getScope() == MemoryScope::shared)
    return Verdict::success();
  return Verdict::failure("ldmatrix reads shared memory; the source is in " +
                          stringifyMemoryScope(op.getSrc().getType().getScope())
                              .str());
}

Verdict sixteenBitSource(LoadOp op, const DispatchContext &) {
  unsigned bits = op.getSrc().getType().getElementBits();
  if (bits == 16)
    return Verdict::success();
  return Verdict::failure("ldmatrix loads 16-bit elements; the source's are " +
                          std::to_string(bits) + "-bit");
}

Verdict ldMatrixTarget(LoadOp, const DispatchContext &context) {
  if (context.target.sm >= 75)
    return Verdict::success();
  return Verdict::failure("ldmatrix needs sm_75+, not " + context.target.chip);
}

OrReason<LdMatrixLoadPlan> planLdMatrixLoad(LoadOp op,
                                            const DispatchContext &) {
  using R = OrReason<LdMatrixLoadPlan>;
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  OrReason<LocalAccessPlan> access =
      planLocalAccess(dst, src, op.getSrcStaticOffsets());
  if (!access)
    return R::failure(access.reason());
  OrReason<LocalThreads> threads = localThreads(*dst.getEffectiveLayout());
  if (!threads)
    return R::failure(threads.reason());
  OrReason<stmatrix::Plan> matrices = stmatrix::planStMatrix(matrixRequest(
      dst, src, op.getSrcStaticOffsets(), *access, localElements(dst),
      threads->threads, bufferAlignment(op.getSrc(), src)));
  if (!matrices)
    return R::failure(matrices.reason());
  return LdMatrixLoadPlan{*access, *matrices};
}

LogicalResult emitLdMatrix(LoadOp op, const LdMatrixLoadPlan &ldPlan,
                           ValueRange lowered, const DispatchContext &,
                           RewriterBase &rewriter) {
  const stmatrix::Plan &matrices = ldPlan.matrices;
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  LocalElements local = localElements(dst);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Type i32 = rewriter.getI32Type();
  Type from = registerStorageType(src.getElementType());
  Type to = registerStorageType(dst.getElementType());
  MatrixRowAddresses rows(rewriter, loc, matrices, ldPlan.access, local,
                          src.getRank() - dst.getRank(),
                          op.getSrcStaticOffsets(),
                          lowered.slice(1, op.getSrcOffsets().size()),
                          lowered[0], from);
  int64_t registers = dst.getEffectiveLayout()->cosize(Axis::m);
  auto pairType = VectorType::get({2}, from);
  for (const stmatrix::Instruction &instr : matrices.instructions) {
    Value ptr = rows.at(instr);
    Type result = instr.count == 1
                      ? i32
                      : LLVM::LLVMStructType::getLiteral(
                            ctx, SmallVector<Type>(instr.count, i32));
    Value loaded = NVVM::LdMatrixOp::create(
        rewriter, loc, result, ptr, rewriter.getI32IntegerAttr(instr.count),
        NVVM::MMALayoutAttr::get(ctx, matrices.transpose
                                          ? NVVM::MMALayout::col
                                          : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
    for (int64_t i = 0; i < instr.count; ++i) {
      Value word = instr.count == 1
                       ? loaded
                       : LLVM::ExtractValueOp::create(rewriter, loc, loaded,
                                                      ArrayRef<int64_t>{i})
                             .getResult();
      Value pair = LLVM::BitcastOp::create(rewriter, loc, pairType, word);
      auto [first, second] = matrices.pairs[instr.firstPair + i];
      const int64_t halves[2] = {first, second};
      for (auto [k, element] : llvm::enumerate(halves)) {
        Value half = LLVM::ExtractElementOp::create(
            rewriter, loc, pair,
            LLVM::ConstantOp::create(rewriter, loc, i32,
                                     rewriter.getI32IntegerAttr(k)));
        LLVM::StoreOp::create(
            rewriter, loc, convertFloat(rewriter, loc, half, to),
            localRegisterAddress(rewriter, loc, lowered.back(), to, registers,
                                 local.elements[element].reg));
      }
    }
  }
  return success();
}

} // namespace

void tile::local::registerLoadVariants(VariantRegistry &registry) {
  registerVariant(registry, VariantDecl<LoadOp, LdMatrixLoadPlan>{
                                "ldmatrix",
                                kLoadLdMatrixPriority,
                                {{"shared_source", sharedSource},
                                 {"sixteen_bit_source", sixteenBitSource},
                                 {"ldmatrix_target", ldMatrixTarget}},
                                planLdMatrixLoad,
                                /*prepare=*/nullptr,
                                emitLdMatrix});
  VariantDecl<LoadOp, TmemLoadPlan> tcgen05Ld{
      "tcgen05_ld",
      kLoadTcgen05Priority,
      {{"tmem_source", tensorMemorySource}, {"tcgen05_target", tcgen05Target}},
      planTcgen05Load,
      /*prepare=*/nullptr,
      emitTcgen05Load};
  // The target check picks the PTX version from it.
  tcgen05Ld.families = [](LoadOp) {
    return SmallVector<cuda::InstructionFamily, 2>{
        cuda::InstructionFamily::Tcgen05};
  };
  registerVariant(registry, std::move(tcgen05Ld));
  registerVariant(registry, VariantDecl<LoadOp, LocalAccessPlan>{
                                "vector",
                                kLoadVectorPriority,
                                {{"global_or_shared_source", memorySource}},
                                planVectorLoad,
                                // A declared alignment the vectors use
                                // is checked at launch.
                                [](LoadOp op, LocalAccessPlan &,
                                   const DispatchContext &, KernelABI &abi) {
                                  return requireDeclaredAlignment(
                                      op, op.getSrc(), abi, "tile.load");
                                },
                                emitVectorLoad});
}

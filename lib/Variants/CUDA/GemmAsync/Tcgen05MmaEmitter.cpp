//===- Tcgen05MmaEmitter.cpp - emit tcgen05.mma for a planned gemm ----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A shared operand's descriptor is its folded constant (LBO, SBO, swizzle,
// the fixed bits) OR the start-address field of the buffer, computed once;
// each issue adds its start (bytes >> 4). Tensor-memory operands are the
// buffer's 32-bit address plus `(lane << 16) | column`. The instruction
// descriptor of each issue is a constant.
//
//===----------------------------------------------------------------------===//

#include "../Tcgen05Emit.h"
#include "Tcgen05Mma.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tile;
using namespace tile::tcgen05_mma;

namespace {

std::optional<NVVM::Tcgen05MMAKind> denseKind(cuda::MmaKind kind) {
  switch (kind) {
  case cuda::MmaKind::F16: return NVVM::Tcgen05MMAKind::F16;
  case cuda::MmaKind::TF32: return NVVM::Tcgen05MMAKind::TF32;
  case cuda::MmaKind::F8F6F4: return NVVM::Tcgen05MMAKind::F8F6F4;
  case cuda::MmaKind::I8: return NVVM::Tcgen05MMAKind::I8;
  default: return std::nullopt;
  }
}

NVVM::MMABlockScaleKind scaledKind(cuda::MmaKind kind) {
  switch (kind) {
  case cuda::MmaKind::MXF4: return NVVM::MMABlockScaleKind::MXF4;
  case cuda::MmaKind::MXF4NVF4: return NVVM::MMABlockScaleKind::MXF4NVF4;
  default: return NVVM::MMABlockScaleKind::MXF8F6F4;
  }
}

} // namespace

void tcgen05_mma::emitPlan(GemmAsyncOp op, const Plan &plan,
                           ValueRange lowered, RewriterBase &rewriter) {
  GemmAsyncOp::Adaptor adaptor(lowered, op);
  Location loc = op.getLoc();
  // exec warp: the elected lane issues; the others skip.
  OpBuilder::InsertionGuard guard(rewriter);
  if (op.getExec() == ExecScope::warp) {
    Value elected = NVVM::ElectSyncOp::create(rewriter, loc, rewriter.getI1Type(),
                                              Value());
    auto ifOp = scf::IfOp::create(rewriter, loc, elected, /*else=*/false);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }

  auto plusStart = [&](Value descriptor, int64_t byte) {
    return tcgen05::advanceDescriptor(rewriter, loc, descriptor, byte);
  };
  // One pointer per distinct tensor-memory address (D repeats per K step).
  llvm::DenseMap<std::pair<Value, uint32_t>, Value> tmemPointers;
  auto tmemAt = [&](Value base, uint32_t offset) -> Value {
    Value &ptr = tmemPointers[{base, offset}];
    if (!ptr)
      ptr = tcgen05::tmemPointer(rewriter, loc, base, offset);
    return ptr;
  };

  Value aBase = plan.a ? tcgen05::sharedDescriptor(rewriter, loc,
                                                   adaptor.getA(),
                                                   plan.a->descriptorTemplate())
                       : Value();
  Value bBase = tcgen05::sharedDescriptor(rewriter, loc, adaptor.getB(),
                                          plan.b.descriptorTemplate());
  Value isTrue, isFalse;
  auto flag = [&](InputD inputD) -> Value {
    if (inputD == InputD::FromFlag)
      return adaptor.getAccumulate();
    Value &slot = inputD == InputD::Accumulate ? isTrue : isFalse;
    if (!slot)
      slot = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(),
                                          inputD == InputD::Accumulate);
    return slot;
  };
  auto group =
      plan.ctaGroup == 2 ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1;
  std::optional<NVVM::Tcgen05MMAKind> dense = denseKind(plan.kind);
  unsigned perInstruction =
      plan.instK / std::max(1u, cuda::scaleVectorSize(plan.kind,
                                                      plan.idesc.scaleType));
  llvm::DenseMap<uint32_t, Value> idescs;
  for (const Issue &is : plan.issues) {
    // Operands in a fixed order (call arguments would not fix it).
    Value d = tmemAt(adaptor.getC(), is.dTmem);
    Value a = plan.a ? plusStart(aBase, is.aByte)
                     : tmemAt(adaptor.getA(), is.aTmem);
    Value b = plusStart(bBase, is.bByte);
    Value &idesc = idescs[is.idesc];
    if (!idesc)
      idesc = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                           static_cast<int32_t>(is.idesc));
    Value inputD = flag(is.inputD);
    if (dense) {
      NVVM::Tcgen05MMAOp::create(rewriter, loc, *dense, group,
                                 NVVM::Tcgen05MMACollectorOp::DISCARD,
                                 /*aShift=*/false, d, a, b, idesc, inputD,
                                 Value(), Value());
      continue;
    }
    Value sfa = tmemAt(adaptor.getSfa(), is.sfaTmem);
    Value sfb = tmemAt(adaptor.getSfb(), is.sfbTmem);
    // block16 / block32: the elements one scale covers.
    auto blockScale = perInstruction * 16 == unsigned(plan.instK)
                          ? NVVM::Tcgen05MMABlockScale::BLOCK16
                          : NVVM::Tcgen05MMABlockScale::BLOCK32;
    NVVM::Tcgen05MMABlockScaleOp::create(
        rewriter, loc, scaledKind(plan.kind), group, blockScale,
        NVVM::Tcgen05MMACollectorOp::DISCARD, d, a, b, idesc, inputD, sfa,
        sfb);
  }
}

//===- Tcgen05CpEmitter.cpp - tcgen05_cp plan -> NVVM -----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// PTX ISA "Tensor Memory: tcgen05.cp" and "Shared Memory Descriptor". The
// descriptor's constant part (LBO, SBO, fixed bits, swizzle) is folded by
// the planner's encoder; the start-address field of the shared tile is
// computed once at run time and each instruction adds its 16-byte offset
// to it (a tile lies below 256 KiB, so the 14-bit field never carries).
// The tensor-memory address is the buffer's plus `(lane << 16) | column`.
//
//===----------------------------------------------------------------------===//

#include "Tcgen05Cp.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tile;

namespace {

NVVM::Tcgen05CpShape nvvmShape(tcgen05_cp::Shape shape) {
  switch (shape) {
  case tcgen05_cp::Shape::S128x256b: return NVVM::Tcgen05CpShape::SHAPE_128x256b;
  case tcgen05_cp::Shape::S4x256b: return NVVM::Tcgen05CpShape::SHAPE_4x256b;
  case tcgen05_cp::Shape::S128x128b: return NVVM::Tcgen05CpShape::SHAPE_128x128b;
  case tcgen05_cp::Shape::S64x128b: return NVVM::Tcgen05CpShape::SHAPE_64x128b;
  case tcgen05_cp::Shape::S32x128b: return NVVM::Tcgen05CpShape::SHAPE_32x128b;
  }
  return NVVM::Tcgen05CpShape::SHAPE_128x256b;
}

NVVM::Tcgen05CpMulticast nvvmMulticast(tcgen05_cp::Multicast m) {
  switch (m) {
  case tcgen05_cp::Multicast::None: return NVVM::Tcgen05CpMulticast::NONE;
  case tcgen05_cp::Multicast::Warpx2_02_13:
    return NVVM::Tcgen05CpMulticast::WARPX2_02_13;
  case tcgen05_cp::Multicast::Warpx2_01_23:
    return NVVM::Tcgen05CpMulticast::WARPX2_01_23;
  case tcgen05_cp::Multicast::Warpx4: return NVVM::Tcgen05CpMulticast::WARPX4;
  }
  return NVVM::Tcgen05CpMulticast::NONE;
}

} // namespace

void tcgen05_cp::emitPlan(CopyAsyncOp op, const Plan &plan, ValueRange lowered,
                          RewriterBase &rewriter) {
  CopyAsyncOp::Adaptor adaptor(lowered, op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  auto tmemPtr = LLVM::LLVMPointerType::get(ctx, 6);
  auto constI32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  auto constI64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i64, v);
  };

  // Start-address field of the tile: (addr & 0x3FFFF) >> 4.
  Value addr = LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getSrc());
  Value masked = arith::AndIOp::create(rewriter, loc, addr, constI32(0x3FFFF));
  Value field = arith::ShRUIOp::create(rewriter, loc, masked, constI32(4));
  Value field64 = arith::ExtUIOp::create(rewriter, loc, i64, field);
  Value base = arith::OrIOp::create(
      rewriter, loc, field64,
      constI64(static_cast<int64_t>(plan.descriptorTemplate())));

  auto group = plan.ctaGroup == 2 ? NVVM::CTAGroupKind::CTA_2
                                  : NVVM::CTAGroupKind::CTA_1;
  NVVM::Tcgen05CpSrcFormatAttr format;
  if (plan.sourceFormat != SourceFormat::None)
    format = NVVM::Tcgen05CpSrcFormatAttr::get(
        ctx, plan.sourceFormat == SourceFormat::B6x16P32
                 ? NVVM::Tcgen05CpSrcFormat::B6x16_P32
                 : NVVM::Tcgen05CpSrcFormat::B4x16_P64);
  Value tmemBase = adaptor.getDst();
  for (const Instruction &inst : plan.instructions) {
    Value desc = base;
    if (inst.sharedByte)
      desc = arith::AddIOp::create(rewriter, loc, base,
                                   constI64(inst.sharedByte >> 4));
    Value taddr = tmemBase;
    if (inst.tmemOffset())
      taddr = arith::AddIOp::create(rewriter, loc, tmemBase,
                                    constI32(inst.tmemOffset()));
    Value ptr = LLVM::IntToPtrOp::create(rewriter, loc, tmemPtr, taddr);
    NVVM::Tcgen05CpOp::create(rewriter, loc, nvvmShape(plan.form.shape), group,
                              nvvmMulticast(plan.form.multicast), format, ptr,
                              desc);
  }
}

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

#include "../Tcgen05Emit.h"
#include "Tcgen05Cp.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

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
  Value base = tcgen05::sharedDescriptor(rewriter, loc, adaptor.getSrc(),
                                         plan.descriptorTemplate());
  auto group = plan.ctaGroup == 2 ? NVVM::CTAGroupKind::CTA_2
                                  : NVVM::CTAGroupKind::CTA_1;
  NVVM::Tcgen05CpSrcFormatAttr format;
  if (plan.sourceFormat != SourceFormat::None)
    format = NVVM::Tcgen05CpSrcFormatAttr::get(
        ctx, plan.sourceFormat == SourceFormat::B6x16P32
                 ? NVVM::Tcgen05CpSrcFormat::B6x16_P32
                 : NVVM::Tcgen05CpSrcFormat::B4x16_P64);
  for (const Instruction &inst : plan.instructions) {
    Value desc =
        tcgen05::advanceDescriptor(rewriter, loc, base, inst.sharedByte);
    Value ptr = tcgen05::tmemPointer(rewriter, loc, adaptor.getDst(),
                                     inst.tmemOffset());
    NVVM::Tcgen05CpOp::create(rewriter, loc, nvvmShape(plan.form.shape), group,
                              nvvmMulticast(plan.form.multicast), format, ptr,
                              desc);
  }
}

//===- Tcgen05Cp.cpp - the tcgen05_cp copy_async variant --------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// copy_async shared -> tensor memory through `tcgen05.cp` (PTX ISA "Tensor
// Memory: tcgen05.cp"). The whole variant is declared here: the predicates,
// the op -> tcgen05_cp::Request for the pure planner (Tcgen05CpPlanner.cpp)
// and the emitter. Completion is the caller's: tcgen05.commit to an
// mbarrier after the copies (and MMAs) it covers.
//
// Emission (PTX ISA "Shared Memory Descriptor"): the descriptor's constant
// part (LBO, SBO, fixed bits, swizzle) is folded by the planner's encoder;
// the start-address field of the shared tile is computed once at run time
// and each instruction adds its 16-byte offset to it (a tile lies below
// 256 KiB, so the 14-bit field never carries). The tensor-memory address is
// the buffer's plus `(lane << 16) | column`.
//
//===----------------------------------------------------------------------===//

#include "../Tcgen05Common.h"
#include "../Tcgen05Emit.h"
#include "../TargetPredicate.h"
#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/CopyAsync/Tcgen05CpPlanner.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

bool isSharedToTmem(CopyAsyncOp copy) {
  return copy.getSrcType().getScope() == MemoryScope::shared &&
         copy.getDstType().getScope() == MemoryScope::tmem;
}

tcgen05_cp::Shape shapeOf(CpShape shape) {
  switch (shape) {
  case CpShape::shape_128x256b: return tcgen05_cp::Shape::S128x256b;
  case CpShape::shape_4x256b: return tcgen05_cp::Shape::S4x256b;
  case CpShape::shape_128x128b: return tcgen05_cp::Shape::S128x128b;
  case CpShape::shape_64x128b: return tcgen05_cp::Shape::S64x128b;
  case CpShape::shape_32x128b: return tcgen05_cp::Shape::S32x128b;
  }
  return tcgen05_cp::Shape::S128x256b;
}

tcgen05_cp::Multicast multicastOf(CpMulticast multicast) {
  switch (multicast) {
  case CpMulticast::warpx2_02_13: return tcgen05_cp::Multicast::Warpx2_02_13;
  case CpMulticast::warpx2_01_23: return tcgen05_cp::Multicast::Warpx2_01_23;
  case CpMulticast::warpx4: return tcgen05_cp::Multicast::Warpx4;
  case CpMulticast::none: break;
  }
  return tcgen05_cp::Multicast::None;
}

/// The planner's request: the shared and tensor-memory sides, the form
/// asked for.
OrReason<tcgen05_cp::Plan> planTcgen05Cp(CopyAsyncOp copy,
                                         const DispatchContext &) {
  using namespace tcgen05_cp;
  using R = OrReason<Plan>;
  BufferType src = copy.getSrcType(), dst = copy.getDstType();
  Request r;
  r.elementBits = src.getElementBits();
  if (!dst.getLayout())
    return R::failure("the tensor-memory buffer has no layout (which lanes "
                      "and columns hold the tile)");
  const char *planned =
      "descriptor and tensor-memory offsets are planned at compile time";
  OrReason<RegionSide> shared = copy_async::regionSide(
      src, copy.getSrcStaticOffsets(), copy.getSizes().size(), "the shared",
      planned);
  if (!shared)
    return R::failure(shared.reason());
  OrReason<RegionSide> tmem = copy_async::regionSide(
      dst, copy.getDstStaticOffsets(), copy.getSizes().size(),
      "the tensor-memory", planned);
  if (!tmem)
    return R::failure(tmem.reason());
  r.shared = *shared;
  r.tmem = *tmem;
  r.sizes.assign(copy.getSizes().begin(), copy.getSizes().end());
  r.ctaGroup = copy.getCtaGroup().value_or(1);
  if (std::optional<CpShape> forced = copy.getCpShape())
    r.forcedShape = shapeOf(*forced);
  if (std::optional<CpMulticast> stated = copy.getCpMulticast())
    r.statedMulticast = multicastOf(*stated);
  if (std::optional<CpSourceFormat> f = copy.getSrcFormat())
    r.sourceFormat = *f == CpSourceFormat::b6x16_p32 ? SourceFormat::B6x16P32
                                                     : SourceFormat::B4x16P64;
  return planSharedToTmemCopy(r);
}

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


/// One tcgen05.cp per planned instruction, before `op`.
LogicalResult emitTcgen05Cp(CopyAsyncOp op, const tcgen05_cp::Plan &plan,
                            ValueRange lowered, const DispatchContext &,
                            RewriterBase &rewriter) {
  using namespace tcgen05_cp;
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
  return success();
}

Verdict sharedTmem(CopyAsyncOp copy, const DispatchContext &) {
  if (isSharedToTmem(copy))
    return Verdict::success();
  return Verdict::failure(copy_async::direction(copy) +
                         "; tcgen05.cp copies shared -> tmem");
}

// The predicates below pass other directions: shared_tmem names them.

Verdict tmemAddress(CopyAsyncOp copy, const DispatchContext &) {
  if (!isSharedToTmem(copy))
    return Verdict::success();
  if (std::optional<std::string> problem =
          tcgen05::tmemAddressProblem(copy.getDst(), ""))
    return Verdict::failure(*problem);
  return Verdict::success();
}

Verdict layouts(CopyAsyncOp copy, const DispatchContext &) {
  if (!isSharedToTmem(copy))
    return Verdict::success();
  BufferType src = copy.getSrcType(), dst = copy.getDstType();
  if (!src.getEffectiveLayout())
    return Verdict::failure("the shared buffer has no layout");
  if (!dst.getLayout())
    return Verdict::failure("the tensor-memory buffer has no layout");
  if (src.getElementBits() != dst.getElementBits())
    return Verdict::failure("element widths differ (" +
                           std::to_string(src.getElementBits()) + " and " +
                           std::to_string(dst.getElementBits()) + " bits)");
  return Verdict::success();
}

Verdict supportedConfig(CopyAsyncOp copy, const DispatchContext &) {
  if (!isSharedToTmem(copy))
    return Verdict::success();
  if (copy.getMbar())
    return Verdict::failure(
        "tcgen05.cp does not signal an mbarrier itself; drop mbar(...) "
        "and issue tcgen05.commit after the copy");
  if (copy.getCacheHint())
    return Verdict::failure("tcgen05.cp takes no cache hint");
  return Verdict::success();
}

SmallVector<cuda::InstructionFamily, 2> cpFamilies(CopyAsyncOp) {
  return {cuda::InstructionFamily::Tcgen05};
}

OpPredicate<CopyAsyncOp> tcgen05Target() {
  return targetPredicate<CopyAsyncOp>(
      "tcgen05_target", cpFamilies,
      [](cuda::InstructionFamily) { return true; },
      [](const TargetInfo &target, cuda::InstructionFamily family) {
        return needsOneOf("tcgen05.cp", target, family);
      });
}

} // namespace

void tile::registerTcgen05CpVariant(VariantRegistry &registry) {
  VariantDecl<CopyAsyncOp, tcgen05_cp::Plan> cp{
      "tcgen05_cp", kTcgen05CpPriority,
      {{"shared_tmem", sharedTmem}, copy_async::singleThread("tcgen05.cp"),
       {"tmem_address", tmemAddress}, {"layouts", layouts},
       {"supported_config", supportedConfig},
       tcgen05Target()},
      planTcgen05Cp, /*prepare=*/nullptr, emitTcgen05Cp, cpFamilies};
  registerVariant(registry, std::move(cp));
}

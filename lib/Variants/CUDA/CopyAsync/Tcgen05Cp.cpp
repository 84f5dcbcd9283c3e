//===- Tcgen05Cp.cpp - the tcgen05_cp copy_async variant --------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// copy_async shared -> tensor memory through `tcgen05.cp` (PTX ISA "Tensor
// Memory: tcgen05.cp"): the predicates, the planner hook that turns the op
// into a tcgen05_cp::Request for the pure planner (Tcgen05CpPlanner.cpp),
// and the emitter hook (Tcgen05CpEmitter.cpp). Completion is the caller's:
// tcgen05.commit to an mbarrier after the copies (and MMAs) it covers.
//
//===----------------------------------------------------------------------===//

#include "../Tcgen05Common.h"
#include "Predicates.h"
#include "Tcgen05Cp.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"

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

} // namespace

OrReason<tcgen05_cp::Plan> tcgen05_cp::planFor(CopyAsyncOp copy) {
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
      src, copy.getSrcStaticOffsets(), "the shared", planned);
  if (!shared)
    return R::failure(shared.reason());
  OrReason<RegionSide> tmem = copy_async::regionSide(
      dst, copy.getDstStaticOffsets(), "the tensor-memory", planned);
  if (!tmem)
    return R::failure(tmem.reason());
  r.shared = *shared;
  r.tmem = *tmem;
  r.sizes.assign(copy.getSizes().begin(), copy.getSizes().end());
  r.ctaGroup = copy.getCtaGroup().value_or(1);
  if (std::optional<CpShape> forced = copy.getCpShape())
    r.forcedShape = shapeOf(*forced);
  if (std::optional<CpSourceFormat> f = copy.getSrcFormat())
    r.sourceFormat = *f == CpSourceFormat::b6x16_p32 ? SourceFormat::B6x16P32
                                                     : SourceFormat::B4x16P64;
  return planSharedToTmemCopy(r);
}

namespace {

Verdict planTcgen05Cp(Operation *op, const DispatchContext &) {
  OrReason<tcgen05_cp::Plan> plan = tcgen05_cp::planFor(cast<CopyAsyncOp>(op));
  if (!plan)
    return Verdict::reject(plan.reason());
  return Verdict::accept();
}

LogicalResult emitTcgen05Cp(Operation *op, ValueRange lowered,
                            const DispatchContext &, RewriterBase &rewriter) {
  auto copy = cast<CopyAsyncOp>(op);
  OrReason<tcgen05_cp::Plan> plan = tcgen05_cp::planFor(copy);
  if (!plan)
    return op->emitError() << "tcgen05_cp planner declined at lowering: "
                           << plan.reason();
  tcgen05_cp::emitPlan(copy, *plan, lowered, rewriter);
  return success();
}

/// Where the destination's tensor-memory address comes from.
Verdict tmemAddress(Operation *op, const DispatchContext &) {
  auto copy = cast<CopyAsyncOp>(op);
  if (!isSharedToTmem(copy))
    return Verdict::accept(); // shared_tmem names the direction
  if (std::optional<std::string> problem =
          tcgen05::tmemAddressProblem(copy.getDst(), ""))
    return Verdict::reject(*problem);
  return Verdict::accept();
}

} // namespace

void tile::registerTcgen05CpVariant(VariantRegistry &registry) {
  Variant v;
  v.opName = CopyAsyncOp::getOperationName().str();
  v.family = "cuda";
  v.name = "tcgen05_cp";
  v.priority = 10;
  v.predicates = {
      {"shared_tmem",
       [](Operation *op, const DispatchContext &) {
         auto copy = cast<CopyAsyncOp>(op);
         if (isSharedToTmem(copy))
           return Verdict::accept();
         return Verdict::reject(copy_async::direction(copy) +
                                "; tcgen05.cp copies shared -> tmem");
       }},
      copy_async::singleThread("tcgen05.cp"),
      {"tmem_address", tmemAddress},
      {"layouts",
       [](Operation *op, const DispatchContext &) {
         auto copy = cast<CopyAsyncOp>(op);
         if (!isSharedToTmem(copy))
           return Verdict::accept();
         BufferType src = copy.getSrcType(), dst = copy.getDstType();
         if (!src.getEffectiveLayout())
           return Verdict::reject("the shared buffer has no layout");
         if (!dst.getLayout())
           return Verdict::reject("the tensor-memory buffer has no layout");
         if (src.getElementBits() != dst.getElementBits())
           return Verdict::reject("element widths differ (" +
                                  std::to_string(src.getElementBits()) +
                                  " and " +
                                  std::to_string(dst.getElementBits()) +
                                  " bits)");
         return Verdict::accept();
       }},
      {"supported_config",
       [](Operation *op, const DispatchContext &) {
         auto copy = cast<CopyAsyncOp>(op);
         if (!isSharedToTmem(copy))
           return Verdict::accept();
         if (copy.getMbar())
           return Verdict::reject(
               "tcgen05.cp does not signal an mbarrier itself; drop mbar(...) "
               "and issue tcgen05.commit after the copy");
         if (copy.getCacheHint())
           return Verdict::reject("tcgen05.cp takes no cache hint");
         return Verdict::accept();
       }},
      tcgen05::targetPredicate("tcgen05.cp"),
  };
  v.plan = planTcgen05Cp;
  v.emit = emitTcgen05Cp;
  registry.registerVariant(std::move(v));
}

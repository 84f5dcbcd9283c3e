//===- DSMEM.cpp - the dsmem copy_async variant -----------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// copy_async shared -> shared across a cluster: `mapa` the destination and
// its mbarrier into the peer CTA, then one
// `cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`
// per planned copy. This file holds the predicates, the planner hook and
// the registration; the planner is pure (DSMEMPlanner.cpp) and the NVVM
// emitter lives in DSMEMEmitter.cpp.
//
//===----------------------------------------------------------------------===//

#include "DSMEM.h"
#include "Predicates.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/CopyAsync/DSMEMPlanner.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

/// The planner's view of one side of the copy, or a reason it has none.
OrReason<dsmem::RegionSide> regionSide(BufferType type,
                                       ArrayRef<int64_t> offsets,
                                       const char *name) {
  return copy_async::regionSide(type, offsets, name,
                                "the dsmem planner needs static offsets");
}

Verdict planDSMEM(Operation *op, const DispatchContext &) {
  OrReason<dsmem::Plan> plan = dsmem::planFor(cast<CopyAsyncOp>(op));
  if (!plan)
    return Verdict::reject(plan.reason());
  return Verdict::accept();
}

LogicalResult emitDSMEM(Operation *op, ValueRange lowered,
                        const DispatchContext &, RewriterBase &rewriter) {
  auto copy = cast<CopyAsyncOp>(op);
  OrReason<dsmem::Plan> plan = dsmem::planFor(copy);
  if (!plan)
    return op->emitError() << "dsmem planner declined at lowering: "
                           << plan.reason();
  dsmem::emitPlan(copy, *plan, lowered, rewriter);
  return success();
}

} // namespace

OrReason<dsmem::Plan> dsmem::planFor(CopyAsyncOp copy) {
  using R = OrReason<Plan>;
  OrReason<RegionSide> src =
      regionSide(copy.getSrcType(), copy.getSrcStaticOffsets(), "source");
  if (!src)
    return R::failure(src.reason());
  OrReason<RegionSide> dst =
      regionSide(copy.getDstType(), copy.getDstStaticOffsets(), "destination");
  if (!dst)
    return R::failure(dst.reason());
  return planClusterCopy(*src, *dst, copy.getSizes(),
                         copy.getSrcType().getElementBits());
}

void tile::registerDSMEMVariant(VariantRegistry &registry) {
  Variant v;
  v.opName = CopyAsyncOp::getOperationName().str();
  v.family = "cuda";
  v.name = "dsmem";
  v.priority = 10;
  v.predicates = {
      {"shared_to_shared",
       [](Operation *op, const DispatchContext &) {
         auto copy = cast<CopyAsyncOp>(op);
         if (copy.getSrcType().getScope() == MemoryScope::shared &&
             copy.getDstType().getScope() == MemoryScope::shared)
           return Verdict::accept();
         return Verdict::reject(copy_async::direction(copy) +
                                "; dsmem copies shared -> shared");
       }},
      copy_async::singleThread("bulk copies"),
      {"has_remote_cta",
       [](Operation *op, const DispatchContext &) {
         if (cast<CopyAsyncOp>(op).getRemoteCta())
           return Verdict::accept();
         return Verdict::reject(
             "no remote_cta operand: the destination CTA's rank is needed");
       }},
      {"has_mbar",
       [](Operation *op, const DispatchContext &) {
         if (cast<CopyAsyncOp>(op).getMbar())
           return Verdict::accept();
         return Verdict::reject("no mbar operand: the destination CTA's "
                                "mbarrier tracks completion");
       }},
      {"supported_config",
       [](Operation *op, const DispatchContext &) {
         auto copy = cast<CopyAsyncOp>(op);
         std::string unused;
         if (copy.getCacheHint())
           unused += "cache_hint";
         if (copy.getCtaGroup())
           unused += std::string(unused.empty() ? "" : ", ") + "cta_group";
         if (unused.empty())
           return Verdict::accept();
         return Verdict::reject(unused + " given; shared::cta -> "
                                "shared::cluster bulk copies take neither");
       }},
      {"cluster_target",
       [](Operation *, const DispatchContext &context) {
         if (context.target.sm >= 90)
           return Verdict::accept();
         return Verdict::reject(context.target.chip +
                                " has no thread-block clusters (sm_90+)");
       }},
  };
  v.plan = planDSMEM;
  v.emit = emitDSMEM;
  registry.registerVariant(std::move(v));
}

void tile::registerBuiltinVariants(VariantRegistry &registry) {
  registerTMAVariant(registry);
  registerDSMEMVariant(registry);
  registerTcgen05CpVariant(registry);
  registerTcgen05MmaVariant(registry);
}

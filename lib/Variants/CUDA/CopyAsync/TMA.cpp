//===- TMA.cpp - the tma copy_async variant ---------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// copy_async global <-> shared through tensor maps (PTX ISA
// "cp.async.bulk.tensor"): the predicates, and the planner hook that turns
// the op into a tma::Request for the pure planner (TMAPlanner.cpp). The
// emitter is not written yet: selecting tma works and reports the plan's
// problems, lowering a tma copy is reported as unsupported.
//
//===----------------------------------------------------------------------===//

#include "Predicates.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using cuda::TensorMapDataType;

namespace {

bool isGlobalToShared(CopyAsyncOp copy) {
  return copy.getSrcType().getScope() == MemoryScope::global &&
         copy.getDstType().getScope() == MemoryScope::shared;
}
bool isSharedToGlobal(CopyAsyncOp copy) {
  return copy.getSrcType().getScope() == MemoryScope::shared &&
         copy.getDstType().getScope() == MemoryScope::global;
}

/// The tensor-map element type of `type`, or nullopt.
std::optional<TensorMapDataType> mapDataType(Type type) {
  if (type.isF16())
    return TensorMapDataType::Float16;
  if (type.isBF16())
    return TensorMapDataType::BFloat16;
  if (type.isF32())
    return TensorMapDataType::Float32;
  if (type.isF64())
    return TensorMapDataType::Float64;
  if (auto f = dyn_cast<FloatType>(type); f && f.getWidth() == 8)
    return TensorMapDataType::UInt8; // fp8: bytes are copied as is
  if (auto i = dyn_cast<IntegerType>(type)) {
    switch (i.getWidth()) {
    case 8: return TensorMapDataType::UInt8;
    case 16: return TensorMapDataType::UInt16;
    case 32:
      return i.isUnsigned() ? TensorMapDataType::UInt32
                            : TensorMapDataType::Int32;
    case 64:
      return i.isUnsigned() ? TensorMapDataType::UInt64
                            : TensorMapDataType::Int64;
    default: break;
    }
  }
  return std::nullopt;
}

} // namespace

OrReason<tma::Request> tma::requestFor(CopyAsyncOp copy) {
  using R = OrReason<Request>;
  bool load = isGlobalToShared(copy);
  BufferType global = load ? copy.getSrcType() : copy.getDstType();
  BufferType shared = load ? copy.getDstType() : copy.getSrcType();
  ArrayRef<int64_t> globalOffsets =
      load ? copy.getSrcStaticOffsets() : copy.getDstStaticOffsets();
  ArrayRef<int64_t> sharedOffsets =
      load ? copy.getDstStaticOffsets() : copy.getSrcStaticOffsets();

  Request r;
  r.sizes.assign(copy.getSizes().begin(), copy.getSizes().end());
  r.elementBits = global.getElementBits();
  std::optional<TensorMapDataType> type = mapDataType(global.getElementType());
  if (!type)
    return R::failure("element type has no tensor-map data type");
  r.dataType = *type;
  if (copy.getOob() && *copy.getOob() == OobFill::nan)
    r.oobFill = cuda::TensorMapOobFill::NanRequestZeroFma;

  // Global dims and element strides: from the layout, else row-major with
  // runtime strides where a dim inside is dynamic.
  unsigned rank = global.getRank();
  for (int64_t d : global.getShape())
    r.global.shape.push_back(ShapedType::isDynamic(d) ? kDynamic : d);
  if (LayoutAttr layoutAttr = global.getLayout()) {
    TileLayout layout = layoutAttr.getLayout();
    if (layout.offset(Axis::m) != 0)
      return R::failure("the global layout starts at element " +
                        std::to_string(layout.offset(Axis::m)) +
                        "; a tensor map starts at the buffer's address");
    OrReason<GroupedLayout> grouped = layout.group(global.getShape());
    if (!grouped)
      return R::failure("global layout: " + grouped.reason());
    for (unsigned d = 0; d < rank; ++d) {
      int64_t stride = 0;
      unsigned nonUnit = 0;
      for (const Iter &it : grouped->group(d))
        if (it.extent > 1) {
          stride = it.stride;
          ++nonUnit;
        }
      if (nonUnit > 1)
        return R::failure("global dim " + std::to_string(d) +
                          " is not one strided dim");
      r.global.strides.push_back(nonUnit ? stride : 1);
    }
  } else {
    r.global.strides.assign(rank, 1);
    int64_t inner = 1;
    for (unsigned d = rank; d-- > 0;) {
      r.global.strides[d] = inner;
      if (inner != kDynamic)
        inner = r.global.shape[d] == kDynamic ? kDynamic
                                               : inner * r.global.shape[d];
    }
  }
  for (int64_t o : globalOffsets)
    r.global.offsets.push_back(ShapedType::isDynamic(o) ? kDynamic : o);

  std::optional<TileLayout> sharedLayout = shared.getEffectiveLayout();
  if (!sharedLayout)
    return R::failure("the shared buffer has no static layout");
  r.shared.layout = *sharedLayout;
  r.shared.shape.assign(shared.getShape().begin(), shared.getShape().end());
  for (int64_t o : sharedOffsets) {
    if (ShapedType::isDynamic(o))
      return R::failure("the shared region has a dynamic offset; the box's "
                        "shared address must be known");
    r.shared.offsets.push_back(o);
  }
  return r;
}

namespace {

Verdict planTMA(Operation *op, const DispatchContext &) {
  auto copy = cast<CopyAsyncOp>(op);
  OrReason<tma::Request> request = tma::requestFor(copy);
  if (!request)
    return Verdict::reject(request.reason());
  OrReason<tma::Plan> plan = tma::planTensorCopy(*request);
  if (!plan)
    return Verdict::reject(plan.reason());
  return Verdict::accept();
}

} // namespace

void tile::registerTMAVariant(VariantRegistry &registry) {
  Variant v;
  v.opName = CopyAsyncOp::getOperationName().str();
  v.family = "cuda";
  v.name = "tma";
  v.priority = 20;
  v.predicates = {
      {"global_shared",
       [](Operation *op, const DispatchContext &) {
         auto copy = cast<CopyAsyncOp>(op);
         if (isGlobalToShared(copy) || isSharedToGlobal(copy))
           return Verdict::accept();
         return Verdict::reject(copy_async::direction(copy) +
                                "; tma copies global <-> shared");
       }},
      copy_async::singleThread("tensor copies"),
      {"completion",
       [](Operation *op, const DispatchContext &) {
         auto copy = cast<CopyAsyncOp>(op);
         if (isGlobalToShared(copy) && !copy.getMbar())
           return Verdict::reject("a global -> shared tensor copy completes "
                                  "on an mbarrier; give mbar(...)");
         if (isSharedToGlobal(copy) && copy.getMbar())
           return Verdict::reject("a shared -> global tensor copy completes "
                                  "through bulk groups, not an mbarrier");
         return Verdict::accept();
       }},
      {"tma_target",
       [](Operation *, const DispatchContext &context) {
         if (context.target.sm >= 90)
           return Verdict::accept();
         return Verdict::reject(context.target.chip +
                                " has no tensor memory accelerator (sm_90+)");
       }},
      {"cta_group_target",
       [](Operation *op, const DispatchContext &context) {
         if (!cast<CopyAsyncOp>(op).getCtaGroup() ||
             (context.target.sm >= 100 && context.target.archSpecific))
           return Verdict::accept();
         return Verdict::reject("cta_group needs sm_100a, not " +
                                context.target.chip);
       }},
  };
  v.plan = planTMA;
  registry.registerVariant(std::move(v));
}

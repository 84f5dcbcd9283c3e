//===- TMA.cpp - the tma copy_async variant ---------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// copy_async global <-> shared through tensor maps (PTX ISA
// "cp.async.bulk.tensor"): the predicates, the planner hook that turns the
// op into a tma::Request for the pure planner (TMAPlanner.cpp), the kernel-
// ABI step that adds the by-value tensor-map parameter (one per distinct
// plan), and the emitter hook (TMAEmitter.cpp).
//
//===----------------------------------------------------------------------===//

#include "Predicates.h"
#include "TMA.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
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

OrReason<tma::Plan> planFor(CopyAsyncOp copy) {
  OrReason<tma::Request> request = tma::requestFor(copy);
  if (!request)
    return OrReason<tma::Plan>::failure(request.reason());
  return tma::planTensorCopy(*request);
}

/// The plan as the kernel's `tile.tensor_maps` entry (and the manifest's):
/// the encode arguments, which values are runtime sizes/strides of which
/// dim of which kernel argument, and the issue shape.
DictionaryAttr planAttr(Builder &b, const tma::Plan &plan,
                        unsigned globalArg) {
  auto ints = [&](auto range) {
    SmallVector<int64_t> v(range.begin(), range.end());
    return b.getI64ArrayAttr(v);
  };
  SmallVector<int64_t> dimSources, strideSources, strideScales;
  for (const tma::MapValue &v : plan.globalDims)
    dimSources.push_back(v.sourceDim);
  for (const tma::MapValue &v : plan.globalStrides) {
    strideSources.push_back(v.sourceDim);
    strideScales.push_back(v.isStatic() ? 1 : v.scale);
  }
  NamedAttrList a;
  a.append("global_arg", b.getI64IntegerAttr(globalArg));
  a.append("data_type", b.getStringAttr(cuda::dataTypeName(plan.map.dataType)));
  a.append("encode", ints(plan.encodeArguments()));
  a.append("dim_sources", ints(dimSources));
  a.append("stride_sources", ints(strideSources));
  a.append("stride_scales", ints(strideScales));
  a.append("bytes_per_issue", b.getI64IntegerAttr(plan.bytesPerIssue));
  a.append("issues", b.getI64IntegerAttr(plan.issues.size()));
  return a.getDictionary(b.getContext());
}

LogicalResult prepareTMA(Operation *op, const DispatchContext &,
                         KernelABI &abi) {
  auto copy = cast<CopyAsyncOp>(op);
  OrReason<tma::Plan> plan = planFor(copy);
  if (!plan)
    return op->emitError() << "tma planner declined at lowering: "
                           << plan.reason();
  // The host encodes the map from the memref the kernel receives.
  Value global = isGlobalToShared(copy) ? copy.getSrc() : copy.getDst();
  auto view = global.getDefiningOp<FromMemrefOp>();
  auto arg = view ? dyn_cast<BlockArgument>(view.getSource()) : BlockArgument();
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  if (!arg || !kernel || arg.getOwner() != &kernel.getBody().front())
    return op->emitError()
           << "the global buffer of a tma copy must be a tile.from_memref of "
              "a kernel argument: the host encodes its tensor map";
  Builder b(op->getContext());
  FailureOr<unsigned> param =
      abi.tensorMapParam(op, planAttr(b, *plan, arg.getArgNumber()));
  if (failed(param))
    return failure();
  op->setAttr(tma::kTensorMapParamAttr, b.getI64IntegerAttr(*param));
  return success();
}

LogicalResult emitTMA(Operation *op, ValueRange lowered,
                      const DispatchContext &, RewriterBase &rewriter) {
  auto copy = cast<CopyAsyncOp>(op);
  OrReason<tma::Plan> plan = planFor(copy);
  if (!plan)
    return op->emitError() << "tma planner declined at lowering: "
                           << plan.reason();
  auto param = op->getAttrOfType<IntegerAttr>(tma::kTensorMapParamAttr);
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  if (!param || !kernel)
    return op->emitError() << "tma copy has no tensor-map parameter";
  tma::emitPlan(copy, *plan, kernel.getArgument(param.getInt()), lowered,
                rewriter);
  return success();
}

Verdict planTMA(Operation *op, const DispatchContext &) {
  OrReason<tma::Plan> plan = planFor(cast<CopyAsyncOp>(op));
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
  v.prepare = prepareTMA;
  v.emit = emitTMA;
  registry.registerVariant(std::move(v));
}

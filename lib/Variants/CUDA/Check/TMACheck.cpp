//===- TMACheck.cpp - translation validation of tma -----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads every emitted cp.async.bulk.tensor (load, store, reduction) back: its
// direction, tensor map, mbarrier / multicast mask / cta_group / reduction
// against the op's, the shared box address (the tile at kSharedBase) and the
// coordinates. The map is the kernel's #tile.tensor_map_plan for the
// parameter the instruction reads: its encode arguments decoded here, the
// runtime values completed as the host runtime does from one instance of
// the memref (dynamic sizes and region offsets get fixed sample values,
// bound to the offsets' SSA values before the emitted ops run). The model
// then says which global and shared bytes every box moves, compared with the
// region of the op: global element by the global buffer's layout (row-major
// over its shape without one), shared byte by the shared layout.
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Variants/CUDA/VariantHelpers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// The global side of the op as one runtime instance: sizes, region
/// offsets, memref element strides, and the global element of a region
/// coordinate.
struct GlobalInstance {
  SmallVector<int64_t, 5> shape, offsets, strides;
  std::optional<TileLayout> layout;
  bool inBounds(ArrayRef<int64_t> c) const {
    for (size_t d = 0; d < c.size(); ++d)
      if (offsets[d] + c[d] < 0 || offsets[d] + c[d] >= shape[d])
        return false;
    return true;
  }
  int64_t element(ArrayRef<int64_t> c) const {
    SmallVector<int64_t, 5> g;
    for (size_t d = 0; d < c.size(); ++d)
      g.push_back(offsets[d] + c[d]);
    if (layout)
      return at(layout->apply(g, shape), Axis::m);
    int64_t e = 0;
    for (size_t d = 0; d < g.size(); ++d)
      e += g[d] * strides[d];
    return e;
  }
};

/// Sample values: a dynamic offset of dim d is 3 + 2d (clamped into a
/// static dim), a dynamic size the offset plus the region rounded up to 64
/// plus 64; `dynamicOffsets` are bound to their samples.
OrReason<GlobalInstance> instantiate(CopyAsyncOp copy, bool load,
                                     ValueRange dynamicOffsets,
                                     EmittedValues &values) {
  using R = OrReason<GlobalInstance>;
  BufferType type = load ? copy.getSrcType() : copy.getDstType();
  ArrayRef<int64_t> offsets =
      load ? copy.getSrcStaticOffsets() : copy.getDstStaticOffsets();
  GlobalInstance g;
  if (LayoutAttr l = type.getLayout())
    g.layout = l.getLayout();
  size_t next = 0;
  // Leading dims beyond the region's rank take size 1 (a batch index).
  const size_t lead = offsets.size() - copy.getSizes().size();
  for (size_t d = 0; d < offsets.size(); ++d) {
    int64_t dim = type.getShape()[d];
    int64_t size = d < lead ? 1 : copy.getSizes()[d - lead];
    int64_t o = offsets[d];
    if (ShapedType::isDynamic(o)) {
      o = 3 + 2 * int64_t(d);
      if (!ShapedType::isDynamic(dim))
        o = std::max<int64_t>(0, std::min(o, dim - size));
      values.bind(dynamicOffsets[next++], o);
    }
    if (ShapedType::isDynamic(dim))
      dim = llvm::alignTo(o + size, 64) + 64;
    g.offsets.push_back(o);
    g.shape.push_back(dim);
  }
  if (g.layout && g.layout->offset(Axis::m) != 0)
    return R::failure("the global layout does not start at the buffer");
  g.strides.assign(g.shape.size(), 1);
  for (size_t d = g.shape.size(); d-- > 1;)
    g.strides[d - 1] = g.strides[d] * g.shape[d];
  if (g.layout)
    for (size_t d = 0; d < g.shape.size(); ++d) {
      SmallVector<int64_t, 5> unit(g.shape.size(), 0);
      unit[d] = g.shape[d] > 1 ? 1 : 0;
      g.strides[d] = at(g.layout->apply(unit, g.shape), Axis::m);
    }
  return g;
}

/// The encode arguments (rank, dims, byte strides, box, element strides,
/// interleave, swizzle, L2 promotion, OOB fill; -1 at run time) of `plan`,
/// completed from `g` as the runtime does.
OrReason<cuda::TensorMapDesc> mapOf(TensorMapPlanAttr plan,
                                    const GlobalInstance &g) {
  using R = OrReason<cuda::TensorMapDesc>;
  ArrayRef<int64_t> e = plan.getEncode().asArrayRef();
  std::optional<cuda::TensorMapDataType> type =
      cuda::dataTypeFromName(plan.getDataType());
  if (e.empty() || e[0] < 1 || e[0] > 5 || int64_t(e.size()) != 4 * e[0] + 4 ||
      !type)
    return R::failure("the tensor-map plan's encode arguments or data type "
                      "cannot be read");
  cuda::TensorMapDesc map;
  map.dataType = *type;
  map.rank = unsigned(e[0]);
  ArrayRef<int64_t> dims = e.slice(1, map.rank),
                    strides = e.slice(1 + map.rank, map.rank - 1),
                    box = e.slice(2 * map.rank, map.rank),
                    elems = e.slice(3 * map.rank, map.rank), tail = e.take_back(4);
  ArrayRef<int64_t> dimSrc = plan.getDimSources().asArrayRef(),
                    strideSrc = plan.getStrideSources().asArrayRef(),
                    scale = plan.getStrideScales().asArrayRef();
  auto source = [&](ArrayRef<int64_t> srcs, size_t i) -> int64_t {
    return i < srcs.size() && srcs[i] >= 0 && srcs[i] < int64_t(g.shape.size())
               ? srcs[i]
               : -1;
  };
  for (unsigned i = 0; i < map.rank; ++i) {
    int64_t d = dims[i], s = source(dimSrc, i);
    if (d < 0 && s < 0)
      return R::failure("a runtime map dim names no memref dim");
    map.globalDims.push_back(uint64_t(d >= 0 ? d : g.shape[s]));
    map.boxDims.push_back(uint32_t(box[i]));
    map.elementStrides.push_back(uint32_t(elems[i]));
  }
  for (unsigned i = 0; i + 1 < map.rank; ++i) {
    int64_t v = strides[i], s = source(strideSrc, i);
    if (v < 0 && (s < 0 || i >= scale.size()))
      return R::failure("a runtime map stride names no memref dim");
    map.globalStrides.push_back(uint64_t(v >= 0 ? v : g.strides[s] * scale[i]));
  }
  if (tail[0] > 2 || tail[1] > 6 || tail[2] > 3 || tail[3] > 1 ||
      llvm::any_of(tail, [](int64_t v) { return v < 0; }))
    return R::failure("the tensor-map plan's enum arguments are out of range");
  map.interleave = cuda::TensorMapInterleave(tail[0]);
  map.swizzle = cuda::TensorMapSwizzle(tail[1]);
  map.l2Promotion = cuda::TensorMapL2Promotion(tail[2]);
  map.oobFill = cuda::TensorMapOobFill(tail[3]);
  return map;
}

/// The #tile.tensor_map_plan of the kernel parameter `map`.
OrReason<TensorMapPlanAttr> planOfMap(Value map) {
  using R = OrReason<TensorMapPlanAttr>;
  auto arg = dyn_cast<BlockArgument>(map);
  auto kernel = arg ? dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp())
                    : gpu::GPUFuncOp();
  if (!kernel)
    return R::failure("a tensor copy's map is not a kernel parameter");
  if (auto maps = kernel->getAttrOfType<ArrayAttr>(dispatch::kTensorMapsAttr))
    for (Attribute a : maps)
      if (auto plan = dyn_cast<TensorMapPlanAttr>(a))
        if (plan.getParam() == int64_t(arg.getArgNumber()))
          return plan;
  return R::failure("kernel parameter " + str(arg.getArgNumber()) +
                    " carries no #tile.tensor_map_plan");
}

/// The operands of one emitted tensor copy: map, shared address, coords.
struct TensorCopy {
  Value map, shared;
  Operation::operand_range coords;
};

/// The load's barrier operand is the op's, or with `mbar_cta` the op's
/// mapped (mapa) into that CTA and passed on as its integer value.
bool completesOnOpBarrier(Value barrier, CopyAsyncOp::Adaptor adaptor) {
  if (!adaptor.getMbarCta())
    return barrier == adaptor.getMbar();
  auto toPtr = barrier.getDefiningOp<LLVM::IntToPtrOp>();
  auto toInt = toPtr ? toPtr.getArg().getDefiningOp<LLVM::PtrToIntOp>()
                     : LLVM::PtrToIntOp();
  auto mapa = toInt ? toInt.getArg().getDefiningOp<NVVM::MapaOp>()
                    : NVVM::MapaOp();
  return mapa && mapa.getA() == adaptor.getMbar() &&
         mapa.getB() == adaptor.getMbarCta();
}

/// The emitted instruction's operands, after its kind and configuration
/// are checked against the op's.
OrReason<TensorCopy> operandsOf(CopyAsyncOp copy, Operation *inst,
                                CopyAsyncOp::Adaptor adaptor, bool load) {
  using R = OrReason<TensorCopy>;
  auto wrong = [](const char *what) {
    return R::failure(std::string("a tensor copy ") + what);
  };
  if (auto g2s = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(inst)) {
    if (!load)
      return wrong("loads; the op stores");
    if (!completesOnOpBarrier(g2s.getMbar(), adaptor) ||
        g2s.getMulticastMask() != adaptor.getCtaMask() ||
        bool(g2s.getGroupAttr()) != bool(copy.getCtaGroup()) ||
        (g2s.getGroupAttr() &&
         (g2s.getGroupAttr().getValue() == NVVM::CTAGroupKind::CTA_2) !=
             (copy.getCtaGroup() == 2u)))
      return wrong("has another mbarrier, multicast mask or cta_group than "
                   "the op");
    return TensorCopy{g2s.getTmaDescriptor(), g2s.getDstMem(),
                      g2s.getCoordinates()};
  }
  if (load)
    return wrong("stores; the op loads");
  if (auto red = dyn_cast<NVVM::CpAsyncBulkTensorReduceOp>(inst)) {
    if (!copy.getReduce() ||
        stringifyReduceKind(*copy.getReduce()).trim('_') !=
            NVVM::stringifyTMAReduxKind(red.getRedKind()))
      return wrong("reduces with another operation than the op");
    return TensorCopy{red.getTmaDescriptor(), red.getSrcMem(),
                      red.getCoordinates()};
  }
  if (auto s2g = dyn_cast<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(inst)) {
    if (copy.getReduce())
      return wrong("stores; the op reduces");
    return TensorCopy{s2g.getTmaDescriptor(), s2g.getSrcMem(),
                      s2g.getCoordinates()};
  }
  return R::failure(unexpectedInstruction(inst).reason());
}

/// One emitted tensor copy as a box; all must use one map.
Status readBox(CopyAsyncOp copy, Operation *inst, const EmittedValues &values,
               bool load, Value &map, std::vector<plan_check::TmaBox> &boxes,
               CopyAsyncOp::Adaptor adaptor) {
  OrReason<TensorCopy> tc = operandsOf(copy, inst, adaptor, load);
  if (!tc)
    return Status::failure(tc.reason());
  if (map && tc->map != map)
    return Status::failure("the tensor copies read different tensor maps");
  map = tc->map;
  plan_check::TmaBox box;
  OrReason<int64_t> shared = valueOf(values, inst, tc->shared, "the box address");
  if (!shared)
    return Status::failure(shared.reason());
  box.sharedAddress = *shared;
  for (auto [i, c] : llvm::enumerate(tc->coords)) {
    OrReason<int64_t> v = valueOf(values, inst, c, "coordinate " + str(i));
    if (!v)
      return Status::failure(v.reason());
    box.coords.push_back(int64_t(int32_t(*v)));
  }
  boxes.push_back(box);
  return Status::success();
}

} // namespace

LogicalResult lowering_check::checkTMALowering(
    Operation *op, ValueRange lowered, ArrayRef<Operation *> emitted,
    const dispatch::DispatchContext &) {
  auto copy = cast<CopyAsyncOp>(op);
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  bool load = copy.getSrcType().getScope() == MemoryScope::global;
  BufferType shared = load ? copy.getDstType() : copy.getSrcType();
  ArrayRef<int64_t> sharedOffsets =
      load ? copy.getDstStaticOffsets() : copy.getSrcStaticOffsets();
  EmittedValues values;
  values.bind(load ? adaptor.getDst() : adaptor.getSrc(), kSharedBase);
  OrReason<GlobalInstance> g = instantiate(
      copy, load, load ? adaptor.getSrcOffsets() : adaptor.getDstOffsets(),
      values);
  OrReason<copy_async::RegionSide> side = copy_async::regionSide(
      shared, sharedOffsets, copy.getSizes().size(), "the shared",
      "the check needs static offsets");
  if (!g || !side)
    return reportOn(op, "tma",
                    Status::failure(!g ? g.reason() : side.reason()));
  Value map;
  std::vector<plan_check::TmaBox> boxes;
  Status read = runEmitted(emitted, values, [&](Operation *inst) {
    return readBox(copy, inst, values, load, map, boxes, adaptor);
  });
  if (!read || !map)
    return reportOn(op, "tma", read ? Status::failure("no tensor copy is "
                                                      "emitted")
                                    : read);
  OrReason<TensorMapPlanAttr> plan = planOfMap(map);
  OrReason<cuda::TensorMapDesc> desc =
      plan ? mapOf(*plan, *g)
           : OrReason<cuda::TensorMapDesc>::failure(plan.reason());
  if (!desc)
    return reportOn(op, "tma", Status::failure(desc.reason()));
  // The region at the global rank: leading unit dims on both sides.
  const size_t lead = g->shape.size() - copy.getSizes().size();
  plan_check::TmaRegion region;
  region.sizes.assign(lead, 1);
  region.sizes.append(copy.getSizes().begin(), copy.getSizes().end());
  region.elementBits = shared.getElementBits();
  region.shared.layout = side->layout;
  region.shared.shape.assign(lead, 1);
  region.shared.shape.append(side->shape.begin(), side->shape.end());
  region.shared.offsets.assign(lead, 0);
  region.shared.offsets.append(side->offsets.begin(), side->offsets.end());
  region.globalElement = [g = *g](ArrayRef<int64_t> c) { return g.element(c); };
  region.inBounds = [g = *g](ArrayRef<int64_t> c) { return g.inBounds(c); };
  plan_check::Placement placement{kSharedBase, kTmemBase};
  return reportOn(op, "tma",
                  plan_check::checkTmaBoxes(region, *desc, boxes, placement,
                                            {"tensor copy", true}));
}

//===- TMA.cpp - the tma copy_async variant ---------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// copy_async global <-> shared through tensor maps (PTX ISA
// "cp.async.bulk.tensor"). The whole variant is declared here: the
// predicates, the op -> tma::Request for the pure planner (TMAPlanner.cpp),
// the kernel-ABI step that adds the by-value tensor-map parameter (one per
// distinct plan, recorded as a #tile.tensor_map_plan) and the NVVM emitter.
//
//===----------------------------------------------------------------------===//

#include "../TargetPredicate.h"
#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using cuda::TensorMapDataType;
using NVVM::NVVMMemorySpace;

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

/// The planner's request for a global <-> shared copy, or why the op cannot
/// be described.
OrReason<tma::Request> requestFor(CopyAsyncOp copy) {
  using R = OrReason<tma::Request>;
  bool load = isGlobalToShared(copy);
  BufferType global = load ? copy.getSrcType() : copy.getDstType();
  BufferType shared = load ? copy.getDstType() : copy.getSrcType();
  ArrayRef<int64_t> globalOffsets =
      load ? copy.getSrcStaticOffsets() : copy.getDstStaticOffsets();
  ArrayRef<int64_t> sharedOffsets =
      load ? copy.getDstStaticOffsets() : copy.getSrcStaticOffsets();

  // Leading global dims beyond the region's rank take size 1 (a batch
  // index); the shared side is presented at the global rank.
  tma::Request r;
  ArrayRef<int64_t> sizes = copy.getSizes();
  if (global.getRank() < static_cast<int64_t>(sizes.size()))
    return R::failure("the global buffer has fewer dims than the region");
  const size_t lead = global.getRank() - sizes.size();
  r.sizes.assign(lead, 1);
  r.sizes.append(sizes.begin(), sizes.end());
  r.elementBits = global.getElementBits();
  std::optional<TensorMapDataType> type = mapDataType(global.getElementType());
  if (!type)
    return R::failure("element type has no tensor-map data type");
  r.dataType = *type;
  if (copy.getOob() && *copy.getOob() == OobFill::nan)
    r.oobFill = cuda::TensorMapOobFill::NanRequestZeroFma;

  // Global dims and element strides: from the layout, else row-major with
  // runtime strides where a dim inside is dynamic.
  for (int64_t d : global.getShape())
    r.global.shape.push_back(ShapedType::isDynamic(d) ? tma::kDynamic : d);
  if (LayoutAttr layoutAttr = global.getLayout();
      layoutAttr && layoutAttr.getLayout().offset(Axis::m) != 0)
    return R::failure("the global layout starts at element " +
                      std::to_string(layoutAttr.getLayout().offset(Axis::m)) +
                      "; a tensor map starts at the buffer's address");
  OrReason<SmallVector<int64_t, 5>> strides = staticGlobalStrides(global);
  if (!strides)
    return R::failure(strides.reason());
  for (int64_t stride : *strides)
    r.global.strides.push_back(ShapedType::isDynamic(stride) ? tma::kDynamic
                                                             : stride);
  for (int64_t o : globalOffsets)
    r.global.offsets.push_back(ShapedType::isDynamic(o) ? tma::kDynamic : o);

  OrReason<copy_async::RegionSide> side = copy_async::regionSide(
      shared, sharedOffsets, sizes.size(), "the shared",
      "the box's shared address must be known");
  if (!side)
    return R::failure(side.reason());
  r.shared.layout = side->layout;
  r.shared.shape.assign(lead, 1);
  r.shared.shape.append(side->shape.begin(), side->shape.end());
  r.shared.offsets.assign(lead, 0);
  r.shared.offsets.append(side->offsets.begin(), side->offsets.end());
  return r;
}

/// The NVVM reduction of a tile reduction kind.
NVVM::TMAReduxKind nvvmReduxKind(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::add: return NVVM::TMAReduxKind::ADD;
  case ReduceKind::min: return NVVM::TMAReduxKind::MIN;
  case ReduceKind::max: return NVVM::TMAReduxKind::MAX;
  case ReduceKind::inc: return NVVM::TMAReduxKind::INC;
  case ReduceKind::dec: return NVVM::TMAReduxKind::DEC;
  case ReduceKind::and_: return NVVM::TMAReduxKind::AND;
  case ReduceKind::or_: return NVVM::TMAReduxKind::OR;
  case ReduceKind::xor_: return NVVM::TMAReduxKind::XOR;
  }
  llvm_unreachable("unknown reduce kind");
}

/// The barrier a load completes on: the op's, or with `mbar_cta` the one
/// at its offset in that CTA of the cluster (`mapa`). The PTX operand of a
/// .shared::cluster load is a shared::cluster address (the shared::cta
/// window lies inside that window); NVVM's op types it as a shared
/// pointer, so the mapped address is passed as its integer value.
Value completionBarrier(CopyAsyncOp::Adaptor adaptor, Location loc,
                        RewriterBase &rewriter) {
  Value local = adaptor.getMbar();
  if (!local || !adaptor.getMbarCta())
    return local;
  MLIRContext *ctx = rewriter.getContext();
  Value remote = NVVM::MapaOp::create(
      rewriter, loc,
      LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::SharedCluster)),
      local, adaptor.getMbarCta());
  Type i64 = rewriter.getI64Type();
  Value bits = LLVM::PtrToIntOp::create(rewriter, loc, i64, remote);
  return LLVM::IntToPtrOp::create(
      rewriter, loc,
      LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Shared)), bits);
}

/// One cp.async.bulk.tensor per issue of `plan` before `op` (g2s with
/// mbarrier complete_tx, multicast, cache hint, cta_group; s2g; s2g
/// reduce), reading the tensor map from kernel argument `map`.
void emitIssues(CopyAsyncOp op, const tma::Plan &plan, Value map,
                ValueRange lowered, RewriterBase &rewriter) {
  CopyAsyncOp::Adaptor adaptor(lowered, op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  bool load = op.getSrcType().getScope() == MemoryScope::global;
  Value shared = load ? adaptor.getDst() : adaptor.getSrc();
  Type i32 = rewriter.getI32Type();

  // The region's dynamic global offsets, by dim.
  ArrayRef<int64_t> staticOffsets =
      load ? op.getSrcStaticOffsets() : op.getDstStaticOffsets();
  ValueRange dynamicOffsets =
      load ? adaptor.getSrcOffsets() : adaptor.getDstOffsets();
  SmallVector<Value> offsetOf(staticOffsets.size());
  for (size_t d = 0, next = 0; d < staticOffsets.size(); ++d)
    if (ShapedType::isDynamic(staticOffsets[d]))
      offsetOf[d] = arith::IndexCastOp::create(rewriter, loc, i32,
                                               dynamicOffsets[next++]);

  NVVM::CTAGroupKindAttr group;
  if (std::optional<uint32_t> g = op.getCtaGroup())
    group = NVVM::CTAGroupKindAttr::get(
        ctx, *g == 2 ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1);

  Value barrier = load ? completionBarrier(adaptor, loc, rewriter) : Value();
  for (const tma::Issue &issue : plan.issues) {
    SmallVector<Value, 5> coords;
    for (const tma::Coordinate &c : issue.coords) {
      Value constant = arith::ConstantIntOp::create(rewriter, loc, i32,
                                                    c.constant);
      if (c.regionDim < 0) {
        coords.push_back(constant);
        continue;
      }
      Value base = offsetOf[c.regionDim];
      coords.push_back(c.constant == 0
                           ? base
                           : arith::AddIOp::create(rewriter, loc, base,
                                                   constant).getResult());
    }
    Value box = LLVM::GEPOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Shared)),
        rewriter.getI8Type(), shared,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(issue.sharedByte)});
    if (load) {
      Value clusterBox = LLVM::AddrSpaceCastOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::SharedCluster)), box);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, clusterBox, map, coords, barrier,
          /*im2colOffsets=*/ValueRange(), adaptor.getCtaMask(),
          adaptor.getCacheHint(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, group, /*predicate=*/Value());
    } else if (std::optional<ReduceKind> reduce = op.getReduce()) {
      NVVM::CpAsyncBulkTensorReduceOp::create(
          rewriter, loc, map, box, nvvmReduxKind(*reduce),
          NVVM::TMAStoreMode::TILE, coords, adaptor.getCacheHint());
    } else {
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, map, box, coords, adaptor.getCacheHint(),
          NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
    }
  }
}

/// The variant's plan: the planner's, and the kernel argument that will
/// carry its tensor map (assigned by the kernel-ABI step).
struct TMALowering {
  tma::Plan plan;
  unsigned mapParam = 0;
};

OrReason<TMALowering> planTMA(CopyAsyncOp copy, const DispatchContext &) {
  OrReason<tma::Request> request = requestFor(copy);
  if (!request)
    return OrReason<TMALowering>::failure(request.reason());
  OrReason<tma::Plan> plan = tma::planTensorCopy(*request);
  if (!plan)
    return OrReason<TMALowering>::failure(plan.reason());
  return TMALowering{std::move(*plan)};
}

/// The kernel argument whose memref the host encodes the map from: the
/// global buffer must be a tile.from_memref of an argument of the kernel.
std::optional<unsigned> globalKernelArg(CopyAsyncOp copy) {
  Value global = isGlobalToShared(copy) ? copy.getSrc() : copy.getDst();
  auto view = global.getDefiningOp<FromMemrefOp>();
  auto arg = view ? dyn_cast<BlockArgument>(view.getSource()) : BlockArgument();
  auto kernel = copy->getParentOfType<gpu::GPUFuncOp>();
  if (!arg || !kernel || arg.getOwner() != &kernel.getBody().front())
    return std::nullopt;
  return arg.getArgNumber();
}

/// The plan as the kernel's tensor-map record (and the manifest's): the
/// encode arguments, which values are runtime sizes/strides of which dim of
/// which kernel argument, and the issue shape. `param` is left 0: the
/// kernel ABI assigns it.
TensorMapPlanAttr planAttr(MLIRContext *ctx, const tma::Plan &plan,
                           unsigned globalArg) {
  SmallVector<int64_t> dimSources, strideSources, strideScales;
  for (const tma::MapValue &v : plan.globalDims)
    dimSources.push_back(v.sourceDim);
  for (const tma::MapValue &v : plan.globalStrides) {
    strideSources.push_back(v.sourceDim);
    strideScales.push_back(v.isStatic() ? 1 : v.scale);
  }
  return TensorMapPlanAttr::get(
      ctx, /*param=*/0, globalArg, cuda::dataTypeName(plan.map.dataType),
      DenseI64ArrayAttr::get(ctx, plan.encodeArguments()),
      DenseI64ArrayAttr::get(ctx, dimSources),
      DenseI64ArrayAttr::get(ctx, strideSources),
      DenseI64ArrayAttr::get(ctx, strideScales), plan.bytesPerIssue,
      int64_t(plan.issues.size()), std::nullopt, std::nullopt);
}

LogicalResult prepareTMA(CopyAsyncOp copy, TMALowering &lowering,
                         const DispatchContext &, KernelABI &abi) {
  std::optional<unsigned> arg = globalKernelArg(copy);
  if (!arg)
    return copy.emitError()
           << "the global buffer of a tma copy must be a tile.from_memref of "
              "a kernel argument: the host encodes its tensor map";
  FailureOr<unsigned> param = abi.addTensorMapParam(
      copy, planAttr(copy.getContext(), lowering.plan, *arg));
  if (failed(param))
    return failure();
  lowering.mapParam = *param;
  // The memref dims whose runtime strides become the map's strides (the
  // host checks the whole map again when it encodes it).
  SmallVector<int64_t> strideDims;
  for (const tma::MapValue &v : lowering.plan.globalStrides)
    if (v.sourceDim >= 0)
      strideDims.push_back(v.sourceDim);
  Value global = isGlobalToShared(copy) ? copy.getSrc() : copy.getDst();
  return abi.requireAlignment(
      copy, global.getDefiningOp<FromMemrefOp>().getSource(),
      cuda::globalAlignmentBytes(lowering.plan.map.dataType,
                                 lowering.plan.map.interleave),
      "tma", strideDims);
}

LogicalResult emitTMA(CopyAsyncOp copy, const TMALowering &lowering,
                      ValueRange lowered, const DispatchContext &,
                      RewriterBase &rewriter) {
  auto kernel = copy->getParentOfType<gpu::GPUFuncOp>();
  emitIssues(copy, lowering.plan, kernel.getArgument(lowering.mapParam),
             lowered, rewriter);
  return success();
}

Verdict globalShared(CopyAsyncOp copy, const DispatchContext &) {
  if (isGlobalToShared(copy) || isSharedToGlobal(copy))
    return Verdict::success();
  return Verdict::failure(copy_async::direction(copy) +
                         "; tma copies global <-> shared");
}

Verdict completion(CopyAsyncOp copy, const DispatchContext &) {
  if (isGlobalToShared(copy) && !copy.getMbar())
    return Verdict::failure("a global -> shared tensor copy completes "
                           "on an mbarrier; give mbar(...)");
  if (isSharedToGlobal(copy) && copy.getMbar())
    return Verdict::failure("a shared -> global tensor copy completes "
                           "through bulk groups, not an mbarrier");
  return Verdict::success();
}

/// TMA reads and writes shared memory in boxes that start 128-byte aligned
/// (a swizzled box on its pattern's period, which the planner checks
/// against the buffer's start): the buffer itself must be at least that
/// aligned. A smaller explicit `alignment` faults on the GPU.
Verdict sharedAlignment(CopyAsyncOp copy, const DispatchContext &) {
  Value shared = isGlobalToShared(copy) ? copy.getDst() : copy.getSrc();
  auto alloc = shared.getDefiningOp<AllocSharedOp>();
  if (!alloc || alloc.getEffectiveAlignment() >= 128)
    return Verdict::success();
  return Verdict::failure("the shared tile is aligned to " +
                          std::to_string(alloc.getEffectiveAlignment()) +
                          " bytes; TMA boxes start 128-byte aligned");
}

/// A load or store, or a reduction; with .cta_group when asked for.
SmallVector<cuda::InstructionFamily, 2> tmaFamilies(CopyAsyncOp copy) {
  SmallVector<cuda::InstructionFamily, 2> families = {
      copy.getReduce() ? cuda::InstructionFamily::BulkTensorReduce
                       : cuda::InstructionFamily::BulkTensorCopy};
  if (copy.getCtaGroup())
    families.push_back(cuda::InstructionFamily::BulkTensorCopyCtaGroup);
  BufferType shared =
      isGlobalToShared(copy) ? copy.getDstType() : copy.getSrcType();
  if (LayoutAttr layout = shared.getLayout())
    if (classifyNvmmaSwizzle(layout.getSwizzle(), shared.getElementBits()) ==
        SwizzleMode::B128Atom32B)
      families.push_back(cuda::InstructionFamily::TensorMapSwizzleAtom32B);
  return families;
}

bool isAtom32B(cuda::InstructionFamily family) {
  return family == cuda::InstructionFamily::TensorMapSwizzleAtom32B;
}

bool isCtaGroup(cuda::InstructionFamily family) {
  return family == cuda::InstructionFamily::BulkTensorCopyCtaGroup;
}

OpPredicate<CopyAsyncOp> tmaTarget() {
  return targetPredicate<CopyAsyncOp>(
      "tma_target", tmaFamilies,
      [](cuda::InstructionFamily f) { return !isCtaGroup(f) && !isAtom32B(f); },
      [](const TargetInfo &target, cuda::InstructionFamily) {
        return target.chip + " has no tensor memory accelerator (sm_90+)";
      });
}

OpPredicate<CopyAsyncOp> ctaGroupTarget() {
  return targetPredicate<CopyAsyncOp>(
      "cta_group_target", tmaFamilies, isCtaGroup,
      [](const TargetInfo &target, cuda::InstructionFamily family) {
        return needsOneOf("cta_group", target, family);
      });
}

OpPredicate<CopyAsyncOp> swizzleTarget() {
  return targetPredicate<CopyAsyncOp>(
      "swizzle_target", tmaFamilies, isAtom32B,
      [](const TargetInfo &target, cuda::InstructionFamily family) {
        return needsOneOf("the 128-byte swizzle of 32-byte atoms "
                          "(CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B)",
                          target, family);
      });
}

} // namespace

void tile::registerTMAVariant(VariantRegistry &registry) {
  // The only variant with a kernel-ABI step: its tensor-map parameter.
  registerVariant(registry, VariantDecl<CopyAsyncOp, TMALowering>{
                                "tma", kTMAPriority,
                                {{"global_shared", globalShared},
                                 copy_async::singleThread("tensor copies"),
                                 {"completion", completion},
                                 {"shared_alignment", sharedAlignment},
                                 tmaTarget(), ctaGroupTarget(),
                                 swizzleTarget()},
                                planTMA, prepareTMA, emitTMA, tmaFamilies});
}

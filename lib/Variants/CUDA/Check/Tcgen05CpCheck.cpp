//===- Tcgen05CpCheck.cpp - translation validation of tcgen05_cp ----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads every emitted nvvm.tcgen05.cp back: shape, multicast, source format
// and cta_group from its attributes, the descriptor word and tensor-memory
// address by evaluating their operands with the shared tile at kSharedBase
// and the tensor-memory tile at kTmemBase; the model says which byte lands
// where, compared with the op's two layouts (plan_check word-level check).
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"

#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;
namespace model = tile::cuda::model;

namespace {

std::optional<cuda::Tcgen05CpShape> shapeOf(NVVM::Tcgen05CpShape s) {
  using S = cuda::Tcgen05CpShape;
  switch (s) {
  case NVVM::Tcgen05CpShape::SHAPE_128x256b: return S::S128x256b;
  case NVVM::Tcgen05CpShape::SHAPE_4x256b: return S::S4x256b;
  case NVVM::Tcgen05CpShape::SHAPE_128x128b: return S::S128x128b;
  case NVVM::Tcgen05CpShape::SHAPE_64x128b: return S::S64x128b;
  case NVVM::Tcgen05CpShape::SHAPE_32x128b: return S::S32x128b;
  }
  return std::nullopt;
}

cuda::Tcgen05CpMulticast multicastOf(NVVM::Tcgen05CpMulticast m) {
  using M = cuda::Tcgen05CpMulticast;
  switch (m) {
  case NVVM::Tcgen05CpMulticast::WARPX2_02_13: return M::Warpx2_02_13;
  case NVVM::Tcgen05CpMulticast::WARPX2_01_23: return M::Warpx2_01_23;
  case NVVM::Tcgen05CpMulticast::WARPX4: return M::Warpx4;
  case NVVM::Tcgen05CpMulticast::NONE: break;
  }
  return M::None;
}

cuda::Tcgen05CpSourceFormat formatOf(NVVM::Tcgen05CpSrcFormatAttr f) {
  if (!f)
    return cuda::Tcgen05CpSourceFormat::None;
  return f.getValue() == NVVM::Tcgen05CpSrcFormat::B6x16_P32
             ? cuda::Tcgen05CpSourceFormat::B6x16P32
             : cuda::Tcgen05CpSourceFormat::B4x16P64;
}

/// The op's source format as the emitted one must be.
cuda::Tcgen05CpSourceFormat wantedFormat(CopyAsyncOp copy) {
  std::optional<CpSourceFormat> f = copy.getSrcFormat();
  if (!f)
    return cuda::Tcgen05CpSourceFormat::None;
  return *f == CpSourceFormat::b6x16_p32 ? cuda::Tcgen05CpSourceFormat::B6x16P32
                                          : cuda::Tcgen05CpSourceFormat::B4x16P64;
}

/// One emitted tcgen05.cp as the model's instruction; its attributes must
/// be the op's (cta_group, source format).
OrReason<model::CpInstruction> readCp(CopyAsyncOp copy, NVVM::Tcgen05CpOp cp,
                                      const EmittedValues &values) {
  using R = OrReason<model::CpInstruction>;
  model::CpInstruction mi;
  std::optional<cuda::Tcgen05CpShape> shape = shapeOf(cp.getShape());
  if (!shape)
    return R::failure("a tcgen05.cp shape the model does not know");
  mi.shape = *shape;
  mi.multicast = multicastOf(cp.getMulticast());
  mi.sourceFormat = formatOf(cp.getSrcFormatAttr());
  mi.ctaGroup = cp.getGroup() == NVVM::CTAGroupKind::CTA_2 ? 2 : 1;
  if (mi.ctaGroup != copy.getCtaGroup().value_or(1))
    return R::failure("a tcgen05.cp is emitted with cta_group " +
                      std::to_string(mi.ctaGroup) + "; the op asks for " +
                      std::to_string(copy.getCtaGroup().value_or(1)));
  if (mi.sourceFormat != wantedFormat(copy))
    return R::failure("a tcgen05.cp's source format is not the op's");
  OrReason<int64_t> taddr = valueOf(values, cp, cp.getTaddr(), "the address");
  if (!taddr)
    return R::failure(taddr.reason());
  OrReason<int64_t> desc =
      valueOf(values, cp, cp.getSmemDesc(), "the shared-memory descriptor");
  if (!desc)
    return R::failure(desc.reason());
  mi.tmemAddress = uint32_t(*taddr);
  mi.descriptor = uint64_t(*desc);
  return mi;
}

/// The op's sides, as the word-level check takes them.
OrReason<tcgen05_cp::Request> requestOf(CopyAsyncOp copy) {
  using R = OrReason<tcgen05_cp::Request>;
  const char *why = "the check needs static offsets";
  OrReason<copy_async::RegionSide> shared = copy_async::regionSide(
      copy.getSrcType(), copy.getSrcStaticOffsets(), copy.getSizes().size(),
      "the shared", why);
  if (!shared)
    return R::failure(shared.reason());
  OrReason<copy_async::RegionSide> tmem = copy_async::regionSide(
      copy.getDstType(), copy.getDstStaticOffsets(), copy.getSizes().size(),
      "the tensor-memory", why);
  if (!tmem)
    return R::failure(tmem.reason());
  tcgen05_cp::Request r;
  r.elementBits = copy.getSrcType().getElementBits();
  r.shared = *shared;
  r.tmem = *tmem;
  r.sizes.assign(copy.getSizes().begin(), copy.getSizes().end());
  return r;
}

} // namespace

LogicalResult lowering_check::checkTcgen05CpLowering(
    Operation *op, ValueRange lowered, ArrayRef<Operation *> emitted,
    const dispatch::DispatchContext &) {
  auto copy = cast<CopyAsyncOp>(op);
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  OrReason<tcgen05_cp::Request> request = requestOf(copy);
  if (!request)
    return reportOn(op, "tcgen05_cp", Status::failure(request.reason()));
  EmittedValues values;
  values.bind(adaptor.getSrc(), kSharedBase);
  values.bind(adaptor.getDst(), kTmemBase);
  std::vector<model::CpInstruction> insts;
  Status read = runEmitted(emitted, values, [&](Operation *inst) -> Status {
    auto cp = dyn_cast<NVVM::Tcgen05CpOp>(inst);
    if (!cp)
      return unexpectedInstruction(inst);
    OrReason<model::CpInstruction> mi = readCp(copy, cp, values);
    if (!mi)
      return Status::failure(mi.reason());
    insts.push_back(*mi);
    return Status::success();
  });
  if (!read)
    return reportOn(op, "tcgen05_cp", read);
  plan_check::Placement placement{kSharedBase, kTmemBase};
  return reportOn(op, "tcgen05_cp",
                  plan_check::checkTcgen05CpWords(
                      *request, insts, placement, {"tcgen05.cp", true}));
}

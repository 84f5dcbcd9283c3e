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
// per planned copy. The whole variant is declared here (predicates, the
// op -> planner request, the NVVM emitter); the planner itself is pure
// (DSMEMPlanner.cpp).
//
//===----------------------------------------------------------------------===//

#include "../TargetPredicate.h"
#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/CopyAsync/DSMEMPlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using NVVM::NVVMMemorySpace;

namespace {

/// The planner's request: both sides' layouts and static regions.
OrReason<dsmem::Plan> planDSMEM(CopyAsyncOp copy, const DispatchContext &) {
  using R = OrReason<dsmem::Plan>;
  const char *why = "the dsmem planner needs static offsets";
  OrReason<copy_async::RegionSide> src = copy_async::regionSide(
      copy.getSrcType(), copy.getSrcStaticOffsets(), copy.getSizes().size(),
      "source", why);
  if (!src)
    return R::failure(src.reason());
  OrReason<copy_async::RegionSide> dst = copy_async::regionSide(
      copy.getDstType(), copy.getDstStaticOffsets(), copy.getSizes().size(),
      "destination", why);
  if (!dst)
    return R::failure(dst.reason());
  return dsmem::planClusterCopy(*src, *dst, copy.getSizes(),
                                copy.getSrcType().getElementBits());
}

/// `plan` before `op`: mapa of the destination tile and mbarrier into
/// `remote_cta`, then one bulk copy per planned copy (a loop per run of
/// equally spaced copies).
LogicalResult emitDSMEM(CopyAsyncOp op, const dsmem::Plan &plan,
                        ValueRange lowered, const DispatchContext &,
                        RewriterBase &rewriter) {
  CopyAsyncOp::Adaptor adaptor(lowered, op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto clusterPtr = LLVM::LLVMPointerType::get(
      ctx, unsigned(NVVMMemorySpace::SharedCluster));
  auto sharedPtr =
      LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Shared));
  Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();

  Value src = adaptor.getSrc();
  Value peer = adaptor.getRemoteCta();
  Value dst = NVVM::MapaOp::create(rewriter, loc, clusterPtr, adaptor.getDst(),
                                   peer);
  Value peerBar = NVVM::MapaOp::create(rewriter, loc, clusterPtr,
                                       adaptor.getMbar(), peer);
  Value barBits = LLVM::PtrToIntOp::create(rewriter, loc, i32, peerBar);
  Value bar = LLVM::IntToPtrOp::create(rewriter, loc, sharedPtr, barBits);

  auto i32Const = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  auto issue = [&](LLVM::GEPArg srcByte, LLVM::GEPArg dstByte, Value bytes) {
    Value from = LLVM::GEPOp::create(rewriter, loc, sharedPtr, i8, src,
                                     ArrayRef<LLVM::GEPArg>{srcByte});
    Value to = LLVM::GEPOp::create(rewriter, loc, clusterPtr, i8, dst,
                                   ArrayRef<LLVM::GEPArg>{dstByte});
    NVVM::CpAsyncBulkSharedCTAToSharedClusterOp::create(rewriter, loc, to, from,
                                                        bar, bytes);
  };
  // Shared-memory byte offsets stay far below 2^31 (the planner caps a
  // region at 2^20 elements), so they fit GEP's static i32 indices.
  auto staticByte = [](int64_t v) {
    return LLVM::GEPArg(static_cast<int32_t>(v));
  };

  for (const dsmem::CopyRun &run : dsmem::groupIntoRuns(plan.copies)) {
    Value bytes = i32Const(run.first.bytes);
    if (run.count == 1) {
      issue(staticByte(run.first.srcByte), staticByte(run.first.dstByte),
            bytes);
      continue;
    }
    // One loop per run keeps large strided regions compact in the PTX.
    Value lower = i32Const(0);
    Value upper = i32Const(run.count);
    Value step = i32Const(1);
    auto loop = scf::ForOp::create(rewriter, loc, lower, upper, step);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    Value i = loop.getInductionVar();
    auto at = [&](int64_t start, int64_t stride) -> Value {
      Value scaled = arith::MulIOp::create(rewriter, loc, i, i32Const(stride));
      if (start == 0)
        return scaled;
      return arith::AddIOp::create(rewriter, loc, scaled, i32Const(start));
    };
    Value srcByte = at(run.first.srcByte, run.srcStride);
    Value dstByte = at(run.first.dstByte, run.dstStride);
    issue(srcByte, dstByte, bytes);
  }
  return success();
}

Verdict sharedToShared(CopyAsyncOp copy, const DispatchContext &) {
  if (copy.getSrcType().getScope() == MemoryScope::shared &&
      copy.getDstType().getScope() == MemoryScope::shared)
    return Verdict::success();
  return Verdict::failure(copy_async::direction(copy) +
                         "; dsmem copies shared -> shared");
}

Verdict hasRemoteCta(CopyAsyncOp copy, const DispatchContext &) {
  if (copy.getRemoteCta())
    return Verdict::success();
  return Verdict::failure(
      "no remote_cta operand: the destination CTA's rank is needed");
}

Verdict hasMbar(CopyAsyncOp copy, const DispatchContext &) {
  if (copy.getMbar())
    return Verdict::success();
  return Verdict::failure("no mbar operand: the destination CTA's "
                         "mbarrier tracks completion");
}

Verdict supportedConfig(CopyAsyncOp copy, const DispatchContext &) {
  std::string unused;
  if (copy.getCacheHint())
    unused += "cache_hint";
  if (copy.getCtaGroup())
    unused += std::string(unused.empty() ? "" : ", ") + "cta_group";
  if (unused.empty())
    return Verdict::success();
  return Verdict::failure(unused + " given; shared::cta -> "
                                  "shared::cluster bulk copies take neither");
}

SmallVector<cuda::InstructionFamily, 2> dsmemFamilies(CopyAsyncOp) {
  return {cuda::InstructionFamily::BulkCopyCluster};
}

OpPredicate<CopyAsyncOp> clusterTarget() {
  return targetPredicate<CopyAsyncOp>(
      "cluster_target", dsmemFamilies,
      [](cuda::InstructionFamily) { return true; },
      [](const TargetInfo &target, cuda::InstructionFamily) {
        return target.chip + " has no thread-block clusters (sm_90+)";
      });
}

} // namespace

void tile::registerDSMEMVariant(VariantRegistry &registry) {
  registerVariant(
      registry,
      VariantDecl<CopyAsyncOp, dsmem::Plan>{
          "dsmem", kDSMEMPriority,
          {{"shared_to_shared", sharedToShared},
           copy_async::singleThread("bulk copies"),
           {"has_remote_cta", hasRemoteCta}, {"has_mbar", hasMbar},
           {"supported_config", supportedConfig},
           clusterTarget()},
          planDSMEM, /*prepare=*/nullptr, emitDSMEM, dsmemFamilies});
}

//===- SyncOpsToNVVM.cpp - barriers, tensor memory, completion -> NVVM ----===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The synchronization ops of TileSyncOps.td become NVVM ops (and gpu.barrier
// where they synchronize the CTA). A barrier of an !nvgpu.mbarrier.group is
// addressed through nvgpu.mbarrier.get, which --convert-nvgpu-to-nvvm lowers
// with the group itself.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "tile/Dialect/Tile/IR/LocalTiles.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace tile;
using NVVM::NVVMMemorySpace;

Value tile::barrierAddress(OpBuilder &builder, Location loc, Value barrier,
                           Value index) {
  auto group = dyn_cast<nvgpu::MBarrierGroupType>(barrier.getType());
  if (!group)
    return barrier;
  Value address = nvgpu::MBarrierGetOp::create(
      builder, loc, builder.getI64Type(), barrier, index);
  return LLVM::IntToPtrOp::create(
      builder, loc,
      LLVM::LLVMPointerType::get(builder.getContext(),
                                 unsigned(NVVMMemorySpace::Shared)),
      address);
}

namespace {

NVVM::CTAGroupKind ctaGroupKind(std::optional<uint32_t> group) {
  return group.value_or(1) == 2 ? NVVM::CTAGroupKind::CTA_2
                                : NVVM::CTAGroupKind::CTA_1;
}

/// `scf.if (warp index == warp)` around what `body` builds. The warp index
/// is the linear thread index / 32, uniform across the warp.
void inWarp(OpBuilder &builder, Location loc, uint32_t warp,
            llvm::function_ref<void(OpBuilder &)> body) {
  Value x = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value y = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::y);
  Value z = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::z);
  Value dx = gpu::BlockDimOp::create(builder, loc, gpu::Dimension::x);
  Value dy = gpu::BlockDimOp::create(builder, loc, gpu::Dimension::y);
  Value zy = arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, z, dy), y);
  Value linear = arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, zy, dx), x);
  Value warpIndex = arith::DivUIOp::create(
      builder, loc, linear, arith::ConstantIndexOp::create(builder, loc, 32));
  Value isWarp = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, warpIndex,
      arith::ConstantIndexOp::create(builder, loc, warp));
  auto ifOp = scf::IfOp::create(builder, loc, isWarp, /*else=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  body(builder);
}

/// tcgen05 fence, CTA barrier, tcgen05 fence: what one thread's tcgen05
/// work (or allocation) must be ordered by before another thread relies on
/// it.
void fencedCtaBarrier(OpBuilder &builder, Location loc, bool fenceAfter) {
  NVVM::Tcgen05FenceOp::create(builder, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(builder, loc);
  if (fenceAfter)
    NVVM::Tcgen05FenceOp::create(builder, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
}

/// A 4-byte shared slot for one allocation's address, next to the function.
FailureOr<Value> allocationSlot(Operation *op, OpBuilder &builder) {
  Operation *table = SymbolTable::getNearestSymbolTable(op);
  if (!table)
    return failure();
  std::string name;
  for (unsigned n = 0;; ++n) {
    name = "__tile_tmem_slot_" + std::to_string(n);
    if (!SymbolTable::lookupSymbolIn(table, name))
      break;
  }
  {
    OpBuilder::InsertionGuard guard(builder);
    Operation *owner = op;
    while (owner->getParentOp() != table)
      owner = owner->getParentOp();
    builder.setInsertionPoint(owner);
    LLVM::GlobalOp::create(builder, op->getLoc(), builder.getI32Type(),
                           /*isConstant=*/false, LLVM::Linkage::Internal, name,
                           /*value=*/Attribute(), /*alignment=*/4,
                           unsigned(NVVMMemorySpace::Shared));
  }
  return LLVM::AddressOfOp::create(
             builder, op->getLoc(),
             LLVM::LLVMPointerType::get(builder.getContext(),
                                        unsigned(NVVMMemorySpace::Shared)),
             name)
      .getResult();
}

struct TmemAllocLowering : OpConversionPattern<TmemAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmemAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> slot = allocationSlot(op, rewriter);
    if (failed(slot))
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
    NVVM::CTAGroupKind group = ctaGroupKind(op.getCtaGroup());
    inWarp(rewriter, loc, op.getWarp(), [&](OpBuilder &b) {
      Value columns = arith::ConstantIntOp::create(b, loc, op.getColumns(), 32);
      NVVM::Tcgen05AllocOp::create(b, loc, *slot, columns, group);
      if (op.getRelinquish())
        NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, group);
    });
    fencedCtaBarrier(rewriter, loc, /*fenceAfter=*/true);
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, rewriter.getI32Type(), *slot);
    return success();
  }
};

struct TmemDeallocLowering : OpConversionPattern<TmemDeallocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmemDeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    fencedCtaBarrier(rewriter, loc, /*fenceAfter=*/false);
    NVVM::CTAGroupKind group = ctaGroupKind(op.getCtaGroup());
    inWarp(rewriter, loc, op.getWarp(), [&](OpBuilder &b) {
      Value base = LLVM::IntToPtrOp::create(
          b, loc,
          LLVM::LLVMPointerType::get(b.getContext(),
                                     unsigned(NVVMMemorySpace::Tensor)),
          adaptor.getAddress());
      Value columns = arith::ConstantIntOp::create(b, loc, op.getColumns(), 32);
      NVVM::Tcgen05DeallocOp::create(b, loc, base, columns, group);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct MmaCommitLowering : OpConversionPattern<MmaCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaCommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder::InsertionGuard guard(rewriter);
    if (op.getExec() == ExecScope::warp) {
      Value elected = NVVM::ElectSyncOp::create(
          rewriter, loc, rewriter.getI1Type(), Value());
      auto ifOp = scf::IfOp::create(rewriter, loc, elected, /*else=*/false);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    Value barrier = barrierAddress(rewriter, loc, adaptor.getMbar(),
                                   adaptor.getMbarIndex());
    NVVM::Tcgen05CommitOp::create(rewriter, loc, barrier, adaptor.getCtaMask(),
                                  ctaGroupKind(op.getCtaGroup()));
    rewriter.eraseOp(op);
    return success();
  }
};

struct CommitGroupLowering : OpConversionPattern<CommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    switch (op.getGroup()) {
    case AsyncGroup::bulk:
      rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkCommitGroupOp>(op);
      break;
    case AsyncGroup::wgmma:
      rewriter.replaceOpWithNewOp<NVVM::WgmmaGroupSyncAlignedOp>(op);
      break;
    case AsyncGroup::cp_async:
      rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
      break;
    }
    return success();
  }
};

struct WaitGroupLowering : OpConversionPattern<WaitGroupOp> {
  WaitGroupLowering(const TypeConverter &converter, MLIRContext *ctx,
                    const WgmmaAccumulators *waited)
      : OpConversionPattern(converter, ctx), waited(waited) {}

  /// After a wgmma wait, the accumulator tiles' registers pinned: their
  /// values are the wait's from here on, so LLVM cannot hoist a read of
  /// an MMA result above the wait (ptxas would then wait for every MMA in
  /// flight there, serializing the pipeline).
  void pinAccumulators(WaitGroupOp op,
                       ConversionPatternRewriter &rewriter) const {
    if (!waited)
      return;
    auto it = waited->find(op);
    if (it == waited->end())
      return;
    for (Value tile : it->second) {
      Value lowered = rewriter.getRemappedValue(tile);
      if (!lowered || !isa<LLVM::LLVMPointerType>(lowered.getType()))
        continue;
      auto type = cast<BufferType>(tile.getType());
      // 32-bit registers one by one, 16-bit ones in pairs (8-bit skipped).
      pinLocalTile(rewriter, op.getLoc(), lowered,
                   registerStorageType(type.getElementType()),
                   type.getEffectiveLayout()->cosize(Axis::m));
    }
  }

  LogicalResult
  matchAndRewrite(WaitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    switch (op.getGroup()) {
    case AsyncGroup::bulk:
      rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
          op, rewriter.getI32IntegerAttr(op.getPending()),
          op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
      break;
    case AsyncGroup::wgmma:
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, op.getLoc(),
                                         op.getPending());
      pinAccumulators(op, rewriter);
      rewriter.eraseOp(op);
      break;
    case AsyncGroup::cp_async:
      rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op,
                                                            op.getPending());
      break;
    }
    return success();
  }

  const WgmmaAccumulators *waited;
};

struct FenceLowering : OpConversionPattern<FenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    switch (op.getKind()) {
    case FenceKind::proxy_async:
      rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
          op, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(op.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      break;
    case FenceKind::before_thread_sync:
      rewriter.replaceOpWithNewOp<NVVM::Tcgen05FenceOp>(
          op, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
      break;
    case FenceKind::after_thread_sync:
      rewriter.replaceOpWithNewOp<NVVM::Tcgen05FenceOp>(
          op, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      break;
    case FenceKind::mbarrier_init:
      rewriter.replaceOpWithNewOp<NVVM::FenceMbarrierInitOp>(op);
      break;
    }
    return success();
  }
};

/// bar.sync / bar.arrive with the op's id and thread count.
struct NamedBarrierLowering : OpConversionPattern<NamedBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getArrive())
      rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(
          op, adaptor.getId(), adaptor.getThreads());
    else
      rewriter.replaceOpWithNewOp<NVVM::BarrierOp>(
          op, Type(), adaptor.getId(), adaptor.getThreads(),
          NVVM::BarrierReductionAttr(), Value());
    return success();
  }
};

struct MBarrierArriveRemoteLowering
    : OpConversionPattern<MBarrierArriveRemoteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveRemoteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value local = barrierAddress(rewriter, loc, adaptor.getMbar(),
                                 adaptor.getMbarIndex());
    auto clusterPtr = LLVM::LLVMPointerType::get(
        rewriter.getContext(), unsigned(NVVMMemorySpace::SharedCluster));
    Value remote =
        NVVM::MapaOp::create(rewriter, loc, clusterPtr, local, adaptor.getCta());
    // Cluster scope unless `scope cta` (see the op's description: ptxas
    // puts a GPU-scope memory barrier before a cluster-scope release).
    NVVM::MemScopeKind scope = op.getScope() == ExecScope::cta
                                   ? NVVM::MemScopeKind::CTA
                                   : NVVM::MemScopeKind::CLUSTER;
    NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), remote,
                                   adaptor.getCount(), scope,
                                   /*relaxed=*/false);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tile::populateTileSyncToNVVMPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const WgmmaAccumulators *waited) {
  patterns.add<TmemAllocLowering, TmemDeallocLowering, MmaCommitLowering,
               CommitGroupLowering, FenceLowering,
               MBarrierArriveRemoteLowering, NamedBarrierLowering>(
      converter, patterns.getContext());
  patterns.add<WaitGroupLowering>(converter, patterns.getContext(), waited);
}

WgmmaAccumulators tile::collectWgmmaAccumulators(Operation *root) {
  WgmmaAccumulators out;
  root->walk([&](FunctionOpInterface func) {
    SetVector<Value> accumulators;
    func.walk([&](GemmAsyncOp gemm) {
      if (gemm.getC().getType().getScope() == MemoryScope::local)
        accumulators.insert(gemm.getC());
    });
    if (accumulators.empty())
      return;
    DominanceInfo dominance(func);
    func.walk([&](WaitGroupOp wait) {
      if (wait.getGroup() != AsyncGroup::wgmma)
        return;
      SmallVector<Value> &tiles = out[wait];
      for (Value tile : accumulators)
        if (dominance.properlyDominates(tile, wait))
          tiles.push_back(tile);
    });
  });
  return out;
}

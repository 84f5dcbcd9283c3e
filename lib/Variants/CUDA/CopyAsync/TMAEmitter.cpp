//===- TMAEmitter.cpp - tma plan -> NVVM ------------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// PTX ISA "cp.async.bulk.tensor" and "cp.reduce.async.bulk.tensor", tiled
// mode. g2s writes shared::cluster addresses (the box's shared address is
// cast 3 -> 7) and signals the mbarrier with complete_tx::bytes; the caller
// arms it with the plan's bytes and waits. s2g / reduce complete through
// bulk groups the caller commits and waits on.
//
//===----------------------------------------------------------------------===//

#include "TMA.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tile;

void tma::emitPlan(CopyAsyncOp op, const Plan &plan, Value map,
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

  for (const Issue &issue : plan.issues) {
    SmallVector<Value, 5> coords;
    for (const Coordinate &c : issue.coords) {
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
        rewriter, loc, LLVM::LLVMPointerType::get(ctx, 3),
        rewriter.getI8Type(), shared,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(issue.sharedByte)});
    if (load) {
      Value clusterBox = LLVM::AddrSpaceCastOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(ctx, 7), box);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, clusterBox, map, coords, adaptor.getMbar(),
          /*im2colOffsets=*/ValueRange(), adaptor.getCtaMask(),
          adaptor.getCacheHint(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, group, /*predicate=*/Value());
    } else if (std::optional<ReduceKind> reduce = op.getReduce()) {
      // The tile and NVVM reduction enums share their order (add .. xor).
      NVVM::CpAsyncBulkTensorReduceOp::create(
          rewriter, loc, map, box,
          static_cast<NVVM::TMAReduxKind>(static_cast<uint32_t>(*reduce)),
          NVVM::TMAStoreMode::TILE, coords, adaptor.getCacheHint());
    } else {
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, map, box, coords, adaptor.getCacheHint(),
          NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
    }
  }
}

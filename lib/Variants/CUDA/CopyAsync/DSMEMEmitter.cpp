//===- DSMEMEmitter.cpp - dsmem plan -> NVVM --------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// PTX ISA "Data Movement and Conversion Instructions: cp.async.bulk" and
// "mapa". The destination tile and the destination CTA's mbarrier are both
// mapped into the peer CTA (shared::cluster); the copies signal that CTA's
// barrier with complete_tx::bytes. Nothing waits here: the receiving CTA
// arms its barrier with the plan's total bytes and waits on it.
//
// NVVM 22 types the mbarrier operand as !llvm.ptr<3> although the hardware
// wants the mapped shared::cluster address; the mapped address is passed
// through i32 (shared::cluster addresses are 32-bit), which is what ptxas
// receives either way.
//
//===----------------------------------------------------------------------===//

#include "DSMEM.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tile;

void dsmem::emitPlan(CopyAsyncOp op, const Plan &plan, ValueRange lowered,
                     RewriterBase &rewriter) {
  CopyAsyncOp::Adaptor adaptor(lowered, op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto clusterPtr = LLVM::LLVMPointerType::get(ctx, 7);
  auto sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
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

  for (const CopyRun &run : groupIntoRuns(plan.copies)) {
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
}

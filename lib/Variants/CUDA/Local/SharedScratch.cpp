//===- SharedScratch.cpp - register-tile ops through shared scratch -------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "SharedScratch.h"

#include "tile/Dispatch/KernelABI.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tile;
using namespace tile::local;

namespace {
/// Named barriers are ids 0-15; the scratch's take the top ones.
constexpr int64_t kMaxScratchWarpgroups = 16 - dispatch::kScratchBarrierFirstId;
} // namespace

std::optional<int64_t> tile::local::warpgroupsOfBlock(Operation *op) {
  // The scratch lives in a kernel's dynamic segment: a device function has
  // none.
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  if (!kernel || !kernel.isKernel())
    return std::nullopt;
  std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize();
  if (!block || block->size() != 3 || (*block)[1] != 1 || (*block)[2] != 1 ||
      (*block)[0] % 128 != 0 || (*block)[0] == 0)
    return std::nullopt;
  return (*block)[0] / 128;
}

dispatch::Verdict tile::local::warpgroupBlock(Operation *op) {
  using dispatch::Verdict;
  std::optional<int64_t> groups = warpgroupsOfBlock(op);
  if (!groups)
    return Verdict::failure(
        "needs a kernel (gpu.func ... kernel) whose known_block_size is "
        "whole warpgroups along x (y = z = 1): each warpgroup gets its own "
        "scratch and barrier");
  if (*groups > kMaxScratchWarpgroups)
    return Verdict::failure(
        std::to_string(*groups) + " warpgroups; named barriers " +
        std::to_string(dispatch::kScratchBarrierFirstId) + "-15 serve " +
        std::to_string(kMaxScratchWarpgroups) + " at most");
  return Verdict::success();
}

FailureOr<ScratchFrame> ScratchFrame::begin(OpBuilder &b, Operation *op,
                                            int64_t bytesPerWarpgroup) {
  ScratchFrame frame(b, op->getLoc());
  FailureOr<Value> scratch = dispatch::sharedScratchAddress(b, op);
  if (failed(scratch))
    return failure();
  frame.scratch = *scratch;
  Value tid = NVVM::ThreadIdXOp::create(b, frame.loc, b.getI32Type());
  frame.inGroup = LLVM::AndOp::create(b, frame.loc, tid, frame.constant(127));
  frame.warpgroup = LLVM::LShrOp::create(b, frame.loc, tid, frame.constant(7));
  frame.region = LLVM::MulOp::create(b, frame.loc, frame.warpgroup,
                                     frame.constant(bytesPerWarpgroup));
  frame.barrierId = LLVM::AddOp::create(
      b, frame.loc, frame.warpgroup,
      frame.constant(dispatch::kScratchBarrierFirstId));
  frame.participants = frame.constant(128);
  return frame;
}

Value ScratchFrame::constant(int64_t v) {
  return LLVM::ConstantOp::create(*b, loc, b->getI32Type(),
                                  b->getI32IntegerAttr(v));
}

Value ScratchFrame::weightedThreadBits(
    ArrayRef<std::pair<int, int64_t>> bits) {
  Value sum = constant(0);
  for (auto [bit, weight] : bits) {
    if (weight == 0)
      continue;
    Value shifted = LLVM::LShrOp::create(*b, loc, inGroup, constant(bit));
    Value isSet = LLVM::AndOp::create(*b, loc, shifted, constant(1));
    sum = LLVM::AddOp::create(
        *b, loc, sum, LLVM::MulOp::create(*b, loc, isSet, constant(weight)));
  }
  return sum;
}

Value ScratchFrame::address(int64_t base, ArrayRef<int64_t> threadStep,
                            int64_t elementBytes, Value extraBytes) {
  SmallVector<std::pair<int, int64_t>> bits;
  for (auto [bit, step] : llvm::enumerate(threadStep))
    bits.push_back({int(bit), step * elementBytes});
  Value bytes = LLVM::AddOp::create(*b, loc, region, weightedThreadBits(bits));
  bytes = LLVM::AddOp::create(*b, loc, bytes, constant(base * elementBytes));
  if (extraBytes)
    bytes = LLVM::AddOp::create(*b, loc, bytes, extraBytes);
  return LLVM::GEPOp::create(*b, loc, scratch.getType(), b->getI8Type(),
                             scratch, ArrayRef<LLVM::GEPArg>{bytes});
}

Value ScratchFrame::noBitsOf(int64_t mask) {
  return LLVM::ICmpOp::create(
      *b, loc, LLVM::ICmpPredicate::eq,
      LLVM::AndOp::create(*b, loc, inGroup, constant(mask)), constant(0));
}

void ScratchFrame::barrier() {
  NVVM::BarrierOp::create(*b, loc, Type(), barrierId, participants,
                          NVVM::BarrierReductionAttr(), Value());
}

//===- Reduce.cpp - the in_thread and warp_shuffle variants of tile.reduce ===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Per output register: the thread's input registers of the row combined as
// a pairwise tree, then (warp_shuffle) one `shfl.sync.bfly` and combine per
// lane bit the row spans, so every lane of the row ends with the whole
// reduction. in_thread wins where it applies (no shuffle at all).
// shared_memory takes rows spanning the warps of a warpgroup: one lane per
// warp and row writes the warp's partial to the kernel's shared scratch,
// the warpgroup meets at a named barrier, and every thread of the row
// combines the warps' partials in the same order (so every replica holds
// the same bits); a second barrier frees the scratch for the next op.
//
//===----------------------------------------------------------------------===//

#include "LocalCommon.h"
#include "SharedScratch.h"

#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using namespace tile::local;

namespace {

OrReason<ReducePlan> planReduceOp(ReduceOp op, bool allowLanes,
                                  bool allowWarps = false) {
  using R = OrReason<ReducePlan>;
  OrReason<RegisterTable> input = tableOf(op.getInput().getType());
  if (!input)
    return R::failure("input: " + input.reason());
  OrReason<RegisterTable> output = tableOf(op.getOutput().getType());
  if (!output)
    return R::failure("output: " + output.reason());
  return planReduce(*input, *output, op.getDims(), allowLanes, allowWarps);
}

/// a `kind` b (floats: maxNum / minNum; integers signed).
Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::add:
    return isFloat ? LLVM::FAddOp::create(b, loc, x, y).getResult()
                   : LLVM::AddOp::create(b, loc, x, y).getResult();
  case ReduceKind::max:
    return isFloat ? LLVM::MaxNumOp::create(b, loc, x, y).getResult()
                   : LLVM::SMaxOp::create(b, loc, x.getType(), x, y)
                         .getResult();
  case ReduceKind::min:
    return isFloat ? LLVM::MinNumOp::create(b, loc, x, y).getResult()
                   : LLVM::SMinOp::create(b, loc, x.getType(), x, y)
                         .getResult();
  case ReduceKind::and_:
    return LLVM::AndOp::create(b, loc, x, y);
  case ReduceKind::or_:
    return LLVM::OrOp::create(b, loc, x, y);
  default:
    return LLVM::XOrOp::create(b, loc, x, y);
  }
}

/// The values combined as a pairwise tree: fewer dependent steps, and a
/// better float sum.
Value combineTree(OpBuilder &b, Location loc, ReduceKind kind,
                  SmallVector<Value, 8> values) {
  while (values.size() > 1) {
    SmallVector<Value, 8> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(b, loc, kind, values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

/// A row's partial in this thread: its registers, then the lane
/// butterfly.
Value rowPartial(ReduceOp op, const ReducePlan &plan, const ReducePlan::Row &row,
                 const LocalTileAccess &input, OpBuilder &b) {
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  };
  SmallVector<Value, 8> values;
  for (int64_t r : row.inputRegisters)
    values.push_back(input.load(b, loc, r));
  Value v = combineTree(b, loc, op.getKind(), std::move(values));
  if (plan.laneMasks.empty())
    return v;
  Value all = constant(-1), clamp = constant(0x1f);
  for (int64_t mask : plan.laneMasks) {
    Value other =
        NVVM::ShflOp::create(b, loc, v.getType(), all, v, constant(mask),
                             clamp, NVVM::ShflKind::bfly, UnitAttr());
    v = combine(b, loc, op.getKind(), v, other);
  }
  return v;
}

LogicalResult emitReduce(ReduceOp op, const ReducePlan &plan,
                         ValueRange lowered, const DispatchContext &,
                         RewriterBase &rewriter) {
  LocalTileAccess input(lowered[0], op.getInput().getType());
  LocalTileAccess output(lowered[1], op.getOutput().getType());
  for (const ReducePlan::Row &row : plan.rows)
    output.store(rewriter, op.getLoc(),
                 rowPartial(op, plan, row, input, rewriter),
                 row.outputRegister);
  return success();
}

//===----------------------------------------------------------------------===//
// shared_memory: rows spanning warps
//===----------------------------------------------------------------------===//

Verdict reduceWarpgroupBlock(ReduceOp op, const DispatchContext &) {
  return warpgroupBlock(op);
}

OrReason<ReducePlan> planAcrossWarps(ReduceOp op, const DispatchContext &) {
  OrReason<ReducePlan> plan =
      planReduceOp(op, /*allowLanes=*/true, /*allowWarps=*/true);
  if (plan && plan->warpMasks.empty())
    return OrReason<ReducePlan>::failure(
        "every row stays within a warp: no shared memory needed");
  return plan;
}

int64_t scratchBytes(ReduceOp op, const ReducePlan &plan) {
  return plan.scratchWords * 4 * warpgroupsOfBlock(op).value_or(1);
}

LogicalResult emitAcrossWarps(ReduceOp op, const ReducePlan &plan,
                              ValueRange lowered, const DispatchContext &,
                              RewriterBase &rewriter) {
  Location loc = op.getLoc();
  FailureOr<ScratchFrame> frame =
      ScratchFrame::begin(rewriter, op, plan.scratchWords * 4);
  if (failed(frame))
    return failure();
  LocalTileAccess input(lowered[0], op.getInput().getType());
  LocalTileAccess output(lowered[1], op.getOutput().getType());
  SmallVector<Value> partials;
  for (const ReducePlan::Row &row : plan.rows)
    partials.push_back(rowPartial(op, plan, row, input, rewriter));
  // Word key * warpPartials() + the warp's index among the row's warps.
  SmallVector<std::pair<int, int64_t>> warpBits;
  for (auto [i, mask] : llvm::enumerate(plan.warpMasks))
    warpBits.push_back({llvm::Log2_64(mask), int64_t(4) << i});
  Value warpByte = frame->weightedThreadBits(warpBits);
  auto wordAddress = [&](const ReducePlan::Row &row, Value warp) {
    SmallVector<int64_t, 7> steps;
    for (int64_t step : row.key.threadStep)
      steps.push_back(step * plan.warpPartials());
    return frame->address(row.key.base * plan.warpPartials(), steps, 4, warp);
  };
  SmallVector<Value> writeAddresses;
  for (const ReducePlan::Row &row : plan.rows)
    writeAddresses.push_back(wordAddress(row, warpByte));
  // One lane per row and warp writes: the lanes of the butterfly hold the
  // same partial.
  int64_t laneBits = 0;
  for (int64_t mask : plan.laneMasks)
    laneBits |= mask;
  auto writers = scf::IfOp::create(rewriter, loc, frame->noBitsOf(laneBits),
                                   /*else=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&writers.getThenRegion().front());
    for (auto [address, v] : llvm::zip_equal(writeAddresses, partials))
      LLVM::StoreOp::create(rewriter, loc, v, address);
  }
  frame->barrier();
  Type element = partials.front().getType();
  SmallVector<Value> results;
  for (const ReducePlan::Row &row : plan.rows) {
    SmallVector<Value, 8> values;
    for (int64_t w = 0; w < plan.warpPartials(); ++w)
      values.push_back(LLVM::LoadOp::create(
          rewriter, loc, element, wordAddress(row, frame->constant(4 * w))));
    results.push_back(
        combineTree(rewriter, loc, op.getKind(), std::move(values)));
  }
  frame->barrier(); // the scratch is free for the next op
  for (auto [row, v] : llvm::zip_equal(plan.rows, results))
    output.store(rewriter, loc, v, row.outputRegister);
  return success();
}

Verdict element32Bit(ReduceOp op, const DispatchContext &) {
  Type element = op.getInput().getType().getElementType();
  if (element.isF32() || element.isInteger(32))
    return Verdict::success();
  std::string name;
  llvm::raw_string_ostream(name) << element;
  return Verdict::failure("shfl.sync moves 32-bit words; the elements are " +
                          name + " (reduce f32 or i32 across lanes)");
}

} // namespace

void tile::local::registerReduceVariants(VariantRegistry &registry) {
  registerVariant(registry,
                  VariantDecl<ReduceOp, ReducePlan>{
                      "in_thread",
                      kReduceInThreadPriority,
                      {},
                      [](ReduceOp op, const DispatchContext &) {
                        return planReduceOp(op, /*allowLanes=*/false);
                      },
                      /*prepare=*/nullptr,
                      emitReduce});
  registerVariant(registry,
                  VariantDecl<ReduceOp, ReducePlan>{
                      "warp_shuffle",
                      kReduceWarpShufflePriority,
                      {{"element_32_bit", element32Bit}},
                      [](ReduceOp op, const DispatchContext &) {
                        return planReduceOp(op, /*allowLanes=*/true);
                      },
                      /*prepare=*/nullptr,
                      emitReduce});
  VariantDecl<ReduceOp, ReducePlan> acrossWarps{
      "shared_memory",
      kReduceSharedMemoryPriority,
      {{"element_32_bit", element32Bit},
       {"warpgroup_block", reduceWarpgroupBlock}},
      planAcrossWarps,
      /*prepare=*/nullptr,
      emitAcrossWarps};
  acrossWarps.sharedScratch = scratchBytes;
  registerVariant(registry, std::move(acrossWarps));
}

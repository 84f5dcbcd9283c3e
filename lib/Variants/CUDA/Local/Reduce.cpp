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
//
//===----------------------------------------------------------------------===//

#include "LocalCommon.h"

#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using namespace tile::local;

namespace {

OrReason<ReducePlan> planReduceOp(ReduceOp op, bool allowLanes) {
  using R = OrReason<ReducePlan>;
  OrReason<RegisterTable> input = tableOf(op.getInput().getType());
  if (!input)
    return R::failure("input: " + input.reason());
  OrReason<RegisterTable> output = tableOf(op.getOutput().getType());
  if (!output)
    return R::failure("output: " + output.reason());
  return planReduce(*input, *output, op.getDims(), allowLanes);
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

LogicalResult emitReduce(ReduceOp op, const ReducePlan &plan,
                         ValueRange lowered, const DispatchContext &,
                         RewriterBase &rewriter) {
  Location loc = op.getLoc();
  LocalTileAccess input(lowered[0], op.getInput().getType());
  LocalTileAccess output(lowered[1], op.getOutput().getType());
  ReduceKind kind = op.getKind();
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(rewriter, loc, i32,
                                    rewriter.getI32IntegerAttr(v));
  };
  Value all, clamp;
  if (!plan.laneMasks.empty()) {
    all = constant(-1);
    clamp = constant(0x1f);
  }
  for (const ReducePlan::Row &row : plan.rows) {
    SmallVector<Value, 8> values;
    for (int64_t r : row.inputRegisters)
      values.push_back(input.load(rewriter, loc, r));
    // Pairwise tree: fewer dependent steps, and a better float sum.
    while (values.size() > 1) {
      SmallVector<Value, 8> next;
      for (size_t i = 0; i + 1 < values.size(); i += 2)
        next.push_back(combine(rewriter, loc, kind, values[i], values[i + 1]));
      if (values.size() % 2)
        next.push_back(values.back());
      values = std::move(next);
    }
    Value v = values.front();
    for (int64_t mask : plan.laneMasks) {
      Value other = NVVM::ShflOp::create(
          rewriter, loc, v.getType(), all, v, constant(mask), clamp,
          NVVM::ShflKind::bfly, UnitAttr());
      v = combine(rewriter, loc, kind, v, other);
    }
    output.store(rewriter, loc, v, row.outputRegister);
  }
  return success();
}

Verdict element32Bit(ReduceOp op, const DispatchContext &) {
  Type element = op.getInput().getType().getElementType();
  if (element.isF32() || element.isInteger(32))
    return Verdict::success();
  return Verdict::failure("shfl.sync moves 32-bit words; the elements are " +
                          [&] {
                            std::string s;
                            llvm::raw_string_ostream os(s);
                            os << element;
                            return s;
                          }() +
                          " (reduce f32 or i32 across lanes)");
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
}

//===- Map.cpp - the `registers` variant of tile.map ----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each thread runs the region once per output register it holds: the
// inputs' registers the planner names are loaded, the region's ops cloned
// on them (and on the element's coordinate: thread 0's plus one step per
// set bit of the thread index), and the yielded value stored. Fully
// unrolled, constant register indices: LLVM keeps everything in registers.
// A `where` guard: one scf.if per guard register, around the elements that
// read it (no else: they keep their value).
//
//===----------------------------------------------------------------------===//

#include "LocalCommon.h"

#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using namespace tile::local;

namespace {

bool usesCoordinates(MapOp op) {
  Block &body = op.getBody().front();
  for (BlockArgument arg : body.getArguments().drop_front(op.getInputs().size()))
    if (!arg.use_empty())
      return true;
  return false;
}

OrReason<MapPlan> planMapOp(MapOp op, const DispatchContext &) {
  using R = OrReason<MapPlan>;
  OrReason<RegisterTable> output = tableOf(op.getOutputType());
  if (!output)
    return R::failure("output: " + output.reason());
  SmallVector<RegisterTable> inputs;
  for (auto [k, input] : llvm::enumerate(op.getInputs())) {
    OrReason<RegisterTable> table = tableOf(cast<BufferType>(input.getType()));
    if (!table)
      return R::failure("input " + std::to_string(k) + ": " + table.reason());
    inputs.push_back(std::move(*table));
  }
  std::optional<RegisterTable> guard;
  if (Value g = op.getGuard()) {
    OrReason<RegisterTable> table = tableOf(cast<BufferType>(g.getType()));
    if (!table)
      return R::failure("the `where` guard: " + table.reason());
    guard = std::move(*table);
  }
  OrReason<MapPlan> plan = planMap(*output, inputs, guard ? &*guard : nullptr);
  if (plan && !plan->coordinatesAffine && usesCoordinates(op))
    return R::failure("the region reads the coordinates, but " +
                      plan->coordinatesReason);
  return plan;
}

/// index(tid.x) masked to the group: thread t of the plan.
Value threadIndex(OpBuilder &b, Location loc, int64_t threads) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value t = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), tid);
  return arith::RemUIOp::create(
      b, loc, t, arith::ConstantIndexOp::create(b, loc, threads));
}

LogicalResult emitMap(MapOp op, const MapPlan &plan, ValueRange lowered,
                      const DispatchContext &, RewriterBase &rewriter) {
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
  const size_t numInputs = op.getInputs().size();
  const size_t rank = op.getOutputType().getRank();
  SmallVector<LocalTileAccess> inputs;
  for (size_t k = 0; k < numInputs; ++k)
    inputs.emplace_back(lowered[k],
                        cast<BufferType>(op.getInputs()[k].getType()));
  LocalTileAccess output(lowered[numInputs], op.getOutputType());
  // The thread's part of each coordinate, once.
  SmallVector<Value, 4> threadPart(rank);
  if (usesCoordinates(op)) {
    Value t = threadIndex(rewriter, loc, plan.threads);
    for (size_t d = 0; d < rank; ++d) {
      for (auto [b, steps] : llvm::enumerate(plan.threadBitStep)) {
        if (steps[d] == 0)
          continue;
        Value bit = arith::AndIOp::create(
            rewriter, loc,
            arith::ShRUIOp::create(rewriter, loc, t,
                                   arith::ConstantIndexOp::create(rewriter, loc, b)),
            arith::ConstantIndexOp::create(rewriter, loc, 1));
        Value step = arith::MulIOp::create(
            rewriter, loc, bit,
            arith::ConstantIndexOp::create(rewriter, loc, steps[d]));
        threadPart[d] = threadPart[d]
                            ? arith::AddIOp::create(rewriter, loc,
                                                    threadPart[d], step)
                                  .getResult()
                            : step;
      }
    }
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  auto emitElement = [&](const MapPlan::Element &element) {
    IRMapping mapping;
    for (size_t k = 0; k < numInputs; ++k) {
      Value v = inputs[k].load(rewriter, loc, element.inputRegisters[k]);
      mapping.map(body.getArgument(k), v);
    }
    for (size_t d = 0; d < rank; ++d) {
      BlockArgument arg = body.getArgument(numInputs + d);
      if (arg.use_empty())
        continue;
      Value c = arith::ConstantIndexOp::create(rewriter, loc, element.coord[d]);
      if (threadPart[d])
        c = arith::AddIOp::create(rewriter, loc, threadPart[d], c);
      mapping.map(arg, c);
    }
    for (Operation &inner : body.without_terminator())
      rewriter.clone(inner, mapping);
    output.store(rewriter, loc, mapping.lookupOrDefault(yield.getValue()),
                 element.outputRegister);
  };
  if (!op.getGuard()) {
    for (const MapPlan::Element &element : plan.elements)
      emitElement(element);
    return success();
  }
  LocalTileAccess guard(lowered[numInputs + 1],
                        cast<BufferType>(op.getGuard().getType()));
  // The conditions first, then one branch per guard register.
  SmallVector<Value> conditions;
  for (const MapPlan::GuardGroup &group : plan.guardGroups)
    conditions.push_back(guard.load(rewriter, loc, group.guardRegister));
  for (auto [group, condition] : llvm::zip(plan.guardGroups, conditions)) {
    auto branch = scf::IfOp::create(rewriter, loc, condition,
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insertion(rewriter);
    rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
    for (size_t e : group.elements)
      emitElement(plan.elements[e]);
  }
  return success();
}

} // namespace

void tile::local::registerMapVariant(VariantRegistry &registry) {
  registerVariant(registry,
                  VariantDecl<MapOp, MapPlan>{
                      "registers", kMapRegistersPriority, {}, planMapOp,
                      /*prepare=*/nullptr, emitMap});
}

//===- EmittedIR.cpp - read emitted NVVM IR back as numbers ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "EmittedIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;

namespace {

/// Bits of an integer, index or pointer value.
unsigned widthOf(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return i.getWidth();
  return 64;
}

int64_t truncate(int64_t v, Type type) {
  unsigned w = widthOf(type);
  return w >= 64 ? v : int64_t(uint64_t(v) & ((uint64_t(1) << w) - 1));
}

/// Upper bound on unrolled loop iterations in one run.
constexpr int64_t kMaxIterations = int64_t(1) << 20;

} // namespace

OrReason<int64_t> EmittedValues::get(Value value) const {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  std::string from = "a block argument";
  if (Operation *def = value.getDefiningOp())
    from = "'" + def->getName().getStringRef().str() + "'";
  return OrReason<int64_t>::failure("is not a compile-time value (it comes "
                                    "from " + from + ")");
}

namespace {

/// The result of a binary integer op on known operands.
std::optional<int64_t> binary(Operation *op, int64_t a, int64_t b) {
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case([&](arith::AddIOp) { return a + b; })
      .Case([&](arith::SubIOp) { return a - b; })
      .Case([&](arith::MulIOp) { return a * b; })
      .Case([&](arith::AndIOp) { return a & b; })
      .Case([&](arith::OrIOp) { return a | b; })
      .Case([&](arith::XOrIOp) { return a ^ b; })
      .Case([&](arith::ShLIOp) -> std::optional<int64_t> {
        return b >= 0 && b < 64 ? std::optional(int64_t(uint64_t(a) << b)) : 0;
      })
      .Case([&](arith::ShRUIOp) -> std::optional<int64_t> {
        return b >= 0 && b < 64 ? std::optional(int64_t(uint64_t(a) >> b)) : 0;
      })
      .Case([&](arith::DivUIOp) -> std::optional<int64_t> {
        if (b == 0)
          return std::nullopt;
        return int64_t(uint64_t(a) / uint64_t(b));
      })
      .Case([&](arith::RemUIOp) -> std::optional<int64_t> {
        if (b == 0)
          return std::nullopt;
        return int64_t(uint64_t(a) % uint64_t(b));
      })
      .Case([&](arith::MinSIOp) { return std::min(a, b); })
      .Case([&](arith::MaxSIOp) { return std::max(a, b); })
      .Default([](Operation *) { return std::nullopt; });
}

/// `v` (of `width` bits) as a signed value.
int64_t signExtend(int64_t v, unsigned width) {
  if (width >= 64)
    return v;
  return int64_t(uint64_t(v) << (64 - width)) >> (64 - width);
}

/// An integer comparison of known operands of `width` bits.
std::optional<int64_t> compare(arith::CmpIPredicate p, int64_t a, int64_t b,
                               unsigned width) {
  uint64_t ua = width >= 64 ? uint64_t(a) : uint64_t(a) & ((uint64_t(1) << width) - 1);
  uint64_t ub = width >= 64 ? uint64_t(b) : uint64_t(b) & ((uint64_t(1) << width) - 1);
  int64_t sa = signExtend(a, width), sb = signExtend(b, width);
  switch (p) {
  case arith::CmpIPredicate::eq: return ua == ub;
  case arith::CmpIPredicate::ne: return ua != ub;
  case arith::CmpIPredicate::ult: return ua < ub;
  case arith::CmpIPredicate::ule: return ua <= ub;
  case arith::CmpIPredicate::ugt: return ua > ub;
  case arith::CmpIPredicate::uge: return ua >= ub;
  case arith::CmpIPredicate::slt: return sa < sb;
  case arith::CmpIPredicate::sle: return sa <= sb;
  case arith::CmpIPredicate::sgt: return sa > sb;
  case arith::CmpIPredicate::sge: return sa >= sb;
  }
  return std::nullopt;
}

/// ops whose result is their first operand's value (casts, mapa: the same
/// offset in another CTA's window).
bool forwardsValue(Operation *op) {
  return isa<arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
             arith::IndexCastUIOp, LLVM::PtrToIntOp, LLVM::IntToPtrOp,
             LLVM::AddrSpaceCastOp, LLVM::BitcastOp, NVVM::MapaOp>(op);
}

/// An i8 GEP: base plus its indices.
std::optional<int64_t> gepValue(LLVM::GEPOp gep, const EmittedValues &values) {
  if (!gep.getElemType().isInteger(8))
    return std::nullopt;
  OrReason<int64_t> base = values.get(gep.getBase());
  if (!base)
    return std::nullopt;
  int64_t sum = *base;
  for (auto index : gep.getIndices()) {
    if (auto attr = llvm::dyn_cast_if_present<IntegerAttr>(index)) {
      sum += attr.getInt();
      continue;
    }
    OrReason<int64_t> v = values.get(llvm::cast<Value>(index));
    if (!v)
      return std::nullopt;
    sum += *v;
  }
  return sum;
}

} // namespace

void EmittedValues::evaluate(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  std::optional<int64_t> v;
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto attr = dyn_cast<IntegerAttr>(c.getValue()))
      v = attr.getValue().getZExtValue();
  } else if (isa<NVVM::ElectSyncOp>(op)) {
    v = 1; // the lane that issues
  } else if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
    v = gepValue(gep, *this);
  } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    OrReason<int64_t> a = get(cmp.getLhs()), b = get(cmp.getRhs());
    if (a && b)
      v = compare(cmp.getPredicate(), *a, *b, widthOf(cmp.getLhs().getType()));
  } else if (auto select = dyn_cast<arith::SelectOp>(op)) {
    OrReason<int64_t> c = get(select.getCondition());
    if (c) {
      OrReason<int64_t> taken =
          get(*c ? select.getTrueValue() : select.getFalseValue());
      if (taken)
        v = *taken;
    }
  } else if (forwardsValue(op) && op->getNumOperands() >= 1) {
    if (OrReason<int64_t> a = get(op->getOperand(0)))
      v = *a;
  } else if (op->getNumOperands() == 2) {
    OrReason<int64_t> a = get(op->getOperand(0)), b = get(op->getOperand(1));
    if (a && b)
      v = binary(op, *a, *b);
  }
  if (v)
    known[result] = truncate(*v, result.getType());
}

std::string lowering_check::describeOperand(Operation *op, StringRef what) {
  return what.str() + " of '" + op->getName().getStringRef().str() + "'";
}

namespace {

Status runBlock(Block &block, EmittedValues &values, InstructionVisitor visit,
                int64_t &budget);

Status runOne(Operation *op, EmittedValues &values, InstructionVisitor visit,
              int64_t &budget);

Status runFor(scf::ForOp loop, EmittedValues &values, InstructionVisitor visit,
              int64_t &budget) {
  if (!loop.getInitArgs().empty())
    return Status::failure("a loop with loop-carried values is not read back");
  OrReason<int64_t> lb = values.get(loop.getLowerBound()),
                    ub = values.get(loop.getUpperBound()),
                    step = values.get(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return Status::failure("a loop without constant bounds and a positive "
                           "step is not read back");
  for (int64_t i = *lb; i < *ub; i += *step) {
    if (--budget < 0)
      return Status::failure("the emitted loops run more than " +
                             std::to_string(kMaxIterations) + " iterations");
    values.bind(loop.getInductionVar(), i);
    if (Status s = runBlock(*loop.getBody(), values, visit, budget); !s)
      return s;
  }
  return Status::success();
}

Status runOne(Operation *op, EmittedValues &values, InstructionVisitor visit,
              int64_t &budget) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return runFor(loop, values, visit, budget);
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    OrReason<int64_t> cond = values.get(branch.getCondition());
    if (!cond)
      return Status::failure("the condition of an scf.if " + cond.reason());
    Region &taken = *cond ? branch.getThenRegion() : branch.getElseRegion();
    return taken.empty() ? Status::success()
                         : runBlock(taken.front(), values, visit, budget);
  }
  if (op->hasTrait<OpTrait::IsTerminator>())
    return Status::success();
  if (op->getNumResults() == 0)
    return visit(op);
  values.evaluate(op);
  return Status::success();
}

Status runBlock(Block &block, EmittedValues &values, InstructionVisitor visit,
                int64_t &budget) {
  for (Operation &op : block)
    if (Status s = runOne(&op, values, visit, budget); !s)
      return s;
  return Status::success();
}

} // namespace

Status lowering_check::runEmitted(ArrayRef<Operation *> ops,
                                  EmittedValues &values,
                                  InstructionVisitor visit) {
  int64_t budget = kMaxIterations;
  for (Operation *op : ops)
    if (Status s = runOne(op, values, visit, budget); !s)
      return s;
  return Status::success();
}

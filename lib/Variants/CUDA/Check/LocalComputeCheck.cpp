//===- LocalComputeCheck.cpp - translation validation of register compute -===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads back what the tile.map / tile.reduce / tile.convert emitters wrote:
// every store into a register of the result, traced through its operands.
// Independently of the planners (the placement of elements is recomputed
// here from the layouts with TileLayout::apply), every thread of the group
// is run through it:
//   map      the stored value must be the region's yielded value, op by op
//            (same ops, attributes and operand order), with each input
//            argument a load of the register holding that input's
//            (broadcast) element in that thread, and each coordinate
//            argument evaluating, in that thread, to the element's
//            coordinate; with a `where` guard, every store must sit in an
//            scf.if (no else) on a load of the register holding the
//            element's guard in that thread, and none outside one;
//   reduce   the stored value, evaluated symbolically (a load is one
//            (lane, register) term, a butterfly moves terms to the partner
//            lane, the op's combine adds terms), must cover the thread's
//            row exactly once, with only the op's combine;
//   convert  the stored value must be one source register (of the thread,
//            or of the lane a shuffle names, evaluated per thread) holding
//            the same element, converted with at most one rounding (fp8:
//            cvt ... satfinite to the result's format).
//
//===----------------------------------------------------------------------===//

#include "../Local/LocalCommon.h"
#include "LocalCheckHelpers.h"
#include "LocalPlacement.h"
#include "LoweringCheck.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>

using namespace mlir;
using namespace tile;
using namespace tile::local;
using namespace tile::lowering_check;

namespace {

int64_t groupOf(std::initializer_list<const Placement *> tiles) {
  int64_t threads = 1;
  for (const Placement *p : tiles)
    threads = std::max(threads, p->threads);
  return threads;
}

//===----------------------------------------------------------------------===//
// tile.map
//===----------------------------------------------------------------------===//

struct MapLeaves {
  /// (input, emitted value) and (dim, emitted value).
  SmallVector<std::pair<size_t, Value>> inputs, coords;
};

/// Matches the region's `expected` value with the emitted `actual` one, op
/// by op, collecting the leaves (block arguments) to check per thread.
Status matchRegion(Value expected, Value actual, Block &body, size_t numInputs,
                   DenseMap<Value, Value> &matched, MapLeaves &leaves) {
  if (auto it = matched.find(expected); it != matched.end())
    return it->second == actual
               ? Status::success()
               : Status::failure("one region value is emitted as two");
  matched[expected] = actual;
  if (auto arg = dyn_cast<BlockArgument>(expected);
      arg && arg.getOwner() == &body) {
    if (arg.getArgNumber() < numInputs)
      leaves.inputs.push_back({arg.getArgNumber(), actual});
    else
      leaves.coords.push_back({arg.getArgNumber() - numInputs, actual});
    return Status::success();
  }
  Operation *def = expected.getDefiningOp();
  if (!def || def->getBlock() != &body)
    return expected == actual ? Status::success()
                              : Status::failure("a value defined outside the "
                                                "region is not used as it is");
  auto result = dyn_cast<OpResult>(actual);
  Operation *emitted = result ? result.getOwner() : nullptr;
  if (!emitted || emitted->getName() != def->getName() ||
      emitted->getAttrDictionary() != def->getAttrDictionary() ||
      emitted->getNumOperands() != def->getNumOperands() ||
      result.getResultNumber() != cast<OpResult>(expected).getResultNumber())
    return Status::failure("the region's '" +
                           def->getName().getStringRef().str() +
                           "' is not emitted as it is written");
  for (auto [e, a] : llvm::zip(def->getOperands(), emitted->getOperands()))
    if (Status s = matchRegion(e, a, body, numInputs, matched, leaves); !s)
      return s;
  return Status::success();
}

/// The guarded map's emitted ops with the branches opened: each op with the
/// condition of the scf.if holding it (null at the top level).
OrReason<SmallVector<std::pair<Operation *, Value>>>
openBranches(ArrayRef<Operation *> emitted) {
  using R = OrReason<SmallVector<std::pair<Operation *, Value>>>;
  SmallVector<std::pair<Operation *, Value>> out;
  for (Operation *op : emitted) {
    auto branch = dyn_cast<scf::IfOp>(op);
    if (!branch) {
      out.push_back({op, Value()});
      continue;
    }
    if (branch.getNumResults() || !branch.getElseRegion().empty())
      return R::failure("a guard's branch has results or an else: an element "
                        "whose guard is false must keep its value");
    for (Operation &inner : branch.thenBlock()->without_terminator()) {
      if (inner.getNumRegions())
        return R::failure("a guard's branch holds an op with regions");
      out.push_back({&inner, branch.getCondition()});
    }
  }
  return out;
}

Status checkMap(MapOp op, ValueRange lowered, ArrayRef<Operation *> emitted) {
  const size_t numInputs = op.getInputs().size();
  OrReason<Placement> output = placementOf(op.getOutputType());
  if (!output)
    return Status::failure(output.reason());
  SmallVector<Placement> inputs;
  for (Value input : op.getInputs()) {
    OrReason<Placement> p = placementOf(cast<BufferType>(input.getType()));
    if (!p)
      return Status::failure(p.reason());
    inputs.push_back(std::move(*p));
  }
  std::optional<Placement> guard;
  // Output register -> the condition its store runs under.
  std::map<int64_t, Value> conditionOf;
  SmallVector<Operation *> opened(emitted);
  if (Value g = op.getGuard()) {
    OrReason<Placement> p = placementOf(cast<BufferType>(g.getType()));
    if (!p)
      return Status::failure("the `where` guard: " + p.reason());
    guard = std::move(*p);
    auto ops = openBranches(emitted);
    if (!ops)
      return Status::failure(ops.reason());
    opened.clear();
    for (auto [inner, condition] : *ops) {
      opened.push_back(inner);
      auto store = dyn_cast<LLVM::StoreOp>(inner);
      if (!store)
        continue;
      if (!condition)
        return Status::failure("a register of the result is stored outside "
                               "the branch of its guard");
      if (auto at = registerAt(store.getAddr()))
        conditionOf[at->second] = condition;
    }
  }
  SmallVector<int64_t> used = output->used();
  auto stores = storesInto(lowered[numInputs], opened, used.size());
  if (!stores)
    return Status::failure(stores.reason());
  int64_t threads = output->threads;
  for (const Placement &p : inputs)
    threads = std::max(threads, p.threads);
  if (guard)
    threads = std::max(threads, guard->threads);
  Block &body = op.getBody().front();
  Value yielded = cast<YieldOp>(body.getTerminator()).getValue();
  for (int64_t r : used) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("output register " + std::to_string(r) +
                             " is never stored");
    DenseMap<Value, Value> matched;
    MapLeaves leaves;
    if (Status s = matchRegion(yielded, it->second, body, numInputs, matched,
                               leaves);
        !s)
      return Status::failure("output register " + std::to_string(r) + ": " +
                             s.reason());
    for (int64_t t = 0; t < threads; ++t) {
      SmallVector<int64_t, 4> c = output->coord(output->at(t, r));
      if (guard) {
        SmallVector<int64_t, 4> cg(c);
        for (size_t d = 0; d < cg.size(); ++d)
          if (guard->shape[d] == 1)
            cg[d] = 0;
        auto from = loadedFrom(conditionOf[r]);
        int64_t want = guard->registerOf(t, guard->flat(cg));
        if (!from || from->first != lowered[numInputs + 1] || want < 0 ||
            from->second != want)
          return Status::failure(
              "output register " + std::to_string(r) + " of thread " +
              std::to_string(t) + " is stored under a condition other than "
              "the register holding its guard " + coordText(cg));
      }
      for (auto [k, value] : leaves.inputs) {
        SmallVector<int64_t, 4> ck(c);
        for (size_t d = 0; d < ck.size(); ++d)
          if (inputs[k].shape[d] == 1)
            ck[d] = 0;
        auto from = loadedFrom(value);
        int64_t want = inputs[k].registerOf(t, inputs[k].flat(ck));
        if (!from || from->first != lowered[k] || want < 0 ||
            from->second != want)
          return Status::failure(
              "output register " + std::to_string(r) + " of thread " +
              std::to_string(t) + " reads input " + std::to_string(k) +
              " elsewhere than the register holding its element " +
              coordText(ck));
      }
      for (auto [d, value] : leaves.coords) {
        std::optional<int64_t> got = evaluateForThread(value, t);
        if (got != c[d])
          return Status::failure("output register " + std::to_string(r) +
                                 " of thread " + std::to_string(t) +
                                 ": coordinate " + std::to_string(d) +
                                 " is not " + std::to_string(c[d]));
      }
    }
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

/// Terms of a reduction value: (lane xor, register) with multiplicity.
using Terms = std::multiset<std::pair<int64_t, int64_t>>;

OrReason<Terms> termsOf(Value v, Value source, ReduceKind kind,
                        DenseMap<Value, Terms> &memo) {
  using R = OrReason<Terms>;
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Terms terms;
  Operation *def = v.getDefiningOp();
  if (auto from = loadedFrom(v)) {
    if (from->first != source)
      return R::failure("a register of another tile is read");
    terms.insert({0, from->second});
  } else if (auto shfl = dyn_cast_or_null<NVVM::ShflOp>(def)) {
    std::optional<int64_t> offset = constantOf(shfl.getOffset());
    if (shfl.getKind() != NVVM::ShflKind::bfly || !isFullWarpShuffle(shfl) ||
        !offset || *offset <= 0 || *offset >= 32)
      return R::failure("a shuffle that is not a full-warp butterfly by a "
                        "constant lane offset");
    OrReason<Terms> inner = termsOf(shfl.getVal(), source, kind, memo);
    if (!inner)
      return inner;
    for (auto [lane, reg] : *inner)
      terms.insert({lane ^ *offset, reg});
  } else if (def && def->getNumOperands() == 2 &&
             isCombineOf(def, kind, v.getType())) {
    for (Value operand : def->getOperands()) {
      OrReason<Terms> inner = termsOf(operand, source, kind, memo);
      if (!inner)
        return inner;
      terms.insert(inner->begin(), inner->end());
    }
  } else {
    return R::failure("a value that is neither a register of the input, a "
                      "butterfly, nor the reduction's combine ('" +
                      (def ? def->getName().getStringRef().str()
                           : std::string("argument")) +
                      "')");
  }
  memo[v] = terms;
  return terms;
}

Status checkReduce(ReduceOp op, ValueRange lowered,
                   ArrayRef<Operation *> emitted) {
  OrReason<Placement> input = placementOf(op.getInput().getType());
  OrReason<Placement> output = placementOf(op.getOutput().getType());
  if (!input || !output)
    return Status::failure(!input ? input.reason() : output.reason());
  SmallVector<int64_t> used = output->used();
  auto stores = storesInto(lowered[1], emitted, used.size());
  if (!stores)
    return Status::failure(stores.reason());
  const int64_t threads = groupOf({&*input, &*output});
  ReducedRows rows(op);
  DenseMap<Value, Terms> memo;
  for (int64_t r : used) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("output register " + std::to_string(r) +
                             " is never stored");
    OrReason<Terms> terms =
        termsOf(it->second, lowered[0], op.getKind(), memo);
    if (!terms)
      return Status::failure("output register " + std::to_string(r) +
                             " combines " + terms.reason());
    for (int64_t t = 0; t < threads; ++t) {
      SmallVector<std::pair<int64_t, int64_t>> held;
      for (auto [lane, reg] : *terms)
        held.push_back({t ^ lane, reg});
      if (Status ok = checkRowCovered(*input, *output, rows, t,
                                      output->at(t, r), held);
          !ok)
        return ok;
    }
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// tile.convert
//===----------------------------------------------------------------------===//

Status checkConvert(ConvertOp op, ValueRange lowered,
                    ArrayRef<Operation *> emitted) {
  OrReason<Placement> source = placementOf(op.getSource().getType());
  OrReason<Placement> result = placementOf(op.getResult().getType());
  if (!source || !result)
    return Status::failure(!source ? source.reason() : result.reason());
  SmallVector<int64_t> used = result->used();
  auto stores = storesInto(lowered[1], emitted, used.size());
  if (!stores)
    return Status::failure(stores.reason());
  const int64_t threads = groupOf({&*source, &*result});
  Type from = op.getSource().getType().getElementType();
  Type to = op.getResult().getType().getElementType();
  for (int64_t r : used) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("result register " + std::to_string(r) +
                             " is never stored");
    OrReason<ConvertSource> src = convertedFrom(it->second, to);
    if (!src || src->tile != lowered[0])
      return Status::failure("result register " + std::to_string(r) +
                             " is not one source register, converted" +
                             (src ? std::string() : ": " + src.reason()));
    if (Status ok = checkRoundings(r, src->roundings, from, to); !ok)
      return ok;
    for (int64_t t = 0; t < threads; ++t) {
      int64_t e = result->at(t, r);
      int64_t holder = t;
      if (NVVM::ShflOp shfl = src->shuffle) {
        std::optional<int64_t> lane = evaluateForThread(shfl.getOffset(), t);
        if (!lane)
          return Status::failure("the lane result register " +
                                 std::to_string(r) +
                                 " is read from cannot be evaluated");
        holder = (t & ~int64_t(31)) |
                 ((shfl.getKind() == NVVM::ShflKind::bfly ? (t ^ *lane)
                                                          : *lane) &
                  31);
      }
      if (source->at(holder, src->reg) != e)
        return Status::failure(
            "result register " + std::to_string(r) + " of thread " +
            std::to_string(t) + " (element " + coordText(result->coord(e)) +
            ") is converted from source register " +
            std::to_string(src->reg) + " of thread " +
            std::to_string(holder) + ", which holds another element");
    }
  }
  return Status::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Reading the emitted ops
//===----------------------------------------------------------------------===//

/// (lowered tile, constant register) of a constant GEP into a local tile.
std::optional<std::pair<Value, int64_t>>
tile::lowering_check::registerAt(Value address) {
  auto gep = address.getDefiningOp<LLVM::GEPOp>();
  if (!gep)
    return std::nullopt;
  ArrayRef<int32_t> raw = gep.getRawConstantIndices();
  if (raw.size() != 2 || raw[0] != 0 || raw[1] < 0 ||
      raw[1] == LLVM::GEPOp::kDynamicIndex)
    return std::nullopt;
  return std::make_pair(gep.getBase(), int64_t(raw[1]));
}

/// The (tile, register) a value was loaded from.
std::optional<std::pair<Value, int64_t>>
tile::lowering_check::loadedFrom(Value v) {
  auto load = v.getDefiningOp<LLVM::LoadOp>();
  return load ? registerAt(load.getAddr()) : std::nullopt;
}

/// Every register store into `tile`, by register; an error for a store
/// elsewhere or one register stored twice.
OrReason<std::map<int64_t, Value>>
tile::lowering_check::storesInto(Value tile, ArrayRef<Operation *> emitted,
                                 size_t expected) {
  using R = OrReason<std::map<int64_t, Value>>;
  std::map<int64_t, Value> out;
  for (Operation *op : emitted) {
    auto store = dyn_cast<LLVM::StoreOp>(op);
    if (!store)
      continue;
    auto at = registerAt(store.getAddr());
    if (!at || at->first != tile)
      return R::failure("the lowering stores somewhere other than a register "
                        "of the result tile");
    if (!out.emplace(at->second, store.getValue()).second)
      return R::failure("register " + std::to_string(at->second) +
                        " of the result is stored twice");
  }
  if (out.size() != expected)
    return R::failure("the lowering stores " + std::to_string(out.size()) +
                      " registers; the result holds " +
                      std::to_string(expected));
  return out;
}

std::optional<int64_t> tile::lowering_check::evaluateForThread(Value v,
                                                              int64_t t) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<NVVM::ThreadIdXOp>(def))
    return t;
  if (auto c = dyn_cast<LLVM::ConstantOp>(def)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getInt();
    return std::nullopt;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getInt();
    return std::nullopt;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, LLVM::ZExtOp>(def))
    return evaluateForThread(def->getOperand(0), t);
  if (def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = evaluateForThread(def->getOperand(0), t);
  std::optional<int64_t> b = evaluateForThread(def->getOperand(1), t);
  // Thread indices, lanes and coordinates are small non-negative numbers.
  if (!a || !b || *a < 0 || *b < 0 || *a >= (int64_t(1) << 40) ||
      *b >= (int64_t(1) << 40))
    return std::nullopt;
  if (isa<LLVM::LShrOp, arith::ShRUIOp>(def) && *b >= 63)
    return std::nullopt;
  if (isa<LLVM::AndOp, arith::AndIOp>(def))
    return *a & *b;
  if (isa<LLVM::XOrOp, arith::XOrIOp>(def))
    return *a ^ *b;
  if (isa<LLVM::OrOp, arith::OrIOp>(def))
    return *a | *b;
  if (isa<LLVM::LShrOp, arith::ShRUIOp>(def))
    return *a >> *b;
  if (isa<LLVM::MulOp, arith::MulIOp>(def))
    return *a * *b;
  if (isa<LLVM::AddOp, arith::AddIOp>(def))
    return *a + *b;
  if (isa<arith::RemUIOp>(def) && *b > 0)
    return *a % *b;
  if (auto cmp = dyn_cast<LLVM::ICmpOp>(def)) {
    switch (cmp.getPredicate()) {
    case LLVM::ICmpPredicate::eq:
      return *a == *b;
    case LLVM::ICmpPredicate::ne:
      return *a != *b;
    case LLVM::ICmpPredicate::ult:
    case LLVM::ICmpPredicate::slt:
      return *a < *b;
    case LLVM::ICmpPredicate::uge:
    case LLVM::ICmpPredicate::sge:
      return *a >= *b;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> tile::lowering_check::constantOf(Value v) {
  return evaluateForThread(v, 0);
}

/// A full-warp shfl.sync (all lanes, clamp 31) of kind idx or bfly.
bool tile::lowering_check::isFullWarpShuffle(NVVM::ShflOp shfl) {
  if (shfl.getKind() != NVVM::ShflKind::idx &&
      shfl.getKind() != NVVM::ShflKind::bfly)
    return false;
  auto members = shfl.getThreadMask().getDefiningOp<LLVM::ConstantOp>();
  auto membersAttr =
      members ? dyn_cast<IntegerAttr>(members.getValue()) : IntegerAttr();
  return membersAttr && membersAttr.getInt() == -1 &&
         constantOf(shfl.getMaskAndClamp()) == 0x1f;
}

bool tile::lowering_check::isCombineOf(Operation *def, ReduceKind kind, Type type) {
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case ReduceKind::add:
    return isFloat ? isa<LLVM::FAddOp>(def) : isa<LLVM::AddOp>(def);
  case ReduceKind::max:
    return isFloat ? isa<LLVM::MaxNumOp>(def) : isa<LLVM::SMaxOp>(def);
  case ReduceKind::min:
    return isFloat ? isa<LLVM::MinNumOp>(def) : isa<LLVM::SMinOp>(def);
  case ReduceKind::and_:
    return isa<LLVM::AndOp>(def);
  case ReduceKind::or_:
    return isa<LLVM::OrOp>(def);
  case ReduceKind::xor_:
    return isa<LLVM::XOrOp>(def);
  default:
    return false;
  }
}

/// The source register a converted value comes from: through exact
/// widenings, bit casts, at most one full-warp shuffle, and rounding
/// conversions (counted): fptrunc, a packed f16x2/bf16x2 cvt's lanes (lane 0
/// is src_lo), an fp8x2 cvt's bytes (the low byte is b; it must be
/// round-to-nearest, satfinite, to `fp8`).
OrReason<ConvertSource>
tile::lowering_check::convertedFrom(Value v, Type resultType) {
  using R = OrReason<ConvertSource>;
  NVVM::ShflOp shuffle;
  int roundings = 0;
  for (int steps = 0; steps < 16; ++steps) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return R::failure("a value that is not computed from a register");
    if (auto at = loadedFrom(v))
      return ConvertSource{at->first, at->second, shuffle, roundings, {}};
    if (auto load = dyn_cast<LLVM::LoadOp>(def))
      return ConvertSource{Value(), -1, shuffle, roundings, load};
    if (auto shfl = dyn_cast<NVVM::ShflOp>(def)) {
      if (shuffle || !isFullWarpShuffle(shfl))
        return R::failure("more than one shuffle, or one that is not a "
                          "full-warp idx or bfly");
      shuffle = shfl;
      v = shfl.getVal();
      continue;
    }
    if (isa<LLVM::FPExtOp, LLVM::BitcastOp, LLVM::ZExtOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (isa<LLVM::FPTruncOp>(def)) {
      ++roundings;
      v = def->getOperand(0);
      continue;
    }
    if (auto extract = dyn_cast<LLVM::ExtractElementOp>(def)) {
      std::optional<int64_t> lane = constantOf(extract.getPosition());
      Operation *packed = extract.getVector().getDefiningOp();
      if (!lane || !packed)
        return R::failure("an element of an unknown vector");
      if (auto bf = dyn_cast<NVVM::ConvertF32x2ToBF16x2Op>(packed)) {
        if (bf.getRnd() != NVVM::FPRoundingMode::RN || bf.getRandomBits())
          return R::failure("a bf16x2 cvt that is not round-to-nearest");
        v = *lane == 0 ? bf.getSrcLo() : bf.getSrcHi();
      } else if (auto h = dyn_cast<NVVM::ConvertF32x2ToF16x2Op>(packed)) {
        if (h.getRnd() != NVVM::FPRoundingMode::RN || h.getRandomBits())
          return R::failure("an f16x2 cvt that is not round-to-nearest");
        v = *lane == 0 ? h.getSrcLo() : h.getSrcHi();
      } else {
        return R::failure("an element of an unknown vector");
      }
      ++roundings;
      continue;
    }
    if (auto trunc = dyn_cast<LLVM::TruncOp>(def)) {
      Value x = trunc.getArg();
      if (x.getDefiningOp<NVVM::ShflOp>()) {
        v = x; // a narrow value shuffled as a 32-bit word
        continue;
      }
      bool high = false;
      if (auto shift = x.getDefiningOp<LLVM::LShrOp>()) {
        if (constantOf(shift.getRhs()) != 8)
          return R::failure("a byte of an unknown word");
        x = shift.getLhs();
        high = true;
      }
      auto f8 = x.getDefiningOp<NVVM::ConvertF32x2ToF8x2Op>();
      if (!f8)
        return R::failure("a byte of an unknown word");
      if (f8.getDstTy() != resultType ||
          f8.getSat() != NVVM::SaturationMode::SATFINITE ||
          f8.getRnd() != NVVM::FPRoundingMode::RN || f8.getRelu())
        return R::failure("an fp8 cvt that is not round-to-nearest, "
                          "satfinite, to the result's format");
      ++roundings;
      v = high ? f8.getA() : f8.getB();
      continue;
    }
    return R::failure("'" + def->getName().getStringRef().str() +
                      "', which a conversion does not use");
  }
  return R::failure("too long a chain of conversions");
}

tile::lowering_check::ReducedRows::ReducedRows(ReduceOp op)
    : reduced(op.getInput().getType().getRank(), false) {
  for (int64_t d : op.getDims()) {
    reduced[d] = true;
    rowSize *= op.getInput().getType().getShape()[d];
  }
}

Status tile::lowering_check::checkRowCovered(
    const Placement &input, const Placement &output, const ReducedRows &rows,
    int64_t t, int64_t key, ArrayRef<std::pair<int64_t, int64_t>> terms) {
  std::string where =
      "output element " + coordText(output.coord(key)) + " of thread " +
      std::to_string(t);
  std::set<int64_t> covered;
  for (auto [u, reg] : terms) {
    int64_t e = u / 128 == t / 128 ? input.at(u, reg) : -1;
    bool inRow = e >= 0;
    if (inRow) {
      SmallVector<int64_t, 4> c = input.coord(e);
      for (size_t d = 0; d < c.size(); ++d)
        if (rows.reduced[d])
          c[d] = 0;
      inRow = output.flat(c) == key;
    }
    if (!inRow)
      return Status::failure(where + " combines register " +
                             std::to_string(reg) + " of thread " +
                             std::to_string(u) +
                             ", which holds no element of its row");
    if (!covered.insert(e).second)
      return Status::failure(where + " combines input " +
                             coordText(input.coord(e)) + " twice");
  }
  if (int64_t(covered.size()) != rows.rowSize)
    return Status::failure(where + " combines " +
                           std::to_string(covered.size()) + " of its row's " +
                           std::to_string(rows.rowSize) + " elements");
  return Status::success();
}

Status tile::lowering_check::checkRoundings(int64_t reg, int roundings,
                                            Type from, Type to) {
  if (roundings <= (from == to ? 0 : 1))
    return Status::success();
  return Status::failure("result register " + std::to_string(reg) +
                         " is rounded " + std::to_string(roundings) +
                         " times");
}

void tile::local::registerLocalComputeChecks(dispatch::VariantRegistry &registry) {
  using dispatch::kCudaFamily;
  registry.setCheck("tile.map", kCudaFamily, "registers",
                    checkOf<MapOp>(checkMap, "registers"));
  registry.setCheck("tile.reduce", kCudaFamily, "in_thread",
                    checkOf<ReduceOp>(checkReduce, "in_thread"));
  registry.setCheck("tile.reduce", kCudaFamily, "warp_shuffle",
                    checkOf<ReduceOp>(checkReduce, "warp_shuffle"));
  registry.setCheck("tile.convert", kCudaFamily, "registers",
                    checkOf<ConvertOp>(checkConvert, "registers"));
  registry.setCheck("tile.convert", kCudaFamily, "warp_shuffle",
                    checkOf<ConvertOp>(checkConvert, "warp_shuffle"));
}

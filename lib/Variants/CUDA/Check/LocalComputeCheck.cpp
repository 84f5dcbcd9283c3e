//===- LocalComputeCheck.cpp - translation validation of register compute -===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads back what the tile.map / tile.reduce / tile.convert emitters wrote:
// every store into a register of the result, and, through its operands,
// the source registers it was computed from (loads at constant GEPs of the
// lowered tiles) and the lanes it was exchanged with (shfl.sync.bfly).
// Then, independently of the planners, every thread of the group is run
// through the operands' layouts: the registers read must hold, in that
// thread, the elements the op's semantics names for the result element
// the thread holds in the stored register. The region of a map (the
// user's scalar ops, cloned) is not interpreted: the check is about which
// registers flow where.
//
//===----------------------------------------------------------------------===//

#include "../Local/LocalCommon.h"
#include "LoweringCheck.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>

using namespace mlir;
using namespace tile;
using namespace tile::local;

namespace {

/// (lowered tile, constant register) of a constant GEP into a local tile.
std::optional<std::pair<Value, int64_t>> registerAt(Value address) {
  auto gep = address.getDefiningOp<LLVM::GEPOp>();
  if (!gep)
    return std::nullopt;
  ArrayRef<int32_t> raw = gep.getRawConstantIndices();
  if (raw.size() != 2 || raw[0] != 0 || raw[1] < 0 ||
      raw[1] == LLVM::GEPOp::kDynamicIndex)
    return std::nullopt;
  return std::make_pair(gep.getBase(), int64_t(raw[1]));
}

struct Stored {
  Value value;
  Operation *store;
};

/// Every register store into `tile`, by register; an error for a store
/// elsewhere or one register stored twice.
OrReason<std::map<int64_t, Stored>> storesInto(Value tile,
                                               ArrayRef<Operation *> emitted) {
  using R = OrReason<std::map<int64_t, Stored>>;
  std::map<int64_t, Stored> out;
  for (Operation *op : emitted) {
    auto store = dyn_cast<LLVM::StoreOp>(op);
    if (!store)
      continue;
    auto at = registerAt(store.getAddr());
    if (!at || at->first != tile)
      return R::failure("the lowering stores somewhere other than a register "
                        "of the result tile");
    if (!out.emplace(at->second, Stored{store.getValue(), op}).second)
      return R::failure("register " + std::to_string(at->second) +
                        " of the result is stored twice");
  }
  return out;
}

/// What a stored value was computed from, inside the emitted ops.
struct Sources {
  /// (lowered tile, register) of every load in the value's cone.
  std::set<std::pair<const void *, int64_t>> loads;
  /// shfl.sync.bfly lane offsets, and whether any shuffle is another kind.
  std::multiset<int64_t> butterflies;
  bool otherShuffle = false;
  unsigned combines = 0;
};

Sources sourcesOf(Value value, const llvm::DenseSet<Operation *> &emitted,
                  llvm::function_ref<bool(Operation *)> isCombine) {
  Sources sources;
  llvm::DenseSet<Operation *> seen;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !emitted.count(def) || !seen.insert(def).second)
      continue;
    if (auto load = dyn_cast<LLVM::LoadOp>(def)) {
      if (auto at = registerAt(load.getAddr()))
        sources.loads.insert({at->first.getAsOpaquePointer(), at->second});
      continue;
    }
    if (auto shfl = dyn_cast<NVVM::ShflOp>(def)) {
      auto offset = shfl.getOffset().getDefiningOp<LLVM::ConstantOp>();
      auto clamp = shfl.getMaskAndClamp().getDefiningOp<LLVM::ConstantOp>();
      auto members = shfl.getThreadMask().getDefiningOp<LLVM::ConstantOp>();
      auto intOf = [](LLVM::ConstantOp c) -> std::optional<int64_t> {
        if (!c)
          return std::nullopt;
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          return i.getInt();
        return std::nullopt;
      };
      if (shfl.getKind() != NVVM::ShflKind::bfly || !intOf(offset) ||
          intOf(clamp) != 0x1f || intOf(members) != -1)
        sources.otherShuffle = true;
      else
        sources.butterflies.insert(*intOf(offset));
      work.push_back(shfl.getVal());
      continue;
    }
    if (isCombine(def))
      ++sources.combines;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  return sources;
}

llvm::DenseSet<Operation *> emittedSet(ArrayRef<Operation *> emitted) {
  llvm::DenseSet<Operation *> set;
  for (Operation *op : emitted)
    op->walk([&](Operation *inner) { set.insert(inner); });
  return set;
}

int64_t groupOf(std::initializer_list<const RegisterTable *> tables) {
  int64_t threads = 1;
  for (const RegisterTable *t : tables)
    threads = std::max(threads, t->threads());
  return threads;
}

//===----------------------------------------------------------------------===//
// tile.map
//===----------------------------------------------------------------------===//

Status checkMap(MapOp op, ValueRange lowered, ArrayRef<Operation *> emitted) {
  const size_t numInputs = op.getInputs().size();
  OrReason<RegisterTable> output = tableOf(op.getOutputType());
  if (!output)
    return Status::failure(output.reason());
  SmallVector<RegisterTable> inputs;
  for (Value input : op.getInputs()) {
    OrReason<RegisterTable> t = tableOf(cast<BufferType>(input.getType()));
    if (!t)
      return Status::failure(t.reason());
    inputs.push_back(std::move(*t));
  }
  auto stores = storesInto(lowered[numInputs], emitted);
  if (!stores)
    return Status::failure(stores.reason());
  if (stores->size() != output->usedRegisters().size())
    return Status::failure("the lowering stores " +
                           std::to_string(stores->size()) + " registers; the "
                           "output holds " +
                           std::to_string(output->usedRegisters().size()));
  int64_t threads = output->threads();
  for (const RegisterTable &t : inputs)
    threads = std::max(threads, t.threads());
  llvm::DenseSet<Operation *> set = emittedSet(emitted);
  const size_t rank = op.getOutputType().getRank();
  for (int64_t r : output->usedRegisters()) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("output register " + std::to_string(r) +
                             " is never stored");
    Sources sources =
        sourcesOf(it->second.value, set, [](Operation *) { return false; });
    // The registers each lowered tile must be read at, in every thread.
    std::set<std::pair<const void *, int64_t>> expected;
    for (size_t k = 0; k < numInputs; ++k) {
      int64_t reg = -1;
      for (int64_t t = 0; t < threads; ++t) {
        SmallVector<int64_t, 4> c = output->coord(output->element(t, r));
        for (size_t d = 0; d < rank; ++d)
          if (inputs[k].shape()[d] == 1)
            c[d] = 0;
        int64_t here = inputs[k].registerOf(t, inputs[k].flat(c));
        if (here < 0 || (t > 0 && here != reg))
          return Status::failure(
              "output register " + std::to_string(r) + " in thread " +
              std::to_string(t) + " needs element " + coordText(c) +
              " of input " + std::to_string(k) +
              ", which is not in one register fixed for every thread");
        reg = here;
      }
      if (op.getBody().front().getArgument(k).use_empty())
        continue; // an unused element need not be read
      expected.insert({lowered[k].getAsOpaquePointer(), reg});
    }
    if (sources.loads != expected)
      return Status::failure("output register " + std::to_string(r) +
                             " is computed from " +
                             std::to_string(sources.loads.size()) +
                             " input registers other than the " +
                             std::to_string(expected.size()) +
                             " holding its elements in every thread");
    if (!sources.butterflies.empty() || sources.otherShuffle)
      return Status::failure("a map exchanges registers across lanes");
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

Status checkReduce(ReduceOp op, ValueRange lowered,
                   ArrayRef<Operation *> emitted) {
  OrReason<RegisterTable> input = tableOf(op.getInput().getType());
  OrReason<RegisterTable> output = tableOf(op.getOutput().getType());
  if (!input || !output)
    return Status::failure(!input ? input.reason() : output.reason());
  auto stores = storesInto(lowered[1], emitted);
  if (!stores)
    return Status::failure(stores.reason());
  if (stores->size() != output->usedRegisters().size())
    return Status::failure("the lowering stores " +
                           std::to_string(stores->size()) +
                           " registers; the output holds " +
                           std::to_string(output->usedRegisters().size()));
  const int64_t threads = groupOf({&*input, &*output});
  const size_t rank = op.getInput().getType().getRank();
  SmallVector<bool, 4> reduced(rank, false);
  int64_t rowSize = 1;
  for (int64_t d : op.getDims()) {
    reduced[d] = true;
    rowSize *= op.getInput().getType().getShape()[d];
  }
  auto isCombine = [](Operation *def) {
    return isa<LLVM::FAddOp, LLVM::AddOp, LLVM::MaxNumOp, LLVM::MinNumOp,
               LLVM::SMaxOp, LLVM::SMinOp, LLVM::AndOp, LLVM::OrOp,
               LLVM::XOrOp>(def);
  };
  llvm::DenseSet<Operation *> set = emittedSet(emitted);
  const void *source = lowered[0].getAsOpaquePointer();
  for (int64_t r : output->usedRegisters()) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("output register " + std::to_string(r) +
                             " is never stored");
    Sources sources = sourcesOf(it->second.value, set, isCombine);
    if (sources.otherShuffle)
      return Status::failure("output register " + std::to_string(r) +
                             " goes through a shuffle that is not a full-warp "
                             "butterfly with a constant lane offset");
    SmallVector<int64_t, 8> registers;
    for (auto [tile, reg] : sources.loads) {
      if (tile != source)
        return Status::failure("output register " + std::to_string(r) +
                               " reads a register of another tile");
      registers.push_back(reg);
    }
    // The lanes reached: every xor combination of the butterfly offsets.
    SmallVector<int64_t, 32> lanes{0};
    for (int64_t offset : sources.butterflies) {
      if (offset <= 0 || offset >= 32 || (offset & (offset - 1)))
        return Status::failure("a butterfly offset of " +
                               std::to_string(offset) +
                               " is not one lane bit");
      size_t n = lanes.size();
      for (size_t i = 0; i < n; ++i)
        lanes.push_back(lanes[i] ^ offset);
    }
    if (sources.combines + 1 != registers.size() + sources.butterflies.size())
      return Status::failure(
          "output register " + std::to_string(r) + " combines " +
          std::to_string(sources.combines) + " times; " +
          std::to_string(registers.size()) + " registers and " +
          std::to_string(sources.butterflies.size()) +
          " exchanges need one fewer than their sum");
    for (int64_t t = 0; t < threads; ++t) {
      int64_t key = output->element(t, r);
      std::set<int64_t> covered;
      for (int64_t lane : lanes) {
        int64_t u = t ^ lane;
        if (output->registerOf(u, key) != r)
          return Status::failure(
              "thread " + std::to_string(t) + " exchanges with thread " +
              std::to_string(u) + ", which does not hold output element " +
              coordText(output->coord(key)) + " in register " +
              std::to_string(r));
        for (int64_t reg : registers) {
          SmallVector<int64_t, 4> c = input->coord(input->element(u, reg));
          SmallVector<int64_t, 4> row(c);
          for (size_t d = 0; d < rank; ++d)
            if (reduced[d])
              row[d] = 0;
          if (output->flat(row) != key)
            return Status::failure(
                "output element " + coordText(output->coord(key)) +
                " of thread " + std::to_string(t) + " combines input " +
                coordText(c) + " (register " + std::to_string(reg) +
                " of thread " + std::to_string(u) + "), not of its row");
          if (!covered.insert(input->flat(c)).second)
            return Status::failure("output element " +
                                   coordText(output->coord(key)) +
                                   " combines input " + coordText(c) +
                                   " twice");
        }
      }
      if (int64_t(covered.size()) != rowSize)
        return Status::failure("output element " +
                               coordText(output->coord(key)) + " of thread " +
                               std::to_string(t) + " combines " +
                               std::to_string(covered.size()) + " of its row's " +
                               std::to_string(rowSize) + " elements");
    }
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// tile.convert
//===----------------------------------------------------------------------===//

/// An i32 computed from tid.x with constants, and/xor/or/shifts/mul/add,
/// for thread `t`; nullopt for anything else.
std::optional<int64_t> evaluateForThread(Value v, int64_t t) {
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
  if (def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = evaluateForThread(def->getOperand(0), t);
  std::optional<int64_t> b = evaluateForThread(def->getOperand(1), t);
  if (!a || !b)
    return std::nullopt;
  if (isa<LLVM::AndOp>(def))
    return *a & *b;
  if (isa<LLVM::XOrOp>(def))
    return *a ^ *b;
  if (isa<LLVM::OrOp>(def))
    return *a | *b;
  if (isa<LLVM::LShrOp>(def))
    return int64_t(uint32_t(*a) >> *b);
  if (isa<LLVM::ShlOp>(def))
    return int64_t(uint32_t(*a) << *b);
  if (isa<LLVM::MulOp>(def))
    return int64_t(uint32_t(*a * *b));
  if (isa<LLVM::AddOp>(def))
    return int64_t(uint32_t(*a + *b));
  return std::nullopt;
}

/// Where a converted value was read: a source register, in the lane a
/// shuffle on the way names (the thread itself without one).
struct ConvertSource {
  Value tile;
  int64_t reg;
  NVVM::ShflOp shuffle; // null: the thread's own register
};

/// The source register a converted value comes from: through float
/// casts, a packed f16x2/bf16x2 cvt's lanes (lane 0 is src_lo), an fp8x2
/// cvt's bytes (the low byte is b) and at most one full-warp shuffle.
std::optional<ConvertSource> convertedFrom(Value v) {
  NVVM::ShflOp shuffle;
  for (int steps = 0; steps < 12; ++steps) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto load = dyn_cast<LLVM::LoadOp>(def)) {
      auto at = registerAt(load.getAddr());
      if (!at)
        return std::nullopt;
      return ConvertSource{at->first, at->second, shuffle};
    }
    if (auto shfl = dyn_cast<NVVM::ShflOp>(def)) {
      if (shuffle)
        return std::nullopt;
      shuffle = shfl;
      v = shfl.getVal();
      continue;
    }
    if (isa<LLVM::FPExtOp, LLVM::FPTruncOp, LLVM::BitcastOp, LLVM::ZExtOp>(
            def)) {
      v = def->getOperand(0);
      continue;
    }
    if (auto extract = dyn_cast<LLVM::ExtractElementOp>(def)) {
      auto lane = extract.getPosition().getDefiningOp<LLVM::ConstantOp>();
      auto laneAttr = lane ? dyn_cast<IntegerAttr>(lane.getValue()) : nullptr;
      Operation *packed = extract.getVector().getDefiningOp();
      if (!laneAttr || !packed)
        return std::nullopt;
      int64_t i = laneAttr.getInt();
      if (auto bf = dyn_cast<NVVM::ConvertF32x2ToBF16x2Op>(packed))
        v = i == 0 ? bf.getSrcLo() : bf.getSrcHi();
      else if (auto h = dyn_cast<NVVM::ConvertF32x2ToF16x2Op>(packed))
        v = i == 0 ? h.getSrcLo() : h.getSrcHi();
      else
        return std::nullopt;
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
        auto by = shift.getRhs().getDefiningOp<LLVM::ConstantOp>();
        auto byAttr = by ? dyn_cast<IntegerAttr>(by.getValue()) : nullptr;
        if (!byAttr || byAttr.getInt() != 8)
          return std::nullopt;
        x = shift.getLhs();
        high = true;
      }
      auto f8 = x.getDefiningOp<NVVM::ConvertF32x2ToF8x2Op>();
      if (!f8)
        return std::nullopt;
      v = high ? f8.getA() : f8.getB();
      continue;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

Status checkConvert(ConvertOp op, ValueRange lowered,
                    ArrayRef<Operation *> emitted) {
  OrReason<RegisterTable> source = tableOf(op.getSource().getType());
  OrReason<RegisterTable> result = tableOf(op.getResult().getType());
  if (!source || !result)
    return Status::failure(!source ? source.reason() : result.reason());
  auto stores = storesInto(lowered[1], emitted);
  if (!stores)
    return Status::failure(stores.reason());
  if (stores->size() != result->usedRegisters().size())
    return Status::failure("the lowering stores " +
                           std::to_string(stores->size()) +
                           " registers; the result holds " +
                           std::to_string(result->usedRegisters().size()));
  const int64_t threads = groupOf({&*source, &*result});
  for (int64_t r : result->usedRegisters()) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("result register " + std::to_string(r) +
                             " is never stored");
    auto from = convertedFrom(it->second.value);
    if (!from || from->tile != lowered[0])
      return Status::failure("result register " + std::to_string(r) +
                             " is not read back as one source register, "
                             "converted");
    NVVM::ShflOp shfl = from->shuffle;
    if (shfl) {
      auto constant = [](Value v) -> std::optional<int64_t> {
        return evaluateForThread(v, 0);
      };
      if ((shfl.getKind() != NVVM::ShflKind::idx &&
           shfl.getKind() != NVVM::ShflKind::bfly) ||
          constant(shfl.getThreadMask()) != -1 ||
          constant(shfl.getMaskAndClamp()) != 0x1f)
        return Status::failure("result register " + std::to_string(r) +
                               " goes through a shuffle that is not a "
                               "full-warp idx or bfly");
    }
    for (int64_t t = 0; t < threads; ++t) {
      int64_t e = result->element(t, r);
      int64_t holder = t;
      if (shfl) {
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
      if (source->element(holder, from->reg) != e)
        return Status::failure(
            "result register " + std::to_string(r) + " of thread " +
            std::to_string(t) + " (element " + coordText(result->coord(e)) +
            ") is converted from source register " +
            std::to_string(from->reg) + " of thread " +
            std::to_string(holder) + ", which holds another element");
    }
  }
  return Status::success();
}

template <typename OpT>
dispatch::CheckFn checkOf(Status (*check)(OpT, ValueRange,
                                          ArrayRef<Operation *>),
                          StringRef variant) {
  return [check, variant = variant.str()](
             Operation *op, ValueRange lowered, ArrayRef<Operation *> emitted,
             const dispatch::DispatchContext &) -> LogicalResult {
    return lowering_check::reportOn(op, variant,
                                     check(cast<OpT>(op), lowered, emitted));
  };
}

} // namespace

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

//===- SharedScratchCheck.cpp - checks of the shared_memory variants ------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The translation validation of tile.reduce and tile.convert through the
// shared scratch. Every thread of the block (its known_block_size) is run
// through the emitted code: the scratch writes (under their scf.if,
// evaluated per thread) fill a model of the scratch by byte; a scratch
// read returns what the one thread that wrote that address stored. The
// order is checked: all writes, then a named barrier of the warpgroup (id
// kScratchBarrierFirstId + its index, 128 threads), the reads, and a
// second barrier before anything else may use the scratch.
//   reduce   each output register's value is a multiset of (thread, input
//            register) terms; it must cover the thread's row exactly once,
//            from threads of its own warpgroup, with only the op's combine;
//   convert  each result register must be a scratch read, converted with
//            at most one rounding, of what a thread of the warpgroup
//            wrote: the source register holding the same element.
//
//===----------------------------------------------------------------------===//

#include "../Local/LocalCommon.h"
#include "LocalCheckHelpers.h"
#include "LocalPlacement.h"
#include "LoweringCheck.h"

#include "tile/Dispatch/KernelABI.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <set>

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;
using tile::local::coordText;

namespace {

/// (thread, input register), with multiplicity.
using ThreadTerms = std::multiset<std::pair<int64_t, int64_t>>;

struct ScratchModel {
  Value base;
  /// The bytes reserved for the op (every write must fall inside).
  int64_t size = 0;
  /// byte -> (writing thread, value written)
  std::map<int64_t, std::pair<int64_t, Value>> words;

  /// The byte offset into the scratch `address` names in thread `t`.
  std::optional<int64_t> byteOf(Value address, int64_t t) const {
    auto gep = address.getDefiningOp<LLVM::GEPOp>();
    if (!gep || gep.getBase() != base || gep.getDynamicIndices().size() != 1 ||
        !gep.getElemType().isInteger(8))
      return std::nullopt;
    return evaluateForThread(gep.getDynamicIndices()[0], t);
  }
};

/// Whether `address` is the scratch the op was given: the dynamic segment
/// (its address, possibly rounded up) plus the recorded offset.
bool isScratchBase(Value address, int64_t offset) {
  if (offset != 0) {
    auto gep = address.getDefiningOp<LLVM::GEPOp>();
    if (!gep || gep.getRawConstantIndices().size() != 1 ||
        gep.getRawConstantIndices()[0] != offset)
      return false;
    address = gep.getBase();
  }
  if (auto rounded = address.getDefiningOp<LLVM::GEPOp>())
    address = rounded.getBase();
  auto segment = address.getDefiningOp<LLVM::AddressOfOp>();
  return segment && segment.getGlobalName() == dispatch::kDynamicSharedSymbol;
}

class AcrossWarpsReader {
public:
  AcrossWarpsReader(ReduceOp op, Value input, const ScratchModel &scratch)
      : op(op), input(input), scratch(scratch) {}

  OrReason<ThreadTerms> termsOf(Value v, int64_t t) {
    using R = OrReason<ThreadTerms>;
    if (auto it = memo.find({v, t}); it != memo.end())
      return it->second;
    ThreadTerms terms;
    Operation *def = v.getDefiningOp();
    if (auto from = loadedFrom(v)) {
      if (from->first != input)
        return R::failure("a register of another tile is read");
      terms.insert({t, from->second});
    } else if (auto load = dyn_cast_or_null<LLVM::LoadOp>(def)) {
      std::optional<int64_t> byte = scratch.byteOf(load.getAddr(), t);
      if (!byte)
        return R::failure("a load from neither a register nor the scratch");
      auto word = scratch.words.find(*byte);
      if (word == scratch.words.end())
        return R::failure("thread " + std::to_string(t) +
                          " reads scratch byte " + std::to_string(*byte) +
                          ", which no thread wrote");
      OrReason<ThreadTerms> inner =
          termsOf(word->second.second, word->second.first);
      if (!inner)
        return inner;
      terms = *inner;
    } else if (auto shfl = dyn_cast_or_null<NVVM::ShflOp>(def)) {
      std::optional<int64_t> offset = constantOf(shfl.getOffset());
      if (shfl.getKind() != NVVM::ShflKind::bfly || !isFullWarpShuffle(shfl) ||
          !offset || *offset <= 0 || *offset >= 32)
        return R::failure("a shuffle that is not a full-warp butterfly by a "
                          "constant lane offset");
      OrReason<ThreadTerms> inner = termsOf(shfl.getVal(), t ^ *offset);
      if (!inner)
        return inner;
      terms = *inner;
    } else if (def && def->getNumOperands() == 2 &&
               isCombineOf(def, op.getKind(), v.getType())) {
      for (Value operand : def->getOperands()) {
        OrReason<ThreadTerms> inner = termsOf(operand, t);
        if (!inner)
          return inner;
        terms.insert(inner->begin(), inner->end());
      }
    } else {
      return R::failure("a value that is neither a register of the input, a "
                        "butterfly, a scratch word nor the reduction's "
                        "combine ('" +
                        (def ? def->getName().getStringRef().str()
                             : std::string("argument")) +
                        "')");
    }
    memo[{v, t}] = terms;
    return terms;
  }

private:
  ReduceOp op;
  Value input;
  const ScratchModel &scratch;
  DenseMap<std::pair<Value, int64_t>, ThreadTerms> memo;
};

/// The barrier is the warpgroup's scratch barrier in every thread.
Status checkBarrier(NVVM::BarrierOp barrier, int64_t threads) {
  if (!barrier.getBarrierId() || !barrier.getNumberOfThreads() ||
      constantOf(barrier.getNumberOfThreads()) != 128)
    return Status::failure("a barrier that is not a named barrier of 128 "
                           "threads");
  for (int64_t t = 0; t < threads; ++t)
    if (evaluateForThread(barrier.getBarrierId(), t) !=
        dispatch::kScratchBarrierFirstId + t / 128)
      return Status::failure(
          "thread " + std::to_string(t) +
          " does not meet its warpgroup's scratch barrier (id " +
          std::to_string(dispatch::kScratchBarrierFirstId + t / 128) + ")");
  return Status::success();
}

/// Runs the scratch writes of every thread into the model.
Status writeScratch(scf::IfOp writers, int64_t threads, int64_t bytes,
                    ScratchModel &scratch) {
  for (int64_t t = 0; t < threads; ++t) {
    std::optional<int64_t> taken = evaluateForThread(writers.getCondition(), t);
    if (!taken)
      return Status::failure("the writers' condition is not computed from "
                             "the thread index");
    if (!*taken)
      continue;
    for (Operation &inner : writers.getThenRegion().front()) {
      auto store = dyn_cast<LLVM::StoreOp>(inner);
      if (!store) {
        if (isa<scf::YieldOp>(inner))
          continue;
        return Status::failure("the writers run '" +
                               inner.getName().getStringRef().str() + "'");
      }
      std::optional<int64_t> byte = scratch.byteOf(store.getAddr(), t);
      if (!byte || *byte < 0 || *byte % bytes)
        return Status::failure("a write that is not an element of the "
                               "scratch");
      if (*byte + bytes > scratch.size)
        return Status::failure("thread " + std::to_string(t) +
                               " writes scratch byte " +
                               std::to_string(*byte) + ", outside the " +
                               std::to_string(scratch.size) +
                               " bytes reserved for the op");
      auto [it, fresh] =
          scratch.words.insert({*byte, {t, store.getValue()}});
      if (!fresh)
        return Status::failure("scratch byte " + std::to_string(*byte) +
                               " is written by threads " +
                               std::to_string(it->second.first) + " and " +
                               std::to_string(t));
    }
  }
  return Status::success();
}

/// The emitted code in the required order; the scratch base and writes.
Status checkOrder(Operation *op, ArrayRef<Operation *> emitted,
                  int64_t threads, int64_t bytes, ScratchModel &scratch) {
  auto offset = op->getAttrOfType<IntegerAttr>(dispatch::kScratchOffsetAttr);
  auto size = op->getAttrOfType<IntegerAttr>(dispatch::kScratchBytesAttr);
  if (!offset || !size)
    return Status::failure("no scratch was placed for the op");
  if (bytes <= 0)
    return Status::failure("scratch elements of less than a byte");
  scratch.size = size.getInt();
  scf::IfOp writers;
  SmallVector<size_t, 2> barriers;
  for (auto [i, emittedOp] : llvm::enumerate(emitted)) {
    if (auto ifOp = dyn_cast<scf::IfOp>(emittedOp)) {
      if (writers || !barriers.empty())
        return Status::failure("scratch writes after the first barrier");
      writers = ifOp;
    } else if (auto barrier = dyn_cast<NVVM::BarrierOp>(emittedOp)) {
      if (Status ok = checkBarrier(barrier, threads); !ok)
        return ok;
      barriers.push_back(i);
    } else if (auto load = dyn_cast<LLVM::LoadOp>(emittedOp)) {
      if (loadedFrom(load.getResult()))
        continue;
      if (barriers.size() != 1)
        return Status::failure("a scratch read outside the two barriers");
    } else if (isa<LLVM::StoreOp>(emittedOp) && barriers.size() < 2) {
      if (!registerAt(cast<LLVM::StoreOp>(emittedOp).getAddr()))
        return Status::failure("a store outside the writers' branch");
    }
  }
  if (!writers || barriers.size() != 2)
    return Status::failure("expected the scratch writes under one scf.if and "
                           "two barriers; found " +
                           std::to_string(barriers.size()) + " barriers");
  for (Operation &inner : writers.getThenRegion().front())
    if (auto store = dyn_cast<LLVM::StoreOp>(inner)) {
      auto gep = store.getAddr().getDefiningOp<LLVM::GEPOp>();
      if (!gep || !isScratchBase(gep.getBase(), offset.getInt()))
        return Status::failure("a write to something other than the op's "
                               "scratch");
      scratch.base = gep.getBase();
      break;
    }
  return writeScratch(writers, threads, bytes, scratch);
}

/// Threads of the block of the kernel enclosing `op`.
OrReason<int64_t> blockThreads(Operation *op) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  std::optional<ArrayRef<int32_t>> block =
      kernel ? kernel.getKnownBlockSize() : std::nullopt;
  if (!block || block->empty())
    return OrReason<int64_t>::failure("the kernel has no known block size");
  return int64_t((*block)[0]);
}

Status checkReduceAcrossWarps(ReduceOp op, ValueRange lowered,
                              ArrayRef<Operation *> emitted) {
  OrReason<Placement> input = placementOf(op.getInput().getType());
  OrReason<Placement> output = placementOf(op.getOutput().getType());
  if (!input || !output)
    return Status::failure(!input ? input.reason() : output.reason());
  OrReason<int64_t> block = blockThreads(op);
  if (!block)
    return Status::failure(block.reason());
  const int64_t threads = *block;
  ScratchModel scratch;
  if (Status ok = checkOrder(op, emitted, threads, 4, scratch); !ok)
    return ok;
  SmallVector<int64_t> used = output->used();
  auto stores = storesInto(lowered[1], emitted, used.size());
  if (!stores)
    return Status::failure(stores.reason());
  ReducedRows rows(op);
  AcrossWarpsReader reader(op, lowered[0], scratch);
  for (int64_t r : used) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("output register " + std::to_string(r) +
                             " is never stored");
    for (int64_t t = 0; t < threads; ++t) {
      OrReason<ThreadTerms> terms = reader.termsOf(it->second, t);
      if (!terms)
        return Status::failure("output register " + std::to_string(r) +
                               " of thread " + std::to_string(t) +
                               " combines " + terms.reason());
      SmallVector<std::pair<int64_t, int64_t>> held(terms->begin(),
                                                    terms->end());
      if (Status ok = checkRowCovered(*input, *output, rows, t,
                                      output->at(t, r), held);
          !ok)
        return ok;
    }
  }
  return Status::success();
}

Status checkConvertThroughShared(ConvertOp op, ValueRange lowered,
                                 ArrayRef<Operation *> emitted) {
  OrReason<Placement> source = placementOf(op.getSource().getType());
  OrReason<Placement> result = placementOf(op.getResult().getType());
  if (!source || !result)
    return Status::failure(!source ? source.reason() : result.reason());
  OrReason<int64_t> block = blockThreads(op);
  if (!block)
    return Status::failure(block.reason());
  const int64_t threads = *block;
  Type from = op.getSource().getType().getElementType();
  Type to = op.getResult().getType().getElementType();
  const int64_t bytes =
      registerStorageType(from).getIntOrFloatBitWidth() / 8;
  ScratchModel scratch;
  if (Status ok = checkOrder(op, emitted, threads, bytes, scratch); !ok)
    return ok;
  SmallVector<int64_t> used = result->used();
  auto stores = storesInto(lowered[1], emitted, used.size());
  if (!stores)
    return Status::failure(stores.reason());
  for (int64_t r : used) {
    auto it = stores->find(r);
    if (it == stores->end())
      return Status::failure("result register " + std::to_string(r) +
                             " is never stored");
    OrReason<ConvertSource> src = convertedFrom(it->second, to);
    if (!src || !src->otherLoad || src->shuffle)
      return Status::failure("result register " + std::to_string(r) +
                             " is not one scratch read, converted" +
                             (src ? std::string() : ": " + src.reason()));
    if (Status ok = checkRoundings(r, src->roundings, from, to); !ok)
      return ok;
    for (int64_t t = 0; t < threads; ++t) {
      std::optional<int64_t> byte =
          scratch.byteOf(src->otherLoad.getAddr(), t);
      auto word = byte ? scratch.words.find(*byte) : scratch.words.end();
      if (word == scratch.words.end())
        return Status::failure("result register " + std::to_string(r) +
                               " of thread " + std::to_string(t) +
                               " reads scratch no thread wrote");
      auto [writer, written] = word->second;
      auto from = loadedFrom(written);
      int64_t e = result->at(t, r);
      if (!from || from->first != lowered[0] || writer / 128 != t / 128 ||
          source->at(writer, from->second) != e)
        return Status::failure(
            "result register " + std::to_string(r) + " of thread " +
            std::to_string(t) + " (element " + coordText(result->coord(e)) +
            ") reads what thread " + std::to_string(writer) +
            " wrote, not its source register holding that element");
    }
  }
  return Status::success();
}

} // namespace

void tile::local::registerSharedScratchChecks(
    dispatch::VariantRegistry &registry) {
  registry.setCheck("tile.reduce", dispatch::kCudaFamily, "shared_memory",
                    checkOf<ReduceOp>(checkReduceAcrossWarps, "shared_memory"));
  registry.setCheck(
      "tile.convert", dispatch::kCudaFamily, "shared_memory",
      checkOf<ConvertOp>(checkConvertThroughShared, "shared_memory"));
}

//===- RegisterTilePlanners.cpp - plan compute on register tiles ----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/Local/RegisterTilePlanners.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace llvm;

namespace tile::local {

std::string coordText(ArrayRef<int64_t> coord) {
  std::string text = "(";
  for (auto [i, c] : enumerate(coord))
    text += (i ? "," : "") + std::to_string(c);
  return text + ")";
}

static std::string threadList(ArrayRef<int64_t> threads) {
  std::string text;
  for (auto [i, t] : enumerate(threads)) {
    if (i == 4) {
      text += ", ...";
      break;
    }
    text += (i ? ", " : "") + std::to_string(t);
  }
  return text.empty() ? "none" : text;
}

OrReason<RegisterTable> RegisterTable::build(const TileLayout &layout,
                                             ArrayRef<int64_t> shape) {
  using R = OrReason<RegisterTable>;
  OrReason<LocalThreads> threads = localThreads(layout);
  if (!threads)
    return R::failure(threads.reason());
  RegisterTable table;
  table.numThreads = threads->threads;
  table.numRegisters = threads->registers;
  table.tileShape.assign(shape.begin(), shape.end());
  table.elements.assign(table.numThreads * table.numRegisters, -1);
  const int64_t size = layout.size(), replicas = layout.replicaCount();
  for (int64_t e = 0; e < size; ++e)
    for (int64_t rep = 0; rep < replicas; ++rep) {
      AxisAddress address = layout.apply(e, rep);
      int64_t t = table.numThreads == 1 ? 0 : threadInGroup(address);
      int64_t r = at(address, Axis::m);
      if (t < 0 || t >= table.numThreads || r < 0 || r >= table.numRegisters)
        return R::failure("layout " + layout.toString() +
                          " puts an element outside its threads' registers");
      int64_t &slot = table.elements[t * table.numRegisters + r];
      if (slot != -1 && slot != e)
        return R::failure("layout " + layout.toString() +
                          " puts two elements in register " +
                          std::to_string(r) + " of thread " +
                          std::to_string(t));
      slot = e;
      table.registerOfElement[e * table.numThreads + t] = r;
    }
  for (int64_t r = 0; r < table.numRegisters; ++r)
    if (table.elements[r] != -1)
      table.used.push_back(r);
  return table;
}

int64_t RegisterTable::element(int64_t t, int64_t r) const {
  if (r < 0 || r >= numRegisters)
    return -1;
  return elements[(t % numThreads) * numRegisters + r];
}

int64_t RegisterTable::registerOf(int64_t t, int64_t flat) const {
  auto it = registerOfElement.find(flat * numThreads + t % numThreads);
  return it == registerOfElement.end() ? -1 : it->second;
}

SmallVector<int64_t, 4> RegisterTable::holders(int64_t flat) const {
  SmallVector<int64_t, 4> out;
  for (int64_t t = 0; t < numThreads; ++t)
    if (registerOf(t, flat) >= 0)
      out.push_back(t);
  return out;
}

SmallVector<int64_t, 4> RegisterTable::coord(int64_t flat) const {
  SmallVector<int64_t, 4> c(tileShape.size(), 0);
  for (size_t d = tileShape.size(); d-- > 0;) {
    c[d] = flat % tileShape[d];
    flat /= tileShape[d];
  }
  return c;
}

int64_t RegisterTable::flat(ArrayRef<int64_t> c) const {
  int64_t f = 0;
  for (size_t d = 0; d < tileShape.size(); ++d)
    f = f * tileShape[d] + c[d];
  return f;
}

/// The threads the program runs on: the largest group of the tiles.
static int64_t groupOf(const RegisterTable &first,
                       ArrayRef<RegisterTable> rest) {
  int64_t threads = first.threads();
  for (const RegisterTable &t : rest)
    threads = std::max(threads, t.threads());
  return threads;
}

//===----------------------------------------------------------------------===//
// tile.map
//===----------------------------------------------------------------------===//

OrReason<MapPlan> planMap(const RegisterTable &output,
                          ArrayRef<RegisterTable> inputs,
                          const RegisterTable *guard) {
  using R = OrReason<MapPlan>;
  // The guard is read like one more input.
  SmallVector<RegisterTable> withGuard;
  if (guard) {
    withGuard.assign(inputs.begin(), inputs.end());
    withGuard.push_back(*guard);
    inputs = withGuard;
  }
  auto inputName = [&](size_t k) {
    return guard && k + 1 == inputs.size() ? std::string("the `where` guard")
                                           : "input " + std::to_string(k);
  };
  MapPlan plan;
  plan.threads = groupOf(output, inputs);
  const size_t rank = output.shape().size();
  for (int64_t r : output.usedRegisters()) {
    MapPlan::Element element;
    element.outputRegister = r;
    element.inputRegisters.assign(inputs.size(), -1);
    for (int64_t t = 0; t < plan.threads; ++t) {
      int64_t e = output.element(t, r);
      if (e < 0)
        return R::failure("register " + std::to_string(r) +
                          " of the output holds an element in thread 0 but "
                          "none in thread " + std::to_string(t));
      SmallVector<int64_t, 4> c = output.coord(e);
      if (t == 0)
        element.coord.assign(c.begin(), c.end());
      for (auto [k, input] : enumerate(inputs)) {
        SmallVector<int64_t, 4> ck(c);
        for (size_t d = 0; d < rank; ++d)
          if (input.shape()[d] == 1)
            ck[d] = 0;
        int64_t reg = input.registerOf(t, input.flat(ck));
        if (reg < 0)
          return R::failure(
              "thread " + std::to_string(t) + " computes output element " +
              coordText(c) + " but does not hold element " + coordText(ck) +
              " of " + inputName(k) + " (held by threads " +
              threadList(input.holders(input.flat(ck))) +
              "): a map reads only its own registers; give the input a "
              "layout (with replicas) that puts it where the output is");
        if (t == 0)
          element.inputRegisters[k] = reg;
        else if (element.inputRegisters[k] != reg)
          return R::failure(
              "output register " + std::to_string(r) + " reads register " +
              std::to_string(element.inputRegisters[k]) + " of " +
              inputName(k) + " in thread 0 but register " +
              std::to_string(reg) + " in thread " + std::to_string(t) +
              ": every thread runs the same program on fixed registers");
      }
    }
    if (guard) {
      element.guardRegister = element.inputRegisters.pop_back_val();
      auto *group =
          find_if(plan.guardGroups, [&](const MapPlan::GuardGroup &g) {
            return g.guardRegister == element.guardRegister;
          });
      if (group == plan.guardGroups.end())
        group = plan.guardGroups.insert(
            group, MapPlan::GuardGroup{element.guardRegister, {}});
      group->elements.push_back(plan.elements.size());
    }
    plan.elements.push_back(std::move(element));
  }
  // Coordinates as thread 0's plus one step per thread bit.
  const unsigned bits = Log2_64(plan.threads);
  plan.threadBitStep.assign(bits, SmallVector<int64_t, 2>(rank, 0));
  if (!plan.elements.empty()) {
    const MapPlan::Element &first = plan.elements.front();
    for (unsigned b = 0; b < bits; ++b) {
      SmallVector<int64_t, 4> c =
          output.coord(output.element(int64_t(1) << b, first.outputRegister));
      for (size_t d = 0; d < rank; ++d)
        plan.threadBitStep[b][d] = c[d] - first.coord[d];
    }
  }
  for (const MapPlan::Element &element : plan.elements) {
    for (int64_t t = 1; t < plan.threads && plan.coordinatesAffine; ++t) {
      SmallVector<int64_t, 4> c =
          output.coord(output.element(t, element.outputRegister));
      for (size_t d = 0; d < rank; ++d) {
        int64_t expected = element.coord[d];
        for (unsigned b = 0; b < bits; ++b)
          if (t >> b & 1)
            expected += plan.threadBitStep[b][d];
        if (c[d] != expected) {
          plan.coordinatesAffine = false;
          plan.coordinatesReason =
              "the output's coordinate " + coordText(c) + " in thread " +
              std::to_string(t) + ", register " +
              std::to_string(element.outputRegister) +
              " is not thread 0's plus one step per thread bit";
          break;
        }
      }
    }
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

/// Across warps: each row's output element as a base plus thread-bit steps
/// (the scratch word every thread computes from its index), and the
/// scratch size.
static Status affineKeys(const RegisterTable &output, ReducePlan &plan) {
  int64_t outputElements = 1;
  for (int64_t extent : output.shape())
    outputElements *= extent;
  plan.scratchWords = outputElements * plan.warpPartials();
  for (ReducePlan::Row &row : plan.rows) {
    OrReason<AffineRegister> key = affineRegister(output, row.outputRegister);
    if (!key)
      return Status::failure(key.reason() +
                             ": the scratch word of a row is computed from "
                             "the thread index");
    row.key = std::move(*key);
  }
  return Status::success();
}

OrReason<ReducePlan> planReduce(const RegisterTable &input,
                                const RegisterTable &output,
                                ArrayRef<int64_t> dims, bool allowLanes,
                                bool allowWarps) {
  using R = OrReason<ReducePlan>;
  allowLanes |= allowWarps;
  const int64_t threads = groupOf(input, {output});
  const size_t rank = input.shape().size();
  SmallVector<bool, 4> reduced(rank, false);
  int64_t rowSize = 1;
  for (int64_t d : dims) {
    reduced[d] = true;
    rowSize *= input.shape()[d];
  }
  // Per thread: output row (flat) -> the thread's input registers of it.
  std::vector<DenseMap<int64_t, SmallVector<int64_t, 8>>> rowsOf(threads);
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t r : input.usedRegisters()) {
      SmallVector<int64_t, 4> c = input.coord(input.element(t, r));
      for (size_t d = 0; d < rank; ++d)
        if (reduced[d])
          c[d] = 0;
      rowsOf[t][output.flat(c)].push_back(r);
    }
  ReducePlan plan;
  bool first = true;
  for (int64_t r : output.usedRegisters()) {
    ReducePlan::Row row;
    row.outputRegister = r;
    for (int64_t t = 0; t < threads; ++t) {
      int64_t key = output.element(t, r);
      auto it = rowsOf[t].find(key);
      std::string where = "output element " + coordText(output.coord(key)) +
                          " (register " + std::to_string(r) + ") in thread " +
                          std::to_string(t);
      if (it == rowsOf[t].end())
        return R::failure(where + " holds none of the row's inputs: the "
                                  "output must be held by the threads that "
                                  "hold its row");
      if (t == 0)
        row.inputRegisters = it->second;
      else if (it->second != row.inputRegisters)
        return R::failure(where + " combines input registers that differ "
                                  "from thread 0's: every thread runs the "
                                  "same program on fixed registers");
      // Which threads hold the rest of the row: t xor a set of lane bits.
      SmallVector<int64_t, 4> group;
      for (int64_t u = 0; u < threads; ++u)
        if (rowsOf[u].count(key))
          group.push_back(u);
      if (int64_t(group.size()) * int64_t(row.inputRegisters.size()) !=
          rowSize)
        return R::failure(where + ": the row's " + std::to_string(rowSize) +
                          " elements are not split evenly and once over "
                          "its " + std::to_string(group.size()) +
                          " threads (an input replicated along the reduced "
                          "dims would be counted twice)");
      int64_t spanned = 0;
      for (int64_t u : group)
        spanned |= u ^ t;
      SmallVector<int64_t, 5> masks;
      for (unsigned b = 0; b < 7; ++b)
        if (spanned >> b & 1)
          masks.push_back(int64_t(1) << b);
      if (int64_t(group.size()) != (int64_t(1) << masks.size()))
        return R::failure(where + ": the threads holding its row (" +
                          threadList(group) + ") are not the lanes an xor "
                          "butterfly reaches");
      if (!allowLanes && !masks.empty())
        return R::failure(where + ": its row is spread over threads (xor " +
                          threadList(masks) +
                          "); in one thread's registers only");
      if (spanned >= 32 && !allowWarps)
        return R::failure(where + ": its row is spread over the warps of "
                                  "the warpgroup (threads " +
                          threadList(group) +
                          "); combining warps needs shared memory");
      for (int64_t u : group)
        if (output.registerOf(u, key) != r)
          return R::failure(where + ": thread " + std::to_string(u) +
                            " of its row does not hold it in register " +
                            std::to_string(r));
      SmallVector<int64_t, 5> lanes, warps;
      for (int64_t m : masks)
        (m < 32 ? lanes : warps).push_back(m);
      if (first) {
        plan.laneMasks.assign(lanes.begin(), lanes.end());
        plan.warpMasks.assign(warps.begin(), warps.end());
        first = false;
      } else if (ArrayRef<int64_t>(lanes) !=
                     ArrayRef<int64_t>(plan.laneMasks) ||
                 ArrayRef<int64_t>(warps) != ArrayRef<int64_t>(plan.warpMasks))
        return R::failure(where + ": its row's threads differ from another "
                                  "row's; one butterfly serves every row");
    }
    plan.rows.push_back(std::move(row));
  }
  if (!plan.warpMasks.empty())
    if (Status keys = affineKeys(output, plan); !keys)
      return R::failure(keys.reason());
  return plan;
}

OrReason<AffineRegister> affineRegister(const RegisterTable &table,
                                        int64_t r) {
  AffineRegister out;
  out.reg = r;
  out.base = table.element(0, r);
  for (int64_t bit = 1; bit < table.threads(); bit <<= 1)
    out.threadStep.push_back(table.element(bit, r) - out.base);
  for (int64_t t = 0; t < table.threads(); ++t) {
    if (out.elementOf(t) != table.element(t, r))
      return OrReason<AffineRegister>::failure(
          "register " + std::to_string(r) + " holds element " +
          coordText(table.coord(table.element(t, r))) + " in thread " +
          std::to_string(t) + ", not a sum of per-thread-bit steps");
  }
  return out;
}

//===----------------------------------------------------------------------===//
// tile.convert
//===----------------------------------------------------------------------===//

OrReason<ConvertPlan> planRegisterConvert(const RegisterTable &source,
                                          const RegisterTable &result) {
  using R = OrReason<ConvertPlan>;
  const int64_t threads = groupOf(source, {result});
  ConvertPlan plan;
  for (int64_t r : result.usedRegisters()) {
    int64_t from = -1;
    for (int64_t t = 0; t < threads; ++t) {
      int64_t e = result.element(t, r);
      int64_t s = source.registerOf(t, e);
      if (s < 0)
        return R::failure("thread " + std::to_string(t) + " holds element " +
                          coordText(result.coord(e)) +
                          " of the result but not of the source (held by "
                          "threads " + threadList(source.holders(e)) +
                          "): the data must cross threads");
      if (t == 0)
        from = s;
      else if (s != from)
        return R::failure("result register " + std::to_string(r) +
                          " comes from source register " +
                          std::to_string(from) + " in thread 0 but " +
                          std::to_string(s) + " in thread " +
                          std::to_string(t) +
                          ": a register move is the same in every thread");
    }
    plan.moves.push_back({r, from});
  }
  return plan;
}

OrReason<ShuffleConvertPlan> planShuffleConvert(const RegisterTable &source,
                                                const RegisterTable &result) {
  using R = OrReason<ShuffleConvertPlan>;
  const int64_t threads = groupOf(source, {result});
  ShuffleConvertPlan plan;
  // The lane of `t`'s warp holding `e` in register `q`, or -1.
  auto laneWith = [&](int64_t t, int64_t e, int64_t q) -> int64_t {
    int64_t warp = t & ~int64_t(31);
    for (int64_t lane = 0; lane < 32; ++lane)
      if (source.element(warp + lane, q) == e)
        return lane;
    return -1;
  };
  for (int64_t r : result.usedRegisters()) {
    int64_t e0 = result.element(0, r);
    // The source register: the first one a lane of warp 0 holds e0 in.
    int64_t q = -1;
    for (int64_t lane = 0; lane < std::min<int64_t>(32, threads) && q < 0;
         ++lane)
      q = source.registerOf(lane, e0);
    if (q < 0)
      return R::failure("element " + coordText(result.coord(e0)) +
                        " of the result (thread 0, register " +
                        std::to_string(r) +
                        ") is in no lane of thread 0's warp (held by threads " +
                        threadList(source.holders(e0)) +
                        "): the data must cross warps");
    ShuffleConvertPlan::Move move;
    move.resultRegister = r;
    move.sourceRegister = q;
    auto laneOf = [&](int64_t t) {
      return laneWith(t, result.element(t, r), q);
    };
    // Why thread t's element cannot come from register q of a lane.
    auto refusal = [&](int64_t t) {
      int64_t e = result.element(t, r);
      int64_t warp = t & ~int64_t(31);
      bool inWarp = false;
      for (int64_t lane = 0; lane < 32 && !inWarp; ++lane)
        inWarp = source.registerOf(warp + lane, e) >= 0;
      std::string where = "element " + coordText(result.coord(e)) +
                          " of the result (thread " + std::to_string(t) +
                          ", register " + std::to_string(r) + ")";
      if (!inWarp)
        return R::failure(where + " is in no lane of its warp (held by "
                                  "threads " +
                          threadList(source.holders(e)) +
                          "): the data must cross warps");
      return R::failure(where + " is not in source register " +
                        std::to_string(q) +
                        " of a lane an xor of the thread's lane bits names: "
                        "the register a lane sends would depend on the "
                        "thread");
    };
    move.laneXor = laneOf(0);
    for (int b = 0; b < 5; ++b) {
      int64_t t = int64_t(1) << b;
      if (t >= threads) {
        move.laneBitColumn[b] = t; // every warp lane is the same: unused
        continue;
      }
      int64_t lane = laneOf(t);
      if (lane < 0)
        return refusal(t);
      move.laneBitColumn[b] = lane ^ move.laneXor;
    }
    for (int64_t t = 0; t < threads; ++t) {
      int64_t want = move.laneXor;
      for (int b = 0; b < 5; ++b)
        if (t >> b & 1)
          want ^= move.laneBitColumn[b];
      if (source.element((t & ~int64_t(31)) + want, q) !=
          result.element(t, r))
        return refusal(t);
    }
    plan.moves.push_back(move);
  }
  return plan;
}


OrReason<SharedConvertPlan> planSharedConvert(const RegisterTable &source,
                                              const RegisterTable &result) {
  using R = OrReason<SharedConvertPlan>;
  if (source.threads() != 128 || result.threads() != 128)
    return R::failure("the tiles are not both held by a warpgroup: a warp's "
                      "or every thread's tile would be written by each warp "
                      "into one scratch");
  SharedConvertPlan plan;
  plan.elements = 1;
  for (int64_t extent : source.shape())
    plan.elements *= extent;
  int64_t moving = 0; // thread bits that move some source element
  for (int64_t r : source.usedRegisters()) {
    OrReason<AffineRegister> write = affineRegister(source, r);
    if (!write)
      return R::failure("source " + write.reason());
    for (auto [b, step] : llvm::enumerate(write->threadStep))
      if (step != 0)
        moving |= int64_t(1) << b;
    plan.writes.push_back(std::move(*write));
  }
  plan.replicaBits = (source.threads() - 1) & ~moving;
  // Each element written once, by a thread that holds it.
  std::vector<int64_t> writer(plan.elements, -1);
  for (int64_t t = 0; t < source.threads(); ++t) {
    if (t & plan.replicaBits)
      continue;
    for (int64_t r : source.usedRegisters()) {
      int64_t e = source.element(t, r);
      if (writer[e] >= 0)
        return R::failure("element " + coordText(source.coord(e)) +
                          " would be written by threads " +
                          std::to_string(writer[e]) + " and " +
                          std::to_string(t) +
                          ": its replicas differ by register");
      writer[e] = t;
    }
  }
  for (int64_t r : result.usedRegisters()) {
    OrReason<AffineRegister> read = affineRegister(result, r);
    if (!read)
      return R::failure("result " + read.reason());
    for (int64_t t = 0; t < result.threads(); ++t)
      if (writer[result.element(t, r)] < 0)
        return R::failure("no thread holds element " +
                          coordText(result.coord(result.element(t, r))) +
                          " of the source");
    plan.reads.push_back(std::move(*read));
  }
  return plan;
}

} // namespace tile::local

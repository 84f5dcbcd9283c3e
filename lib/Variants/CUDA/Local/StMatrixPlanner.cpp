//===- StMatrixPlanner.cpp - tile.store of registers through stmatrix -----===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/Local/StMatrixPlanner.h"

#include <string>

using namespace tile;
using namespace tile::stmatrix;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// The instruction's row constants as rowBase + lane-bit steps, if they
/// are of that form.
bool fitRows(const Request &req, const Plan &plan, Instruction &instr) {
  const std::vector<int64_t> &constant = req.offset[0];
  auto at = [&](int64_t lane) {
    return constant[rowElement(plan, instr, lane)];
  };
  instr.rowBase = at(0);
  for (int b = 0; b < 5; ++b)
    instr.laneBitStep[b] = at(int64_t(1) << b) - instr.rowBase;
  for (int64_t lane = 0; lane < 32; ++lane) {
    int64_t want = instr.rowBase;
    for (int b = 0; b < 5; ++b)
      if (lane >> b & 1)
        want += instr.laneBitStep[b];
    if (at(lane) != want)
      return false;
  }
  return true;
}

/// Pairs 2p, 2p + 1; consecutive pairs grouped into x4 instructions, or
/// x2, x1 where the row constants of four (two) are not one step per lane
/// bit (e.g. a 24-column accumulator: columns 0, 8, 16 of rows 0..7, then
/// rows 8..15) or pairs run out. One pair is always one step per bit.
Plan layOut(const Request &req, bool transpose) {
  Plan plan;
  plan.transpose = transpose;
  const int64_t pairs = int64_t(req.offset[0].size()) / 2;
  for (int64_t p = 0; p < pairs; ++p)
    plan.pairs.push_back({2 * p, 2 * p + 1});
  for (int64_t next = 0; next < pairs;)
    for (int64_t count : {4, 2, 1}) {
      Instruction instr;
      instr.firstPair = next;
      instr.count = count;
      if (next + count <= pairs && fitRows(req, plan, instr)) {
        plan.instructions.push_back(instr);
        next += count;
        break;
      }
    }
  return plan;
}

/// Every element of every lane of every warp where the plan stores it.
Status check(const Request &req, const Plan &plan) {
  const char *name = plan.transpose ? "stmatrix.trans" : "stmatrix";
  const int64_t threads = int64_t(req.offset.size());
  for (int64_t warp = 0; warp < threads / 32; ++warp)
    for (const Instruction &instr : plan.instructions)
      for (int64_t i = 0; i < instr.count; ++i) {
        const std::pair<int64_t, int64_t> &pair =
            plan.pairs[instr.firstPair + i];
        int64_t rows[8];
        for (int64_t x = 0; x < 8; ++x) {
          int64_t lane = 8 * i + x;
          rows[x] = req.offset[rowThread(plan.transpose, 32 * warp + lane)]
                              [rowElement(plan, instr, lane)];
          if (rows[x] % 8)
            return Status::failure(
                std::string(name) + ": row " + str(x) + " of matrix " +
                str(i) + " (pair " + str(instr.firstPair + i) + ") of warp " +
                str(warp) + " starts at element " + str(rows[x]) +
                ", not on a 16-byte boundary");
        }
        for (int64_t lane = 0; lane < 32; ++lane)
          for (int64_t e = 0; e < 2; ++e) {
            int64_t q = lane / 4, r = lane % 4;
            int64_t want = plan.transpose ? rows[2 * r + e] + q
                                          : rows[q] + 2 * r + e;
            int64_t element = e ? pair.second : pair.first;
            int64_t got = req.offset[32 * warp + lane][element];
            if (got != want)
              return Status::failure(
                  std::string(name) + ": element " + str(element) +
                  " of thread " + str(32 * warp + lane) + " goes to " +
                  str(got) + "; as element " + str(e) + " of its register " +
                  str(i) + " it would be stored at " + str(want));
          }
      }
  return Status::success();
}

} // namespace

int64_t stmatrix::rowThread(bool transpose, int64_t t) {
  int64_t x = t % 8;
  return (t & ~int64_t(31)) + (transpose ? x / 2 : 4 * x);
}

int64_t stmatrix::rowElement(const Plan &plan, const Instruction &instr,
                             int64_t lane) {
  const std::pair<int64_t, int64_t> &pair =
      plan.pairs[instr.firstPair + (lane / 8) % instr.count];
  return plan.transpose && lane % 2 ? pair.second : pair.first;
}

OrReason<Plan> stmatrix::planStMatrix(const Request &req) {
  using R = OrReason<Plan>;
  if (req.bits != 16)
    return R::failure("stmatrix stores 16-bit elements; the destination's "
                      "are " + str(req.bits) + "-bit");
  const int64_t threads = int64_t(req.offset.size());
  if (threads == 0 || threads % 32)
    return R::failure("stmatrix is a warp's; the tile spans " +
                      str(threads) + " threads");
  const int64_t elements = int64_t(req.offset[0].size());
  if (elements == 0 || elements % 2)
    return R::failure("a thread holds " + str(elements) +
                      " elements; stmatrix stores them in pairs");
  for (int64_t t = 0; t < threads; ++t) {
    if (int64_t(req.offset[t].size()) != elements)
      return R::failure("threads hold different numbers of elements");
    for (int64_t e = 1; e < elements; ++e)
      if (req.offset[t][e] - req.offset[0][e] !=
          req.offset[t][0] - req.offset[0][0])
        return R::failure("thread " + str(t) + "'s elements are not thread "
                          "0's moved by one base");
  }
  if (req.baseAlignment % 8)
    return R::failure("the region's base is known to be a multiple of " +
                      str(req.baseAlignment) + " elements; stmatrix rows "
                      "start on 16-byte boundaries");
  if (req.swizzleChunk % 8)
    return R::failure("the swizzle moves " + str(req.swizzleChunk) +
                      "-element chunks; an stmatrix row is 8 elements kept "
                      "together");
  std::string why;
  for (bool transpose : {false, true}) {
    Plan plan = layOut(req, transpose);
    Status s = check(req, plan);
    if (s)
      return plan;
    why += (why.empty() ? "" : "; ") + s.reason();
  }
  return R::failure(why);
}

//===- LdgstsPlanner.cpp - plan cooperative cp.async copies ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/LdgstsPlanner.h"

using namespace tile;
using namespace tile::ldgsts;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string coordText(llvm::ArrayRef<int64_t> c) {
  std::string s = "(";
  for (size_t d = 0; d < c.size(); ++d)
    s += (d ? ", " : "") + str(c[d]);
  return s + ")";
}

/// Why vectors of `bytes` cannot be used, or "" when they can: the
/// innermost size, the static global facts, and every vector's shared
/// bytes (contiguous, aligned to the width).
std::string widthProblem(const Request &r, Width &w) {
  const int64_t elementBytes = r.elementBits / 8;
  const size_t rank = r.sizes.size();
  const int64_t inner = r.sizes.back();
  if (w.bytes % elementBytes)
    return str(w.bytes) + "-byte vectors split a " + str(elementBytes) +
           "-byte element";
  w.elements = w.bytes / elementBytes;
  if (inner % w.elements)
    return "the region's innermost size " + str(inner) +
           " is not a multiple of " + str(w.elements) + " elements";
  const GlobalSide &g = r.global;
  const size_t globalRank = g.strides.size();
  int64_t innerOffset = g.offsets[globalRank - 1];
  if (innerOffset != kDynamic && (innerOffset * elementBytes) % w.bytes)
    return "the region starts at element " + str(innerOffset) +
           " of the innermost global dim, not a multiple of " +
           str(w.elements);
  for (size_t d = 0; d + 1 < globalRank; ++d)
    if (g.strides[d] != kDynamic && (g.strides[d] * elementBytes) % w.bytes)
      return "global dim " + str(d) + " steps " +
             str(g.strides[d] * elementBytes) + " bytes, not a multiple of " +
             str(w.bytes);
  if (r.sharedAlignment % w.bytes)
    return "the shared tile is aligned to " + str(r.sharedAlignment) +
           " bytes";

  w.grid.assign(r.sizes.begin(), r.sizes.end());
  w.grid.back() = inner / w.elements;
  w.vectors = 1;
  for (int64_t e : w.grid)
    w.vectors *= e;
  w.perThread = (w.vectors + r.threads - 1) / r.threads;
  if (w.perThread > kMaxVectorsPerThread)
    return str(w.vectors) + " vectors over " + str(r.threads) +
           (r.threads == 1 ? " thread are " : " threads are ") +
           str(w.perThread) + " per thread (at most " +
           str(kMaxVectorsPerThread) + "); give the copy more threads";

  llvm::SmallVector<int64_t, 4> c(rank);
  for (int64_t q = 0; q < w.vectors; ++q) {
    llvm::SmallVector<int64_t, 4> first = vectorCoord(w, q);
    int64_t start = sharedByte(r.shared, first, r.elementBits);
    if (start % w.bytes)
      return "the vector at " + coordText(first) + " starts at shared byte " +
             str(start) + ", not " + str(w.bytes) + "-byte aligned";
    c.assign(first.begin(), first.end());
    for (int64_t e = 1; e < w.elements; ++e) {
      ++c.back();
      int64_t at = sharedByte(r.shared, c, r.elementBits);
      if (at != start + e * elementBytes)
        return "element " + coordText(c) + " lies at shared byte " + str(at) +
               ", not right after element " + coordText(first) +
               "'s vector start " + str(start) + " + " +
               str(e * elementBytes) + " (the shared layout or its swizzle "
               "splits the vector)";
    }
  }
  return "";
}

} // namespace

int64_t ldgsts::sharedByte(const RegionSide &shared,
                           llvm::ArrayRef<int64_t> coord,
                           unsigned elementBits) {
  llvm::SmallVector<int64_t, 4> at(coord.size());
  for (size_t d = 0; d < coord.size(); ++d)
    at[d] = shared.offsets[d] + coord[d];
  return tile::at(shared.layout.apply(at, shared.shape), Axis::m) *
         (elementBits / 8);
}

llvm::SmallVector<int64_t, 4> ldgsts::vectorCoord(const Width &width,
                                                  int64_t q) {
  llvm::SmallVector<int64_t, 4> c(width.grid.size());
  for (size_t d = width.grid.size(); d-- > 0;) {
    c[d] = q % width.grid[d];
    q /= width.grid[d];
  }
  c.back() *= width.elements;
  return c;
}

OrReason<Plan> ldgsts::planCooperativeCopy(const Request &r) {
  using R = OrReason<Plan>;
  if (r.sizes.empty())
    return R::failure("the region has no dims");
  if (r.elementBits == 0 || r.elementBits % 8 ||
      (r.elementBits / 8 & (r.elementBits / 8 - 1)) || r.elementBits > 128)
    return R::failure(str(r.elementBits) + "-bit elements; cp.async moves "
                      "whole 1-, 2-, 4-, 8- or 16-byte elements");
  if (r.threads < 1)
    return R::failure("no threads issue the copy");
  const GlobalSide &g = r.global;
  if (g.strides.size() < r.sizes.size() || g.offsets.size() != g.strides.size())
    return R::failure("the global tensor has fewer dims than the region");
  if (g.strides.back() != 1)
    return R::failure(
        g.strides.back() == kDynamic
            ? "the innermost global stride is only known at run time; "
              "cp.async moves contiguous bytes (a stride of 1 is needed)"
            : "the innermost global stride is " + str(g.strides.back()) +
                  "; cp.async moves contiguous bytes (a stride of 1 is "
                  "needed)");
  if (r.shared.offsets.size() != r.sizes.size() ||
      r.shared.shape.size() != r.sizes.size())
    return R::failure("the shared side has rank " +
                      str(r.shared.shape.size()) + "; the region has rank " +
                      str(r.sizes.size()));
  int64_t elements = 1;
  for (size_t d = 0; d < r.sizes.size(); ++d) {
    if (r.sizes[d] < 1)
      return R::failure("region size " + str(r.sizes[d]) + " in dim " + str(d));
    if (r.shared.offsets[d] < 0 ||
        r.shared.offsets[d] + r.sizes[d] > r.shared.shape[d])
      return R::failure("the region leaves the shared tile in dim " + str(d));
    elements *= r.sizes[d];
    if (elements > kMaxRegionElements)
      return R::failure("the region has more than " + str(kMaxRegionElements) +
                        " elements");
  }

  Plan plan;
  plan.totalBytes = elements * (r.elementBits / 8);
  std::string narrowest;
  for (int64_t bytes : {16, 8, 4}) {
    if (bytes > r.maxVectorBytes)
      continue;
    Width w;
    w.bytes = bytes;
    std::string problem = widthProblem(r, w);
    if (problem.empty())
      plan.widths.push_back(std::move(w));
    else
      narrowest = str(bytes) + "-byte vectors: " + problem;
  }
  if (plan.widths.empty())
    return R::failure(narrowest.empty()
                          ? "no cp.async size (4, 8, 16) is at most " +
                                str(r.maxVectorBytes) + " bytes"
                          : narrowest);
  return plan;
}

//===- StMatrixPlanner.h - tile.store of registers through stmatrix -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Whether a `tile.store` of a register tile to shared memory can be
// `stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16` (PTX ISA,
// "Warp-level matrix store instruction: stmatrix", sm_90), and how.
// MLIR-free: the request is every thread's element offsets.
//
// One stmatrix stores `count` 8x8 matrices of 16-bit elements per warp.
// Lane l = 4q + r holds, in its 32-bit source register i, the elements
// (q, 2r) and (q, 2r + 1) of matrix i (low half first); each matrix row is
// 8 elements contiguous in shared memory, 16-byte aligned, its address
// supplied by lane 8i + row. With .trans the matrix is stored transposed:
// lane (q, r)'s two elements go to column q of rows 2r and 2r + 1.
//
// The plan pairs each thread's elements 2p, 2p + 1 (in the tile's element
// order) into source registers, groups consecutive pairs into x4
// instructions (x2 or x1 where the rows of four are not a constant plus
// one step per lane bit, or pairs run out), and checks every element of every lane of every warp:
// non-transposed, element e of pair P of lane (q, r) must be at
// row(q) + 2r + e; transposed, at row(2r + e) + q; each row start a
// multiple of 8 elements. The row address lane l supplies is the offset of
// one element (`rowElement`) of one thread of its warp (`rowThread`): the
// emitter computes exactly that, and the check uses the same functions.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_LOCAL_STMATRIXPLANNER_H
#define TILE_VARIANTS_CUDA_LOCAL_STMATRIXPLANNER_H

#include "tile/Support/OrReason.h"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace tile::stmatrix {

struct Request {
  /// The destination's element width (the stored type's).
  unsigned bits = 16;
  /// offset[t][e]: where element e of thread t (of the tile's threads, a
  /// multiple of 32) goes, in destination elements before the swizzle,
  /// relative to a runtime base (the buffer and the region's runtime
  /// offsets). Thread 0's offsets are the per-element constants: a
  /// thread's offset is its digits' part plus thread 0's.
  std::vector<std::vector<int64_t>> offset;
  /// What the runtime base is known to be a multiple of, in elements.
  int64_t baseAlignment = 1;
  /// Elements the destination's swizzle keeps together in place (2^base of
  /// swizzle<B,M,S>), or 0 when unswizzled.
  int64_t swizzleChunk = 0;
};

struct Instruction {
  /// Pairs firstPair .. firstPair + count - 1 are matrices 0 .. count - 1.
  int64_t firstPair = 0;
  int64_t count = 4;
  /// The row address lane l supplies, less its thread's digit part:
  /// rowBase + Σ_b bit b of l × laneBitStep[b].
  int64_t rowBase = 0;
  std::array<int64_t, 5> laneBitStep{};

  bool operator==(const Instruction &o) const {
    return firstPair == o.firstPair && count == o.count &&
           rowBase == o.rowBase && laneBitStep == o.laneBitStep;
  }
};

struct Plan {
  bool transpose = false;
  /// The elements of each 32-bit source register (low half first).
  std::vector<std::pair<int64_t, int64_t>> pairs;
  std::vector<Instruction> instructions;
};

/// The thread whose digits give the row address that thread `t` supplies:
/// non-transposed lane 4 × (l % 8) (row l % 8 is that lane's q), transposed
/// lane (l % 8) / 2 (rows 2r, 2r + 1 are lane r's pair); same warp.
int64_t rowThread(bool transpose, int64_t t);

/// The element (of rowThread's) whose offset is the row address lane `l`
/// supplies for `instr`: the first element of the pair of matrix
/// (l / 8) % count (transposed: its element l % 2).
int64_t rowElement(const Plan &plan, const Instruction &instr, int64_t lane);

/// The plan, or why the store cannot be stmatrix (the caller then stores
/// element runs).
OrReason<Plan> planStMatrix(const Request &request);

} // namespace tile::stmatrix

#endif // TILE_VARIANTS_CUDA_LOCAL_STMATRIXPLANNER_H

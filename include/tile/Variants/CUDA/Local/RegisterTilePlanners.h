//===- RegisterTilePlanners.h - plan compute on register tiles --*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pure planners of `tile.map`, `tile.reduce` and `tile.convert`
// (MLIR-free). A local tile's layout says, for every element, which
// threads hold it and in which register (`RegisterTable`, built by running
// the layout over every element and replica). The planners simulate every
// thread of the executing group (a warpgroup, a warp, or one thread for
// uniform tiles) and accept only what one straight-line program, the same
// for every thread, can do: read a register whose index does not depend on
// the thread, combine, shuffle across lanes with `shfl.sync.bfly`.
//
// A thread index is `tid.x` modulo the tile's thread count (128, 32 or 1),
// so a warp-held tile is the same in every warp of a warpgroup, and a
// uniform tile (no thread axis) is whole in every thread.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_LOCAL_REGISTERTILEPLANNERS_H
#define TILE_VARIANTS_CUDA_LOCAL_REGISTERTILEPLANNERS_H

#include "tile/Layout/Layout.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <vector>

namespace tile::local {

/// Which element each (thread, register) of a local tile holds.
class RegisterTable {
public:
  /// The table of `layout` over a tile of `shape`, or why the layout is
  /// not a local one (localThreads).
  static OrReason<RegisterTable> build(const TileLayout &layout,
                                       llvm::ArrayRef<int64_t> shape);

  /// 128 (a warpgroup), 32 (a warp) or 1 (every thread holds the tile).
  int64_t threads() const { return numThreads; }
  int64_t registers() const { return numRegisters; }
  llvm::ArrayRef<int64_t> shape() const { return tileShape; }
  /// Registers that hold an element (the same in every thread), ascending.
  llvm::ArrayRef<int64_t> usedRegisters() const { return used; }

  /// The row-major index of the element thread `t` (taken modulo
  /// threads()) holds in register `r`, or -1.
  int64_t element(int64_t t, int64_t r) const;
  /// The register in which thread `t` (modulo threads()) holds element
  /// `flat`, or -1 when it does not hold it.
  int64_t registerOf(int64_t t, int64_t flat) const;
  /// The threads (in [0, threads())) that hold `flat`.
  llvm::SmallVector<int64_t, 4> holders(int64_t flat) const;

  llvm::SmallVector<int64_t, 4> coord(int64_t flat) const;
  int64_t flat(llvm::ArrayRef<int64_t> coord) const;

private:
  int64_t numThreads = 1, numRegisters = 0;
  llvm::SmallVector<int64_t, 4> tileShape;
  std::vector<int64_t> elements; // [t * registers + r]
  llvm::DenseMap<int64_t, int64_t> registerOfElement; // flat * threads + t
  llvm::SmallVector<int64_t> used;
};

/// `(2,0)`-style text of a coordinate, for reasons.
std::string coordText(llvm::ArrayRef<int64_t> coord);

/// Register `reg` of a table whose element (row-major) in thread t is
/// base + the sum of threadStep[b] over the set bits b of t: what a thread
/// computes from its index to address a shared scratch by element.
struct AffineRegister {
  int64_t reg = 0;
  int64_t base = 0;
  llvm::SmallVector<int64_t, 7> threadStep;

  /// The element thread `t` holds.
  int64_t elementOf(int64_t t) const {
    int64_t e = base;
    for (size_t b = 0; b < threadStep.size(); ++b)
      if (t >> b & 1)
        e += threadStep[b];
    return e;
  }
};

/// Register `r` of `table` as an AffineRegister, or why its element is not
/// such a function of the thread.
OrReason<AffineRegister> affineRegister(const RegisterTable &table, int64_t r);

//===----------------------------------------------------------------------===//
// tile.map
//===----------------------------------------------------------------------===//

struct MapPlan {
  struct Element {
    int64_t outputRegister;
    /// Per input: the register holding the element (the broadcast one).
    llvm::SmallVector<int64_t, 4> inputRegisters;
    /// The element's coordinate in thread 0.
    llvm::SmallVector<int64_t, 2> coord;
    /// The register holding its `where` guard (-1: unguarded).
    int64_t guardRegister = -1;
  };
  llvm::SmallVector<Element> elements;
  /// Guarded maps: the elements by the guard register they read (indices
  /// into `elements`, in order of first use): one branch per group.
  struct GuardGroup {
    int64_t guardRegister;
    llvm::SmallVector<size_t> elements;
  };
  llvm::SmallVector<GuardGroup> guardGroups;
  /// Threads simulated (the largest group among the tiles).
  int64_t threads = 1;
  /// Coordinates are coord(0) + sum over thread bits b set in the thread of
  /// threadBitStep[b] (per dim); log2(threads) entries when they are.
  bool coordinatesAffine = true;
  std::string coordinatesReason;
  llvm::SmallVector<llvm::SmallVector<int64_t, 2>, 7> threadBitStep;
};

/// Plans `output = f(inputs...)` element by element: every thread must hold,
/// for each output element it holds, each input's element at the same
/// coordinate (broadcast dims, of extent 1, at 0) in a register fixed for
/// all threads. Declines naming the thread and element otherwise. A `guard`
/// (the `where` tile) is placed like an input, and the elements grouped by
/// the register holding it.
OrReason<MapPlan> planMap(const RegisterTable &output,
                          llvm::ArrayRef<RegisterTable> inputs,
                          const RegisterTable *guard = nullptr);

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

struct ReducePlan {
  struct Row {
    int64_t outputRegister;
    /// The thread's input registers of the row, ascending (combined as a
    /// pairwise tree).
    llvm::SmallVector<int64_t, 8> inputRegisters;
    /// Across warps: the row's output element (row-major) per thread.
    AffineRegister key;
  };
  llvm::SmallVector<Row> rows;
  /// Lane xor offsets of the butterfly, ascending (empty: in-thread).
  llvm::SmallVector<int64_t, 5> laneMasks;
  /// Thread xor offsets (32, 64) of the warps a row spans; empty unless
  /// the warps combine through shared memory.
  llvm::SmallVector<int64_t, 2> warpMasks;
  /// Across warps: the warpgroup's scratch, in 32-bit words: one partial
  /// per output element and warp of its row, word
  /// key * warpPartials() + the warp's index among them.
  int64_t scratchWords = 0;
  int64_t warpPartials() const { return int64_t(1) << warpMasks.size(); }
};

/// Plans the reduction of `input` along `dims` into `output` (the input's
/// shape with those dims of extent 1). Each thread combines its own
/// registers of each row; with `allowLanes`, the threads holding one row
/// must then be the lanes reached by xor of a set of lane bits (one
/// butterfly step per bit), every one of them holding a disjoint part of
/// the row and the output element in the same register. With
/// `allowWarps` the row may also span the warps of the warpgroup: each
/// warp's partial goes through shared scratch, indexed by an output
/// element affine in the thread's bits. Declines naming the rule otherwise.
OrReason<ReducePlan> planReduce(const RegisterTable &input,
                                const RegisterTable &output,
                                llvm::ArrayRef<int64_t> dims, bool allowLanes,
                                bool allowWarps = false);

//===----------------------------------------------------------------------===//
// tile.convert
//===----------------------------------------------------------------------===//

struct ConvertPlan {
  /// (result register, source register), ascending result registers.
  llvm::SmallVector<std::pair<int64_t, int64_t>> moves;
};

/// Plans a conversion in which every thread already holds, in a register
/// fixed for all threads, each source element of the result elements it
/// holds (no data crosses threads). Declines naming the element otherwise.
OrReason<ConvertPlan> planRegisterConvert(const RegisterTable &source,
                                          const RegisterTable &result);

struct ShuffleConvertPlan {
  struct Move {
    int64_t resultRegister, sourceRegister;
    /// The lane thread t reads (shfl.sync.idx): laneXor xor, for every set
    /// bit b of t's lane, laneBitColumn[b]. A pure xor (the columns are
    /// the identity) is a butterfly; 0 and the identity: no shuffle.
    int64_t laneXor = 0;
    std::array<int64_t, 5> laneBitColumn{};
    bool isButterfly() const {
      for (int b = 0; b < 5; ++b)
        if (laneBitColumn[b] != (int64_t(1) << b))
          return false;
      return true;
    }
  };
  llvm::SmallVector<Move> moves;
};

/// Plans a conversion in which each result element of thread t comes from
/// one source register (fixed for all threads) of a lane of t's warp, that
/// lane an affine function of t's lane over its bits (shfl.sync.idx, or
/// .bfly for a constant xor). Declines naming the element otherwise (data
/// crossing warps needs shared memory).
OrReason<ShuffleConvertPlan> planShuffleConvert(const RegisterTable &source,
                                                const RegisterTable &result);

struct SharedConvertPlan {
  /// The source registers each writing thread stores, at its element.
  llvm::SmallVector<AffineRegister> writes;
  /// Thread bits that only replicate the source: a thread writes when
  /// (t & replicaBits) == 0, so each element is written once.
  int64_t replicaBits = 0;
  /// The result registers each thread loads, from its element.
  llvm::SmallVector<AffineRegister> reads;
  /// Elements of the scratch, per warpgroup (the tile's).
  int64_t elements = 0;
};

/// Plans a conversion of warpgroup tiles through shared memory: each
/// element written once by a thread holding it, then every thread reads
/// its result elements. Both layouts must address elements affinely in
/// the thread bits. Declines naming the register otherwise.
OrReason<SharedConvertPlan> planSharedConvert(const RegisterTable &source,
                                              const RegisterTable &result);

} // namespace tile::local

#endif // TILE_VARIANTS_CUDA_LOCAL_REGISTERTILEPLANNERS_H

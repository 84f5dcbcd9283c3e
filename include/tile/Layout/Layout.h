//===- Layout.h - The tile layout algebra -----------------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A TileLayout maps the logical elements of a tile to addresses on one or more
// hardware axes (memory, tensor-memory lanes/columns, threads, cluster CTAs):
//
//   S[(e0,e1,...):(s0@ax0,s1@ax1,...)]   shard iters: the flattened row-major
//                                        logical index decomposes in mixed
//                                        radix (e0,e1,...); digit i adds
//                                        digit * si on axis axi.
//   + R[(r0,...):(t0@ax,...)]            replica iters: every element is also
//                                        present at each replica offset.
//   + k@ax                               a constant offset on axis ax.
//   , swizzle<B,M,S>                     an XOR swizzle applied last to the
//                                        memory-axis address (element units).
//
// A bare stride or offset (no `@ax`) is on the memory axis `m`. This header is
// MLIR-free on purpose: planners and unit tests use it without building IR.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_LAYOUT_H
#define TILE_LAYOUT_LAYOUT_H

#include "tile/Support/OrReason.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

namespace tile {

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

/// The hardware axes a layout can address.
enum class Axis : uint8_t {
  m,        ///< memory (global, shared or local), in elements
  TLane,    ///< tensor-memory lane (row)
  TCol,     ///< tensor-memory column, in elements of the tile's dtype
  laneid,   ///< lane within a warp
  warpid,   ///< warp within the CTA
  tid_in_wg, ///< thread within a warpgroup
  wid_in_wg, ///< warp within a warpgroup
  tx,       ///< thread within the CTA
  cta,      ///< CTA rank within the cluster
};
constexpr unsigned kNumAxes = 9;

llvm::StringRef axisName(Axis axis);
std::optional<Axis> axisFromName(llvm::StringRef name);
/// Space-separated list of every axis name, for diagnostics.
std::string allAxisNames();
bool isThreadAxis(Axis axis);
bool isTensorMemoryAxis(Axis axis);

/// One address per axis.
using AxisAddress = std::array<int64_t, kNumAxes>;
inline int64_t &at(AxisAddress &a, Axis axis) {
  return a[static_cast<unsigned>(axis)];
}
inline int64_t at(const AxisAddress &a, Axis axis) {
  return a[static_cast<unsigned>(axis)];
}

//===----------------------------------------------------------------------===//
// Iterators, offsets, swizzle
//===----------------------------------------------------------------------===//

struct Iter {
  int64_t extent = 1;
  int64_t stride = 0;
  Axis axis = Axis::m;

  bool operator==(const Iter &o) const {
    return extent == o.extent && stride == o.stride && axis == o.axis;
  }
  bool operator!=(const Iter &o) const { return !(*this == o); }
};
llvm::hash_code hash_value(const Iter &iter);

struct AxisOffset {
  Axis axis = Axis::m;
  int64_t offset = 0;

  bool operator==(const AxisOffset &o) const {
    return axis == o.axis && offset == o.offset;
  }
  bool operator!=(const AxisOffset &o) const { return !(*this == o); }
};
llvm::hash_code hash_value(const AxisOffset &offset);

/// XOR swizzle on memory-axis element addresses (CuTe's Swizzle<B,M,S>):
/// bits [M+S, M+S+B) are XORed into bits [M, M+B). `bits == 0` is identity.
struct Swizzle {
  unsigned bits = 0;
  unsigned base = 0;
  unsigned shift = 0;

  bool isIdentity() const { return bits == 0; }
  int64_t apply(int64_t address) const {
    if (bits == 0)
      return address;
    int64_t mask = ((int64_t(1) << bits) - 1) << (base + shift);
    return address ^ ((address & mask) >> shift);
  }
  /// Addresses congruent modulo the period are swizzled identically.
  int64_t period() const {
    return bits == 0 ? 1 : int64_t(1) << (bits + base + shift);
  }
  bool operator==(const Swizzle &o) const {
    return bits == o.bits && base == o.base && shift == o.shift;
  }
  bool operator!=(const Swizzle &o) const { return !(*this == o); }

  /// `swizzle<B,M,S>`.
  std::string toString() const;
  /// Why the fields are out of range (1 <= B <= 8, B <= S <= 16, M <= 16),
  /// or "" for a valid (or identity) swizzle.
  std::string problem() const;
};
llvm::hash_code hash_value(const Swizzle &swizzle);

/// The NVMMA shared-memory swizzle modes of TMA, wgmma and tcgen05.
/// B128Atom32B is the 128-byte swizzle moving 32-byte chunks (tcgen05
/// descriptor layout type 1, TMA's SWIZZLE_128B_ATOM_32B): the only form in
/// which tcgen05.mma reads MN-major tf32 operands.
enum class SwizzleMode : uint8_t { None, B32, B64, B128, B128Atom32B };
llvm::StringRef swizzleModeName(SwizzleMode mode);
/// Bytes per swizzled row (0 for None).
unsigned swizzleBytes(SwizzleMode mode);
/// The element-unit swizzle of `mode` for elements of `elementBits` bits
/// (16-byte chunks of one row XORed with the row index modulo the atom;
/// B128Atom32B: 32-byte chunks XORed with the row index modulo 4).
Swizzle nvmmaSwizzle(SwizzleMode mode, unsigned elementBits);
/// The NVMMA mode `swizzle` is for `elementBits`, or nullopt if it is none.
std::optional<SwizzleMode> classifyNvmmaSwizzle(const Swizzle &swizzle,
                                                unsigned elementBits);

//===----------------------------------------------------------------------===//
// TileLayout
//===----------------------------------------------------------------------===//

struct GroupedLayout;
struct SliceResult;
struct ContiguousChain;

class TileLayout {
public:
  TileLayout() = default;
  explicit TileLayout(llvm::ArrayRef<Iter> shard,
                      llvm::ArrayRef<Iter> replica = {},
                      llvm::ArrayRef<AxisOffset> offsets = {},
                      Swizzle swizzle = {})
      : shardIters(shard.begin(), shard.end()),
        replicaIters(replica.begin(), replica.end()),
        axisOffsets(offsets.begin(), offsets.end()), swz(swizzle) {}
  /// `TileLayout({...})` with only shard iters (a braced list would otherwise
  /// be ambiguous with the copy constructor).
  explicit TileLayout(std::initializer_list<Iter> shard)
      : TileLayout(llvm::ArrayRef<Iter>(shard)) {}

  /// Dense row-major layout of `shape` on `axis` (innermost stride 1).
  static TileLayout rowMajor(llvm::ArrayRef<int64_t> shape, Axis axis = Axis::m);

  llvm::ArrayRef<Iter> shard() const { return shardIters; }
  llvm::ArrayRef<Iter> replica() const { return replicaIters; }
  llvm::ArrayRef<AxisOffset> offsets() const { return axisOffsets; }
  const Swizzle &swizzle() const { return swz; }

  /// Structural sanity: 1 <= extents <= 2^32, 0 <= strides <= 2^40, offsets
  /// in [0, 2^48], (extent-1)*stride <= 2^48, at most 2^48 elements (so no size, span or cosize can
  /// overflow), swizzle fields in range. Returns the first problem, or "".
  /// The other operations assume a valid layout.
  std::string validate() const;

  /// Number of logical elements (product of shard extents).
  int64_t size() const;
  /// Number of replicas of each element (product of replica extents).
  int64_t replicaCount() const;
  bool usesAxis(Axis axis) const;
  /// Constant offset on `axis`.
  int64_t offset(Axis axis) const;

  /// Address of logical element `flatIndex` (row-major over the shard), for
  /// replica `replicaIndex`. The swizzle is applied to the memory axis last.
  AxisAddress apply(int64_t flatIndex, int64_t replicaIndex = 0) const;
  /// Address of the element at `coord` of a tile of `shape` (row-major).
  AxisAddress apply(llvm::ArrayRef<int64_t> coord,
                    llvm::ArrayRef<int64_t> shape,
                    int64_t replicaIndex = 0) const;

  /// 1 + the largest address step on `axis` reachable from the shard and
  /// replica iters (no offset, no swizzle).
  int64_t span(Axis axis) const;
  /// Addresses needed on `axis`: offset + span, rounded up to the swizzle's
  /// period on the memory axis (a swizzle permutes inside its period).
  int64_t cosize(Axis axis) const;

  /// Same function, fewest iters: drops extent-1 iters and zero offsets,
  /// fuses adjacent iters (outer stride == inner extent * inner stride).
  TileLayout canonicalize() const;

  /// Splits shard iters so that consecutive groups multiply to each dim of
  /// `shape`. Fails when an iter straddles two dims.
  OrReason<GroupedLayout> group(llvm::ArrayRef<int64_t> shape) const;

  /// The layout of the region [offsets, offsets+sizes) of a tile of `shape`:
  /// element t of the region sits at `residual.apply(t)`, which equals
  /// `apply(offsets + t)`. `offset` is the added per-axis offset. Fails when
  /// the region is not a product of (partial) iters.
  OrReason<SliceResult> slice(llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<int64_t> offsets,
                              llvm::ArrayRef<int64_t> sizes) const;

  /// Reorders the dims of a tile of `shape`: result dim i is source dim
  /// perm[i]. The result is a layout of the permuted shape.
  OrReason<TileLayout> permuteDims(llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<unsigned> perm) const;

  /// Direct sum: the layout of shape (shape(outer) ++ shape(inner)) whose
  /// address is outer(a) + inner(b) per axis. A swizzle on one side is kept
  /// only when every memory-axis stride/offset of the other is a multiple of
  /// its period (so the swizzle commutes with the addition).
  static OrReason<TileLayout> directSum(const TileLayout &outer,
                                        const TileLayout &inner);

  /// Blocked product: a tile of shape outerShape[d] * innerShape[d], where
  /// coordinate x[d] = o[d] * innerShape[d] + i[d] maps to outer(o) + inner(i).
  static OrReason<TileLayout> tile(const TileLayout &outer,
                                   llvm::ArrayRef<int64_t> outerShape,
                                   const TileLayout &inner,
                                   llvm::ArrayRef<int64_t> innerShape);

  /// Repeats this layout (of `innerShape`) to cover `targetShape`, the blocks
  /// placed row-major on the memory axis, each `cosize(m)` elements apart.
  OrReason<TileLayout> tileTo(llvm::ArrayRef<int64_t> innerShape,
                              llvm::ArrayRef<int64_t> targetShape) const;

  /// The longest run of logically consecutive elements that are also
  /// consecutive on the memory axis (ignoring the swizzle).
  ContiguousChain contiguousChain() const;

  /// One thread's storage: the layout with every thread-axis iter, replica
  /// and offset removed.
  TileLayout storage() const;

  /// The layout notation, e.g. `S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]`.
  std::string toString() const;

  bool operator==(const TileLayout &o) const {
    return shardIters == o.shardIters && replicaIters == o.replicaIters &&
           axisOffsets == o.axisOffsets && swz == o.swz;
  }
  bool operator!=(const TileLayout &o) const { return !(*this == o); }

private:
  llvm::SmallVector<Iter, 4> shardIters;
  llvm::SmallVector<Iter, 1> replicaIters;
  llvm::SmallVector<AxisOffset, 1> axisOffsets;
  Swizzle swz;
};

struct GroupedLayout {
  /// The layout with its shard iters split to align with the groups.
  TileLayout layout;
  /// groupBegin[d] .. groupBegin[d+1] are the shard iters of dim d.
  llvm::SmallVector<unsigned, 5> groupBegin;

  unsigned rank() const { return groupBegin.size() - 1; }
  llvm::ArrayRef<Iter> group(unsigned dim) const {
    return layout.shard().slice(groupBegin[dim],
                                groupBegin[dim + 1] - groupBegin[dim]);
  }
};

struct SliceResult {
  AxisAddress offset{};
  TileLayout residual;
};

struct ContiguousChain {
  /// Number of consecutive elements (1 if the innermost iter is not stride 1
  /// on the memory axis).
  int64_t elements = 1;
  /// Number of innermost iters of the canonical layout that form the chain.
  unsigned iters = 0;
};

//===----------------------------------------------------------------------===//
// Builders for standard layouts
//===----------------------------------------------------------------------===//

/// The NVMMA shared layout of a `rows x cols` tile (cols contiguous) used by
/// TMA, wgmma and tcgen05: with a swizzle of W bytes, columns are cut into
/// atoms of W bytes; atoms of all rows are stacked column-block by column-block
/// (8 rows x W bytes is one swizzle atom). `None` is plain row-major.
OrReason<TileLayout> nvmmaSharedLayout(unsigned elementBits, int64_t rows,
                                       int64_t cols, SwizzleMode mode);

/// Tensor-memory layout with tile row r in lane r and column c at TCol c:
/// `S[(rows,cols):(1@TLane,1@TCol)]`, rows <= 128 (a 128-lane accumulator is
/// rows = 128).
OrReason<TileLayout> tmemLaneLayout(int64_t rows, int64_t cols);

/// A 32-row tile broadcast into every warp's 32-lane subpartition (the
/// tcgen05.cp 32x128b.warpx4 destination):
/// `S[(32,cols):(1@TLane,1@TCol)] + R[4:32@TLane]`; `copies` is 2 or 4.
OrReason<TileLayout> tmemWarpBroadcastLayout(int64_t cols, int64_t copies = 4);

//===----------------------------------------------------------------------===//
// Register-resident (local) tiles
//===----------------------------------------------------------------------===//

/// The most registers one thread's part of a local tile may use (elements of
/// its memory-axis cosize); beyond, LLVM would not keep it in registers.
constexpr int64_t kMaxLocalRegisters = 1024;

/// A thread's index inside its thread group from an address's thread axes:
/// `tid_in_wg + 32 wid_in_wg + laneid` (a warp's lanes are threads 32w..).
int64_t threadInGroup(const AxisAddress &address);

/// How a local layout spreads a tile over threads: `threads` is 128 (a
/// warpgroup: names `tid_in_wg` or `wid_in_wg`), 32 (a warp: `laneid`
/// only) or 1 (no thread axis: every thread holds the whole tile);
/// `registers` is the memory-axis cosize, each thread's element count.
struct LocalThreads {
  int64_t threads = 1;
  int64_t registers = 0;
};

/// Checks a local tile's layout: thread axes only of a warp or warpgroup
/// (`laneid`, `wid_in_wg`, `tid_in_wg`), no thread offsets, thread iters
/// (shard and replica together) that cover the group's threads exactly once
/// (strides 1, e1, e1*e2, ... in thread units after `threadInGroup`),
/// replicas only on thread axes (an element copied to other threads, e.g. a
/// row vector on each thread of its row), distinct registers per element
/// of a thread, at most kMaxLocalRegisters.
OrReason<LocalThreads> localThreads(const TileLayout &layout);

} // namespace tile

#endif // TILE_LAYOUT_LAYOUT_H

//===- Layout.cpp - The tile layout algebra ---------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace tile;
using llvm::ArrayRef;
using llvm::SmallVector;

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

static constexpr const char *kAxisNames[kNumAxes] = {
    "m", "TLane", "TCol", "laneid", "warpid", "tid_in_wg", "wid_in_wg", "tx",
    "cta"};

llvm::StringRef tile::axisName(Axis axis) {
  return kAxisNames[static_cast<unsigned>(axis)];
}

std::optional<Axis> tile::axisFromName(llvm::StringRef name) {
  for (unsigned i = 0; i < kNumAxes; ++i)
    if (name == kAxisNames[i])
      return static_cast<Axis>(i);
  return std::nullopt;
}

std::string tile::allAxisNames() {
  std::string s;
  for (unsigned i = 0; i < kNumAxes; ++i) {
    if (i)
      s += ", ";
    s += kAxisNames[i];
  }
  return s;
}

bool tile::isThreadAxis(Axis axis) {
  return llvm::is_contained(
      {Axis::laneid, Axis::warpid, Axis::tid_in_wg, Axis::wid_in_wg, Axis::tx},
      axis);
}

bool tile::isTensorMemoryAxis(Axis axis) {
  return axis == Axis::TLane || axis == Axis::TCol;
}

llvm::hash_code tile::hash_value(const Iter &iter) {
  return llvm::hash_combine(iter.extent, iter.stride,
                            static_cast<unsigned>(iter.axis));
}
llvm::hash_code tile::hash_value(const AxisOffset &offset) {
  return llvm::hash_combine(static_cast<unsigned>(offset.axis), offset.offset);
}
llvm::hash_code tile::hash_value(const Swizzle &swizzle) {
  return llvm::hash_combine(swizzle.bits, swizzle.base, swizzle.shift);
}

/// One entry per axis with a non-zero offset, in axis order.
static SmallVector<AxisOffset, 2> mergeOffsets(ArrayRef<AxisOffset> offsets) {
  AxisAddress sum{};
  for (const AxisOffset &o : offsets)
    at(sum, o.axis) += o.offset;
  SmallVector<AxisOffset, 2> out;
  for (unsigned a = 0; a < kNumAxes; ++a)
    if (sum[a] != 0)
      out.push_back(AxisOffset{static_cast<Axis>(a), sum[a]});
  return out;
}

std::string Swizzle::toString() const {
  return "swizzle<" + std::to_string(bits) + "," + std::to_string(base) + "," +
         std::to_string(shift) + ">";
}

std::string Swizzle::problem() const {
  if (isIdentity() || (bits <= 8 && base <= 16 && shift <= 16 && shift >= bits))
    return {};
  return toString() +
         " is out of range: need 1 <= B <= 8, B <= S <= 16, M <= 16";
}

//===----------------------------------------------------------------------===//
// Swizzle modes
//===----------------------------------------------------------------------===//

llvm::StringRef tile::swizzleModeName(SwizzleMode mode) {
  switch (mode) {
  case SwizzleMode::None:
    return "none";
  case SwizzleMode::B32:
    return "32B";
  case SwizzleMode::B64:
    return "64B";
  case SwizzleMode::B128:
    return "128B";
  case SwizzleMode::B128Atom32B:
    return "128B_atom_32B";
  }
  return "?";
}

unsigned tile::swizzleBytes(SwizzleMode mode) {
  switch (mode) {
  case SwizzleMode::None:
    return 0;
  case SwizzleMode::B32:
    return 32;
  case SwizzleMode::B64:
    return 64;
  case SwizzleMode::B128:
  case SwizzleMode::B128Atom32B:
    return 128;
  }
  return 0;
}

Swizzle tile::nvmmaSwizzle(SwizzleMode mode, unsigned elementBits) {
  if (mode == SwizzleMode::None || elementBits == 0 || elementBits > 128 ||
      !llvm::isPowerOf2_32(elementBits))
    return {};
  // 32-byte chunks move within a 128-byte row, XORed with the row index
  // modulo 4 (byte-address bits [5,7) ^= [7,9)).
  if (mode == SwizzleMode::B128Atom32B)
    return elementBits > 256 ? Swizzle{}
                             : Swizzle{2, llvm::Log2_32(256 / elementBits), 2};
  // 16-byte chunks are the unit that moves: 128 / elementBits elements.
  unsigned base = llvm::Log2_32(128 / elementBits);
  unsigned bits = llvm::Log2_32(swizzleBytes(mode) / 16);
  // A W-byte row holds W/16 chunks (`bits` chunk-index bits); the row index
  // modulo W/16 sits `shift` = 3 bits above the chunk index in a 128-byte
  // stride of rows, so the pattern repeats every 8 rows of 16-byte units.
  return Swizzle{bits, base, 3};
}

std::optional<SwizzleMode> tile::classifyNvmmaSwizzle(const Swizzle &swizzle,
                                                      unsigned elementBits) {
  for (SwizzleMode mode : {SwizzleMode::B32, SwizzleMode::B64,
                           SwizzleMode::B128, SwizzleMode::B128Atom32B})
    if (nvmmaSwizzle(mode, elementBits) == swizzle)
      return mode;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// TileLayout basics
//===----------------------------------------------------------------------===//

TileLayout TileLayout::rowMajor(ArrayRef<int64_t> shape, Axis axis) {
  SmallVector<Iter, 4> iters(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    iters[i] = Iter{shape[i], stride, axis};
    stride *= shape[i];
  }
  return TileLayout(iters);
}

/// Magnitude limits that keep every product and sum of the algebra inside
/// int64 (sizes, spans, cosizes): far beyond any GPU tile.
static constexpr int64_t kMaxExtent = int64_t(1) << 32;
static constexpr int64_t kMaxStride = int64_t(1) << 40;
static constexpr int64_t kMaxSize = int64_t(1) << 48;

std::string TileLayout::validate() const {
  auto checkIters = [](ArrayRef<Iter> iters, const char *kind) -> std::string {
    int64_t product = 1;
    for (auto [i, it] : llvm::enumerate(iters)) {
      std::string where = std::string(kind) + " iter " + std::to_string(i);
      // `field` = `v` outside [lo, hi] (`hiText` spells hi).
      auto outside = [&](const char *field, int64_t v, int64_t lo, int64_t hi,
                         const char *hiText) -> std::string {
        std::string head = where + " has " + field + " " + std::to_string(v) +
                           "; " + field + "s must be ";
        if (v < lo)
          return head + ">= " + std::to_string(lo);
        if (v > hi)
          return head + "<= " + hiText;
        return {};
      };
      if (std::string e = outside("extent", it.extent, 1, kMaxExtent, "2^32");
          !e.empty())
        return e;
      if (std::string e = outside("stride", it.stride, 0, kMaxStride, "2^40");
          !e.empty())
        return e;
      // Each iter reaches at most 2^48 addresses; with at most 96 non-unit
      // iters (extents multiply to <= 2^48 per kind) spans stay < 2^55.
      if (it.extent > 1 && it.stride > kMaxSize / (it.extent - 1))
        return where + " (" + std::to_string(it.extent) + ":" +
               std::to_string(it.stride) + ") reaches beyond address 2^48";
      product *= it.extent; // < 2^32 * 2^48: no overflow before the check
      if (product > kMaxSize)
        return std::string(kind) + " extents multiply to more than 2^48";
    }
    return {};
  };
  if (std::string e = checkIters(shardIters, "shard"); !e.empty())
    return e;
  if (std::string e = checkIters(replicaIters, "replica"); !e.empty())
    return e;
  for (const AxisOffset &o : axisOffsets)
    if (o.offset < 0 || o.offset > kMaxSize)
      return "offset " + std::to_string(o.offset) + "@" +
             axisName(o.axis).str() + " is outside [0, 2^48]";
  return swz.problem();
}

int64_t TileLayout::size() const {
  int64_t n = 1;
  for (const Iter &it : shardIters)
    n *= it.extent;
  return n;
}

int64_t TileLayout::replicaCount() const {
  int64_t n = 1;
  for (const Iter &it : replicaIters)
    n *= it.extent;
  return n;
}

bool TileLayout::usesAxis(Axis axis) const {
  auto onAxis = [&](const Iter &it) { return it.axis == axis; };
  return llvm::any_of(shardIters, onAxis) ||
         llvm::any_of(replicaIters, onAxis) ||
         llvm::any_of(axisOffsets,
                      [&](const AxisOffset &o) { return o.axis == axis; });
}

int64_t TileLayout::offset(Axis axis) const {
  int64_t sum = 0;
  for (const AxisOffset &o : axisOffsets)
    if (o.axis == axis)
      sum += o.offset;
  return sum;
}

AxisAddress TileLayout::apply(int64_t flatIndex, int64_t replicaIndex) const {
  AxisAddress addr{};
  for (const AxisOffset &o : axisOffsets)
    at(addr, o.axis) += o.offset;
  for (size_t i = shardIters.size(); i-- > 0;) {
    const Iter &it = shardIters[i];
    at(addr, it.axis) += (flatIndex % it.extent) * it.stride;
    flatIndex /= it.extent;
  }
  for (size_t i = replicaIters.size(); i-- > 0;) {
    const Iter &it = replicaIters[i];
    at(addr, it.axis) += (replicaIndex % it.extent) * it.stride;
    replicaIndex /= it.extent;
  }
  at(addr, Axis::m) = swz.apply(at(addr, Axis::m));
  return addr;
}

AxisAddress TileLayout::apply(ArrayRef<int64_t> coord, ArrayRef<int64_t> shape,
                              int64_t replicaIndex) const {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + coord[d];
  return apply(flat, replicaIndex);
}

int64_t TileLayout::span(Axis axis) const {
  int64_t s = 1;
  for (ArrayRef<Iter> iters : {ArrayRef<Iter>(shardIters),
                               ArrayRef<Iter>(replicaIters)})
    for (const Iter &it : iters)
      if (it.axis == axis)
        s += (it.extent - 1) * it.stride;
  return s;
}

int64_t TileLayout::cosize(Axis axis) const {
  int64_t c = offset(axis) + span(axis);
  if (axis == Axis::m && !swz.isIdentity())
    c = llvm::alignTo(c, static_cast<uint64_t>(swz.period()));
  return c;
}

//===----------------------------------------------------------------------===//
// canonicalize
//===----------------------------------------------------------------------===//

static SmallVector<Iter, 4> fuseIters(ArrayRef<Iter> iters) {
  SmallVector<Iter, 4> out;
  for (const Iter &it : iters) {
    if (it.extent == 1)
      continue;
    if (!out.empty()) {
      Iter &outer = out.back();
      // `outer` precedes `it` (outer digit is more significant).
      if (outer.axis == it.axis && outer.stride == it.extent * it.stride) {
        outer = Iter{outer.extent * it.extent, it.stride, it.axis};
        continue;
      }
    }
    out.push_back(it);
  }
  return out;
}

TileLayout TileLayout::canonicalize() const {
  return TileLayout(fuseIters(shardIters), fuseIters(replicaIters),
                    mergeOffsets(axisOffsets), swz);
}

//===----------------------------------------------------------------------===//
// group / slice / permute
//===----------------------------------------------------------------------===//

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ",";
    s += std::to_string(d);
  }
  return s + ")";
}

OrReason<GroupedLayout> TileLayout::group(ArrayRef<int64_t> shape) const {
  int64_t shapeSize = 1;
  for (int64_t d : shape) {
    if (d < 1)
      return OrReason<GroupedLayout>::failure(
          "shape " + shapeString(shape) + " has a non-positive extent");
    if (__builtin_mul_overflow(shapeSize, d, &shapeSize) ||
        shapeSize > kMaxSize)
      return OrReason<GroupedLayout>::failure(
          "shape " + shapeString(shape) + " has more than 2^48 elements");
  }
  if (shapeSize != size())
    return OrReason<GroupedLayout>::failure(
        "layout has " + std::to_string(size()) + " elements but shape " +
        shapeString(shape) + " has " + std::to_string(shapeSize));

  // Walk dims and iters from the innermost, splitting iters at dim borders.
  SmallVector<SmallVector<Iter, 4>, 4> groups(shape.size());
  SmallVector<Iter, 8> pending(shardIters.begin(), shardIters.end());
  int dim = static_cast<int>(shape.size()) - 1;
  int64_t remaining = dim >= 0 ? shape[dim] : 1;
  while (!pending.empty()) {
    Iter it = pending.back();
    pending.pop_back();
    while (dim > 0 && remaining == 1)
      remaining = shape[--dim];
    if (dim < 0) {
      // Rank-0 shape: only unit iters can remain (size matched).
      continue;
    }
    if (it.extent <= remaining) {
      if (remaining % it.extent != 0)
        return OrReason<GroupedLayout>::failure(
            "shard iter of extent " + std::to_string(it.extent) +
            " straddles dim " + std::to_string(dim) + " of shape " +
            shapeString(shape));
      groups[dim].insert(groups[dim].begin(), it);
      remaining /= it.extent;
      continue;
    }
    if (it.extent % remaining != 0)
      return OrReason<GroupedLayout>::failure(
          "shard iter of extent " + std::to_string(it.extent) +
          " straddles dim " + std::to_string(dim) + " of shape " +
          shapeString(shape));
    // Split: the inner part (remaining) closes this dim.
    groups[dim].insert(groups[dim].begin(),
                       Iter{remaining, it.stride, it.axis});
    pending.push_back(
        Iter{it.extent / remaining, it.stride * remaining, it.axis});
    remaining = 1;
  }

  GroupedLayout g;
  SmallVector<Iter, 8> flat;
  g.groupBegin.push_back(0);
  for (auto &grp : groups) {
    flat.append(grp.begin(), grp.end());
    g.groupBegin.push_back(flat.size());
  }
  if (shape.empty())
    g.groupBegin.assign(1, 0);
  g.layout = TileLayout(flat, replicaIters, axisOffsets, swz);
  return g;
}

OrReason<SliceResult> TileLayout::slice(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> offsets,
                                        ArrayRef<int64_t> sizes) const {
  using R = OrReason<SliceResult>;
  if (offsets.size() != shape.size() || sizes.size() != shape.size())
    return R::failure("region rank does not match the tile rank " +
                      std::to_string(shape.size()));
  for (size_t d = 0; d < shape.size(); ++d) {
    if (sizes[d] < 1 || offsets[d] < 0 || offsets[d] + sizes[d] > shape[d])
      return R::failure("region [" + std::to_string(offsets[d]) + ", " +
                        std::to_string(offsets[d] + sizes[d]) + ") of dim " +
                        std::to_string(d) + " is outside [0, " +
                        std::to_string(shape[d]) + ")");
  }
  // Decide on the function, not its spelling: (8,8):(128,16) is (64):(16).
  OrReason<GroupedLayout> grouped = canonicalize().group(shape);
  if (!grouped)
    return R::failure(grouped.reason());

  SliceResult result;
  SmallVector<Iter, 8> residual;
  for (unsigned d = 0; d < grouped->rank(); ++d) {
    ArrayRef<Iter> g = grouped->group(d);
    SmallVector<Iter, 4> dimIters;
    int64_t n = sizes[d], o = offsets[d];
    for (size_t j = g.size(); j-- > 0;) {
      const Iter &it = g[j];
      int64_t digit = o % it.extent;
      o /= it.extent;
      if (n == 1) {
        at(result.offset, it.axis) += digit * it.stride;
        continue;
      }
      if (n >= it.extent) {
        if (digit != 0 || n % it.extent != 0)
          return R::failure(
              "region [" + std::to_string(offsets[d]) + ", " +
              std::to_string(offsets[d] + sizes[d]) + ") of dim " +
              std::to_string(d) +
              " is not aligned to its inner iter of extent " +
              std::to_string(it.extent));
        dimIters.insert(dimIters.begin(), it);
        n /= it.extent;
        continue;
      }
      if (digit + n > it.extent)
        return R::failure("region [" + std::to_string(offsets[d]) + ", " +
                          std::to_string(offsets[d] + sizes[d]) + ") of dim " +
                          std::to_string(d) +
                          " wraps around an iter of extent " +
                          std::to_string(it.extent));
      dimIters.insert(dimIters.begin(), Iter{n, it.stride, it.axis});
      at(result.offset, it.axis) += digit * it.stride;
      n = 1;
    }
    residual.append(dimIters.begin(), dimIters.end());
  }
  SmallVector<AxisOffset, 2> offs(axisOffsets.begin(), axisOffsets.end());
  for (unsigned a = 0; a < kNumAxes; ++a)
    offs.push_back(AxisOffset{static_cast<Axis>(a), result.offset[a]});
  result.residual = TileLayout(residual, replicaIters, mergeOffsets(offs), swz);
  return result;
}

OrReason<TileLayout> TileLayout::permuteDims(ArrayRef<int64_t> shape,
                                             ArrayRef<unsigned> perm) const {
  using R = OrReason<TileLayout>;
  if (perm.size() != shape.size())
    return R::failure("permutation has " + std::to_string(perm.size()) +
                      " entries for a rank-" + std::to_string(shape.size()) +
                      " tile");
  SmallVector<bool, 5> seen(shape.size(), false);
  for (unsigned p : perm) {
    if (p >= shape.size() || seen[p])
      return R::failure("not a permutation of the dims");
    seen[p] = true;
  }
  OrReason<GroupedLayout> grouped = group(shape);
  if (!grouped)
    return R::failure(grouped.reason());
  SmallVector<Iter, 8> iters;
  for (unsigned p : perm) {
    ArrayRef<Iter> g = grouped->group(p);
    iters.append(g.begin(), g.end());
  }
  return TileLayout(iters, replicaIters, axisOffsets, swz);
}

//===----------------------------------------------------------------------===//
// direct sum / tile / tile_to
//===----------------------------------------------------------------------===//

/// True if every memory-axis stride and offset of `l` is a multiple of `p`.
static bool memoryStepsMultipleOf(const TileLayout &l, int64_t p) {
  for (ArrayRef<Iter> iters : {l.shard(), l.replica()})
    for (const Iter &it : iters)
      if (it.axis == Axis::m && it.stride % p != 0)
        return false;
  return l.offset(Axis::m) % p == 0;
}

OrReason<TileLayout> TileLayout::directSum(const TileLayout &outer,
                                           const TileLayout &inner) {
  using R = OrReason<TileLayout>;
  Swizzle swz;
  if (!outer.swizzle().isIdentity() && !inner.swizzle().isIdentity())
    return R::failure("both operands of the direct sum are swizzled");
  if (!inner.swizzle().isIdentity()) {
    if (!memoryStepsMultipleOf(outer, inner.swizzle().period()))
      return R::failure(
          "the outer layout's memory strides are not multiples of the inner "
          "swizzle period " +
          std::to_string(inner.swizzle().period()));
    swz = inner.swizzle();
  } else if (!outer.swizzle().isIdentity()) {
    if (!memoryStepsMultipleOf(inner, outer.swizzle().period()))
      return R::failure(
          "the inner layout's memory strides are not multiples of the outer "
          "swizzle period " +
          std::to_string(outer.swizzle().period()));
    swz = outer.swizzle();
  }
  SmallVector<Iter, 8> shard(outer.shard().begin(), outer.shard().end());
  shard.append(inner.shard().begin(), inner.shard().end());
  SmallVector<Iter, 2> replica(outer.replica().begin(), outer.replica().end());
  replica.append(inner.replica().begin(), inner.replica().end());
  SmallVector<AxisOffset, 2> offs(outer.offsets().begin(),
                                  outer.offsets().end());
  offs.append(inner.offsets().begin(), inner.offsets().end());
  return TileLayout(shard, replica, mergeOffsets(offs), swz);
}

OrReason<TileLayout> TileLayout::tile(const TileLayout &outer,
                                      ArrayRef<int64_t> outerShape,
                                      const TileLayout &inner,
                                      ArrayRef<int64_t> innerShape) {
  using R = OrReason<TileLayout>;
  if (outerShape.size() != innerShape.size())
    return R::failure("outer rank " + std::to_string(outerShape.size()) +
                      " != inner rank " + std::to_string(innerShape.size()));
  OrReason<GroupedLayout> go = outer.group(outerShape);
  if (!go)
    return R::failure("outer: " + go.reason());
  OrReason<GroupedLayout> gi = inner.group(innerShape);
  if (!gi)
    return R::failure("inner: " + gi.reason());
  OrReason<TileLayout> sum = directSum(outer, inner);
  if (!sum)
    return sum;
  // Interleave the groups: dim d is (outer dim d, inner dim d).
  SmallVector<Iter, 8> iters;
  for (unsigned d = 0; d < outerShape.size(); ++d) {
    ArrayRef<Iter> o = go->group(d), i = gi->group(d);
    iters.append(o.begin(), o.end());
    iters.append(i.begin(), i.end());
  }
  return TileLayout(iters, sum->replica(), sum->offsets(), sum->swizzle());
}

OrReason<TileLayout> TileLayout::tileTo(ArrayRef<int64_t> innerShape,
                                        ArrayRef<int64_t> targetShape) const {
  using R = OrReason<TileLayout>;
  if (innerShape.size() != targetShape.size())
    return R::failure("tile rank " + std::to_string(innerShape.size()) +
                      " != target rank " + std::to_string(targetShape.size()));
  SmallVector<int64_t, 4> outerShape;
  for (size_t d = 0; d < innerShape.size(); ++d) {
    if (innerShape[d] < 1 || targetShape[d] % innerShape[d] != 0)
      return R::failure("target dim " + std::to_string(d) + " (" +
                        std::to_string(targetShape[d]) +
                        ") is not a multiple of the tile dim (" +
                        std::to_string(innerShape[d]) + ")");
    outerShape.push_back(targetShape[d] / innerShape[d]);
  }
  TileLayout outer = rowMajor(outerShape);
  int64_t block = cosize(Axis::m);
  SmallVector<Iter, 4> scaled;
  for (Iter it : outer.shard()) {
    it.stride *= block;
    scaled.push_back(it);
  }
  return tile(TileLayout(scaled), outerShape, *this, innerShape);
}

ContiguousChain TileLayout::contiguousChain() const {
  TileLayout canon = TileLayout(shardIters).canonicalize();
  ContiguousChain chain;
  ArrayRef<Iter> iters = canon.shard();
  for (size_t i = iters.size(); i-- > 0;) {
    const Iter &it = iters[i];
    if (it.axis != Axis::m || it.stride != chain.elements)
      break;
    chain.elements *= it.extent;
    ++chain.iters;
  }
  return chain;
}

TileLayout TileLayout::storage() const {
  auto keep = [](ArrayRef<Iter> iters) {
    SmallVector<Iter, 4> out;
    for (const Iter &it : iters)
      if (!isThreadAxis(it.axis))
        out.push_back(it);
    return out;
  };
  SmallVector<AxisOffset, 1> offs;
  for (const AxisOffset &o : axisOffsets)
    if (!isThreadAxis(o.axis))
      offs.push_back(o);
  return TileLayout(keep(shardIters), keep(replicaIters), offs, swz);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static std::string strideString(const Iter &it) {
  std::string s = std::to_string(it.stride);
  if (it.axis != Axis::m)
    s += "@" + axisName(it.axis).str();
  return s;
}

static std::string itersString(char kind, ArrayRef<Iter> iters) {
  std::string s(1, kind);
  s += "[";
  if (iters.size() == 1) {
    s += std::to_string(iters[0].extent) + ":" + strideString(iters[0]);
  } else {
    s += "(";
    for (auto [i, it] : llvm::enumerate(iters))
      s += (i ? "," : "") + std::to_string(it.extent);
    s += "):(";
    for (auto [i, it] : llvm::enumerate(iters))
      s += (i ? "," : "") + strideString(it);
    s += ")";
  }
  return s + "]";
}

std::string TileLayout::toString() const {
  // The shard term is always printed; a scalar tile is `S[1:0]`.
  std::string s = shardIters.empty() ? std::string("S[1:0]")
                                     : itersString('S', shardIters);
  if (!replicaIters.empty())
    s += " + " + itersString('R', replicaIters);
  for (const AxisOffset &o : axisOffsets) {
    s += " + " + std::to_string(o.offset);
    if (o.axis != Axis::m)
      s += "@" + axisName(o.axis).str();
  }
  if (!swz.isIdentity())
    s += ", " + swz.toString();
  return s;
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

OrReason<TileLayout> tile::nvmmaSharedLayout(unsigned elementBits,
                                             int64_t rows, int64_t cols,
                                             SwizzleMode mode) {
  using R = OrReason<TileLayout>;
  if (elementBits == 0 || elementBits > 64 || !llvm::isPowerOf2_32(elementBits))
    return R::failure("element width " + std::to_string(elementBits) +
                      " bits is not a power of two in [1, 64]");
  if (rows < 1 || cols < 1)
    return R::failure("tile extents must be positive");
  if (mode == SwizzleMode::None)
    return TileLayout::rowMajor({rows, cols});
  int64_t atomCols = int64_t(swizzleBytes(mode)) * 8 / elementBits;
  if (cols % atomCols != 0)
    return R::failure("a " + swizzleModeName(mode).str() +
                      " swizzle needs the contiguous dim (" +
                      std::to_string(cols) + ") to be a multiple of " +
                      std::to_string(atomCols) + " elements");
  if (rows % 8 != 0)
    return R::failure("a " + swizzleModeName(mode).str() +
                      " swizzle atom spans 8 rows; " + std::to_string(rows) +
                      " rows is not a multiple of 8");
  Swizzle swz = nvmmaSwizzle(mode, elementBits);
  if (cols == atomCols)
    return TileLayout({Iter{rows, atomCols, Axis::m}, Iter{cols, 1, Axis::m}},
                      {}, {}, swz);
  return TileLayout({Iter{rows, atomCols, Axis::m},
                     Iter{cols / atomCols, rows * atomCols, Axis::m},
                     Iter{atomCols, 1, Axis::m}},
                    {}, {}, swz);
}

OrReason<TileLayout> tile::tmemLaneLayout(int64_t rows, int64_t cols) {
  if (rows < 1 || rows > 128 || cols < 1)
    return OrReason<TileLayout>::failure(
        "tensor memory has 128 lanes; a " + std::to_string(rows) + "x" +
        std::to_string(cols) + " tile does not fit one row per lane");
  return TileLayout(
      {Iter{rows, 1, Axis::TLane}, Iter{cols, 1, Axis::TCol}});
}

OrReason<TileLayout> tile::tmemWarpBroadcastLayout(int64_t cols,
                                                   int64_t copies) {
  if (cols < 1 || (copies != 2 && copies != 4))
    return OrReason<TileLayout>::failure(
        "a warp broadcast needs cols >= 1 and 2 or 4 copies");
  // Two copies land in subpartitions 0 and 2 (or 1 and 3): 64 lanes apart.
  return TileLayout({Iter{32, 1, Axis::TLane}, Iter{cols, 1, Axis::TCol}},
                    {Iter{copies, 128 / copies, Axis::TLane}});
}

//===----------------------------------------------------------------------===//
// Register-resident (local) tiles
//===----------------------------------------------------------------------===//

int64_t tile::threadInGroup(const AxisAddress &address) {
  return at(address, Axis::tid_in_wg) + 32 * at(address, Axis::wid_in_wg) +
         at(address, Axis::laneid);
}

OrReason<LocalThreads> tile::localThreads(const TileLayout &layout) {
  using R = OrReason<LocalThreads>;
  const std::string name = layout.toString();
  // Replicas are copies in other threads (a row vector on each thread of
  // its row), never in another register of the same thread.
  for (const Iter &it : layout.replica())
    if (it.extent > 1 && it.axis == Axis::m)
      return R::failure("local layout " + name +
                        " replicates along registers (m); a register tile "
                        "holds each element once per thread");
  for (const AxisOffset &o : layout.offsets())
    if (o.axis != Axis::m && o.offset != 0)
      return R::failure("local layout " + name + " offsets thread axis " +
                        axisName(o.axis).str() +
                        "; a register tile starts at thread 0");
  // Thread iters as (stride, extent) in threadInGroup units.
  SmallVector<std::pair<int64_t, int64_t>, 4> threadIters;
  bool warpgroup = false, any = false;
  int64_t perThread = 1;
  SmallVector<Iter, 8> iters(layout.shard());
  iters.append(layout.replica().begin(), layout.replica().end());
  for (const Iter &it : iters) {
    if (it.extent == 1)
      continue;
    switch (it.axis) {
    case Axis::m:
      perThread *= it.extent;
      continue;
    case Axis::laneid:
      threadIters.push_back({it.stride, it.extent});
      break;
    case Axis::tid_in_wg:
      threadIters.push_back({it.stride, it.extent});
      warpgroup = true;
      break;
    case Axis::wid_in_wg:
      threadIters.push_back({32 * it.stride, it.extent});
      warpgroup = true;
      break;
    default:
      return R::failure("local layout " + name + " uses axis " +
                        axisName(it.axis).str() +
                        "; a register tile belongs to one warpgroup "
                        "(tid_in_wg, wid_in_wg, laneid): index a CTA-wide "
                        "tile's warpgroup part with offsets instead");
    }
    any = true;
  }
  LocalThreads out;
  out.threads = !any ? 1 : warpgroup ? 128 : 32;
  llvm::sort(threadIters);
  int64_t covered = 1;
  for (auto [stride, extent] : threadIters) {
    if (stride != covered)
      return R::failure(
          "local layout " + name + " does not cover the " +
          std::to_string(out.threads) + " threads of a " +
          (warpgroup ? "warpgroup" : "warp") +
          " exactly once: after threads [0, " + std::to_string(covered) +
          ") the next thread iter steps " + std::to_string(stride) +
          " threads (thread = tid_in_wg + 32 wid_in_wg + laneid)");
    covered *= extent;
  }
  if (covered != out.threads)
    return R::failure("local layout " + name + " covers threads [0, " +
                      std::to_string(covered) + "); a register tile of a " +
                      (warpgroup ? "warpgroup" : "warp") + " names all " +
                      std::to_string(out.threads) + " of its threads");
  out.registers = layout.cosize(Axis::m);
  if (out.registers > kMaxLocalRegisters)
    return R::failure("local layout " + name + " gives each thread " +
                      std::to_string(out.registers) +
                      " elements; a register tile holds at most " +
                      std::to_string(kMaxLocalRegisters));
  // Distinct registers: the memory-axis iters of one thread never collide.
  if (perThread > out.registers)
    return R::failure("local layout " + name + " puts " +
                      std::to_string(perThread) + " elements of a thread in " +
                      std::to_string(out.registers) + " registers");
  SmallVector<Iter, 4> mIters;
  for (const Iter &it : layout.shard())
    if (it.axis == Axis::m && it.extent > 1)
      mIters.push_back(it);
  SmallVector<bool> used(out.registers + 1, false);
  for (int64_t i = 0; i < perThread; ++i) {
    int64_t rest = i, addr = 0;
    for (size_t j = mIters.size(); j-- > 0;) {
      addr += (rest % mIters[j].extent) * mIters[j].stride;
      rest /= mIters[j].extent;
    }
    if (used[addr])
      return R::failure("local layout " + name +
                        " puts two elements of a thread in register " +
                        std::to_string(addr));
    used[addr] = true;
  }
  return out;
}

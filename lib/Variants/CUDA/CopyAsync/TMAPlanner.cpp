//===- TMAPlanner.cpp - plan tensor-map bulk copies -------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

using namespace tile;
using namespace tile::tma;
using cuda::TensorMapDataType;
using cuda::TensorMapSwizzle;

namespace {

/// Issues one copy may need at most.
constexpr int64_t kMaxIssues = 4096;

/// A piece of a region dim with one shared stride (elements, pre-swizzle).
struct Mode {
  int64_t extent = 1;
  int64_t sharedStride = 0;
};

/// The problem in units of (possibly promoted) tensor-map elements.
struct Units {
  llvm::SmallVector<int64_t, 5> shape, strides, offsets, sizes;
  llvm::SmallVector<llvm::SmallVector<Mode, 3>, 5> modes; // innermost first
  int64_t sharedStart = 0;
  unsigned unitBytes = 0;
  unsigned promotion = 1;
  TensorMapDataType dataType = TensorMapDataType::UInt8;
};

struct MapDim {
  MapValue size, stride; // elements
  Coordinate base;
  Mode boxMode;
};

struct Loop {
  unsigned dim;
  int64_t extent, coordStep, sharedStride;
};

std::string str(int64_t v) { return std::to_string(v); }

TensorMapSwizzle mapSwizzle(SwizzleMode mode) {
  switch (mode) {
  case SwizzleMode::None: return TensorMapSwizzle::None;
  case SwizzleMode::B32: return TensorMapSwizzle::B32;
  case SwizzleMode::B64: return TensorMapSwizzle::B64;
  case SwizzleMode::B128: return TensorMapSwizzle::B128;
  case SwizzleMode::B128Atom32B: return TensorMapSwizzle::B128Atom32B;
  }
  return TensorMapSwizzle::None;
}

/// One split choice in the making: the map dims (region-dim order until
/// orderMapDims, map order after), the issue loops over them and the box.
struct Draft {
  llvm::SmallVector<MapDim, 8> dims;
  llvm::SmallVector<Loop, 8> loops;
  llvm::SmallVector<uint32_t, 5> box;
};

/// Whether a global dim of `n` elements can be cut into map dims of `inner`
/// elements and floor(n / inner) outer steps for the region [o, o + size):
/// the region starts on a step, and every element is inside the cut view
/// exactly when it is inside the tensor (TMA checks bounds per map dim). A
/// tail of n % inner elements is allowed where the region avoids it.
bool splitsExactly(int64_t n, int64_t o, int64_t size, int64_t inner) {
  if (n == kDynamic || o == kDynamic || o % inner)
    return false;
  int64_t viewEnd = n / inner * inner;
  return viewEnd == n || o + size <= viewEnd || o >= n;
}

/// The map dims of `cuts` (`cuts[d]` bit j: region dim d is cut between
/// its modes j and j + 1). Each run of modes between cuts becomes one map
/// dim: its innermost mode is boxed, its other modes are issue loops at
/// advancing coordinates of that map dim (so a dim of three modes can be
/// one map dim, three, or two with the box on the inner of a pair). An
/// uncut dim is the global dim itself (runtime size, stride and offset
/// allowed); a cut one needs a static stride and an exact cut
/// (splitsExactly).
OrReason<Draft> splitIntoMapDims(const Units &u, llvm::ArrayRef<unsigned> cuts) {
  using R = OrReason<Draft>;
  unsigned rank = u.sizes.size();
  Draft draft;
  auto value = [](int64_t v, int d) {
    return v == kDynamic ? MapValue{0, d, 1} : MapValue{v, -1, 1};
  };
  auto coordinate = [](int64_t offset, int d) {
    return offset == kDynamic ? Coordinate{d, 0} : Coordinate{-1, offset};
  };
  // One map dim over `group` (modes innermost first): the box its first
  // mode, loops over the rest.
  auto addGroup = [&](MapDim dim, llvm::ArrayRef<Mode> group) {
    unsigned at = draft.dims.size();
    dim.boxMode = group[0];
    draft.dims.push_back(dim);
    int64_t inner = group[0].extent;
    for (const Mode &m : group.drop_front()) {
      draft.loops.push_back({at, m.extent, inner, m.sharedStride});
      inner *= m.extent;
    }
  };
  for (unsigned d = 0; d < rank; ++d) {
    const auto &modes = u.modes[d];
    int64_t n = u.shape[d], g = u.strides[d], o = u.offsets[d];
    if (modes.empty()) {
      // A unit region dim at offset 0 of a unit global dim needs no map
      // dim; at any other offset it is out of bounds and must stay one.
      if (n == 1 && o == 0 && rank > 1)
        continue;
      draft.dims.push_back(
          {value(n, d), value(g, d), coordinate(o, d), Mode{1, 0}});
      continue;
    }
    unsigned dimCuts = cuts[d] & ((1u << (modes.size() - 1)) - 1);
    if (!dimCuts) {
      addGroup({value(n, d), value(g, d), coordinate(o, d), Mode{}}, modes);
      continue;
    }
    // The runs between cuts; all but the last have their extent's size.
    llvm::SmallVector<llvm::ArrayRef<Mode>, 4> groups;
    size_t start = 0;
    for (size_t j = 0; j < modes.size(); ++j)
      if (j + 1 == modes.size() || (dimCuts >> j & 1)) {
        groups.push_back(llvm::ArrayRef<Mode>(modes).slice(start, j + 1 - start));
        start = j + 1;
      }
    int64_t innerAll = 1;
    for (size_t i = 0; i + 1 < groups.size(); ++i)
      for (const Mode &m : groups[i])
        innerAll *= m.extent;
    if (g == kDynamic || !splitsExactly(n, o, u.sizes[d], innerAll))
      return R::failure("global dim " + str(d) + " cannot be split exactly");
    int64_t inner = 1;
    for (size_t i = 0; i < groups.size(); ++i) {
      bool last = i + 1 == groups.size();
      int64_t extent = 1;
      for (const Mode &m : groups[i])
        extent *= m.extent;
      int64_t size = last ? n / inner : extent;
      int64_t coord = last ? o / inner : (o / inner) % extent;
      addGroup({MapValue{size, -1, 1}, MapValue{g * inner, -1, 1},
                Coordinate{-1, coord}, Mode{}},
               groups[i]);
      inner *= extent;
    }
  }
  return draft;
}

/// Puts the map dims in map order: dim 0 is the global tensor's contiguous
/// dim (the one contiguous in shared memory too, if any), then boxed dims
/// by shared stride.
Status orderMapDims(Draft &draft) {
  llvm::SmallVector<MapDim, 8> &dims = draft.dims;
  int first = -1;
  for (unsigned k = 0; k < dims.size(); ++k) {
    if (!dims[k].stride.isStatic() || dims[k].stride.value != 1)
      continue;
    if (first < 0 || dims[k].boxMode.sharedStride == 1)
      first = k;
  }
  if (first < 0)
    return Status::failure("no global dim of the region has unit stride; "
                           "tensor-map dim 0 must be contiguous in global "
                           "memory");
  std::vector<unsigned> order;
  for (unsigned k = 0; k < dims.size(); ++k)
    if (static_cast<int>(k) != first)
      order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    const Mode &x = dims[a].boxMode, &y = dims[b].boxMode;
    if ((x.extent > 1) != (y.extent > 1))
      return x.extent > 1;
    return x.sharedStride < y.sharedStride;
  });
  order.insert(order.begin(), first);
  if (order.size() > cuda::kMaxTensorMapRank)
    return Status::failure("the copy needs " + str(order.size()) +
                           " tensor-map dims; a tensor map has at most 5");
  llvm::SmallVector<unsigned, 8> position(dims.size());
  llvm::SmallVector<MapDim, 8> ordered;
  for (unsigned i = 0; i < order.size(); ++i) {
    position[order[i]] = i;
    ordered.push_back(dims[order[i]]);
  }
  for (Loop &l : draft.loops)
    l.dim = position[l.dim];
  dims = std::move(ordered);
  return Status::success();
}

/// The box: every dim while the shared tile stays dense in box order (each
/// box dim at most 256); the rest of each dim becomes an issue loop.
void chooseBox(Draft &draft) {
  bool dense = true;
  int64_t expected = 1;
  for (unsigned i = 0; i < draft.dims.size(); ++i) {
    const Mode &m = draft.dims[i].boxMode;
    if (m.extent == 1) {
      draft.box.push_back(1);
      continue;
    }
    if (!dense || m.sharedStride != expected) {
      dense = false;
      draft.box.push_back(1);
      draft.loops.push_back({i, m.extent, 1, m.sharedStride});
      continue;
    }
    int64_t b = m.extent;
    if (b > cuda::kMaxBoxDim) {
      b = cuda::kMaxBoxDim;
      while (m.extent % b)
        --b;
      draft.loops.push_back({i, m.extent / b, b, m.sharedStride * b});
      dense = false;
    }
    draft.box.push_back(static_cast<uint32_t>(b));
    expected *= b;
  }
}

/// Whether merging `inner` into `outer` keeps the merged dim and its base
/// coordinate within TMA's signed 32-bit coordinates.
bool mergeFitsInt32(const MapDim &inner, const MapDim &outer) {
  int64_t n = inner.size.value;
  return n * outer.size.value <= INT32_MAX &&
         std::abs(outer.base.constant) <= INT32_MAX / n;
}

/// Merges a fully boxed dim into the next one where the global tensor is
/// contiguous across both: one map dim less, the same boxes. A swizzled
/// map keeps its inner dim (its box is the swizzle span).
void mergeContiguousDims(Draft &draft, TensorMapSwizzle swizzle) {
  llvm::SmallVector<MapDim, 8> &dims = draft.dims;
  llvm::SmallVector<uint32_t, 5> &box = draft.box;
  for (unsigned i = swizzle == TensorMapSwizzle::None ? 0 : 1;
       i + 1 < dims.size();) {
    MapDim &inner = dims[i], &outer = dims[i + 1];
    int64_t merged = int64_t(box[i]) * box[i + 1];
    bool loopsOverInner =
        llvm::any_of(draft.loops, [&](const Loop &l) { return l.dim == i; });
    if (!inner.size.isStatic() || !inner.stride.isStatic() ||
        !outer.size.isStatic() || !outer.stride.isStatic() ||
        box[i] != inner.size.value || loopsOverInner ||
        !(inner.base == Coordinate{-1, 0}) || outer.base.regionDim >= 0 ||
        outer.stride.value != inner.stride.value * inner.size.value ||
        merged > cuda::kMaxBoxDim || !mergeFitsInt32(inner, outer)) {
      ++i;
      continue;
    }
    int64_t n = inner.size.value;
    inner.size = MapValue{n * outer.size.value, -1, 1};
    inner.base = Coordinate{-1, outer.base.constant * n};
    box[i] = static_cast<uint32_t>(merged);
    box.erase(box.begin() + i + 1);
    dims.erase(dims.begin() + i + 1);
    for (Loop &l : draft.loops) {
      if (l.dim == i + 1) {
        l.dim = i;
        l.coordStep *= n;
      } else if (l.dim > i + 1) {
        --l.dim;
      }
    }
  }
}

/// The map's arguments (runtime values described by the plan's globalDims
/// and globalStrides), checked against the driver's rules and the shared
/// tile's swizzle rows.
Status describeMap(const Units &u, const Draft &draft, TensorMapSwizzle swizzle,
                   cuda::TensorMapOobFill oobFill, Plan &plan) {
  cuda::TensorMapDesc &map = plan.map;
  map.dataType = u.dataType;
  map.rank = draft.dims.size();
  for (unsigned i = 0; i < draft.dims.size(); ++i) {
    const MapDim &dim = draft.dims[i];
    plan.globalDims.push_back(dim.size);
    map.globalDims.push_back(dim.size.isStatic()
                                 ? std::optional<uint64_t>(dim.size.value)
                                 : std::nullopt);
    if (i == 0)
      continue;
    MapValue bytes = dim.stride;
    if (bytes.isStatic())
      bytes.value *= u.unitBytes;
    else
      bytes.scale = u.unitBytes;
    plan.globalStrides.push_back(bytes);
    map.globalStrides.push_back(bytes.isStatic()
                                    ? std::optional<uint64_t>(bytes.value)
                                    : std::nullopt);
  }
  map.boxDims = draft.box;
  map.elementStrides.assign(draft.dims.size(), 1);
  map.swizzle = swizzle;
  map.l2Promotion = cuda::TensorMapL2Promotion::B128;
  map.oobFill = oobFill;

  Reasons violations;
  for (const std::string &v : cuda::tensorMapViolations(map))
    violations.add(v);
  unsigned span = cuda::swizzleSpanBytes(swizzle);
  if (span && int64_t(draft.box[0]) * u.unitBytes < span)
    violations.add("boxDim[0] * elementSize = " +
                   str(int64_t(draft.box[0]) * u.unitBytes) +
                   " bytes is narrower than the " + str(span) +
                   "-byte rows of the " + str(span) + "B-swizzled shared tile");
  if (!violations.empty())
    return Status::failure(violations.str());
  return Status::success();
}

/// The issues: the product of the loop extents, innermost loop last, each
/// box start checked against TMA's alignment rules.
Status listIssues(const Units &u, const Draft &draft, TensorMapSwizzle swizzle,
                  Plan &plan) {
  int64_t count = 1;
  for (const Loop &l : draft.loops)
    if ((count *= l.extent) > kMaxIssues)
      return Status::failure("the region needs more than " + str(kMaxIssues) +
                             " tensor copies");
  // TMA writes shared memory at 128-byte aligned boxes; a swizzled box must
  // start on its pattern's period so the pattern matches the layout.
  unsigned span = cuda::swizzleSpanBytes(swizzle);
  int64_t alignment = span ? span * 8 : 128;
  llvm::SmallVector<int64_t, 8> index(draft.loops.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    Issue issue;
    for (const MapDim &dim : draft.dims)
      issue.coords.push_back(dim.base);
    int64_t shared = u.sharedStart;
    for (size_t l = 0; l < draft.loops.size(); ++l) {
      const Loop &loop = draft.loops[l];
      issue.coords[loop.dim].constant += index[l] * loop.coordStep;
      shared += index[l] * loop.sharedStride;
    }
    issue.sharedByte = shared * u.unitBytes;
    // The box's start in the contiguous dim must be 16-byte aligned: an
    // unaligned start faults (CUDA_ERROR_ILLEGAL_INSTRUCTION, loads and
    // stores, every swizzle; seen on an H200 by TileDeviceTests' probe). A
    // dynamic offset is added at run time and must keep this.
    for (const Coordinate &c : issue.coords)
      if (c.constant < INT32_MIN || c.constant > INT32_MAX)
        return Status::failure("a box starts at coordinate " +
                               str(c.constant) + ", outside the signed 32-bit "
                               "range of TMA coordinates");
    int64_t innerByte = issue.coords[0].constant * u.unitBytes;
    if (innerByte % 16)
      return Status::failure(
          "a box starts at element " + str(issue.coords[0].constant) +
          " of the contiguous global dim (byte " + str(innerByte) +
          "), not a multiple of 16 bytes "
          "as cp.async.bulk.tensor requires");
    if (issue.sharedByte % alignment)
      return Status::failure(
          "a box starts at shared byte " + str(issue.sharedByte) + ", not " +
          str(alignment) + "-byte aligned as " +
          (span ? "its swizzle pattern" : "TMA") + " requires");
    plan.issues.push_back(std::move(issue));
    for (size_t l = draft.loops.size(); l-- > 0;) {
      if (++index[l] < draft.loops[l].extent)
        break;
      index[l] = 0;
    }
  }
  plan.bytesPerIssue = u.unitBytes;
  for (uint32_t b : draft.box)
    plan.bytesPerIssue *= b;
  return Status::success();
}

/// Plans one split choice (`cuts`, as splitIntoMapDims takes them).
OrReason<Plan> planOne(const Units &u, llvm::ArrayRef<unsigned> cuts,
                       TensorMapSwizzle swizzle,
                       cuda::TensorMapOobFill oobFill) {
  using R = OrReason<Plan>;
  OrReason<Draft> draft = splitIntoMapDims(u, cuts);
  if (!draft)
    return R::failure(draft.reason());
  if (Status s = orderMapDims(*draft); !s)
    return R::failure(s.reason());
  chooseBox(*draft);
  mergeContiguousDims(*draft, swizzle);
  Plan plan;
  plan.promotion = u.promotion;
  if (Status s = describeMap(u, *draft, swizzle, oobFill, plan); !s)
    return R::failure(s.reason());
  if (Status s = listIssues(u, *draft, swizzle, plan); !s)
    return R::failure(s.reason());
  return plan;
}

/// `u` with `factor` elements per unit, or a reason it cannot be promoted.
OrReason<Units> promote(const Units &u, unsigned factor,
                        cuda::TensorMapOobFill oobFill) {
  using R = OrReason<Units>;
  if (oobFill != cuda::TensorMapOobFill::None)
    return R::failure("NaN fill keeps the element type");
  int d0 = -1;
  for (unsigned d = 0; d < u.strides.size(); ++d)
    if (u.strides[d] == 1 && !u.modes[d].empty() &&
        u.modes[d][0].sharedStride == 1)
      d0 = d;
  if (d0 < 0)
    return R::failure("no contiguous dim");
  auto divisible = [&](int64_t v) { return v != kDynamic && v % factor == 0; };
  Units p = u;
  p.unitBytes *= factor;
  p.promotion *= factor;
  p.dataType = factor * u.unitBytes == 2   ? TensorMapDataType::UInt16
               : factor * u.unitBytes == 4 ? TensorMapDataType::UInt32
                                           : TensorMapDataType::UInt64;
  if (!divisible(u.shape[d0]) || !divisible(u.offsets[d0]) ||
      !divisible(u.sizes[d0]) || !divisible(u.modes[d0][0].extent) ||
      !divisible(u.sharedStart))
    return R::failure("the contiguous dim does not divide");
  p.shape[d0] /= factor;
  p.offsets[d0] /= factor;
  p.sizes[d0] /= factor;
  p.sharedStart /= factor;
  for (unsigned d = 0; d < u.strides.size(); ++d) {
    if (static_cast<int>(d) != d0) {
      if (!divisible(u.strides[d]))
        return R::failure("a stride does not divide");
      p.strides[d] /= factor;
    }
    for (size_t j = 0; j < p.modes[d].size(); ++j) {
      Mode &m = p.modes[d][j];
      if (static_cast<int>(d) == d0 && j == 0) {
        m.extent /= factor;
        continue;
      }
      if (m.sharedStride % factor)
        return R::failure("a shared stride does not divide");
      m.sharedStride /= factor;
    }
  }
  return p;
}

} // namespace

llvm::SmallVector<int64_t, 24> Plan::encodeArguments() const {
  llvm::SmallVector<int64_t, 24> out = {int64_t(map.rank)};
  for (const MapValue &v : globalDims)
    out.push_back(v.isStatic() ? v.value : -1);
  for (const MapValue &v : globalStrides)
    out.push_back(v.isStatic() ? v.value : -1);
  for (uint32_t b : map.boxDims)
    out.push_back(b);
  for (uint32_t e : map.elementStrides)
    out.push_back(e);
  out.push_back(int64_t(map.interleave));
  out.push_back(int64_t(map.swizzle));
  out.push_back(int64_t(map.l2Promotion));
  out.push_back(int64_t(map.oobFill));
  return out;
}

namespace {

/// The problem in tensor-map elements: each region dim cut into modes
/// (innermost first), the mode holding a swizzled tile's contiguous
/// elements cut at the swizzle span (`spanElements`, 0 unswizzled).
OrReason<Units> unitsOf(const Request &r, const TileLayout &residual,
                        const GroupedLayout &grouped, int64_t spanElements) {
  using R = OrReason<Units>;
  Units u;
  u.shape = r.global.shape;
  u.strides = r.global.strides;
  u.offsets = r.global.offsets;
  u.sizes = r.sizes;
  u.sharedStart = residual.offset(Axis::m);
  u.unitBytes = r.elementBits / 8;
  u.dataType = r.dataType;
  for (unsigned d = 0; d < r.sizes.size(); ++d) {
    llvm::SmallVector<Mode, 3> modes;
    llvm::ArrayRef<Iter> iters = grouped.group(d);
    for (auto it = iters.rbegin(); it != iters.rend(); ++it) {
      if (it->extent == 1)
        continue;
      if (it->stride == 0)
        return R::failure("the shared layout puts several region elements "
                          "at one address");
      Mode m{it->extent, it->stride};
      // Rows of a swizzled tile are exactly one span wide.
      if (spanElements && m.sharedStride == 1 && m.extent > spanElements) {
        if (m.extent % spanElements)
          return R::failure("the contiguous run of " + str(m.extent) +
                            " elements is not a multiple of the swizzle "
                            "span (" + str(spanElements) + " elements)");
        modes.push_back(Mode{spanElements, 1});
        m = Mode{m.extent / spanElements, spanElements};
      }
      modes.push_back(m);
    }
    u.modes.push_back(std::move(modes));
  }
  return u;
}

/// Plans every split choice (every set of cuts between the modes of each
/// region dim) and element promotion; the plan with the fewest issues wins
/// (then no promotion, then the lowest rank). When none is valid, the
/// reason is the unsplit, unpromoted plan's.
OrReason<Plan> bestPlan(const Units &u, TensorMapSwizzle swizzle,
                        cuda::TensorMapOobFill oobFill) {
  unsigned rank = u.sizes.size();
  std::optional<Plan> best;
  std::string unsplitReason;
  // The cut points: (dim, bit) for each pair of adjacent modes.
  llvm::SmallVector<std::pair<unsigned, unsigned>, 8> cutPoints;
  for (unsigned d = 0; d < rank; ++d)
    for (unsigned j = 0; j + 1 < u.modes[d].size(); ++j)
      cutPoints.push_back({d, j});
  // Every subset while there are few (2^12 drafts at most); beyond that,
  // each dim wholly cut or not, as before.
  constexpr size_t kMaxCutPoints = 12;
  bool perDim = cutPoints.size() > kMaxCutPoints;
  llvm::SmallVector<unsigned, 5> splittable;
  for (unsigned d = 0; d < rank; ++d)
    if (u.modes[d].size() > 1)
      splittable.push_back(d);
  size_t choices = perDim ? splittable.size() : cutPoints.size();
  for (unsigned factor = 1; u.unitBytes * factor <= 8; factor *= 2) {
    Units units = u;
    if (factor > 1) {
      OrReason<Units> promoted = promote(u, factor, oobFill);
      if (!promoted)
        continue;
      units = *promoted;
    }
    for (unsigned mask = 0; mask < (1u << choices); ++mask) {
      llvm::SmallVector<unsigned, 5> cuts(rank, 0);
      for (unsigned i = 0; i < choices; ++i) {
        if (!(mask >> i & 1))
          continue;
        if (perDim)
          cuts[splittable[i]] = ~0u;
        else
          cuts[cutPoints[i].first] |= 1u << cutPoints[i].second;
      }
      OrReason<Plan> plan = planOne(units, cuts, swizzle, oobFill);
      if (!plan) {
        if (factor == 1 && mask == 0)
          unsplitReason = plan.reason();
        continue;
      }
      auto key = [](const Plan &p) {
        // Promote only to save issues (a box over 256 elements); then the
        // lowest rank.
        return std::make_tuple(p.issues.size(), p.promotion, p.map.rank);
      };
      if (!best || key(*plan) < key(*best))
        best = std::move(*plan);
    }
  }
  if (!best)
    return OrReason<Plan>::failure(unsplitReason);
  return std::move(*best);
}

} // namespace

OrReason<Plan> tma::planTensorCopy(const Request &r) {
  using R = OrReason<Plan>;
  unsigned rank = r.sizes.size();
  if (r.global.shape.size() != rank || r.global.strides.size() != rank ||
      r.global.offsets.size() != rank || r.shared.shape.size() != rank ||
      r.shared.offsets.size() != rank)
    return R::failure("global tensor, shared tile and region ranks differ");
  if (r.elementBits % 8 != 0)
    return R::failure(str(r.elementBits) +
                      "-bit elements need the packed "
                      "tensor-map types, which the planner does not use");
  unsigned bytes = r.elementBits / 8;
  if (cuda::elementBytes(r.dataType) != bytes)
    return R::failure("data type " + cuda::dataTypeName(r.dataType).str() +
                      " does not have " + str(bytes) + "-byte elements");

  OrReason<SliceResult> slice =
      r.shared.layout.slice(r.shared.shape, r.shared.offsets, r.sizes);
  if (!slice)
    return R::failure("shared region: " + slice.reason());
  const TileLayout &residual = slice->residual;
  if (residual.replicaCount() != 1)
    return R::failure("the shared layout has replicas");
  for (const Iter &it : residual.shard())
    if (it.axis != Axis::m)
      return R::failure("the shared layout addresses axis '" +
                        axisName(it.axis).str() + "'; TMA fills memory");
  OrReason<GroupedLayout> grouped = residual.group(r.sizes);
  if (!grouped)
    return R::failure("shared region: " + grouped.reason());

  for (unsigned d = 0; d < rank; ++d)
    if (int64_t o = r.global.offsets[d];
        o != kDynamic && (o < INT32_MIN || o > INT32_MAX))
      return R::failure("global offset " + str(o) + " of dim " + str(d) +
                        " is outside the signed 32-bit range of TMA "
                        "coordinates");

  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
  int64_t spanElements = 0;
  if (!residual.swizzle().isIdentity()) {
    std::optional<SwizzleMode> mode =
        classifyNvmmaSwizzle(residual.swizzle(), r.elementBits);
    if (!mode)
      return R::failure("shared swizzle " + residual.swizzle().toString() +
                        " is not the 32/64/128-byte swizzle TMA writes");
    swizzle = mapSwizzle(*mode);
    spanElements = cuda::swizzleSpanBytes(swizzle) / bytes;
  }
  OrReason<Units> u = unitsOf(r, residual, *grouped, spanElements);
  if (!u)
    return R::failure(u.reason());
  return bestPlan(*u, swizzle, r.oobFill);
}

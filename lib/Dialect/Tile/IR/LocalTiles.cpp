//===- LocalTiles.cpp - where a register tile's elements go ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/LocalTiles.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace llvm;

namespace tile {

LocalElements localElements(BufferType type) {
  TileLayout layout = *type.getEffectiveLayout();
  GroupedLayout grouped = *layout.group(type.getShape());
  ArrayRef<int64_t> shape = type.getShape();
  // Each iter's dim and the coordinate weight of its digit inside the dim.
  struct Place {
    Iter it;
    unsigned dim;
    int64_t weight;
  };
  SmallVector<Place> places;
  for (unsigned d = 0; d < grouped.rank(); ++d) {
    ArrayRef<Iter> iters = grouped.group(d);
    int64_t weight = 1;
    SmallVector<Place> dimPlaces;
    for (size_t i = iters.size(); i-- > 0;) {
      dimPlaces.push_back({iters[i], d, weight});
      weight *= iters[i].extent;
    }
    places.append(dimPlaces.rbegin(), dimPlaces.rend());
  }
  LocalElements out;
  SmallVector<Place> mPlaces;
  for (const Place &p : places) {
    if (p.it.extent == 1)
      continue;
    if (p.it.axis == Axis::m) {
      mPlaces.push_back(p);
      continue;
    }
    int64_t threadStride =
        p.it.axis == Axis::wid_in_wg ? 32 * p.it.stride : p.it.stride;
    out.threadIters.push_back({p.dim, p.weight, p.it.extent, threadStride});
  }
  int64_t count = 1;
  for (const Place &p : mPlaces)
    count *= p.it.extent;
  int64_t base = layout.offset(Axis::m);
  for (int64_t i = 0; i < count; ++i) {
    LocalElements::Element e;
    e.reg = base;
    e.coord.assign(shape.size(), 0);
    int64_t rest = i;
    for (size_t j = mPlaces.size(); j-- > 0;) {
      int64_t digit = rest % mPlaces[j].it.extent;
      rest /= mPlaces[j].it.extent;
      e.reg += digit * mPlaces[j].it.stride;
      e.coord[mPlaces[j].dim] += digit * mPlaces[j].weight;
    }
    out.elements.push_back(std::move(e));
  }
  return out;
}

/// The offset of coordinate `x` along a dim whose layout steps are `iters`
/// (outermost first), as a mixed-radix number.
static int64_t dimOffset(ArrayRef<Iter> iters, int64_t x) {
  int64_t offset = 0;
  for (size_t i = iters.size(); i-- > 0;) {
    offset += (x % iters[i].extent) * iters[i].stride;
    x /= iters[i].extent;
  }
  return offset;
}

OrReason<LocalStorePlan> planLocalStore(BufferType src, BufferType dst,
                                        ArrayRef<int64_t> staticOffsets) {
  using R = OrReason<LocalStorePlan>;
  std::optional<TileLayout> layout = dst.getEffectiveLayout();
  if (!layout || !dst.hasStaticShape())
    return R::failure("the destination has no static layout");
  std::string what = "layout " + layout->toString();
  if (!layout->replica().empty())
    return R::failure(what + " is replicated");
  OrReason<GroupedLayout> grouped = layout->canonicalize().group(dst.getShape());
  if (!grouped)
    return R::failure(grouped.reason());
  const size_t rank = dst.getRank(), lead = rank - src.getRank();
  LocalElements local = localElements(src);
  // The largest coordinate a thread's digits add along each dim.
  SmallVector<int64_t, 4> threadReach(rank, 0);
  for (const LocalElements::ThreadIter &t : local.threadIters)
    threadReach[lead + t.dim] += t.coordStep * (t.extent - 1);

  LocalStorePlan plan;
  plan.swizzle = layout->swizzle();
  plan.elementOffset.assign(local.elements.size(), layout->offset(Axis::m));
  for (size_t d = 0; d < rank; ++d) {
    ArrayRef<Iter> iters = grouped->group(d);
    for (const Iter &it : iters)
      if (it.axis != Axis::m)
        return R::failure(what + " maps dim " + std::to_string(d) +
                          " to axis " + axisName(it.axis).str());
    int64_t inner = iters.empty() ? 1 : iters.back().extent;
    plan.runtimeStride.push_back(iters.empty() ? 0 : iters.back().stride);
    bool dynamic = mlir::ShapedType::isDynamic(staticOffsets[d]);
    if (dynamic && iters.size() > 1)
      return R::failure(what + " maps dim " + std::to_string(d) + " through " +
                        std::to_string(iters.size()) +
                        " steps; a runtime offset needs one stride");
    int64_t start = dynamic ? 0 : staticOffsets[d];
    for (size_t e = 0; e < local.elements.size(); ++e) {
      int64_t x = start + (d < lead ? 0 : local.elements[e].coord[d - lead]);
      // The thread's digits must not carry out of the innermost step, so
      // its base moves every element by the same amount.
      if (iters.size() > 1 && x % inner + threadReach[d] >= inner)
        return R::failure(
            what + " splits dim " + std::to_string(d) + " every " +
            std::to_string(inner) + " elements, and the threads' coordinates " +
            std::to_string(x) + ".." + std::to_string(x + threadReach[d]) +
            " cross that step");
      plan.elementOffset[e] += dimOffset(iters, x);
    }
  }
  return plan;
}

} // namespace tile

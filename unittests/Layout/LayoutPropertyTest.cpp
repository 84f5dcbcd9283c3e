//===- LayoutPropertyTest.cpp - algebra vs. brute-force enumeration --------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every operation that produces a layout is checked against the definition:
// apply() of the input, evaluated over every coordinate (and every replica).
// Random layouts come from a fixed seed so failures reproduce.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/Layout.h"

#include "gtest/gtest.h"

#include <random>

using namespace tile;
using llvm::SmallVector;

namespace {

constexpr int kLayouts = 1500;

struct Generator {
  std::mt19937_64 rng{20261121};

  int64_t pick(std::initializer_list<int64_t> values) {
    std::uniform_int_distribution<size_t> d(0, values.size() - 1);
    return *(values.begin() + d(rng));
  }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng); }

  Axis axis() {
    static const Axis axes[] = {Axis::m,      Axis::m,     Axis::m,
                                Axis::TLane,  Axis::TCol,  Axis::laneid,
                                Axis::warpid, Axis::cta};
    return axes[std::uniform_int_distribution<int>(0, 7)(rng)];
  }

  TileLayout layout() {
    SmallVector<Iter> shard, replica;
    int n = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int i = 0; i < n; ++i)
      shard.push_back(Iter{pick({1, 2, 3, 4, 6, 8}),
                           pick({0, 1, 2, 3, 4, 8, 16, 24, 64}), axis()});
    // Often make it a dense layout, so fusion and chains get exercised.
    if (coin(0.3)) {
      int64_t stride = 1;
      for (size_t i = shard.size(); i-- > 0;) {
        shard[i].stride = stride;
        shard[i].axis = Axis::m;
        stride *= shard[i].extent;
      }
    }
    if (coin(0.3))
      replica.push_back(Iter{pick({2, 4}), pick({1, 32, 64}), axis()});
    SmallVector<AxisOffset> offsets;
    if (coin(0.3))
      offsets.push_back(AxisOffset{axis(), pick({1, 5, 64})});
    Swizzle swz;
    if (coin(0.2))
      swz = pick({0, 1}) ? Swizzle{3, 3, 3} : Swizzle{1, 2, 3};
    return TileLayout(shard, replica, offsets, swz);
  }

  /// A shape the layout's shard can be grouped by: merge runs of iters and
  /// sometimes split an iter into two factors.
  SmallVector<int64_t> groupableShape(const TileLayout &l) {
    SmallVector<int64_t> extents;
    for (const Iter &it : l.shard()) {
      if (it.extent % 2 == 0 && it.extent > 2 && coin(0.3)) {
        extents.push_back(it.extent / 2);
        extents.push_back(2);
      } else {
        extents.push_back(it.extent);
      }
    }
    SmallVector<int64_t> shape;
    for (int64_t e : extents) {
      if (!shape.empty() && coin(0.4))
        shape.back() *= e;
      else
        shape.push_back(e);
    }
    return shape;
  }
};

/// Every coordinate of `shape`, row-major.
SmallVector<SmallVector<int64_t>> allCoords(llvm::ArrayRef<int64_t> shape) {
  SmallVector<SmallVector<int64_t>> out;
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  for (int64_t flat = 0; flat < total; ++flat) {
    SmallVector<int64_t> c(shape.size());
    int64_t rest = flat;
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = rest % shape[d];
      rest /= shape[d];
    }
    out.push_back(c);
  }
  return out;
}

/// Address with the swizzle removed (for composing memory-axis sums).
AxisAddress applyUnswizzled(const TileLayout &l, int64_t flat, int64_t rep) {
  TileLayout plain(l.shard(), l.replica(), l.offsets());
  return plain.apply(flat, rep);
}

TEST(LayoutProperty, CanonicalizeKeepsTheFunction) {
  Generator gen;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout l = gen.layout();
    TileLayout c = l.canonicalize();
    ASSERT_EQ(c.size(), l.size());
    ASSERT_EQ(c.replicaCount(), l.replicaCount());
    for (const Iter &it : c.shard())
      EXPECT_NE(it.extent, 1) << c.toString();
    for (size_t i = 0; i + 1 < c.shard().size(); ++i) {
      const Iter &a = c.shard()[i], &b = c.shard()[i + 1];
      EXPECT_FALSE(a.axis == b.axis && a.stride == b.extent * b.stride)
          << "unfused pair in " << c.toString();
    }
    for (int64_t r = 0; r < l.replicaCount(); ++r)
      for (int64_t i = 0; i < l.size(); ++i)
        ASSERT_EQ(l.apply(i, r), c.apply(i, r))
            << l.toString() << " vs " << c.toString() << " at " << i;
  }
}

TEST(LayoutProperty, GroupMatchesCoordinateApply) {
  Generator gen;
  int grouped = 0;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout l = gen.layout();
    SmallVector<int64_t> shape = gen.groupableShape(l);
    OrReason<GroupedLayout> g = l.group(shape);
    ASSERT_TRUE(g) << l.toString() << ": " << g.reason();
    ++grouped;
    ASSERT_EQ(g->rank(), shape.size());
    for (unsigned d = 0; d < g->rank(); ++d) {
      int64_t prod = 1;
      for (const Iter &it : g->group(d))
        prod *= it.extent;
      EXPECT_EQ(prod, shape[d]);
    }
    int64_t flat = 0;
    for (const auto &c : allCoords(shape)) {
      ASSERT_EQ(g->layout.apply(flat), l.apply(c, shape));
      ++flat;
    }
  }
  EXPECT_EQ(grouped, kLayouts);
}

TEST(LayoutProperty, SliceMatchesOffsetApply) {
  Generator gen;
  int succeeded = 0, declined = 0;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout l = gen.layout();
    SmallVector<int64_t> shape = gen.groupableShape(l);
    SmallVector<int64_t> offsets, sizes;
    for (int64_t d : shape) {
      int64_t size = std::uniform_int_distribution<int64_t>(1, d)(gen.rng);
      int64_t off = std::uniform_int_distribution<int64_t>(0, d - size)(gen.rng);
      // Bias towards aligned regions, which must always slice.
      if (gen.coin(0.5) && d % size == 0)
        off = (off / size) * size;
      sizes.push_back(size);
      offsets.push_back(off);
    }
    OrReason<SliceResult> s = l.slice(shape, offsets, sizes);
    if (!s) {
      ++declined;
      EXPECT_FALSE(s.reason().empty());
      continue;
    }
    ++succeeded;
    ASSERT_EQ(s->residual.size(), [&] {
      int64_t p = 1;
      for (int64_t v : sizes)
        p *= v;
      return p;
    }());
    for (int64_t r = 0; r < l.replicaCount(); ++r) {
      int64_t flat = 0;
      for (const auto &c : allCoords(sizes)) {
        SmallVector<int64_t> abs(c);
        for (size_t d = 0; d < c.size(); ++d)
          abs[d] += offsets[d];
        ASSERT_EQ(s->residual.apply(flat, r), l.apply(abs, shape, r))
            << l.toString() << " sliced to " << s->residual.toString();
        ++flat;
      }
    }
  }
  // Both outcomes must be exercised for the test to mean anything.
  EXPECT_GT(succeeded, kLayouts / 2);
  EXPECT_GT(declined, 10);
  std::printf("slice: %d sliced, %d declined\n", succeeded, declined);
}

/// `l` spelled differently: some iters split into two factors, the same
/// function (canonicalize() fuses them back).
TileLayout respell(Generator &gen, const TileLayout &l) {
  SmallVector<Iter> shard;
  for (const Iter &it : l.shard()) {
    int64_t f = it.extent % 2 == 0 ? 2 : it.extent % 3 == 0 ? 3 : 0;
    if (f && it.extent > f && gen.coin(0.6)) {
      shard.push_back(Iter{it.extent / f, it.stride * f, it.axis});
      shard.push_back(Iter{f, it.stride, it.axis});
    } else {
      shard.push_back(it);
    }
  }
  return TileLayout(shard, l.replica(), l.offsets(), l.swizzle());
}

TEST(LayoutProperty, SliceDecidesOnTheFunctionNotItsSpelling) {
  // A layout, its canonical form and a respelling with split iters slice
  // every region the same way: same verdict, same residual, same offset.
  Generator gen;
  int sliced = 0, declined = 0;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout spelled = respell(gen, gen.layout());
    TileLayout canonical = spelled.canonicalize();
    SmallVector<int64_t> shape = gen.groupableShape(spelled);
    SmallVector<int64_t> offsets, sizes;
    for (int64_t d : shape) {
      int64_t size = std::uniform_int_distribution<int64_t>(1, d)(gen.rng);
      sizes.push_back(size);
      offsets.push_back(
          std::uniform_int_distribution<int64_t>(0, d - size)(gen.rng));
    }
    OrReason<SliceResult> a = spelled.slice(shape, offsets, sizes);
    OrReason<SliceResult> b = canonical.slice(shape, offsets, sizes);
    ASSERT_EQ(bool(a), bool(b))
        << spelled.toString() << " vs " << canonical.toString() << ": "
        << (a ? b.reason() : a.reason());
    if (!a) {
      EXPECT_EQ(a.reason(), b.reason());
      ++declined;
      continue;
    }
    ++sliced;
    EXPECT_EQ(a->residual.toString(), b->residual.toString());
    // And the result is the function's: element (offsets + c) of the
    // respelled layout, brute force.
    for (int64_t r = 0; r < spelled.replicaCount(); ++r) {
      int64_t flat = 0;
      for (const auto &c : allCoords(sizes)) {
        SmallVector<int64_t> abs(c);
        for (size_t d = 0; d < c.size(); ++d)
          abs[d] += offsets[d];
        ASSERT_EQ(a->residual.apply(flat++, r), spelled.apply(abs, shape, r))
            << spelled.toString() << " sliced to " << a->residual.toString();
      }
    }
  }
  EXPECT_GT(sliced, kLayouts / 4);
  EXPECT_GT(declined, 10);
  std::printf("respelled slices: %d sliced, %d declined\n", sliced, declined);
}

TEST(LayoutProperty, WholeTileAndSingleElementSlicesAlwaysSucceed) {
  Generator gen;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout l = gen.layout();
    SmallVector<int64_t> shape = gen.groupableShape(l);
    SmallVector<int64_t> zeros(shape.size(), 0), ones(shape.size(), 1);
    OrReason<SliceResult> whole = l.slice(shape, zeros, shape);
    ASSERT_TRUE(whole) << whole.reason();
    SmallVector<int64_t> last(shape);
    for (int64_t &v : last)
      v -= 1;
    OrReason<SliceResult> one = l.slice(shape, last, ones);
    ASSERT_TRUE(one) << one.reason();
    EXPECT_EQ(one->residual.apply(0), l.apply(last, shape));
  }
}

TEST(LayoutProperty, PermuteDimsMatchesTransposedApply) {
  Generator gen;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout l = gen.layout();
    SmallVector<int64_t> shape = gen.groupableShape(l);
    SmallVector<unsigned> perm(shape.size());
    for (unsigned i = 0; i < perm.size(); ++i)
      perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), gen.rng);
    OrReason<TileLayout> p = l.permuteDims(shape, perm);
    ASSERT_TRUE(p) << p.reason();
    SmallVector<int64_t> pshape;
    for (unsigned i : perm)
      pshape.push_back(shape[i]);
    for (const auto &c : allCoords(pshape)) {
      SmallVector<int64_t> src(shape.size());
      for (size_t i = 0; i < perm.size(); ++i)
        src[perm[i]] = c[i];
      ASSERT_EQ(p->apply(c, pshape), l.apply(src, shape));
    }
  }
}

TEST(LayoutProperty, TileIsOuterPlusInner) {
  Generator gen;
  int tiled = 0;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout inner = gen.layout();
    SmallVector<int64_t> innerShape = gen.groupableShape(inner);
    // An unswizzled outer layout of the same rank.
    SmallVector<Iter> outerIters;
    SmallVector<int64_t> outerShape;
    for (size_t d = 0; d < innerShape.size(); ++d) {
      int64_t e = gen.pick({1, 2, 3});
      int64_t stride = gen.pick({0, 512, 1024, 4096});
      outerIters.push_back(Iter{e, stride, gen.coin() ? Axis::m : gen.axis()});
      outerShape.push_back(e);
    }
    TileLayout outer(outerIters);
    OrReason<TileLayout> t = TileLayout::tile(outer, outerShape, inner,
                                              innerShape);
    ASSERT_TRUE(t) << t.reason();
    ++tiled;
    SmallVector<int64_t> shape;
    for (size_t d = 0; d < innerShape.size(); ++d)
      shape.push_back(outerShape[d] * innerShape[d]);
    for (int64_t r = 0; r < inner.replicaCount(); ++r) {
      for (const auto &c : allCoords(shape)) {
        SmallVector<int64_t> o(c.size()), i(c.size());
        for (size_t d = 0; d < c.size(); ++d) {
          o[d] = c[d] / innerShape[d];
          i[d] = c[d] % innerShape[d];
        }
        AxisAddress expect = inner.apply(i, innerShape, r);
        AxisAddress oa = outer.apply(o, outerShape);
        for (unsigned a = 0; a < kNumAxes; ++a)
          expect[a] += oa[a];
        ASSERT_EQ(t->apply(c, shape, r), expect)
            << outer.toString() << " x " << inner.toString();
      }
    }
  }
  EXPECT_EQ(tiled, kLayouts);
}

TEST(LayoutProperty, DirectSumIsOuterPlusInner) {
  Generator gen;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout a = gen.layout(), b = gen.layout();
    OrReason<TileLayout> s = TileLayout::directSum(a, b);
    if (!s) {
      // Only swizzle composition may decline.
      EXPECT_TRUE(!a.swizzle().isIdentity() || !b.swizzle().isIdentity());
      continue;
    }
    ASSERT_EQ(s->size(), a.size() * b.size());
    bool swizzled = !s->swizzle().isIdentity();
    for (int64_t i = 0; i < s->size(); ++i) {
      AxisAddress x = applyUnswizzled(a, i / b.size(), 0);
      AxisAddress y = applyUnswizzled(b, i % b.size(), 0);
      for (unsigned k = 0; k < kNumAxes; ++k)
        x[k] += y[k];
      if (swizzled)
        at(x, Axis::m) = s->swizzle().apply(at(x, Axis::m));
      ASSERT_EQ(s->apply(i), x);
      // The commuting condition: summing swizzled parts gives the same.
      if (swizzled) {
        AxisAddress p = a.apply(i / b.size()), q = b.apply(i % b.size());
        EXPECT_EQ(at(p, Axis::m) + at(q, Axis::m), at(x, Axis::m));
      }
    }
  }
}

TEST(LayoutProperty, ContiguousChainIsTheLongestConsecutiveRun) {
  Generator gen;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout l = gen.layout();
    ContiguousChain chain = l.contiguousChain();
    // Brute force: longest prefix i = 0.. with m(i) = m(0) + i, other axes
    // fixed, and a run that is a product of inner iters (checked by the
    // chain pattern repeating for every block).
    TileLayout plain(l.shard());
    AxisAddress base = plain.apply(0);
    int64_t run = 1;
    while (run < plain.size()) {
      AxisAddress a = plain.apply(run);
      AxisAddress expect = base;
      at(expect, Axis::m) += run;
      if (a != expect)
        break;
      ++run;
    }
    EXPECT_EQ(chain.elements, run) << l.toString();
  }
}

TEST(LayoutProperty, StorageKeepsOnlyStorageAxes) {
  Generator gen;
  for (int n = 0; n < kLayouts; ++n) {
    TileLayout l = gen.layout();
    TileLayout s = l.storage();
    for (unsigned a = 0; a < kNumAxes; ++a) {
      if (isThreadAxis(static_cast<Axis>(a))) {
        EXPECT_FALSE(s.usesAxis(static_cast<Axis>(a)));
      }
    }
    int64_t kept = 1;
    for (const Iter &it : l.shard())
      if (!isThreadAxis(it.axis))
        kept *= it.extent;
    EXPECT_EQ(s.size(), kept);
  }
}

} // namespace

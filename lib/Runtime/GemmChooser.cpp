//===- GemmChooser.cpp - which GEMM kernel for a problem -------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/GemmChooser.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace tile::runtime;
using llvm::Error;
using llvm::Expected;

namespace {

Error fail(const llvm::Twine &text) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

/// Throughput of a 128 x BN tile relative to 128 x 256, measured on an H200
/// (docs/Performance.md (d)): narrower tiles reload A more per FLOP. A
/// family tile of another width has no measured figure: the catalog
/// refuses it (GemmCatalog::parse).
std::optional<double> tileEfficiency(int64_t bn) {
  switch (bn) {
  case 256:
    return 1.0;
  case 192:
    return 0.97;
  case 128:
    return 0.93;
  case 64:
    return 0.8;
  default:
    return std::nullopt;
  }
}

/// The largest M, N or K chosen for: TMA dims are below 2^32, and below
/// this no tile or unit count overflows.
constexpr int64_t kMaxSize = int64_t(1) << 32;

/// A JSON key that is present and not null.
bool present(const llvm::json::Object &o, llvm::StringRef key) {
  const llvm::json::Value *v = o.get(key);
  return v && !v->getAsNull();
}
/// A 128 x 128 split-K tile, with the reduction's traffic (the workspace
/// and second kernel, or the cluster's DSMEM sum). Below the 128 x 64
/// tile's 0.8, so that one wave of those (cost 80) beats 128 x 128 tiles
/// in 2 K parts (85.3): on an H200 the 8-stage 128 x 64 kernels ran 4-28 %
/// faster on most such problems, a few percent slower on the ones with the
/// longest K (docs/Performance.md (j)).
constexpr double kSplitKEfficiency = 0.75;

/// What a (tile, part) unit costs beyond its K steps, in K steps: the
/// pipeline's fill, the partial's store and its share of the reduction. A
/// split problem's cost is scaled by (K steps per part + this) / (K steps
/// + this), so that parts of few K steps are not taken for free: on an
/// H200 one wave of 128 x 64 tiles beat 128 x 128 ones in 3-5 parts of
/// 4-22 K steps by 9-30 points of cuBLAS on all 12 problems tried (e4m3
/// 128 x 4096 x 4096, 4 parts of 8: 0.92 against 0.71), while split-K kept
/// winning with 4 parts of 16 and 56 K steps (bf16 128 x 4096 x 4096:
/// 0.98 against 0.94; 128 x 4096 x 14336: 0.93 against 0.79;
/// docs/Performance.md (j)).
constexpr double kSplitKUnitSteps = 16;

/// Swap-AB in 64-column tiles (one consumer warpgroup, twice the tiles)
/// rather than 128-column ones, where the 128-column tiles fill at most a
/// quarter of the SMs and the K loop is long (or the operands 8-bit): on
/// an H200 (M = 1 to 64, N = 4096 and 1024) the 64-column tiles in pairs
/// of CTAs ran 1.07-1.16x the 128-column choice at K = 14336 (bf16 and
/// e4m3), and in the workspace form 1.07-1.15x at N = 1024, K = 8192 for
/// M = 32 and 64; at K = 4096, e4m3 (32 K tiles) 0.77-0.88 of cuBLAS
/// against 0.75-0.80, bf16 (64 K tiles) 0.72-1.05 against 0.84-1.12
/// (docs/Performance.md (j)). Where the 128-column tiles take clusters of
/// more than 2 (N = 1024, M <= 16) those stay faster.
constexpr int64_t kNarrowSwapLongK = 128;

/// The largest M for which swap-AB in 64-row tiles (A's rows over several
/// of them) replaces the 128-row tiles where those would split K: on an
/// H200 (M = 96 to 256, N = 1024 and 4096, K = 4096 to 14336, bf16 and
/// e4m3) the 64 x 128 swap-AB tiles in the workspace form ran 0.85-0.98x
/// the 128 x 128 split-K kernel's time on 11 of 13 such problems (bf16
/// x 4096 x 14336: 1.02-1.03x); where the family's tiles do not split K
/// they lost (docs/Performance.md (j)).
constexpr int64_t kSwapABLargestM = 256;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Expected<int64_t> integer(const llvm::json::Object &o, llvm::StringRef key,
                          const llvm::Twine &kernel) {
  if (std::optional<int64_t> v = o.getInteger(key); v && *v > 0)
    return *v;
  return fail("GEMM case " + kernel + ": '" + key +
              "' is missing or not a positive integer");
}

Expected<std::string> text(const llvm::json::Object &o, llvm::StringRef key,
                           const llvm::Twine &what) {
  if (std::optional<llvm::StringRef> v = o.getString(key))
    return v->str();
  return fail(what + ": '" + key + "' is missing or not a string");
}

bool flag(const llvm::json::Object &o, llvm::StringRef key) {
  return o.getBoolean(key).value_or(false);
}

Expected<const llvm::json::Array *> listOf(const llvm::json::Value &root,
                                           llvm::StringRef key,
                                           llvm::StringRef file) {
  const llvm::json::Object *o = root.getAsObject();
  const llvm::json::Array *list = o ? o->getArray(key) : nullptr;
  if (!list)
    return fail(file + ": no '" + key + "' list");
  return list;
}

/// The ClusterK kernel replacing `base` (SwapAB or SplitK) cut into `parts`
/// K parts, or null: clusters of max(parts, 2) CTAs, one part each, when
/// the GPU holds a cluster per tile at once or the clusters are pairs
/// (clusters of 4 and 8 fit 30 and 15 at a time on an H200: 32 tiles would
/// take two rounds, slower than the workspace and its reduction). One part
/// becomes two only when each keeps at least 4 K tiles.
const GemmKernelCase *inCluster(const GemmCatalog &catalog,
                                const GemmKernelCase &base, int64_t parts,
                                int64_t tiles, int64_t k,
                                GemmClustersHeld clustersHeld) {
  int64_t size = std::max<int64_t>(parts, 2);
  if (parts == 1 && base.kTiles(k) < 8)
    return nullptr;
  for (const GemmKernelCase &c : catalog.kernels()) {
    if (c.form != GemmForm::ClusterK || c.dtype != base.dtype ||
        c.out != base.out || c.bm != base.bm || c.bn != base.bn ||
        c.bk != base.bk || c.swapAB != base.swapAB || c.cluster != size)
      continue;
    int held = clustersHeld(c);
    if (held >= 1 && (size == 2 || tiles <= held))
      return &c;
  }
  return nullptr;
}

std::string summedIn(const GemmKernelCase &cluster) {
  return ", summed in clusters of " + std::to_string(cluster.cluster);
}

} // namespace

Expected<GemmCatalog> GemmCatalog::parse(llvm::StringRef familyCases,
                                         llvm::StringRef splitKCases) {
  GemmCatalog catalog;
  for (auto [file, body, module] :
       {std::tuple{llvm::StringRef("gemm.cases.json"), familyCases,
                   llvm::StringRef("gemm")},
        std::tuple{llvm::StringRef("gemm_splitk.cases.json"), splitKCases,
                   llvm::StringRef("gemm_splitk")}}) {
    Expected<llvm::json::Value> root = llvm::json::parse(body);
    if (!root)
      return fail(file + ": " + llvm::toString(root.takeError()));
    Expected<const llvm::json::Array *> kernels =
        listOf(*root, "kernels", file);
    if (!kernels)
      return kernels.takeError();
    for (const llvm::json::Value &entry : **kernels) {
      const llvm::json::Object *o = entry.getAsObject();
      if (!o)
        return fail(file + ": a kernel case is not an object");
      Expected<std::string> name = text(*o, "kernel", file + " case");
      if (!name)
        return name.takeError();
      // Not chosen: A.B kernels, B-multicast clusters, cp.async versions
      // (TileRuntime launches those in their kernel's place) and other
      // schedules of a tile (the ping-pong kernels: measured no faster).
      if (module == "gemm" &&
          (flag(*o, "b_mn") || present(*o, "cluster") ||
           present(*o, "version_of") || present(*o, "schedule")))
        continue;
      GemmKernelCase c;
      c.kernel = *name;
      c.module = module.str();
      for (auto [key, field] : {std::pair{"dtype", &c.dtype},
                                std::pair{"out", &c.out}}) {
        Expected<std::string> v = text(*o, key, "GEMM case " + c.kernel);
        if (!v)
          return v.takeError();
        *field = *v;
      }
      for (auto [key, field] : {std::pair{"bm", &c.bm}, std::pair{"bn", &c.bn},
                                std::pair{"bk", &c.bk}}) {
        Expected<int64_t> v = integer(*o, key, c.kernel);
        if (!v)
          return v.takeError();
        *field = *v;
      }
      if (module == "gemm") {
        c.form = GemmForm::Tiles;
        if (!tileEfficiency(c.bn))
          return fail("GEMM case " + c.kernel + ": no measured efficiency "
                      "for 128 x " + llvm::Twine(c.bn) +
                      " tiles (GemmChooser.cpp, tileEfficiency)");
      } else {
        c.swapAB = flag(*o, "swap_ab");
        if (present(*o, "cluster")) {
          Expected<int64_t> size = integer(*o, "cluster", c.kernel);
          if (!size)
            return size.takeError();
          c.form = GemmForm::ClusterK;
          c.cluster = *size;
        } else if (flag(*o, "stream_k")) {
          c.form = GemmForm::StreamK;
        } else {
          c.form = c.swapAB ? GemmForm::SwapAB : GemmForm::SplitK;
        }
      }
      catalog.kernels_.push_back(std::move(c));
    }
    if (module != "gemm_splitk")
      continue;
    Expected<const llvm::json::Array *> reducers =
        listOf(*root, "reducers", file);
    if (!reducers)
      return reducers.takeError();
    for (const llvm::json::Value &entry : **reducers) {
      const llvm::json::Object *o = entry.getAsObject();
      if (!o)
        return fail(file + ": a reducer is not an object");
      GemmReducer r;
      Expected<std::string> name = text(*o, "kernel", file + " reducer");
      if (!name)
        return name.takeError();
      r.kernel = *name;
      Expected<std::string> out = text(*o, "out", "reducer " + r.kernel);
      if (!out)
        return out.takeError();
      r.out = *out;
      Expected<int64_t> rows = integer(*o, "rows", r.kernel);
      if (!rows)
        return rows.takeError();
      Expected<int64_t> cols = integer(*o, "cols", r.kernel);
      if (!cols)
        return cols.takeError();
      r.rows = *rows;
      r.cols = *cols;
      r.streamK = flag(*o, "stream_k");
      catalog.reducers_.push_back(std::move(r));
    }
  }
  return catalog;
}

Expected<GemmCatalog> GemmCatalog::read(llvm::StringRef directory) {
  std::string bodies[2];
  const char *files[2] = {"gemm.cases.json", "gemm_splitk.cases.json"};
  for (int i = 0; i < 2; ++i) {
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, files[i]);
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return fail(path + ": " + buffer.getError().message());
    bodies[i] = (*buffer)->getBuffer().str();
  }
  return parse(bodies[0], bodies[1]);
}

const GemmKernelCase *GemmCatalog::find(llvm::StringRef kernel) const {
  for (const GemmKernelCase &c : kernels_)
    if (c.kernel == kernel)
      return &c;
  return nullptr;
}

const GemmReducer *GemmCatalog::reducer(llvm::StringRef out, int64_t rows,
                                        bool streamK) const {
  for (const GemmReducer &r : reducers_)
    if (r.out == out && r.rows == rows && r.streamK == streamK)
      return &r;
  return nullptr;
}

std::optional<int64_t> tile::runtime::splitKParts(const GemmKernelCase &kernel,
                                                  int64_t m, int64_t n,
                                                  int64_t k, int sms,
                                                  int64_t least) {
  int64_t tiles = kernel.tiles(m, n);
  int64_t kTiles = kernel.kTiles(k);
  int64_t parts = std::min({int64_t(sms) / std::max<int64_t>(tiles, 1),
                            kTiles / 4, int64_t(8)});
  if (parts < least)
    return std::nullopt;
  parts = std::max<int64_t>(parts, 1);
  int64_t perPart = ceilDiv(kTiles, parts);
  return ceilDiv(kTiles, perPart);
}

bool tile::runtime::splitKPartsValid(const GemmKernelCase &kernel, int64_t k,
                                     int64_t parts) {
  int64_t kTiles = kernel.kTiles(k);
  return parts >= 1 && parts <= kTiles &&
         ceilDiv(kTiles, parts) * (parts - 1) < kTiles;
}

namespace {

/// The kernels of `form` and `dtype`, in the catalog's order.
std::vector<const GemmKernelCase *>
kernelsOf(const GemmCatalog &catalog, GemmForm form, llvm::StringRef dtype) {
  std::vector<const GemmKernelCase *> out;
  for (const GemmKernelCase &c : catalog.kernels())
    if (c.form == form && c.dtype == dtype)
      out.push_back(&c);
  return out;
}

/// M <= 64: swap-AB in the narrowest tile holding M rows (the wgmma's N),
/// K split to fill the SMs; none without a swap-AB kernel of the type.
std::optional<GemmChoice> smallMSwapAB(const GemmCatalog &catalog,
                                       llvm::StringRef dtype, int64_t m,
                                       int64_t n, int64_t k, int sms,
                                       GemmClustersHeld clustersHeld) {
  std::vector<const GemmKernelCase *> swaps =
      kernelsOf(catalog, GemmForm::SwapAB, dtype);
  // The narrowest rows holding M; of those, the 128- and 64-column tiles
  // (the first of each in the catalog).
  int64_t rows = 0;
  for (const GemmKernelCase *c : swaps)
    if (c->bm >= m && (!rows || c->bm < rows))
      rows = c->bm;
  const GemmKernelCase *wide = nullptr, *narrow = nullptr;
  for (const GemmKernelCase *c : swaps) {
    if (c->bm != rows)
      continue;
    if (c->bn == 64 && !narrow)
      narrow = c;
    else if (c->bn != 64 && !wide)
      wide = c;
  }
  if (!wide && !narrow)
    return std::nullopt;
  auto swapChoice = [&](const GemmKernelCase &c) {
    int64_t tiles = c.tiles(m, n);
    // One wave of tiles or more: one part (the reduction only converts).
    int64_t parts = splitKParts(c, m, n, k, sms, 1).value_or(1);
    std::string why = "M = " + std::to_string(m) + " <= 64: swap-AB, " +
                      std::to_string(tiles) + " tiles of " +
                      std::to_string(c.bm) + "x" + std::to_string(c.bn) +
                      " x " + std::to_string(parts) + " K part(s) on " +
                      std::to_string(sms) + " SMs";
    if (const GemmKernelCase *cluster =
            inCluster(catalog, c, parts, tiles, k, clustersHeld))
      return GemmChoice{cluster, std::nullopt, why + summedIn(*cluster)};
    return GemmChoice{&c, parts, why};
  };
  GemmChoice choice = swapChoice(wide ? *wide : *narrow);
  bool eightBit = dtype.starts_with("f8");
  if (wide && narrow && wide->tiles(m, n) * 4 <= sms &&
      (eightBit || wide->kTiles(k) >= kNarrowSwapLongK) &&
      choice.kernelCase->cluster <= 2) {
    GemmChoice narrowed = swapChoice(*narrow);
    narrowed.why += " (128-column tiles would fill a quarter of the SMs "
                    "or less)";
    return narrowed;
  }
  return choice;
}

/// M of 65 to 256 where the family's 128-row tiles would split K: swap-AB
/// in 64 x 128 tiles where they split K too (in 2 to 8 parts, as
/// measured), in the workspace form (in pairs of CTAs bf16 ran 7-9 %
/// slower there); none where they would fill the SMs unsplit.
std::optional<GemmChoice> mediumMSwapAB(const GemmCatalog &catalog,
                                        llvm::StringRef dtype, int64_t m,
                                        int64_t n, int64_t k, int sms) {
  for (const GemmKernelCase *c :
       kernelsOf(catalog, GemmForm::SwapAB, dtype)) {
    if (c->bm != 64 || c->bn != 128)
      continue;
    std::optional<int64_t> parts = splitKParts(*c, m, n, k, sms, 2);
    if (!parts)
      return std::nullopt;
    return GemmChoice{c, *parts,
                      "M = " + std::to_string(m) +
                          ": swap-AB where 128-row tiles would split K, " +
                          std::to_string(c->tiles(m, n)) +
                          " tiles of 64x128 x " + std::to_string(*parts) +
                          " K part(s) on " + std::to_string(sms) + " SMs"};
  }
  return std::nullopt;
}

} // namespace

Expected<GemmChoice> tile::runtime::chooseGemm(const GemmCatalog &catalog,
                                               llvm::StringRef dtype,
                                               int64_t m, int64_t n, int64_t k,
                                               int sms,
                                               GemmClustersHeld clustersHeld,
                                               GemmChooseOptions options) {
  if (m < 0 || n < 0 || k < 0)
    return fail("GEMM " + llvm::Twine(m) + "x" + llvm::Twine(n) + "x" +
                llvm::Twine(k) + ": a size is negative");
  if (m > kMaxSize || n > kMaxSize || k > kMaxSize)
    return fail("GEMM " + llvm::Twine(m) + "x" + llvm::Twine(n) + "x" +
                llvm::Twine(k) + ": a size is above 2^32 (TMA's limit)");
  if (sms < 1)
    return fail("GEMM: " + llvm::Twine(sms) + " SMs");
  auto of = [&](GemmForm form) { return kernelsOf(catalog, form, dtype); };
  std::vector<const GemmKernelCase *> family = of(GemmForm::Tiles);
  if (family.empty())
    return fail("GEMM: no kernel takes '" + dtype +
                "' (the family takes bf16, f16 and f8E4M3FN)");

  // M <= 64: swap-AB, the narrowest tile holding M rows (the wgmma's N), K
  // split to fill the SMs.
  if (options.allowSwapAB && m <= 64)
    if (std::optional<GemmChoice> swap =
            smallMSwapAB(catalog, dtype, m, n, k, sms, clustersHeld))
      return *swap;

  // The fewest waves of tiles, weighted by the tile's efficiency; a deeper
  // K step breaks ties (fewer barrier rounds).
  GemmChoice best;
  double bestCost = 0;
  int64_t bestBk = 0;
  for (const GemmKernelCase *c : family) {
    int64_t tiles = c->tiles(m, n);
    int64_t waves = ceilDiv(tiles, sms);
    double cost = double(waves) * double(c->bn) / *tileEfficiency(c->bn);
    if (!best.kernelCase || cost < bestCost ||
        (cost == bestCost && c->bk > bestBk)) {
      best = {c, std::nullopt,
              std::to_string(tiles) + " tiles of 128x" + std::to_string(c->bn) +
                  " on " + std::to_string(sms) + " SMs: " +
                  std::to_string(waves) + " wave(s)"};
      bestCost = cost;
      bestBk = c->bk;
    }
  }
  // Few tiles and a long K: split-K.
  for (const GemmKernelCase *c : of(GemmForm::SplitK)) {
    std::optional<int64_t> parts = splitKParts(*c, m, n, k, sms, 2);
    if (!parts)
      continue;
    int64_t tiles = c->tiles(m, n);
    int64_t perPart = ceilDiv(c->kTiles(k), *parts);
    int64_t waves = ceilDiv(tiles * *parts, sms);
    double cost = double(waves) * double(c->bn) / kSplitKEfficiency *
                  (double(perPart) + kSplitKUnitSteps) /
                  (double(c->kTiles(k)) + kSplitKUnitSteps);
    if (cost < bestCost) {
      best = {c, parts,
              std::to_string(tiles) + " tiles of 128x128 x " +
                  std::to_string(*parts) + " K parts of " +
                  std::to_string(perPart * c->bk) + " on " +
                  std::to_string(sms) + " SMs"};
      bestCost = cost;
    }
  }
  // M of 65 to 256 where the 128-row tiles split K: swap-AB in 64-row
  // tiles.
  if (options.allowSwapAB && best.parts && m <= kSwapABLargestM)
    if (std::optional<GemmChoice> swap =
            mediumMSwapAB(catalog, dtype, m, n, k, sms))
      return *swap;
  if (best.parts)
    if (const GemmKernelCase *cluster =
            inCluster(catalog, *best.kernelCase, *best.parts,
                      best.kernelCase->tiles(m, n), k, clustersHeld))
      return GemmChoice{cluster, std::nullopt, best.why + summedIn(*cluster)};
  return best;
}

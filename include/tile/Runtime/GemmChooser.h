//===- GemmChooser.h - which GEMM kernel for a problem ----------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GEMM family's kernel choice (docs/Gemm.md, "The choice"): from the
// kernels' case lists (`gemm.cases.json`, `gemm_splitk.cases.json`, written
// by the generators next to the compiled modules), a problem M x N x K of
// one element type and the GPU's SM count, the kernel to run, its K parts
// and why. No CUDA and no MLIR: the one place the heuristic lives, used by
// tile::runtime::Gemm (C++), the C API and `tile_mlir.gemm` (Python).
//
// Example:
//   auto catalog = GemmCatalog::parse(familyJson, splitKJson);
//   GemmChoice c = chooseGemm(*catalog, "bf16", 64, 4096, 4096, 132,
//                             [](const GemmKernelCase &) { return 30; });
//   // c.kernelCase->kernel == "gemm_bf16_tn_swapab_64x128x64_s6_splitk",
//   // c.parts == 4 (a workspace and the reduction: no cluster of 4 holds
//   // every tile at once here).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_GEMMCHOOSER_H
#define TILE_RUNTIME_GEMMCHOOSER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tile::runtime {

/// How a GEMM kernel walks its problem.
enum class GemmForm {
  /// The persistent family: one CTA per 128 x BN output tile at a time.
  Tiles,
  /// 128 x 128 tiles with K cut into parts, f32 partials in a workspace
  /// summed in part order by a reduction kernel.
  SplitK,
  /// C^T = W A^T for M <= 64 (and, in 64-row tiles, M <= 256 where the
  /// family's tiles would split K): tiles of BM (16, 32, 64) rows of A by
  /// 128 or 64 of W, K parts as SplitK.
  SwapAB,
  /// SplitK or SwapAB with a tile's `cluster` parts on the CTAs of one
  /// cluster, summed through distributed shared memory (no workspace).
  ClusterK,
  /// C CTAs sharing all tiles' K steps (chosen by name only).
  StreamK,
};

/// One kernel of the case lists.
struct GemmKernelCase {
  std::string kernel;
  /// "gemm" or "gemm_splitk": the module holding it.
  std::string module;
  /// Operand and output element types: "bf16", "f16", "f8E4M3FN".
  std::string dtype, out;
  GemmForm form = GemmForm::Tiles;
  int64_t bm = 0, bn = 0, bk = 0;
  /// ClusterK: the K parts a cluster sums (its CTAs).
  int64_t cluster = 0;
  /// SwapAB, or a ClusterK kernel of swap-AB tiles.
  bool swapAB = false;

  int64_t tiles(int64_t m, int64_t n) const {
    return ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
  }
  int64_t kTiles(int64_t k) const { return (k + bk - 1) / bk; }
};

/// A reduction kernel summing split-K partials into the output.
struct GemmReducer {
  std::string kernel, out;
  int64_t rows = 0, cols = 0;
  bool streamK = false;
};

/// The kernels `chooseGemm` picks from.
class GemmCatalog {
public:
  /// The two case lists' JSON text; an error names what is malformed.
  static llvm::Expected<GemmCatalog> parse(llvm::StringRef familyCases,
                                           llvm::StringRef splitKCases);
  /// `gemm.cases.json` and `gemm_splitk.cases.json` in `directory`.
  static llvm::Expected<GemmCatalog> read(llvm::StringRef directory);

  const std::vector<GemmKernelCase> &kernels() const { return kernels_; }
  const std::vector<GemmReducer> &reducers() const { return reducers_; }
  /// The case of `kernel`, or null.
  const GemmKernelCase *find(llvm::StringRef kernel) const;
  /// The reducer writing `out` with `rows`-row blocks, or null.
  const GemmReducer *reducer(llvm::StringRef out, int64_t rows,
                             bool streamK = false) const;

private:
  std::vector<GemmKernelCase> kernels_;
  std::vector<GemmReducer> reducers_;
};

/// What to run for one problem.
struct GemmChoice {
  const GemmKernelCase *kernelCase = nullptr;
  /// SplitK / SwapAB: the K parts (each non-empty); none otherwise.
  std::optional<int64_t> parts;
  std::string why;
};

struct GemmChooseOptions {
  /// False: never swap-AB (what benchmarks compare swap-AB against).
  bool allowSwapAB = true;
};

/// How many clusters of a ClusterK kernel the GPU holds at once
/// (cuOccupancyMaxActiveClusters; 0 when none fits).
using GemmClustersHeld = llvm::function_ref<int(const GemmKernelCase &)>;

/// The kernel for `dtype` M x N x K on `sms` SMs. An error when the
/// catalog has no kernel of `dtype` or a size is negative.
llvm::Expected<GemmChoice> chooseGemm(const GemmCatalog &catalog,
                                      llvm::StringRef dtype, int64_t m,
                                      int64_t n, int64_t k, int sms,
                                      GemmClustersHeld clustersHeld,
                                      GemmChooseOptions options = {});

/// K parts for `kernel`'s tiles: as many as keep the (tile, part) units
/// within one wave of `sms`, at most 8 and at least 4 K tiles a part,
/// normalised so that no part is empty (S parts of ceil(kTiles / S));
/// none when that is fewer than `least`.
std::optional<int64_t> splitKParts(const GemmKernelCase &kernel, int64_t m,
                                   int64_t n, int64_t k, int sms,
                                   int64_t least);

/// Whether `parts` K parts of `kernel` leave none empty (1 <= parts <=
/// kTiles and ceil(kTiles / parts) * (parts - 1) < kTiles).
bool splitKPartsValid(const GemmKernelCase &kernel, int64_t k, int64_t parts);

} // namespace tile::runtime

#endif // TILE_RUNTIME_GEMMCHOOSER_H

//===- Gemm.h - the GEMM family behind one call -----------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// C = A W^T with the kernel chosen per call (tile::runtime::chooseGemm,
// docs/Gemm.md): the C++ form of `tile_mlir.gemm.linear`. The family's two
// modules (gemm.sm_90a.*, gemm_splitk.sm_90a.* and their case lists, as
// the build writes them to build/device/kernels) are loaded into the
// current context; a call launches the chosen kernel, with a stream-ordered
// f32 workspace and the reduction for the split forms, and copies the
// operands (or C) that TMA cannot address to aligned buffers first.
//
// Example:
//   auto device = Device::open(0);
//   auto gemm = Gemm::open("build/device/kernels");
//   llvm::Error e = gemm->linear("bf16", {a, M, K, K}, {w, N, K, K},
//                                {c, M, N, N}, stream);
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_GEMM_H
#define TILE_RUNTIME_GEMM_H

#include "tile/Runtime/GemmChooser.h"
#include "tile/Runtime/Runtime.h"

#include <map>
#include <memory>
#include <mutex>

namespace tile::runtime {

/// A row-major matrix in device memory: `rows` x `cols` elements, rows
/// `rowStride` elements apart (unit inner stride).
struct GemmMatrix {
  uint64_t address = 0;
  int64_t rows = 0, cols = 0, rowStride = 0;
};

/// Bytes of one element of "bf16", "f16", "f8E4M3FN"; 0 for another name.
int64_t gemmElementBytes(llvm::StringRef dtype);
/// The output type of a GEMM on `dtype`: bf16 for f8E4M3FN, else dtype.
llvm::StringRef gemmOutputType(llvm::StringRef dtype);
/// Why TMA cannot address `m` (of `elementBytes` elements) in place, or
/// an empty string: 16-byte aligned base and row stride, rows apart.
std::string gemmTmaProblem(const GemmMatrix &m, int64_t elementBytes);

class Gemm {
public:
  /// The family's modules and case lists in `directory`, loaded into the
  /// current context (an error when there is none: open a Device first;
  /// the C API's tileGemmOpen makes device 0's primary context current).
  static llvm::Expected<std::unique_ptr<Gemm>> open(llvm::StringRef directory);

  const GemmCatalog &catalog() const { return catalog_; }
  int multiprocessors() const { return sms_; }

  /// What `linear` runs for `dtype` M x N x K on this GPU.
  llvm::Expected<GemmChoice> choose(llvm::StringRef dtype, int64_t m,
                                    int64_t n, int64_t k,
                                    GemmChooseOptions options = {}) const;

  /// C [M, N] = A [M, K] W [N, K]^T on `stream`, A and W of `dtype`, C of
  /// gemmOutputType(dtype). Nothing is launched when a check fails (shapes,
  /// types, null addresses); the error says which. `why`, when given,
  /// receives the choice and any copy made.
  llvm::Error linear(llvm::StringRef dtype, const GemmMatrix &a,
                     const GemmMatrix &w, const GemmMatrix &c,
                     CUstream stream = nullptr, std::string *why = nullptr,
                     GemmChooseOptions options = {}) const;

private:
  Gemm(GemmCatalog catalog, std::unique_ptr<Module> family,
       std::unique_ptr<Module> splitK, int sms)
      : catalog_(std::move(catalog)), family_(std::move(family)),
        splitK_(std::move(splitK)), sms_(sms) {}
  llvm::Expected<Kernel> kernel(const std::string &module,
                                const std::string &name) const;
  /// Clusters of a ClusterK kernel the GPU holds at once (memoised).
  int clustersHeld(const GemmKernelCase &c) const;
  llvm::Error run(const GemmChoice &choice, llvm::StringRef dtype,
                  const GemmMatrix &a, const GemmMatrix &w,
                  const GemmMatrix &c, CUstream stream) const;

  GemmCatalog catalog_;
  std::unique_ptr<Module> family_, splitK_;
  int sms_ = 0;
  mutable std::mutex heldLock_;
  mutable std::map<std::string, int> held_;
};

} // namespace tile::runtime

#endif // TILE_RUNTIME_GEMM_H

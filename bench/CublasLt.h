//===- CublasLt.h - cuBLASLt opened at run time (the GEMM reference) -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GEMM benchmark's reference, with no build-time dependency on cuBLAS:
// libcublasLt is opened with dlopen and the few entry points and enum
// values used are declared here. The library is looked for in order:
//   1. $TILE_CUBLASLT (a library file; "off": no reference);
//   2. libcublasLt.so.13, libcublasLt.so.12 on the loader's default path;
//   3. the Python installation's NVIDIA wheels next to torch
//      (site-packages/nvidia/{cu13,cublas}/lib), found by asking python3.
// Every failure is an error that says what was tried.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_BENCH_CUBLASLT_H
#define TILE_BENCH_CUBLASLT_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tile::bench {

/// A row-major C (M x N) = A (M x K) * B^T (B: N x K) or A * B (B: K x N)
/// problem, as the tile kernels see it; leading dimensions in elements.
struct LtProblem {
  /// "bf16", "f16" or "f8E4M3FN" (inputs), "bf16" or "f16" (output).
  std::string inputType, outputType;
  bool bMnMajor = false;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  uint64_t a = 0, b = 0, c = 0;
  /// Device pointer to a float 1.0f: the e4m3 scale of A and B.
  uint64_t unitScale = 0;
};

class CublasLt {
public:
  /// Opens the library and creates a handle.
  static llvm::Expected<std::unique_ptr<CublasLt>> open();
  ~CublasLt();

  /// Where the library was found, and its version (e.g. 130100).
  const std::string &path() const { return path_; }
  size_t version() const;

  /// A matmul planned once (descriptors, the heuristic's best algorithm,
  /// workspace) and run many times on the default stream.
  class Plan {
  public:
    ~Plan();
    llvm::Error run() const;
    /// Bytes of workspace the chosen algorithm uses.
    size_t workspace() const { return workspaceBytes; }

  private:
    friend class CublasLt;
    const CublasLt *lt = nullptr;
    LtProblem problem;
    void *desc = nullptr, *layoutA = nullptr, *layoutB = nullptr,
         *layoutC = nullptr;
    uint64_t algo[8] = {};
    uint64_t workspaceAddress = 0;
    size_t workspaceBytes = 0;
  };
  /// Plans `problem` with `workspace` bytes of device memory at
  /// `workspaceAddress` available to the algorithm.
  llvm::Expected<std::unique_ptr<Plan>> plan(const LtProblem &problem,
                                             uint64_t workspaceAddress,
                                             size_t workspaceBytes) const;

  struct Api;

private:
  CublasLt() = default;
  llvm::Error check(int status, const char *what) const;
  void *library = nullptr;
  std::string path_;
  std::unique_ptr<Api> api;
  void *handle = nullptr;
};

} // namespace tile::bench

#endif // TILE_BENCH_CUBLASLT_H

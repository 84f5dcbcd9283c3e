//===- HopperGemm.h - host side of the Hopper GEMM family -------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one home of the host code that runs the tile-IR GEMMs of
// bench/Kernels/gen_gemm_kernels.py (kernels/gemm.sm_90a.{cubin,json} and
// gemm.cases.json), shared by TileDeviceTests and TileBenchmarks:
//   - the case list (kernel name, operand types, B major-ness, tile sizes);
//   - operands on the device: A (M x K), B (N x K for "tn", K x N for "nn")
//     and C (M x N), each row padded to 16 bytes (TMA's stride rule), with
//     quarter integers in [-0.75, 0.75] and C filled with NaN;
//   - the kernel arguments (memrefs with the padded strides; TileRuntime
//     encodes the tensor maps) and the persistent grid (one CTA per SM, at
//     most one per output tile);
//   - the exact host reference: every product and partial sum of quarter
//     integers in [-0.75, 0.75] is exact in f32 while 9 K < 2^24, so C[m][n]
//     must equal the integer sum / 16 rounded once to the output type.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_DEVICE_HOPPERGEMM_H
#define TILE_TEST_DEVICE_HOPPERGEMM_H

#include "tile/Runtime/Runtime.h"

#include <string>
#include <vector>

namespace tile::device::gemm {

/// One kernel of the family, as gemm.cases.json lists it.
struct GemmCase {
  std::string kernel;
  /// Operand and output element types ("bf16", "f16", "f8E4M3FN").
  std::string dtype, out;
  /// B is K x N (MN-major, C = A * B) instead of N x K (C = A * B^T).
  bool bMnMajor = false;
  unsigned bm = 0, bn = 0, bk = 0, stages = 0;
  /// CTAs per cluster (along M, sharing B's tile by TMA multicast); 1 when
  /// the kernel is launched without clusters.
  unsigned cluster = 1;

  /// "bf16 tn", "e4m3 tn", "bf16 nn": the family the kernel belongs to.
  std::string family() const;
};

/// Reads `path` (kernels/gemm.cases.json); an error names the file.
llvm::Expected<std::vector<GemmCase>> loadGemmCases(const std::string &path);

/// The module kernels/gemm.sm_90a.{cubin,json}.
llvm::Expected<runtime::Module> loadGemmModule();

/// Bytes of one element of `dtype`.
unsigned elementBytes(const std::string &dtype);
/// `value` in `dtype`, rounded to nearest even (bf16, f16; e4m3 must be
/// exact), little-endian into `to`.
void encodeElement(const std::string &dtype, float value, uint8_t *to);
/// The value of one `dtype` element at `from`.
float decodeElement(const std::string &dtype, const uint8_t *from);

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  std::string str() const;
};

/// A problem on the device, its host values and its output buffer.
struct GemmOperands {
  GemmCase kernel;
  GemmShape shape;
  /// Leading dimensions (elements) of the stored A, B and C.
  int64_t lda = 0, ldb = 0, ldc = 0;
  runtime::DeviceBuffer a, b, c;
  /// 4 x the values: a4[m * K + k], bt4[n * K + k] (B transposed for the
  /// host reference, whatever its device layout), integers in [-3, 3].
  std::vector<int8_t> a4, bt4;

  /// Random quarter integers (fixed by `seed`) on the device; C is NaN.
  static llvm::Expected<GemmOperands> create(const GemmCase &kernel,
                                             GemmShape shape, uint64_t seed);
  /// The kernel's arguments: A, B, C as memrefs with the padded strides.
  std::vector<runtime::KernelArg> args() const;
  /// Fills C with NaN (0xFF bytes) so unwritten elements show.
  llvm::Error poisonOutput();
  /// C (ldc-strided rows) read back.
  llvm::Expected<std::vector<uint8_t>> readOutput() const;

  /// The exact value of C[m][n] (before rounding to the output type).
  float exactValue(int64_t m, int64_t n) const;
  /// The exact value rounded to the output type.
  float expected(int64_t m, int64_t n) const;
};

/// The persistent grid of `kernel` on `shape`: one CTA per SM, at most
/// one per output tile (with clusters: one cluster per `cluster` SMs, at
/// most one per `cluster` tiles adjacent along M).
runtime::LaunchConfig gemmLaunchConfig(const GemmCase &kernel,
                                       const GemmShape &shape,
                                       int multiprocessors);

/// Launches `kernel` (any kernel of the family `operands` were made for:
/// same types and B layout) on `operands`; does not wait.
llvm::Error launchGemm(const runtime::Kernel &kernel, const GemmCase &which,
                       const GemmOperands &operands, int multiprocessors);

struct GemmCheckResult {
  int64_t checked = 0, wrong = 0;
  /// The first few differences, "(m, n): got x, expected y".
  std::string firstWrong;
};
/// `output` (C as readOutput returns it) against the exact host reference:
/// every element, or (`sampled`) whole rows and columns: the first, the
/// last, both sides of the kernel's tile edges near either end, and
/// `randomLines` random rows and as many random columns.
GemmCheckResult checkAgainstHostReference(const GemmOperands &operands,
                                          const std::vector<uint8_t> &output,
                                          bool sampled, int randomLines = 24);

} // namespace tile::device::gemm

#endif // TILE_TEST_DEVICE_HOPPERGEMM_H

//===- gemm_async_run.cpp - run examples/gemm_async.mlir on a GPU -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Launches seed 004's kernel (one CTA of 128 threads): A 128x64 and B 64x128
// f16 with small integer values (every product and sum exact in f32), and
// compares `out` with a host GEMM element for element. The two tensor maps
// are encoded from the manifest's encode arguments (A's, then `--`, then
// B's; TVM order: rank, dims, byte strides, box, element strides,
// interleave, swizzle, L2 promotion, oob fill).
//
//   build/bin/tile-compile examples/gemm_async.mlir --cubin g.cubin --manifest g.json
//   nvcc -o /tmp/run test/Device/gemm_async_run.cpp -lcuda
//   /tmp/run g.cubin <A encode args> -- <B encode args>
//
// tcgen05 runs on sm_100 only: on any other device this prints SKIP and
// exits 77 before touching the cubin. No sm_100 device was available to this
// project, so a PASS has never been observed.
//
//===----------------------------------------------------------------------===//

#include "SmokeCommon.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

/// IEEE half bits of a float that is a small integer (exact in f16).
uint16_t halfOfSmallInt(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned mag = static_cast<unsigned>(std::abs(v));
  int exponent = 31 - __builtin_clz(mag);
  unsigned mantissa = (mag << (10 - exponent)) & 0x3FF;
  return static_cast<uint16_t>(sign | ((exponent + 15) << 10) | mantissa);
}

struct Map {
  cuuint32_t rank = 0;
  cuuint64_t dims[5], strides[5];
  cuuint32_t box[5], elementStrides[5];
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2;
  CUtensorMapFloatOOBfill oob;
};

bool parseMap(const std::vector<long long> &a, Map &m) {
  m.rank = static_cast<cuuint32_t>(a.empty() ? 0 : a[0]);
  if (m.rank < 1 || m.rank > 5 || a.size() != 4 * m.rank + 4)
    return false;
  size_t k = 1;
  for (unsigned i = 0; i < m.rank; ++i) m.dims[i] = a[k++];
  for (unsigned i = 0; i + 1 < m.rank; ++i) m.strides[i] = a[k++];
  for (unsigned i = 0; i < m.rank; ++i) m.box[i] = a[k++];
  for (unsigned i = 0; i < m.rank; ++i) m.elementStrides[i] = a[k++];
  m.interleave = static_cast<CUtensorMapInterleave>(a[k++]);
  m.swizzle = static_cast<CUtensorMapSwizzle>(a[k++]);
  m.l2 = static_cast<CUtensorMapL2promotion>(a[k++]);
  m.oob = static_cast<CUtensorMapFloatOOBfill>(a[k++]);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s gemm_async.sm_100a.cubin <A encode "
                         "args> -- <B encode args>\n", argv[0]);
    return 2;
  }
  // tcgen05 (tensor memory) exists on sm_100 only.
  CUcontext context;
  CUfunction kernel;
  if (int status = loadKernel(argv[1], "gemm_async", &context, &kernel,
                              /*exactMajor=*/10))
    return status;

  std::vector<long long> argsA, argsB;
  bool second = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      second = true;
      continue;
    }
    (second ? argsB : argsA).push_back(std::atoll(argv[i]));
  }
  Map mapA, mapB;
  if (!parseMap(argsA, mapA) || !parseMap(argsB, mapB)) {
    std::fprintf(stderr, "FAIL: expected two sets of encode arguments "
                         "separated by --\n");
    return 2;
  }

  constexpr int M = 128, N = 128, K = 64;
  std::vector<uint16_t> a(M * K), b(K * N);
  std::vector<float> want(M * N, 0.0f), out(M * N, -1.0f);
  std::vector<int> ai(M * K), bi(K * N);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) {
      ai[m * K + k] = (m * 3 + k) % 7 - 3;
      a[m * K + k] = halfOfSmallInt(ai[m * K + k]);
    }
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) {
      bi[k * N + n] = (k * 5 + n) % 5 - 2;
      b[k * N + n] = halfOfSmallInt(bi[k * N + n]);
    }
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int sum = 0;
      for (int k = 0; k < K; ++k)
        sum += ai[m * K + k] * bi[k * N + n];
      want[m * N + n] = static_cast<float>(sum);
    }

  CUdeviceptr dA, dB, dOut;
  CHECK(cuMemAlloc(&dA, a.size() * 2));
  CHECK(cuMemAlloc(&dB, b.size() * 2));
  CHECK(cuMemAlloc(&dOut, out.size() * 4));
  CHECK(cuMemcpyHtoD(dA, a.data(), a.size() * 2));
  CHECK(cuMemcpyHtoD(dB, b.data(), b.size() * 2));
  CHECK(cuMemcpyHtoD(dOut, out.data(), out.size() * 4));

  alignas(128) CUtensorMap tmA, tmB;
  CHECK(cuTensorMapEncodeTiled(&tmA, CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                               mapA.rank, reinterpret_cast<void *>(dA),
                               mapA.dims, mapA.strides, mapA.box,
                               mapA.elementStrides, mapA.interleave,
                               mapA.swizzle, mapA.l2, mapA.oob));
  CHECK(cuTensorMapEncodeTiled(&tmB, CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                               mapB.rank, reinterpret_cast<void *>(dB),
                               mapB.dims, mapB.strides, mapB.box,
                               mapB.elementStrides, mapB.interleave,
                               mapB.swizzle, mapB.l2, mapB.oob));

  int64_t zero = 0, m = M, n = N, k = K, one = 1;
  void *args[] = {&dA,   &dA,   &zero, &m,   &k, &k,   &one,
                  &dB,   &dB,   &zero, &k,   &n, &n,   &one,
                  &dOut, &dOut, &zero, &m,   &n, &n,   &one,
                  &tmA,  &tmB};
  CHECK(cuLaunchKernel(kernel, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out.data(), dOut, out.size() * 4));
  int wrong = 0;
  for (int i = 0; i < M * N; ++i)
    if (out[i] != want[i] && wrong++ < 5)
      std::fprintf(stderr, "C[%d][%d]: got %g, expected %g\n", i / N, i % N,
                   out[i], want[i]);
  cuCtxDestroy(context);
  if (wrong) {
    std::printf("FAIL: %d of %d elements differ\n", wrong, M * N);
    return 1;
  }
  std::printf("PASS: 128x64 @ 64x128 f16 -> f32 through 4 tcgen05.mma\n");
  return 0;
}

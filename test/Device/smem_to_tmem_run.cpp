//===- smem_to_tmem_run.cpp - run examples/smem_to_tmem.mlir ----------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Launches seed 000's kernel (one CTA of 128 threads) and checks that every
// warp read the 32x16 uint8 tile back from its own 32-lane slab of tensor
// memory: out[32 w + l][k] == in[4 l + k] (the 32x128b.warpx4 broadcast).
//
//   build/bin/tile-compile examples/smem_to_tmem.mlir --cubin x.cubin
//   nvcc -o /tmp/run test/Device/smem_to_tmem_run.cpp -lcuda && /tmp/run x.cubin
//
// tcgen05 runs on sm_100 only: on any other device this prints SKIP and
// exits 77 before touching the cubin. No sm_100 device was available to this
// project, so a PASS has never been observed.
//
//===----------------------------------------------------------------------===//

#include "SmokeCommon.h"

#include <cstdint>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s smem_to_tmem.sm_100a.cubin\n", argv[0]);
    return 2;
  }
  // tcgen05 (tensor memory) exists on sm_100 only.
  CUcontext context;
  CUfunction kernel;
  if (int status = loadKernel(argv[1], "smem_to_tmem", &context, &kernel,
                              /*exactMajor=*/10))
    return status;

  const int threads = 128;
  std::vector<uint32_t> in(threads), out(threads * 4, 0xDEADBEEF);
  for (int t = 0; t < threads; ++t)
    in[t] = 0x01010101u * uint32_t(t) ^ 0x80402010u; // distinct bytes per word
  CUdeviceptr dIn, dOut;
  CHECK(cuMemAlloc(&dIn, in.size() * 4));
  CHECK(cuMemAlloc(&dOut, out.size() * 4));
  CHECK(cuMemcpyHtoD(dIn, in.data(), in.size() * 4));
  CHECK(cuMemcpyHtoD(dOut, out.data(), out.size() * 4));

  // The lowered ABI of memref<128xi32> and memref<128x4xi32>: allocated,
  // aligned, offset, sizes, strides.
  int64_t zero = 0, n = threads, one = 1, four = 4;
  void *params[] = {&dIn, &dIn, &zero, &n, &one,
                    &dOut, &dOut, &zero, &n, &four, &four, &one};
  CHECK(cuLaunchKernel(kernel, 1, 1, 1, threads, 1, 1, 0, nullptr, params,
                       nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out.data(), dOut, out.size() * 4));

  int wrong = 0;
  for (int w = 0; w < 4; ++w)
    for (int l = 0; l < 32; ++l)
      for (int k = 0; k < 4; ++k) {
        uint32_t got = out[(32 * w + l) * 4 + k], want = in[4 * l + k];
        if (got != want && wrong++ < 8)
          std::fprintf(stderr, "warp %d lane %d word %d: got 0x%08x, want "
                               "0x%08x\n", w, l, k, got, want);
      }
  if (wrong) {
    std::printf("FAIL: %d of %d words differ\n", wrong, threads * 4);
    return 1;
  }
  std::printf("PASS: all 4 warps read the 32x16 tile from their tensor-memory "
              "slab\n");
  return 0;
}

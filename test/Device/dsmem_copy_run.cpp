//===- dsmem_copy_run.cpp - run examples/dsmem_copy.mlir on a GPU -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A smoke test of the dsmem lowering on real hardware, before the host
// runtime exists: loads the cubin tile-compile made from
// examples/dsmem_copy.mlir, launches `clusters` clusters of 2 CTAs x 128
// threads (each cluster copies `in` to `out` through CTA 1's shared memory)
// and compares `out` with `in` bit for bit. Driver API only.
//
//   nvcc -o run test/Device/dsmem_copy_run.cpp -lcuda
//   ./run dsmem_copy.sm_90a.cubin [clusters]
//
// Exit 0 and "PASS" when every element matches; 77 (skip) without an
// sm_90+ GPU; 1 on a mismatch or a driver error (named).
//
//===----------------------------------------------------------------------===//

#include "SmokeCommon.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s kernel.cubin [clusters]\n", argv[0]);
    return 2;
  }
  unsigned clusters = argc > 2 ? std::atoi(argv[2]) : 1;
  CUcontext context;
  CUfunction kernel;
  if (int status = loadKernel(argv[1], "dsmem_copy", &context, &kernel))
    return status;

  constexpr int64_t rows = 128, cols = 64, count = rows * cols;
  std::vector<uint16_t> in(count), out(count, 0xFFFF);
  for (int64_t i = 0; i < count; ++i)
    in[i] = static_cast<uint16_t>(i * 7 + 3);
  CUdeviceptr dIn, dOut;
  CHECK(cuMemAlloc(&dIn, count * 2));
  CHECK(cuMemAlloc(&dOut, count * 2));
  CHECK(cuMemcpyHtoD(dIn, in.data(), count * 2));
  CHECK(cuMemcpyHtoD(dOut, out.data(), count * 2));

  // The manifest's 14 parameters: each memref<128x64xf16> expands to
  // (allocated, aligned, offset, size[0], size[1], stride[0], stride[1]).
  int64_t offset = 0, size0 = rows, size1 = cols, stride0 = cols, stride1 = 1;
  void *args[] = {&dIn,  &dIn,  &offset, &size0, &size1, &stride0, &stride1,
                  &dOut, &dOut, &offset, &size0, &size1, &stride0, &stride1};

  CUlaunchAttribute cluster = {};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = 2;
  cluster.value.clusterDim.y = 1;
  cluster.value.clusterDim.z = 1;
  CUlaunchConfig config = {};
  config.gridDimX = 2 * clusters;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 128;
  config.blockDimY = config.blockDimZ = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CHECK(cuLaunchKernelEx(&config, kernel, args, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out.data(), dOut, count * 2));

  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i)
    if (out[i] != in[i] && wrong++ < 5)
      std::fprintf(stderr, "element %lld: got 0x%04x, expected 0x%04x\n",
                   static_cast<long long>(i), out[i], in[i]);
  cuMemFree(dIn);
  cuMemFree(dOut);
  cuCtxDestroy(context);
  if (wrong) {
    std::printf("FAIL: %lld of %lld elements differ\n",
                static_cast<long long>(wrong), static_cast<long long>(count));
    return 1;
  }
  std::printf("PASS: %lld bytes through CTA 1's shared memory, %u cluster(s) "
              "of 2 CTAs\n",
              static_cast<long long>(count * 2), clusters);
  return 0;
}

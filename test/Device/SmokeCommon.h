//===- SmokeCommon.h - shared setup of the device smoke tests ---*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Driver-API plumbing for the smoke tests until the host runtime exists:
// errors by CUresult name, the sm_90+ skip (exit 77), loading a cubin.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_DEVICE_SMOKECOMMON_H
#define TILE_TEST_DEVICE_SMOKECOMMON_H

#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult status = (call);                                                  \
    if (status != CUDA_SUCCESS) {                                              \
      const char *name = "?";                                                  \
      cuGetErrorName(status, &name);                                           \
      std::fprintf(stderr, "FAIL: %s returned %s\n", #call, name);             \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/// Creates a context on device 0 and loads `kernel` from the cubin at
/// `path`. Returns 0, 77 (skip: no GPU, older than sm_90, or not of
/// compute-capability major `exactMajor` when that is given) or 1.
inline int loadKernel(const char *path, const char *kernel,
                      CUcontext *context, CUfunction *function,
                      int exactMajor = 0) {
  if (cuInit(0) != CUDA_SUCCESS) {
    std::printf("SKIP: no CUDA driver/GPU\n");
    return 77;
  }
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  int major = 0, minor = 0;
  CHECK(cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CHECK(cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  if (exactMajor && major != exactMajor) {
    std::printf("SKIP: the kernel needs an sm_%d0 device; device 0 is "
                "sm_%d%d\n", exactMajor, major, minor);
    return 77;
  }
  if (major < 9) {
    std::printf("SKIP: clusters and tensor maps need sm_90+, device is "
                "sm_%d0\n", major);
    return 77;
  }
  CUctxCreateParams params = {};
  CHECK(cuCtxCreate(context, &params, 0, device));
  std::ifstream file(path, std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  if (image.empty()) {
    std::fprintf(stderr, "FAIL: cannot read %s\n", path);
    return 1;
  }
  CUmodule module;
  CHECK(cuModuleLoadData(&module, image.data()));
  CHECK(cuModuleGetFunction(function, module, kernel));
  return 0;
}

#endif // TILE_TEST_DEVICE_SMOKECOMMON_H

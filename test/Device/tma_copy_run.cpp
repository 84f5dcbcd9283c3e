//===- tma_copy_run.cpp - run examples/tma_copy.mlir on a GPU ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A smoke test of the tma lowering on real hardware, before the host
// runtime exists: encodes the two tensor maps from the manifest's encode
// arguments (given on the command line, TVM order: rank, dims, byte strides,
// box, element strides, interleave, swizzle, L2 promotion, oob fill) with
// cuTensorMapEncodeTiled, launches the kernel (1 CTA x 128 threads) and
// compares `out` with `in` bit for bit.
//
//   nvcc -o run test/Device/tma_copy_run.cpp -lcuda
//   ./run tma_copy.sm_90a.cubin <data type> <encode arguments...>
//
// Exit 0 and "PASS" on a bit-exact copy; 77 (skip) without an sm_90+ GPU.
//
//===----------------------------------------------------------------------===//

#include "SmokeCommon.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s kernel.cubin dataType rank dims... "
                         "strides... box... elementStrides... interleave "
                         "swizzle l2 oob\n", argv[0]);
    return 2;
  }
  std::vector<long long> a;
  for (int i = 3; i < argc; ++i)
    a.push_back(std::atoll(argv[i]));
  unsigned rank = a[0];
  if (rank < 1 || rank > 5 || a.size() != 1 + 4 * rank - 1 + 4) {
    std::fprintf(stderr, "FAIL: %zu encode arguments for rank %u\n", a.size(),
                 rank);
    return 2;
  }
  cuuint64_t dims[5], strides[5];
  cuuint32_t box[5], elementStrides[5];
  size_t k = 1;
  for (unsigned i = 0; i < rank; ++i) dims[i] = a[k++];
  for (unsigned i = 0; i + 1 < rank; ++i) strides[i] = a[k++];
  for (unsigned i = 0; i < rank; ++i) box[i] = a[k++];
  for (unsigned i = 0; i < rank; ++i) elementStrides[i] = a[k++];
  auto interleave = static_cast<CUtensorMapInterleave>(a[k++]);
  auto swizzle = static_cast<CUtensorMapSwizzle>(a[k++]);
  auto l2 = static_cast<CUtensorMapL2promotion>(a[k++]);
  auto oob = static_cast<CUtensorMapFloatOOBfill>(a[k++]);
  auto dataType = static_cast<CUtensorMapDataType>(std::atoi(argv[2]));

  CUcontext context;
  CUfunction kernel;
  if (int status = loadKernel(argv[1], "tma_copy", &context, &kernel))
    return status;

  constexpr int64_t rows = 8, cols = 256, count = rows * cols;
  std::vector<uint16_t> in(count), out(count, 0xFFFF);
  for (int64_t i = 0; i < count; ++i)
    in[i] = static_cast<uint16_t>(i * 13 + 5);
  CUdeviceptr dIn, dOut;
  CHECK(cuMemAlloc(&dIn, count * 2));
  CHECK(cuMemAlloc(&dOut, count * 2));
  CHECK(cuMemcpyHtoD(dIn, in.data(), count * 2));
  CHECK(cuMemcpyHtoD(dOut, out.data(), count * 2));

  alignas(128) CUtensorMap mapIn, mapOut;
  CHECK(cuTensorMapEncodeTiled(&mapIn, dataType, rank,
                               reinterpret_cast<void *>(dIn), dims, strides,
                               box, elementStrides, interleave, swizzle, l2,
                               oob));
  CHECK(cuTensorMapEncodeTiled(&mapOut, dataType, rank,
                               reinterpret_cast<void *>(dOut), dims, strides,
                               box, elementStrides, interleave, swizzle, l2,
                               oob));

  int64_t offset = 0, size0 = rows, size1 = cols, stride0 = cols, stride1 = 1;
  void *args[] = {&dIn,  &dIn,  &offset, &size0, &size1, &stride0, &stride1,
                  &dOut, &dOut, &offset, &size0, &size1, &stride0, &stride1,
                  &mapIn, &mapOut};
  CHECK(cuLaunchKernel(kernel, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out.data(), dOut, count * 2));
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i)
    if (out[i] != in[i] && wrong++ < 5)
      std::fprintf(stderr, "element %lld: got 0x%04x, expected 0x%04x\n",
                   static_cast<long long>(i), out[i], in[i]);
  cuCtxDestroy(context);
  if (wrong) {
    std::printf("FAIL: %lld of %lld elements differ\n",
                static_cast<long long>(wrong), static_cast<long long>(count));
    return 1;
  }
  std::printf("PASS: 8x256 f16 through a 128B-swizzled shared tile with two "
              "tensor copies (rank %u map)\n", rank);
  return 0;
}

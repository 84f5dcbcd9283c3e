//===- TileBenchmarks.cpp - copy and DSMEM benchmarks against references ---===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   TileBenchmarks [tma-copy|dsmem|all] [--reps N]
//
// tma-copy: the tiled TMA copy of a 16384 x 16384 f16 tensor (512 MiB;
//   kernels/bench.sm_90a: tma_copy_<R>x<C>_k<K>, compiled by tile-compile)
//   against the driver's device-to-device copy of the same buffers, in the
//   same process, measurements interleaved; GB/s counts bytes read + written;
//   the copy is checked byte for byte once per variant.
// dsmem: clusters of 2 exchanging shared tiles for many iterations,
//   dsmem_ping_<B> (one bulk copy per CTA per iteration) against the CUDA
//   C++ cooperative-groups kernel dsmem_cg_ping_<B> (bench/
//   dsmem_cg_reference.cu, nvcc), same grid and iteration count.
// Medians of --reps timed runs (CUDA events) after 3 warm-up runs.
//
//===----------------------------------------------------------------------===//

#include "DeviceCommon.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>

using namespace tile::runtime;
using llvm::Error;
using tile::device::kernelPath;

namespace {

int reps = 30;

[[noreturn]] void die(Error e) {
  std::fprintf(stderr, "FAIL: %s\n", llvm::toString(std::move(e)).c_str());
  std::exit(1);
}
template <typename T> T need(llvm::Expected<T> v) {
  if (!v)
    die(v.takeError());
  return std::move(*v);
}
void need(Error e) {
  if (e)
    die(std::move(e));
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// One timed thing: run() enqueues it once.
struct Timed {
  std::string name;
  std::function<Error()> run;
  std::vector<float> ms;
};

/// Interleaves the measurements so drift hits every entry alike.
void measure(std::vector<Timed> &entries) {
  for (Timed &t : entries)
    for (int i = 0; i < 3; ++i)
      need(t.run());
  need(check(driver()->cuCtxSynchronize(), "cuCtxSynchronize"));
  for (int r = 0; r < reps; ++r)
    for (Timed &t : entries)
      t.ms.push_back(need(timeOnStream(nullptr, t.run)));
}

void tmaCopy(const Device &device) {
  const int64_t rows = 16384, cols = 16384;
  const size_t bytes = size_t(rows * cols * 2);
  Module module = need(Module::load(kernelPath("bench.sm_90a.cubin"),
                                    kernelPath("bench.sm_90a.json")));
  DeviceBuffer in = need(DeviceBuffer::allocate(bytes));
  DeviceBuffer out = need(DeviceBuffer::allocate(bytes));
  std::vector<uint8_t> host(bytes);
  std::mt19937_64 rng(1);
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t v = rng();
    std::memcpy(&host[i], &v, 8);
  }
  need(in.copyFromHost(host.data(), bytes));

  std::vector<Timed> entries;
  entries.push_back({"driver D2D copy (cuMemcpyDtoDAsync)", [&] {
                       return check(driver()->cuMemcpyDtoDAsync(
                                        out.address(), in.address(), bytes,
                                        nullptr),
                                    "cuMemcpyDtoDAsync");
                     }});
  for (const KernelSpec *entry : module.manifest().kernels()) {
    const KernelSpec &spec = *entry;
    unsigned r, c, k;
    if (std::sscanf(spec.name.c_str(), "tma_copy_%ux%u_k%u", &r, &c, &k) != 3)
      continue;
    Kernel kernel = need(module.kernel(spec.name));
    LaunchConfig config;
    config.grid = {unsigned(cols / (c * k)), unsigned(rows / r), 1};
    std::vector<KernelArg> args = {KernelArg::memref(in.address(), {rows, cols}),
                                   KernelArg::memref(out.address(), {rows, cols})};
    // Correctness first: the whole tensor, byte for byte.
    need(out.fill(0));
    need(kernel.launch(config, args));
    std::vector<uint8_t> back(bytes);
    need(out.copyToHost(back.data(), bytes));
    if (std::memcmp(back.data(), host.data(), bytes) != 0) {
      std::fprintf(stderr, "FAIL: %s did not copy the tensor\n", spec.name.c_str());
      std::exit(1);
    }
    entries.push_back({spec.name, [kernel, config, args] {
                         return kernel.launch(config, args);
                       }});
  }
  measure(entries);
  float reference = median(entries[0].ms);
  std::printf("\n16384 x 16384 f16 copy (%zu MiB), %s, median of %d\n",
              bytes >> 20, device.name().c_str(), reps);
  std::printf("%-40s %10s %10s %8s\n", "copy", "ms", "GB/s", "vs D2D");
  for (Timed &t : entries) {
    float ms = median(t.ms);
    double gbps = 2.0 * bytes / (ms * 1e-3) / 1e9;
    std::printf("%-40s %10.4f %10.1f %8.3f\n", t.name.c_str(), ms, gbps,
                reference / ms);
    std::printf("RESULT bench=tma-copy name=%s ms=%.4f GBps=%.1f ratio=%.3f\n",
                t.name.c_str(), ms, gbps, reference / ms);
  }
}

void dsmem(const Device &device) {
  Module ours = need(Module::load(kernelPath("bench.sm_90a.cubin"),
                                  kernelPath("bench.sm_90a.json")));
  llvm::Expected<Module> reference =
      Module::loadImage(kernelPath("dsmem_cg_reference.sm_90a.cubin"));
  if (!reference) {
    std::printf("SKIP dsmem: %s\n", llvm::toString(reference.takeError()).c_str());
    return;
  }
  const long long iterations = 2000;
  // Four CTAs per SM (both kernels fit: <= 33 KiB of shared memory each).
  const unsigned grid = unsigned(device.multiprocessors()) * 4;
  std::printf("\nDSMEM cluster exchange (clusters of 2, %u CTAs, %lld "
              "iterations), %s, median of %d\n",
              grid, iterations, device.name().c_str(), reps);
  std::printf("%-40s %10s %10s %8s\n", "kernel", "ms", "GB/s", "vs CG");
  for (unsigned tileBytes : {8192u, 16384u}) {
    Kernel kernel = need(ours.kernel("dsmem_ping_" + std::to_string(tileBytes)));
    CUfunction cg = need(reference->function("dsmem_cg_ping_" +
                                             std::to_string(tileBytes)));
    LaunchConfig config;
    config.grid = {grid, 1, 1};
    std::vector<Timed> entries;
    entries.push_back({"cooperative groups " + std::to_string(tileBytes) + " B",
                       [cg, grid, iterations]() mutable {
                         long long n = iterations;
                         void *params[] = {&n};
                         // The cluster dims are compiled into the kernel.
                         return launchRaw(cg, {grid, 1, 1}, {128, 1, 1},
                                          {0, 0, 0}, 0, nullptr, params);
                       }});
    entries.push_back({"tile dsmem " + std::to_string(tileBytes) + " B",
                       [kernel, config, iterations] {
                         return kernel.launch(config,
                                              {KernelArg::i64(iterations)});
                       }});
    measure(entries);
    float ref = median(entries[0].ms);
    double moved = double(grid) * tileBytes * iterations;
    for (Timed &t : entries) {
      float ms = median(t.ms);
      std::printf("%-40s %10.3f %10.1f %8.3f\n", t.name.c_str(), ms,
                  moved / (ms * 1e-3) / 1e9, ref / ms);
      std::printf("RESULT bench=dsmem name=%s bytes=%u ms=%.3f GBps=%.1f "
                  "ratio=%.3f\n",
                  t.name.c_str(), tileBytes, ms, moved / (ms * 1e-3) / 1e9,
                  ref / ms);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string which = "all";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (argv[i][0] != '-')
      which = argv[i];
  }
  llvm::Expected<Device> device = Device::open(0);
  if (!device) {
    std::printf("SKIP: no GPU: %s\n", llvm::toString(device.takeError()).c_str());
    return 0;
  }
  if (device->computeMajor() < 9) {
    std::printf("SKIP: the benchmarks need sm_90+; device 0 is %s\n",
                device->smName().c_str());
    return 0;
  }
  int version = 0;
  driver()->cuDriverGetVersion(&version);
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
  std::printf("device: %s (%s, %d SMs), driver API %d, %s\n",
              device->name().c_str(), device->smName().c_str(),
              device->multiprocessors(), version, date);
  if (which == "all" || which == "tma-copy")
    tmaCopy(*device);
  if (which == "all" || which == "dsmem")
    dsmem(*device);
  return 0;
}

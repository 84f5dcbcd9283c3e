//===- TileBenchmarks.cpp - copy and DSMEM benchmarks against references ---===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   TileBenchmarks [tma-copy|dsmem|gemm|all] [--reps N]
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
// gemm: the Hopper GEMM family (kernels/gemm.sm_90a, bench/Kernels/
//   gen_gemm_kernels.py) against cuBLASLt (opened at run time, see
//   CublasLt.h) on bf16/f16 A*B^T, bf16 A*B and e4m3 -> bf16 at 4096^3,
//   8192^3 and three LLM shapes. Per problem every kernel of the family is
//   timed and the fastest is shown (the choice bench/gemm_bench.py makes);
//   each kernel's output is checked before timing: against cuBLAS, or
//   without cuBLASLt against the exact host reference on sampled rows and
//   columns. One timed run is a batch of launches (about 2e13 flops),
//   right after an untimed batch of the same entry, odd rounds in reverse
//   order (the clock under the board's power cap follows the last batch).
//   TILE_CUBLASLT names the library file, or "off" to run without it.
// Medians of --reps timed runs (CUDA events) after 3 warm-up runs (gemm:
// 10 rounds unless --reps is given).
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"
#include "DeviceCommon.h"
#include "HopperGemm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>

using namespace tile::runtime;
using llvm::Error;
using tile::device::kernelPath;

namespace {

int reps = 30;
bool repsGiven = false;
/// Benchmarks whose check failed (the exit status).
int failures = 0;

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
/// `settled`: each timed run follows an untimed run of the same entry, and
/// odd rounds go in reverse order. A board at its power cap sets its clock
/// from the power drawn over the last tens of milliseconds, so without this
/// an entry is timed at the clock its predecessor left (a kernel timed
/// after a slow one gets the headroom that one left).
void measure(std::vector<Timed> &entries, int rounds = reps,
             bool settled = false) {
  for (Timed &t : entries)
    for (int i = 0; i < 3; ++i)
      need(t.run());
  need(check(driver()->cuCtxSynchronize(), "cuCtxSynchronize"));
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < entries.size(); ++i) {
      Timed &t = entries[settled && r % 2 ? entries.size() - 1 - i : i];
      if (settled)
        need(t.run());
      t.ms.push_back(need(timeOnStream(nullptr, t.run)));
    }
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


//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

namespace gemm = tile::device::gemm;
using gemm::GemmCase;
using gemm::GemmOperands;
using gemm::GemmShape;

const GemmShape gemmShapes[] = {
    {4096, 4096, 4096},  {8192, 8192, 8192},  {8192, 28672, 4096},
    {128, 8192, 8192},   {8192, 1024, 8192},
};

std::string familyTitle(const GemmCase &c) {
  std::string type = c.dtype == "f8E4M3FN" ? "e4m3" : c.dtype;
  return type + (c.bMnMajor ? " A*B" : " A*B^T") + " -> " + c.out;
}

/// "bf16_tn", "e4m3_tn": the family as one word (RESULT lines).
std::string problemKey(const GemmCase &c) {
  std::string key = c.family();
  std::replace(key.begin(), key.end(), ' ', '_');
  return key;
}

/// `got` against cuBLAS's `want` (both C as read back): equal bits, or
/// within 2^-7 * max(|want|, sqrt(K) / 4) (about one bf16 ulp at the
/// typical magnitude of these sums), which allows for a cuBLAS algorithm
/// that reduces split-K partials in the output type. Returns the elements
/// beyond the tolerance and counts the ones that differ at all.
int64_t compareWithCublas(const GemmOperands &ops, const std::vector<uint8_t> &got,
                          const std::vector<uint8_t> &want, int64_t &differ,
                          std::string &first) {
  differ = 0;
  if (got == want)
    return 0;
  const std::string &type = ops.kernel.out;
  unsigned bytes = gemm::elementBytes(type);
  float floor = std::sqrt(float(ops.shape.k)) / 4;
  int64_t bad = 0;
  for (int64_t m = 0; m < ops.shape.m; ++m)
    for (int64_t n = 0; n < ops.shape.n; ++n) {
      size_t at = size_t(m * ops.ldc + n) * bytes;
      if (std::memcmp(&got[at], &want[at], bytes) == 0)
        continue;
      ++differ;
      float g = gemm::decodeElement(type, &got[at]);
      float w = gemm::decodeElement(type, &want[at]);
      float tolerance = std::ldexp(std::max(std::fabs(w), floor), -7);
      if (std::fabs(g - w) <= tolerance) // false for NaN
        continue;
      if (bad++ < 3)
        first += " (" + std::to_string(m) + ", " + std::to_string(n) +
                 "): " + std::to_string(g) + " vs cuBLAS " + std::to_string(w) +
                 ";";
    }
  return bad;
}

/// The reference: cuBLASLt with its workspace and the e4m3 unit scale, or
/// nothing (the tile kernels are then checked against the host).
struct GemmReference {
  static constexpr size_t workspaceBytes = size_t(32) << 20;
  std::unique_ptr<tile::bench::CublasLt> lt;
  DeviceBuffer workspace, unitScale;

  /// Opens cuBLASLt and says which reference is used.
  void open() {
    llvm::Expected<std::unique_ptr<tile::bench::CublasLt>> opened =
        tile::bench::CublasLt::open();
    if (!opened) {
      std::printf("reference missing: %s\nThe tile GEMMs are timed alone and "
                  "checked against the host reference (sampled rows and "
                  "columns).\n",
                  llvm::toString(opened.takeError()).c_str());
      return;
    }
    lt = std::move(*opened);
    workspace = need(DeviceBuffer::allocate(workspaceBytes));
    unitScale = need(DeviceBuffer::allocate(4));
    const float one = 1.0f;
    need(unitScale.copyFromHost(&one, 4));
    std::printf("reference: %s (version %zu), the heuristic's best algorithm, "
                "%zu MiB workspace\n",
                lt->path().c_str(), lt->version(), workspaceBytes >> 20);
  }

  /// Plans `ops`' problem into `out` and reads the result into `want`;
  /// null (having said why) when cuBLASLt is missing or refuses it.
  std::unique_ptr<tile::bench::CublasLt::Plan>
  compute(const GemmOperands &ops, const std::string &title, DeviceBuffer &out,
          std::vector<uint8_t> &want) const {
    if (!lt)
      return nullptr;
    out = need(DeviceBuffer::allocate(ops.c.size()));
    tile::bench::LtProblem p;
    p.inputType = ops.kernel.dtype;
    p.outputType = ops.kernel.out;
    p.bMnMajor = ops.kernel.bMnMajor;
    p.m = ops.shape.m, p.n = ops.shape.n, p.k = ops.shape.k;
    p.lda = ops.lda, p.ldb = ops.ldb, p.ldc = ops.ldc;
    p.a = ops.a.address(), p.b = ops.b.address(), p.c = out.address();
    p.unitScale = unitScale.address();
    llvm::Expected<std::unique_ptr<tile::bench::CublasLt::Plan>> plan =
        lt->plan(p, workspace.address(), workspaceBytes);
    if (!plan) {
      std::printf("%-22s %20s reference missing: %s\n", title.c_str(),
                  ops.shape.str().c_str(),
                  llvm::toString(plan.takeError()).c_str());
      return nullptr;
    }
    need(out.fill(0xFF));
    need((*plan)->run());
    need(check(driver()->cuCtxSynchronize(), "cuCtxSynchronize after cuBLASLt"));
    want.resize(out.size());
    need(out.copyToHost(want.data(), want.size()));
    // How exact cuBLAS itself is, on sampled rows and columns.
    gemm::GemmCheckResult exact = gemm::checkAgainstHostReference(
        ops, want, /*sampled=*/true, hostSampleLines(ops.shape));
    if (exact.wrong)
      std::printf("note: cuBLAS differs from the exact reference on %lld of "
                  "%lld sampled elements (%s), e.g.%s\n",
                  (long long)exact.wrong, (long long)exact.checked,
                  ops.shape.str().c_str(), exact.firstWrong.c_str());
    return std::move(*plan);
  }

  /// Random rows and columns of a host check: few on the large problems.
  static int hostSampleLines(const GemmShape &shape) {
    return shape.flops() > 1e12 ? 2 : 8;
  }
};

/// How the checks before timing went.
struct CheckTally {
  int equal = 0, withinTolerance = 0, failed = 0;
};

/// `got` (kernel `c`'s output) against cuBLAS's `want`, or without it
/// against the host reference on samples. Empty when it passed, else why.
std::string checkOutput(const GemmOperands &ops, const GemmCase &c,
                        const std::vector<uint8_t> &got,
                        const std::vector<uint8_t> *want, CheckTally &tally) {
  std::string verdict;
  if (want) {
    int64_t differ = 0;
    std::string first;
    if (int64_t bad = compareWithCublas(ops, got, *want, differ, first))
      verdict = std::to_string(bad) +
                " elements beyond the tolerance of cuBLAS's, e.g." + first;
    else if (differ)
      std::printf("note: %s %s: %lld elements differ from cuBLAS's, all "
                  "within the tolerance\n",
                  c.kernel.c_str(), ops.shape.str().c_str(), (long long)differ);
    if (verdict.empty() && differ)
      ++tally.withinTolerance;
    else if (verdict.empty())
      ++tally.equal;
  } else {
    gemm::GemmCheckResult r = gemm::checkAgainstHostReference(
        ops, got, /*sampled=*/true, GemmReference::hostSampleLines(ops.shape));
    if (r.wrong)
      verdict = std::to_string(r.wrong) + " of " + std::to_string(r.checked) +
                " sampled elements differ from the host reference, e.g." +
                r.firstWrong;
    else
      ++tally.equal;
  }
  if (!verdict.empty()) {
    std::printf("FAIL %s %s: %s\n", c.kernel.c_str(), ops.shape.str().c_str(),
                verdict.c_str());
    ++tally.failed;
    ++failures;
  }
  return verdict;
}

/// A batch of `iters` runs of `once`, as one timed entry.
Timed batch(std::string name, int iters, std::function<Error()> once) {
  return {std::move(name), [iters, once]() -> Error {
            for (int i = 0; i < iters; ++i)
              if (Error e = once())
                return e;
            return Error::success();
          }};
}

/// RESULT lines for every kernel and the table row of the fastest. The
/// last entry is cuBLAS's when `withCublas`.
void reportProblem(const std::string &title, const GemmShape &shape,
                   const std::vector<Timed> &entries,
                   const std::vector<const GemmCase *> &kernels, int iters,
                   bool withCublas) {
  auto msOf = [&](size_t i) { return median(entries[i].ms) / iters; };
  auto tflops = [&](float ms) { return shape.flops() / (ms * 1e-3) / 1e12; };
  float cublasMs = withCublas ? msOf(entries.size() - 1) : 0;
  size_t best = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (msOf(i) < msOf(best))
      best = i;
    std::printf("RESULT bench=gemm problem=%s shape=%s kernel=%s ms=%.4f "
                "TFLOPs=%.1f",
                problemKey(*kernels[i]).c_str(), shape.str().c_str(),
                kernels[i]->kernel.c_str(), msOf(i), tflops(msOf(i)));
    if (withCublas)
      std::printf(" cublas_TFLOPs=%.1f ratio=%.3f", tflops(cublasMs),
                  cublasMs / msOf(i));
    std::printf("\n");
  }
  std::printf("%-22s %20s %-30s %10.1f ", title.c_str(), shape.str().c_str(),
              kernels[best]->kernel.c_str(), tflops(msOf(best)));
  if (withCublas)
    std::printf("%12.1f %7.3f\n", tflops(cublasMs), cublasMs / msOf(best));
  else
    std::printf("%12s %7s\n", "-", "-");
  std::fflush(stdout);
}

/// One problem of one family: the reference, every kernel checked, then
/// the survivors and cuBLAS timed together.
void benchProblem(const Module &module, const GemmReference &reference,
                  const std::vector<GemmCase> &members, const GemmShape &shape,
                  int sms, int rounds, CheckTally &tally) {
  GemmOperands ops = need(GemmOperands::create(members.front(), shape, 1));
  const std::string title = familyTitle(members.front());
  DeviceBuffer referenceOut;
  std::vector<uint8_t> want;
  std::unique_ptr<tile::bench::CublasLt::Plan> plan =
      reference.compute(ops, title, referenceOut, want);

  std::vector<Timed> entries;
  std::vector<const GemmCase *> kernels;
  const int iters = std::max(3, std::min(200, int(2e13 / shape.flops())));
  for (const GemmCase &c : members) {
    Kernel kernel = need(module.kernel(c.kernel));
    need(ops.poisonOutput());
    need(gemm::launchGemm(kernel, c, ops, sms));
    need(check(driver()->cuCtxSynchronize(), "cuCtxSynchronize after " + c.kernel));
    if (!checkOutput(ops, c, need(ops.readOutput()), plan ? &want : nullptr,
                     tally)
             .empty())
      continue;
    LaunchConfig config = gemm::gemmLaunchConfig(c, shape, sms);
    std::vector<KernelArg> args = ops.args();
    entries.push_back(batch(c.kernel, iters, [kernel, config, args] {
      return kernel.launch(config, args);
    }));
    kernels.push_back(&c);
  }
  if (entries.empty())
    return;
  if (plan) {
    const tile::bench::CublasLt::Plan *p = plan.get();
    entries.push_back(batch("cuBLASLt", iters, [p] { return p->run(); }));
  }
  measure(entries, rounds, /*settled=*/true);
  reportProblem(title, shape, entries, kernels, iters, plan != nullptr);
}

void gemmBench(const Device &device) {
  const int rounds = repsGiven ? reps : 10;
  std::vector<GemmCase> cases =
      need(gemm::loadGemmCases(kernelPath("gemm.cases.json")));
  Module module = need(gemm::loadGemmModule());
  std::printf("\nGEMM: tile IR (kernels/gemm.sm_90a) vs cuBLASLt, %s, median "
              "of %d rounds\n",
              device.name().c_str(), rounds);
  GemmReference reference;
  reference.open();
  std::printf("Check before timing: quarter-integer inputs; vs cuBLAS equal "
              "bits or |tile - cuBLAS| <= 2^-7 * max(|cuBLAS|, sqrt(K)/4); "
              "vs the host reference exact.\n");
  std::printf("%-22s %20s %-30s %10s %12s %7s\n", "problem", "M x N x K",
              "tile kernel (fastest)", "tile TF/s", "cuBLAS TF/s", "ratio");

  // The families in the order of the case list.
  std::vector<std::vector<GemmCase>> families;
  for (const GemmCase &c : cases) {
    auto it = std::find_if(families.begin(), families.end(), [&](auto &f) {
      return f.front().family() == c.family() && f.front().out == c.out;
    });
    if (it == families.end())
      families.push_back({c});
    else
      it->push_back(c);
  }
  CheckTally tally;
  for (const std::vector<GemmCase> &members : families)
    for (const GemmShape &shape : gemmShapes)
      benchProblem(module, reference, members, shape,
                   device.multiprocessors(), rounds, tally);
  std::printf("checked before timing: %d kernel runs; %d %s, %d within the "
              "tolerance, %d failed\n",
              tally.equal + tally.withinTolerance + tally.failed, tally.equal,
              reference.lt ? "bitwise equal to cuBLAS"
                           : "exact on the sampled elements",
              tally.withinTolerance, tally.failed);
}

} // namespace

int main(int argc, char **argv) {
  std::string which = "all";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i])), repsGiven = true;
    else if (argv[i][0] != '-')
      which = argv[i];
  }
  if (which != "all" && which != "tma-copy" && which != "dsmem" &&
      which != "gemm") {
    std::fprintf(stderr, "unknown benchmark '%s' (tma-copy, dsmem, gemm, all)\n",
                 which.c_str());
    return 2;
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
  if (which == "all" || which == "gemm") {
    if (device->computeMajor() != 9)
      std::printf("\nSKIP gemm: the Hopper GEMM family (wgmma, sm_90a) needs "
                  "an sm_90 device; device 0 is %s\n",
                  device->smName().c_str());
    else
      gemmBench(*device);
  }
  return failures ? 1 : 0;
}

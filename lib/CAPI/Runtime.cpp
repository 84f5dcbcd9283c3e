//===- Runtime.cpp - TileRuntime through C ----------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile-c/Runtime.h"
#include "tile/Runtime/Gemm.h"
#include "tile/Runtime/Runtime.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

using namespace tile::runtime;

struct TileRuntimeModule {
  Module module;
};
struct TileGemm {
  std::unique_ptr<Gemm> gemm;
};
struct TileGemmChooser {
  GemmCatalog catalog;
};

namespace {

char *copyOf(const std::string &text) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

void report(char **error, llvm::Error e) {
  std::string text = llvm::toString(std::move(e));
  if (error)
    *error = copyOf(text);
}

/// The caller's current context (PyTorch's, usually); device 0's primary
/// context made current on this thread when there is none.
llvm::Error ensureContext() {
  llvm::Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  CUcontext current = nullptr;
  if (llvm::Error e = check(d->cuCtxGetCurrent(&current), "cuCtxGetCurrent"))
    return e;
  if (current)
    return llvm::Error::success();
  static std::mutex lock;
  static std::optional<Device> device; // keeps the primary context retained
  std::lock_guard<std::mutex> guard(lock);
  if (!device) {
    llvm::Expected<Device> opened = Device::open(0);
    if (!opened)
      return opened.takeError();
    device.emplace(std::move(*opened));
    return llvm::Error::success();
  }
  CUcontext primary = nullptr;
  if (llvm::Error e = check(d->cuDevicePrimaryCtxRetain(&primary,
                                                        device->handle()),
                            "cuDevicePrimaryCtxRetain"))
    return e;
  return check(d->cuCtxSetCurrent(primary), "cuCtxSetCurrent");
}

} // namespace

TileRuntimeModuleRef tileRuntimeModuleLoad(const void *image, size_t size,
                                           const char *manifest,
                                           size_t manifestSize, char **error) {
  if (llvm::Error e = ensureContext()) {
    report(error, std::move(e));
    return nullptr;
  }
  llvm::Expected<Module> module = Module::loadFromMemory(
      llvm::StringRef(static_cast<const char *>(image), size),
      llvm::StringRef(manifest, manifestSize));
  if (!module) {
    report(error, module.takeError());
    return nullptr;
  }
  return new TileRuntimeModule{std::move(*module)};
}

void tileRuntimeModuleDestroy(TileRuntimeModuleRef module) { delete module; }

int tileRuntimeLaunch(TileRuntimeModuleRef module, const char *kernel,
                      const unsigned grid[3], void *stream,
                      const TileKernelArg *args, intptr_t count,
                      char **error) {
  std::vector<KernelArg> converted;
  for (intptr_t i = 0; i < count; ++i) {
    const TileKernelArg &a = args[i];
    switch (a.kind) {
    case TileKernelArgMemRef: {
      llvm::ArrayRef<int64_t> sizes(a.sizes, a.rank);
      llvm::ArrayRef<int64_t> strides;
      if (a.strides)
        strides = llvm::ArrayRef<int64_t>(a.strides, a.rank);
      converted.push_back(KernelArg::memref(a.address, sizes, strides, a.offset));
      break;
    }
    case TileKernelArgI32:
      converted.push_back(KernelArg::i32(int32_t(a.i64)));
      break;
    case TileKernelArgI64:
      converted.push_back(KernelArg::i64(a.i64));
      break;
    case TileKernelArgF32:
      converted.push_back(KernelArg::f32(float(a.f64)));
      break;
    case TileKernelArgF64:
      converted.push_back(KernelArg::f64(a.f64));
      break;
    default:
      if (error)
        *error = copyOf("argument " + std::to_string(i) + ": unknown kind " +
                        std::to_string(a.kind));
      return 1;
    }
  }
  // The first version of the kernel that can read these tensors.
  LaunchConfig config;
  config.grid = {grid[0], grid[1], grid[2]};
  config.stream = stream;
  if (llvm::Error e = module->module.launch(kernel, config, converted)) {
    report(error, std::move(e));
    return 1;
  }
  return 0;
}

int tileRuntimeLaunchPacked(TileRuntimeModuleRef module, const char *kernel,
                            const unsigned grid[3], void *stream,
                            const int64_t *packed, intptr_t words,
                            intptr_t count, char **error) {
  if (!module || !kernel || !grid || (words && !packed) || words < 0 ||
      count < 0) {
    if (error)
      *error = copyOf("tileRuntimeLaunchPacked: a NULL module, kernel, grid "
                      "or argument array, or a negative count");
    return 1;
  }
  // Every argument takes at least two words: a larger count is refused
  // before anything is allocated for it.
  if (count > words / 2) {
    if (error)
      *error = copyOf("tileRuntimeLaunchPacked: " + std::to_string(count) +
                      " arguments cannot fit in " + std::to_string(words) +
                      " packed words (two at least each)");
    return 1;
  }
  std::vector<TileKernelArg> args(static_cast<size_t>(count));
  intptr_t at = 0;
  auto take = [&](int64_t &word) {
    if (at >= words)
      return false;
    word = packed[at++];
    return true;
  };
  for (intptr_t i = 0; i < count; ++i) {
    TileKernelArg &a = args[size_t(i)];
    int64_t kind = 0, value = 0;
    bool ok = take(kind);
    a.kind = int32_t(kind);
    if (ok && kind == TileKernelArgMemRef) {
      int64_t rank = 0, address = 0;
      ok = take(rank) && rank >= 0 && rank <= 64 && take(address) &&
           take(a.offset) && words - at >= 2 * rank;
      if (ok) {
        a.rank = int32_t(rank);
        a.address = uint64_t(address);
        a.sizes = packed + at;
        a.strides = packed + at + rank;
        at += 2 * rank;
      }
    } else if (ok && (kind == TileKernelArgI32 || kind == TileKernelArgI64)) {
      ok = take(a.i64);
    } else if (ok && (kind == TileKernelArgF32 || kind == TileKernelArgF64)) {
      ok = take(value);
      std::memcpy(&a.f64, &value, sizeof(double));
    } else if (ok) {
      if (error)
        *error = copyOf("tileRuntimeLaunchPacked: argument " +
                        std::to_string(i) + ": unknown kind " +
                        std::to_string(kind));
      return 1;
    }
    if (!ok) {
      if (error)
        *error = copyOf("tileRuntimeLaunchPacked: argument " +
                        std::to_string(i) + " runs past the " +
                        std::to_string(words) +
                        " packed words, or its rank is not in [0, 64]");
      return 1;
    }
  }
  if (at != words) {
    if (error)
      *error = copyOf("tileRuntimeLaunchPacked: " + std::to_string(count) +
                      " arguments use " + std::to_string(at) + " of the " +
                      std::to_string(words) + " packed words");
    return 1;
  }
  return tileRuntimeLaunch(module, kernel, grid, stream, args.data(), count,
                           error);
}

int tileRuntimeMaxActiveClusters(TileRuntimeModuleRef module,
                                 const char *kernel, int *count,
                                 char **error) {
  llvm::Expected<Kernel> k = module->module.kernel(kernel);
  if (!k) {
    report(error, k.takeError());
    return 1;
  }
  llvm::Expected<int> clusters = k->maxActiveClusters();
  if (!clusters) {
    report(error, clusters.takeError());
    return 1;
  }
  *count = *clusters;
  return 0;
}

void tileRuntimeFreeString(char *text) { std::free(text); }

namespace {

void setChoice(TileGemmChoice *out, const GemmChoice &choice) {
  out->kernel = copyOf(choice.kernelCase->kernel);
  out->parts = choice.parts.value_or(0);
  out->why = copyOf(choice.why);
}

GemmMatrix matrix(const TileGemmMatrix &m) {
  return {m.address, m.rows, m.cols, m.row_stride};
}

/// Null handles, types or outputs are refused with a message, not followed.
bool missing(char **error, std::initializer_list<std::pair<const void *,
                                                           const char *>>
                               required) {
  for (auto [pointer, what] : required)
    if (!pointer) {
      if (error)
        *error = copyOf(std::string(what) + " is NULL");
      return true;
    }
  return false;
}

} // namespace

void tileGemmChoiceFree(TileGemmChoice *choice) {
  if (!choice)
    return;
  std::free(choice->kernel);
  std::free(choice->why);
  choice->kernel = choice->why = nullptr;
}

TileGemmRef tileGemmOpen(const char *kernelsDir, char **error) {
  if (missing(error, {{kernelsDir, "tileGemmOpen: the kernels folder"}}))
    return nullptr;
  if (llvm::Error e = ensureContext()) {
    report(error, std::move(e));
    return nullptr;
  }
  llvm::Expected<std::unique_ptr<Gemm>> gemm = Gemm::open(kernelsDir);
  if (!gemm) {
    report(error, gemm.takeError());
    return nullptr;
  }
  return new TileGemm{std::move(*gemm)};
}

void tileGemmDestroy(TileGemmRef gemm) { delete gemm; }

int tileGemmChoose(TileGemmRef gemm, const char *dtype, int64_t m, int64_t n,
                   int64_t k, TileGemmChoice *choice, char **error) {
  if (missing(error, {{gemm, "tileGemmChoose: the gemm"},
                      {dtype, "tileGemmChoose: the type"},
                      {choice, "tileGemmChoose: the choice"}}))
    return 1;
  llvm::Expected<GemmChoice> c = gemm->gemm->choose(dtype, m, n, k);
  if (!c) {
    report(error, c.takeError());
    return 1;
  }
  setChoice(choice, *c);
  return 0;
}

int tileGemmLinear(TileGemmRef gemm, const char *dtype, TileGemmMatrix a,
                   TileGemmMatrix w, TileGemmMatrix c, void *stream,
                   char **why, char **error) {
  if (missing(error, {{gemm, "tileGemmLinear: the gemm"},
                      {dtype, "tileGemmLinear: the type"}}))
    return 1;
  std::string text;
  if (llvm::Error e = gemm->gemm->linear(dtype, matrix(a), matrix(w),
                                         matrix(c), CUstream(stream), &text)) {
    report(error, std::move(e));
    return 1;
  }
  if (why)
    *why = copyOf(text);
  return 0;
}

TileGemmChooserRef tileGemmChooserCreate(const char *familyCases,
                                         const char *splitKCases,
                                         char **error) {
  if (missing(error, {{familyCases, "tileGemmChooserCreate: gemm.cases.json"},
                      {splitKCases,
                       "tileGemmChooserCreate: gemm_splitk.cases.json"}}))
    return nullptr;
  llvm::Expected<GemmCatalog> catalog =
      GemmCatalog::parse(familyCases, splitKCases);
  if (!catalog) {
    report(error, catalog.takeError());
    return nullptr;
  }
  return new TileGemmChooser{std::move(*catalog)};
}

void tileGemmChooserDestroy(TileGemmChooserRef chooser) { delete chooser; }

int tileGemmChooserChoose(TileGemmChooserRef chooser, const char *dtype,
                          int64_t m, int64_t n, int64_t k, int sms,
                          int allowSwapAB, TileGemmClustersHeldFn held,
                          void *user, TileGemmChoice *choice, char **error) {
  if (missing(error, {{chooser, "tileGemmChooserChoose: the chooser"},
                      {dtype, "tileGemmChooserChoose: the type"},
                      {choice, "tileGemmChooserChoose: the choice"}}))
    return 1;
  GemmChooseOptions options;
  options.allowSwapAB = allowSwapAB != 0;
  llvm::Expected<GemmChoice> c = chooseGemm(
      chooser->catalog, dtype, m, n, k, sms,
      [&](const GemmKernelCase &kc) {
        return held ? held(kc.kernel.c_str(), user) : 0;
      },
      options);
  if (!c) {
    report(error, c.takeError());
    return 1;
  }
  setChoice(choice, *c);
  return 0;
}

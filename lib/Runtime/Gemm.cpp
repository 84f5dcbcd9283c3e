//===- Gemm.cpp - the GEMM family behind one call --------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/Gemm.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace tile::runtime;
using llvm::Error;
using llvm::Expected;

namespace {

Error fail(const llvm::Twine &text) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// `name`.sm_90a.{cubin, else ptx} with its manifest, from `directory`.
Expected<std::unique_ptr<Module>> loadModule(llvm::StringRef directory,
                                             llvm::StringRef name) {
  llvm::SmallString<256> base(directory);
  llvm::sys::path::append(base, name + ".sm_90a");
  std::string image = (base + ".cubin").str();
  if (!llvm::sys::fs::exists(image))
    image = (base + ".ptx").str();
  Expected<Module> module = Module::load(image, (base + ".json").str());
  if (!module)
    return module.takeError();
  return std::make_unique<Module>(std::move(*module));
}

/// Stream-ordered device memory, freed on the stream when dropped (after
/// the kernels queued before it).
class StreamBuffer {
public:
  StreamBuffer(CUstream stream) : stream(stream) {}
  StreamBuffer(const StreamBuffer &) = delete;
  ~StreamBuffer() {
    if (!pointer)
      return;
    if (Expected<const DriverApi &> d = driver())
      d->cuMemFreeAsync(pointer, stream);
    else
      llvm::consumeError(d.takeError());
  }
  Error allocate(size_t bytes) {
    Expected<const DriverApi &> d = driver();
    if (!d)
      return d.takeError();
    return check(d->cuMemAllocAsync(&pointer, std::max<size_t>(bytes, 1),
                                    stream),
                 "cuMemAllocAsync (" + std::to_string(bytes) + " bytes)");
  }
  uint64_t address() const { return uint64_t(pointer); }

private:
  CUstream stream;
  CUdeviceptr pointer = 0;
};

/// Copies `rows` x `bytesPerRow` between pitched device buffers.
Error copy2D(uint64_t to, int64_t toPitch, uint64_t from, int64_t fromPitch,
             int64_t bytesPerRow, int64_t rows, CUstream stream) {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  CUDA_MEMCPY2D copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = CUdeviceptr(from);
  copy.srcPitch = size_t(fromPitch);
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = CUdeviceptr(to);
  copy.dstPitch = size_t(toPitch);
  copy.WidthInBytes = size_t(bytesPerRow);
  copy.Height = size_t(rows);
  return check(d->cuMemcpy2DAsync(&copy, stream), "cuMemcpy2DAsync");
}

KernelArg matrixArg(const GemmMatrix &m) {
  return KernelArg::memref(m.address, {m.rows, m.cols}, {m.rowStride, 1});
}

} // namespace

int64_t tile::runtime::gemmElementBytes(llvm::StringRef dtype) {
  if (dtype == "bf16" || dtype == "f16")
    return 2;
  if (dtype == "f8E4M3FN")
    return 1;
  return 0;
}

llvm::StringRef tile::runtime::gemmOutputType(llvm::StringRef dtype) {
  return dtype == "f8E4M3FN" ? llvm::StringRef("bf16") : dtype;
}

std::string tile::runtime::gemmTmaProblem(const GemmMatrix &m,
                                          int64_t elementBytes) {
  // The row stride counts even for one row: the map is encoded with it.
  if ((m.rowStride * elementBytes) % 16)
    return "row stride " + std::to_string(m.rowStride * elementBytes) +
           " bytes is not a multiple of 16";
  if (m.address % 16)
    return "base address is not 16-byte aligned";
  return "";
}

Expected<std::unique_ptr<Gemm>> Gemm::open(llvm::StringRef directory) {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  CUcontext context = nullptr;
  if (Error e = check(d->cuCtxGetCurrent(&context), "cuCtxGetCurrent"))
    return std::move(e);
  if (!context)
    return fail("tile::runtime::Gemm: no current CUDA context (open a "
                "Device first)");
  CUdevice device = 0;
  int sms = 0;
  if (Error e = check(d->cuCtxGetDevice(&device), "cuCtxGetDevice"))
    return std::move(e);
  if (Error e = check(d->cuDeviceGetAttribute(
                          &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                          device),
                      "cuDeviceGetAttribute"))
    return std::move(e);
  Expected<GemmCatalog> catalog = GemmCatalog::read(directory);
  if (!catalog)
    return catalog.takeError();
  Expected<std::unique_ptr<Module>> family = loadModule(directory, "gemm");
  if (!family)
    return family.takeError();
  Expected<std::unique_ptr<Module>> splitK =
      loadModule(directory, "gemm_splitk");
  if (!splitK)
    return splitK.takeError();
  return std::unique_ptr<Gemm>(new Gemm(std::move(*catalog),
                                        std::move(*family),
                                        std::move(*splitK), sms));
}

Expected<Kernel> Gemm::kernel(const std::string &module,
                              const std::string &name) const {
  return (module == "gemm" ? family_ : splitK_)->kernel(name);
}

int Gemm::clustersHeld(const GemmKernelCase &c) const {
  std::lock_guard<std::mutex> guard(heldLock_);
  auto it = held_.find(c.kernel);
  if (it != held_.end())
    return it->second;
  // A failed query (no current context on this thread, say) counts as
  // none held for this call only: it is asked again next time.
  Expected<Kernel> k = kernel(c.module, c.kernel);
  if (!k) {
    llvm::consumeError(k.takeError());
    return 0;
  }
  Expected<int> held = k->maxActiveClusters();
  if (!held) {
    llvm::consumeError(held.takeError());
    return 0;
  }
  held_[c.kernel] = *held;
  return *held;
}

Expected<GemmChoice> Gemm::choose(llvm::StringRef dtype, int64_t m, int64_t n,
                                  int64_t k, GemmChooseOptions options) const {
  return chooseGemm(
      catalog_, dtype, m, n, k, sms_,
      [this](const GemmKernelCase &c) { return clustersHeld(c); }, options);
}

Error Gemm::linear(llvm::StringRef dtype, const GemmMatrix &aIn,
                   const GemmMatrix &wIn, const GemmMatrix &cIn, CUstream stream,
                   std::string *why, GemmChooseOptions options) const {
  int64_t e = gemmElementBytes(dtype);
  if (!e)
    return fail("tile::runtime::Gemm: '" + dtype +
                "' is not a GEMM type (bf16, f16, f8E4M3FN)");
  int64_t ce = gemmElementBytes(gemmOutputType(dtype));
  // One row has no stride to speak of: give it one that holds the row
  // (the copies and the tensor maps use it).
  auto oneRow = [](GemmMatrix x) {
    if (x.rows <= 1)
      x.rowStride = std::max(x.rowStride, x.cols);
    return x;
  };
  const GemmMatrix a = oneRow(aIn), w = oneRow(wIn), c = oneRow(cIn);
  int64_t m = a.rows, n = w.rows, k = a.cols;
  std::string problems;
  auto problem = [&](const llvm::Twine &text) {
    problems += (problems.empty() ? "" : "; ") + text.str();
  };
  if (w.cols != k)
    problem("A is " + llvm::Twine(m) + "x" + llvm::Twine(k) + ", W " +
            llvm::Twine(w.rows) + "x" + llvm::Twine(w.cols) +
            ": [M, K] and [N, K] expected");
  if (c.rows != m || c.cols != n)
    problem("C is " + llvm::Twine(c.rows) + "x" + llvm::Twine(c.cols) +
            ", the product " + llvm::Twine(m) + "x" + llvm::Twine(n));
  for (auto [name, x] : {std::pair{"A", &a}, std::pair{"W", &w},
                         std::pair{"C", &c}}) {
    if (x->rows < 0 || x->cols < 0)
      problem(llvm::Twine(name) + " has a negative size");
    if (x->rows > 1 && x->rowStride < x->cols)
      problem(llvm::Twine(name) + "'s row stride " +
              llvm::Twine(x->rowStride) + " overlaps its " +
              llvm::Twine(x->cols) + "-element rows");
    if (!x->address && x->rows && x->cols)
      problem(llvm::Twine(name) + " is a null address");
  }
  if (!problems.empty())
    return fail("tile::runtime::Gemm: " + problems);
  Expected<GemmChoice> choice = choose(dtype, m, n, k, options);
  if (!choice)
    return choice.takeError();
  std::string text = choice->kernelCase->kernel;
  if (choice->parts)
    text += " + reduce, " + std::to_string(*choice->parts) + " part(s)";
  if (choice->kernelCase->form == GemmForm::ClusterK)
    text += ", " + std::to_string(choice->kernelCase->cluster) +
            " K parts summed in the cluster";
  text += ": " + choice->why;

  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  if (m == 0 || n == 0) {
    if (why)
      *why = text;
    return Error::success();
  }
  if (k == 0) {
    if (why)
      *why = text + "; K = 0: C zeroed";
    return check(d->cuMemsetD2D8Async(CUdeviceptr(c.address),
                                      size_t(c.rowStride * ce), 0,
                                      size_t(n * ce), size_t(m), stream),
                 "cuMemsetD2D8Async");
  }
  // Operands (and C) TMA cannot address go through aligned copies.
  StreamBuffer aCopy(stream), wCopy(stream), cCopy(stream);
  auto aligned = [&](const char *name, const GemmMatrix &x, int64_t bytes,
                     StreamBuffer &buffer, bool read,
                     GemmMatrix &out) -> Error {
    out = x;
    std::string reason = gemmTmaProblem(x, bytes);
    if (reason.empty())
      return Error::success();
    text += std::string("; ") + name + " copied: " + reason;
    out.rowStride = std::max<int64_t>(1, ceilDiv(x.cols * bytes, 16) * 16 / bytes);
    if (Error err = buffer.allocate(size_t(x.rows * out.rowStride * bytes)))
      return err;
    out.address = buffer.address();
    if (!read)
      return Error::success();
    return copy2D(out.address, out.rowStride * bytes, x.address,
                  x.rowStride * bytes, x.cols * bytes, x.rows, stream);
  };
  GemmMatrix a2, w2, c2;
  if (Error err = aligned("A", a, e, aCopy, true, a2))
    return err;
  if (Error err = aligned("W", w, e, wCopy, true, w2))
    return err;
  if (Error err = aligned("C", c, ce, cCopy, false, c2))
    return err;
  if (why)
    *why = text;
  if (Error err = run(*choice, dtype, a2, w2, c2, stream))
    return err;
  if (c2.address != c.address)
    return copy2D(c.address, c.rowStride * ce, c2.address, c2.rowStride * ce,
                  n * ce, m, stream);
  return Error::success();
}

Error Gemm::run(const GemmChoice &choice, llvm::StringRef dtype,
                const GemmMatrix &a, const GemmMatrix &w, const GemmMatrix &c,
                CUstream stream) const {
  const GemmKernelCase &kc = *choice.kernelCase;
  int64_t m = a.rows, n = w.rows;
  int64_t tiles = kc.tiles(m, n);
  Expected<Kernel> k = kernel(kc.module, kc.kernel);
  if (!k)
    return k.takeError();
  auto launch = [&](const Kernel &kernel, int64_t grid0, int64_t grid1,
                    llvm::ArrayRef<KernelArg> args) {
    LaunchConfig config;
    config.grid = {unsigned(grid0), unsigned(grid1), 1};
    config.stream = stream;
    return kernel.launch(config, args);
  };
  switch (kc.form) {
  case GemmForm::Tiles:
    return launch(*k, std::min<int64_t>(sms_, tiles), 1,
                  {matrixArg(a), matrixArg(w), matrixArg(c)});
  case GemmForm::ClusterK: {
    // Persistent clusters of S CTAs, one K part each, as many as the GPU
    // holds at once.
    int held = clustersHeld(kc);
    if (held < 1)
      return fail(kc.kernel + ": this GPU cannot hold a cluster of " +
                  llvm::Twine(kc.cluster) + " of its CTAs");
    return launch(*k, std::min<int64_t>(held, tiles) * kc.cluster, 1,
                  {matrixArg(a), matrixArg(w), matrixArg(c)});
  }
  case GemmForm::SplitK:
  case GemmForm::SwapAB: {
    int64_t parts = choice.parts.value_or(1);
    // f32 partials [parts, M, N] (rows 16 bytes apart), summed in part
    // order by the reduction.
    int64_t pitch = ceilDiv(n, 4) * 4;
    StreamBuffer workspace(stream);
    if (Error e = workspace.allocate(size_t(parts * m * pitch * 4)))
      return e;
    KernelArg partials = KernelArg::memref(workspace.address(), {parts, m, n},
                                           {m * pitch, pitch, 1});
    if (Error e = launch(*k, std::min<int64_t>(sms_, tiles * parts), 1,
                         {matrixArg(a), matrixArg(w), partials,
                          KernelArg::i32(int32_t(parts))}))
      return e;
    // 16-row blocks (8 parts in flight) for a small M or many parts, else
    // 64-row ones (4 in flight; fewer, longer-lived blocks).
    int64_t rows = (m <= 64 || parts > 4) ? 16 : 64;
    const GemmReducer *reducer =
        catalog_.reducer(gemmOutputType(dtype), rows);
    if (!reducer)
      return fail("tile::runtime::Gemm: no " + llvm::Twine(rows) +
                  "-row reduction writes " + gemmOutputType(dtype));
    Expected<Kernel> r = kernel("gemm_splitk", reducer->kernel);
    if (!r)
      return r.takeError();
    return launch(*r, ceilDiv(m, reducer->rows), ceilDiv(n, reducer->cols),
                  {partials, matrixArg(c)});
  }
  case GemmForm::StreamK:
    break;
  }
  return fail(kc.kernel + ": stream-K kernels are not chosen here");
}

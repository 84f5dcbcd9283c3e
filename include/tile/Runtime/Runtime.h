//===- Runtime.h - TileRuntime: load, encode, launch ------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The host runtime over the CUDA driver API, no MLIR (docs/Design.md,
// "Kernel ABI and the launch manifest"): load a cubin or PTX with its
// launch manifest, check the host's arguments and encode the kernel's
// tensor maps (cuTensorMapEncodeTiled, after every rule was checked),
// launch with cluster dims and dynamic shared memory (cuLaunchKernelEx).
// libcuda is opened at run time, so programs linking this library start on
// machines without a driver and get an error naming the missing library
// instead. Every driver error carries the CUresult name.
//
// Example:
//   auto device = tile::runtime::Device::open(0);
//   auto module = tile::runtime::Module::load("k.cubin", "k.json");
//   auto kernel = module->kernel("tma_tile_copy");
//   llvm::Error e = kernel->launch({{64, 128, 1}},
//       {KernelArg::memref(in.address(), {8192, 8192}),
//        KernelArg::memref(out.address(), {8192, 8192})});
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIME_H
#define TILE_RUNTIME_RUNTIME_H

#include "tile/Runtime/Launch.h"

#include "llvm/ADT/StringMap.h"

#include <cuda.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace tile::runtime {

/// The driver entry points, resolved from libcuda.so.1 on first use.
struct DriverApi {
#define TILE_DRIVER_FUNCTIONS(X)                                               \
  X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDriverGetVersion)        \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetAttribute)                   \
  X(cuDeviceGetName) X(cuDevicePrimaryCtxRetain)                               \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent)          \
  X(cuCtxSynchronize)                                                           \
  X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction)              \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuTensorMapEncodeTiled)       \
  X(cuLaunchKernelEx) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)              \
  X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyDtoDAsync) X(cuMemsetD8)          \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)   \
  X(cuEventElapsedTime) X(cuModuleGetGlobal) X(cuMemHostAlloc)                \
  X(cuMemHostGetDevicePointer) X(cuMemFreeHost)                              \
  X(cuOccupancyMaxActiveClusters) X(cuCtxGetDevice) X(cuMemAllocAsync)         \
  X(cuMemFreeAsync) X(cuMemcpy2DAsync) X(cuMemsetD2D8Async)
#define TILE_DRIVER_MEMBER(fn) decltype(&::fn) fn = nullptr;
  TILE_DRIVER_FUNCTIONS(TILE_DRIVER_MEMBER)
#undef TILE_DRIVER_MEMBER
};

/// The driver table, or an error when libcuda.so.1 cannot be opened or
/// lacks an entry point. cuInit(0) has been called.
llvm::Expected<const DriverApi &> driver();

/// `what` failed with `result`: "what: CUDA_ERROR_... (description)".
llvm::Error driverError(CUresult result, llvm::StringRef what);
/// Success, or driverError.
llvm::Error check(CUresult result, llvm::StringRef what);

/// A device with its primary context made current.
class Device {
public:
  static llvm::Expected<Device> open(int ordinal = 0);
  Device(Device &&other);
  ~Device();

  CUdevice handle() const { return device; }
  int computeMajor() const { return major; }
  int computeMinor() const { return minor; }
  /// "sm_90", "sm_100".
  std::string smName() const;
  const std::string &name() const { return name_; }
  int multiprocessors() const { return sms; }

private:
  Device() = default;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int major = 0, minor = 0, sms = 0;
  std::string name_;
};

/// Device memory owned by this object.
class DeviceBuffer {
public:
  static llvm::Expected<DeviceBuffer> allocate(size_t bytes);
  /// An empty buffer (address 0).
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other);
  DeviceBuffer &operator=(DeviceBuffer &&other);
  ~DeviceBuffer();

  uint64_t address() const { return uint64_t(pointer); }
  size_t size() const { return bytes; }
  llvm::Error copyFromHost(const void *source, size_t count, size_t at = 0);
  llvm::Error copyToHost(void *destination, size_t count, size_t at = 0) const;
  llvm::Error fill(uint8_t byte);

private:
  CUdeviceptr pointer = 0;
  size_t bytes = 0;
};

class Module;

/// One kernel of a loaded module, with its manifest entry. It points into
/// the module: use it only while the Module lives.
class Kernel {
public:
  const KernelSpec &spec() const { return *spec_; }
  CUfunction function() const { return function_; }
  /// Checks `args` and `config`, encodes the tensor maps, launches. Nothing
  /// is launched when any check fails; the error lists every problem.
  /// A kernel compiled with `--sanitize` is waited for (the context is
  /// synchronized) and a failed check is returned as an error naming the
  /// kernel, the check, the thread and the values. The check traps, which
  /// leaves the context unusable: the process must not launch again.
  llvm::Error launch(const LaunchConfig &config,
                     llvm::ArrayRef<KernelArg> args) const;
  /// Launches with parameters `prepareLaunch` packed for this kernel (a
  /// launch packed for another kernel is refused when its parameter count
  /// differs).
  llvm::Error launch(const LaunchConfig &config,
                     PreparedLaunch prepared) const;
  /// How many of the kernel's clusters (CTAs, for a kernel without one)
  /// the current device holds at once with its block and dynamic shared
  /// memory: the grid a persistent kernel should not exceed. Clusters
  /// must fit within one GPC, so this can be below SMs / cluster size
  /// (an H200 was measured to hold 30 clusters of 4 CTAs of 200 KiB, not 33).
  llvm::Expected<int> maxActiveClusters() const;
  /// Whether launches are checked (the kernel was compiled with
  /// `--sanitize` and has checks).
  bool sanitized() const { return report_ != nullptr; }

private:
  friend class Module;
  /// After a sanitized launch: the report as an error, else the driver's.
  llvm::Error finishSanitizedLaunch(const LaunchConfig &config) const;

  const KernelSpec *spec_ = nullptr;
  CUfunction function_ = nullptr;
  /// The dynamic shared bytes the function is known to allow (its limit
  /// raised once, not queried every launch), kept by the module.
  std::atomic<uint64_t> *sharedAllowed_ = nullptr;
  /// The module's report buffer (host memory mapped into the device), when
  /// sanitized, and the lock that gives one sanitized launch of the module
  /// at a time the buffer (so that a report names the kernel that made it).
  volatile uint32_t *report_ = nullptr;
  std::mutex *reportLock_ = nullptr;
};

/// A cubin or PTX image and its manifest.
class Module {
public:
  /// Reads both files; the image is a cubin, or PTX (text) that the driver
  /// compiles for the current device.
  static llvm::Expected<Module> load(llvm::StringRef imagePath,
                                     llvm::StringRef manifestPath);
  /// An image without a manifest (kernels written elsewhere, e.g. nvcc's);
  /// only launchRaw works on its functions.
  static llvm::Expected<Module> loadImage(llvm::StringRef imagePath);
  /// `image` (PTX text or cubin bytes) and the manifest's JSON text, both
  /// in memory (what the in-process compiler returns).
  static llvm::Expected<Module> loadFromMemory(llvm::StringRef image,
                                               llvm::StringRef manifestText);
  Module(Module &&other);
  ~Module();

  const LaunchManifest &manifest() const { return *manifest_; }
  /// The kernel `name`; an error lists the manifest's kernels otherwise.
  llvm::Expected<Kernel> kernel(llvm::StringRef name) const;
  /// The first version of kernel `name` that can take `args`
  /// (runtime::chooseVersion): the kernel itself, or one compiled with other
  /// copy variants for tensors it cannot read. With TILE_RUNTIME_DEBUG=1 in
  /// the environment, each choice and the reasons are printed to stderr.
  llvm::Expected<Kernel> kernelFor(llvm::StringRef name,
                                   llvm::ArrayRef<KernelArg> args) const;
  /// kernelFor(name, args).launch(config, args), the arguments checked and
  /// packed once (the launch path of the C API and Python).
  llvm::Error launch(llvm::StringRef name, const LaunchConfig &config,
                     llvm::ArrayRef<KernelArg> args) const;
  /// The function `name` of the image (looked up once, then cached).
  llvm::Expected<CUfunction> function(llvm::StringRef name) const;

private:
  Module() = default;
  /// A function looked up once, and the dynamic shared bytes it allows.
  struct FunctionEntry {
    CUfunction function = nullptr;
    std::atomic<uint64_t> sharedAllowed{0};
  };
  struct FunctionCache {
    std::mutex lock;
    llvm::StringMap<std::unique_ptr<FunctionEntry>> entries;
  };
  llvm::Expected<FunctionEntry *> entry(llvm::StringRef name) const;
  /// For a manifest with sanitized kernels: the report buffer, its device
  /// address stored in the module's `__tile_sanitize_report`.
  llvm::Error attachSanitizeReport();

  CUmodule module = nullptr;
  std::unique_ptr<LaunchManifest> manifest_;
  uint32_t *sanitizeReport = nullptr;
  std::unique_ptr<std::mutex> sanitizeLock;
  std::unique_ptr<FunctionCache> functions_ =
      std::make_unique<FunctionCache>();
};

/// cuLaunchKernelEx with optional cluster dims (0 = no cluster) and the
/// dynamic shared bytes (the function's limit, by default 48 KiB less its
/// static shared memory, is raised when they exceed it); `programmatic`:
/// with programmatic stream serialization (the kernel may start before the
/// work before it ends; it must `griddepcontrol.wait` before reading it).
llvm::Error launchRaw(CUfunction function, std::array<unsigned, 3> grid,
                      std::array<unsigned, 3> block,
                      std::array<unsigned, 3> cluster, uint64_t dynamicShared,
                      CUstream stream, void **params,
                      bool programmatic = false);
/// launchRaw, raising the function's dynamic shared limit only when
/// `raiseLimit` (a caller that knows it was raised skips the driver query).
llvm::Error launchWithShared(CUfunction function, std::array<unsigned, 3> grid,
                             std::array<unsigned, 3> block,
                             std::array<unsigned, 3> cluster,
                             uint64_t dynamicShared, bool raiseLimit,
                             CUstream stream, void **params,
                             bool programmatic = false);

/// Milliseconds of GPU time around `body`, from two events on `stream`.
llvm::Expected<float> timeOnStream(CUstream stream,
                                   const std::function<llvm::Error()> &body);

} // namespace tile::runtime

#endif // TILE_RUNTIME_RUNTIME_H

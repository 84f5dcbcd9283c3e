//===- Runtime.cpp - TileRuntime: load, encode, launch ---------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/Runtime.h"
#include "tile/Manifest/SanitizeReport.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

using namespace tile::runtime;
using llvm::Error;
using llvm::Expected;

namespace {

llvm::Error fail(const std::string &text) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

#define TILE_STRINGIFY_EXPANDED(x) TILE_STRINGIFY(x)
#define TILE_STRINGIFY(x) #x

/// Opens libcuda once; the symbol names are cuda.h's versioned ones
/// (cuMemAlloc -> cuMemAlloc_v2), which the macros expand to.
struct LoadedDriver {
  DriverApi api;
  std::string problem;

  LoadedDriver() {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      problem = std::string("the CUDA driver library libcuda.so.1 could not "
                            "be loaded (no NVIDIA driver on this machine?): ") +
                (why ? why : "unknown reason");
      return;
    }
#define TILE_DRIVER_RESOLVE(fn)                                                \
  api.fn = reinterpret_cast<decltype(api.fn)>(                                 \
      dlsym(library, TILE_STRINGIFY_EXPANDED(fn)));                           \
  if (!api.fn && problem.empty())                                              \
    problem = "libcuda.so.1 has no " TILE_STRINGIFY_EXPANDED(fn)               \
              " (driver older than CUDA 12.x?)";
    TILE_DRIVER_FUNCTIONS(TILE_DRIVER_RESOLVE)
#undef TILE_DRIVER_RESOLVE
    if (!problem.empty())
      return;
    CUresult init = api.cuInit(0);
    if (init != CUDA_SUCCESS) {
      const char *name = nullptr;
      api.cuGetErrorName(init, &name);
      problem = std::string("cuInit: ") + (name ? name : "unknown error") +
                " (no usable GPU?)";
    }
  }
};

const LoadedDriver &loaded() {
  static LoadedDriver instance;
  return instance;
}

/// The driver table inside functions that already know it loaded.
const DriverApi &api() { return loaded().api; }

} // namespace

Expected<const DriverApi &> tile::runtime::driver() {
  const LoadedDriver &d = loaded();
  if (!d.problem.empty())
    return fail(d.problem);
  return d.api;
}

Error tile::runtime::driverError(CUresult result, llvm::StringRef what) {
  const char *name = nullptr, *text = nullptr;
  if (loaded().api.cuGetErrorName) {
    api().cuGetErrorName(result, &name);
    api().cuGetErrorString(result, &text);
  }
  std::string message = what.str() + ": " +
                        (name ? name : "CUresult " + std::to_string(result));
  if (text)
    message += std::string(" (") + text + ")";
  return fail(message);
}

Error tile::runtime::check(CUresult result, llvm::StringRef what) {
  return result == CUDA_SUCCESS ? Error::success() : driverError(result, what);
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

Expected<Device> Device::open(int ordinal) {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  int count = 0;
  if (Error e = check(d->cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return std::move(e);
  if (ordinal < 0 || ordinal >= count)
    return fail("device " + std::to_string(ordinal) + " does not exist (" +
                std::to_string(count) + " devices)");
  Device device;
  if (Error e = check(d->cuDeviceGet(&device.device, ordinal), "cuDeviceGet"))
    return std::move(e);
  char name[256] = {};
  if (Error e = check(d->cuDeviceGetName(name, sizeof(name), device.device),
                      "cuDeviceGetName"))
    return std::move(e);
  device.name_ = name;
  auto attribute = [&](CUdevice_attribute which, int *out) {
    return check(d->cuDeviceGetAttribute(out, which, device.device),
                 "cuDeviceGetAttribute");
  };
  if (Error e = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          &device.major))
    return std::move(e);
  if (Error e = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                          &device.minor))
    return std::move(e);
  if (Error e = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &device.sms))
    return std::move(e);
  if (Error e = check(d->cuDevicePrimaryCtxRetain(&device.context, device.device),
                      "cuDevicePrimaryCtxRetain"))
    return std::move(e);
  if (Error e = check(d->cuCtxSetCurrent(device.context), "cuCtxSetCurrent"))
    return std::move(e);
  return std::move(device);
}

Device::Device(Device &&other)
    : device(other.device), context(other.context), major(other.major),
      minor(other.minor), sms(other.sms), name_(std::move(other.name_)) {
  other.context = nullptr;
}

Device::~Device() {
  if (context)
    api().cuDevicePrimaryCtxRelease(device);
}

std::string Device::smName() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  DeviceBuffer buffer;
  if (Error e = check(d->cuMemAlloc(&buffer.pointer, bytes),
                      "cuMemAlloc(" + std::to_string(bytes) + ")"))
    return std::move(e);
  buffer.bytes = bytes;
  return std::move(buffer);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other)
    : pointer(other.pointer), bytes(other.bytes) {
  other.pointer = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) {
  std::swap(pointer, other.pointer);
  std::swap(bytes, other.bytes);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer)
    api().cuMemFree(pointer);
}

Error DeviceBuffer::copyFromHost(const void *source, size_t count, size_t at) {
  if (at + count > bytes)
    return fail("copy of " + std::to_string(count) + " bytes at " +
                std::to_string(at) + " overruns a " + std::to_string(bytes) +
                "-byte buffer");
  return check(api().cuMemcpyHtoD(pointer + at, source, count), "cuMemcpyHtoD");
}

Error DeviceBuffer::copyToHost(void *destination, size_t count,
                               size_t at) const {
  if (at + count > bytes)
    return fail("copy of " + std::to_string(count) + " bytes at " +
                std::to_string(at) + " overruns a " + std::to_string(bytes) +
                "-byte buffer");
  return check(api().cuMemcpyDtoH(destination, pointer + at, count),
               "cuMemcpyDtoH");
}

Error DeviceBuffer::fill(uint8_t byte) {
  return check(api().cuMemsetD8(pointer, byte, bytes), "cuMemsetD8");
}

//===----------------------------------------------------------------------===//
// Module and Kernel
//===----------------------------------------------------------------------===//

/// `image` (PTX text, null-terminated, or a cubin) through the driver;
/// `what` names it in errors.
static Expected<CUmodule> loadImageBytes(const char *image,
                                         llvm::StringRef what) {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
  CUmodule module = nullptr;
  CUresult result = d->cuModuleLoadDataEx(&module, image, 2, options, values);
  if (result != CUDA_SUCCESS) {
    Error e = driverError(result, "cuModuleLoadDataEx(" + what.str() + ")");
    if (log[0])
      return fail(llvm::toString(std::move(e)) + "\n" + log);
    return std::move(e);
  }
  return module;
}

Expected<Module> Module::loadImage(llvm::StringRef imagePath) {
  // Null-terminated so that PTX text can be passed as is.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> image =
      llvm::MemoryBuffer::getFile(imagePath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/true);
  if (!image)
    return fail("cannot read the kernel image " + imagePath.str() + ": " +
                image.getError().message());
  Expected<CUmodule> loaded =
      loadImageBytes((*image)->getBufferStart(), imagePath);
  if (!loaded)
    return loaded.takeError();
  Module module;
  module.module = *loaded;
  module.manifest_ = std::make_unique<LaunchManifest>();
  return std::move(module);
}

Expected<Module> Module::load(llvm::StringRef imagePath,
                              llvm::StringRef manifestPath) {
  // The manifest first: a missing or stale one is reported before the
  // driver is touched.
  Expected<LaunchManifest> manifest = LaunchManifest::load(manifestPath);
  if (!manifest)
    return manifest.takeError();
  Expected<Module> module = loadImage(imagePath);
  if (!module)
    return module.takeError();
  *module->manifest_ = std::move(*manifest);
  if (Error e = module->attachSanitizeReport())
    return std::move(e);
  return module;
}

Expected<Module> Module::loadFromMemory(llvm::StringRef image,
                                        llvm::StringRef manifestText) {
  Expected<LaunchManifest> manifest =
      LaunchManifest::parse(manifestText, "<manifest>");
  if (!manifest)
    return manifest.takeError();
  std::string terminated = image.str(); // PTX text needs its terminator
  Expected<CUmodule> loaded =
      loadImageBytes(terminated.c_str(), "the compiled image");
  if (!loaded)
    return loaded.takeError();
  Module module;
  module.module = *loaded;
  module.manifest_ = std::make_unique<LaunchManifest>(std::move(*manifest));
  if (Error e = module.attachSanitizeReport())
    return std::move(e);
  return std::move(module);
}

Error Module::attachSanitizeReport() {
  using namespace tile::sanitize;
  bool sanitized = llvm::any_of(manifest_->kernels(), [](const KernelSpec *k) {
    return !k->sanitizeChecks.empty();
  });
  if (!sanitized)
    return Error::success();
  CUdeviceptr slot = 0;
  size_t slotBytes = 0;
  if (Error e = check(api().cuModuleGetGlobal(&slot, &slotBytes, module,
                                              kSanitizeReportSymbol.data()),
                      "cuModuleGetGlobal(" + kSanitizeReportSymbol.str() +
                          ") of a module whose manifest lists sanitize "
                          "checks"))
    return e;
  if (slotBytes != sizeof(uint64_t))
    return fail(kSanitizeReportSymbol.str() + " is " +
                std::to_string(slotBytes) + " bytes, not 8");
  void *host = nullptr;
  if (Error e = check(api().cuMemHostAlloc(&host,
                                           kReportWords * sizeof(uint32_t),
                                           CU_MEMHOSTALLOC_DEVICEMAP |
                                               CU_MEMHOSTALLOC_PORTABLE),
                      "cuMemHostAlloc (the sanitize report)"))
    return e;
  sanitizeReport = static_cast<uint32_t *>(host);
  sanitizeLock = std::make_unique<std::mutex>();
  std::fill_n(sanitizeReport, unsigned(kReportWords), 0u);
  CUdeviceptr device = 0;
  if (Error e = check(api().cuMemHostGetDevicePointer(&device, host, 0),
                      "cuMemHostGetDevicePointer (the sanitize report)"))
    return e;
  uint64_t address = device;
  return check(api().cuMemcpyHtoD(slot, &address, sizeof(address)),
               "cuMemcpyHtoD (" + kSanitizeReportSymbol.str() + ")");
}

Module::Module(Module &&other)
    : module(other.module), manifest_(std::move(other.manifest_)),
      sanitizeReport(other.sanitizeReport),
      sanitizeLock(std::move(other.sanitizeLock)),
      functions_(std::move(other.functions_)) {
  other.module = nullptr;
  other.sanitizeReport = nullptr;
}

Module::~Module() {
  if (module)
    api().cuModuleUnload(module);
  if (sanitizeReport)
    api().cuMemFreeHost(sanitizeReport);
}

Expected<Module::FunctionEntry *> Module::entry(llvm::StringRef name) const {
  std::lock_guard<std::mutex> hold(functions_->lock);
  std::unique_ptr<FunctionEntry> &slot = functions_->entries[name];
  if (slot)
    return slot.get();
  CUfunction function = nullptr;
  if (Error e = check(api().cuModuleGetFunction(&function, module,
                                                name.str().c_str()),
                      "cuModuleGetFunction(" + name.str() + ")")) {
    functions_->entries.erase(name);
    return std::move(e);
  }
  slot = std::make_unique<FunctionEntry>();
  slot->function = function;
  return slot.get();
}

Expected<CUfunction> Module::function(llvm::StringRef name) const {
  Expected<FunctionEntry *> found = entry(name);
  if (!found)
    return found.takeError();
  return (*found)->function;
}

Expected<Kernel> Module::kernel(llvm::StringRef name) const {
  const KernelSpec *spec = manifest_->kernel(name);
  if (!spec)
    return unknownKernelError(*manifest_, name);
  Expected<FunctionEntry *> found = entry(name);
  if (!found)
    return found.takeError();
  Kernel kernel;
  kernel.spec_ = spec;
  kernel.function_ = (*found)->function;
  kernel.sharedAllowed_ = &(*found)->sharedAllowed;
  if (!spec->sanitizeChecks.empty()) {
    kernel.report_ = sanitizeReport;
    kernel.reportLock_ = sanitizeLock.get();
  }
  return kernel;
}

Expected<Kernel> Module::kernelFor(llvm::StringRef name,
                                   llvm::ArrayRef<KernelArg> args) const {
  const char *debug = std::getenv("TILE_RUNTIME_DEBUG");
  bool explain = debug && *debug && std::string(debug) != "0";
  std::string why;
  Expected<const KernelSpec *> chosen =
      chooseVersion(*manifest_, name, args, explain ? &why : nullptr);
  if (explain)
    llvm::errs() << "tile runtime: versions of " << name << ":\n" << why;
  if (!chosen)
    return chosen.takeError();
  return kernel((*chosen)->name);
}

Error Module::launch(llvm::StringRef name, const LaunchConfig &config,
                     llvm::ArrayRef<KernelArg> args) const {
  const char *debug = std::getenv("TILE_RUNTIME_DEBUG");
  bool explain = debug && *debug && std::string(debug) != "0";
  std::string why;
  PreparedLaunch prepared;
  Expected<const KernelSpec *> chosen = chooseVersion(
      *manifest_, name, args, explain ? &why : nullptr, &prepared);
  if (explain)
    llvm::errs() << "tile runtime: versions of " << name << ":\n" << why;
  if (!chosen)
    return chosen.takeError();
  Expected<Kernel> k = kernel((*chosen)->name);
  if (!k)
    return k.takeError();
  return k->launch(config, std::move(prepared));
}

Error Kernel::launch(const LaunchConfig &config,
                     llvm::ArrayRef<KernelArg> args) const {
  // The launch settings before the arguments (this overload's order since
  // it was written; Module::launch reports the arguments first).
  if (Expected<std::array<unsigned, 3>> block =
          checkLaunchConfig(*spec_, config);
      !block)
    return block.takeError();
  Expected<PreparedLaunch> prepared = prepareLaunch(*spec_, args);
  if (!prepared)
    return prepared.takeError();
  return launch(config, std::move(*prepared));
}

Error Kernel::launch(const LaunchConfig &config,
                     PreparedLaunch prepared) const {
  Expected<std::array<unsigned, 3>> block = checkLaunchConfig(*spec_, config);
  if (!block)
    return block.takeError();
  // Packed by prepareLaunch for this kernel: one offset per parameter, tensor
  // maps on parameters that exist.
  if (prepared.offsets.size() != spec_->params.size() ||
      llvm::any_of(prepared.tensorMaps,
                   [&](const TensorMapToEncode &m) {
                     return m.param >= spec_->params.size();
                   }) ||
      llvm::any_of(prepared.offsets, [&](size_t offset) {
        return offset > prepared.storage.size();
      }))
    return fail("kernel '" + spec_->name +
                "': the prepared launch was not packed for this kernel (" +
                std::to_string(prepared.offsets.size()) + " parameters, the "
                "kernel has " + std::to_string(spec_->params.size()) + ")");
  // CUtensorMap must be 64-byte aligned; the packed storage is not.
  std::vector<CUtensorMap> maps(prepared.tensorMaps.size());
  std::vector<void *> params(spec_->params.size());
  for (size_t i = 0; i < params.size(); ++i)
    params[i] = prepared.storage.data() + prepared.offsets[i];
  for (auto [i, map] : llvm::enumerate(prepared.tensorMaps)) {
    const cuda::TensorMapDesc &d = map.desc;
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], elementStrides[5];
    for (unsigned r = 0; r < d.rank; ++r) {
      dims[r] = *d.globalDims[r];
      box[r] = d.boxDims[r];
      elementStrides[r] = d.elementStrides[r];
      if (r + 1 < d.rank)
        strides[r] = *d.globalStrides[r];
    }
    CUresult encoded = api().cuTensorMapEncodeTiled(
        &maps[i], CUtensorMapDataType(d.dataType), d.rank,
        reinterpret_cast<void *>(uintptr_t(*d.globalAddress)), dims, strides,
        box, elementStrides, CUtensorMapInterleave(d.interleave),
        CUtensorMapSwizzle(d.swizzle), CUtensorMapL2promotion(d.l2Promotion),
        CUtensorMapFloatOOBfill(d.oobFill));
    if (encoded != CUDA_SUCCESS) // the message built only then
      return check(encoded, "cuTensorMapEncodeTiled (parameter " +
                                std::to_string(map.param) + " of " +
                                spec_->name + ")");
    params[map.param] = &maps[i];
  }
  std::array<unsigned, 3> cluster =
      spec_->clusterDims.value_or(std::array<unsigned, 3>{0, 0, 0});
  std::unique_lock<std::mutex> oneSanitizedLaunch;
  if (report_) {
    oneSanitizedLaunch = std::unique_lock<std::mutex>(*reportLock_);
    report_[tile::sanitize::kStatus] = 0;
  }
  uint64_t shared = dynamicSharedBytesToLaunch(*spec_, config);
  bool allowed = sharedAllowed_ &&
                 sharedAllowed_->load(std::memory_order_relaxed) >= shared;
  if (Error e = launchWithShared(function_, config.grid, *block, cluster,
                                 shared, /*raiseLimit=*/!allowed,
                                 static_cast<CUstream>(config.stream),
                                 params.data(), spec_->programmaticLaunch))
    return e;
  // The limit only grows (allowDynamicShared), so the bytes known allowed
  // are the largest recorded.
  if (!allowed && sharedAllowed_) {
    uint64_t seen = sharedAllowed_->load();
    while (seen < shared &&
           !sharedAllowed_->compare_exchange_weak(seen, shared)) {
    }
  }
  return report_ ? finishSanitizedLaunch(config) : Error::success();
}

Error Kernel::finishSanitizedLaunch(const LaunchConfig &config) const {
  using namespace tile::sanitize;
  CUresult result = api().cuCtxSynchronize();
  std::optional<Report> report = decodeReport(report_);
  if (!report)
    return result == CUDA_SUCCESS
               ? Error::success()
               : driverError(result, "the sanitized kernel " + spec_->name +
                                         " (no check reported)");
  std::array<unsigned, 3> block =
      config.block.value_or(spec_->blockDims.value_or(
          std::array<unsigned, 3>{1, 1, 1}));
  if (report->check >= spec_->sanitizeChecks.size())
    return fail("kernel '" + spec_->name + "': a sanitize report names check " +
                std::to_string(report->check) + " of " +
                std::to_string(spec_->sanitizeChecks.size()) +
                " (a manifest of another build?)");
  const manifest::SanitizeCheckSpec &failed =
      spec_->sanitizeChecks[report->check];
  CheckKind kind = parseCheckKind(failed.kind).value_or(CheckKind::WaitTimeout);
  return fail(describeReport(spec_->name, *report, kind, failed.loc,
                             failed.what, block) +
              "; the kernel trapped, the CUDA context is unusable from here");
}

namespace {

/// Raises `function`'s dynamic shared limit to `bytes` when below: the
/// default is 48 KiB less the function's static shared memory, so a
/// kernel with static memory may need the opt-in below 48 KiB too. One
/// raise at a time, so that the limit only grows: two threads that read
/// the same old limit would otherwise let the smaller request land last.
Error allowDynamicShared(const DriverApi &d, CUfunction function,
                         uint64_t bytes) {
  static std::mutex oneRaise;
  std::lock_guard<std::mutex> hold(oneRaise);
  int limit = 0;
  if (Error e = check(d.cuFuncGetAttribute(
                          &limit, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                          function),
                      "cuFuncGetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
    return e;
  if (bytes <= uint64_t(limit))
    return Error::success();
  return check(d.cuFuncSetAttribute(
                   function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                   int(bytes)),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                   std::to_string(bytes) + ")");
}

/// A launch configuration; `attributes` hold the cluster dims (0 = none)
/// and, for `programmatic`, programmatic stream serialization.
CUlaunchConfig launchConfig(std::array<unsigned, 3> grid,
                            std::array<unsigned, 3> block,
                            std::array<unsigned, 3> cluster,
                            uint64_t dynamicShared, CUstream stream,
                            std::array<CUlaunchAttribute, 2> &attributes,
                            bool programmatic = false) {
  CUlaunchConfig config = {};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = unsigned(dynamicShared);
  config.hStream = stream;
  attributes = {};
  unsigned count = 0;
  if (cluster[0]) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = cluster[0];
    a.value.clusterDim.y = cluster[1];
    a.value.clusterDim.z = cluster[2];
  }
  if (programmatic) {
    CUlaunchAttribute &a = attributes[count++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  config.attrs = count ? attributes.data() : nullptr;
  config.numAttrs = count;
  return config;
}

} // namespace

Expected<int> Kernel::maxActiveClusters() const {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  LaunchConfig defaults;
  uint64_t shared = dynamicSharedBytesToLaunch(*spec_, defaults);
  if (Error e = allowDynamicShared(*d, function_, shared))
    return std::move(e);
  std::array<unsigned, 3> block =
      spec_->blockDims.value_or(std::array<unsigned, 3>{1, 1, 1});
  // A kernel without a cluster counts as clusters of one CTA.
  std::array<unsigned, 3> cluster =
      spec_->clusterDims.value_or(std::array<unsigned, 3>{1, 1, 1});
  std::array<CUlaunchAttribute, 2> attributes;
  CUlaunchConfig config =
      launchConfig(cluster, block, cluster, shared, nullptr, attributes);
  int count = 0;
  if (Error e = check(d->cuOccupancyMaxActiveClusters(&count, function_,
                                                      &config),
                      "cuOccupancyMaxActiveClusters (" + spec_->name + ")"))
    return std::move(e);
  return count;
}

Error tile::runtime::launchRaw(CUfunction function, std::array<unsigned, 3> grid,
                               std::array<unsigned, 3> block,
                               std::array<unsigned, 3> cluster,
                               uint64_t dynamicShared, CUstream stream,
                               void **params, bool programmatic) {
  return launchWithShared(function, grid, block, cluster, dynamicShared,
                          /*raiseLimit=*/true, stream, params, programmatic);
}

Error tile::runtime::launchWithShared(
    CUfunction function, std::array<unsigned, 3> grid,
    std::array<unsigned, 3> block, std::array<unsigned, 3> cluster,
    uint64_t dynamicShared, bool raiseLimit, CUstream stream, void **params,
    bool programmatic) {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  if (raiseLimit)
    if (Error e = allowDynamicShared(*d, function, dynamicShared))
      return e;
  std::array<CUlaunchAttribute, 2> attributes;
  CUlaunchConfig config = launchConfig(grid, block, cluster, dynamicShared,
                                       stream, attributes, programmatic);
  return check(d->cuLaunchKernelEx(&config, function, params, nullptr),
               "cuLaunchKernelEx");
}

Expected<float> tile::runtime::timeOnStream(
    CUstream stream, const std::function<llvm::Error()> &body) {
  Expected<const DriverApi &> d = driver();
  if (!d)
    return d.takeError();
  CUevent start = nullptr, stop = nullptr;
  if (Error e = check(d->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate"))
    return std::move(e);
  if (Error e = check(d->cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate")) {
    d->cuEventDestroy(start);
    return std::move(e);
  }
  float ms = 0;
  Error e = check(d->cuEventRecord(start, stream), "cuEventRecord");
  if (!e)
    e = body();
  if (!e)
    e = check(d->cuEventRecord(stop, stream), "cuEventRecord");
  if (!e)
    e = check(d->cuEventSynchronize(stop), "cuEventSynchronize");
  if (!e)
    e = check(d->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  d->cuEventDestroy(start);
  d->cuEventDestroy(stop);
  if (e)
    return std::move(e);
  return ms;
}

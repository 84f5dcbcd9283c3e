//===- Launch.h - kernel arguments checked and packed for a launch -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The driver-free half of a launch: the host's arguments are checked against
// the manifest (count, kinds, ranks, static sizes, alignment), expanded into
// the lowered parameters, and every tensor map is completed from them and
// checked against every cuTensorMapEncodeTiled rule. All problems are
// reported together, before anything reaches the driver, so bad input never
// launches. Unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LAUNCH_H
#define TILE_RUNTIME_LAUNCH_H

#include "tile/Manifest/LaunchManifest.h"

#include "llvm/ADT/ArrayRef.h"

namespace tile::runtime {

// The manifest schema, as the runtime reads it.
using manifest::AlignmentNeed;
using manifest::ArgSpec;
using manifest::KernelSpec;
using manifest::LaunchManifest;
using manifest::ParamSpec;
using manifest::TensorMapSpec;
constexpr int kSupportedManifestVersion = manifest::kVersion;

/// A strided view of device memory, as a memref kernel argument expands it.
struct MemRefArg {
  uint64_t allocated = 0;
  uint64_t aligned = 0;
  /// In elements, like sizes and strides.
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 5> sizes;
  llvm::SmallVector<int64_t, 5> strides;
};

/// One host argument: a memref or a scalar.
class KernelArg {
public:
  /// `sizes` over device memory at `address`; row-major strides when
  /// `strides` is empty.
  static KernelArg memref(uint64_t address, llvm::ArrayRef<int64_t> sizes,
                          llvm::ArrayRef<int64_t> strides = {},
                          int64_t offset = 0);
  static KernelArg i32(int32_t value) { return scalar(&value, 4, 32); }
  static KernelArg i64(int64_t value) { return scalar(&value, 8, 64); }
  static KernelArg f32(float value) { return scalar(&value, 4, 32); }
  static KernelArg f64(double value) { return scalar(&value, 8, 64); }

  bool isMemRef() const { return isMemRef_; }
  const MemRefArg &memrefValue() const { return memref_; }
  unsigned scalarBits() const { return scalarBits_; }
  const uint8_t *scalarBytes() const { return scalar_; }

private:
  static KernelArg scalar(const void *bytes, unsigned size, unsigned bits);
  bool isMemRef_ = false;
  MemRefArg memref_;
  unsigned scalarBits_ = 0;
  uint8_t scalar_[8] = {};
};

/// A tensor map to encode into parameter `param`.
struct TensorMapToEncode {
  unsigned param = 0;
  cuda::TensorMapDesc desc;
};

/// The lowered parameters of one launch, packed.
struct PreparedLaunch {
  /// Backing bytes of every parameter; a tensor map's 128 bytes are filled
  /// in by the encoder.
  std::vector<uint8_t> storage;
  /// Offset of parameter i in `storage`.
  std::vector<size_t> offsets;
  std::vector<TensorMapToEncode> tensorMaps;
};

/// Checks `args` against `kernel` and packs its parameters. The error lists
/// every problem found (one per line).
llvm::Expected<PreparedLaunch> prepareLaunch(const KernelSpec &kernel,
                                             llvm::ArrayRef<KernelArg> args);

/// "the manifest has no kernel 'name' (kernels: ...)".
llvm::Error unknownKernelError(const LaunchManifest &manifest,
                               llvm::StringRef name);

/// The first version of kernel `name` (LaunchManifest::versions: the kernel,
/// then the kernels declared its versions) that `args` can launch: whose
/// prepareLaunch accepts them, alignment needs included. The error names
/// each version and what it refused. `why`, when given, receives a line per
/// version skipped and the one chosen; `prepared`, when given, the chosen
/// version's packed launch.
llvm::Expected<const KernelSpec *>
chooseVersion(const LaunchManifest &manifest, llvm::StringRef name,
              llvm::ArrayRef<KernelArg> args, std::string *why = nullptr,
              PreparedLaunch *prepared = nullptr);

/// The grid (in CTAs) and, optionally, extra launch settings.
struct LaunchConfig {
  std::array<unsigned, 3> grid = {1, 1, 1};
  /// Must equal the manifest's block dims when those are known.
  std::optional<std::array<unsigned, 3>> block;
  /// Defaults to the manifest's dynamic shared bytes.
  std::optional<uint64_t> dynamicSharedBytes;
  /// A CUstream; null is the legacy default stream.
  void *stream = nullptr;
};

/// The dynamic shared bytes to launch `kernel` with: the config's, else the
/// manifest's (the kernel's dynamic shared segment).
uint64_t dynamicSharedBytesToLaunch(const KernelSpec &kernel,
                                    const LaunchConfig &config);

/// The block dims to launch with, or an error when the grid does not tile
/// into the kernel's clusters, the block disagrees with the manifest or the
/// dynamic shared bytes are below the kernel's.
llvm::Expected<std::array<unsigned, 3>>
checkLaunchConfig(const KernelSpec &kernel, const LaunchConfig &config);

} // namespace tile::runtime

#endif // TILE_RUNTIME_LAUNCH_H

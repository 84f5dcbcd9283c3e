//===- LaunchManifest.h - the compile driver's manifest, read back -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The launch manifest `tile-compile --manifest` writes (version 2), as plain
// structs for the host runtime: per kernel the source arguments a host
// passes, the lowered parameters they expand into, block and cluster dims,
// shared-memory bytes and the tensor-map plans. No MLIR and no driver.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LAUNCHMANIFEST_H
#define TILE_RUNTIME_LAUNCHMANIFEST_H

#include "tile/Target/CUDA/TensorMap.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tile::runtime {

/// The manifest format this runtime reads.
constexpr int kSupportedManifestVersion = 2;

/// One source argument of a kernel.
struct ArgSpec {
  enum class Kind { MemRef, Scalar, TensorMap };
  Kind kind = Kind::Scalar;
  unsigned index = 0;
  /// The MLIR type as written in the kernel signature.
  std::string type;
  // MemRef: element type and width, static shape/strides (-1 = dynamic).
  std::string elementType;
  unsigned elementBits = 0;
  llvm::SmallVector<int64_t, 5> shape;
  llvm::SmallVector<int64_t, 5> strides;
  // Scalar: width in bits (0 when not an integer or float).
  unsigned scalarBits = 0;
  // TensorMap: index into KernelSpec::tensorMaps.
  int map = -1;

  unsigned elementBytes() const { return elementBits < 8 ? 1 : elementBits / 8; }
};

/// One lowered (PTX) parameter and the part of a source argument it holds.
struct ParamSpec {
  enum class Kind { Pointer, Integer, Float, GridConstant, Other };
  Kind kind = Kind::Other;
  unsigned index = 0;
  unsigned bytes = 0;
  unsigned align = 1;
  int sourceArg = -1;
  /// "allocated", "aligned", "offset", "size[i]", "stride[i]" or empty.
  std::string part;
};

/// A planned tensor map: the encode arguments with runtime values as -1 and
/// where each runtime value comes from.
struct TensorMapSpec {
  unsigned globalArg = 0;
  unsigned loweredParam = 0;
  cuda::TensorMapDataType dataType = cuda::TensorMapDataType::UInt8;
  /// rank, dims, strides (bytes), box, element strides, interleave,
  /// swizzle, L2 promotion, oob fill.
  llvm::SmallVector<int64_t, 24> encode;
  /// Per map dim: the memref dim whose size it is, or -1 (static).
  llvm::SmallVector<int64_t, 5> dimSources;
  /// Per map stride: the memref dim whose element stride it is (times
  /// `strideScales`), or -1 (static).
  llvm::SmallVector<int64_t, 4> strideSources;
  llvm::SmallVector<int64_t, 4> strideScales;
  int64_t bytesPerIssue = 0;
  int64_t issues = 0;
};

struct KernelSpec {
  std::string name;
  std::vector<ArgSpec> args;
  std::vector<ParamSpec> params;
  std::vector<TensorMapSpec> tensorMaps;
  std::optional<std::array<unsigned, 3>> blockDims;
  std::optional<std::array<unsigned, 3>> clusterDims;
  uint64_t staticSharedBytes = 0;
  uint64_t dynamicSharedBytes = 0;

  /// The arguments a host passes: every argument but the tensor maps.
  unsigned numHostArgs() const;
  /// "(memref<?x?xf16, 1>, i32)": the host arguments' types.
  std::string hostSignature() const;
};

struct LaunchManifest {
  int version = 0;
  std::string chip;
  std::vector<KernelSpec> kernels;

  const KernelSpec *kernel(llvm::StringRef name) const;

  /// Parses manifest text; `origin` names it in errors.
  static llvm::Expected<LaunchManifest> parse(llvm::StringRef text,
                                              llvm::StringRef origin);
  /// Reads and parses the file at `path`.
  static llvm::Expected<LaunchManifest> load(llvm::StringRef path);
};

/// The tensor-map data type named `name` ("FLOAT16", ...).
std::optional<cuda::TensorMapDataType> parseDataType(llvm::StringRef name);

} // namespace tile::runtime

#endif // TILE_RUNTIME_LAUNCHMANIFEST_H

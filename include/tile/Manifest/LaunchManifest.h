//===- LaunchManifest.h - the launch manifest schema -------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one schema of the launch manifest (docs/Design.md, "Kernel ABI and
// the launch manifest"):
// what a compiled kernel needs from its host. The compiler fills these
// structs from the lowered module (tile::buildLaunchManifest) and writes them
// with `toJSON`; the host runtime reads them back with `LaunchManifest::parse`.
// No MLIR and no driver: both sides link only this and LLVM Support.
//
// Every key of the JSON format is written in LaunchManifest.cpp and nowhere
// else; a field added here is added to the writer and the reader there, and
// the round-trip test (unittests/Runtime/ManifestSchemaTest.cpp) covers it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_MANIFEST_LAUNCHMANIFEST_H
#define TILE_MANIFEST_LAUNCHMANIFEST_H

#include "tile/Target/CUDA/TensorMap.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tile::manifest {

/// The format version written and read. Version 1 lacked the `args`
/// section, version 2 `sanitize_checks` (a runtime that does not know them
/// would launch a sanitized kernel without its report buffer), version 3
/// the arguments' `alignment` and `offset` and the kernels' `version_of` (a
/// runtime that does not know them would launch a version whose copies
/// cannot read the tensors).
constexpr int kVersion = 4;

/// What one variant's copies need of a memref argument: the address of
/// element 0 (aligned pointer + offset * element bytes) and the strides of
/// `strides`' dims, in bytes, multiples of `bytes` (a power of two).
struct AlignmentNeed {
  uint64_t bytes = 0;
  /// The variant ("tma", "ldgsts").
  std::string by;
  llvm::SmallVector<int64_t, 4> strides;
  bool operator==(const AlignmentNeed &) const;
};

/// One source argument of a kernel: what the host passes.
struct ArgSpec {
  enum class Kind { MemRef, Scalar, TensorMap };
  Kind kind = Kind::Scalar;
  unsigned index = 0;
  /// The MLIR type as written in the kernel signature.
  std::string type;
  // MemRef: element type and width (0: not an integer or float), static
  // shape and strides (-1 = dynamic; no strides: not a strided layout).
  std::string elementType;
  unsigned elementBits = 0;
  llvm::SmallVector<int64_t, 5> shape;
  std::optional<llvm::SmallVector<int64_t, 5>> strides;
  // MemRef: the element offset its layout fixes (0 for the identity
  // layout), or nullopt when it is dynamic or the layout is not strided.
  // The kernel's code assumes it; a descriptor with another is refused.
  std::optional<int64_t> offset;
  // MemRef: what the kernel's copies need of the tensor, one entry per
  // variant and need.
  std::vector<AlignmentNeed> alignment;
  // Scalar: width in bits (0 when not an integer or float).
  unsigned scalarBits = 0;
  // TensorMap: index into KernelSpec::tensorMaps.
  int map = -1;

  unsigned elementBytes() const { return elementBits < 8 ? 1 : elementBits / 8; }
  bool operator==(const ArgSpec &) const;
};

/// One lowered (PTX) parameter and the part of a source argument it holds.
struct ParamSpec {
  enum class Kind { Pointer, Integer, Float, GridConstant, ByVal, Other };
  Kind kind = Kind::Other;
  unsigned index = 0;
  /// The LLVM dialect type of the parameter.
  std::string type;
  unsigned bytes = 0;
  unsigned align = 1;
  /// The source argument it comes from (-1: unknown).
  int sourceArg = -1;
  /// "allocated", "aligned", "offset", "size[i]", "stride[i]" or empty.
  std::string part;

  bool operator==(const ParamSpec &) const;
};

/// A planned tensor map: the encode arguments with runtime values as -1 and
/// where each runtime value comes from.
struct TensorMapSpec {
  /// The kernel argument the map is passed in (source signature).
  unsigned param = 0;
  /// The memref argument the map describes.
  unsigned globalArg = 0;
  /// The lowered parameters of the map and of the memref's aligned pointer.
  unsigned loweredParam = 0;
  unsigned loweredGlobalParam = 0;
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

  bool operator==(const TensorMapSpec &) const;
};

/// What dispatch chose for one tile op.
struct DispatchRecord {
  std::string op;
  std::string variant;
  /// `file:line:col` of the op.
  std::string loc;

  bool operator==(const DispatchRecord &) const;
};

/// One runtime check of a kernel compiled with `--sanitize`; a report
/// names it by its index in `KernelSpec::sanitizeChecks`.
struct SanitizeCheckSpec {
  /// sanitize::checkKindName's spelling.
  std::string kind;
  /// `file:line:col` of the checked op.
  std::string loc;
  /// What it checks ("nvgpu.mbarrier.try_wait.parity on %full[...]").
  std::string what;

  bool operator==(const SanitizeCheckSpec &) const;
};

struct KernelSpec {
  std::string name;
  std::vector<ArgSpec> args;
  std::vector<ParamSpec> params;
  std::vector<TensorMapSpec> tensorMaps;
  std::optional<std::array<unsigned, 3>> blockDims;
  /// Set when the kernel must be launched as a cluster of these dims.
  std::optional<std::array<unsigned, 3>> clusterDims;
  uint64_t staticSharedBytes = 0;
  uint64_t dynamicSharedBytes = 0;
  std::vector<DispatchRecord> dispatch;
  /// Empty unless compiled with `--sanitize`: then the runtime sets up the
  /// report buffer and checks it after each launch.
  std::vector<SanitizeCheckSpec> sanitizeChecks;
  /// The kernel this one is another version of (the same computation with
  /// other copy variants, hence other alignment needs), or empty.
  std::string versionOf;
  /// The kernel waits (`griddepcontrol.wait`) before it reads what the
  /// work queued before it on the stream wrote: it is launched with
  /// programmatic stream serialization, so its CTAs may start while that
  /// work finishes (manifest: `programmatic_launch`).
  bool programmaticLaunch = false;

  /// The arguments a host passes: every argument but the tensor maps.
  unsigned numHostArgs() const;
  /// "(memref<?x?xf16, 1>, i32)": the host arguments' types.
  std::string hostSignature() const;
  bool operator==(const KernelSpec &) const;
};

/// One gpu.module: its PTX holds these kernels.
struct ModuleSpec {
  std::string name;
  std::string chip;
  std::vector<KernelSpec> kernels;

  bool operator==(const ModuleSpec &) const;
};

struct LaunchManifest {
  int version = kVersion;
  /// The chip the PTX was compiled for, and the files tile-compile wrote
  /// (empty when not written).
  std::string chip;
  std::string ptx;
  std::string cubin;
  std::vector<ModuleSpec> modules;

  /// The kernel `name` in any module, or null.
  const KernelSpec *kernel(llvm::StringRef name) const;
  /// Every kernel of every module.
  std::vector<const KernelSpec *> kernels() const;
  /// The versions of kernel `name`: the kernel itself, then every kernel
  /// whose `versionOf` is `name`, in manifest order (empty when none
  /// exists).
  std::vector<const KernelSpec *> versions(llvm::StringRef name) const;
  bool operator==(const LaunchManifest &) const;

  /// Parses manifest text; `origin` names it in errors. Every problem names
  /// its JSON path (`$.modules[0].kernels[1](name).params[3]`). A parameter
  /// without a source argument (a kernel lowered without
  /// --tile-lower-variants, whose source signature is unknown) is refused:
  /// the runtime could not pack its arguments.
  static llvm::Expected<LaunchManifest> parse(llvm::StringRef text,
                                              llvm::StringRef origin);
  /// Reads and parses the file at `path`.
  static llvm::Expected<LaunchManifest> load(llvm::StringRef path);
};

/// The JSON form (the only writer of the format).
llvm::json::Value toJSON(const LaunchManifest &manifest);
/// Pretty-printed JSON text, as tile-compile writes it.
std::string toJSONText(const LaunchManifest &manifest);

/// The tensor-map data type named `name` ("FLOAT16", ...).
std::optional<cuda::TensorMapDataType> parseDataType(llvm::StringRef name);

} // namespace tile::manifest

#endif // TILE_MANIFEST_LAUNCHMANIFEST_H

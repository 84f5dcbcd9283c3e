//===- Launch.cpp - kernel arguments checked and packed for a launch -------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/Launch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace tile::runtime;
using tile::cuda::TensorMapDesc;
using llvm::Expected;

KernelArg KernelArg::memref(uint64_t address, llvm::ArrayRef<int64_t> sizes,
                            llvm::ArrayRef<int64_t> strides, int64_t offset) {
  KernelArg a;
  a.isMemRef_ = true;
  a.memref_.allocated = a.memref_.aligned = address;
  a.memref_.offset = offset;
  a.memref_.sizes.assign(sizes.begin(), sizes.end());
  if (!strides.empty()) {
    a.memref_.strides.assign(strides.begin(), strides.end());
  } else {
    a.memref_.strides.assign(sizes.size(), 1);
    for (size_t d = sizes.size(); d-- > 1;)
      a.memref_.strides[d - 1] = a.memref_.strides[d] * sizes[d];
  }
  return a;
}

KernelArg KernelArg::scalar(const void *bytes, unsigned size, unsigned bits) {
  KernelArg a;
  a.scalarBits_ = bits;
  std::memcpy(a.scalar_, bytes, size);
  return a;
}

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// Parses "size[3]" into 3 when the prefix matches.
std::optional<unsigned> indexedPart(llvm::StringRef part, llvm::StringRef name) {
  unsigned index;
  if (!part.consume_front(name) || !part.consume_front("[") ||
      !part.consume_back("]") || part.getAsInteger(10, index))
    return std::nullopt;
  return index;
}

/// Problems with one memref argument.
void checkMemRef(const ArgSpec &spec, const MemRefArg &m,
                 std::vector<std::string> &problems) {
  std::string at = "argument " + str(spec.index) + " (" + spec.type + ")";
  size_t rank = spec.shape.size();
  if (m.sizes.size() != rank || m.strides.size() != rank) {
    problems.push_back(at + ": rank " + str(rank) + " expected, got " +
                       str(m.sizes.size()) + " sizes and " +
                       str(m.strides.size()) + " strides");
    return;
  }
  for (size_t d = 0; d < rank; ++d) {
    if (m.sizes[d] < 0)
      problems.push_back(at + ": size[" + str(d) + "] = " + str(m.sizes[d]) +
                         " is negative");
    else if (spec.shape[d] >= 0 && m.sizes[d] != spec.shape[d])
      problems.push_back(at + ": size[" + str(d) + "] = " + str(m.sizes[d]) +
                         " but the kernel was compiled for " +
                         str(spec.shape[d]));
    if (spec.strides && d < spec.strides->size() && (*spec.strides)[d] >= 0 &&
        m.strides[d] != (*spec.strides)[d])
      problems.push_back(at + ": stride[" + str(d) + "] = " +
                         str(m.strides[d]) +
                         " elements but the kernel was compiled for " +
                         str((*spec.strides)[d]));
  }
  if (m.offset < 0)
    problems.push_back(at + ": offset " + str(m.offset) + " is negative");
  else if (spec.offset && m.offset != *spec.offset)
    problems.push_back(at + ": offset " + str(m.offset) +
                       " elements but the memref type fixes it at " +
                       str(*spec.offset) + " (pass a view by its address)");
  if (m.aligned == 0) {
    problems.push_back(at + ": null device pointer");
    return;
  }
  if (m.aligned % spec.elementBytes() != 0) {
    problems.push_back(at + ": pointer 0x" + llvm::utohexstr(m.aligned) +
                       " is not aligned to its " + str(spec.elementBytes()) +
                       "-byte " + spec.elementType + " elements");
    return;
  }
  if (m.offset < 0)
    return;
  // What the kernel's copies need (the manifest's `alignment`).
  uint64_t address = m.aligned + uint64_t(m.offset) * spec.elementBytes();
  for (const AlignmentNeed &n : spec.alignment) {
    std::string need = " is not a multiple of " + str(n.bytes) +
                       " bytes, as the " + n.by + " copies of this kernel need";
    // Two needs of one variant may name the same value once.
    auto add = [&](std::string problem) {
      if (!llvm::is_contained(problems, problem))
        problems.push_back(std::move(problem));
    };
    if (address % n.bytes)
      add(at + ": the address of element 0, 0x" + llvm::utohexstr(address) +
          "," + need);
    for (int64_t d : n.strides) {
      int64_t bytes = m.strides[d] * int64_t(spec.elementBytes());
      if (bytes % int64_t(n.bytes))
        add(at + ": stride[" + str(d) + "] = " + str(m.strides[d]) +
            " elements (" + str(bytes) + " bytes)" + need);
    }
  }
}

/// The tensor map `spec` describes for the memref `m`.
TensorMapDesc completeMap(const TensorMapSpec &spec, const ArgSpec &global,
                          const MemRefArg &m) {
  TensorMapDesc d;
  d.dataType = spec.dataType;
  unsigned rank = spec.encode[0];
  d.rank = rank;
  const int64_t *e = spec.encode.data() + 1;
  for (unsigned i = 0; i < rank; ++i, ++e)
    d.globalDims.push_back(spec.dimSources[i] >= 0
                               ? uint64_t(m.sizes[spec.dimSources[i]])
                               : uint64_t(*e));
  for (unsigned i = 0; i + 1 < rank; ++i, ++e)
    d.globalStrides.push_back(
        spec.strideSources[i] >= 0
            ? uint64_t(m.strides[spec.strideSources[i]] * spec.strideScales[i])
            : uint64_t(*e));
  for (unsigned i = 0; i < rank; ++i, ++e)
    d.boxDims.push_back(uint32_t(*e));
  for (unsigned i = 0; i < rank; ++i, ++e)
    d.elementStrides.push_back(uint32_t(*e));
  d.interleave = tile::cuda::TensorMapInterleave(e[0]);
  d.swizzle = tile::cuda::TensorMapSwizzle(e[1]);
  d.l2Promotion = tile::cuda::TensorMapL2Promotion(e[2]);
  d.oobFill = tile::cuda::TensorMapOobFill(e[3]);
  d.globalAddress = m.aligned + uint64_t(m.offset) * global.elementBytes();
  return d;
}

llvm::Error problemsError(const KernelSpec &kernel,
                          const std::vector<std::string> &problems) {
  std::string text = "cannot launch " + kernel.name + ":";
  for (const std::string &p : problems)
    text += "\n  " + p;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

} // namespace

Expected<PreparedLaunch>
tile::runtime::prepareLaunch(const KernelSpec &kernel,
                             llvm::ArrayRef<KernelArg> args) {
  std::vector<std::string> problems;
  if (args.size() != kernel.numHostArgs()) {
    problems.push_back("kernel " + kernel.name + " takes " +
                       str(kernel.numHostArgs()) + " arguments " +
                       kernel.hostSignature() + ", " + str(args.size()) +
                       " given");
    return problemsError(kernel, problems);
  }
  // Host argument i is the i-th source argument that is not a tensor map.
  std::vector<const KernelArg *> bySource(kernel.args.size(), nullptr);
  unsigned next = 0;
  for (const ArgSpec &spec : kernel.args) {
    if (spec.kind == ArgSpec::Kind::TensorMap)
      continue;
    const KernelArg &arg = args[next++];
    bySource[spec.index] = &arg;
    std::string at = "argument " + str(spec.index) + " (" + spec.type + ")";
    if (spec.kind == ArgSpec::Kind::MemRef) {
      if (!arg.isMemRef())
        problems.push_back(at + ": a memref is expected, a scalar was given");
      else
        checkMemRef(spec, arg.memrefValue(), problems);
    } else if (arg.isMemRef()) {
      problems.push_back(at + ": a scalar is expected, a memref was given");
    } else if (spec.scalarBits && spec.scalarBits != arg.scalarBits()) {
      problems.push_back(at + ": a " + str(spec.scalarBits) +
                         "-bit scalar is expected, a " +
                         str(arg.scalarBits()) + "-bit one was given");
    }
  }
  if (!problems.empty())
    return problemsError(kernel, problems);

  PreparedLaunch launch;
  for (const ArgSpec &spec : kernel.args) {
    if (spec.kind != ArgSpec::Kind::TensorMap)
      continue;
    const TensorMapSpec &map = kernel.tensorMaps[spec.map];
    const ArgSpec &global = kernel.args[map.globalArg];
    TensorMapToEncode encode{map.loweredParam,
                             completeMap(map, global,
                                         bySource[map.globalArg]->memrefValue())};
    for (const std::string &v : cuda::tensorMapViolations(encode.desc))
      problems.push_back("tensor map of argument " + str(map.globalArg) +
                         " (" + global.type + "): " + v);
    launch.tensorMaps.push_back(std::move(encode));
  }
  if (!problems.empty())
    return problemsError(kernel, problems);

  // Pack: every parameter at its natural alignment.
  for (const ParamSpec &p : kernel.params) {
    size_t offset = llvm::alignTo(launch.storage.size(), p.align);
    launch.storage.resize(offset + p.bytes, 0);
    launch.offsets.push_back(offset);
    const ArgSpec &spec = kernel.args[p.sourceArg];
    if (spec.kind == ArgSpec::Kind::TensorMap)
      continue; // encoded later
    const KernelArg &arg = *bySource[p.sourceArg];
    uint8_t *out = launch.storage.data() + offset;
    auto put = [&](uint64_t value) {
      std::memcpy(out, &value, std::min<size_t>(p.bytes, 8));
    };
    if (spec.kind == ArgSpec::Kind::Scalar) {
      std::memcpy(out, arg.scalarBytes(), std::min<size_t>(p.bytes, 8));
      continue;
    }
    const MemRefArg &m = arg.memrefValue();
    if (p.part == "allocated")
      put(m.allocated);
    else if (p.part == "aligned")
      put(m.aligned);
    else if (p.part == "offset")
      put(uint64_t(m.offset));
    else if (std::optional<unsigned> d = indexedPart(p.part, "size"))
      put(uint64_t(m.sizes[*d]));
    else if (std::optional<unsigned> d = indexedPart(p.part, "stride"))
      put(uint64_t(m.strides[*d]));
    else
      problems.push_back("parameter " + str(p.index) + ": unknown memref part '" +
                         p.part + "'");
  }
  if (!problems.empty())
    return problemsError(kernel, problems);
  return launch;
}

llvm::Error tile::runtime::unknownKernelError(const LaunchManifest &manifest,
                                             llvm::StringRef name) {
  std::string known;
  for (const KernelSpec *k : manifest.kernels())
    known += (known.empty() ? "" : ", ") + k->name;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "the manifest has no kernel '" + name.str() +
                                     "' (kernels: " +
                                     (known.empty() ? "none" : known) + ")");
}

Expected<const KernelSpec *>
tile::runtime::chooseVersion(const LaunchManifest &manifest,
                             llvm::StringRef name,
                             llvm::ArrayRef<KernelArg> args, std::string *why,
                             PreparedLaunch *preparedOut) {
  std::vector<const KernelSpec *> versions = manifest.versions(name);
  if (versions.empty())
    return unknownKernelError(manifest, name);
  std::string refusals;
  for (const KernelSpec *version : versions) {
    Expected<PreparedLaunch> prepared = prepareLaunch(*version, args);
    if (prepared) {
      if (why)
        *why += refusals + version->name + ": chosen\n";
      if (preparedOut)
        *preparedOut = std::move(*prepared);
      return version;
    }
    refusals += llvm::toString(prepared.takeError()) + "\n";
  }
  if (why)
    *why += refusals;
  if (versions.size() == 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::StringRef(refusals).rtrim().str());
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "no version of " + name.str() +
                                     " takes these arguments:\n" +
                                     llvm::StringRef(refusals).rtrim().str());
}

uint64_t tile::runtime::dynamicSharedBytesToLaunch(const KernelSpec &kernel,
                                                   const LaunchConfig &config) {
  return config.dynamicSharedBytes.value_or(kernel.dynamicSharedBytes);
}

Expected<std::array<unsigned, 3>>
tile::runtime::checkLaunchConfig(const KernelSpec &kernel,
                                 const LaunchConfig &config) {
  std::vector<std::string> problems;
  static const char *axes[] = {"x", "y", "z"};
  for (unsigned i = 0; i < 3; ++i) {
    if (config.grid[i] == 0)
      problems.push_back(std::string("grid ") + axes[i] + " is 0");
    else if (kernel.clusterDims && config.grid[i] % (*kernel.clusterDims)[i])
      problems.push_back(std::string("grid ") + axes[i] + " = " +
                         str(config.grid[i]) +
                         " is not a multiple of the cluster's " +
                         str((*kernel.clusterDims)[i]));
  }
  std::array<unsigned, 3> block = {0, 0, 0};
  if (kernel.blockDims && config.block && *config.block != *kernel.blockDims)
    problems.push_back("block (" + str((*config.block)[0]) + ", " +
                       str((*config.block)[1]) + ", " + str((*config.block)[2]) +
                       ") differs from the kernel's (" +
                       str((*kernel.blockDims)[0]) + ", " +
                       str((*kernel.blockDims)[1]) + ", " +
                       str((*kernel.blockDims)[2]) + ")");
  else if (kernel.blockDims)
    block = *kernel.blockDims;
  else if (config.block)
    block = *config.block;
  else
    problems.push_back("the manifest has no block dims; give them in the "
                       "launch config");
  if (config.dynamicSharedBytes &&
      *config.dynamicSharedBytes < kernel.dynamicSharedBytes)
    problems.push_back("dynamic shared memory " +
                       str(*config.dynamicSharedBytes) +
                       " bytes is below the kernel's " +
                       str(kernel.dynamicSharedBytes));
  if (!problems.empty())
    return problemsError(kernel, problems);
  return block;
}

//===- Chips.cpp - the chips and PTX versions tile-mlir knows -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Chips.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace tile;
using namespace tile::cuda;

namespace {

/// The newest PTX ISA version LLVM 22 emits.
constexpr PtxVersion kNewestPtx = 90;

/// Each chip number, the first PTX version of its plain, `a` and `f`
/// targets (0: no such target), as LLVM 22 and ptxas accept them for a
/// `.target` (each chip's introduction in the PTX ISA), and the shared
/// memory one block may use.
struct ChipNumber {
  unsigned sm;
  PtxVersion plain, a, f;
  /// cudaDevAttrMaxSharedMemoryPerBlockOptin: static + dynamic shared bytes
  /// of one block once the kernel opts in (CUDA C++ Programming Guide,
  /// "Technical Specifications per Compute Capability": 163 KB on 8.0,
  /// 227 KB on 9.0, 10.x and 11.0 (H100, H200, B200 report 232448), 99 KB
  /// on 8.6, 8.9 and 12.x).
  int64_t sharedBytesPerBlock;
};
constexpr int64_t KiB = 1024;
constexpr ChipNumber kChipNumbers[] = {
    {80, 70, 0, 0, 163 * KiB},    {86, 71, 0, 0, 99 * KiB},
    {89, 78, 0, 0, 99 * KiB},     {90, 78, 80, 0, 227 * KiB},
    {100, 86, 86, 88, 227 * KiB}, {101, 86, 86, 88, 227 * KiB},
    {103, 88, 88, 88, 227 * KiB}, {110, 90, 90, 90, 227 * KiB},
    {120, 87, 87, 88, 99 * KiB},  {121, 88, 88, 88, 99 * KiB}};

/// Every target of every chip number, in ascending order.
const std::vector<ChipInfo> &chipTable() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const ChipNumber &c : kChipNumbers)
      for (const char *suffix : {"", "a", "f"})
        out.push_back("sm_" + std::to_string(c.sm) + suffix);
    return out;
  }();
  static const std::vector<ChipInfo> chips = [] {
    std::vector<ChipInfo> out;
    size_t i = 0;
    for (const ChipNumber &c : kChipNumbers)
      for (auto [suffix, first] : {std::pair<char, PtxVersion>{0, c.plain},
                                   {'a', c.a},
                                   {'f', c.f}}) {
        llvm::StringRef name = names[i++];
        if (first)
          out.push_back({name, c.sm, suffix, {first, kNewestPtx},
                         c.sharedBytesPerBlock});
      }
    return out;
  }();
  return chips;
}

/// The chips with tensor memory (tcgen05): LLVM 22 and ptxas take the a
/// and f targets of sm_100, sm_101 (sm_110 from PTX 9.0), sm_103 and
/// sm_110, never sm_12x or a plain target; MLIR 22's NVVM tcgen05 ops
/// verify only on sm_100a and sm_101a, so those are the ones tile-mlir
/// emits for.
bool hasTcgen05(const ChipInfo &chip) {
  return chip.suffix == 'a' && (chip.sm == 100 || chip.sm == 101);
}

/// The .cta_group qualifier of cp.async.bulk.tensor: the a and f targets of
/// the tensor-memory chips (LLVM 22 and ptxas; MLIR does not restrict it).
bool hasCtaGroupCopies(const ChipInfo &chip) {
  return chip.suffix && (chip.sm == 100 || chip.sm == 101 || chip.sm == 103 ||
                         chip.sm == 110);
}

/// The PTX versions LLVM 22's NVPTX backend has (`llc -mattr=help`).
constexpr PtxVersion kKnownPtx[] = {32, 40, 41, 42, 43, 50, 60, 61, 62, 63,
                                    64, 65, 70, 71, 72, 73, 74, 75, 76, 77,
                                    78, 80, 81, 82, 83, 84, 85, 86, 87, 88,
                                    90};

} // namespace

bool tile::cuda::isKnownPtxVersion(PtxVersion version) {
  return llvm::is_contained(kKnownPtx, version);
}

std::string tile::cuda::ptxVersionName(PtxVersion version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

llvm::StringRef tile::cuda::familyName(InstructionFamily family) {
  switch (family) {
  case InstructionFamily::BulkTensorCopy: return "cp.async.bulk.tensor";
  case InstructionFamily::BulkTensorReduce: return "cp.reduce.async.bulk.tensor";
  case InstructionFamily::BulkTensorCopyCtaGroup:
    return "cp.async.bulk.tensor with .cta_group";
  case InstructionFamily::BulkTensorCopyToCta:
    return "cp.async.bulk.tensor into shared::cta";
  case InstructionFamily::AsyncBarrier:
    return "mbarrier expect-tx and fence.proxy.async";
  case InstructionFamily::MbarrierParityWait:
    return "mbarrier.try_wait.parity";
  case InstructionFamily::CpAsync:
    return "cp.async";
  case InstructionFamily::BulkCopyCluster:
    return "cp.async.bulk.shared::cluster and mapa";
  case InstructionFamily::Tcgen05: return "tcgen05";
  case InstructionFamily::Tcgen05MmaI8: return "tcgen05.mma kind::i8";
  case InstructionFamily::Tcgen05BlockScale: return "tcgen05.mma.block_scale";
  case InstructionFamily::Wgmma: return "wgmma";
  case InstructionFamily::TensorMapSwizzleAtom32B:
    return "tensor maps with the 128-byte swizzle of 32-byte atoms";
  }
  return "";
}

std::optional<PtxRange> ChipInfo::support(InstructionFamily family) const {
  // Bulk copies arrive with sm_90 at PTX 8.0 (LLVM selects mapa and the
  // reduction from 7.8, ptxas needs 8.0).
  PtxRange bulk{std::max<PtxVersion>(ptx.min, 80), ptx.max};
  // sm_101 is renamed sm_110 from PTX 9.0: LLVM 22 selects no tcgen05
  // instruction for sm_101 targets at 9.0.
  PtxRange tcgen05{ptx.min, sm == 101 ? 88 : ptx.max};
  auto when = [](bool has, PtxRange range) -> std::optional<PtxRange> {
    return has ? std::optional<PtxRange>(range) : std::nullopt;
  };
  switch (family) {
  case InstructionFamily::BulkTensorCopy:
  case InstructionFamily::BulkTensorReduce:
  case InstructionFamily::BulkCopyCluster:
  case InstructionFamily::AsyncBarrier:
    return when(sm >= 90, bulk);
  case InstructionFamily::BulkTensorCopyToCta:
    // The shared::cta destination arrived with PTX 8.6.
    return when(sm >= 90,
                PtxRange{std::max<PtxVersion>(ptx.min, 86), ptx.max});
  case InstructionFamily::MbarrierParityWait:
    return when(sm >= 90, ptx);
  case InstructionFamily::CpAsync:
    // cp.async and cp.async.mbarrier.arrive: sm_80, PTX 7.0.
    return when(sm >= 80, PtxRange{std::max<PtxVersion>(ptx.min, 70), ptx.max});
  case InstructionFamily::BulkTensorCopyCtaGroup:
    return when(hasCtaGroupCopies(*this), tcgen05);
  case InstructionFamily::Tcgen05:
    return when(hasTcgen05(*this), tcgen05);
  case InstructionFamily::Tcgen05MmaI8:
    // kind::i8 is an architecture-specific feature (sm_100a, sm_101a and
    // sm_110a in LLVM; not the f targets, not sm_103a).
    return when(hasTcgen05(*this), tcgen05);
  case InstructionFamily::Tcgen05BlockScale:
    // The .block16 / .block32 qualifiers need PTX 8.8 (LLVM selects them
    // from 8.8; ptxas refuses .block32 below it).
    return when(hasTcgen05(*this),
                PtxRange{std::max<PtxVersion>(tcgen05.min, 88), tcgen05.max});
  case InstructionFamily::Wgmma:
    return when(sm == 90 && suffix == 'a', ptx);
  case InstructionFamily::TensorMapSwizzleAtom32B:
    // A driver rule, seen on an H100 (cuTensorMapEncodeTiled returns
    // CUDA_ERROR_INVALID_VALUE there); the mode arrived with Blackwell.
    return when(sm >= 100, bulk);
  }
  return std::nullopt;
}

/// "sm_80, sm_86, ...": the known chips `keep` selects.
static std::string chipNames(llvm::function_ref<bool(const ChipInfo &)> keep) {
  std::string names;
  for (const ChipInfo &chip : chipTable())
    if (keep(chip))
      names += (names.empty() ? "" : ", ") + chip.name.str();
  return names;
}

std::string tile::cuda::knownChipNames() {
  return chipNames([](const ChipInfo &) { return true; });
}

std::string tile::cuda::chipsWith(InstructionFamily family) {
  return chipNames(
      [&](const ChipInfo &chip) { return chip.support(family).has_value(); });
}

int64_t tile::cuda::largestSharedBytesPerBlock() {
  int64_t largest = 0;
  for (const ChipNumber &c : kChipNumbers)
    largest = std::max(largest, c.sharedBytesPerBlock);
  return largest;
}

OrReason<ChipInfo> tile::cuda::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : chipTable())
    if (chip.name == name)
      return chip;
  return OrReason<ChipInfo>::failure("unknown chip '" + name.str() +
                                     "'; known chips: " + knownChipNames());
}

OrReason<std::optional<PtxVersion>>
tile::cuda::ptxVersionOfFeatures(llvm::StringRef features) {
  using R = OrReason<std::optional<PtxVersion>>;
  std::optional<PtxVersion> version;
  llvm::SmallVector<llvm::StringRef> parts;
  features.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    if (!part.contains("ptx"))
      continue;
    llvm::StringRef digits = part;
    unsigned number = 0;
    if (!digits.consume_front("+ptx") || digits.size() != 2 ||
        digits.getAsInteger(10, number) || !isKnownPtxVersion(number))
      return R::failure("'" + part.str() +
                        "' is not a PTX version feature LLVM knows (+ptx70 "
                        "... +ptx78, +ptx80 ... +ptx88, +ptx90)");
    if (version && *version != number)
      return R::failure("the features name two PTX versions, " +
                        ptxVersionName(*version) + " and " +
                        ptxVersionName(number));
    version = number;
  }
  return version;
}

//===- Chips.cpp - the chips and PTX versions tile-mlir knows -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Chips.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace tile;
using namespace tile::cuda;

namespace {

/// The newest PTX ISA version LLVM 22 emits.
constexpr PtxVersion kNewestPtx = 90;

/// Each chip number and the first PTX version of its plain, `a` and `f`
/// targets (0: no such target), as LLVM 22 and ptxas accept them for a
/// `.target` (each chip's introduction in the PTX ISA).
struct ChipNumber {
  unsigned sm;
  PtxVersion plain, a, f;
};
constexpr ChipNumber kChipNumbers[] = {
    {80, 70, 0, 0},    {86, 71, 0, 0},    {89, 78, 0, 0},    {90, 78, 80, 0},
    {100, 86, 86, 88}, {101, 86, 86, 88}, {103, 88, 88, 88}, {110, 90, 90, 90},
    {120, 87, 87, 88}, {121, 88, 88, 88}};

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
          out.push_back({name, c.sm, suffix, {first, kNewestPtx}});
      }
    return out;
  }();
  return chips;
}

/// The chips with tensor memory (tcgen05): the a and f targets of the
/// sm_100 family (sm_100, sm_101 (renamed sm_110 from PTX 9.0), sm_103,
/// sm_110). Not sm_12x, and not the plain targets.
bool hasTcgen05(const ChipInfo &chip) {
  return chip.suffix && (chip.sm == 100 || chip.sm == 101 || chip.sm == 103 ||
                         chip.sm == 110);
}

} // namespace

std::string tile::cuda::ptxVersionName(PtxVersion version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

llvm::StringRef tile::cuda::familyName(InstructionFamily family) {
  switch (family) {
  case InstructionFamily::BulkTensorCopy: return "cp.async.bulk.tensor";
  case InstructionFamily::BulkTensorReduce: return "cp.reduce.async.bulk.tensor";
  case InstructionFamily::BulkTensorCopyCtaGroup:
    return "cp.async.bulk.tensor with .cta_group";
  case InstructionFamily::BulkCopyCluster:
    return "cp.async.bulk.shared::cluster and mapa";
  case InstructionFamily::Tcgen05: return "tcgen05";
  case InstructionFamily::Tcgen05MmaI8: return "tcgen05.mma kind::i8";
  case InstructionFamily::Tcgen05BlockScale: return "tcgen05.mma.block_scale";
  case InstructionFamily::Wgmma: return "wgmma";
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
  switch (family) {
  case InstructionFamily::BulkTensorCopy:
  case InstructionFamily::BulkTensorReduce:
  case InstructionFamily::BulkCopyCluster:
    if (sm >= 90)
      return bulk;
    return std::nullopt;
  case InstructionFamily::BulkTensorCopyCtaGroup:
  case InstructionFamily::Tcgen05:
    if (hasTcgen05(*this))
      return tcgen05;
    return std::nullopt;
  case InstructionFamily::Tcgen05MmaI8:
    // kind::i8 is an architecture-specific feature of sm_100a and sm_101a
    // (sm_110a): not in the f targets, not on sm_103a.
    if (hasTcgen05(*this) && suffix == 'a' && sm != 103)
      return tcgen05;
    return std::nullopt;
  case InstructionFamily::Tcgen05BlockScale:
    // The .block16 / .block32 qualifiers need PTX 8.8 (LLVM selects them
    // from 8.8; ptxas refuses .block32 below it).
    if (hasTcgen05(*this))
      return PtxRange{std::max<PtxVersion>(tcgen05.min, 88), tcgen05.max};
    return std::nullopt;
  case InstructionFamily::Wgmma:
    if (sm == 90 && suffix == 'a')
      return ptx;
    return std::nullopt;
  }
  return std::nullopt;
}

llvm::ArrayRef<ChipInfo> tile::cuda::knownChips() { return chipTable(); }

std::string tile::cuda::knownChipNames() {
  std::string names;
  for (const ChipInfo &chip : chipTable())
    names += (names.empty() ? "" : ", ") + chip.name.str();
  return names;
}

std::string tile::cuda::chipsWith(InstructionFamily family) {
  std::string names;
  for (const ChipInfo &chip : chipTable())
    if (chip.support(family))
      names += (names.empty() ? "" : ", ") + chip.name.str();
  return names;
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
    llvm::StringRef digits = part.trim();
    if (!digits.consume_front("+ptx"))
      continue;
    unsigned number = 0;
    if (digits.getAsInteger(10, number) || number < 10 || number > 99)
      return R::failure("'" + part.trim().str() +
                        "' is not a PTX version feature (+ptx<major><minor>)");
    if (version && *version != number)
      return R::failure("the features name two PTX versions, " +
                        ptxVersionName(*version) + " and " +
                        ptxVersionName(number));
    version = number;
  }
  return version;
}

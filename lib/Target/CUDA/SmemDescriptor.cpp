//===- SmemDescriptor.cpp - tcgen05 shared-memory descriptors ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/SmemDescriptor.h"

#include "llvm/ADT/StringExtras.h"

using namespace tile::cuda;
using tile::OrReason;
using F = SmemDescriptorFields;

llvm::StringRef tile::cuda::smemSwizzleName(SmemSwizzle swizzle) {
  switch (swizzle) {
  case SmemSwizzle::None: return "none";
  case SmemSwizzle::B128Atom32B: return "128B_base32B";
  case SmemSwizzle::B128: return "128B";
  case SmemSwizzle::B64: return "64B";
  case SmemSwizzle::B32: return "32B";
  }
  return "?";
}

unsigned tile::cuda::smemSwizzleRowBytes(SmemSwizzle swizzle) {
  switch (swizzle) {
  case SmemSwizzle::None: return 16;
  case SmemSwizzle::B32: return 32;
  case SmemSwizzle::B64: return 64;
  case SmemSwizzle::B128:
  case SmemSwizzle::B128Atom32B: return 128;
  }
  return 0;
}

std::optional<SmemSwizzle> tile::cuda::smemSwizzleForBytes(unsigned bytes) {
  switch (bytes) {
  case 0: return SmemSwizzle::None;
  case 32: return SmemSwizzle::B32;
  case 64: return SmemSwizzle::B64;
  case 128: return SmemSwizzle::B128;
  default: return std::nullopt;
  }
}

namespace {
/// A byte offset the descriptor stores `>> 4` in a 14-bit field.
void checkOffset(std::vector<std::string> &out, const char *name,
                 uint64_t bytes) {
  if (bytes % 16)
    out.push_back(std::string(name) + " = " + std::to_string(bytes) +
                  " bytes is not a multiple of 16");
  else if (!F::LeadingByteOffset::fits(bytes >> 4))
    out.push_back(std::string(name) + " = " + std::to_string(bytes) +
                  " bytes does not fit 14 bits of 16-byte units (< 262144)");
}
} // namespace

std::vector<std::string>
SmemDescriptor::problems(DescriptorFlavour flavour) const {
  std::vector<std::string> out;
  if (startAddress % 16)
    out.push_back("start address " + std::to_string(startAddress) +
                  " is not 16-byte aligned");
  checkOffset(out, "LBO", leadingByteOffset);
  checkOffset(out, "SBO", strideByteOffset);
  if (!F::BaseOffset::fits(baseOffset))
    out.push_back("base offset " + std::to_string(baseOffset) +
                  " is not a row phase in 0..7");
  switch (swizzle) {
  case SmemSwizzle::None: case SmemSwizzle::B128Atom32B:
  case SmemSwizzle::B128: case SmemSwizzle::B64: case SmemSwizzle::B32:
    break;
  default:
    out.push_back("swizzle value " + std::to_string(unsigned(swizzle)) +
                  " is reserved");
  }
  if (flavour == DescriptorFlavour::Wgmma) {
    if (swizzle == SmemSwizzle::B128Atom32B)
      out.push_back("swizzle 128B_base32B is tcgen05-only; a wgmma "
                    "descriptor has none, 128B, 64B or 32B");
    if (lboAbsolute)
      out.push_back("LBO mode (bit 52) is tcgen05-only; it is reserved in a "
                    "wgmma descriptor");
  }
  return out;
}

std::optional<uint64_t> SmemDescriptor::encode(DescriptorFlavour flavour) const {
  if (!problems(flavour).empty())
    return std::nullopt;
  uint64_t w = 0;
  w = F::StartAddress::insert(w, smemStartAddressField(startAddress));
  w = F::LeadingByteOffset::insert(w, leadingByteOffset >> 4);
  w = F::StrideByteOffset::insert(w, strideByteOffset >> 4);
  if (flavour == DescriptorFlavour::Tcgen05)
    w = F::FixedVersion::insert(w, F::tcgen05Version);
  w = F::BaseOffset::insert(w, baseOffset);
  w = F::LboMode::insert(w, lboAbsolute ? 1 : 0);
  w = F::Swizzle::insert(w, static_cast<uint64_t>(swizzle));
  return w;
}

OrReason<SmemDescriptor> SmemDescriptor::decode(uint64_t word,
                                                DescriptorFlavour flavour) {
  tile::Reasons reasons;
  uint64_t fixed = F::FixedVersion::extract(word);
  uint64_t swz = F::Swizzle::extract(word);
  if (flavour == DescriptorFlavour::Tcgen05) {
    if (fixed != F::tcgen05Version)
      reasons.add("bits 46-48 are " + std::to_string(fixed) +
                  ", a tcgen05 descriptor has 0b001 there");
    if (swz == 3 || swz == 5 || swz == 7)
      reasons.add("swizzle value " + std::to_string(swz) + " is reserved");
  } else {
    if (fixed)
      reasons.add("bits 46-48 are " + std::to_string(fixed) +
                  ", reserved (0) in a wgmma descriptor (a tcgen05 descriptor "
                  "has 0b001 there)");
    if (F::LboMode::extract(word))
      reasons.add(
          "bit 52 (tcgen05's LBO mode) is reserved in a wgmma descriptor");
    if (swz & 1)
      reasons.add("bit 61 is reserved in a wgmma descriptor (its swizzle is "
                  "the 2-bit field at 62-63)");
  }
  if (word & F::reservedMask)
    reasons.add("reserved bits are set (mask 0x" +
                llvm::utohexstr(word & F::reservedMask) + ")");
  if (!reasons.empty())
    return OrReason<SmemDescriptor>::failure(reasons.str());
  SmemDescriptor d;
  d.startAddress = static_cast<uint32_t>(F::StartAddress::extract(word)
                                         << kSmemStartAddressShift);
  d.leadingByteOffset =
      static_cast<uint32_t>(F::LeadingByteOffset::extract(word) << 4);
  d.strideByteOffset =
      static_cast<uint32_t>(F::StrideByteOffset::extract(word) << 4);
  d.baseOffset = static_cast<uint8_t>(F::BaseOffset::extract(word));
  d.lboAbsolute = F::LboMode::extract(word) != 0;
  d.swizzle = static_cast<SmemSwizzle>(swz);
  return d;
}


//===- SharedMemoryModel.cpp - which shared bytes an operand reads --------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// TensorMap.h is included for TensorMapDesc as plain data only; the rules
// that judge a map are this file's own reading of the driver's.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Model/SharedMemoryModel.h"

using namespace tile::cuda;
using namespace tile::cuda::model;

using tile::OrReason;

//===----------------------------------------------------------------------===//
// Shared operands
//===----------------------------------------------------------------------===//

namespace {
using OperandOr = OrReason<SharedOperandModel>;

/// PTX Table 54 (and CUTLASS's smem selector and make_umma_desc): which
/// swizzles a major-ness and element size may use.
std::optional<std::string> comboProblem(Family family, OperandMajor major,
                                        unsigned bits, Swizzle swizzle) {
  bool atom = swizzle == Swizzle::B128Atom32B;
  if (major == OperandMajor::K)
    return atom ? std::optional<std::string>(
                      "128B swizzle with 32B atoms is for MN-major operands "
                      "only (CUTLASS make_umma_desc)")
                : std::nullopt;
  if (bits == 4)
    return "MN-major packed 4-bit operands are not defined (Table 54)";
  if (family == Family::Wgmma && bits != 16)
    return "wgmma reads MN-major (transposed) operands of 16-bit types only";
  if (bits == 32 && !atom)
    return "32-bit MN-major operands take only the 128B swizzle with 32B "
           "atoms (Table 54), not swizzle " + nameOf(swizzle).str();
  if (bits != 32 && atom)
    return "the 128B swizzle with 32B atoms is for 32-bit MN-major operands "
           "only (Table 54)";
  return std::nullopt;
}

/// The descriptor fields the model does not define.
std::optional<std::string> fieldProblem(const SharedDescriptorFields &d) {
  if (d.lboAbsolute)
    return "LBO mode 1 (absolute address) is not modelled";
  if (d.baseOffset)
    return "base offset " + std::to_string(d.baseOffset) +
           " is not modelled (operands start in their swizzle pattern's "
           "first row)";
  int64_t w = swizzleRowBytes(d.swizzle), p = swizzlePatternBytes(d.swizzle);
  int64_t phase = (d.start % p) / w;
  if (d.swizzle != Swizzle::None && phase)
    return "start address " + std::to_string(d.start) + " is in row " +
           std::to_string(phase) + " of its " + std::to_string(p) +
           "-byte swizzle pattern with base offset 0; the model defines "
           "swizzled operands starting in the pattern's first row";
  return std::nullopt;
}
} // namespace

OperandOr SharedOperandModel::create(uint64_t word, Family family,
                                     OperandMajor major, unsigned bits) {
  if (bits != 4 && bits != 8 && bits != 16 && bits != 32)
    return OperandOr::failure(std::to_string(bits) +
                              "-bit elements: the canonical layouts are "
                              "defined for 4, 8, 16 and 32 bits");
  OrReason<SharedDescriptorFields> d = readSharedDescriptor(word, family);
  if (!d)
    return OperandOr::failure("descriptor: " + d.reason());
  if (std::optional<std::string> p = fieldProblem(*d))
    return OperandOr::failure(*p);
  if (std::optional<std::string> p = comboProblem(family, major, bits,
                                                  d->swizzle))
    return OperandOr::failure(*p);
  SharedOperandModel m;
  m.desc = *d;
  m.majorness = major;
  m.bits = bits;
  return m;
}

int64_t SharedOperandModel::canonicalOffset(int64_t row, int64_t k) const {
  const int64_t lbo = desc.lbo, sbo = desc.sbo;
  const int64_t perChunk = 128 / bits;
  auto bytesOf = [&](int64_t elements) { return elements * bits / 8; };
  if (desc.swizzle == Swizzle::None) {
    if (majorness == OperandMajor::K)
      return (row / 8) * sbo + (row % 8) * 16 + (k / perChunk) * lbo +
             bytesOf(k % perChunk);
    return (row / perChunk) * sbo + bytesOf(row % perChunk) + (k / 8) * lbo +
           (k % 8) * 16;
  }
  const int64_t w = swizzleRowBytes(desc.swizzle);
  if (majorness == OperandMajor::K)
    return (row / 8) * sbo + (row % 8) * w + bytesOf(k);
  const int64_t perRow = w * 8 / bits, rows = swizzlePatternRows(desc.swizzle);
  return (row / perRow) * lbo + bytesOf(row % perRow) + (k / rows) * sbo +
         (k % rows) * w;
}

ElementAddress SharedOperandModel::address(int64_t row, int64_t k) const {
  ElementAddress a;
  a.byte = swizzleAddress(desc.start + canonicalOffset(row, k), desc.swizzle);
  // The bit of a packed 4-bit element inside its byte.
  if (bits == 4)
    a.bit = majorness == OperandMajor::K ? (k % 2) * 4 : (row % 2) * 4;
  return a;
}

DescriptorUse SharedOperandModel::fieldsRead(int64_t rows, int64_t k) const {
  // A field is read when the access crosses the group it strides over.
  const int64_t perChunk = 128 / bits;
  DescriptorUse u;
  if (desc.swizzle == Swizzle::None) {
    bool kMajor = majorness == OperandMajor::K;
    u.sbo = kMajor ? rows > 8 : rows > perChunk;
    u.lbo = kMajor ? k > perChunk : k > 8;
    return u;
  }
  if (majorness == OperandMajor::K) {
    u.sbo = rows > 8;
    return u;
  }
  u.lbo = rows > swizzleRowBytes(desc.swizzle) * 8 / bits;
  u.sbo = k > swizzlePatternRows(desc.swizzle);
  return u;
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

namespace {
/// Bytes per element of a CUtensorMapDataType (0: packed sub-byte).
int64_t bytesOf(TensorMapDataType t) {
  switch (t) {
  case TensorMapDataType::UInt8: return 1;
  case TensorMapDataType::UInt16: case TensorMapDataType::Float16:
  case TensorMapDataType::BFloat16: return 2;
  case TensorMapDataType::UInt64: case TensorMapDataType::Int64:
  case TensorMapDataType::Float64: return 8;
  case TensorMapDataType::Packed16U4Align8B:
  case TensorMapDataType::Packed16U4Align16B:
  case TensorMapDataType::Packed16U6Align16B: return 0;
  default: return 4;
  }
}

/// The shared swizzle a map's swizzle mode applies (cuda.h: 16-byte chunks
/// within 32/64/128-byte spans; 32-byte chunks within 128 for ATOM_32B).
std::optional<Swizzle> swizzleOf(TensorMapSwizzle s) {
  switch (s) {
  case TensorMapSwizzle::None: return Swizzle::None;
  case TensorMapSwizzle::B32: return Swizzle::B32;
  case TensorMapSwizzle::B64: return Swizzle::B64;
  case TensorMapSwizzle::B128: return Swizzle::B128;
  case TensorMapSwizzle::B128Atom32B: return Swizzle::B128Atom32B;
  default: return std::nullopt;
  }
}

void boxRules(const TensorMapDesc &m, std::vector<std::string> &out) {
  const int64_t e = bytesOf(m.dataType);
  for (unsigned i = 0; i < m.rank; ++i) {
    if (m.boxDims[i] == 0 || m.boxDims[i] > 256)
      out.push_back("boxDim[" + std::to_string(i) + "] is outside 1..256");
    if (m.elementStrides[i] == 0 || m.elementStrides[i] > 8)
      out.push_back("elementStrides[" + std::to_string(i) +
                    "] is outside 1..8");
  }
  const int64_t inner = int64_t(m.boxDims[0]) * e;
  if (m.interleave == TensorMapInterleave::None && e && inner % 16)
    out.push_back("the inner box row (" + std::to_string(inner) +
                  " bytes) is not a multiple of 16 bytes");
  std::optional<Swizzle> s = swizzleOf(m.swizzle);
  if (m.interleave == TensorMapInterleave::None && s && *s != Swizzle::None &&
      inner > swizzleRowBytes(*s))
    out.push_back("the inner box row (" + std::to_string(inner) +
                  " bytes) exceeds the " + nameOf(*s).str() +
                  " swizzle's span");
}

void globalRules(const TensorMapDesc &m, std::vector<std::string> &out) {
  if (m.globalAddress && *m.globalAddress % 16)
    out.push_back("the global address is not 16-byte aligned");
  for (unsigned i = 0; i < m.rank; ++i)
    if (m.globalDims[i] && (*m.globalDims[i] == 0 ||
                            *m.globalDims[i] > (uint64_t(1) << 32)))
      out.push_back("globalDim[" + std::to_string(i) + "] is outside 1..2^32");
  for (unsigned i = 0; i + 1 < m.rank; ++i)
    if (m.globalStrides[i] && (*m.globalStrides[i] % 16 ||
                               *m.globalStrides[i] >= (uint64_t(1) << 40)))
      out.push_back("globalStrides[" + std::to_string(i) +
                    "] is not a multiple of 16 below 2^40");
}
} // namespace

std::vector<std::string> model::tensorMapRulesBroken(const TensorMapDesc &m) {
  std::vector<std::string> out;
  if (m.rank < 1 || m.rank > 5 || m.globalDims.size() != m.rank ||
      m.globalStrides.size() + 1 != m.rank || m.boxDims.size() != m.rank ||
      m.elementStrides.size() != m.rank) {
    out.push_back("rank " + std::to_string(m.rank) +
                  " and the argument arrays do not agree (rank 1..5)");
    return out;
  }
  boxRules(m, out);
  globalRules(m, out);
  return out;
}

namespace {
/// Why the model does not define `map`'s box, if it does not.
std::optional<std::string> boxProblem(const TensorMapDesc &map,
                                      llvm::ArrayRef<int64_t> coords,
                                      int64_t sharedAddress) {
  std::vector<std::string> broken = tensorMapRulesBroken(map);
  if (!broken.empty())
    return "the map breaks a driver rule: " + broken.front();
  if (coords.size() != map.rank)
    return std::to_string(coords.size()) + " coordinates for a rank-" +
           std::to_string(map.rank) + " map";
  for (unsigned i = 0; i < map.rank; ++i)
    if (!map.globalDims[i] || (i && !map.globalStrides[i - 1]))
      return "global dim or stride " + std::to_string(i) +
             " is unknown; the model needs every value";
  if (map.interleave != TensorMapInterleave::None)
    return std::string("interleaved maps are not modelled");
  for (uint32_t s : map.elementStrides)
    if (s != 1)
      return std::string("element strides other than 1 are not modelled");
  const int64_t e = bytesOf(map.dataType);
  if (!e)
    return std::string("packed sub-byte data types are not modelled");
  std::optional<Swizzle> swizzle = swizzleOf(map.swizzle);
  if (!swizzle)
    return "swizzle mode " + std::to_string(unsigned(map.swizzle)) +
           " is not modelled";
  const int64_t rowBytes = int64_t(map.boxDims[0]) * e;
  if (*swizzle != Swizzle::None && rowBytes != swizzleRowBytes(*swizzle))
    return "a " + std::to_string(rowBytes) + "-byte box row under the " +
           nameOf(*swizzle).str() +
           " swizzle: the model defines box rows of exactly the swizzle span";
  if (sharedAddress % 128)
    return "shared address " + std::to_string(sharedAddress) +
           " is not 128-byte aligned";
  return std::nullopt;
}
} // namespace

OrReason<std::vector<BoxElement>>
model::tensorMapBox(const TensorMapDesc &map, llvm::ArrayRef<int64_t> coords,
                    int64_t sharedAddress) {
  using R = OrReason<std::vector<BoxElement>>;
  if (std::optional<std::string> p = boxProblem(map, coords, sharedAddress))
    return R::failure(*p);
  const int64_t e = bytesOf(map.dataType);
  const Swizzle swizzle = *swizzleOf(map.swizzle);
  std::vector<BoxElement> out;
  int64_t count = 1;
  for (uint32_t b : map.boxDims)
    count *= b;
  out.reserve(count);
  llvm::SmallVector<int64_t, 5> idx(map.rank, 0);
  for (int64_t n = 0; n < count; ++n) {
    BoxElement el;
    int64_t dense = 0, pitch = e;
    for (unsigned i = 0; i < map.rank; ++i) {
      int64_t c = coords[i] + idx[i];
      el.coords.push_back(c);
      if (c < 0 || c >= int64_t(*map.globalDims[i]))
        el.inBounds = false;
      el.globalByte += c * (i ? int64_t(*map.globalStrides[i - 1]) : e);
      dense += idx[i] * pitch;
      pitch *= map.boxDims[i];
    }
    el.sharedByte = swizzleAddress(sharedAddress + dense, swizzle);
    out.push_back(std::move(el));
    for (unsigned i = 0; i < map.rank; ++i) {
      if (++idx[i] < int64_t(map.boxDims[i]))
        break;
      idx[i] = 0;
    }
  }
  return out;
}

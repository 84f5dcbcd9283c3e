//===- TensorMap.cpp - CUtensorMap rules ------------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The rules are those of cuTensorMapEncodeTiled in CUDA 13.0's cuda.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/TensorMap.h"

#include "tile/Support/EnumTable.h"

#include <iterator>

using namespace tile::cuda;

namespace {

/// CUtensorMapDataType: the driver's name, bytes per element (0 for the
/// packed sub-byte types), floating point.
struct DataTypeRow {
  llvm::StringLiteral name;
  unsigned bytes;
  bool floating;
};
constexpr DataTypeRow kDataTypes[] = {
    {"UINT8", 1, false},         {"UINT16", 2, false},
    {"UINT32", 4, false},        {"INT32", 4, false},
    {"UINT64", 8, false},        {"INT64", 8, false},
    {"FLOAT16", 2, true},        {"FLOAT32", 4, true},
    {"FLOAT64", 8, true},        {"BFLOAT16", 2, true},
    {"FLOAT32_FTZ", 4, true},    {"TFLOAT32", 4, true},
    {"TFLOAT32_FTZ", 4, true},   {"16U4_ALIGN8B", 0, false},
    {"16U4_ALIGN16B", 0, false}, {"16U6_ALIGN16B", 0, false}};
static_assert(tile::hasRowPerEnumerator(kDataTypes,
                                        TensorMapDataType::Packed16U6Align16B));

constexpr llvm::StringLiteral kSwizzleNames[] = {
    "SWIZZLE_NONE",          "SWIZZLE_32B",
    "SWIZZLE_64B",           "SWIZZLE_128B",
    "SWIZZLE_128B_ATOM_32B", "SWIZZLE_128B_ATOM_32B_FLIP_8B",
    "SWIZZLE_128B_ATOM_64B"};
static_assert(tile::hasRowPerEnumerator(kSwizzleNames,
                                        TensorMapSwizzle::B128Atom64B));

} // namespace

llvm::StringRef tile::cuda::dataTypeName(TensorMapDataType type) {
  const DataTypeRow *row = tile::rowOf(kDataTypes, type);
  return row ? llvm::StringRef(row->name) : "?";
}

std::optional<TensorMapDataType>
tile::cuda::dataTypeFromName(llvm::StringRef name) {
  for (unsigned i = 0; i < std::size(kDataTypes); ++i)
    if (kDataTypes[i].name == name)
      return TensorMapDataType(i);
  return std::nullopt;
}

llvm::StringRef tile::cuda::swizzleName(TensorMapSwizzle swizzle) {
  const llvm::StringLiteral *name = tile::rowOf(kSwizzleNames, swizzle);
  return name ? llvm::StringRef(*name) : "?";
}

unsigned tile::cuda::elementBytes(TensorMapDataType type) {
  const DataTypeRow *row = tile::rowOf(kDataTypes, type);
  return row ? row->bytes : 0;
}

bool tile::cuda::isFloatingPoint(TensorMapDataType type) {
  const DataTypeRow *row = tile::rowOf(kDataTypes, type);
  return row && row->floating;
}

unsigned tile::cuda::swizzleSpanBytes(TensorMapSwizzle swizzle) {
  switch (swizzle) {
  case TensorMapSwizzle::None: return 0;
  case TensorMapSwizzle::B32: return 32;
  case TensorMapSwizzle::B64: return 64;
  default: return 128;
  }
}

unsigned tile::cuda::globalAlignmentBytes(TensorMapDataType type,
                                          TensorMapInterleave interleave) {
  bool packed16B = type == TensorMapDataType::Packed16U4Align16B ||
                   type == TensorMapDataType::Packed16U6Align16B;
  return interleave == TensorMapInterleave::B32 || packed16B ? 32 : 16;
}

std::vector<std::string> tile::cuda::tensorMapViolations(const TensorMapDesc &d) {
  std::vector<std::string> out;
  auto add = [&](std::string message) { out.push_back(std::move(message)); };
  auto str = [](uint64_t v) { return std::to_string(v); };
  bool packed16B = d.dataType == TensorMapDataType::Packed16U4Align16B ||
                   d.dataType == TensorMapDataType::Packed16U6Align16B;
  bool interleaved = d.interleave != TensorMapInterleave::None;

  if (d.rank < 1 || d.rank > kMaxTensorMapRank)
    add("tensorRank " + str(d.rank) + " is not in [1, 5]");
  else if (interleaved && d.rank < 3)
    add("tensorRank " + str(d.rank) + " is below 3, the least an "
        "interleaved layout needs");
  if (d.globalDims.size() != d.rank || d.boxDims.size() != d.rank ||
      d.elementStrides.size() != d.rank ||
      d.globalStrides.size() + 1 != std::max(d.rank, 1u)) {
    add("globalDim, boxDim and elementStrides need tensorRank (" +
        str(d.rank) + ") entries and globalStrides tensorRank - 1; got " +
        str(d.globalDims.size()) + ", " + str(d.boxDims.size()) + ", " +
        str(d.elementStrides.size()) + " and " + str(d.globalStrides.size()));
    return out;
  }

  if (d.globalAddress) {
    unsigned need = globalAlignmentBytes(d.dataType, d.interleave);
    if (*d.globalAddress % need != 0)
      add("globalAddress " + str(*d.globalAddress) + " is not " + str(need) +
          "-byte aligned");
  }

  for (unsigned i = 0; i < d.rank; ++i) {
    if (std::optional<uint64_t> dim = d.globalDims[i]) {
      if (*dim < 1 || *dim > kMaxGlobalDim)
        add("globalDim[" + str(i) + "] = " + str(*dim) +
            " is not in [1, 2^32]");
      else if (i == 0 && packed16B && *dim % 128 != 0)
        add("globalDim[0] = " + str(*dim) + " is not a multiple of 128, as " +
            dataTypeName(d.dataType).str() + " requires");
      else if (i == 0 && d.dataType == TensorMapDataType::Packed16U4Align8B &&
               *dim % 2 != 0)
        add("globalDim[0] = " + str(*dim) +
            " is not a multiple of 2, as 16U4_ALIGN8B requires");
    }
  }
  unsigned strideMultiple = globalAlignmentBytes(d.dataType, d.interleave);
  for (unsigned i = 0; i + 1 < d.rank; ++i) {
    std::optional<uint64_t> stride = d.globalStrides[i];
    if (!stride)
      continue;
    if (*stride % strideMultiple != 0)
      add("globalStrides[" + str(i) + "] = " + str(*stride) +
          " bytes is not a multiple of " + str(strideMultiple));
    if (*stride >= kGlobalStrideLimit)
      add("globalStrides[" + str(i) + "] = " + str(*stride) +
          " bytes is not below 2^40");
  }

  unsigned bytes = elementBytes(d.dataType);
  for (unsigned i = 0; i < d.rank; ++i) {
    if (d.boxDims[i] < 1 || d.boxDims[i] > kMaxBoxDim)
      add("boxDim[" + str(i) + "] = " + str(d.boxDims[i]) +
          " is not in [1, 256]");
    if (d.elementStrides[i] < 1 || d.elementStrides[i] > kMaxElementStride)
      add("elementStrides[" + str(i) + "] = " + str(d.elementStrides[i]) +
          " is not in [1, 8]");
  }
  if (packed16B && d.boxDims[0] != 128)
    add("boxDim[0] = " + str(d.boxDims[0]) + " must be 128 for " +
        dataTypeName(d.dataType).str());
  if (!interleaved && bytes != 0) {
    uint64_t innerBytes = uint64_t(d.boxDims[0]) * bytes;
    if (innerBytes % 16 != 0)
      add("boxDim[0] * elementSize = " + str(innerBytes) +
          " bytes is not a multiple of 16");
    if (unsigned span = swizzleSpanBytes(d.swizzle); span && innerBytes > span)
      add("boxDim[0] * elementSize = " + str(innerBytes) +
          " bytes exceeds the " + str(span) + "-byte span of " +
          swizzleName(d.swizzle).str());
  }
  if (d.interleave == TensorMapInterleave::B32 &&
      d.swizzle != TensorMapSwizzle::B32)
    add("INTERLEAVE_32B needs SWIZZLE_32B, got " + swizzleName(d.swizzle).str());
  if (d.dataType == TensorMapDataType::Packed16U6Align16B && interleaved)
    add("16U6_ALIGN16B needs INTERLEAVE_NONE");
  if (d.oobFill == TensorMapOobFill::NanRequestZeroFma &&
      !isFloatingPoint(d.dataType))
    add("oobFill NAN_REQUEST_ZERO_FMA needs a floating-point data type, got " +
        dataTypeName(d.dataType).str());
  return out;
}

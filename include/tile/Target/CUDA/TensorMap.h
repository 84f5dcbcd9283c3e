//===- TensorMap.h - CUtensorMap descriptions and their rules ---*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The arguments of cuTensorMapEncodeTiled as plain data, and every rule the
// CUDA 13.0 driver documents for them (cuda.h). The compiler checks the
// values it knows; the host runtime checks the completed description again
// before calling the driver. Every violation is reported, not the first.
// No MLIR and no cuda.h: enum values equal the driver's.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_TENSORMAP_H
#define TILE_TARGET_CUDA_TENSORMAP_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tile::cuda {

/// CUtensorMapDataType.
enum class TensorMapDataType : uint8_t {
  UInt8 = 0, UInt16, UInt32, Int32, UInt64, Int64, Float16, Float32, Float64,
  BFloat16, Float32Ftz, TFloat32, TFloat32Ftz, Packed16U4Align8B,
  Packed16U4Align16B, Packed16U6Align16B
};
/// CUtensorMapInterleave.
enum class TensorMapInterleave : uint8_t { None = 0, B16, B32 };
/// CUtensorMapSwizzle.
enum class TensorMapSwizzle : uint8_t {
  None = 0, B32, B64, B128, B128Atom32B, B128Atom32BFlip8B, B128Atom64B
};
/// CUtensorMapL2promotion.
enum class TensorMapL2Promotion : uint8_t { None = 0, B64, B128, B256 };
/// CUtensorMapFloatOOBfill: out-of-bounds elements read as zero (None) or as
/// a NaN that makes FMAs return zero.
enum class TensorMapOobFill : uint8_t { None = 0, NanRequestZeroFma };

llvm::StringRef dataTypeName(TensorMapDataType type);
/// The data type named `name` ("FLOAT16", ...), or nullopt.
std::optional<TensorMapDataType> dataTypeFromName(llvm::StringRef name);
llvm::StringRef swizzleName(TensorMapSwizzle swizzle);
/// Bytes per element; 0 for the packed sub-byte types.
unsigned elementBytes(TensorMapDataType type);
bool isFloatingPoint(TensorMapDataType type);
/// Bytes a swizzle pattern spans per row (0 for None).
unsigned swizzleSpanBytes(TensorMapSwizzle swizzle);
/// Bytes the global address and every global stride must be a multiple of:
/// 32 for INTERLEAVE_32B and the 16-byte-aligned packed types, else 16.
unsigned globalAlignmentBytes(TensorMapDataType type,
                              TensorMapInterleave interleave);

constexpr unsigned kMaxTensorMapRank = 5;
constexpr uint32_t kMaxBoxDim = 256;
constexpr uint32_t kMaxElementStride = 8;
constexpr uint64_t kMaxGlobalDim = uint64_t(1) << 32;
constexpr uint64_t kGlobalStrideLimit = uint64_t(1) << 40;

/// cuTensorMapEncodeTiled's arguments. Values the compiler does not know
/// (runtime sizes, the address) are nullopt and not checked.
struct TensorMapDesc {
  TensorMapDataType dataType = TensorMapDataType::UInt8;
  unsigned rank = 0;
  std::optional<uint64_t> globalAddress;
  /// Innermost first; `rank` entries.
  llvm::SmallVector<std::optional<uint64_t>, 5> globalDims;
  /// Bytes between consecutive indices of dims 1..rank-1 (`rank - 1`
  /// entries); dim 0 is contiguous.
  llvm::SmallVector<std::optional<uint64_t>, 4> globalStrides;
  llvm::SmallVector<uint32_t, 5> boxDims;
  llvm::SmallVector<uint32_t, 5> elementStrides;
  TensorMapInterleave interleave = TensorMapInterleave::None;
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
  TensorMapL2Promotion l2Promotion = TensorMapL2Promotion::None;
  TensorMapOobFill oobFill = TensorMapOobFill::None;
};

/// Every documented rule the known values of `desc` break, one message per
/// violation naming the rule (e.g. "globalStrides[0] = 24 bytes is not a
/// multiple of 16"). Empty when nothing known is wrong.
std::vector<std::string> tensorMapViolations(const TensorMapDesc &desc);

} // namespace tile::cuda

#endif // TILE_TARGET_CUDA_TENSORMAP_H

//===- SharedMemoryModel.cpp - which shared bytes an operand reads --------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Model/SharedMemoryModel.h"

using namespace tile::cuda;
using namespace tile::cuda::model;

using tile::OrReason;

std::optional<int64_t> model::swizzleAddress(int64_t address,
                                             SmemSwizzle swizzle) {
  // The 16-byte chunk index (bits 4..) XOR the pattern row (bits 7..).
  switch (swizzle) {
  case SmemSwizzle::None: return address;
  case SmemSwizzle::B32: return address ^ ((address >> 3) & 0x10);
  case SmemSwizzle::B64: return address ^ ((address >> 3) & 0x30);
  case SmemSwizzle::B128: return address ^ ((address >> 3) & 0x70);
  case SmemSwizzle::B128Atom32B: return std::nullopt;
  }
  return std::nullopt;
}

int64_t model::swizzlePatternBytes(SmemSwizzle swizzle) {
  return swizzle == SmemSwizzle::None ? 16 : 8 * smemSwizzleRowBytes(swizzle);
}

//===----------------------------------------------------------------------===//
// Shared operands
//===----------------------------------------------------------------------===//

OrReason<SharedOperandModel>
SharedOperandModel::create(const SmemDescriptor &descriptor, OperandMajor major,
                           unsigned elementBits) {
  using R = OrReason<SharedOperandModel>;
  if (elementBits != 4 && elementBits != 8 && elementBits != 16 &&
      elementBits != 32)
    return R::failure(std::to_string(elementBits) +
                      "-bit elements: the canonical "
                      "layouts are defined for 4, 8, 16 and 32 bits");
  if (descriptor.swizzle == SmemSwizzle::B128Atom32B)
    return R::failure("swizzle 128B_base32B is not modelled");
  if (descriptor.lboAbsolute)
    return R::failure("LBO mode 1 (absolute) is not modelled");
  if (descriptor.baseOffset)
    return R::failure("base offset " + std::to_string(descriptor.baseOffset) +
                      " is not modelled (operands start in their "
                      "swizzle pattern's first row)");
  if (descriptor.swizzle != SmemSwizzle::None) {
    int64_t w = smemSwizzleRowBytes(descriptor.swizzle);
    int64_t phase = (descriptor.startAddress % (8 * w)) / w;
    if (phase)
      return R::failure("start address " + std::to_string(descriptor.startAddress) +
                        " is in row " + std::to_string(phase) + " of its " + std::to_string(8 * w) +
                        "-byte swizzle pattern with base offset 0; "
                        "the model defines swizzled operands "
                        "starting in the pattern's first row");
  }
  if (major == OperandMajor::MN && elementBits == 4)
    return R::failure("MN-major packed 4-bit operands are not modelled "
                      "(the MMA kinds read packed fp4 K-major)");
  SharedOperandModel m;
  m.desc = descriptor;
  m.majorness = major;
  m.bits = elementBits;
  return m;
}

int64_t SharedOperandModel::canonicalOffset(int64_t row, int64_t k) const {
  const int64_t lbo = desc.leadingByteOffset, sbo = desc.strideByteOffset;
  // Offsets in bits inside a 16-byte row keep 4-bit elements exact.
  const int64_t perChunk = 128 / bits;
  auto bytesOf = [&](int64_t elements) { return elements * bits / 8; };
  if (desc.swizzle == SmemSwizzle::None) {
    if (majorness == OperandMajor::K)
      return (row / 8) * sbo + (row % 8) * 16 + (k / perChunk) * lbo +
             bytesOf(k % perChunk);
    return (row / perChunk) * sbo + bytesOf(row % perChunk) + (k / 8) * lbo +
           (k % 8) * 16;
  }
  const int64_t w = smemSwizzleRowBytes(desc.swizzle);
  if (majorness == OperandMajor::K)
    return (row / 8) * sbo + (row % 8) * w + bytesOf(k);
  const int64_t perRow = w * 8 / bits;
  return (row / perRow) * lbo + bytesOf(row % perRow) + (k / 8) * sbo +
         (k % 8) * w;
}

ElementAddress SharedOperandModel::address(int64_t row, int64_t k) const {
  int64_t pre = desc.startAddress + canonicalOffset(row, k);
  ElementAddress a;
  a.byte = *swizzleAddress(pre, desc.swizzle);
  // The bit of a packed 4-bit element inside its byte.
  if (bits == 4)
    a.bit = majorness == OperandMajor::K ? (k % 2) * 4 : (row % 2) * 4;
  return a;
}

//===----------------------------------------------------------------------===//
// Tensor-map boxes
//===----------------------------------------------------------------------===//

OrReason<std::vector<BoxElement>>
model::tensorMapBox(const TensorMapDesc &map, llvm::ArrayRef<int64_t> coords,
                    int64_t sharedAddress) {
  using R = OrReason<std::vector<BoxElement>>;
  std::vector<std::string> broken = tensorMapViolations(map);
  if (!broken.empty())
    return R::failure("the map breaks a driver rule: " + broken.front());
  if (coords.size() != map.rank)
    return R::failure(std::to_string(coords.size()) + " coordinates for a rank-" +
                      std::to_string(map.rank) + " map");
  for (unsigned i = 0; i < map.rank; ++i)
    if (!map.globalDims[i] || (i && !map.globalStrides[i - 1]))
      return R::failure("global dim or stride " + std::to_string(i) +
                        " is unknown; the model needs every value");
  if (map.interleave != TensorMapInterleave::None)
    return R::failure("interleaved maps are not modelled");
  for (uint32_t s : map.elementStrides)
    if (s != 1)
      return R::failure("element strides other than 1 are not modelled");
  const unsigned e = elementBytes(map.dataType);
  if (!e)
    return R::failure("packed sub-byte data types are not modelled");
  SmemSwizzle swizzle;
  switch (map.swizzle) {
  case TensorMapSwizzle::None: swizzle = SmemSwizzle::None; break;
  case TensorMapSwizzle::B32: swizzle = SmemSwizzle::B32; break;
  case TensorMapSwizzle::B64: swizzle = SmemSwizzle::B64; break;
  case TensorMapSwizzle::B128: swizzle = SmemSwizzle::B128; break;
  default:
    return R::failure("swizzle " + swizzleName(map.swizzle).str() +
                      " is not modelled");
  }
  const int64_t rowBytes = int64_t(map.boxDims[0]) * e;
  if (swizzle != SmemSwizzle::None &&
      rowBytes != int64_t(swizzleSpanBytes(map.swizzle)))
    return R::failure("a " + std::to_string(rowBytes) + "-byte box row under the " +
                      swizzleName(map.swizzle).str() +
                      " swizzle: the model defines box rows of "
                      "exactly the swizzle span");
  if (sharedAddress % 128)
    return R::failure("shared address " + std::to_string(sharedAddress) +
                      " is not 128-byte aligned");

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
    el.sharedByte = *swizzleAddress(sharedAddress + dense, swizzle);
    out.push_back(std::move(el));
    for (unsigned i = 0; i < map.rank; ++i) {
      if (++idx[i] < int64_t(map.boxDims[i]))
        break;
      idx[i] = 0;
    }
  }
  return out;
}

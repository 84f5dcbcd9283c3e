//===- BitField.h - checked bitfields of descriptor words -------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A descriptor field as a type: its bit range is declared once, and encoders
// insert/extract through it instead of repeating shifts and masks. Shared by
// the shared-memory matrix descriptor and the MMA instruction descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_BITFIELD_H
#define TILE_TARGET_CUDA_BITFIELD_H

#include <cstdint>

namespace tile::cuda {

/// A field of `Width` bits starting at bit `Low` of a 64-bit word.
template <unsigned Low, unsigned Width> struct BitField {
  static_assert(Width > 0 && Low + Width <= 64, "field outside 64 bits");
  static constexpr unsigned low = Low;
  static constexpr unsigned width = Width;
  static constexpr uint64_t mask =
      (Width == 64 ? ~uint64_t(0) : ((uint64_t(1) << Width) - 1)) << Low;

  static constexpr bool fits(uint64_t value) {
    return Width == 64 || value < (uint64_t(1) << Width);
  }
  static constexpr uint64_t insert(uint64_t word, uint64_t value) {
    return (word & ~mask) | ((value << Low) & mask);
  }
  static constexpr uint64_t extract(uint64_t word) {
    return (word & mask) >> Low;
  }
};

} // namespace tile::cuda

#endif // TILE_TARGET_CUDA_BITFIELD_H

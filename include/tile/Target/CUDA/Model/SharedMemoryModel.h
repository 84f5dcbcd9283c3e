//===- SharedMemoryModel.h - which shared bytes an operand reads -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The shared-memory half of the PTX-semantics model (docs/PtxModel.md):
// written from the PTX ISA's definitions and decoding descriptor words with
// its own tables (Encodings.h), independent of the encoders, the layout
// algebra and the planners. It answers "which shared byte holds this
// element" for
//
//  - a matrix descriptor word (tcgen05 or wgmma family) read as a K-major
//    or MN-major operand (PTX "Canonical Layouts", in 16-byte core-matrix
//    rows; T = 128 / bits elements per 16 bytes, W = the swizzle's row
//    bytes, R = its pattern rows: 8, or 4 for 128B with 32B atoms):
//
//      K-major,  no swizzle  (r/8) SBO + (r%8) 16 + (k/T) LBO + (k%T) bytes
//      K-major,  swizzled    (r/8) SBO + (r%8) W  + k bytes
//      MN-major, no swizzle  (r/T) SBO + (r%T) bytes + (k/8) LBO + (k%8) 16
//      MN-major, swizzled    (r/(8W/bits)) LBO + (r%(8W/bits)) bytes
//                            + (k/R) SBO + (k%R) W
//
//    (r: the M or N index, k: the K index, "bytes" = index x bits / 8),
//    added to the start address and then swizzled (Encodings.h);
//  - which descriptor fields an access of given extents reads at all
//    (`DescriptorUse`): e.g. swizzled K-major operands never read LBO;
//  - a tensor map (cuTensorMapEncodeTiled's arguments as plain data) and
//    box coordinates: the box is dense in shared memory (dim 0 innermost),
//    the map's swizzle is applied to the absolute shared address, and
//    elements outside the global dims are not read. The map is judged by
//    the model's own reading of the driver's rules.
//
// What the model does not define it refuses with a reason: a nonzero base
// offset, the absolute LBO mode, a swizzled operand starting inside its
// pattern, swizzle/majorness/size combinations the ISA does not allow
// (Table 54: 32-bit MN-major operands only with 128B/32B atoms, which no
// other operand takes), interleaved or strided maps.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_MODEL_SHAREDMEMORYMODEL_H
#define TILE_TARGET_CUDA_MODEL_SHAREDMEMORYMODEL_H

#include "tile/Target/CUDA/Model/Encodings.h"
#include "tile/Target/CUDA/TensorMap.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tile::cuda::model {

enum class OperandMajor : uint8_t {
  K,  ///< consecutive K elements are adjacent (a row of A / of B^T)
  MN, ///< consecutive M (or N) elements are adjacent
};

/// An element's place: the byte that holds its first bit and the bit in
/// that byte (nonzero only for 4-bit elements).
struct ElementAddress {
  int64_t byte = 0;
  unsigned bit = 0;
  bool operator==(const ElementAddress &o) const {
    return byte == o.byte && bit == o.bit;
  }
};

/// Which of LBO / SBO an access reads. An unread field may hold anything
/// (compilers write 0 or 1 there); a read one decides addresses.
struct DescriptorUse {
  bool lbo = false;
  bool sbo = false;
};

/// A shared operand as a matrix descriptor word presents it to an MMA.
class SharedOperandModel {
public:
  /// The operand `word` describes to `family`, read `major` with
  /// `elementBits` elements (4 packed, 8, 16 or 32; fp6/fp4 in 8-bit
  /// containers are 8), or the reason the model does not define it.
  static OrReason<SharedOperandModel> create(uint64_t word, Family family,
                                             OperandMajor major,
                                             unsigned elementBits);

  /// Bytes from the start address to element (row, k), before the swizzle.
  int64_t canonicalOffset(int64_t row, int64_t k) const;
  /// Absolute shared address of element (row, k): start + offset, swizzled.
  ElementAddress address(int64_t row, int64_t k) const;
  /// The fields an access of rows [0, rows) and K [0, k) reads.
  DescriptorUse fieldsRead(int64_t rows, int64_t k) const;

  const SharedDescriptorFields &fields() const { return desc; }
  OperandMajor major() const { return majorness; }
  unsigned elementBits() const { return bits; }

private:
  SharedDescriptorFields desc;
  OperandMajor majorness = OperandMajor::K;
  unsigned bits = 16;
};

/// One element of a tensor-map box.
struct BoxElement {
  /// Global coordinates, tensor-map dim 0 first.
  llvm::SmallVector<int64_t, 5> coords;
  /// Inside the global dims: read (load) or written (store).
  bool inBounds = true;
  /// Bytes from the global address (meaningful when inBounds).
  int64_t globalByte = 0;
  /// Absolute shared address of the element's first byte.
  int64_t sharedByte = 0;
};

/// The driver rules (cuTensorMapEncodeTiled) the known values of `map`
/// break, as the model reads them; empty when none.
std::vector<std::string> tensorMapRulesBroken(const TensorMapDesc &map);

/// Every element of the box a `cp.async.bulk.tensor` with `map` at
/// `coords` (dim 0 first) moves, with its shared address for a box at
/// `sharedAddress`. Every global dim and stride of `map` must be known.
/// Fails with the reason when the map breaks a driver rule or uses
/// something the model does not define.
OrReason<std::vector<BoxElement>> tensorMapBox(const TensorMapDesc &map,
                                               llvm::ArrayRef<int64_t> coords,
                                               int64_t sharedAddress);

} // namespace tile::cuda::model

#endif // TILE_TARGET_CUDA_MODEL_SHAREDMEMORYMODEL_H

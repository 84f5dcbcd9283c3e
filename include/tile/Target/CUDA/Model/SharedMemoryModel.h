//===- SharedMemoryModel.h - which shared bytes an operand reads -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The shared-memory half of the PTX-semantics model (docs/PtxModel.md):
// written from the PTX ISA's definitions, independent of the layout
// algebra and of the planners, it answers "which shared byte holds this
// element" for
//
//  - a matrix descriptor (tcgen05 or wgmma flavour) read as a K-major or
//    MN-major operand ("Shared Memory Matrix Layout", the canonical layouts
//    in 16-byte core-matrix rows, T = 128 / bits elements per 16 bytes,
//    W = the swizzle's row bytes):
//
//      K-major,  no swizzle  (r/8) SBO + (r%8) 16 + (k/T) LBO + (k%T) bytes
//      K-major,  swizzled    (r/8) SBO + (r%8) W  + k bytes
//      MN-major, no swizzle  (r/T) SBO + (r%T) bytes + (k/8) LBO + (k%8) 16
//      MN-major, swizzled    (r/(8W/bits)) LBO + (r%(8W/bits)) bytes
//                            + (k/8) SBO + (k%8) W
//
//    (r: the M or N index, k: the K index, "bytes" = index x bits / 8),
//    added to the start address and then swizzled;
//  - the swizzle modes on a shared byte address ("Tensor Memory / Shared
//    Memory Swizzling Modes"): 16-byte chunk bits [4, 4+s) XOR address bits
//    [7, 7+s), s = 1 / 2 / 3 for 32B / 64B / 128B, on the absolute address;
//  - a tensor map and box coordinates ("Tensor Access Modes: Tiled mode"):
//    the box is dense in shared memory (dim 0 innermost, rows of boxDim[0]
//    elements), the tensor map's swizzle is applied to the absolute shared
//    address, and elements outside the global dims are not read (a load
//    fills them, a store skips them).
//
// What the model does not define it refuses with a reason rather than
// guessing: a nonzero base offset, a swizzled operand starting inside rows
// 1-7 of its pattern, the 128B_base32B / atom swizzles, interleaved or
// strided (elementStrides != 1) maps, a swizzled box row narrower than the
// swizzle span. docs/PtxModel.md lists what hardware runs confirmed and
// what is assumed.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_MODEL_SHAREDMEMORYMODEL_H
#define TILE_TARGET_CUDA_MODEL_SHAREDMEMORYMODEL_H

#include "tile/Target/CUDA/SmemDescriptor.h"
#include "tile/Target/CUDA/TensorMap.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tile::cuda::model {

/// The address `address` reaches after the swizzle (None: unchanged);
/// nullopt for B128Atom32B, which the model does not define.
std::optional<int64_t> swizzleAddress(int64_t address, SmemSwizzle swizzle);

/// Bytes after which a swizzle pattern repeats (8 rows of its row bytes);
/// 16 for None.
int64_t swizzlePatternBytes(SmemSwizzle swizzle);

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

/// A shared operand as a matrix descriptor presents it to an MMA.
class SharedOperandModel {
public:
  /// The operand `descriptor` describes, read `major` with `elementBits`
  /// elements (4 packed, 8, 16 or 32; fp6/fp4 in 8-bit containers are 8),
  /// or the reason the model does not define it.
  static OrReason<SharedOperandModel> create(const SmemDescriptor &descriptor,
                                             OperandMajor major,
                                             unsigned elementBits);

  /// Bytes from the start address to element (row, k), before the swizzle.
  int64_t canonicalOffset(int64_t row, int64_t k) const;
  /// Absolute shared address of element (row, k): start + offset, swizzled.
  ElementAddress address(int64_t row, int64_t k) const;

  const SmemDescriptor &descriptor() const { return desc; }
  OperandMajor major() const { return majorness; }
  unsigned elementBits() const { return bits; }

private:
  SmemDescriptor desc;
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

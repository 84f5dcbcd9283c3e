//===- Tcgen05CpForm.cpp - the forms of tcgen05.cp ------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Tcgen05CpForm.h"

#include "tile/Support/EnumTable.h"

using namespace tile::cuda;

namespace {

constexpr llvm::StringLiteral kShapeNames[] = {"128x256b", "4x256b", "128x128b",
                                               "64x128b", "32x128b"};
static_assert(tile::hasRowPerEnumerator(kShapeNames, Tcgen05CpShape::S32x128b));
constexpr llvm::StringLiteral kMulticastNames[] = {"", "warpx2::02_13",
                                                   "warpx2::01_23", "warpx4"};
static_assert(tile::hasRowPerEnumerator(kMulticastNames,
                                        Tcgen05CpMulticast::Warpx4));
constexpr llvm::StringLiteral kSourceFormatNames[] = {"", "b6x16_p32",
                                                      "b4x16_p64"};
static_assert(tile::hasRowPerEnumerator(kSourceFormatNames,
                                        Tcgen05CpSourceFormat::B4x16P64));

} // namespace

llvm::StringRef tile::cuda::tcgen05CpShapeName(Tcgen05CpShape shape) {
  const llvm::StringLiteral *name = tile::rowOf(kShapeNames, shape);
  return name ? llvm::StringRef(*name) : "?";
}

llvm::StringRef
tile::cuda::tcgen05CpMulticastName(Tcgen05CpMulticast multicast) {
  const llvm::StringLiteral *name = tile::rowOf(kMulticastNames, multicast);
  return name ? llvm::StringRef(*name) : "?";
}

llvm::StringRef
tile::cuda::tcgen05CpSourceFormatName(Tcgen05CpSourceFormat format) {
  const llvm::StringLiteral *name = tile::rowOf(kSourceFormatNames, format);
  return name ? llvm::StringRef(*name) : "?";
}

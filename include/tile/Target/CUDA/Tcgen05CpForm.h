//===- Tcgen05CpForm.h - the forms of tcgen05.cp ----------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The vocabulary of `tcgen05.cp` (PTX ISA "Tensor Memory: tcgen05.cp"): its
// shapes, multicast qualifiers and decompressing source formats, with their
// PTX spellings. One definition, shared by the tcgen05_cp planner and the
// PTX-semantics model; what each form does (rows, lanes, replicas) stays
// with each of them, so that the model checks the planner independently.
// MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_TCGEN05CPFORM_H
#define TILE_TARGET_CUDA_TCGEN05CPFORM_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tile::cuda {

/// `.shape` of tcgen05.cp: rows x bits per row.
enum class Tcgen05CpShape : uint8_t {
  S128x256b,
  S4x256b,
  S128x128b,
  S64x128b,
  S32x128b
};
/// `.multicast`: the warps' lane quarters a row is also written to.
enum class Tcgen05CpMulticast : uint8_t {
  None,
  Warpx2_02_13,
  Warpx2_01_23,
  Warpx4
};
/// Optional decompression of the source (`.b8x16.b6x16_p32`,
/// `.b8x16.b4x16_p64`): each 16-byte source chunk holds 16 packed 6- or
/// 4-bit values plus padding and lands as 16 8-bit containers.
enum class Tcgen05CpSourceFormat : uint8_t { None, B6x16P32, B4x16P64 };

/// `128x256b`, `4x256b`, ...
llvm::StringRef tcgen05CpShapeName(Tcgen05CpShape shape);
/// `warpx2::02_13`, ...; "" for None.
llvm::StringRef tcgen05CpMulticastName(Tcgen05CpMulticast multicast);
/// `b6x16_p32`, `b4x16_p64`; "" for None.
llvm::StringRef tcgen05CpSourceFormatName(Tcgen05CpSourceFormat format);

} // namespace tile::cuda

#endif // TILE_TARGET_CUDA_TCGEN05CPFORM_H

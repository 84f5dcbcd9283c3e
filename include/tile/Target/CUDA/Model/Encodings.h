//===- Encodings.h - the model's own reading of descriptor words -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A second, separate reading of the words tcgen05 / wgmma instructions take,
// written from the PTX ISA's tables (docs/PtxModel.md names each source) and
// sharing nothing with the encoders (SmemDescriptor.h, InstrDescriptor.h):
// a mistake in an encoder's field table then shows up as a disagreement
// instead of being read back the same way.
//
//  - shared-memory matrix descriptor (PTX "Shared memory descriptor", Table
//    40; wgmma "Matrix Descriptor Format"): start 0-13, LBO 16-29, SBO
//    32-45 (all >> 4), tcgen05: 46-48 = 0b001, base offset 49-51, LBO mode
//    52, layout type 61-63 (0 none, 1 128B with 32B atoms, 2 128B, 4 64B,
//    6 32B); wgmma: base offset 49-51, layout type 62-63 (1 128B, 2 64B,
//    3 32B), everything else zero;
//  - instruction descriptor (Tables 42-44), per kind, including the .ws
//    maximum shift (30-31) and the block-scaled kinds' scale fields;
//  - the swizzles on shared byte addresses: 16-byte chunk bits [4, 4+s) XOR
//    bits [7, 7+s) (s = 1/2/3: 32B/64B/128B), and for 128B with 32-byte
//    atoms 32-byte chunk bits [5, 7) XOR bits [7, 9) (CUTLASS's
//    Swizzle<2,5,2> on bytes).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_MODEL_ENCODINGS_H
#define TILE_TARGET_CUDA_MODEL_ENCODINGS_H

#include "tile/Support/OrReason.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace tile::cuda::model {

//===----------------------------------------------------------------------===//
// Swizzles
//===----------------------------------------------------------------------===//

/// The shared-memory swizzle modes the model defines.
enum class Swizzle : uint8_t { None, B32, B64, B128, B128Atom32B };
llvm::StringRef nameOf(Swizzle swizzle);
/// Bytes of one swizzled row (16 for None: a core-matrix row).
int64_t swizzleRowBytes(Swizzle swizzle);
/// Rows after which the pattern repeats (8; 4 for 128B with 32B atoms).
int64_t swizzlePatternRows(Swizzle swizzle);
/// Bytes after which the pattern repeats (16 for None).
int64_t swizzlePatternBytes(Swizzle swizzle);
/// The shared byte `address` reaches under `swizzle` (absolute address).
int64_t swizzleAddress(int64_t address, Swizzle swizzle);

//===----------------------------------------------------------------------===//
// Shared-memory matrix descriptors
//===----------------------------------------------------------------------===//

/// Which instruction family reads a descriptor word.
enum class Family : uint8_t { Tcgen05, Wgmma };

/// A descriptor word's fields in bytes.
struct SharedDescriptorFields {
  int64_t start = 0, lbo = 0, sbo = 0;
  unsigned baseOffset = 0;
  bool lboAbsolute = false;
  Swizzle swizzle = Swizzle::None;
};

/// The fields of `word` as `family` reads it, or why it is not a valid
/// descriptor (fixed bits, reserved layout types, reserved bits set).
OrReason<SharedDescriptorFields> readSharedDescriptor(uint64_t word,
                                                      Family family);

//===----------------------------------------------------------------------===//
// tcgen05.mma instruction descriptors
//===----------------------------------------------------------------------===//

/// `.kind` of tcgen05.mma.
enum class Kind : uint8_t { F16, TF32, F8F6F4, I8, MXF8F6F4, MXF4, MXF4NVF4 };
llvm::StringRef nameOf(Kind kind);
bool isBlockScaled(Kind kind);

enum class Element : uint8_t {
  F16, BF16, TF32, E4M3, E5M2, E2M3, E3M2, E2M1, U8, S8
};
llvm::StringRef nameOf(Element element);
enum class Accumulator : uint8_t { F16, F32, S32 };

/// An instruction descriptor's fields.
struct MmaFields {
  Element a = Element::F16, b = Element::F16;
  Accumulator d = Accumulator::F32;
  bool aMnMajor = false, bMnMajor = false;
  bool negateA = false, negateB = false, saturate = false;
  unsigned m = 0, n = 0;
  /// .ws only: maximum B shift (0 none, 1: 8, 2: 16, 3: 32).
  unsigned maxShift = 0;
  /// Block-scaled kinds: UE8M0 (else UE4M3) scales, scale-factor ids.
  bool ue8m0 = false;
  unsigned sfaId = 0, sfbId = 0;
};

/// The fields of `word` for `kind` (`weightStationary`: a .ws
/// instruction), or why the model refuses it: reserved bits set, a format
/// code or combination the kind does not define, sparsity, or what no
/// modelled instruction uses (mxf4 K = 96).
OrReason<MmaFields> readInstrDescriptor(uint32_t word, Kind kind,
                                        bool weightStationary);

/// Bits one element occupies in shared memory as `kind` reads it (fp6/fp4
/// of the f8f6f4 kinds sit in 8-bit containers; mxf4 kinds pack 4 bits).
unsigned storageBits(Kind kind, Element element);
/// K of one instruction: 256 bits of each operand row.
int64_t instructionK(Kind kind);

} // namespace tile::cuda::model

#endif // TILE_TARGET_CUDA_MODEL_ENCODINGS_H

//===- InstrDescriptor.h - tcgen05.mma instruction descriptors --*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The 32-bit instruction descriptor of `tcgen05.mma` (PTX ISA "Tensor
// Memory: Instruction descriptor") as a checked bitfield, for the dense
// kinds (f16, tf32, f8f6f4, i8) and the block-scaled ones (mxf8f6f4, mxf4,
// mxf4nvf4). MLIR-free.
//
//   bit    dense kinds              block-scaled kinds
//   0-1    sparsity selector        sparsity selector
//   2      sparse                   sparse
//   3      saturate (i8)            reserved
//   4-5    D format                 B scale-factor id
//   7-9    A format                 A format
//   10-12  B format                 B format
//   13/14  negate A / B             negate A / B
//   15/16  A / B major (1 = MN)     A / B major (1 = MN)
//   17-22  N >> 3                   N >> 3
//   23     reserved                 scale-factor type (0 UE4M3, 1 UE8M0)
//   24-28  M >> 4                   M >> 4
//   29     reserved                 A scale-factor id (29-30)
//   30-31  max shift (.ws only)     30: A id, 31: reserved (0)
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_INSTRDESCRIPTOR_H
#define TILE_TARGET_CUDA_INSTRDESCRIPTOR_H

#include "tile/Support/OrReason.h"
#include "tile/Target/CUDA/BitField.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tile::cuda {

/// `.kind::...` of tcgen05.mma.
enum class MmaKind : uint8_t {
  F16,      ///< f16 / bf16 inputs
  TF32,     ///< tf32 inputs
  F8F6F4,   ///< fp8 / fp6 / fp4 inputs
  I8,       ///< u8 / s8 inputs, s32 accumulator
  MXF8F6F4, ///< block-scaled fp8 / fp6 / fp4, one scale per 32 K
  MXF4,     ///< block-scaled packed fp4, UE8M0 scales per 32 K
  MXF4NVF4, ///< block-scaled packed fp4, UE8M0 per 32 K or UE4M3 per 16 K
};
llvm::StringRef mmaKindName(MmaKind kind);
bool isBlockScaled(MmaKind kind);

/// Operand element types the kinds take.
enum class MmaElement : uint8_t {
  F16, BF16, TF32, E4M3, E5M2, E2M3, E3M2, E2M1, U8, S8,
};
llvm::StringRef mmaElementName(MmaElement element);
unsigned mmaElementBits(MmaElement element);

/// Accumulator (D) element types.
enum class MmaAccumulator : uint8_t { F16, F32, S32 };
llvm::StringRef mmaAccumulatorName(MmaAccumulator accumulator);

/// Scale-factor element types of the block-scaled kinds.
enum class ScaleFactorType : uint8_t { UE4M3, UE8M0 };

/// The format code `element` has in `kind`'s A/B format fields, or nullopt
/// when the kind does not take it.
std::optional<unsigned> mmaElementFormat(MmaKind kind, MmaElement element);

/// K of one instruction: 256 bits of each operand row (16 for f16/bf16, 8
/// for tf32, 32 for the 8-bit kinds and f8f6f4, 64 for packed fp4).
unsigned mmaInstructionK(MmaKind kind);

/// Elements sharing one scale factor: 32 (mxf8f6f4, mxf4, mxf4nvf4 with
/// UE8M0) or 16 (mxf4nvf4 with UE4M3); 0 for dense kinds.
unsigned scaleVectorSize(MmaKind kind, ScaleFactorType type);

struct InstrDescriptorFields {
  using SparseSelector = BitField<0, 2>;
  using Sparse = BitField<2, 1>;
  using Saturate = BitField<3, 1>;
  using DFormat = BitField<4, 2>;      ///< dense kinds
  using BScaleId = BitField<4, 2>;     ///< block-scaled kinds
  using AFormat = BitField<7, 3>;
  using BFormat = BitField<10, 3>;
  using NegateA = BitField<13, 1>;
  using NegateB = BitField<14, 1>;
  using AMajor = BitField<15, 1>;
  using BMajor = BitField<16, 1>;
  using NShifted = BitField<17, 6>;    ///< N >> 3
  using ScaleType = BitField<23, 1>;   ///< block-scaled kinds
  using MShifted = BitField<24, 5>;    ///< M >> 4
  using AScaleId = BitField<29, 2>;    ///< block-scaled kinds
  using MaxShift = BitField<30, 2>;    ///< dense kinds, .ws only

  /// Bits no dense-kind field owns (6, 23, 29).
  static constexpr uint64_t denseReservedMask =
      0xFFFFFFFFull & ~(SparseSelector::mask | Sparse::mask | Saturate::mask |
                        DFormat::mask | AFormat::mask | BFormat::mask |
                        NegateA::mask | NegateB::mask | AMajor::mask |
                        BMajor::mask | NShifted::mask | MShifted::mask |
                        MaxShift::mask);
  /// Bits no block-scaled field owns (3, 6, 31).
  static constexpr uint64_t scaledReservedMask =
      0xFFFFFFFFull & ~(SparseSelector::mask | Sparse::mask | BScaleId::mask |
                        AFormat::mask | BFormat::mask | NegateA::mask |
                        NegateB::mask | AMajor::mask | BMajor::mask |
                        NShifted::mask | ScaleType::mask | MShifted::mask |
                        AScaleId::mask);
};
static_assert(InstrDescriptorFields::MaxShift::low +
                      InstrDescriptorFields::MaxShift::width ==
                  32,
              "the instruction descriptor is one 32-bit word");
static_assert(InstrDescriptorFields::denseReservedMask == 0x20800040ull,
              "dense fields overlap or leave an unexpected gap");
static_assert(InstrDescriptorFields::scaledReservedMask == 0x80000048ull,
              "block-scaled fields overlap or leave an unexpected gap");

/// A tcgen05.mma instruction descriptor (dense, not sparse, not .ws).
struct InstrDescriptor {
  MmaKind kind = MmaKind::F16;
  MmaElement a = MmaElement::F16;
  MmaElement b = MmaElement::F16;
  /// Dense kinds only; block-scaled kinds accumulate in f32.
  MmaAccumulator d = MmaAccumulator::F32;
  /// Operand stored MN-major (M or N contiguous) rather than K-major.
  bool aMnMajor = false;
  bool bMnMajor = false;
  bool negateA = false;
  bool negateB = false;
  /// Saturating s32 accumulation (kind::i8 only).
  bool saturate = false;
  unsigned m = 128;
  unsigned n = 128;
  /// Block-scaled kinds: scale-factor type and the byte of the 32-bit
  /// tensor-memory column the scales start at.
  ScaleFactorType scaleType = ScaleFactorType::UE8M0;
  unsigned aScaleId = 0;
  unsigned bScaleId = 0;

  /// Every field that cannot be encoded, one message each; empty if none.
  std::vector<std::string> problems() const;
  /// The 32-bit descriptor, or nullopt when `problems()` is not empty.
  std::optional<uint32_t> encode() const;
  /// The descriptor `word` holds for `kind`, or the reasons it is not one
  /// (reserved bits set, a format code the kind does not define, sparsity
  /// or a max shift, which this encoder never produces).
  static OrReason<InstrDescriptor> decode(uint32_t word, MmaKind kind);

  bool operator==(const InstrDescriptor &o) const;
};

} // namespace tile::cuda

#endif // TILE_TARGET_CUDA_INSTRDESCRIPTOR_H

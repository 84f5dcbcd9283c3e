//===- SmemDescriptor.h - shared-memory matrix descriptors ------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The 64-bit shared-memory matrix descriptor that tcgen05.mma and tcgen05.cp
// (PTX ISA "Tensor Memory: Shared Memory Descriptor") and Hopper's
// wgmma.mma_async ("Asynchronous Warpgroup Level Matrix Shared Memory
// Layout: Matrix Descriptor") read a shared operand through, as a checked
// bitfield: every field has a declared bit range, encoding refuses a value
// that does not fit, and decoding refuses reserved encodings. The two
// flavours share the field positions; the wgmma one has no fixed bits, no
// LBO mode and a 2-bit swizzle at 62-63 (values 1/2/3 = the tcgen05 values
// 2/4/6 at 61-63). MLIR-free; shared by the tcgen05_cp and gemm tcgen05
// variants, the PTX-semantics model and the wgmma anchors on Hopper.
//
//   bits  0-13  start address      (addr & 0x3FFFF) >> 4
//        16-29  leading byte offset (LBO) >> 4
//        32-45  stride byte offset  (SBO) >> 4
//        46-48  fixed 0b001 (tcgen05); reserved, 0 (wgmma)
//        49-51  base offset (matrix start's row phase in the swizzle pattern)
//        52     LBO mode (0: relative byte offset); reserved (wgmma)
//        61-63  swizzle: 0 none, 1 128B with 32B atom, 2 128B, 4 64B, 6 32B
//               (wgmma: bit 61 reserved; 62-63 = 1 128B, 2 64B, 3 32B)
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_SMEMDESCRIPTOR_H
#define TILE_TARGET_CUDA_SMEMDESCRIPTOR_H

#include "tile/Support/OrReason.h"
#include "tile/Target/CUDA/BitField.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tile::cuda {

/// Which instruction family reads the descriptor.
enum class DescriptorFlavour : uint8_t {
  Tcgen05, ///< tcgen05.mma / tcgen05.cp (sm_100a)
  Wgmma,   ///< wgmma.mma_async (sm_90a)
};

/// The start-address field holds bits 4..17 of the shared-window byte
/// address (shared windows are below 256 KiB; the matrix start is 16-byte
/// aligned): `(address & kSmemStartAddressMask) >> kSmemStartAddressShift`.
/// Moving the start by `bytes` (a multiple of 16) adds
/// `bytes >> kSmemStartAddressShift` to the word.
constexpr uint64_t kSmemStartAddressMask = 0x3FFFF;
constexpr unsigned kSmemStartAddressShift = 4;
/// The start-address field value of the byte address `address`.
constexpr uint64_t smemStartAddressField(uint64_t address) {
  return (address & kSmemStartAddressMask) >> kSmemStartAddressShift;
}

/// The swizzle field of a tcgen05 shared descriptor (values 3, 5, 7 are
/// reserved).
enum class SmemSwizzle : uint8_t {
  None = 0,
  B128Atom32B = 1,
  B128 = 2,
  B64 = 4,
  B32 = 6,
};
llvm::StringRef smemSwizzleName(SmemSwizzle swizzle);
/// Bytes of one swizzled row (the pattern repeats every 8 rows): 16 for
/// None (a core-matrix row), 32 / 64 / 128 otherwise.
unsigned smemSwizzleRowBytes(SmemSwizzle swizzle);
/// The descriptor value of an NVMMA swizzle of `bytes` bytes (0, 32, 64,
/// 128); nullopt for any other width.
std::optional<SmemSwizzle> smemSwizzleForBytes(unsigned bytes);

struct SmemDescriptorFields {
  using StartAddress = BitField<0, 14>;
  using LeadingByteOffset = BitField<16, 14>;
  using StrideByteOffset = BitField<32, 14>;
  using FixedVersion = BitField<46, 3>;
  using BaseOffset = BitField<49, 3>;
  using LboMode = BitField<52, 1>;
  using Swizzle = BitField<61, 3>;
  /// Bits no field owns; they must be zero.
  static constexpr uint64_t reservedMask =
      ~(StartAddress::mask | LeadingByteOffset::mask |
        StrideByteOffset::mask | FixedVersion::mask | BaseOffset::mask |
        LboMode::mask | Swizzle::mask);
  static constexpr uint64_t tcgen05Version = 1;
};
// The fields tile the word except bits 14-15, 30-31 and 53-60.
static_assert(SmemDescriptorFields::reservedMask == 0x1FE0'0000'C000'C000ull,
              "descriptor fields overlap or leave an unexpected gap");

/// A shared-memory matrix descriptor in byte units.
struct SmemDescriptor {
  /// Shared-window byte address of the matrix start (16-byte aligned; only
  /// its low 18 bits are encoded).
  uint32_t startAddress = 0;
  uint32_t leadingByteOffset = 0;
  uint32_t strideByteOffset = 0;
  /// Row phase of the start inside the 8-row swizzle pattern (0 when the
  /// start is pattern aligned).
  uint8_t baseOffset = 0;
  /// LBO mode bit: false = relative byte offset.
  bool lboAbsolute = false;
  SmemSwizzle swizzle = SmemSwizzle::None;

  /// Every field that cannot be encoded in `flavour`, one message each;
  /// empty if none (wgmma has no LBO mode and no 128B_base32B swizzle).
  std::vector<std::string>
  problems(DescriptorFlavour flavour = DescriptorFlavour::Tcgen05) const;
  /// The 64-bit descriptor, or nullopt when `problems()` is not empty.
  std::optional<uint64_t>
  encode(DescriptorFlavour flavour = DescriptorFlavour::Tcgen05) const;
  /// The descriptor of `word`, or the reasons it is not a valid descriptor
  /// of `flavour` (wrong fixed bits, reserved swizzle, reserved bits set).
  static OrReason<SmemDescriptor>
  decode(uint64_t word, DescriptorFlavour flavour = DescriptorFlavour::Tcgen05);

  bool operator==(const SmemDescriptor &o) const {
    return startAddress == o.startAddress &&
           leadingByteOffset == o.leadingByteOffset &&
           strideByteOffset == o.strideByteOffset &&
           baseOffset == o.baseOffset && lboAbsolute == o.lboAbsolute &&
           swizzle == o.swizzle;
  }
};

} // namespace tile::cuda

#endif // TILE_TARGET_CUDA_SMEMDESCRIPTOR_H

//===- MmaSharedOperand.h - MMA operands read through descriptors -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the tcgen05 and wgmma planners share: an operand region as a
// function (row, k) -> address, and the shared-memory operand read through a
// matrix descriptor. Both instruction families read the PTX ISA's canonical
// layouts (T = 16 bytes of elements, c = swizzle bytes / 16), in elements
// from the descriptor's start (row = M or N index):
//
//   K-major,  no swizzle  (r%8)*T + (r/8)*SBO + k%T + (k/T)*LBO
//   K-major,  swizzled    (r%8)*c*T + (r/8)*SBO + k
//   MN-major, no swizzle  r%T + (r/T)*SBO + (k%8)*T + (k/8)*LBO
//   MN-major, swizzled    r%T + ((r/T)%c)*T + (r/(c*T))*LBO + (k%8)*c*T
//                         + (k/8)*SBO
//
// (the wgmma reading anchored on an H100 by test/Device/Anchors). LBO and
// SBO are read off the layout at the first instruction tile, then every
// element of every instruction tile is checked against the formula.
// MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_GEMMASYNC_MMASHAREDOPERAND_H
#define TILE_VARIANTS_CUDA_GEMMASYNC_MMASHAREDOPERAND_H

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/SmemDescriptor.h"
#include "tile/Variants/CUDA/CopyAsync/RegionSide.h"

#include <string>

namespace tile::mma_operand {

using copy_async::RegionSide;
using cuda::SmemSwizzle;

inline std::string str(int64_t v) { return std::to_string(v); }

/// A shared operand's descriptor (start 0; patched per issue).
struct SharedOperand {
  cuda::SmemDescriptor descriptor;
  bool mnMajor = false;
  /// Which of LBO / SBO the canonical layout reads for this operand; an
  /// unread one holds 16 bytes (CUTLASS stores 1 there too).
  bool usesLbo = false, usesSbo = false;
  cuda::DescriptorFlavour flavour = cuda::DescriptorFlavour::Tcgen05;

  uint64_t descriptorTemplate() const { return *descriptor.encode(flavour); }
};

//===----------------------------------------------------------------------===//
// Operand regions
//===----------------------------------------------------------------------===//

/// An operand region as (row, col) -> address; `transposed` regions are
/// stored [col, row]. Addresses leave the swizzle out.
struct Region {
  TileLayout layout;
  Swizzle swizzle;
  int64_t rows = 0, cols = 0;
  bool transposed = false;

  int64_t flat(int64_t row, int64_t col) const {
    return transposed ? col * rows + row : row * cols + col;
  }
  AxisAddress at(int64_t row, int64_t col) const {
    return layout.apply(flat(row, col));
  }
  /// Every place of (row, col): the shard's and each replica's.
  llvm::SmallVector<AxisAddress, 4> places(int64_t row, int64_t col) const {
    llvm::SmallVector<AxisAddress, 4> out;
    for (int64_t r = 0; r < layout.replicaCount(); ++r)
      out.push_back(layout.apply(flat(row, col), r));
    return out;
  }
};

/// The region of an operand; `replicated` (scale tiles) keeps replica
/// iters, which other operands may not have.
inline OrReason<Region> regionOf(const RegionSide &side, int64_t rows, int64_t cols,
                          bool transposed, const std::string &name,
                          bool tensorMemory, bool replicated = false) {
  using R = OrReason<Region>;
  llvm::SmallVector<int64_t, 2> sizes =
      transposed ? llvm::SmallVector<int64_t, 2>{cols, rows}
                 : llvm::SmallVector<int64_t, 2>{rows, cols};
  OrReason<SliceResult> s = side.layout.slice(side.shape, side.offsets, sizes);
  if (!s)
    return R::failure(name + " region: " + s.reason());
  TileLayout l = s->residual.canonicalize();
  if (!l.replica().empty() && !replicated)
    return R::failure(name + " tile is replicated (" + l.toString() +
                      "); an MMA operand has one copy of each element");
  for (const Iter &it : l.shard()) {
    if (tensorMemory ? !isTensorMemoryAxis(it.axis) : it.axis != Axis::m)
      return R::failure(name + " layout addresses axis " +
                        axisName(it.axis).str() +
                        (tensorMemory ? "; tensor memory has TLane and TCol"
                                      : "; a shared operand is one CTA's "
                                        "shared memory (axis m)"));
  }
  Region r;
  r.layout = TileLayout(l.shard(), replicated ? l.replica() : llvm::ArrayRef<Iter>{},
                        l.offsets(), Swizzle{});
  r.swizzle = l.swizzle();
  r.rows = rows;
  r.cols = cols;
  r.transposed = transposed;
  return r;
}

//===----------------------------------------------------------------------===//
// Shared operands
//===----------------------------------------------------------------------===//

/// The canonical layout of one operand tile, in elements.
struct Canonical {
  bool mnMajor = false;
  int64_t t = 8;      ///< elements in 16 bytes
  int64_t c = 0;      ///< 16-byte chunks in a swizzled row; 0: no swizzle
  int64_t lbo = 0;    ///< elements
  int64_t sbo = 0;    ///< elements
  /// K rows per SBO step of a swizzled MN-major operand: 8, or 4 for the
  /// 32-byte-atom swizzle (its pattern repeats every 4 rows).
  int64_t kGroup = 8;

  int64_t offset(int64_t r, int64_t k) const {
    if (!mnMajor) {
      if (c == 0)
        return (r % 8) * t + (r / 8) * sbo + k % t + (k / t) * lbo;
      return (r % 8) * c * t + (r / 8) * sbo + k;
    }
    if (c == 0)
      return r % t + (r / t) * sbo + (k % 8) * t + (k / 8) * lbo;
    return r % t + ((r / t) % c) * t + (r / (c * t)) * lbo +
           (k % kGroup) * c * t + (k / kGroup) * sbo;
  }
};

struct SharedPlanner {
  const Region &region;
  std::string name;
  unsigned bits;
  int64_t rows;  ///< rows (M or N) of one instruction's operand
  int64_t instK;
  Canonical canon;
  SharedOperand operand;
  /// Which instruction reads the descriptor (its swizzle rules differ).
  cuda::DescriptorFlavour flavour = cuda::DescriptorFlavour::Tcgen05;

  int64_t addr(int64_t row, int64_t k) const {
    return at(region.at(row, k), Axis::m);
  }
  int64_t bytes(int64_t elements) const {
    return elements * int64_t(bits) / 8;
  }
  bool on16Bytes(int64_t elements) const {
    return (elements * int64_t(bits)) % 128 == 0;
  }

  /// The descriptor's swizzle (and canon.c). MN-major tf32 has one form:
  /// the 128-byte swizzle with 32-byte atoms (layout type 1); that swizzle
  /// is for nothing else.
  OrReason<SmemSwizzle> descriptorSwizzle() {
    using R = OrReason<SmemSwizzle>;
    if (flavour == cuda::DescriptorFlavour::Wgmma)
      return wgmmaSwizzle();
    bool mnTf32 = canon.mnMajor && bits == 32;
    std::string atom32 =
        nvmmaSwizzle(SwizzleMode::B128Atom32B, bits).toString();
    if (region.swizzle.isIdentity()) {
      if (mnTf32)
        return R::failure(name + " is MN-major tf32 without a swizzle; "
                                 "tcgen05 reads MN-major tf32 only with the "
                                 "128-byte swizzle of 32-byte atoms (" +
                          atom32 + ")");
      return SmemSwizzle::None;
    }
    std::optional<SwizzleMode> mode =
        classifyNvmmaSwizzle(region.swizzle, bits);
    if (!mode)
      return R::failure(name + " swizzle " + region.swizzle.toString() +
                        " is not an NVMMA swizzle of " + str(bits) +
                        "-bit elements");
    bool atom = *mode == SwizzleMode::B128Atom32B;
    if (mnTf32 && !atom)
      return R::failure(name + " is MN-major tf32 with the " +
                        swizzleModeName(*mode).str() +
                        " swizzle; tcgen05 reads MN-major tf32 only with the "
                        "128-byte swizzle of 32-byte atoms (" +
                        atom32 + ", descriptor layout type 1)");
    if (atom && !mnTf32)
      return R::failure(name + " uses the 128-byte swizzle of 32-byte atoms, "
                               "which tcgen05.mma reads for MN-major tf32 "
                               "operands only");
    canon.c = swizzleBytes(*mode) / 16;
    canon.kGroup = atom ? 4 : 8;
    return atom ? SmemSwizzle::B128Atom32B
                : *cuda::smemSwizzleForBytes(swizzleBytes(*mode));
  }

  /// wgmma: the 32, 64 and 128-byte swizzles or none, for either major-ness
  /// (MN-major only for 16-bit types, which Wgmma planning checks first).
  OrReason<SmemSwizzle> wgmmaSwizzle() {
    using R = OrReason<SmemSwizzle>;
    if (region.swizzle.isIdentity())
      return SmemSwizzle::None;
    std::optional<SwizzleMode> mode =
        classifyNvmmaSwizzle(region.swizzle, bits);
    if (!mode)
      return R::failure(name + " swizzle " + region.swizzle.toString() +
                        " is not an NVMMA swizzle of " + str(bits) +
                        "-bit elements");
    if (*mode == SwizzleMode::B128Atom32B)
      return R::failure(name + " uses the 128-byte swizzle of 32-byte atoms, "
                               "which wgmma descriptors cannot express (32, "
                               "64 or 128-byte swizzles, or none)");
    canon.c = swizzleBytes(*mode) / 16;
    canon.kGroup = 8;
    return *cuda::smemSwizzleForBytes(swizzleBytes(*mode));
  }

  /// Major-ness, swizzle, LBO and SBO from the tile at (0, 0).
  Status derive() {
    int64_t s0 = addr(0, 0);
    bool kContiguous = addr(0, 1) - s0 == 1;
    bool mnContiguous = addr(1, 0) - s0 == 1;
    if (!kContiguous && !mnContiguous)
      return Status::failure(
          name +
          " is neither K-major nor MN-major: neither the next K "
          "element (+" +
          str(addr(0, 1) - s0) + ") nor the next row (+" +
          str(addr(1, 0) - s0) + " elements) is adjacent");
    canon.mnMajor = !kContiguous;
    if (canon.mnMajor && bits < 8)
      return Status::failure(name + " is MN-major; packed sub-byte operands "
                                    "are K-major only");
    canon.t = 128 / bits;
    OrReason<SmemSwizzle> swizzle = descriptorSwizzle();
    if (!swizzle)
      return Status::failure(swizzle.reason());
    const int64_t t = canon.t, c = canon.c;
    // Probe points: the first element the other offset reaches. A probe
    // outside one instruction's tile leaves the offset unread.
    auto probe = [&](int64_t r, int64_t k, int64_t &field, bool &used) {
      used = r < rows && k < instK;
      field = used ? addr(r, k) - s0 : 128 / bits; // unused: 16 bytes
    };
    int64_t lbo = 0, sbo = 0;
    bool usesLbo = false, usesSbo = false;
    if (!canon.mnMajor) {
      probe(8, 0, sbo, usesSbo);
      if (c == 0)
        probe(0, t, lbo, usesLbo);
      else
        lbo = t;
    } else if (c == 0) {
      probe(t, 0, sbo, usesSbo);
      probe(0, 8, lbo, usesLbo);
    } else {
      probe(c * t, 0, lbo, usesLbo);
      probe(0, canon.kGroup, sbo, usesSbo);
    }
    for (auto [field, label] : {std::pair{lbo, "LBO"}, std::pair{sbo, "SBO"}})
      if (field < 0 || !on16Bytes(field))
        return Status::failure(name + " " + label + " = " + str(field) +
                               " elements (" + str(field * int64_t(bits)) +
                               " bits) is not a positive multiple "
                               "of 16 bytes");
    canon.lbo = lbo;
    canon.sbo = sbo;
    operand.mnMajor = canon.mnMajor;
    operand.flavour = flavour;
    operand.usesLbo = usesLbo;
    operand.usesSbo = usesSbo;
    operand.descriptor.leadingByteOffset = static_cast<uint32_t>(bytes(lbo));
    operand.descriptor.strideByteOffset = static_cast<uint32_t>(bytes(sbo));
    operand.descriptor.swizzle = *swizzle;
    if (auto problems = operand.descriptor.problems(flavour);
        !problems.empty())
      return Status::failure(name + " descriptor: " + problems.front());
    return Status::success();
  }

  std::string layoutName() const {
    std::string s = canon.mnMajor ? "MN-major" : "K-major";
    s += canon.c ? ", " + str(canon.c * 16) + "B swizzle" : ", no swizzle";
    return s + ", LBO " + str(bytes(canon.lbo)) + " B, SBO " +
           str(bytes(canon.sbo)) + " B";
  }

  /// The tile starting at (row0, k0): its start byte, after checking every
  /// element against the canonical layout.
  OrReason<int64_t> tile(int64_t row0, int64_t k0) const {
    using R = OrReason<int64_t>;
    int64_t s = addr(row0, k0);
    if (!on16Bytes(s))
      return R::failure(name + " instruction tile at (" + str(row0) + ", " +
                        str(k0) + ") starts at element " + str(s) +
                        ", not 16-byte aligned");
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < instK; ++k) {
        int64_t want = s + canon.offset(r, k);
        int64_t got = addr(row0 + r, k0 + k);
        if (got != want)
          return R::failure(
              name + " element (" + str(row0 + r) + ", " + str(k0 + k) +
              ") is at element " + str(got) + "; the descriptor (" +
              layoutName() + ") reads element " + str(want) + " there");
      }
    int64_t start = bytes(s);
    if (canon.c) {
      int64_t w = canon.c * 16;
      int64_t phase = (start % (8 * w)) / w;
      if (phase)
        return R::failure(name + " instruction tile at (" + str(row0) + ", " +
                          str(k0) + ") starts at byte " + str(start) +
                          ", row " + str(phase) + " of a " + str(w) +
                          "-byte swizzle atom: a swizzled operand starts on "
                          "an atom's first row");
    }
    return start;
  }
};


} // namespace tile::mma_operand

#endif // TILE_VARIANTS_CUDA_GEMMASYNC_MMASHAREDOPERAND_H

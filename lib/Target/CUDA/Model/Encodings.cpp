//===- Encodings.cpp - the model's own reading of descriptor words --------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Written from the PTX ISA tables (docs/PtxModel.md), deliberately without
// the encoders' headers: every bit position and code here is a second
// reading of the same tables.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Model/Encodings.h"

#include <string>

using namespace tile::cuda;
using namespace tile::cuda::model;
using tile::OrReason;

namespace {
/// `width` bits of `word` from bit `low`.
uint64_t bits(uint64_t word, unsigned low, unsigned width) {
  return (word >> low) & ((uint64_t(1) << width) - 1);
}

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
} // namespace

//===----------------------------------------------------------------------===//
// Swizzles
//===----------------------------------------------------------------------===//

llvm::StringRef model::nameOf(Swizzle s) {
  switch (s) {
  case Swizzle::None: return "none";
  case Swizzle::B32: return "32B";
  case Swizzle::B64: return "64B";
  case Swizzle::B128: return "128B";
  case Swizzle::B128Atom32B: return "128B with 32B atoms";
  }
  return "?";
}

int64_t model::swizzleRowBytes(Swizzle s) {
  switch (s) {
  case Swizzle::None: return 16;
  case Swizzle::B32: return 32;
  case Swizzle::B64: return 64;
  case Swizzle::B128: case Swizzle::B128Atom32B: return 128;
  }
  return 16;
}

int64_t model::swizzlePatternRows(Swizzle s) {
  return s == Swizzle::B128Atom32B ? 4 : 8;
}

int64_t model::swizzlePatternBytes(Swizzle s) {
  return s == Swizzle::None ? 16 : swizzlePatternRows(s) * swizzleRowBytes(s);
}

int64_t model::swizzleAddress(int64_t a, Swizzle s) {
  switch (s) {
  case Swizzle::None: return a;
  // 16-byte chunk bits from 4 XOR the row bits from 7.
  case Swizzle::B32: return a ^ ((a >> 3) & 0x10);
  case Swizzle::B64: return a ^ ((a >> 3) & 0x30);
  case Swizzle::B128: return a ^ ((a >> 3) & 0x70);
  // 32-byte chunk bits 5-6 XOR row bits 7-8.
  case Swizzle::B128Atom32B: return a ^ ((a >> 2) & 0x60);
  }
  return a;
}

//===----------------------------------------------------------------------===//
// Shared-memory descriptors
//===----------------------------------------------------------------------===//

namespace {
OrReason<Swizzle> tcgen05LayoutType(uint64_t code) {
  switch (code) {
  case 0: return Swizzle::None;
  case 1: return Swizzle::B128Atom32B;
  case 2: return Swizzle::B128;
  case 4: return Swizzle::B64;
  case 6: return Swizzle::B32;
  }
  return OrReason<Swizzle>::failure("layout type " + std::to_string(code) +
                                    " (bits 61-63) is reserved");
}

Swizzle wgmmaLayoutType(uint64_t code) {
  static const Swizzle byCode[] = {Swizzle::None, Swizzle::B128, Swizzle::B64,
                                   Swizzle::B32};
  return byCode[code];
}
} // namespace

OrReason<SharedDescriptorFields> model::readSharedDescriptor(uint64_t w,
                                                             Family family) {
  using R = OrReason<SharedDescriptorFields>;
  SharedDescriptorFields f;
  f.start = int64_t(bits(w, 0, 14)) << 4;
  f.lbo = int64_t(bits(w, 16, 14)) << 4;
  f.sbo = int64_t(bits(w, 32, 14)) << 4;
  f.baseOffset = unsigned(bits(w, 49, 3));
  // Bits 14-15, 30-31 and 53-60 belong to no field in either family.
  uint64_t unowned = 0x1FE0'0000'C000'C000ull;
  if (family == Family::Tcgen05) {
    if (bits(w, 46, 3) != 1)
      return R::failure("bits 46-48 are " + std::to_string(bits(w, 46, 3)) +
                        "; a tcgen05 descriptor has 0b001 there");
    f.lboAbsolute = bits(w, 52, 1);
    OrReason<Swizzle> s = tcgen05LayoutType(bits(w, 61, 3));
    if (!s)
      return R::failure(s.reason());
    f.swizzle = *s;
  } else {
    // wgmma: bits 46-48, 52 and 61 are reserved too.
    unowned |= (uint64_t(7) << 46) | (uint64_t(1) << 52) | (uint64_t(1) << 61);
    f.swizzle = wgmmaLayoutType(bits(w, 62, 2));
  }
  if (w & unowned)
    return R::failure("reserved bits are set (" + hex(w & unowned) + ")");
  return f;
}

//===----------------------------------------------------------------------===//
// Instruction descriptors
//===----------------------------------------------------------------------===//

llvm::StringRef model::nameOf(Kind k) {
  switch (k) {
  case Kind::F16: return "f16";
  case Kind::TF32: return "tf32";
  case Kind::F8F6F4: return "f8f6f4";
  case Kind::I8: return "i8";
  case Kind::MXF8F6F4: return "mxf8f6f4";
  case Kind::MXF4: return "mxf4";
  case Kind::MXF4NVF4: return "mxf4nvf4";
  }
  return "?";
}

bool model::isBlockScaled(Kind k) {
  return k == Kind::MXF8F6F4 || k == Kind::MXF4 || k == Kind::MXF4NVF4;
}

llvm::StringRef model::nameOf(Element e) {
  static const char *names[] = {"f16",  "bf16", "tf32", "e4m3", "e5m2",
                                "e2m3", "e3m2", "e2m1", "u8",   "s8"};
  return names[unsigned(e)];
}

namespace {
/// The element a kind's A/B format code names (Tables 42-44).
std::optional<Element> elementOf(Kind kind, uint64_t code) {
  switch (kind) {
  case Kind::F16:
    return code == 0 ? std::optional(Element::F16)
           : code == 1 ? std::optional(Element::BF16) : std::nullopt;
  case Kind::TF32:
    return code == 2 ? std::optional(Element::TF32) : std::nullopt;
  case Kind::I8:
    return code == 0 ? std::optional(Element::U8)
           : code == 1 ? std::optional(Element::S8) : std::nullopt;
  case Kind::F8F6F4: case Kind::MXF8F6F4: {
    static const std::optional<Element> byCode[] = {
        Element::E4M3, Element::E5M2, std::nullopt, Element::E2M3,
        Element::E3M2, Element::E2M1, std::nullopt, std::nullopt};
    return byCode[code & 7];
  }
  case Kind::MXF4: case Kind::MXF4NVF4:
    return code == 1 ? std::optional(Element::E2M1) : std::nullopt;
  }
  return std::nullopt;
}

/// The D format of the dense kinds (bits 4-5).
std::optional<Accumulator> accumulatorOf(Kind kind, uint64_t code) {
  bool f16Ok = kind == Kind::F16 || kind == Kind::F8F6F4;
  if (code == 0 && f16Ok)
    return Accumulator::F16;
  if (code == 1 && kind != Kind::I8)
    return Accumulator::F32;
  if (code == 2 && kind == Kind::I8)
    return Accumulator::S32;
  return std::nullopt;
}

using FieldsOr = OrReason<MmaFields>;

/// Formats (bits 7-9 and 10-12, or 10-11 for the mxf4 kinds).
FieldsOr readFormats(uint32_t w, Kind kind, MmaFields f) {
  unsigned bWidth = kind == Kind::MXF4 || kind == Kind::MXF4NVF4 ? 2 : 3;
  std::optional<Element> a = elementOf(kind, bits(w, 7, 3));
  std::optional<Element> b = elementOf(kind, bits(w, 10, bWidth));
  if (!a || !b)
    return FieldsOr::failure(
        "format codes A " + std::to_string(bits(w, 7, 3)) + ", B " +
        std::to_string(bits(w, 10, bWidth)) + " are not defined for kind::" +
        nameOf(kind).str());
  f.a = *a;
  f.b = *b;
  if (kind == Kind::F16 && f.a != f.b)
    return FieldsOr::failure("kind::f16 multiplies f16 by f16 or bf16 by bf16");
  return f;
}

/// The fields only the dense kinds have.
FieldsOr readDense(uint32_t w, Kind kind, bool ws, MmaFields f) {
  if (w & ((1u << 6) | (1u << 23) | (1u << 29)))
    return FieldsOr::failure("reserved bits 6, 23 or 29 are set");
  std::optional<Accumulator> d = accumulatorOf(kind, bits(w, 4, 2));
  if (!d)
    return FieldsOr::failure("D format " + std::to_string(bits(w, 4, 2)) +
                             " is not defined for kind::" + nameOf(kind).str());
  f.d = *d;
  if (kind == Kind::F16 && f.d == Accumulator::F16 && f.a != Element::F16)
    return FieldsOr::failure("an f16 accumulator takes f16 operands only");
  f.saturate = bits(w, 3, 1);
  if (f.saturate && kind != Kind::I8)
    return FieldsOr::failure("bit 3 (saturate) is for kind::i8 only");
  if (kind == Kind::I8 && (f.negateA || f.negateB))
    return FieldsOr::failure("kind::i8 does not negate");
  f.maxShift = unsigned(bits(w, 30, 2));
  if (f.maxShift && !ws)
    return FieldsOr::failure("bits 30-31 (maximum B shift) are read by .ws "
                             "only and must be 0 otherwise");
  if (f.maxShift)
    return FieldsOr::failure("a nonzero .ws maximum B shift (B reuse) is "
                             "not modelled");
  return f;
}

/// The fields only the block-scaled kinds have.
FieldsOr readScaled(uint32_t w, Kind kind, MmaFields f) {
  bool mxf4 = kind == Kind::MXF4 || kind == Kind::MXF4NVF4;
  uint32_t reserved = 0x3u | (1u << 3) | (1u << 6) | (0x7u << 24) |
                      (mxf4 ? (1u << 12) : (1u << 31));
  if (w & reserved)
    return FieldsOr::failure("reserved bits are set (" + hex(w & reserved) +
                             ")");
  if (mxf4 && bits(w, 31, 1))
    return FieldsOr::failure("bit 31 (K = 96, sm_103a) is not modelled");
  f.d = Accumulator::F32;
  f.ue8m0 = bits(w, 23, 1);
  f.sfbId = unsigned(bits(w, 4, 2));
  f.sfaId = unsigned(bits(w, 29, 2));
  if (!f.ue8m0 && kind != Kind::MXF4NVF4)
    return FieldsOr::failure("kind::" + nameOf(kind).str() +
                             " takes UE8M0 scales only (bit 23 = 1)");
  if (mxf4 && (f.aMnMajor || f.bMnMajor))
    return FieldsOr::failure("kind::" + nameOf(kind).str() +
                             " reads A and B K-major only");
  return f;
}
} // namespace

OrReason<MmaFields> model::readInstrDescriptor(uint32_t w, Kind kind,
                                               bool ws) {
  MmaFields f;
  if (bits(w, 2, 1))
    return FieldsOr::failure("bit 2 (sparsity) is set; sparse MMAs are not "
                             "modelled");
  f.negateA = bits(w, 13, 1);
  f.negateB = bits(w, 14, 1);
  f.aMnMajor = bits(w, 15, 1);
  f.bMnMajor = bits(w, 16, 1);
  f.n = unsigned(bits(w, 17, 6)) << 3;
  FieldsOr r = readFormats(w, kind, f);
  if (!r)
    return r;
  if (isBlockScaled(kind)) {
    // M >> 7 at bits 27-28 (24-26 reserved).
    r->m = unsigned(bits(w, 27, 2)) << 7;
    return readScaled(w, kind, *r);
  }
  if (bits(w, 0, 2))
    return FieldsOr::failure("bits 0-1 (sparsity selector) are set in a "
                             "dense instruction");
  r->m = unsigned(bits(w, 24, 5)) << 4;
  return readDense(w, kind, ws, *r);
}

unsigned model::storageBits(Kind kind, Element e) {
  switch (e) {
  case Element::F16: case Element::BF16: return 16;
  case Element::TF32: return 32;
  case Element::E2M1:
    return kind == Kind::MXF4 || kind == Kind::MXF4NVF4 ? 4 : 8;
  default: return 8;
  }
}

int64_t model::instructionK(Kind kind) {
  switch (kind) {
  case Kind::F16: return 16;
  case Kind::TF32: return 8;
  case Kind::F8F6F4: case Kind::I8: case Kind::MXF8F6F4: return 32;
  case Kind::MXF4: case Kind::MXF4NVF4: return 64;
  }
  return 16;
}

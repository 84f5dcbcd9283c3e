//===- InstrDescriptor.cpp - tcgen05.mma instruction descriptors ------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/InstrDescriptor.h"

#include "tile/Support/EnumTable.h"

#include "llvm/ADT/StringExtras.h"

using namespace tile::cuda;
using tile::OrReason;
using F = InstrDescriptorFields;

namespace {

constexpr llvm::StringLiteral kMmaKindNames[] = {
    "f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"};
static_assert(tile::hasRowPerEnumerator(kMmaKindNames, MmaKind::MXF4NVF4));

struct ElementRow {
  llvm::StringLiteral name;
  unsigned bits;
};
constexpr ElementRow kElements[] = {
    {"f16", 16}, {"bf16", 16}, {"tf32", 32}, {"e4m3", 8}, {"e5m2", 8},
    {"e2m3", 6}, {"e3m2", 6},  {"e2m1", 4},  {"u8", 8},   {"s8", 8}};
static_assert(tile::hasRowPerEnumerator(kElements, MmaElement::S8));

constexpr llvm::StringLiteral kAccumulatorNames[] = {"f16", "f32", "s32"};
static_assert(tile::hasRowPerEnumerator(kAccumulatorNames, MmaAccumulator::S32));

} // namespace

llvm::StringRef tile::cuda::mmaKindName(MmaKind kind) {
  const llvm::StringLiteral *name = tile::rowOf(kMmaKindNames, kind);
  return name ? llvm::StringRef(*name) : "?";
}

bool tile::cuda::isBlockScaled(MmaKind kind) {
  return kind == MmaKind::MXF8F6F4 || kind == MmaKind::MXF4 ||
         kind == MmaKind::MXF4NVF4;
}

llvm::StringRef tile::cuda::mmaElementName(MmaElement element) {
  const ElementRow *row = tile::rowOf(kElements, element);
  return row ? llvm::StringRef(row->name) : "?";
}

unsigned tile::cuda::mmaElementBits(MmaElement element) {
  const ElementRow *row = tile::rowOf(kElements, element);
  return row ? row->bits : 0;
}

llvm::StringRef tile::cuda::mmaAccumulatorName(MmaAccumulator accumulator) {
  const llvm::StringLiteral *name = tile::rowOf(kAccumulatorNames, accumulator);
  return name ? llvm::StringRef(*name) : "?";
}

std::optional<unsigned> tile::cuda::mmaElementFormat(MmaKind kind,
                                                     MmaElement element) {
  switch (kind) {
  case MmaKind::F16:
    if (element == MmaElement::F16) return 0;
    if (element == MmaElement::BF16) return 1;
    return std::nullopt;
  case MmaKind::TF32:
    if (element == MmaElement::TF32) return 2;
    return std::nullopt;
  case MmaKind::F8F6F4:
  case MmaKind::MXF8F6F4:
    switch (element) {
    case MmaElement::E4M3: return 0;
    case MmaElement::E5M2: return 1;
    case MmaElement::E2M3: return 3;
    case MmaElement::E3M2: return 4;
    case MmaElement::E2M1: return 5;
    default: return std::nullopt;
    }
  case MmaKind::I8:
    if (element == MmaElement::U8) return 0;
    if (element == MmaElement::S8) return 1;
    return std::nullopt;
  case MmaKind::MXF4:
  case MmaKind::MXF4NVF4:
    if (element == MmaElement::E2M1) return 1;
    return std::nullopt;
  }
  return std::nullopt;
}

unsigned tile::cuda::mmaInstructionK(MmaKind kind) {
  switch (kind) {
  case MmaKind::F16: return 16;
  case MmaKind::TF32: return 8;
  case MmaKind::F8F6F4: case MmaKind::I8: case MmaKind::MXF8F6F4: return 32;
  case MmaKind::MXF4: case MmaKind::MXF4NVF4: return 64;
  }
  return 0;
}

unsigned tile::cuda::scaleVectorSize(MmaKind kind, ScaleFactorType type) {
  switch (kind) {
  case MmaKind::MXF8F6F4: case MmaKind::MXF4: return 32;
  case MmaKind::MXF4NVF4: return type == ScaleFactorType::UE4M3 ? 16 : 32;
  default: return 0;
  }
}

namespace {
std::string str(uint64_t v) { return std::to_string(v); }

std::optional<MmaElement> elementForFormat(MmaKind kind, unsigned format) {
  for (MmaElement e :
       {MmaElement::F16, MmaElement::BF16, MmaElement::TF32, MmaElement::E4M3,
        MmaElement::E5M2, MmaElement::E2M3, MmaElement::E3M2, MmaElement::E2M1,
        MmaElement::U8, MmaElement::S8})
    if (mmaElementFormat(kind, e) == format)
      return e;
  return std::nullopt;
}

std::optional<unsigned> accumulatorFormat(MmaKind kind, MmaAccumulator d) {
  switch (kind) {
  case MmaKind::F16: case MmaKind::F8F6F4:
    if (d == MmaAccumulator::F16) return 0;
    if (d == MmaAccumulator::F32) return 1;
    return std::nullopt;
  case MmaKind::TF32:
    if (d == MmaAccumulator::F32) return 1;
    return std::nullopt;
  case MmaKind::I8:
    if (d == MmaAccumulator::S32) return 2;
    return std::nullopt;
  default:
    if (d == MmaAccumulator::F32) return 1; // implied, not encoded
    return std::nullopt;
  }
}
} // namespace

std::vector<std::string> InstrDescriptor::problems() const {
  std::vector<std::string> out;
  std::string k = "kind::" + mmaKindName(kind).str();
  if (!mmaElementFormat(kind, a))
    out.push_back(k + " does not take A elements of type " +
                  mmaElementName(a).str());
  if (!mmaElementFormat(kind, b))
    out.push_back(k + " does not take B elements of type " +
                  mmaElementName(b).str());
  if (!accumulatorFormat(kind, d))
    out.push_back(k + " does not accumulate in " +
                  mmaAccumulatorName(d).str());
  if (saturate && kind != MmaKind::I8)
    out.push_back("saturate is a kind::i8 flag");
  if ((negateA || negateB) && kind == MmaKind::I8)
    out.push_back("kind::i8 operands cannot be negated");
  if (m % 16 || !F::MShifted::fits(m >> 4) || m == 0)
    out.push_back("M = " + str(m) + " is not a multiple of 16 in 16..496");
  if (n % 8 || !F::NShifted::fits(n >> 3) || n == 0)
    out.push_back("N = " + str(n) + " is not a multiple of 8 in 8..504");
  if (isBlockScaled(kind)) {
    if (!F::AScaleId::fits(aScaleId) || !F::BScaleId::fits(bScaleId))
      out.push_back("scale-factor ids " + str(aScaleId) + "/" +
                    str(bScaleId) + " are not bytes 0..3 of a column");
    if (kind == MmaKind::MXF4 && scaleType != ScaleFactorType::UE8M0)
      out.push_back("kind::mxf4 scales are ue8m0");
    if (kind == MmaKind::MXF8F6F4 && scaleType != ScaleFactorType::UE8M0)
      out.push_back("kind::mxf8f6f4 scales are ue8m0");
  } else if (aScaleId || bScaleId) {
    out.push_back(k + " has no scale factors");
  }
  return out;
}

std::optional<uint32_t> InstrDescriptor::encode() const {
  if (!problems().empty())
    return std::nullopt;
  uint64_t w = 0;
  w = F::Saturate::insert(w, saturate);
  w = F::AFormat::insert(w, *mmaElementFormat(kind, a));
  w = F::BFormat::insert(w, *mmaElementFormat(kind, b));
  w = F::NegateA::insert(w, negateA);
  w = F::NegateB::insert(w, negateB);
  w = F::AMajor::insert(w, aMnMajor);
  w = F::BMajor::insert(w, bMnMajor);
  w = F::NShifted::insert(w, n >> 3);
  w = F::MShifted::insert(w, m >> 4);
  if (isBlockScaled(kind)) {
    w = F::BScaleId::insert(w, bScaleId);
    w = F::ScaleType::insert(w, scaleType == ScaleFactorType::UE8M0);
    w = F::AScaleId::insert(w, aScaleId);
  } else {
    w = F::DFormat::insert(w, *accumulatorFormat(kind, d));
  }
  return static_cast<uint32_t>(w);
}

OrReason<InstrDescriptor> InstrDescriptor::decode(uint32_t word, MmaKind kind) {
  tile::Reasons reasons;
  bool scaled = isBlockScaled(kind);
  uint64_t reserved =
      word & (scaled ? F::scaledReservedMask : F::denseReservedMask);
  if (reserved)
    reasons.add("reserved bits are set (mask 0x" + llvm::utohexstr(reserved) +
                ")");
  if (F::Sparse::extract(word) || F::SparseSelector::extract(word))
    reasons.add("a sparse descriptor (bits 0-2)");
  if (!scaled && F::MaxShift::extract(word))
    reasons.add("a max shift (bits 30-31) belongs to tcgen05.mma.ws");
  InstrDescriptor d;
  d.kind = kind;
  std::optional<MmaElement> a =
      elementForFormat(kind, F::AFormat::extract(word));
  std::optional<MmaElement> b =
      elementForFormat(kind, F::BFormat::extract(word));
  if (!a)
    reasons.add("A format " + str(F::AFormat::extract(word)) +
                " is not defined for " + "kind::" + mmaKindName(kind).str());
  if (!b)
    reasons.add("B format " + str(F::BFormat::extract(word)) +
                " is not defined for " + "kind::" + mmaKindName(kind).str());
  if (!scaled) {
    std::optional<MmaAccumulator> acc;
    for (MmaAccumulator c : {MmaAccumulator::F16, MmaAccumulator::F32,
                             MmaAccumulator::S32})
      if (accumulatorFormat(kind, c) == F::DFormat::extract(word))
        acc = c;
    if (!acc)
      reasons.add("D format " + str(F::DFormat::extract(word)) +
                  " is not defined for kind::" + mmaKindName(kind).str());
    else
      d.d = *acc;
  }
  if (!reasons.empty())
    return OrReason<InstrDescriptor>::failure(reasons.str());
  d.a = *a;
  d.b = *b;
  d.saturate = F::Saturate::extract(word);
  d.negateA = F::NegateA::extract(word);
  d.negateB = F::NegateB::extract(word);
  d.aMnMajor = F::AMajor::extract(word);
  d.bMnMajor = F::BMajor::extract(word);
  d.n = static_cast<unsigned>(F::NShifted::extract(word) << 3);
  d.m = static_cast<unsigned>(F::MShifted::extract(word) << 4);
  if (scaled) {
    d.saturate = false;
    d.bScaleId = static_cast<unsigned>(F::BScaleId::extract(word));
    d.aScaleId = static_cast<unsigned>(F::AScaleId::extract(word));
    d.scaleType = F::ScaleType::extract(word) ? ScaleFactorType::UE8M0
                                              : ScaleFactorType::UE4M3;
  }
  return d;
}

bool InstrDescriptor::operator==(const InstrDescriptor &o) const {
  return kind == o.kind && a == o.a && b == o.b && d == o.d &&
         aMnMajor == o.aMnMajor && bMnMajor == o.bMnMajor &&
         negateA == o.negateA && negateB == o.negateB &&
         saturate == o.saturate && m == o.m && n == o.n &&
         scaleType == o.scaleType && aScaleId == o.aScaleId &&
         bScaleId == o.bScaleId;
}

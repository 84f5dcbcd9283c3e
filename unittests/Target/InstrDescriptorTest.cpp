//===- InstrDescriptorTest.cpp - tcgen05.mma instruction descriptors --------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/InstrDescriptor.h"

#include "../RefusalOf.h"

#include "gtest/gtest.h"

using namespace tile::cuda;
using tile::testing::refusalOf;

namespace {

InstrDescriptor dense(MmaKind kind, MmaElement ab, MmaAccumulator d,
                      unsigned m, unsigned n) {
  InstrDescriptor desc;
  desc.kind = kind;
  desc.a = desc.b = ab;
  desc.d = d;
  desc.m = m;
  desc.n = n;
  return desc;
}

InstrDescriptor scaled(MmaKind kind, ScaleFactorType type, unsigned m,
                       unsigned n, unsigned aId = 0, unsigned bId = 0) {
  InstrDescriptor desc;
  desc.kind = kind;
  desc.a = desc.b = MmaElement::E2M1;
  desc.scaleType = type;
  desc.m = m;
  desc.n = n;
  desc.aScaleId = aId;
  desc.bScaleId = bId;
  return desc;
}

// Values computed from the PTX ISA's field table and values Triton's lit
// tests pin (in decimal there; in hex: 0x08200020, 0x082004A0, 0x08400480,
// 0x08C00480, 0x48C004A0): both directions, encode and decode.
struct Published {
  const char *what;
  InstrDescriptor desc;
  uint32_t word;
};

TEST(InstrDescriptor, PublishedConstants) {
  const Published cases[] = {
      {"bf16->f32 M128 N256",
       dense(MmaKind::F16, MmaElement::BF16, MmaAccumulator::F32, 128, 256),
       0x08400490u},
      {"f16->f32 M128 N128",
       dense(MmaKind::F16, MmaElement::F16, MmaAccumulator::F32, 128, 128),
       0x08200010u},
      {"u8->s32 M128 N128 (Triton 136314912)",
       dense(MmaKind::I8, MmaElement::U8, MmaAccumulator::S32, 128, 128),
       136314912u},
      {"s8->s32 M128 N128 (Triton 136316064)",
       dense(MmaKind::I8, MmaElement::S8, MmaAccumulator::S32, 128, 128),
       136316064u},
      {"nvfp4 M128 N256 ue4m3 (Triton 138413184)",
       scaled(MmaKind::MXF4NVF4, ScaleFactorType::UE4M3, 128, 256),
       138413184u},
      {"mxfp4 M128 N256 ue8m0 (Triton 146801792)",
       scaled(MmaKind::MXF4, ScaleFactorType::UE8M0, 128, 256), 146801792u},
      {"mxfp4 ue8m0, scale-factor ids 2 (Triton 1220543648)",
       scaled(MmaKind::MXF4, ScaleFactorType::UE8M0, 128, 256, 2, 2),
       1220543648u},
  };
  for (const Published &c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_TRUE(c.desc.problems().empty());
    ASSERT_TRUE(c.desc.encode());
    EXPECT_EQ(*c.desc.encode(), c.word);
    tile::OrReason<InstrDescriptor> back =
        InstrDescriptor::decode(c.word, c.desc.kind);
    ASSERT_TRUE(back) << back.reason();
    EXPECT_EQ(*back, c.desc);
  }
}

TEST(InstrDescriptor, EachFieldLandsInItsBits) {
  auto enc = [](InstrDescriptor d) { return *d.encode(); };
  // f16 inputs, f16 accumulator, M 16 N 8: only the shape fields are set.
  InstrDescriptor d =
      dense(MmaKind::F16, MmaElement::F16, MmaAccumulator::F16, 16, 8);
  EXPECT_EQ(enc(d), (1u << 24) | (1u << 17));
  d.aMnMajor = true;
  EXPECT_EQ(enc(d), (1u << 24) | (1u << 17) | (1u << 15));
  d.aMnMajor = false;
  d.bMnMajor = true;
  EXPECT_EQ(enc(d), (1u << 24) | (1u << 17) | (1u << 16));
  d.bMnMajor = false;
  d.negateA = true;
  d.negateB = true;
  EXPECT_EQ(enc(d), (1u << 24) | (1u << 17) | (3u << 13));
  // tf32: format 2 in both operand fields, f32 D.
  d = dense(MmaKind::TF32, MmaElement::TF32, MmaAccumulator::F32, 64, 8);
  EXPECT_EQ(enc(d), (4u << 24) | (1u << 17) | (2u << 10) | (2u << 7) |
                        (1u << 4));
  // f8f6f4: e5m2 x e2m1 (formats 1 and 5), M 256 N 256.
  d = dense(MmaKind::F8F6F4, MmaElement::E5M2, MmaAccumulator::F32, 256, 256);
  d.b = MmaElement::E2M1;
  EXPECT_EQ(enc(d), (16u << 24) | (32u << 17) | (5u << 10) | (1u << 7) |
                        (1u << 4));
  // i8 saturate is bit 3.
  d = dense(MmaKind::I8, MmaElement::S8, MmaAccumulator::S32, 64, 8);
  d.saturate = true;
  EXPECT_EQ(enc(d), (4u << 24) | (1u << 17) | (1u << 10) | (1u << 7) |
                        (2u << 4) | (1u << 3));
  // mxf8f6f4 e4m3: scale ids at 29-30 (A) and 4-5 (B), ue8m0 at 23.
  d = scaled(MmaKind::MXF8F6F4, ScaleFactorType::UE8M0, 128, 64, 3, 1);
  d.a = d.b = MmaElement::E4M3;
  EXPECT_EQ(enc(d), (3u << 29) | (8u << 24) | (1u << 23) | (8u << 17) |
                        (1u << 4));
}

TEST(InstrDescriptor, RefusesWhatItCannotEncode) {
  InstrDescriptor d =
      dense(MmaKind::F16, MmaElement::TF32, MmaAccumulator::S32, 100, 260);
  std::vector<std::string> p = d.problems();
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0], "kind::f16 does not take A elements of type tf32");
  EXPECT_EQ(p[1], "kind::f16 does not take B elements of type tf32");
  EXPECT_EQ(p[2], "kind::f16 does not accumulate in s32");
  EXPECT_EQ(p[3], "M = 100 is not a multiple of 16 in 16..496");
  EXPECT_EQ(p[4], "N = 260 is not a multiple of 8 in 8..504");
  EXPECT_FALSE(d.encode());

  d = scaled(MmaKind::MXF4, ScaleFactorType::UE4M3, 128, 128, 4, 0);
  p = d.problems();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], "scale-factor ids 4/0 are not bytes 0..3 of a column");
  EXPECT_EQ(p[1], "kind::mxf4 scales are ue8m0");

  d = dense(MmaKind::F16, MmaElement::F16, MmaAccumulator::F32, 128, 128);
  d.saturate = true;
  ASSERT_EQ(d.problems().size(), 1u);
  EXPECT_EQ(d.problems()[0], "saturate is a kind::i8 flag");
}

TEST(InstrDescriptor, DecodeRejectsReservedAndUndefined) {
  std::string why;
  // Bit 23 is reserved in a dense descriptor (it is the scale type of the
  // block-scaled ones): the mxfp4 constant is not a valid f16 descriptor.
  why = refusalOf(InstrDescriptor::decode(0x08C00480u, MmaKind::F16));
  EXPECT_NE(why.find("reserved bits are set (mask 0x800000)"),
            std::string::npos)
      << why;
  // A format 2 (tf32) under kind::f16.
  why = refusalOf(InstrDescriptor::decode(0x08200110u, MmaKind::F16));
  EXPECT_NE(why.find("A format 2 is not defined for kind::f16"),
            std::string::npos)
      << why;
  // Sparse and .ws max-shift bits are refused.
  why = refusalOf(InstrDescriptor::decode(0x08200014u, MmaKind::F16));
  EXPECT_NE(why.find("sparse"), std::string::npos) << why;
  why = refusalOf(InstrDescriptor::decode(0xC8200010u, MmaKind::F16));
  EXPECT_NE(why.find("max shift"), std::string::npos) << why;
  // Bit 31 is reserved in a block-scaled descriptor.
  why = refusalOf(InstrDescriptor::decode(0x88400480u, MmaKind::MXF4));
  EXPECT_NE(why.find("mask 0x80000000"), std::string::npos) << why;
}

TEST(InstrDescriptor, KindFacts) {
  EXPECT_EQ(mmaInstructionK(MmaKind::F16), 16u);
  EXPECT_EQ(mmaInstructionK(MmaKind::TF32), 8u);
  EXPECT_EQ(mmaInstructionK(MmaKind::F8F6F4), 32u);
  EXPECT_EQ(mmaInstructionK(MmaKind::I8), 32u);
  EXPECT_EQ(mmaInstructionK(MmaKind::MXF8F6F4), 32u);
  EXPECT_EQ(mmaInstructionK(MmaKind::MXF4), 64u);
  EXPECT_EQ(mmaInstructionK(MmaKind::MXF4NVF4), 64u);
  // K of one instruction is 256 bits of a row for every unpacked kind.
  for (auto [kind, e] : {std::pair{MmaKind::F16, MmaElement::F16},
                         {MmaKind::TF32, MmaElement::TF32},
                         {MmaKind::I8, MmaElement::S8},
                         {MmaKind::MXF4, MmaElement::E2M1}})
    EXPECT_EQ(mmaInstructionK(kind) * mmaElementBits(e), 256u);
  EXPECT_EQ(scaleVectorSize(MmaKind::MXF4NVF4, ScaleFactorType::UE4M3), 16u);
  EXPECT_EQ(scaleVectorSize(MmaKind::MXF4NVF4, ScaleFactorType::UE8M0), 32u);
  EXPECT_EQ(scaleVectorSize(MmaKind::MXF8F6F4, ScaleFactorType::UE8M0), 32u);
  EXPECT_EQ(scaleVectorSize(MmaKind::F16, ScaleFactorType::UE8M0), 0u);
}

// The f8f6f4 format codes of the PTX ISA's instruction-descriptor table
// (e4m3 0, e5m2 1, e2m3 3, e3m2 4, e2m1 5), written out bit by bit: dtype
// f32 (1) at bits 4-5, atype at 7-9, btype at 10-12, N >> 3 at 17-22,
// M >> 4 at 24-28.
TEST(InstrDescriptor, F8F6F4FormatCodesFromThePtxTable) {
  auto word = [](MmaElement a, MmaElement b) {
    InstrDescriptor desc =
        dense(MmaKind::F8F6F4, a, MmaAccumulator::F32, 128, 128);
    desc.b = b;
    return desc.encode();
  };
  auto expected = [](uint32_t a, uint32_t b) {
    return uint32_t(1u << 4 | a << 7 | b << 10 | (128u >> 3) << 17 |
                    (128u >> 4) << 24);
  };
  EXPECT_EQ(word(MmaElement::E2M3, MmaElement::E3M2), expected(3, 4));
  EXPECT_EQ(word(MmaElement::E2M3, MmaElement::E3M2), 0x08201190u);
  EXPECT_EQ(word(MmaElement::E4M3, MmaElement::E2M1), expected(0, 5));
  EXPECT_EQ(word(MmaElement::E5M2, MmaElement::E2M3), expected(1, 3));
  EXPECT_EQ(word(MmaElement::E3M2, MmaElement::E4M3), expected(4, 0));
}

// M is encoded as M >> 4: an M that is a multiple of 8 but not of 16
// cannot be written.
TEST(InstrDescriptor, MMustBeAMultipleOf16) {
  EXPECT_FALSE(
      dense(MmaKind::F16, MmaElement::F16, MmaAccumulator::F32, 72, 128)
          .encode());
  EXPECT_FALSE(
      dense(MmaKind::F16, MmaElement::F16, MmaAccumulator::F32, 136, 128)
          .problems()
          .empty());
  EXPECT_TRUE(
      dense(MmaKind::F16, MmaElement::F16, MmaAccumulator::F32, 64, 128)
          .encode());
}

} // namespace

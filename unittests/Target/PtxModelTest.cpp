//===- PtxModelTest.cpp - the PTX-semantics model against published facts
//--===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The model is checked here against facts published outside this project,
// never against its own output: descriptor and instruction-descriptor words
// computed by hand from the PTX ISA's tables (Tables 40, 42-44) and the
// constants Triton-generated kernels and DeepGEMM-style kernels carry, the
// ISA's worked canonical-layout examples (9.7.16.3.3), CUTLASS's
// Swizzle<2,5,2> / Layout_MN_SW128_32B_Atom, the data-path layouts as TVM
// TIRx's tmem_datapath_layout and the ISA's table state them, the
// tcgen05.cp warpx4 broadcast, and TIRx's tensor-map golden. Where an
// encoder word is compared, the same pinned value is asked of the encoder
// (SmemDescriptor / InstrDescriptor) and read back by the model, so a
// wrong bit position on either side fails.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/InstrDescriptor.h"
#include "tile/Target/CUDA/Model/SharedMemoryModel.h"
#include "tile/Target/CUDA/Model/Tcgen05Model.h"
#include "tile/Target/CUDA/SmemDescriptor.h"

#include "../RefusalOf.h"

#include "gtest/gtest.h"

#include <set>

using namespace tile::cuda;
using namespace tile::cuda::model;

namespace {

using tile::OrReason;
using tile::testing::refusalOf;

constexpr uint64_t kVersion = uint64_t(1) << 46; // tcgen05 bits 46-48 = 0b001

//===----------------------------------------------------------------------===//
// Shared-memory descriptors
//===----------------------------------------------------------------------===//

TEST(PtxModel, DescriptorWordsFromTheIsaTable) {
  // Table 40: start 0x400 -> 0x40, LBO 16 -> 1 at bit 16, SBO 1024 -> 64 at
  // bit 32, 0b001 at 46, layout type 2 (128B) at 61.
  const uint64_t word = 0x4000404000010040ull;
  OrReason<SharedDescriptorFields> d =
      readSharedDescriptor(word, Family::Tcgen05);
  ASSERT_TRUE(d) << d.reason();
  EXPECT_EQ(d->start, 0x400);
  EXPECT_EQ(d->lbo, 16);
  EXPECT_EQ(d->sbo, 1024);
  EXPECT_EQ(d->swizzle, Swizzle::B128);
  SmemDescriptor enc;
  enc.startAddress = 0x400;
  enc.leadingByteOffset = 16;
  enc.strideByteOffset = 1024;
  enc.swizzle = SmemSwizzle::B128;
  EXPECT_EQ(enc.encode(DescriptorFlavour::Tcgen05), word);
  // LBO alone sets bit 16, SBO alone bit 32: a swap of the two shows.
  SmemDescriptor lbo, sbo;
  lbo.leadingByteOffset = 16;
  sbo.strideByteOffset = 16;
  EXPECT_EQ(*lbo.encode(), kVersion | (uint64_t(1) << 16));
  EXPECT_EQ(*sbo.encode(), kVersion | (uint64_t(1) << 32));
  EXPECT_EQ(readSharedDescriptor(*lbo.encode(), Family::Tcgen05)->lbo, 16);
  EXPECT_EQ(readSharedDescriptor(*sbo.encode(), Family::Tcgen05)->sbo, 16);
  // The wgmma word: bit 46 clear, 2-bit layout type at 62 (1 = 128B).
  EXPECT_EQ(enc.encode(DescriptorFlavour::Wgmma), 0x4000004000010040ull);
  EXPECT_EQ(readSharedDescriptor(0x4000004000010040ull, Family::Wgmma)->swizzle,
            Swizzle::B128);
}

TEST(PtxModel, EverySwizzleCodeAgrees) {
  // Table 40's layout types: 0 none, 1 128B/32B atoms, 2 128B, 4 64B, 6
  // 32B; wgmma's: 1 128B, 2 64B, 3 32B at bits 62-63.
  struct Case {
    SmemSwizzle enc;
    Swizzle model;
    uint64_t tcgen05Code, wgmmaCode;
  } cases[] = {{SmemSwizzle::None, Swizzle::None, 0, 0},
               {SmemSwizzle::B128Atom32B, Swizzle::B128Atom32B, 1, 99},
               {SmemSwizzle::B128, Swizzle::B128, 2, 1},
               {SmemSwizzle::B64, Swizzle::B64, 4, 2},
               {SmemSwizzle::B32, Swizzle::B32, 6, 3}};
  for (const Case &c : cases) {
    SCOPED_TRACE(nameOf(c.model).str());
    SmemDescriptor s;
    s.swizzle = c.enc;
    EXPECT_EQ(*s.encode(DescriptorFlavour::Tcgen05),
              kVersion | (c.tcgen05Code << 61));
    EXPECT_EQ(readSharedDescriptor(kVersion | (c.tcgen05Code << 61),
                                   Family::Tcgen05)->swizzle, c.model);
    if (c.wgmmaCode == 99)
      continue;
    EXPECT_EQ(*s.encode(DescriptorFlavour::Wgmma), c.wgmmaCode << 62);
    EXPECT_EQ(readSharedDescriptor(c.wgmmaCode << 62, Family::Wgmma)->swizzle,
              c.model);
  }
}

TEST(PtxModel, DescriptorReadingRefusesReservedEncodings) {
  auto why = [](uint64_t w, Family f) {
    return refusalOf(readSharedDescriptor(w, f));
  };
  EXPECT_EQ(why(0x4000004000010040ull, Family::Tcgen05),
            "bits 46-48 are 0; a tcgen05 descriptor has 0b001 there");
  for (uint64_t code : {3u, 5u, 7u})
    EXPECT_EQ(why(kVersion | (code << 61), Family::Tcgen05),
              "layout type " + std::to_string(code) +
                  " (bits 61-63) is reserved");
  EXPECT_EQ(why(kVersion | (uint64_t(1) << 14), Family::Tcgen05),
            "reserved bits are set (0x4000)");
  EXPECT_EQ(why(kVersion, Family::Wgmma), "reserved bits are set (0x400000000000)");
  EXPECT_FALSE(readSharedDescriptor(uint64_t(1) << 61, Family::Wgmma));
  EXPECT_FALSE(readSharedDescriptor(uint64_t(1) << 52, Family::Wgmma));
}

//===----------------------------------------------------------------------===//
// Instruction descriptors
//===----------------------------------------------------------------------===//

struct IdescCase {
  MmaKind kind;
  Kind modelKind;
  MmaElement a, b;
  MmaAccumulator d;
  bool aMn, bMn;
  unsigned m, n;
  uint32_t word; // by hand from Tables 42-44
  Element modelA, modelB;
};

TEST(PtxModel, InstrDescriptorWordsForEveryFormat) {
  // Dense: D format at 4, A at 7, B at 10, majors at 15/16, N >> 3 at 17,
  // M >> 4 at 24. 0x08200010 (f16 -> f32, M 128, N 128) and 0x08200020 (u8
  // -> s32) are the constants Triton-generated kernels issue.
  const IdescCase cases[] = {
      {MmaKind::F16, Kind::F16, MmaElement::F16, MmaElement::F16,
       MmaAccumulator::F32, false, false, 128, 128, 0x08200010u, Element::F16,
       Element::F16},
      {MmaKind::F16, Kind::F16, MmaElement::F16, MmaElement::F16,
       MmaAccumulator::F16, false, false, 128, 128, 0x08200000u, Element::F16,
       Element::F16},
      {MmaKind::F16, Kind::F16, MmaElement::BF16, MmaElement::BF16,
       MmaAccumulator::F32, true, true, 128, 128, 0x08218490u, Element::BF16,
       Element::BF16},
      {MmaKind::TF32, Kind::TF32, MmaElement::TF32, MmaElement::TF32,
       MmaAccumulator::F32, false, true, 64, 256, 0x04410910u, Element::TF32,
       Element::TF32},
      {MmaKind::F8F6F4, Kind::F8F6F4, MmaElement::E4M3, MmaElement::E5M2,
       MmaAccumulator::F32, false, false, 128, 128, 0x08200410u, Element::E4M3,
       Element::E5M2},
      {MmaKind::F8F6F4, Kind::F8F6F4, MmaElement::E2M3, MmaElement::E2M3,
       MmaAccumulator::F32, false, false, 128, 128, 0x08200D90u, Element::E2M3,
       Element::E2M3},
      {MmaKind::F8F6F4, Kind::F8F6F4, MmaElement::E3M2, MmaElement::E2M1,
       MmaAccumulator::F16, false, false, 128, 64, 0x08101600u, Element::E3M2,
       Element::E2M1},
      {MmaKind::I8, Kind::I8, MmaElement::U8, MmaElement::U8,
       MmaAccumulator::S32, false, false, 128, 128, 0x08200020u, Element::U8,
       Element::U8},
      {MmaKind::I8, Kind::I8, MmaElement::S8, MmaElement::S8,
       MmaAccumulator::S32, false, false, 128, 8, 0x080204A0u, Element::S8,
       Element::S8},
  };
  for (const IdescCase &c : cases) {
    SCOPED_TRACE(std::to_string(c.word));
    InstrDescriptor enc;
    enc.kind = c.kind;
    enc.a = c.a;
    enc.b = c.b;
    enc.d = c.d;
    enc.aMnMajor = c.aMn;
    enc.bMnMajor = c.bMn;
    enc.m = c.m;
    enc.n = c.n;
    EXPECT_EQ(enc.encode(), c.word);
    OrReason<MmaFields> f = readInstrDescriptor(c.word, c.modelKind, false);
    ASSERT_TRUE(f) << f.reason();
    EXPECT_EQ(f->a, c.modelA);
    EXPECT_EQ(f->b, c.modelB);
    EXPECT_EQ(f->aMnMajor, c.aMn);
    EXPECT_EQ(f->bMnMajor, c.bMn);
    EXPECT_EQ(f->m, c.m);
    EXPECT_EQ(f->n, c.n);
  }
}

TEST(PtxModel, BlockScaledInstrDescriptorWords) {
  // Table 43 (mxf8f6f4): B scale id at 4, scale type at 23 (UE8M0 = 1),
  // M >> 7 at 27, A scale id at 29. Table 44 (mxf4 kinds): E2M1 = 1, B's
  // format 2 bits wide, UE4M3 = 0 for mxf4nvf4.
  InstrDescriptor enc;
  enc.kind = MmaKind::MXF8F6F4;
  enc.a = enc.b = MmaElement::E4M3;
  enc.scaleType = ScaleFactorType::UE8M0;
  enc.aScaleId = 1;
  enc.bScaleId = 3;
  EXPECT_EQ(enc.encode(), 0x28A00030u);
  OrReason<MmaFields> f = readInstrDescriptor(0x28A00030u, Kind::MXF8F6F4, false);
  ASSERT_TRUE(f) << f.reason();
  EXPECT_EQ(f->sfaId, 1u);
  EXPECT_EQ(f->sfbId, 3u);
  EXPECT_TRUE(f->ue8m0);
  EXPECT_EQ(f->m, 128u);
  enc.kind = MmaKind::MXF4NVF4;
  enc.a = enc.b = MmaElement::E2M1;
  enc.scaleType = ScaleFactorType::UE4M3;
  enc.aScaleId = enc.bScaleId = 0;
  EXPECT_EQ(enc.encode(), 0x08200480u);
  f = readInstrDescriptor(0x08200480u, Kind::MXF4NVF4, false);
  ASSERT_TRUE(f) << f.reason();
  EXPECT_EQ(f->a, Element::E2M1);
  EXPECT_FALSE(f->ue8m0);
  // mxf4 takes UE8M0 only; bit 12 is reserved there.
  EXPECT_EQ(refusalOf(readInstrDescriptor(0x08200480u, Kind::MXF4, false)),
            "kind::mxf4 takes UE8M0 scales only (bit 23 = 1)");
  EXPECT_FALSE(readInstrDescriptor(0x08A01480u, Kind::MXF4, false));
}

TEST(PtxModel, InstrDescriptorRefusals) {
  auto why = [](uint32_t w, Kind k, bool ws = false) {
    return refusalOf(readInstrDescriptor(w, k, ws));
  };
  EXPECT_EQ(why(0x08200010u | (1u << 6), Kind::F16),
            "reserved bits 6, 23 or 29 are set");
  EXPECT_EQ(why(0x08200010u | (1u << 2), Kind::F16),
            "bit 2 (sparsity) is set; sparse MMAs are not modelled");
  EXPECT_EQ(why(0x08200010u | (1u << 30), Kind::F16),
            "bits 30-31 (maximum B shift) are read by .ws only and must be 0 "
            "otherwise");
  EXPECT_EQ(why(0x08200490u & ~0x10u, Kind::F16),
            "an f16 accumulator takes f16 operands only");
  EXPECT_EQ(why(0x08200010u | (2u << 7), Kind::F8F6F4),
            "format codes A 2, B 0 are not defined for kind::f8f6f4");
  EXPECT_EQ(why(0x08200030u, Kind::I8), "D format 3 is not defined for kind::i8");
}

//===----------------------------------------------------------------------===//
// Swizzles and canonical layouts
//===----------------------------------------------------------------------===//

TEST(PtxModel, SwizzlePatterns) {
  // 16-byte chunk c of row r (W-byte rows) lands in chunk c ^ (r % (W/16)).
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t chunk = 0; chunk < 8; ++chunk)
      EXPECT_EQ(swizzleAddress(row * 128 + chunk * 16 + 3, Swizzle::B128),
                row * 128 + ((chunk ^ row) * 16) + 3);
  EXPECT_EQ(swizzleAddress(0x100, Swizzle::B64), 0x120);
  EXPECT_EQ(swizzleAddress(0x180, Swizzle::B64), 0x1B0);
  EXPECT_EQ(swizzleAddress(0x80, Swizzle::B32), 0x90);
  EXPECT_EQ(swizzleAddress(0x100, Swizzle::B32), 0x100);
  EXPECT_EQ(swizzleAddress(0x470, Swizzle::None), 0x470);
  // Swizzle<2,5,2>: 32-byte chunk bits 5-6 XOR bits 7-8, repeating every
  // 4 rows of 128 bytes.
  EXPECT_EQ(swizzleAddress(0x080, Swizzle::B128Atom32B), 0x0A0);
  EXPECT_EQ(swizzleAddress(0x180, Swizzle::B128Atom32B), 0x1E0);
  EXPECT_EQ(swizzleAddress(0x1A5, Swizzle::B128Atom32B), 0x1C5);
  EXPECT_EQ(swizzleAddress(0x060, Swizzle::B128Atom32B), 0x060);
  EXPECT_EQ(swizzleAddress(0x210, Swizzle::B128Atom32B), 0x210);
  EXPECT_EQ(swizzlePatternBytes(Swizzle::B128), 1024);
  EXPECT_EQ(swizzlePatternBytes(Swizzle::B128Atom32B), 512);
  EXPECT_EQ(swizzlePatternBytes(Swizzle::B32), 256);
}

/// A tcgen05 descriptor word for the model, by Table 40.
uint64_t word(int64_t start, int64_t lbo, int64_t sbo, uint64_t layoutType) {
  return kVersion | (layoutType << 61) | (uint64_t(sbo >> 4) << 32) |
         (uint64_t(lbo >> 4) << 16) | uint64_t(start >> 4);
}

ElementAddress at(uint64_t w, OperandMajor major, unsigned bits, int64_t r,
                  int64_t k) {
  OrReason<SharedOperandModel> m =
      SharedOperandModel::create(w, Family::Tcgen05, major, bits);
  EXPECT_TRUE(m) << m.reason();
  return m ? m->address(r, k) : ElementAddress{-1, 0};
}

TEST(PtxModel, IsaCanonicalLayoutExamples) {
  // 9.7.16.3.3, K-major unswizzled tf32: ((8,2),(4,4)):((4,32),(1,64))
  // elements, LBO 256 B, SBO 128 B. (9, 5) = 4 + 32 + 1 + 64 = 101.
  EXPECT_EQ(at(word(0x1000, 256, 128, 0), OperandMajor::K, 32, 9, 5).byte,
            0x1000 + 101 * 4);
  // MN-major 32B bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)), LBO 256 B,
  // SBO 512 B. (13, 4) = 13 + 64 elements = byte 154, row bit 7 set: the
  // 16-byte chunk bit 4 flips.
  EXPECT_EQ(at(word(0x1000, 256, 512, 6), OperandMajor::MN, 16, 13, 4).byte,
            0x108A);
  // MN-major 64B bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 512 B,
  // SBO 1024 B. (40, 2) = 8 + 256 + 64 = 328 elements = 0x290.
  EXPECT_EQ(at(word(0x1000, 512, 1024, 4), OperandMajor::MN, 16, 40, 2).byte,
            0x1280);
}

TEST(PtxModel, Swizzle128BWith32BAtomsForMnMajorTf32) {
  // CUTLASS Layout_MN_SW128_32B_Atom: 128 bytes of MN by 4 K rows 128 B
  // apart under Swizzle<2,5,2>; make_umma_desc takes LBO = next 32 tf32 of
  // MN, SBO = next 4 K rows. LBO 512, SBO 1024 (a 64 x K tile).
  const uint64_t w = word(0x2000, 512, 1024, 1);
  // (9, 1): 36 + 128 = 0xA4, row 1 -> 32-byte chunk 1 ^ 1 = 0.
  EXPECT_EQ(at(w, OperandMajor::MN, 32, 9, 1).byte, 0x2084);
  // (40, 6): 512 + 32 + 2 * 128 + 1024 = 0x720, row 2 -> chunk 1 ^ 2 = 3.
  EXPECT_EQ(at(w, OperandMajor::MN, 32, 40, 6).byte, 0x2760);
  OrReason<SharedOperandModel> m =
      SharedOperandModel::create(w, Family::Tcgen05, OperandMajor::MN, 32);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->fieldsRead(64, 8).sbo); // K 8 spans two 4-row groups
  // Only MN-major 32-bit operands take it, and they take nothing else.
  EXPECT_EQ(refusalOf(SharedOperandModel::create(w, Family::Tcgen05,
                                                 OperandMajor::K, 32)),
            "128B swizzle with 32B atoms is for MN-major operands only "
            "(CUTLASS make_umma_desc)");
  EXPECT_EQ(refusalOf(SharedOperandModel::create(w, Family::Tcgen05,
                                                 OperandMajor::MN, 16)),
            "the 128B swizzle with 32B atoms is for 32-bit MN-major operands "
            "only (Table 54)");
  EXPECT_EQ(refusalOf(SharedOperandModel::create(word(0x2000, 512, 1024, 2),
                                                 Family::Tcgen05,
                                                 OperandMajor::MN, 32)),
            "32-bit MN-major operands take only the 128B swizzle with 32B "
            "atoms (Table 54), not swizzle 128B");
}

TEST(PtxModel, UnreadFieldsMayHoldAnything) {
  // K-major swizzled: LBO is "not used, assumed 1" (9.7.16.3.1.1). DeepGEMM-
  // style kernels write 0 (high word 0x40004040), this project 1: both
  // read the same bytes.
  for (uint64_t lboField : {0u, 1u, 77u}) {
    OrReason<SharedOperandModel> m = SharedOperandModel::create(
        word(0x4000, int64_t(lboField) << 4, 1024, 2), Family::Tcgen05,
        OperandMajor::K, 16);
    ASSERT_TRUE(m) << m.reason();
    EXPECT_FALSE(m->fieldsRead(128, 16).lbo);
    EXPECT_TRUE(m->fieldsRead(128, 16).sbo);
    EXPECT_FALSE(m->fieldsRead(8, 16).sbo); // one 8-row group
    EXPECT_EQ(m->address(9, 15).byte, 0x4000 + 1024 + 128 + ((1 ^ 1) * 16) + 14);
  }
  // Unswizzled K-major reads LBO (the second 16-byte chunk of K).
  OrReason<SharedOperandModel> none = SharedOperandModel::create(
      word(0x4000, 2048, 128, 0), Family::Tcgen05, OperandMajor::K, 16);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->fieldsRead(128, 16).lbo);
  EXPECT_EQ(none->address(0, 8).byte, 0x4000 + 2048);
  // MN-major swizzled tf32-sized K (8 rows): SBO (next 8 K) is not read.
  OrReason<SharedOperandModel> mn = SharedOperandModel::create(
      word(0x4000, 8192, 1024, 2), Family::Tcgen05, OperandMajor::MN, 16);
  ASSERT_TRUE(mn);
  EXPECT_FALSE(mn->fieldsRead(64, 8).sbo);
  EXPECT_TRUE(mn->fieldsRead(128, 16).sbo);
  EXPECT_TRUE(mn->fieldsRead(128, 16).lbo);
  EXPECT_FALSE(mn->fieldsRead(64, 16).lbo);
}

//===----------------------------------------------------------------------===//
// tcgen05.cp
//===----------------------------------------------------------------------===//

TEST(PtxModel, Warpx4CopyOf32x16U8TileLandsInEveryWarpsLanes) {
  // A 32x16 uint8 tile (16-byte rows, SBO 128) copied by
  // tcgen05.cp.32x128b.warpx4 to lane 0, column 0: row r lands in lanes r,
  // 32 + r, 64 + r, 96 + r.
  CpInstruction cp;
  cp.shape = Tcgen05CpShape::S32x128b;
  cp.multicast = Tcgen05CpMulticast::Warpx4;
  cp.descriptor = 0x0000400800010000ull | (0x2000 >> 4);
  OrReason<std::vector<CpByte>> bytes = tcgen05Copy(cp);
  ASSERT_TRUE(bytes) << bytes.reason();
  EXPECT_EQ(bytes->size(), 32u * 16u * 4u);
  std::set<int64_t> lanes;
  for (const CpByte &b : *bytes) {
    lanes.insert(b.lane);
    EXPECT_EQ(b.sharedByte, 0x2000 + 16 * (b.lane % 32) + b.columnByte);
    EXPECT_LT(b.columnByte, 16);
  }
  EXPECT_EQ(lanes.size(), 128u);
  cp.ctaGroup = 2;
  EXPECT_EQ(tcgen05Copy(cp)->size(), bytes->size());
}

TEST(PtxModel, CpFormsFieldsReadAndRefusals) {
  // 128x256b unswizzled: the second chunk of a row at +LBO (2048).
  CpInstruction cp;
  cp.descriptor = word(0, 2048, 128, 0);
  OrReason<std::vector<CpByte>> b = tcgen05Copy(cp);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->size(), 128u * 32u);
  EXPECT_EQ((*b)[16].sharedByte, 2048);
  EXPECT_EQ((*b)[32 * 9].sharedByte, 128 + 16);
  EXPECT_TRUE(tcgen05CopyFieldsRead(cp)->lbo);
  // 128x128b rows are one 16-byte column: LBO 0 or 2048 copy the same.
  cp.shape = Tcgen05CpShape::S128x128b;
  EXPECT_FALSE(tcgen05CopyFieldsRead(cp)->lbo);
  std::vector<CpByte> with = *tcgen05Copy(cp);
  cp.descriptor = word(0, 0, 128, 0);
  std::vector<CpByte> without = *tcgen05Copy(cp);
  ASSERT_EQ(with.size(), without.size());
  for (size_t i = 0; i < with.size(); ++i)
    EXPECT_EQ(with[i].sharedByte, without[i].sharedByte);
  // 4x256b: row r in lane 32 r; four rows never reach SBO.
  cp.shape = Tcgen05CpShape::S4x256b;
  EXPECT_EQ(tcgen05Copy(cp)->back().lane, 96);
  EXPECT_FALSE(tcgen05CopyFieldsRead(cp)->sbo);
  // 64x128b.warpx2::01_23: row 40 in lane 64 + 8 and its replica 32 on.
  cp.shape = Tcgen05CpShape::S64x128b;
  cp.multicast = Tcgen05CpMulticast::Warpx2_01_23;
  b = tcgen05Copy(cp);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[(40 * 16) * 2].lane, 72);
  EXPECT_EQ((*b)[(40 * 16) * 2 + 1].lane, 104);
  cp.shape = Tcgen05CpShape::S32x128b; // needs warpx4
  EXPECT_NE(refusalOf(tcgen05Copy(cp)).find("do not pair"), std::string::npos);
  cp.multicast = Tcgen05CpMulticast::Warpx4;
  cp.tmemAddress = (1u << 16) | 2u;
  EXPECT_EQ(refusalOf(tcgen05Copy(cp)), "column 2 is not 128-bit aligned");
  cp.tmemAddress = 8u << 16;
  EXPECT_EQ(refusalOf(tcgen05Copy(cp)), "lanes up to 135 pass 128");
  cp.tmemAddress = 0;
  cp.descriptor = word(0, 0, 128, 1);
  EXPECT_NE(refusalOf(tcgen05Copy(cp)).find("does not define"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// tcgen05.mma
//===----------------------------------------------------------------------===//

/// An f16 -> f32 MMA of M x N with K-major SW128 A and B.
MmaInstruction f16Mma(unsigned m, unsigned n, unsigned ctaGroup = 1,
                      bool ws = false) {
  MmaInstruction mi;
  mi.idesc = 0x10u | ((n >> 3) << 17) | ((m >> 4) << 24);
  mi.ctaGroup = ctaGroup;
  mi.weightStationary = ws;
  mi.aDescriptor = word(0x4000, 16, 1024, 2);
  mi.bDescriptor = word(0x8000, 16, 1024, 2);
  return mi;
}

struct Pin {
  int64_t m, n, lane, column;
};

void expectPlaced(const MmaInstruction &mi, DataPath path,
                  std::initializer_list<Pin> pins) {
  OrReason<MmaModel> mm = MmaModel::create(mi);
  ASSERT_TRUE(mm) << mm.reason();
  EXPECT_EQ(mm->dataPath(), path);
  for (const Pin &p : pins)
    EXPECT_EQ(mm->d(p.m, p.n), (TmemCell{p.lane, p.column}))
        << "layout " << char('A' + int(path)) << " D(" << p.m << ", " << p.n
        << ")";
}

TEST(PtxModel, DataPathLayoutsPlaceD) {
  // D, A: identity. B, E: the first N/2 columns in lanes 0-63, the second
  // half in lanes 64-127. F: 16 rows per 32-lane sub-partition. G: N in
  // quarters over the four 32-lane slabs (TIRx tmem_datapath_layout).
  expectPlaced(f16Mma(128, 128), DataPath::D,
               {{0, 0, 0, 0}, {15, 63, 15, 63}, {16, 64, 16, 64},
                {63, 0, 63, 0}, {127, 127, 127, 127}});
  expectPlaced(f16Mma(256, 128, 2), DataPath::A,
               {{0, 0, 0, 0}, {16, 63, 16, 63}, {63, 64, 63, 64},
                {127, 127, 127, 127}});
  expectPlaced(f16Mma(128, 128, 2), DataPath::B,
               {{0, 0, 0, 0}, {15, 63, 15, 63}, {16, 64, 80, 0},
                {63, 127, 127, 63}});
  expectPlaced(f16Mma(64, 128), DataPath::F,
               {{0, 0, 0, 0}, {15, 63, 15, 63}, {16, 64, 32, 64},
                {63, 127, 111, 127}});
  expectPlaced(f16Mma(64, 128, 1, true), DataPath::E,
               {{0, 0, 0, 0}, {15, 63, 15, 63}, {16, 64, 80, 0},
                {63, 127, 127, 63}});
  expectPlaced(f16Mma(128, 128, 1, true), DataPath::D,
               {{16, 64, 16, 64}, {127, 127, 127, 127}});
  expectPlaced(f16Mma(32, 128, 1, true), DataPath::G,
               {{0, 0, 0, 0}, {15, 31, 15, 31}, {16, 32, 48, 0},
                {0, 63, 32, 31}, {0, 64, 64, 0}, {31, 127, 127, 31}});
  // F at lane 16 (the ISA's second lane alignment): row 0 in lane 16.
  MmaInstruction half = f16Mma(64, 128);
  half.dTmem = 16u << 16;
  expectPlaced(half, DataPath::F, {{0, 0, 16, 0}, {63, 127, 127, 127}});
}

TEST(PtxModel, DataPathRowsAndColumnsUsed) {
  OrReason<MmaModel> b = MmaModel::create(f16Mma(128, 256, 2));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->rowsA(), 64);
  EXPECT_EQ(b->rowsB(), 128);
  EXPECT_EQ(b->dColumns(), 128);
  OrReason<MmaModel> g = MmaModel::create(f16Mma(32, 256, 1, true));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->dColumns(), 64);
  EXPECT_EQ(g->rowsA(), 32);
}

TEST(PtxModel, WeightStationaryRules) {
  auto why = [](MmaInstruction mi) { return refusalOf(MmaModel::create(mi)); };
  EXPECT_EQ(why(f16Mma(128, 128, 2, true)),
            "tcgen05.mma.ws is cta_group 1 and dense kinds only, not "
            "kind::f16.ws with cta_group 2");
  EXPECT_EQ(why(f16Mma(64, 96, 1, true)),
            "N = 96 is not a shape of kind::f16.ws with cta_group 1");
  EXPECT_EQ(why(f16Mma(32, 128)),
            "M = 32 is not a shape of kind::f16 with cta_group 1");
  MmaInstruction shift = f16Mma(64, 128, 1, true);
  shift.idesc |= 1u << 30;
  EXPECT_EQ(why(shift), "instruction descriptor: a nonzero .ws maximum B "
                        "shift (B reuse) is not modelled");
  MmaInstruction scaled = f16Mma(128, 128, 1, true);
  scaled.kind = Kind::MXF8F6F4;
  scaled.idesc = 0x08A00000u;
  EXPECT_NE(why(scaled).find("dense kinds only"), std::string::npos);
}

TEST(PtxModel, MmaOperandsOfTheF16GemmExample) {
  // The f16 gemm_async example: A K-major SW128, B MN-major SW128 (LBO
  // 8192, SBO 1024), D at column 256.
  MmaInstruction mi;
  mi.idesc = 0x08200010u | (1u << 16);
  mi.aDescriptor = 0x4000404000010000ull | (0x4000 >> 4);
  mi.bDescriptor = 0x4000404002000000ull | (0x8000 >> 4);
  mi.dTmem = 256;
  OrReason<MmaModel> m = MmaModel::create(mi);
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m->k(), 16);
  EXPECT_EQ(m->a(1, 0).shared.byte, 0x4000 + 128 + 16);
  EXPECT_EQ(m->a(0, 15).shared.byte, 0x4000 + 30);
  EXPECT_EQ(m->b(0, 1).byte, 0x8000 + 128 + 16);
  EXPECT_EQ(m->b(64, 0).byte, 0x8000 + 8192);
  EXPECT_EQ(m->b(0, 8).byte, 0x8000 + 1024);
  EXPECT_EQ(m->d(5, 7), (TmemCell{5, 263}));
  EXPECT_FALSE(m->aFieldsRead().lbo);
  EXPECT_TRUE(m->bFieldsRead().lbo);
  mi.kind = Kind::I8;
  mi.idesc = 0x08200020u;
  m = MmaModel::create(mi);
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m->k(), 32);
}

TEST(PtxModel, TensorMemoryAUnderEachLayout) {
  // A in tensor memory sits in D's rows; layouts B and E read it from both
  // 64-lane halves (CUTLASS's Duplicated allocation, TIRx's replica A);
  // under F it follows D's 16-row groups and lane alignment.
  MmaInstruction mi = f16Mma(128, 128);
  mi.aDescriptor.reset();
  mi.aTmem = 128;
  OrReason<MmaModel> d = MmaModel::create(mi);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->a(3, 5).lane, 3);
  EXPECT_EQ(d->a(3, 5).bit, 128 * 32 + 5 * 16);
  EXPECT_EQ(d->a(3, 5).replicaLane, -1);
  MmaInstruction b = f16Mma(128, 128, 2);
  b.aDescriptor.reset();
  b.aTmem = 128;
  OrReason<MmaModel> bm = MmaModel::create(b);
  ASSERT_TRUE(bm);
  EXPECT_EQ(bm->a(63, 0).lane, 63);
  EXPECT_EQ(bm->a(63, 0).replicaLane, 127);
  MmaInstruction f = f16Mma(64, 128);
  f.aDescriptor.reset();
  f.aTmem = (16u << 16) | 128;
  f.dTmem = 16u << 16;
  OrReason<MmaModel> fm = MmaModel::create(f);
  ASSERT_TRUE(fm) << fm.reason();
  EXPECT_EQ(fm->a(16, 0).lane, 16 + 32);
  f.dTmem = 0;
  EXPECT_EQ(refusalOf(MmaModel::create(f)),
            "A in tensor memory at lane 16; layout F needs lane 0 (D's lane "
            "alignment)");
  MmaInstruction g = f16Mma(32, 128, 1, true);
  g.aDescriptor.reset();
  EXPECT_EQ(refusalOf(MmaModel::create(g)),
            "A in tensor memory under layout G (M 32 .ws): no source places "
            "its rows");
}

/// The lanes and byte of a scale place, for comparisons.
std::pair<std::vector<int64_t>, int64_t> placeOf(const ScalePlace &p) {
  return {std::vector<int64_t>(p.lanes.begin(), p.lanes.end()), p.byte};
}
using Lanes = std::vector<int64_t>;

TEST(PtxModel, BlockScaleIdsPlaceEachOperandsScales) {
  // mxf8f6f4 M128 N128 (layout D), A's scales at byte 1 and B's at byte 3
  // of their columns (0x28A00030 above). Row r of a scale vector: lane
  // r % 32 of each of the four partitions, column + r / 32.
  MmaInstruction mi;
  mi.kind = Kind::MXF8F6F4;
  mi.idesc = 0x28A00030u;
  mi.aDescriptor = word(0x4000, 16, 1024, 2);
  mi.bDescriptor = word(0x8000, 16, 1024, 2);
  mi.sfaTmem = 300;
  mi.sfbTmem = 304;
  OrReason<MmaModel> m = MmaModel::create(mi);
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m->scaleVector(), 32);
  EXPECT_EQ(placeOf(m->scaleA(5, 0)), std::pair(Lanes{5, 37, 69, 101}, 1201l));
  EXPECT_EQ(placeOf(m->scaleA(37, 0)),
            std::pair(Lanes{5, 37, 69, 101}, 4 * 301 + 1l));
  EXPECT_EQ(placeOf(m->scaleB(7, 0)), std::pair(Lanes{7, 39, 71, 103}, 1219l));
  EXPECT_EQ(placeOf(m->scaleB(100, 0)),
            std::pair(Lanes{4, 36, 68, 100}, 4 * 307 + 3l));
  EXPECT_EQ(m->scaleColumnsA(), 4);
  EXPECT_EQ(m->scaleColumnsB(), 4);
  // mxf4nvf4 with UE4M3: block16, four scales a row, id 0 only.
  mi.kind = Kind::MXF4NVF4;
  mi.idesc = 0x08200480u | (2u << 29);
  EXPECT_EQ(refusalOf(MmaModel::create(mi)),
            "scale-factor ids 2/0 do not fit 4 scales per row");
  mi.idesc = 0x08200480u;
  m = MmaModel::create(mi);
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m->scaleVector(), 16);
  EXPECT_EQ(m->scaleA(2, 3).byte, 4 * 300 + 3);
  EXPECT_EQ(m->scaleA(66, 3).byte, 4 * 302 + 3);
}

TEST(PtxModel, BlockScalesWideNAndPairs) {
  MmaInstruction mi;
  mi.kind = Kind::MXF8F6F4;
  mi.aDescriptor = word(0x4000, 16, 1024, 2);
  mi.bDescriptor = word(0x8000, 16, 1024, 2);
  mi.sfaTmem = 300;
  mi.sfbTmem = 304;
  // N 256, cta_group 1 (N >> 3 = 32 at bit 17): B's scales take 8 columns.
  mi.idesc = 0x08C00000u;
  OrReason<MmaModel> w = MmaModel::create(mi);
  ASSERT_TRUE(w) << w.reason();
  EXPECT_EQ(w->scaleColumnsB(), 8);
  EXPECT_EQ(placeOf(w->scaleB(200, 0)),
            std::pair(Lanes{8, 40, 72, 104}, 4 * 310l));
  mi.sfbTmem = 505;
  EXPECT_EQ(refusalOf(MmaModel::create(mi)),
            "scale factors B at column 505 pass column 511 (8 columns)");
  mi.sfbTmem = 304;
  // cta_group 2, M 256 N 256 (layout A, M >> 7 = 2 at bit 27): each CTA's
  // 128 rows of A's scales and all 256 of B's.
  mi.ctaGroup = 2;
  mi.idesc = 0x10C00000u;
  OrReason<MmaModel> a = MmaModel::create(mi);
  ASSERT_TRUE(a) << a.reason();
  EXPECT_EQ(a->dataPath(), DataPath::A);
  EXPECT_EQ(placeOf(a->scaleA(127, 0)),
            std::pair(Lanes{31, 63, 95, 127}, 4 * 303l));
  EXPECT_EQ(placeOf(a->scaleB(255, 0)),
            std::pair(Lanes{31, 63, 95, 127}, 4 * 311l));
  // cta_group 2, M 128 N 128 (layout B): A's 64 rows in 2 columns; B's
  // halves in partitions 0-1 (n < 64) and 2-3 (n >= 64), 2 columns.
  mi.idesc = 0x08A00000u;
  OrReason<MmaModel> b = MmaModel::create(mi);
  ASSERT_TRUE(b) << b.reason();
  EXPECT_EQ(b->dataPath(), DataPath::B);
  EXPECT_EQ(b->scaleColumnsA(), 2);
  EXPECT_EQ(b->scaleColumnsB(), 2);
  EXPECT_EQ(placeOf(b->scaleA(63, 0)),
            std::pair(Lanes{31, 63, 95, 127}, 4 * 301l));
  EXPECT_EQ(placeOf(b->scaleB(10, 0)), std::pair(Lanes{10, 42}, 4 * 304l));
  EXPECT_EQ(placeOf(b->scaleB(64, 0)), std::pair(Lanes{64, 96}, 4 * 304l));
  EXPECT_EQ(placeOf(b->scaleB(127, 0)), std::pair(Lanes{95, 127}, 4 * 305l));
  // Scale addresses start at lane 0.
  mi.sfaTmem = (32u << 16) | 300;
  EXPECT_EQ(refusalOf(MmaModel::create(mi)),
            "scale factors A at lane 32: each 32-lane partition's copy starts "
            "at its first lane (address lane 0)");
}

TEST(PtxModel, MmaRefusals) {
  MmaInstruction mi = f16Mma(128, 128);
  mi.bDescriptor = 0x4000004000010000ull; // a wgmma word
  EXPECT_EQ(refusalOf(MmaModel::create(mi)),
            "B: descriptor: bits 46-48 are 0; a tcgen05 descriptor has 0b001 "
            "there");
  mi.bDescriptor = word(0, 16, 1024, 2) | (uint64_t(2) << 49);
  EXPECT_EQ(refusalOf(MmaModel::create(mi)),
            "B: base offset 2 is not modelled (operands start in their "
            "swizzle pattern's first row)");
  mi.bDescriptor = word(0x200, 16, 1024, 2);
  EXPECT_NE(refusalOf(MmaModel::create(mi))
                .find("is in row 4 of its 1024-byte swizzle pattern"),
            std::string::npos);
  mi = f16Mma(128, 128);
  mi.dTmem = 448;
  EXPECT_EQ(refusalOf(MmaModel::create(mi)),
            "D at lane 0, column 448 passes tensor memory");
  mi.dTmem = 32u << 16;
  EXPECT_EQ(refusalOf(MmaModel::create(mi)),
            "D at lane 32: layout D starts at lane 0");
  MmaInstruction i8 = f16Mma(128, 40);
  i8.kind = Kind::I8;
  i8.idesc = 0x08000020u | (5u << 17);
  EXPECT_EQ(refusalOf(MmaModel::create(i8)),
            "N = 40 is not a shape of kind::i8 with cta_group 1");
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

TEST(PtxModel, TensorMapBoxMatchesTIRxGolden) {
  // TIRx: an 8x256 f16 tile into a 128B-swizzled shared tile is the rank-3
  // map [64, 8, 4] / strides [512, 128] / box [64, 8, 4].
  TensorMapDesc map;
  map.dataType = TensorMapDataType::Float16;
  map.rank = 3;
  map.globalAddress = 0;
  map.globalDims = {64, 8, 4};
  map.globalStrides = {512, 128};
  map.boxDims = {64, 8, 4};
  map.elementStrides = {1, 1, 1};
  map.swizzle = TensorMapSwizzle::B128;
  OrReason<std::vector<BoxElement>> box = tensorMapBox(map, {0, 0, 0}, 0x800);
  ASSERT_TRUE(box) << box.reason();
  ASSERT_EQ(box->size(), 2048u);
  std::set<int64_t> shared;
  for (const BoxElement &e : *box) {
    int64_t row = e.coords[1], col = e.coords[2] * 64 + e.coords[0];
    EXPECT_EQ(e.globalByte, (row * 256 + col) * 2);
    int64_t chunk = (col % 64) / 8;
    EXPECT_EQ(e.sharedByte, 0x800 + (col / 64) * 1024 + row * 128 +
                                ((chunk ^ row) * 16) + (col % 8) * 2);
    shared.insert(e.sharedByte);
  }
  EXPECT_EQ(shared.size(), 2048u);
  OrReason<std::vector<BoxElement>> edge = tensorMapBox(map, {0, 4, 0}, 0x800);
  ASSERT_TRUE(edge);
  EXPECT_EQ(std::count_if(edge->begin(), edge->end(),
                          [](const BoxElement &e) { return !e.inBounds; }),
            1024);
}

TensorMapDesc f32Map(uint32_t boxInner) {
  TensorMapDesc map;
  map.dataType = TensorMapDataType::Float32;
  map.rank = 2;
  map.globalAddress = 0;
  map.globalDims = {64, 8};
  map.globalStrides = {256};
  map.boxDims = {boxInner, 4};
  map.elementStrides = {1, 1};
  return map;
}

TEST(PtxModel, TensorMapSwizzle128BWith32BAtoms) {
  // cuda.h: ATOM_32B swizzles 32-byte chunks within the 128-byte span.
  TensorMapDesc map = f32Map(32);
  map.swizzle = TensorMapSwizzle::B128Atom32B;
  OrReason<std::vector<BoxElement>> box = tensorMapBox(map, {0, 0}, 0x800);
  ASSERT_TRUE(box) << box.reason();
  // Element (8, 1): byte 0x800 + 128 + 32 -> row 1, chunk 1 ^ 1 = 0.
  EXPECT_EQ((*box)[1 * 32 + 8].sharedByte, 0x880);
  // (0, 3): row 3, chunk 0 ^ 3 = 3.
  EXPECT_EQ((*box)[3 * 32].sharedByte, 0x800 + 3 * 128 + 96);
}

TEST(PtxModel, TensorMapRules) {
  TensorMapDesc map = f32Map(6); // 24-byte inner box row
  EXPECT_EQ(refusalOf(tensorMapBox(map, {0, 0}, 0)),
            "the map breaks a driver rule: the inner box row (24 bytes) is "
            "not a multiple of 16 bytes");
  map = f32Map(16);
  map.swizzle = TensorMapSwizzle::B32; // 64-byte rows over a 32-byte span
  EXPECT_EQ(refusalOf(tensorMapBox(map, {0, 0}, 0)),
            "the map breaks a driver rule: the inner box row (64 bytes) "
            "exceeds the 32B swizzle's span");
  map.swizzle = TensorMapSwizzle::B128;
  EXPECT_EQ(refusalOf(tensorMapBox(map, {0, 0}, 0)),
            "a 64-byte box row under the 128B swizzle: the model defines box "
            "rows of exactly the swizzle span");
  map.swizzle = TensorMapSwizzle::B64;
  EXPECT_TRUE(tensorMapBox(map, {0, 0}, 0));
  EXPECT_EQ(refusalOf(tensorMapBox(map, {0, 0}, 64)),
            "shared address 64 is not 128-byte aligned");
  map.globalStrides = {200};
  EXPECT_EQ(tensorMapRulesBroken(map),
            std::vector<std::string>{"globalStrides[0] is not a multiple of "
                                     "16 below 2^40"});
  map.globalStrides = {256};
  map.elementStrides = {1, 2};
  EXPECT_EQ(refusalOf(tensorMapBox(map, {0, 0}, 0)),
            "element strides other than 1 are not modelled");
  map.elementStrides = {1, 1};
  map.globalDims[1] = std::nullopt;
  EXPECT_EQ(refusalOf(tensorMapBox(map, {0, 0}, 0)),
            "global dim or stride 1 is unknown; the model needs every value");
}

} // namespace

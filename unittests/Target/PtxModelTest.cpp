//===- PtxModelTest.cpp - the PTX-semantics model against published facts
//--===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The model is checked here against facts published outside this project:
// descriptor constants computed from the PTX ISA's field tables and the
// values CUTLASS and Triton use, the PTX ISA's swizzle pattern, the
// tcgen05.cp 32x128b.warpx4 broadcast of a 32x16 uint8 tile to all four
// warps' lanes (as in TVM TIRx), the f16 gemm_async example's MMA
// (examples/gemm_async.mlir) and TIRx's tensor-map golden. The H100 anchors
// (test/Device/ModelAnchorTests.cpp, the swizzle read-backs) check its
// shared-memory side on hardware.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Model/SharedMemoryModel.h"
#include "tile/Target/CUDA/Model/Tcgen05Model.h"

#include "../RefusalOf.h"

#include "gtest/gtest.h"

#include <set>

using namespace tile::cuda;
using namespace tile::cuda::model;

namespace {

using tile::OrReason;
using tile::testing::refusalOf;

std::string refusal(uint64_t word, DescriptorFlavour flavour) {
  return refusalOf(SmemDescriptor::decode(word, flavour));
}

TEST(PtxModel, PublishedDescriptorDecodesInBothFlavours) {
  // K-major SW128 at 0x400, LBO 16, SBO 1024, encoded by the PTX ISA's
  // field table.
  OrReason<SmemDescriptor> d =
      SmemDescriptor::decode(0x4000404000010040ull, DescriptorFlavour::Tcgen05);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->startAddress, 0x400u);
  EXPECT_EQ(d->leadingByteOffset, 16u);
  EXPECT_EQ(d->strideByteOffset, 1024u);
  EXPECT_EQ(d->swizzle, SmemSwizzle::B128);
  // The wgmma word has bit 46 clear and the 2-bit swizzle at 62-63
  // (1 = 128B, 2 = 64B, 3 = 32B).
  std::optional<uint64_t> w = d->encode(DescriptorFlavour::Wgmma);
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, 0x4000004000010040ull);
  EXPECT_EQ(*w >> 62, 1u);
  for (auto [swz, field] : {std::pair{SmemSwizzle::B64, 2u}, {SmemSwizzle::B32, 3u}}) {
    SmemDescriptor s;
    s.swizzle = swz;
    EXPECT_EQ(*s.encode(DescriptorFlavour::Wgmma) >> 62, field);
    EXPECT_EQ(SmemDescriptor::decode(*s.encode(DescriptorFlavour::Wgmma),
                                     DescriptorFlavour::Wgmma)->swizzle, swz);
  }
  EXPECT_EQ(*SmemDescriptor::decode(*w, DescriptorFlavour::Wgmma), *d);
}

TEST(PtxModel, DecodersRejectReservedEncodings) {
  EXPECT_EQ(refusal(0x4000404000010040ull, DescriptorFlavour::Wgmma),
            "bits 46-48 are 1, reserved (0) in a wgmma descriptor (a tcgen05 "
            "descriptor has 0b001 there)");
  EXPECT_EQ(refusal(0x4000004000010040ull, DescriptorFlavour::Tcgen05),
            "bits 46-48 are 0, a tcgen05 descriptor has 0b001 there");
  // 128B_base32B (value 1) and the LBO mode bit exist only for tcgen05.
  EXPECT_EQ(refusal(uint64_t(1) << 61, DescriptorFlavour::Wgmma),
            "bit 61 is reserved in a wgmma descriptor (its swizzle is the "
            "2-bit field at 62-63)");
  EXPECT_EQ(refusal(uint64_t(1) << 52, DescriptorFlavour::Wgmma),
            "bit 52 (tcgen05's LBO mode) is reserved in a wgmma descriptor");
  for (uint64_t swz : {3u, 5u, 7u})
    EXPECT_EQ(refusal((uint64_t(1) << 46) | (swz << 61),
                      DescriptorFlavour::Tcgen05),
              "swizzle value " + std::to_string(swz) + " is reserved");
  EXPECT_EQ(refusal((uint64_t(1) << 46) | (uint64_t(1) << 14),
                    DescriptorFlavour::Tcgen05),
            "reserved bits are set (mask 0x4000)");
  SmemDescriptor atom;
  atom.swizzle = SmemSwizzle::B128Atom32B;
  EXPECT_FALSE(atom.encode(DescriptorFlavour::Wgmma));
  EXPECT_TRUE(atom.encode(DescriptorFlavour::Tcgen05));
}

TEST(PtxModel, SwizzlePatterns) {
  // 16-byte chunk c of row r (W-byte rows) lands in chunk c ^ (r % (W/16))
  // for W = 128; for 64B/32B the row bits start at 7 too.
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t chunk = 0; chunk < 8; ++chunk)
      EXPECT_EQ(*swizzleAddress(row * 128 + chunk * 16 + 3, SmemSwizzle::B128),
                row * 128 + ((chunk ^ row) * 16) + 3);
  EXPECT_EQ(*swizzleAddress(0x100, SmemSwizzle::B64), 0x120);
  EXPECT_EQ(*swizzleAddress(0x180, SmemSwizzle::B64), 0x1B0);
  EXPECT_EQ(*swizzleAddress(0x80, SmemSwizzle::B32), 0x90);
  EXPECT_EQ(*swizzleAddress(0x100, SmemSwizzle::B32), 0x100);
  EXPECT_EQ(*swizzleAddress(0x470, SmemSwizzle::None), 0x470);
  EXPECT_FALSE(swizzleAddress(0, SmemSwizzle::B128Atom32B));
  EXPECT_EQ(swizzlePatternBytes(SmemSwizzle::B128), 1024);
  EXPECT_EQ(swizzlePatternBytes(SmemSwizzle::B32), 256);
}

TEST(PtxModel, Warpx4CopyOf32x16U8TileLandsInEveryWarpsLanes) {
  // A 32x16 uint8 tile (16-byte rows: one core-matrix column,
  // SBO 128) copied by tcgen05.cp.32x128b.warpx4 to tensor memory at lane
  // 0, column 0. Row r lands in lanes r, 32 + r, 64 + r, 96 + r.
  CpInstruction cp;
  cp.shape = Tcgen05CpShape::S32x128b;
  cp.multicast = Tcgen05CpMulticast::Warpx4;
  cp.descriptor = 0x0000400800010000ull | (0x2000 >> 4); // tile at 0x2000
  OrReason<std::vector<CpByte>> bytes = tcgen05Copy(cp);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 32u * 16u * 4u);
  std::set<int64_t> lanes;
  for (const CpByte &b : *bytes) {
    int64_t row = b.lane % 32;
    lanes.insert(b.lane);
    EXPECT_EQ(b.sharedByte, 0x2000 + 16 * row + b.columnByte);
    EXPECT_LT(b.columnByte, 16); // four 32-bit columns
  }
  EXPECT_EQ(lanes.size(), 128u);
  // cta_group 2 copies the same bytes (in each CTA of the pair).
  cp.ctaGroup = 2;
  EXPECT_EQ(tcgen05Copy(cp)->size(), bytes->size());
}

TEST(PtxModel, CpFormsAndRefusals) {
  // 128x256b unswizzled: the second chunk of a row at +LBO (2048).
  CpInstruction cp;
  SmemDescriptor d;
  d.leadingByteOffset = 2048;
  d.strideByteOffset = 128;
  cp.descriptor = *d.encode();
  OrReason<std::vector<CpByte>> b = tcgen05Copy(cp);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->size(), 128u * 32u);
  EXPECT_EQ((*b)[16].sharedByte, 2048);   // row 0, byte 16
  EXPECT_EQ((*b)[32 * 9].sharedByte, 128 + 16); // row 9, byte 0
  // 64x128b.warpx2::01_23: row 40 in lane 64 + 8 and its replica 32 on.
  cp.shape = Tcgen05CpShape::S64x128b;
  cp.multicast = Tcgen05CpMulticast::Warpx2_01_23;
  b = tcgen05Copy(cp);
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[(40 * 16) * 2].lane, 72);
  EXPECT_EQ((*b)[(40 * 16) * 2 + 1].lane, 104);
  // 4x256b: row r in lane 32 r.
  cp.shape = Tcgen05CpShape::S4x256b;
  cp.multicast = Tcgen05CpMulticast::None;
  b = tcgen05Copy(cp);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->back().lane, 96);
  std::string why;
  cp.shape = Tcgen05CpShape::S32x128b; // needs warpx4
  why = refusalOf(tcgen05Copy(cp));
  EXPECT_NE(why.find("do not pair"), std::string::npos);
  cp.multicast = Tcgen05CpMulticast::Warpx4;
  cp.tmemAddress = (1u << 16) | 2u; // column 2: not 128-bit aligned
  why = refusalOf(tcgen05Copy(cp));
  EXPECT_EQ(why, "column 2 is not 128-bit aligned");
  cp.tmemAddress = 8u << 16; // lanes 8..135
  why = refusalOf(tcgen05Copy(cp));
  EXPECT_EQ(why, "lanes up to 135 pass 128");
}

TEST(PtxModel, CpColumnsRunUpToTheLastOne) {
  // 128x256b writes 8 columns per lane: from column 504 it ends exactly at
  // the last column (511); from 508 it would pass it.
  CpInstruction cp;
  SmemDescriptor d;
  d.leadingByteOffset = 2048;
  d.strideByteOffset = 128;
  cp.descriptor = *d.encode();
  cp.tmemAddress = 504;
  OrReason<std::vector<CpByte>> b = tcgen05Copy(cp);
  ASSERT_TRUE(b) << b.reason();
  EXPECT_EQ(b->size(), 128u * 32u);
  cp.tmemAddress = 508;
  EXPECT_FALSE(tcgen05Copy(cp));
}

TEST(PtxModel, BlockScaleIdsPlaceEachOperandsScales) {
  // mxf8f6f4 M128 N128 with A's scales at byte 1 and B's at byte 3 of their
  // columns: A row m's factor for K block j in lane sfa + m, byte
  // 4 * column + 1 + j; B row n's in lane sfb + n, byte 4 * column + 3 + j.
  InstrDescriptor idesc;
  idesc.kind = MmaKind::MXF8F6F4;
  idesc.a = idesc.b = MmaElement::E4M3;
  idesc.scaleType = ScaleFactorType::UE8M0;
  idesc.m = 128;
  idesc.n = 128;
  idesc.aScaleId = 1;
  idesc.bScaleId = 3;
  std::optional<uint32_t> word = idesc.encode();
  ASSERT_TRUE(word);
  MmaInstruction mi;
  mi.kind = MmaKind::MXF8F6F4;
  mi.idesc = *word;
  mi.aDescriptor = 0x4000404000010000ull | (0x4000 >> 4);
  mi.bDescriptor = 0x4000404000010000ull | (0x8000 >> 4);
  mi.sfaTmem = 300;
  mi.sfbTmem = 304;
  OrReason<MmaModel> m = MmaModel::create(mi);
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m->scaleA(5, 0), (std::pair<int64_t, int64_t>{5, 4 * 300 + 1}));
  EXPECT_EQ(m->scaleB(7, 0), (std::pair<int64_t, int64_t>{7, 4 * 304 + 3}));
}

TEST(PtxModel, F16GemmExampleMmaOperandsAndDataPaths) {
  // The f16 gemm_async example: f16 -> f32 M128 N128, A K-major SW128
  // (0x4000404000010000), B MN-major SW128 (LBO 8192, SBO 1024), D at column
  // 256.
  MmaInstruction mi;
  mi.idesc = 0x08200010u | (1u << 16);
  mi.aDescriptor = 0x4000404000010000ull | (0x4000 >> 4);
  mi.bDescriptor = 0x4000404002000000ull | (0x8000 >> 4);
  mi.dTmem = 256;
  OrReason<MmaModel> m = MmaModel::create(mi);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->m(), 128);
  EXPECT_EQ(m->n(), 128);
  EXPECT_EQ(m->k(), 16);
  // A(1, 0): row 1 of the 128-byte pattern, chunk 0 -> chunk 1.
  EXPECT_EQ(m->a(1, 0).shared.byte, 0x4000 + 128 + 16);
  EXPECT_EQ(m->a(0, 15).shared.byte, 0x4000 + 30);
  // B(n, k) MN-major: n contiguous in 128-byte rows, k rows 128 B apart,
  // the next 64 n 8192 B on.
  EXPECT_EQ(m->b(0, 1).byte, 0x8000 + 128 + 16);
  EXPECT_EQ(m->b(64, 0).byte, 0x8000 + 8192);
  EXPECT_EQ(m->b(0, 8).byte, 0x8000 + 1024);
  EXPECT_EQ(m->d(5, 7), (TmemCell{5, 263}));
  // Triton's published i8 constant 0x08200020: u8 M128 N128 s32, K 32.
  mi.kind = MmaKind::I8;
  mi.idesc = 0x08200020u;
  m = MmaModel::create(mi);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->k(), 32);
  // M 64 (cta_group 1): row 16 in lane 32; M 256 cta_group 2: 128 rows a CTA.
  mi.kind = MmaKind::F16;
  mi.idesc = 0x04200010u; // M 64
  m = MmaModel::create(mi);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->d(16, 0).lane, 32);
  EXPECT_EQ(m->d(63, 0).lane, 32 * 3 + 15);
  mi.idesc = 0x10400010u; // M 256 N 256
  mi.ctaGroup = 2;
  mi.dTmem = 0;
  m = MmaModel::create(mi);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->rowsA(), 128);
  EXPECT_EQ(m->rowsB(), 128);
  EXPECT_EQ(m->d(127, 255), (TmemCell{127, 255}));
  // A in tensor memory (packed f16: two per column), column 128.
  mi.ctaGroup = 1;
  mi.idesc = 0x08200010u;
  mi.aDescriptor.reset();
  mi.aTmem = 128;
  m = MmaModel::create(mi);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->a(3, 5).lane, 3);
  EXPECT_EQ(m->a(3, 5).bit, 128 * 32 + 5 * 16);
}

TEST(PtxModel, MmaRefusals) {
  std::string why;
  MmaInstruction mi;
  mi.idesc = 0x08200010u;
  mi.aDescriptor = 0x4000404000010000ull;
  mi.bDescriptor = 0x4000004000010000ull; // a wgmma word
  why = refusalOf(MmaModel::create(mi));
  EXPECT_EQ(why, "B descriptor: bits 46-48 are 0, a tcgen05 descriptor has "
                 "0b001 there");
  mi.bDescriptor = 0x4000404000010000ull | (uint64_t(2) << 49); // base offset
  why = refusalOf(MmaModel::create(mi));
  EXPECT_EQ(why, "B: base offset 2 is not modelled (operands start in their "
                 "swizzle pattern's first row)");
  mi.bDescriptor = 0x4000404000010000ull | (0x200 >> 4); // row 4 of the atom
  why = refusalOf(MmaModel::create(mi));
  EXPECT_NE(why.find("is in row 4 of its 1024-byte swizzle pattern"),
            std::string::npos);
  mi.bDescriptor = 0x4000404000010000ull;
  mi.idesc = 0x08200010u | (1u << 6); // reserved bit
  why = refusalOf(MmaModel::create(mi));
  EXPECT_EQ(why.rfind("instruction descriptor: ", 0), 0u);
  mi.idesc = 0x08200010u;
  mi.dTmem = 448; // columns 448..575
  why = refusalOf(MmaModel::create(mi));
  EXPECT_EQ(why, "D at lane 0, column 448 passes tensor memory");
}

TEST(PtxModel, TensorMapBoxMatchesTIRxGolden) {
  // TIRx: an 8x256 f16 tile into a 128B-swizzled shared tile is the rank-3
  // map [64, 8, 4] / strides [512, 128] / box [64, 8, 4]: dim 0 = column %
  // 64, dim 1 = row, dim 2 = column / 64.
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
  ASSERT_TRUE(box);
  ASSERT_EQ(box->size(), 2048u);
  std::set<int64_t> shared;
  for (const BoxElement &e : *box) {
    int64_t row = e.coords[1], col = e.coords[2] * 64 + e.coords[0];
    EXPECT_TRUE(e.inBounds);
    EXPECT_EQ(e.globalByte, (row * 256 + col) * 2);
    // Atom col / 64 (1024 B each), row r's 16-byte chunk c -> c ^ r.
    int64_t chunk = (col % 64) / 8;
    EXPECT_EQ(e.sharedByte, 0x800 + (col / 64) * 1024 + row * 128 +
                                ((chunk ^ row) * 16) + (col % 8) * 2);
    shared.insert(e.sharedByte);
  }
  EXPECT_EQ(shared.size(), 2048u);
  // A box hanging over the tensor's end: those elements are not read.
  OrReason<std::vector<BoxElement>> edge = tensorMapBox(map, {0, 4, 0}, 0x800);
  ASSERT_TRUE(edge);
  EXPECT_EQ(std::count_if(edge->begin(), edge->end(),
                          [](const BoxElement &e) { return !e.inBounds; }),
            1024);
}

TEST(PtxModel, TensorMapRefusals) {
  TensorMapDesc map;
  map.dataType = TensorMapDataType::Float16;
  map.rank = 2;
  map.globalAddress = 0;
  map.globalDims = {32, 8};
  map.globalStrides = {64};
  map.boxDims = {32, 8};
  map.elementStrides = {1, 1};
  map.swizzle = TensorMapSwizzle::B128; // 64-byte rows under 128B
  std::string why;
  why = refusalOf(tensorMapBox(map, {0, 0}, 0));
  EXPECT_EQ(why, "a 64-byte box row under the SWIZZLE_128B swizzle: the model "
                 "defines box rows of exactly the swizzle span");
  map.swizzle = TensorMapSwizzle::B64;
  OrReason<std::vector<BoxElement>> fits = tensorMapBox(map, {0, 0}, 0);
  EXPECT_TRUE(fits) << fits.reason();
  why = refusalOf(tensorMapBox(map, {0, 0}, 64));
  EXPECT_EQ(why, "shared address 64 is not 128-byte aligned");
  map.elementStrides = {1, 2};
  why = refusalOf(tensorMapBox(map, {0, 0}, 0));
  EXPECT_EQ(why, "element strides other than 1 are not modelled");
  map.elementStrides = {1, 1};
  map.globalDims[1] = std::nullopt;
  why = refusalOf(tensorMapBox(map, {0, 0}, 0));
  EXPECT_EQ(why, "global dim or stride 1 is unknown; the model needs every "
                 "value");
}

} // namespace

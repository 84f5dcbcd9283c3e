//===- SmemDescriptorTest.cpp - tcgen05 shared-memory descriptors -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/SmemDescriptor.h"

#include "../RefusalOf.h"

#include "gtest/gtest.h"

using namespace tile::cuda;

namespace {

TEST(SmemDescriptor, WorkedValueFromThePtxFieldTable) {
  // K-major SW128 operand at smem 0x400, LBO 16 B, SBO 1024 B
  // (computed from the PTX ISA's field table).
  SmemDescriptor d;
  d.startAddress = 0x400;
  d.leadingByteOffset = 16;
  d.strideByteOffset = 1024;
  d.swizzle = SmemSwizzle::B128;
  ASSERT_TRUE(d.encode());
  EXPECT_EQ(*d.encode(), 0x4000404000010040ull);
}

TEST(SmemDescriptor, EachFieldLandsInItsBits) {
  // One field at a time against hand-computed words (bit 46 always set).
  const uint64_t fixed = uint64_t(1) << 46;
  auto enc = [](SmemDescriptor d) { return *d.encode(); };
  SmemDescriptor d;
  EXPECT_EQ(enc(d), fixed);
  d.startAddress = 0x3FFF0; // the highest encodable 16-byte address
  EXPECT_EQ(enc(d), fixed | 0x3FFF);
  d = {};
  d.startAddress = 0x40010; // bit 18 is dropped: shared windows are 256 KiB
  EXPECT_EQ(enc(d), fixed | 0x1);
  d = {};
  d.leadingByteOffset = 0x3FFF0;
  EXPECT_EQ(enc(d), fixed | (uint64_t(0x3FFF) << 16));
  d = {};
  d.strideByteOffset = 0x3FFF0;
  EXPECT_EQ(enc(d), fixed | (uint64_t(0x3FFF) << 32));
  d = {};
  d.baseOffset = 7;
  EXPECT_EQ(enc(d), fixed | (uint64_t(7) << 49));
  d = {};
  d.lboAbsolute = true;
  EXPECT_EQ(enc(d), fixed | (uint64_t(1) << 52));
  for (auto [swz, value] : {std::pair{SmemSwizzle::B128Atom32B, 1},
                            {SmemSwizzle::B128, 2},
                            {SmemSwizzle::B64, 4},
                            {SmemSwizzle::B32, 6}}) {
    d = {};
    d.swizzle = swz;
    EXPECT_EQ(enc(d), fixed | (uint64_t(value) << 61)) << smemSwizzleName(swz).str();
  }
}

TEST(SmemDescriptor, HopperTwoBitSwizzleMatchesTcgen05Values) {
  // Hopper's 2-bit field at 62-63 (1 = 128B, 2 = 64B, 3 = 32B) is the
  // tcgen05 3-bit field at 61-63 with values 2, 4, 6.
  EXPECT_EQ(uint64_t(SmemSwizzle::B128) << 61, uint64_t(1) << 62);
  EXPECT_EQ(uint64_t(SmemSwizzle::B64) << 61, uint64_t(2) << 62);
  EXPECT_EQ(uint64_t(SmemSwizzle::B32) << 61, uint64_t(3) << 62);
}

TEST(SmemDescriptor, RefusesWhatDoesNotFit) {
  SmemDescriptor d;
  d.startAddress = 8;
  d.leadingByteOffset = 24;
  d.strideByteOffset = 1 << 18;
  d.baseOffset = 8;
  d.swizzle = static_cast<SmemSwizzle>(3);
  std::vector<std::string> p = d.problems();
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0], "start address 8 is not 16-byte aligned");
  EXPECT_EQ(p[1], "LBO = 24 bytes is not a multiple of 16");
  EXPECT_EQ(p[2], "SBO = 262144 bytes does not fit 14 bits of 16-byte units "
                  "(< 262144)");
  EXPECT_EQ(p[3], "base offset 8 is not a row phase in 0..7");
  EXPECT_EQ(p[4], "swizzle value 3 is reserved");
  EXPECT_FALSE(d.encode());
}

TEST(SmemDescriptor, DecodeRoundTripsAndRejectsReservedEncodings) {
  SmemDescriptor d;
  d.startAddress = 0x1230;
  d.leadingByteOffset = 256;
  d.strideByteOffset = 512;
  d.baseOffset = 3;
  d.swizzle = SmemSwizzle::B64;
  tile::OrReason<SmemDescriptor> back = SmemDescriptor::decode(*d.encode());
  ASSERT_TRUE(back);
  EXPECT_TRUE(*back == d);

  std::string why;
  // A Hopper (wgmma) descriptor: bits 46-48 are 0.
  why = tile::testing::refusalOf(SmemDescriptor::decode(0x4000004000010040ull));
  EXPECT_EQ(why, "bits 46-48 are 0, a tcgen05 descriptor has 0b001 there");
  for (uint64_t swz : {3, 5, 7}) {
    why = tile::testing::refusalOf(
        SmemDescriptor::decode((uint64_t(1) << 46) | (swz << 61)));
    EXPECT_EQ(why, "swizzle value " + std::to_string(swz) + " is reserved");
  }
  why = tile::testing::refusalOf(
      SmemDescriptor::decode((uint64_t(1) << 46) | (1u << 14)));
  EXPECT_EQ(why, "reserved bits are set (mask 0x4000)");
}

TEST(SmemDescriptor, StartAddressFieldKeepsBits4To17) {
  static_assert(smemStartAddressField(0x41230) == 0x123);
  SmemDescriptor d;
  d.startAddress = 0x41230; // above the 256 KiB window: bit 18 dropped
  EXPECT_EQ(SmemDescriptorFields::StartAddress::extract(*d.encode()),
            smemStartAddressField(0x1230));
}

TEST(SmemDescriptor, SwizzleRowBytes) {
  EXPECT_EQ(smemSwizzleRowBytes(SmemSwizzle::None), 16u);
  EXPECT_EQ(smemSwizzleRowBytes(SmemSwizzle::B32), 32u);
  EXPECT_EQ(smemSwizzleRowBytes(SmemSwizzle::B64), 64u);
  EXPECT_EQ(smemSwizzleRowBytes(SmemSwizzle::B128), 128u);
  EXPECT_EQ(*smemSwizzleForBytes(64), SmemSwizzle::B64);
  EXPECT_FALSE(smemSwizzleForBytes(16));
}

// The LBO mode bit (52) exists only in the tcgen05 descriptor: asking a
// wgmma descriptor for it is refused with the reason.
TEST(SmemDescriptor, WgmmaHasNoLboMode) {
  SmemDescriptor d;
  d.leadingByteOffset = 16;
  d.strideByteOffset = 1024;
  d.swizzle = SmemSwizzle::B128;
  d.lboAbsolute = true;
  EXPECT_TRUE(d.encode(DescriptorFlavour::Tcgen05));
  EXPECT_FALSE(d.encode(DescriptorFlavour::Wgmma));
  EXPECT_EQ(d.problems(DescriptorFlavour::Wgmma),
            std::vector<std::string>{"LBO mode (bit 52) is tcgen05-only; it is "
                                     "reserved in a wgmma descriptor"});
}

} // namespace

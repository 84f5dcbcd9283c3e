//===- TensorMapTest.cpp - the CUtensorMap rules ----------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/TensorMap.h"

#include "gtest/gtest.h"

#ifdef TILE_HAVE_CUDA_H
#include <cuda.h>
#endif

using namespace tile::cuda;

namespace {

/// TVM TIRx's golden: 8x256 f16 into a 128B-swizzled tile, rank 3.
TensorMapDesc golden128B() {
  TensorMapDesc d;
  d.dataType = TensorMapDataType::Float16;
  d.rank = 3;
  d.globalAddress = 0x7f0000001000;
  d.globalDims = {64, 8, 4};
  d.globalStrides = {512, 128};
  d.boxDims = {64, 8, 4};
  d.elementStrides = {1, 1, 1};
  d.swizzle = TensorMapSwizzle::B128;
  d.l2Promotion = TensorMapL2Promotion::B128;
  return d;
}

TEST(TensorMapRules, PublishedGoldensPass) {
  EXPECT_TRUE(tensorMapViolations(golden128B()).empty());
  TensorMapDesc plain;
  plain.dataType = TensorMapDataType::Float16;
  plain.rank = 2;
  plain.globalDims = {256, 8};
  plain.globalStrides = {512};
  plain.boxDims = {256, 8};
  plain.elementStrides = {1, 1};
  plain.l2Promotion = TensorMapL2Promotion::B128;
  EXPECT_TRUE(tensorMapViolations(plain).empty());
}

TEST(TensorMapRules, EveryViolationIsListed) {
  TensorMapDesc d = golden128B();
  d.globalAddress = 0x1008;      // 8-byte aligned
  d.globalDims[1] = 0;           // empty dim
  d.globalStrides[0] = 24;       // not a multiple of 16
  d.boxDims[2] = 300;            // > 256
  d.elementStrides[1] = 9;       // > 8
  d.boxDims[0] = 72;             // 144 bytes > 128-byte span
  std::vector<std::string> v = tensorMapViolations(d);
  std::vector<std::string> expected = {
      "globalAddress 4104 is not 16-byte aligned",
      "globalDim[1] = 0 is not in [1, 2^32]",
      "globalStrides[0] = 24 bytes is not a multiple of 16",
      "elementStrides[1] = 9 is not in [1, 8]",
      "boxDim[2] = 300 is not in [1, 256]",
      "boxDim[0] * elementSize = 144 bytes exceeds the 128-byte span of "
      "SWIZZLE_128B",
  };
  EXPECT_EQ(v, expected);
}

TEST(TensorMapRules, InnerBoxMustBeSixteenByteMultiple) {
  // Inner box rows of 1, 4 and 8 f16: 2 and 8 bytes are refused (8 is a
  // multiple of 8, not of 16), 16 bytes pass.
  TensorMapDesc d;
  d.dataType = TensorMapDataType::Float16;
  d.rank = 2;
  d.globalDims = {64, 64};
  d.globalStrides = {128};
  d.elementStrides = {1, 1};
  for (uint32_t elements : {1u, 4u}) {
    d.boxDims = {elements, 64};
    EXPECT_EQ(tensorMapViolations(d),
              std::vector<std::string>{
                  "boxDim[0] * elementSize = " + std::to_string(2 * elements) +
                  " bytes is not a multiple of 16"});
  }
  d.boxDims = {8, 64};
  EXPECT_TRUE(tensorMapViolations(d).empty());
}

TEST(TensorMapRules, RankAndEntryCounts) {
  TensorMapDesc d;
  d.rank = 6;
  d.globalDims.assign(6, 1);
  d.globalStrides.assign(5, 16);
  d.boxDims.assign(6, 16);
  d.elementStrides.assign(6, 1);
  EXPECT_EQ(tensorMapViolations(d).front(), "tensorRank 6 is not in [1, 5]");
  TensorMapDesc e = golden128B();
  e.globalStrides.pop_back();
  EXPECT_EQ(tensorMapViolations(e),
            std::vector<std::string>{
                "globalDim, boxDim and elementStrides need tensorRank (3) "
                "entries and globalStrides tensorRank - 1; got 3, 3, 3 and 1"});
}

TEST(TensorMapRules, StrideLimitsAndUnknownValues) {
  TensorMapDesc d = golden128B();
  d.globalStrides[0] = uint64_t(1) << 40;
  d.globalDims[2] = (uint64_t(1) << 32) + 1;
  EXPECT_EQ(tensorMapViolations(d),
            (std::vector<std::string>{
                "globalDim[2] = 4294967297 is not in [1, 2^32]",
                "globalStrides[0] = 1099511627776 bytes is not below 2^40"}));
  // Runtime values are not judged at compile time.
  TensorMapDesc r = golden128B();
  r.globalAddress.reset();
  r.globalDims[2].reset();
  r.globalStrides[1].reset();
  EXPECT_TRUE(tensorMapViolations(r).empty());
}

TEST(TensorMapRules, NanFillNeedsFloats) {
  TensorMapDesc d = golden128B();
  d.dataType = TensorMapDataType::UInt16;
  d.oobFill = TensorMapOobFill::NanRequestZeroFma;
  EXPECT_EQ(tensorMapViolations(d),
            std::vector<std::string>{"oobFill NAN_REQUEST_ZERO_FMA needs a "
                                     "floating-point data type, got UINT16"});
  d.dataType = TensorMapDataType::BFloat16;
  EXPECT_TRUE(tensorMapViolations(d).empty());
}

TEST(TensorMapRules, InterleaveAndPackedTypes) {
  TensorMapDesc d;
  d.dataType = TensorMapDataType::Float16;
  d.rank = 2;
  d.globalDims = {64, 64};
  d.globalStrides = {128};
  d.boxDims = {8, 8};
  d.elementStrides = {1, 1};
  d.interleave = TensorMapInterleave::B32;
  d.swizzle = TensorMapSwizzle::B64;
  d.globalAddress = 16;
  EXPECT_EQ(tensorMapViolations(d),
            (std::vector<std::string>{
                "tensorRank 2 is below 3, the least an interleaved layout "
                "needs",
                "globalAddress 16 is not 32-byte aligned",
                "INTERLEAVE_32B needs SWIZZLE_32B, got SWIZZLE_64B"}));
  TensorMapDesc p;
  p.dataType = TensorMapDataType::Packed16U4Align16B;
  p.rank = 2;
  p.globalDims = {100, 4};
  p.globalStrides = {48};
  p.boxDims = {64, 4};
  p.elementStrides = {1, 1};
  EXPECT_EQ(tensorMapViolations(p),
            (std::vector<std::string>{
                "globalDim[0] = 100 is not a multiple of 128, as "
                "16U4_ALIGN16B requires",
                "globalStrides[0] = 48 bytes is not a multiple of 32",
                "boxDim[0] = 64 must be 128 for 16U4_ALIGN16B"}));
}

TEST(TensorMapRules, EnumValuesMatchTheDriver) {
#ifdef TILE_HAVE_CUDA_H
  // Against cuda.h itself, not against values copied from it.
  EXPECT_EQ(int(TensorMapDataType::UInt8), CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(int(TensorMapDataType::Int64), CU_TENSOR_MAP_DATA_TYPE_INT64);
  EXPECT_EQ(int(TensorMapDataType::Float16), CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(int(TensorMapDataType::BFloat16),
            CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(int(TensorMapDataType::TFloat32Ftz),
            CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
  EXPECT_EQ(int(TensorMapDataType::Packed16U6Align16B),
            CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B);
  EXPECT_EQ(int(TensorMapInterleave::B32), CU_TENSOR_MAP_INTERLEAVE_32B);
  EXPECT_EQ(int(TensorMapSwizzle::B128), CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(int(TensorMapSwizzle::B128Atom64B),
            CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B);
  EXPECT_EQ(int(TensorMapL2Promotion::B256),
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(int(TensorMapOobFill::NanRequestZeroFma),
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
#else
  GTEST_SKIP() << "cuda.h not found at configure time; enum values unchecked";
#endif
}

} // namespace

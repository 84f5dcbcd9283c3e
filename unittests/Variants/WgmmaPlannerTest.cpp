//===- WgmmaPlannerTest.cpp - the gemm_async wgmma planner ------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The accumulator fragment, the type and shape rules, pinned plans (issue
// lists, descriptor words, accumulator registers) for K-major and MN-major
// operands, and every decline with its reason. A shape matrix counts the
// plans over types x swizzles x N.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/GemmAsync/WgmmaPlanner.h"

#include "gtest/gtest.h"

using namespace tile;
using namespace tile::wgmma;
using cuda::MmaAccumulator;
using cuda::MmaElement;

namespace {

RegionSide whole(TileLayout layout, llvm::SmallVector<int64_t, 4> shape) {
  return RegionSide{std::move(layout), shape,
                    llvm::SmallVector<int64_t, 4>(shape.size(), 0)};
}

TileLayout nvmma(unsigned bits, int64_t rows, int64_t cols, SwizzleMode mode) {
  OrReason<TileLayout> l = nvmmaSharedLayout(bits, rows, cols, mode);
  EXPECT_TRUE(l) << l.reason();
  return *l;
}

/// The accumulator fragment of `mTiles` 64-row tiles of width n, each
/// tile's n/2 registers after the previous tile's.
TileLayout fragment(int64_t mTiles, int64_t n) {
  llvm::SmallVector<Iter, 8> iters;
  if (mTiles > 1)
    iters.push_back(Iter{mTiles, n / 2, Axis::m});
  iters.append({Iter{4, 32, Axis::tid_in_wg}, Iter{2, 2, Axis::m},
                Iter{8, 4, Axis::tid_in_wg}, Iter{n / 8, 4, Axis::m},
                Iter{4, 1, Axis::tid_in_wg}, Iter{2, 1, Axis::m}});
  return TileLayout(iters);
}

/// f16 64 x n x k, A K-major [M, K], B K-major [N, K] (transpose_b).
Request kMajor(int64_t m, int64_t n, int64_t k, SwizzleMode mode) {
  Request r;
  r.aSide = whole(nvmma(16, m, k, mode), {m, k});
  r.bSide = whole(nvmma(16, n, k, mode), {n, k});
  r.transposeB = true;
  r.cSide = whole(fragment(m / 64, n), {m, n});
  r.m = m;
  r.n = n;
  r.k = k;
  return r;
}

std::pair<int64_t, int64_t> at(int64_t row, int64_t col) { return {row, col}; }

TEST(WgmmaFragment, ThreadsAndRegistersFollowTheIsa) {
  // Thread 0: rows 0 and 8, columns 0, 1 of each 8-column block.
  EXPECT_EQ(fragmentElement(0, 0), at(0, 0));
  EXPECT_EQ(fragmentElement(0, 1), at(0, 1));
  EXPECT_EQ(fragmentElement(0, 2), at(8, 0));
  EXPECT_EQ(fragmentElement(0, 4), at(0, 8));
  // Thread 37 = 32 + 4 * 1 + 1: warp 1, q 1, r 1.
  EXPECT_EQ(fragmentElement(37, 0), at(17, 2));
  EXPECT_EQ(fragmentElement(37, 7), at(25, 11));
  EXPECT_EQ(fragmentElement(127, 127),
            at(63, 255));
}

TEST(WgmmaRules, TypesAndShapes) {
  EXPECT_EQ(typeRule(MmaElement::F16, MmaElement::F16, MmaAccumulator::F16), "");
  EXPECT_EQ(typeRule(MmaElement::E4M3, MmaElement::E5M2, MmaAccumulator::F32),
            "");
  EXPECT_EQ(typeRule(MmaElement::TF32, MmaElement::TF32, MmaAccumulator::F16),
            "tf32 x tf32 -> f16; wgmma takes f16 (into f16 or f32), bf16 "
            "(into f32), tf32 (into f32) and e4m3/e5m2 in any mix (into f16 "
            "or f32)");
  EXPECT_NE(typeRule(MmaElement::F16, MmaElement::BF16, MmaAccumulator::F32),
            "");
  EXPECT_NE(typeRule(MmaElement::S8, MmaElement::S8, MmaAccumulator::S32), "");
  EXPECT_EQ(shapeRule(8), "");
  EXPECT_EQ(shapeRule(256), "");
  EXPECT_EQ(shapeRule(12), "m64n12: wgmma's N is a multiple of 8 from 8 to 256");
  EXPECT_NE(shapeRule(264), "");
  EXPECT_EQ(instructionK(MmaElement::F16), 16);
  EXPECT_EQ(instructionK(MmaElement::TF32), 8);
  EXPECT_EQ(instructionK(MmaElement::E4M3), 32);
}

TEST(WgmmaPlanner, KMajor128BPinned) {
  OrReason<Plan> p = planWgmma(kMajor(64, 256, 64, SwizzleMode::B128));
  ASSERT_TRUE(p) << p.reason();
  EXPECT_EQ(p->instN, 256);
  EXPECT_EQ(p->instK, 16);
  ASSERT_EQ(p->issues.size(), 4u);
  // K steps move both starts 32 bytes along the swizzled row.
  for (int64_t ki = 0; ki < 4; ++ki) {
    EXPECT_EQ(p->issues[ki].aByte, 32 * ki);
    EXPECT_EQ(p->issues[ki].bByte, 32 * ki);
    EXPECT_EQ(p->issues[ki].inputD,
              ki ? InputD::Accumulate : InputD::Overwrite);
  }
  // SBO 1024 B (8 rows of 128 B), LBO unread (16 B), swizzle 1 (128B).
  EXPECT_EQ(p->aOperand.descriptorTemplate(),
            (1ull << 62) | (64ull << 32) | (1ull << 16));
  EXPECT_EQ(p->bOperand.descriptorTemplate(),
            (1ull << 62) | (64ull << 32) | (1ull << 16));
  EXPECT_FALSE(p->aOperand.mnMajor);
  EXPECT_FALSE(p->bOperand.mnMajor);
  // Fragment register i is local register i.
  ASSERT_EQ(p->accumulatorRegisters.size(), 1u);
  for (int64_t i = 0; i < 128; ++i)
    EXPECT_EQ(p->accumulatorRegisters[0][i], i);
  EXPECT_EQ(p->cRegisters, 128);
}

TEST(WgmmaPlanner, TwoMTilesAndAccumulateFlag) {
  Request r = kMajor(128, 64, 32, SwizzleMode::B64);
  r.hasAccumulateFlag = true;
  OrReason<Plan> p = planWgmma(r);
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->issues.size(), 4u);
  // Output tile 1 starts 64 rows (64 x 64 B) into A; registers 32..63.
  EXPECT_EQ(p->issues[2].mi, 1);
  EXPECT_EQ(p->issues[2].aByte, 4096);
  EXPECT_EQ(p->issues[3].aByte, 4096 + 32);
  EXPECT_EQ(p->issues[0].inputD, InputD::FromFlag);
  EXPECT_EQ(p->issues[2].inputD, InputD::FromFlag);
  EXPECT_EQ(p->issues[3].inputD, InputD::Accumulate);
  EXPECT_EQ(p->accumulatorRegisters[1][0], 32);
  EXPECT_EQ(p->accumulatorRegisters[1][31], 63);
}

TEST(WgmmaPlanner, MnMajorOperandsPinned) {
  // A stored [K, M], B [K, N], 128-byte swizzle: LBO between 64-element
  // atoms of M/N, SBO between 8-row groups of K.
  Request r;
  r.aSide = whole(nvmma(16, 32, 64, SwizzleMode::B128), {32, 64});
  r.transposeA = true;
  r.bSide = whole(nvmma(16, 32, 128, SwizzleMode::B128), {32, 128});
  r.cSide = whole(fragment(1, 128), {64, 128});
  r.m = 64;
  r.n = 128;
  r.k = 32;
  OrReason<Plan> p = planWgmma(r);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_TRUE(p->aOperand.mnMajor);
  EXPECT_TRUE(p->bOperand.mnMajor);
  EXPECT_EQ(p->bOperand.descriptor.leadingByteOffset, 32u * 64 * 2);
  EXPECT_EQ(p->bOperand.descriptor.strideByteOffset, 1024u);
  // A K step is 16 rows of 128 B.
  EXPECT_EQ(p->issues[1].aByte, 2048);
  EXPECT_EQ(p->issues[1].bByte, 2048);
}

TEST(WgmmaPlanner, DeclinesNamingTheRule) {
  // tf32 MN-major.
  Request tf = kMajor(64, 64, 64, SwizzleMode::B128);
  tf.k = 16;
  tf.a = tf.b = MmaElement::TF32;
  tf.aBits = tf.bBits = 32;
  tf.aSide = whole(nvmma(32, 16, 64, SwizzleMode::B128), {16, 64});
  tf.transposeA = true;
  tf.bSide = whole(nvmma(32, 64, 16, SwizzleMode::B64), {64, 16});
  OrReason<Plan> p = planWgmma(tf);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "A is MN-major; wgmma reads MN-major operands only "
                        "for 16-bit types (f16, bf16): store A K-major (no "
                        "transpose_a)");

  Request m = kMajor(64, 64, 64, SwizzleMode::B128);
  m.m = 32;
  p = planWgmma(m);
  ASSERT_FALSE(p);
  // The swapped form (M as wgmma's N) is tried too, and declines on C's
  // layout, which is the plain fragment.
  EXPECT_EQ(p.reason(), "M = 32 is not a multiple of 64: a warpgroup's wgmma "
                        "is M 64 (larger M as several instructions); " +
                            std::string(kSwapABReason) +
                            ": C element (0, 1) is in thread 4; the "
                        "wgmma accumulator fragment puts it in thread 0 "
                        "(thread t = 32w + 4q + r of the warpgroup holds row "
                        "16w + 8h + q, column 8j + 2r + e in register "
                        "4j + 2h + e)");

  Request k = kMajor(64, 64, 64, SwizzleMode::B128);
  k.k = 40;
  p = planWgmma(k);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "K = 40 is not a multiple of f16 wgmma's K = 16 (256 "
                        "bits of a row)");

  // The accumulator with columns and rows swapped between threads.
  Request c = kMajor(64, 64, 64, SwizzleMode::B128);
  c.cSide = whole(TileLayout({Iter{64, 1, Axis::tid_in_wg},
                              Iter{2, 64, Axis::tid_in_wg},
                              Iter{32, 1, Axis::m}}),
                  {64, 64});
  p = planWgmma(c);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason().substr(0, p.reason().find(
                                     "; " + std::string(kSwapABReason) +
                                     ": C element (0, 1) is in thread 1;")),
            "C element (8, 0) is in thread 8; the wgmma accumulator fragment "
            "puts it in thread 0 (thread t = 32w + 4q + r of the warpgroup "
            "holds row 16w + 8h + q, column 8j + 2r + e in register 4j + 2h "
            "+ e)");

  // A register tile of one warp.
  Request w = kMajor(64, 64, 64, SwizzleMode::B128);
  w.cSide = whole(TileLayout({Iter{32, 1, Axis::laneid}, Iter{2, 1, Axis::m},
                              Iter{64, 2, Axis::m}}),
                  {64, 64});
  p = planWgmma(w);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason().substr(0, 34), "C is a register tile of 32 thread(");

  // The 32-byte-atom swizzle is tcgen05's only.
  Request atom = kMajor(64, 64, 64, SwizzleMode::B128);
  atom.a = atom.b = MmaElement::TF32;
  atom.aBits = atom.bBits = 32;
  atom.k = 32;
  atom.aSide = whole(nvmma(32, 64, 32, SwizzleMode::B128Atom32B), {64, 32});
  atom.bSide = whole(nvmma(32, 64, 32, SwizzleMode::B128), {64, 32});
  p = planWgmma(atom);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), "A uses the 128-byte swizzle of 32-byte atoms, which "
                        "wgmma descriptors cannot express (32, 64 or 128-byte "
                        "swizzles, or none)");
}

/// CuTe's reading of the same ISA figures (mma_traits_sm90_gmma.hpp,
/// ALayout_64x32, ALayout_64x16 and ALayout_64x8: (thread, value) -> m +
/// 64 k), as an independent check of the register-A fragment and its
/// element order.
std::pair<int64_t, int64_t> cuteA(int64_t t, int64_t v, unsigned bits) {
  int64_t r = t % 4, q = (t / 4) % 8, w = t / 32;
  int64_t index;
  if (bits == 8) // Stride<Stride<256,1,16>, Stride<64,8,1024>>
    index = 256 * r + q + 16 * w + 64 * (v % 4) + 8 * ((v / 4) % 2) +
            1024 * (v / 8);
  else if (bits == 16) // Stride<Stride<128,1,16>, Stride<64,8,512>>
    index = 128 * r + q + 16 * w + 64 * (v % 2) + 8 * ((v / 2) % 2) +
            512 * (v / 4);
  else // Stride<Stride<64,1,16>, Stride<8,256>>
    index = 64 * r + q + 16 * w + 8 * (v % 2) + 256 * (v / 2);
  return {index % 64, index / 64};
}

TEST(WgmmaFragment, RegisterAFollowsTheIsa) {
  EXPECT_EQ(aFragmentElements(16), 8);
  EXPECT_EQ(aFragmentElements(32), 4);
  // Thread 0, f16: rows 0 and 8, columns 0-1 and 8-9; each 32-bit
  // register holds two adjacent columns.
  EXPECT_EQ(aFragmentElement(0, 0, 16), at(0, 0));
  EXPECT_EQ(aFragmentElement(0, 1, 16), at(0, 1));
  EXPECT_EQ(aFragmentElement(0, 2, 16), at(8, 0));
  EXPECT_EQ(aFragmentElement(0, 4, 16), at(0, 8));
  EXPECT_EQ(aFragmentElement(0, 7, 16), at(8, 9));
  // Thread 37 (warp 1, q 1, r 1).
  EXPECT_EQ(aFragmentElement(37, 0, 16), at(17, 2));
  EXPECT_EQ(aFragmentElement(37, 6, 16), at(25, 10));
  // tf32 thread 5 (q 1, r 1): columns r and r + 4 of the 8.
  EXPECT_EQ(aFragmentElement(5, 0, 32), at(1, 1));
  EXPECT_EQ(aFragmentElement(5, 1, 32), at(9, 1));
  EXPECT_EQ(aFragmentElement(5, 2, 32), at(1, 5));
  EXPECT_EQ(aFragmentElement(5, 3, 32), at(9, 5));
  // fp8 thread 6 (q 1, r 2): columns 8..11 and 24..27, four a register
  // (the lowest column in the lowest byte).
  EXPECT_EQ(aFragmentElements(8), 16);
  EXPECT_EQ(aFragmentElement(6, 0, 8), at(1, 8));
  EXPECT_EQ(aFragmentElement(6, 3, 8), at(1, 11));
  EXPECT_EQ(aFragmentElement(6, 4, 8), at(9, 8));
  EXPECT_EQ(aFragmentElement(6, 8, 8), at(1, 24));
  EXPECT_EQ(aFragmentElement(6, 15, 8), at(9, 27));
  EXPECT_EQ(aFragmentElement(127, 15, 8), at(63, 31));
  for (unsigned bits : {8u, 16u, 32u})
    for (int64_t t = 0; t < 128; ++t)
      for (int64_t v = 0; v < aFragmentElements(bits); ++v)
        EXPECT_EQ(aFragmentElement(t, v, bits), cuteA(t, v, bits))
            << bits << "-bit thread " << t << " element " << v;
  // The 16-bit A fragment of 64 x 16 is the accumulator fragment of m64n16.
  for (int64_t t = 0; t < 128; ++t)
    for (int64_t v = 0; v < 8; ++v)
      EXPECT_EQ(aFragmentElement(t, v, 16), fragmentElement(t, v));
}

/// f16 64 x n x k with A a register tile holding the A fragment (the
/// accumulator layout of a 64 x k tile), B K-major.
Request registerA(int64_t m, int64_t n, int64_t k) {
  Request r = kMajor(m, n, k,
                     k >= 64   ? SwizzleMode::B128
                     : k == 32 ? SwizzleMode::B64
                               : SwizzleMode::B32);
  r.aInRegisters = true;
  r.aSide = whole(fragment(m / 64, k), {m, k});
  return r;
}

TEST(WgmmaPlanner, RegisterAPinned) {
  OrReason<Plan> p = planWgmma(registerA(64, 64, 64));
  ASSERT_TRUE(p) << p.reason();
  EXPECT_TRUE(p->aInRegisters);
  EXPECT_EQ(p->aPerRegister, 2);
  ASSERT_EQ(p->issues.size(), 4u);
  ASSERT_EQ(p->aRegisters.size(), 4u);
  // K step ki reads local registers 8ki .. 8ki + 7, in fragment order.
  for (int64_t ki = 0; ki < 4; ++ki) {
    EXPECT_EQ(p->issues[ki].aByte, 0);
    EXPECT_EQ(p->issues[ki].bByte, 32 * ki);
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(p->aRegisters[ki][i], 8 * ki + i);
  }
}

TEST(WgmmaPlanner, RegisterATwoMTilesAndTf32) {
  // Two 64-row tiles of one warpgroup: tile 1's fragment is K/2 = 16
  // registers further.
  OrReason<Plan> p = planWgmma(registerA(128, 64, 32));
  ASSERT_TRUE(p) << p.reason();
  ASSERT_EQ(p->aRegisters.size(), 4u); // (mi, ki) = (0,0) (0,1) (1,0) (1,1)
  EXPECT_EQ(p->aRegisters[2][0], 16);
  EXPECT_EQ(p->aRegisters[3][7], 31);

  // tf32: register 2j + h holds column 4j + r of each 8-column K step.
  Request tf = kMajor(64, 64, 16, SwizzleMode::B32);
  tf.a = tf.b = MmaElement::TF32;
  tf.aBits = tf.bBits = 32;
  tf.aInRegisters = true;
  tf.aSide = whole(TileLayout({Iter{4, 32, Axis::tid_in_wg},
                               Iter{2, 1, Axis::m},
                               Iter{8, 4, Axis::tid_in_wg},
                               Iter{2, 4, Axis::m}, Iter{2, 2, Axis::m},
                               Iter{4, 1, Axis::tid_in_wg}}),
                   {64, 16});
  tf.bSide = whole(nvmma(32, 64, 16, SwizzleMode::B64), {64, 16});
  p = planWgmma(tf);
  ASSERT_TRUE(p) << p.reason();
  EXPECT_EQ(p->aPerRegister, 1);
  ASSERT_EQ(p->aRegisters.size(), 2u);
  EXPECT_EQ(p->aRegisters[0], (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(p->aRegisters[1], (std::vector<int64_t>{4, 5, 6, 7}));
}

/// The fp8 A fragment of `mTiles` 64-row tiles of k columns: thread
/// 32w + 4q + r holds row 16w + 8h + q, column 32ki + 16j + 4r + e in
/// register 16ki + 8j + 4h + e (tile after tile).
TileLayout fp8Fragment(int64_t mTiles, int64_t k) {
  llvm::SmallVector<Iter, 8> iters;
  if (mTiles > 1)
    iters.push_back(Iter{mTiles, k / 2, Axis::m});
  iters.append({Iter{4, 32, Axis::tid_in_wg}, Iter{2, 4, Axis::m},
                Iter{8, 4, Axis::tid_in_wg}, Iter{k / 32, 16, Axis::m},
                Iter{2, 8, Axis::m}, Iter{4, 1, Axis::tid_in_wg},
                Iter{4, 1, Axis::m}});
  return TileLayout(iters);
}

TEST(WgmmaPlanner, RegisterAFp8Pinned) {
  for (MmaElement e : {MmaElement::E4M3, MmaElement::E5M2}) {
    Request r;
    r.a = e;
    r.b = MmaElement::E4M3;
    r.aBits = r.bBits = 8;
    r.aInRegisters = true;
    r.aSide = whole(fp8Fragment(2, 64), {128, 64});
    r.bSide = whole(nvmma(8, 32, 64, SwizzleMode::B64), {32, 64});
    r.transposeB = true;
    r.cSide = whole(fragment(2, 32), {128, 32});
    r.m = 128;
    r.n = 32;
    r.k = 64;
    OrReason<Plan> p = planWgmma(r);
    ASSERT_TRUE(p) << p.reason();
    EXPECT_EQ(p->instK, 32);
    EXPECT_EQ(p->aPerRegister, 4);
    ASSERT_EQ(p->issues.size(), 4u);
    ASSERT_EQ(p->aRegisters.size(), 4u); // (mi, ki)
    // Element i of the fragment is local register 32mi + 16ki + i.
    for (int64_t t = 0; t < 4; ++t) {
      ASSERT_EQ(p->aRegisters[t].size(), 16u);
      for (int64_t i = 0; i < 16; ++i)
        EXPECT_EQ(p->aRegisters[t][i], 16 * t + i) << t << " " << i;
    }
    // K step 1 of B starts 32 bytes (one 64-byte swizzle row's half) in.
    EXPECT_EQ(p->issues[1].bByte, 32);
    EXPECT_EQ(p->issues[1].aByte, 0);
  }
  // Transposed stays refused for fp8 as for every type.
  Request t;
  t.a = t.b = MmaElement::E5M2;
  t.aBits = t.bBits = 8;
  t.aInRegisters = true;
  t.transposeA = true;
  t.aSide = whole(fp8Fragment(1, 32), {64, 32});
  t.bSide = whole(nvmma(8, 8, 32, SwizzleMode::B32), {8, 32});
  t.transposeB = true;
  t.cSide = whole(fragment(1, 8), {64, 8});
  t.m = 64;
  t.n = 8;
  t.k = 32;
  OrReason<Plan> p = planWgmma(t);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), kTransposedRegisterA);
}

TEST(WgmmaPlanner, RegisterADeclines) {
  Request t = registerA(64, 64, 64);
  t.transposeA = true;
  OrReason<Plan> p = planWgmma(t);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(), kTransposedRegisterA);

  // An fp8 tile with the 16-bit fragment's layout: columns 2r, 2r + 1 are
  // not the fp8 fragment's 4r .. 4r + 3.
  Request f8 = registerA(64, 64, 64);
  f8.a = f8.b = MmaElement::E4M3;
  f8.aBits = f8.bBits = 8;
  f8.bSide = whole(nvmma(8, 64, 64, SwizzleMode::B64), {64, 64});
  p = planWgmma(f8);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(),
            "A element (0, 2) is in thread 1; the wgmma A fragment puts it "
            "in thread 0 (thread t = 32w + 4q + r of the warpgroup holds row "
            "16w + 8h + q, column 16j + 4r + e of each 32-column K step in "
            "32-bit register 2j + h (element e of its 4))");

  // Element widths other than the type's.
  EXPECT_EQ(registerARule(MmaElement::E4M3, 16),
            "A is a 16-bit e4m3 register tile; the register-A form of wgmma "
            "takes f16, bf16 (16-bit), tf32 (32-bit) and e4m3/e5m2 (8-bit) "
            "fragments");
  for (auto [e, bits] : {std::pair{MmaElement::F16, 16u},
                         {MmaElement::BF16, 16u}, {MmaElement::TF32, 32u},
                         {MmaElement::E4M3, 8u}, {MmaElement::E5M2, 8u}})
    EXPECT_EQ(registerARule(e, bits), "");

  // The accumulator layout of 64 x 64 is not the A fragment of a K = 64
  // tile read as 32 columns.
  Request wrong = registerA(64, 64, 64);
  wrong.aSide = whole(TileLayout({Iter{64, 1, Axis::tid_in_wg},
                                  Iter{2, 64, Axis::tid_in_wg},
                                  Iter{32, 1, Axis::m}}),
                      {64, 64});
  p = planWgmma(wrong);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason(),
            "A element (8, 0) is in thread 8; the wgmma A fragment puts it "
            "in thread 0 (thread t = 32w + 4q + r of the warpgroup holds row "
            "16w + 8h + q, column 8j + 2r + e of each 16-column K step in "
            "32-bit register 2j + h (element e of its 2))");
  EXPECT_EQ(aFragmentProblem(wrong.aSide, 64, 64, 16), p.reason());
  EXPECT_EQ(aFragmentProblem(registerA(64, 64, 64).aSide, 64, 64, 16), "");
}

/// Types x swizzles x N: every K-major combination plans, with one
/// instruction of N per K step.
TEST(WgmmaPlanner, ShapeMatrix) {
  int plans = 0;
  for (auto [e, bits] : {std::pair{MmaElement::F16, 16u},
                         {MmaElement::BF16, 16u}, {MmaElement::TF32, 32u},
                         {MmaElement::E4M3, 8u}, {MmaElement::E5M2, 8u}})
    for (SwizzleMode mode : {SwizzleMode::B32, SwizzleMode::B64,
                             SwizzleMode::B128})
      for (int64_t n = 8; n <= 256; n += 8) {
        int64_t k = 8 * swizzleBytes(mode) / bits; // one swizzled row
        Request r;
        r.a = r.b = e;
        r.aBits = r.bBits = bits;
        r.aSide = whole(nvmma(bits, 64, k, mode), {64, k});
        r.bSide = whole(nvmma(bits, n, k, mode), {n, k});
        r.transposeB = true;
        r.cSide = whole(fragment(1, n), {64, n});
        r.m = 64;
        r.n = n;
        r.k = k;
        OrReason<Plan> p = planWgmma(r);
        ASSERT_TRUE(p) << cuda::mmaElementName(e).str() << " n" << n << ": "
                       << p.reason();
        EXPECT_EQ(p->instN, n);
        EXPECT_EQ(int64_t(p->issues.size()), k / instructionK(e));
        ++plans;
      }
  EXPECT_EQ(plans, 5 * 3 * 32);
}

} // namespace

namespace {

/// C [m, n] as the accumulator fragment of an n x m instruction tile read
/// transposed (the swap-AB form): thread 32w + 4q + r holds C(8j + 2r + e,
/// 16w + 8h + q) in register 4j + 2h + e.
TileLayout transposedFragment(int64_t m) {
  return TileLayout({Iter{m / 8, 4, Axis::m}, Iter{4, 1, Axis::tid_in_wg},
                     Iter{2, 1, Axis::m}, Iter{4, 32, Axis::tid_in_wg},
                     Iter{2, 2, Axis::m}, Iter{8, 4, Axis::tid_in_wg}});
}

/// A [m, k] and B [n, k] K-major (transpose_b), C the transposed fragment.
Request swapRequest(int64_t m, int64_t n, int64_t k) {
  Request r;
  r.aSide = whole(nvmma(16, m, k, SwizzleMode::B64), {m, k});
  r.bSide = whole(nvmma(16, n, k, SwizzleMode::B64), {n, k});
  r.transposeB = true;
  r.cSide = whole(transposedFragment(m), {m, n});
  r.m = m;
  r.n = n;
  r.k = k;
  return r;
}

} // namespace

TEST(WgmmaSwapAB, SmallMBecomesTheInstructionsN) {
  // C [16, 64] = A [16, 32] B^T: no m16 wgmma; as C^T = B A^T it is
  // m64n16k16 twice, wgmma's A read from B's buffer (K-major, K steps of
  // 32 bytes) and wgmma's B from A's.
  OrReason<Plan> p = planWgmma(swapRequest(16, 64, 32));
  ASSERT_TRUE(p) << p.reason();
  EXPECT_TRUE(p->swapAB);
  EXPECT_EQ(p->instM, 64);
  EXPECT_EQ(p->instN, 16);
  EXPECT_EQ(p->mTiles, 1);
  EXPECT_EQ(p->nTiles, 1);
  ASSERT_EQ(p->issues.size(), 2u);
  EXPECT_EQ(p->issues[1].aByte, 32);
  EXPECT_EQ(p->issues[1].bByte, 32);
  EXPECT_FALSE(p->aOperand.mnMajor);
  EXPECT_FALSE(p->bOperand.mnMajor);
  // Element by element: fragment register i of thread t holds D(row, col)
  // of the 64 x 16 instruction tile, which is C(col, row); the plan's
  // register for it must be where C's layout puts C(col, row) in thread t.
  TileLayout c = transposedFragment(16);
  ASSERT_EQ(p->accumulatorRegisters.size(), 1u);
  ASSERT_EQ(p->accumulatorRegisters[0].size(), 8u);
  for (int64_t t = 0; t < 128; ++t)
    for (int64_t i = 0; i < 8; ++i) {
      auto [row, col] = fragmentElement(t, i);
      AxisAddress addr = c.apply({col, row}, {16, 64});
      EXPECT_EQ(tile::at(addr, Axis::tid_in_wg), t)
          << "thread " << t << " reg " << i;
      EXPECT_EQ(tile::at(addr, Axis::m), p->accumulatorRegisters[0][i])
          << "thread " << t << " reg " << i;
    }
}

TEST(WgmmaSwapAB, DirectFormWinsWhereItFits) {
  // M = 64 with the plain fragment: no swap.
  OrReason<Plan> p = planWgmma(kMajor(64, 16, 32, SwizzleMode::B64));
  ASSERT_TRUE(p) << p.reason();
  EXPECT_FALSE(p->swapAB);
  // M = 64 with the transposed fragment: the direct form declines on C's
  // layout, the swapped one (m64n64) fits.
  OrReason<Plan> s = planWgmma(swapRequest(64, 64, 32));
  ASSERT_TRUE(s) << s.reason();
  EXPECT_TRUE(s->swapAB);
  EXPECT_EQ(s->instN, 64);
}

TEST(WgmmaSwapAB, DeclinesNamingBothForms) {
  // The plain fragment on a 16-row C: neither form holds it.
  Request r = swapRequest(16, 64, 32);
  r.cSide = whole(TileLayout({Iter{16, 1, Axis::tid_in_wg},
                              Iter{8, 16, Axis::tid_in_wg},
                              Iter{8, 1, Axis::m}}),
                  {16, 64});
  OrReason<Plan> p = planWgmma(r);
  ASSERT_FALSE(p);
  EXPECT_NE(p.reason().find("M = 16 is not a multiple of 64"),
            std::string::npos)
      << p.reason();
  EXPECT_NE(p.reason().find(std::string(kSwapABReason) + ": C element"),
            std::string::npos)
      << p.reason();
  // A register A has no swapped form (wgmma's B is always in shared
  // memory): the direct reason alone.
  Request reg = swapRequest(16, 64, 32);
  reg.aInRegisters = true;
  p = planWgmma(reg);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.reason().find("swap-AB"), std::string::npos) << p.reason();
  // An N that is no wgmma M once swapped (not a multiple of 64).
  Request n40 = swapRequest(16, 40, 32);
  n40.bSide = whole(nvmma(16, 40, 32, SwizzleMode::B64), {40, 32});
  n40.cSide = whole(TileLayout({Iter{2, 4, Axis::m},
                                Iter{4, 1, Axis::tid_in_wg},
                                Iter{2, 1, Axis::m},
                                Iter{40, 32, Axis::tid_in_wg}}),
                    {16, 40});
  p = planWgmma(n40);
  ASSERT_FALSE(p);
  // (M = 40 in the swapped problem's terms: the op's N.)
  EXPECT_NE(p.reason().find(std::string(kSwapABReason) + ": M = 40"),
            std::string::npos)
      << p.reason();
}

//===- LayoutExamplesTest.cpp - the example kernels' layouts --------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The layouts the example kernels use, checked against independent formulas:
// the PTX ISA's description of the 128-byte swizzle (16-byte chunk index
// XOR row index mod 8 inside each 8-row x 128-byte atom) and the tcgen05.cp
// 32x128b.warpx4 broadcast (each row lands in lanes r, r+32, r+64, r+96).
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/Layout.h"

#include "gtest/gtest.h"

#include <set>

using namespace tile;

namespace {

TEST(ExampleLayouts, SharedUint8Tile32x16) {
  // The source of a tcgen05.cp 32x128b.warpx4 broadcast: a 32x16 uint8
  // shared tile S[(32,16):(16,1)].
  TileLayout l({Iter{32, 16, Axis::m}, Iter{16, 1, Axis::m}});
  EXPECT_EQ(l.size(), 512);
  EXPECT_EQ(l.cosize(Axis::m), 512);
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 16; ++c)
      ASSERT_EQ(at(l.apply({r, c}, {32, 16}), Axis::m), r * 16 + c);
  // Dense: one contiguous chain of 512 bytes.
  EXPECT_EQ(l.contiguousChain().elements, 512);
  EXPECT_EQ(l.canonicalize().toString(), "S[512:1]");
  // Rows 8..15 are one contiguous 128-byte block at byte 128.
  OrReason<SliceResult> s = l.slice({32, 16}, {8, 0}, {8, 16});
  ASSERT_TRUE(s);
  EXPECT_EQ(at(s->offset, Axis::m), 128);
  EXPECT_EQ(s->residual.canonicalize().toString(), "S[128:1] + 128");
}

TEST(ExampleLayouts, TensorMemoryWarpx4Replica) {
  // Its destination, broadcast to the four 32-lane sub-partitions:
  // S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane].
  OrReason<TileLayout> l = tmemWarpBroadcastLayout(16, 4);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->toString(), "S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]");
  std::set<std::pair<int64_t, int64_t>> cells;
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 16; ++c)
      for (int64_t k = 0; k < 4; ++k) {
        AxisAddress a = l->apply({r, c}, {32, 16}, k);
        EXPECT_EQ(at(a, Axis::TLane), r + 32 * k);
        EXPECT_EQ(at(a, Axis::TCol), c);
        EXPECT_EQ(at(a, Axis::m), 0);
        cells.insert({at(a, Axis::TLane), at(a, Axis::TCol)});
      }
  // Every one of the 128 lanes x 16 columns is written exactly once.
  EXPECT_EQ(cells.size(), 128u * 16u);
  EXPECT_EQ(l->cosize(Axis::TLane), 128);
  // Storage (no thread axes) is the same layout.
  EXPECT_EQ(l->storage(), *l);
}

TEST(ExampleLayouts, Accumulator128Lanes) {
  OrReason<TileLayout> acc = tmemLaneLayout(128, 128);
  ASSERT_TRUE(acc);
  // The f16 gemm_async example (examples/gemm_async.mlir) places its
  // accumulator at tmem[0:128, 256:384].
  TileLayout placed(acc->shard(), {}, {AxisOffset{Axis::TCol, 256}});
  AxisAddress a = placed.apply({127, 127}, {128, 128});
  EXPECT_EQ(at(a, Axis::TLane), 127);
  EXPECT_EQ(at(a, Axis::TCol), 383);
}

/// Byte address of element (row, col) of an 8-row, 64-f16-column swizzle
/// atom sequence, from the PTX ISA's 128B swizzle definition.
int64_t ptxSwizzle128Byte(int64_t row, int64_t col) {
  const int64_t elemBytes = 2, rowBytes = 128, atomCols = 64;
  int64_t atom = col / atomCols;
  int64_t byteInRow = (col % atomCols) * elemBytes;
  int64_t chunk = (byteInRow / 16) ^ (row % 8);
  return atom * 8 * rowBytes + row * rowBytes + chunk * 16 + byteInRow % 16;
}

TEST(ExampleLayouts, Swizzled128BF16Tile8x256) {
  // A TMA copy's destination: an 8x256 f16 tile in 128-byte swizzled
  // shared memory.
  OrReason<TileLayout> l = nvmmaSharedLayout(16, 8, 256, SwizzleMode::B128);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->toString(), "S[(8,4,64):(64,512,1)], swizzle<3,3,3>");
  std::set<int64_t> bytes;
  int checked = 0;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 256; ++c) {
      int64_t byte = at(l->apply({r, c}, {8, 256}), Axis::m) * 2;
      ASSERT_EQ(byte, ptxSwizzle128Byte(r, c))
          << "element (" << r << "," << c << ")";
      bytes.insert(byte);
      ++checked;
    }
  EXPECT_EQ(checked, 2048);
  // A bijection onto the 4 KiB tile.
  EXPECT_EQ(bytes.size(), 2048u);
  EXPECT_EQ(*bytes.rbegin(), 4094);
  EXPECT_EQ(l->cosize(Axis::m) * 2, 4096);
  // Its TMA box shape: the inner dim splits into 64-element atoms.
  OrReason<GroupedLayout> g = l->group({8, 256});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->group(1).size(), 2u);
  EXPECT_EQ(g->group(1)[1].extent, 64);
  // Within a 16-byte chunk the swizzle keeps 8 f16 elements contiguous.
  EXPECT_EQ(l->swizzle().base, 3u);
}

} // namespace

//===- ModelAnchorTests.cpp - the PTX model's shared side on real silicon ---===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// wgmma anchors (Hopper, sm_90a). For every operand configuration the tcgen05
// planner is asked for the plan of a 64x128xK GEMM on the project's own
// layouts (K-major and MN-major, no swizzle and 32B/64B/128B, f16 and tf32);
// its A/B descriptors (LBO, SBO, swizzle) are re-encoded in the wgmma
// flavour by the project's encoder, and each planned K step runs as one
// wgmma (test/Device/Anchors/wgmma_anchor.cu) with that descriptor and
// start offset. The inputs reveal exactly which element was multiplied:
//
//   A probe: B holds the identity (B(n, k) = [n == k], placed by the model),
//            every A slot holds its own index, so D(m, n) = the index of the
//            shared slot the hardware read as A(m, k = n);
//   B probe: the same with the roles swapped: D(m, n) = slot of B(n, k = m).
//
// Slot indices are sent in two launches (low and high 12 bits, each exact
// in f16/tf32 with the sign as the 12th bit). Every hardware slot is then
// compared with the PTX-semantics model (SharedOperandModel on the decoded
// wgmma descriptor) and with the tile layout's own address of the element.
//
//===----------------------------------------------------------------------===//

#include "DeviceCommon.h"

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/Model/SharedMemoryModel.h"
#include "tile/Variants/CUDA/GemmAsync/Tcgen05MmaPlanner.h"
#include "tile/Variants/CUDA/PlanChecker.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace tile;
using namespace tile::runtime;
using tile::device::kernelPath;
using llvm::Error;
namespace model = tile::cuda::model;

namespace {

struct Anchor {
  std::string name;
  bool tf32 = false;
  bool aMnMajor = false, bMnMajor = false;
  SwizzleMode swizzle = SwizzleMode::None;
  /// A control: B's LBO and SBO swapped, a descriptor the project never
  /// emits. The hardware must still read what the model says, and not what
  /// the layout says (so agreement above is not by construction).
  bool swapBOffsets = false;
};

std::vector<Anchor> anchors() {
  std::vector<Anchor> out;
  const std::pair<SwizzleMode, const char *> modes[] = {
      {SwizzleMode::None, "none"},
      {SwizzleMode::B32, "sw32"},
      {SwizzleMode::B64, "sw64"},
      {SwizzleMode::B128, "sw128"}};
  for (auto [mode, sw] : modes) {
    for (auto [aMn, bMn, majors] :
         {std::tuple{false, false, "k_k"}, {true, true, "mn_mn"},
          {false, true, "k_mn"}})
      out.push_back({std::string("f16_") + majors + "_" + sw, false, aMn, bMn,
                     mode});
    out.push_back({std::string("tf32_k_k_") + sw, true, false, false, mode});
  }
  out.push_back({"control_f16_k_k_none_b_offsets_swapped", false, false, false,
                 SwizzleMode::None, true});
  out.push_back({"control_f16_mn_mn_sw128_b_offsets_swapped", false, true,
                 true, SwizzleMode::B128, true});
  return out;
}

/// The project's canonical tile of `rows` (M or N) x `k` for a major and a
/// swizzle: NVMMA swizzled layouts, or 8 x 16-byte core matrices unswizzled.
/// Returns the layout and its stored shape ([rows, k] K-major, [k, rows]
/// MN-major).
std::pair<TileLayout, llvm::SmallVector<int64_t, 4>>
operandTile(unsigned bits, int64_t rows, int64_t k, bool mnMajor,
            SwizzleMode mode) {
  const int64_t t = 128 / bits; // elements of 16 bytes
  if (mode != SwizzleMode::None) {
    llvm::SmallVector<int64_t, 4> shape =
        mnMajor ? llvm::SmallVector<int64_t, 4>{k, rows}
                : llvm::SmallVector<int64_t, 4>{rows, k};
    OrReason<TileLayout> l = nvmmaSharedLayout(bits, shape[0], shape[1], mode);
    EXPECT_TRUE(bool(l)) << l.reason();
    return {l ? *l : TileLayout::rowMajor({shape[0], shape[1]}), shape};
  }
  auto m = [](int64_t e, int64_t s) { return Iter{e, s, Axis::m}; };
  if (!mnMajor) // (r/8, r%8, k/T, k%T): core matrices K-adjacent 128 B apart
    return {TileLayout({m(rows / 8, (k / t) * 8 * t), m(8, t),
                        m(k / t, 8 * t), m(t, 1)}),
            {rows, k}};
  // (k/8, k%8, r/T, r%T): 8 K rows x 16 B of M per core matrix
  return {TileLayout({m(k / 8, 8 * rows), m(8, t), m(rows / t, 8 * t),
                      m(t, 1)}),
          {k, rows}};
}

/// x in [0, 4096) as an integer exact in f16 and tf32: 0..2047, then -1..-2048.
float encodeSlot(int64_t x) { return x < 2048 ? float(x) : -float(x - 2047); }
int64_t decodeSlot(float v) {
  return v >= 0 ? int64_t(v) : 2047 + int64_t(-v);
}

uint16_t halfOf(float v) {
  // Exact for the integers encodeSlot makes (|v| <= 2048).
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  float a = v < 0 ? -v : v;
  int e = 0;
  while (a >= 2) {
    a /= 2;
    ++e;
  }
  uint16_t mant = uint16_t((a - 1) * 1024);
  return uint16_t(sign | uint16_t((e + 15) << 10) | mant);
}

void put(std::vector<uint8_t> &image, int64_t slot, float v, bool tf32) {
  if (tf32) {
    std::memcpy(&image[slot * 4], &v, 4);
  } else {
    uint16_t h = halfOf(v);
    std::memcpy(&image[slot * 2], &h, 2);
  }
}

class WgmmaAnchor : public ::testing::TestWithParam<Anchor> {
protected:
  static void SetUpTestSuite() {
    llvm::Expected<Device> d = Device::open();
    if (!d) {
      skip = "no GPU: " + llvm::toString(d.takeError());
      return;
    }
    device.emplace(std::move(*d));
    if (device->computeMajor() != 9) {
      skip = "wgmma anchors need an sm_90 device; device 0 is " +
             device->smName();
      return;
    }
    llvm::Expected<Module> m =
        Module::loadImage(kernelPath("wgmma_anchor.sm_90a.cubin"));
    if (!m) {
      skip = "cannot load the wgmma anchors: " + llvm::toString(m.takeError());
      return;
    }
    module.emplace(std::move(*m));
  }
  static inline std::string skip;
  static inline std::optional<Device> device;
  static inline std::optional<Module> module;
};

/// Runs one wgmma; returns D (64 x 128 f32, row-major).
llvm::Expected<std::vector<float>>
runWgmma(CUfunction f, const std::vector<uint8_t> &a,
         const std::vector<uint8_t> &b, uint64_t aTemplate, uint32_t aOffset,
         uint64_t bTemplate, uint32_t bOffset) {
  llvm::Expected<DeviceBuffer> da = DeviceBuffer::allocate(a.size());
  llvm::Expected<DeviceBuffer> db = DeviceBuffer::allocate(b.size());
  llvm::Expected<DeviceBuffer> dd = DeviceBuffer::allocate(64 * 128 * 4);
  if (!da || !db || !dd)
    return llvm::createStringError("allocation failed");
  if (Error e = da->copyFromHost(a.data(), a.size()))
    return std::move(e);
  if (Error e = db->copyFromHost(b.data(), b.size()))
    return std::move(e);
  CUdeviceptr pa = da->address(), pb = db->address(), pd = dd->address();
  uint32_t aBytes = a.size(), bBytes = b.size();
  void *params[] = {&pa, &aBytes, &pb, &bBytes, &aTemplate, &aOffset,
                    &bTemplate, &bOffset, &pd};
  uint64_t smem = (a.size() + 1023) / 1024 * 1024 + b.size();
  if (Error e = launchRaw(f, {1, 1, 1}, {128, 1, 1}, {0, 0, 0}, smem, nullptr,
                          params))
    return std::move(e);
  if (Error e = check(driver()->cuCtxSynchronize(), "wgmma anchor"))
    return std::move(e);
  std::vector<float> d(64 * 128);
  if (Error e = dd->copyToHost(d.data(), d.size() * 4))
    return std::move(e);
  return d;
}

TEST_P(WgmmaAnchor, HardwareReadsWhatTheModelSays) {
  const Anchor &c = GetParam();
  const unsigned bits = c.tf32 ? 32 : 16, bytes = bits / 8;
  const int64_t instK = c.tf32 ? 8 : 16;
  // K: at least two instruction K steps and one swizzle row of elements.
  const int64_t k = std::max<int64_t>(
      2 * instK, swizzleBytes(c.swizzle) ? swizzleBytes(c.swizzle) / bytes : 0);
  const int64_t M = 64, N = 128;

  tcgen05_mma::Request r;
  r.a = r.b = c.tf32 ? cuda::MmaElement::TF32 : cuda::MmaElement::F16;
  r.aBits = r.bBits = bits;
  auto [aLayout, aShape] = operandTile(bits, M, k, c.aMnMajor, c.swizzle);
  auto [bLayout, bShape] = operandTile(bits, N, k, c.bMnMajor, c.swizzle);
  r.aSide = {aLayout, aShape, {0, 0}};
  r.transposeA = c.aMnMajor;
  r.bSide = {bLayout, bShape, {0, 0}};
  r.transposeB = !c.bMnMajor;
  // C on the M 64 data path (row r in lane 32 (r / 16) + r % 16).
  r.cSide = {TileLayout({Iter{4, 32, Axis::TLane}, Iter{16, 1, Axis::TLane},
                         Iter{N, 1, Axis::TCol}}),
             {M, N},
             {0, 0}};
  r.m = M;
  r.n = N;
  r.k = k;
  OrReason<tcgen05_mma::Plan> plan = tcgen05_mma::planMma(r);
  ASSERT_TRUE(bool(plan)) << plan.reason();
  ASSERT_TRUE(plan->a);
  plan_check::CheckReport report = plan_check::checkTcgen05Mma(r, *plan);
  ASSERT_FALSE(report.failure) << *report.failure;
  if (c.swapBOffsets) {
    std::swap(plan->b.descriptor.leadingByteOffset,
              plan->b.descriptor.strideByteOffset);
    ASSERT_TRUE(plan_check::checkTcgen05Mma(r, *plan).failure)
        << "the checker accepts swapped B offsets";
  }

  // The project's LBO/SBO/swizzle, encoded for wgmma (start 0).
  std::optional<uint64_t> aTemplate =
      plan->a->descriptor.encode(cuda::DescriptorFlavour::Wgmma);
  std::optional<uint64_t> bTemplate =
      plan->b.descriptor.encode(cuda::DescriptorFlavour::Wgmma);
  ASSERT_TRUE(aTemplate && bTemplate);
  // Everything above runs without a GPU too.
  if (!skip.empty())
    GTEST_SKIP() << skip;
  const char *fn = c.tf32                         ? "wgmma_tf32_kk"
                   : !c.aMnMajor && !c.bMnMajor   ? "wgmma_f16_kk"
                   : !c.aMnMajor                  ? "wgmma_f16_kmn"
                   : !c.bMnMajor                  ? "wgmma_f16_mnk"
                                                  : "wgmma_f16_mnmn";
  llvm::Expected<CUfunction> f = module->function(fn);
  ASSERT_TRUE(bool(f)) << llvm::toString(f.takeError());

  int64_t compared = 0, layoutDisagrees = 0;
  for (const tcgen05_mma::Issue &is : plan->issues) {
    SCOPED_TRACE("K step " + std::to_string(is.ki));
    // The model of this issue's operands, from the wgmma words (buffer at a
    // 1024-byte aligned base: only the offset matters to the swizzle).
    auto operand = [&](uint64_t templ, int64_t offset,
                       bool mn) -> std::optional<model::SharedOperandModel> {
      // The word as the kernel receives it, read by the model's own
      // decoder.
      tile::OrReason<model::SharedOperandModel> m =
          model::SharedOperandModel::create(
              templ + uint64_t(offset >> 4), model::Family::Wgmma,
              mn ? model::OperandMajor::MN : model::OperandMajor::K, bits);
      EXPECT_TRUE(bool(m)) << m.reason();
      if (!m)
        return std::nullopt;
      return *m;
    };
    std::optional<model::SharedOperandModel> am =
        operand(*aTemplate, is.aByte, c.aMnMajor);
    std::optional<model::SharedOperandModel> bm =
        operand(*bTemplate, is.bByte, c.bMnMajor);
    ASSERT_TRUE(am && bm);
    const int64_t k0 = is.ki * instK;
    // Images cover the tile and every byte the model reads.
    int64_t aSlots = M * k, bSlots = N * k;
    for (int64_t i = 0; i < 128; ++i)
      for (int64_t kk = 0; kk < instK; ++kk) {
        if (i < M)
          aSlots = std::max(aSlots, am->address(i, kk).byte / bytes + 1);
        bSlots = std::max(bSlots, bm->address(i, kk).byte / bytes + 1);
      }
    aSlots = (aSlots * bytes + 1023) / 1024 * 1024 / bytes;
    bSlots = (bSlots * bytes + 1023) / 1024 * 1024 / bytes;
    // The layout's slot of A(m, k0 + kk) / B(n, k0 + kk).
    auto layoutSlot = [&](const copy_async::RegionSide &s, bool transpose, int64_t row,
                          int64_t kk) {
      llvm::SmallVector<int64_t, 2> coord =
          transpose ? llvm::SmallVector<int64_t, 2>{k0 + kk, row}
                    : llvm::SmallVector<int64_t, 2>{row, k0 + kk};
      return at(s.layout.apply(coord, s.shape), Axis::m);
    };

    for (int probe = 0; probe < 2; ++probe) {
      const bool probeA = probe == 0;
      std::vector<int64_t> slots[2];
      for (int half = 0; half < 2; ++half) {
        std::vector<uint8_t> a(aSlots * bytes, 0), b(bSlots * bytes, 0);
        std::vector<float> aVal(aSlots, 0), bVal(bSlots, 0);
        auto set = [&](bool onA, int64_t slot, float v) {
          put(onA ? a : b, slot, v, c.tf32);
          (onA ? aVal : bVal)[slot] = v;
        };
        for (int64_t s = 0; s < (probeA ? aSlots : bSlots); ++s)
          set(probeA, s, encodeSlot(half ? s / 4096 : s % 4096));
        // The identity on the other operand, where the model places it.
        for (int64_t i = 0; i < instK; ++i)
          set(!probeA,
              (probeA ? bm->address(i, i) : am->address(i, i)).byte / bytes,
              1.0f);
        llvm::Expected<std::vector<float>> d =
            runWgmma(*f, a, b, *aTemplate, uint32_t(is.aByte), *bTemplate,
                     uint32_t(is.bByte));
        ASSERT_TRUE(bool(d)) << llvm::toString(d.takeError());
        // Every D cell as the model computes it from these images (exact:
        // small integers), and, for the control, as the layout would.
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            float want = 0, layoutWant = 0;
            for (int64_t kk = 0; kk < instK; ++kk) {
              want += aVal[am->address(m, kk).byte / bytes] *
                      bVal[bm->address(n, kk).byte / bytes];
              if (c.swapBOffsets)
                layoutWant +=
                    aVal[layoutSlot(r.aSide, c.aMnMajor, m, kk)] *
                    bVal[layoutSlot(r.bSide, !r.transposeB, n, kk)];
            }
            float v = (*d)[m * N + n];
            ASSERT_EQ(v, want) << "D(" << m << ", " << n << ") of the "
                               << (probeA ? "A" : "B") << " probe: the H100 "
                               << "computed " << v << ", the model " << want;
            layoutDisagrees += c.swapBOffsets && v != layoutWant;
            if (probeA ? n < instK : m < instK)
              slots[half].push_back(decodeSlot(v));
          }
      }
      if (c.swapBOffsets)
        continue; // an aliasing descriptor: slots are sums, not indices
      // Row-major over the probed block: A probe (m, kk = n), B probe
      // (kk = m, n).
      size_t i = 0;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          if (probeA ? n >= instK : m >= instK)
            continue;
          int64_t hw = slots[1][i] * 4096 + slots[0][i];
          ++i;
          int64_t row = probeA ? m : n, kk = probeA ? n : m;
          int64_t modelSlot =
              (probeA ? am->address(row, kk) : bm->address(row, kk)).byte /
              bytes;
          int64_t layout = probeA ? layoutSlot(r.aSide, c.aMnMajor, row, kk)
                                  : layoutSlot(r.bSide, !r.transposeB, row, kk);
          ASSERT_EQ(hw, modelSlot)
              << (probeA ? "A(" : "B(") << row << ", " << k0 + kk
              << "): the H100 read element slot " << hw
              << " (byte " << hw * bytes << "); the model says slot "
              << modelSlot;
          ASSERT_EQ(hw, layout)
              << (probeA ? "A(" : "B(") << row << ", " << k0 + kk
              << "): the H100 read slot " << hw << "; the tile layout "
              << "holds the element at slot " << layout;
          ++compared;
        }
    }
  }
  if (c.swapBOffsets)
    EXPECT_GT(layoutDisagrees, 0)
        << "swapped offsets read what the layout says: the probe is blind";
  std::string what =
      c.swapBOffsets
          ? "every D cell as the model computes it; " +
                std::to_string(layoutDisagrees) +
                " D cells differ from the layout's prediction, as they must"
          : std::to_string(compared) + " A/B elements read where the model "
                                       "and the layout say; every D cell as "
                                       "the model computes it";
  std::printf("[ anchored ] %s: %zu wgmma K steps x 4 launches, %s (A %s LBO "
              "%u SBO %u, B %s LBO %u SBO %u, swizzle %s)\n",
              c.name.c_str(), plan->issues.size(), what.c_str(),
              c.aMnMajor ? "MN-major" : "K-major",
              plan->a->descriptor.leadingByteOffset,
              plan->a->descriptor.strideByteOffset,
              c.bMnMajor ? "MN-major" : "K-major",
              plan->b.descriptor.leadingByteOffset,
              plan->b.descriptor.strideByteOffset,
              cuda::smemSwizzleName(plan->b.descriptor.swizzle).str().c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Operands, WgmmaAnchor, ::testing::ValuesIn(anchors()),
    [](const ::testing::TestParamInfo<Anchor> &info) { return info.param.name; });

} // namespace

//===- DeviceTests.cpp - the on-device suite (TileDeviceTests) -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Kernels written in tile IR and compiled by tile-compile (kernels/: the
// generated device suite, see Kernels/gen_device_kernels.py, and the
// examples), launched through TileRuntime, every result compared with a
// host reference:
//   - TMA round trips over dtypes x swizzles x tile shapes (multi-issue
//     plans, sub-regions, padded rows), each at 4 placements: inside the
//     tensor, across the far edges and before the near edges (loads
//     zero-fill out-of-bounds elements), and a store clipped at the edge;
//   - every stage of a 4-stage ring of 32 KiB tiles (128 KiB of dynamic
//     shared memory);
//   - TMA reduce-add stores; TMA multicast to clusters of 2 and 4;
//   - DSMEM rings in clusters of 2 and 4, contiguous and strided regions;
//   - swizzle read-back: the raw shared tile after a TMA load, every byte
//     position checked against the layout algebra (nvmmaSharedLayout);
//   - wgmma GEMMs (gemm_async into register tiles): the type x major-ness
//     x swizzle x N matrix, A from shared memory and registers, several
//     warpgroups, stmatrix epilogues, each against the host GEMM (kernels
//     in the device_wgmma_<group> modules);
//   - the examples (tma_copy from its cubin and from its PTX,
//     tma_tile_copy, dsmem_copy, kernel_versions) and, on sm_100
//     only, the tcgen05 examples (smem_to_tmem, gemm_async).
// Without a GPU (or below sm_90) every test skips and says why.
//
//===----------------------------------------------------------------------===//

#include "DeviceCommon.h"

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/Model/SharedMemoryModel.h"
#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <map>
#include <cstring>
#include <random>

using namespace tile::runtime;
using tile::device::kernelPath;
using llvm::Error;

namespace {

//===----------------------------------------------------------------------===//
// Environment
//===----------------------------------------------------------------------===//

/// The device and the suite's module, opened once.
struct Suite {
  std::optional<Device> device;
  std::optional<Module> module;
  std::string skip;

  static Suite &get() {
    static Suite suite;
    return suite;
  }

  /// Another module of the suite (the wgmma groups), loaded once.
  llvm::Expected<const Module &> other(const std::string &name) {
    auto it = others.find(name);
    if (it == others.end()) {
      llvm::Expected<Module> m =
          Module::load(kernelPath(name + ".sm_90a.cubin"),
                       kernelPath(name + ".sm_90a.json"));
      if (!m)
        return m.takeError();
      it = others.emplace(name, std::move(*m)).first;
    }
    return it->second;
  }

private:
  std::map<std::string, Module> others;

public:

private:
  Suite() {
    llvm::Expected<Device> d = Device::open(0);
    if (!d) {
      skip = "no GPU: " + llvm::toString(d.takeError());
      return;
    }
    device.emplace(std::move(*d));
    if (device->computeMajor() < 9) {
      skip = "TMA and clusters need sm_90+; device 0 is " + device->smName();
      return;
    }
    llvm::Expected<Module> m =
        Module::load(kernelPath("device_suite.sm_90a.cubin"),
                     kernelPath("device_suite.sm_90a.json"));
    if (!m) {
      skip = "cannot load the suite: " + llvm::toString(m.takeError());
      return;
    }
    module.emplace(std::move(*m));
  }
};

#define REQUIRE_SUITE()                                                        \
  do {                                                                         \
    if (!Suite::get().skip.empty())                                            \
      GTEST_SKIP() << Suite::get().skip;                                       \
  } while (0)

#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    if (Error e = (expr))                                                      \
      FAIL() << llvm::toString(std::move(e));                                  \
  } while (0)

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value) {
    ADD_FAILURE() << llvm::toString(value.takeError());
    return T();
  }
  return std::move(*value);
}

/// Launches and waits; driver errors (and kernel faults) become failures.
Error launchAndWait(const Module &module, const std::string &name,
                    std::array<unsigned, 3> grid,
                    std::vector<KernelArg> args) {
  llvm::Expected<Kernel> kernel = module.kernel(name);
  if (!kernel)
    return kernel.takeError();
  LaunchConfig config;
  config.grid = grid;
  if (Error e = kernel->launch(config, args))
    return e;
  return check(driver()->cuCtxSynchronize(), "cuCtxSynchronize after " + name);
}

std::vector<uint8_t> randomBytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = uint8_t(rng() % 255 + 1); // never 0: zero fill stays visible
  return v;
}

struct DeviceArray {
  DeviceBuffer buffer;
  static llvm::Expected<DeviceArray> of(const std::vector<uint8_t> &bytes) {
    llvm::Expected<DeviceBuffer> b = DeviceBuffer::allocate(bytes.size());
    if (!b)
      return b.takeError();
    if (Error e = b->copyFromHost(bytes.data(), bytes.size()))
      return std::move(e);
    return DeviceArray{std::move(*b)};
  }
  static llvm::Expected<DeviceArray> zeros(size_t bytes) {
    return of(std::vector<uint8_t>(bytes, 0));
  }
  std::vector<uint8_t> read() const {
    std::vector<uint8_t> out(buffer.size());
    if (Error e = buffer.copyToHost(out.data(), out.size()))
      ADD_FAILURE() << llvm::toString(std::move(e));
    return out;
  }
};

/// Element-wise comparison; reports the first few differences.
::testing::AssertionResult sameElements(const std::vector<uint8_t> &got,
                                        const std::vector<uint8_t> &want,
                                        unsigned bytes, int64_t cols) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ";
  int64_t wrong = 0;
  std::string first;
  for (size_t e = 0; e < got.size() / bytes; ++e)
    if (std::memcmp(&got[e * bytes], &want[e * bytes], bytes) != 0 &&
        wrong++ < 4)
      first += " (" + std::to_string(e / cols) + ", " +
               std::to_string(e % cols) + ")";
  if (!wrong)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << wrong << " of " << got.size() / bytes
         << " elements differ; first at" << first;
}

//===----------------------------------------------------------------------===//
// The generated cases
//===----------------------------------------------------------------------===//

struct Case {
  std::string kernel, family, dtype, swizzle;
  unsigned bytes = 0, cluster = 0;
  int64_t stages = 0;
  int64_t rows = 0, cols = 0;
  // dsmem
  std::array<int64_t, 2> src{}, dst{}, srcOffset{};
  // wgmma: K, operand major-ness, accumulator type, warpgroups
  int64_t k = 0;
  bool aMnMajor = false, bMnMajor = false;
  std::string acc;
  unsigned warpgroups = 1;
  // wgmma: the kernel's module ("" for device_suite); the stmatrix
  // epilogue's output type (bf16, f16) and form ("row": TMA-stored M x N,
  // "col": the column-major shared image)
  std::string module, out, outLayout;
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.kernel; }

const std::vector<Case> &allCases() {
  static std::vector<Case> cases = [] {
    std::vector<Case> out;
    auto file = llvm::MemoryBuffer::getFile(kernelPath("device_suite.cases.json"));
    if (!file)
      return out;
    llvm::Expected<llvm::json::Value> v = llvm::json::parse((*file)->getBuffer());
    if (!v) {
      llvm::consumeError(v.takeError());
      return out;
    }
    auto pair = [](const llvm::json::Object &o, llvm::StringRef key) {
      std::array<int64_t, 2> p{};
      if (const llvm::json::Array *a = o.getArray(key))
        for (size_t i = 0; i < 2 && i < a->size(); ++i)
          p[i] = (*a)[i].getAsInteger().value_or(0);
      return p;
    };
    for (const llvm::json::Value &c : *v->getAsObject()->getArray("cases")) {
      const llvm::json::Object &o = *c.getAsObject();
      Case k;
      k.kernel = o.getString("kernel")->str();
      k.family = o.getString("family")->str();
      k.dtype = o.getString("dtype")->str();
      k.swizzle = o.getString("swizzle").value_or("").str();
      k.bytes = o.getInteger("bytes").value_or(0);
      k.cluster = o.getInteger("cluster").value_or(0);
      k.stages = o.getInteger("stages").value_or(0);
      auto region = pair(o, "region");
      k.rows = region[0];
      k.cols = region[1];
      k.src = pair(o, "src");
      k.dst = pair(o, "dst");
      k.srcOffset = pair(o, "src_offset");
      k.k = o.getInteger("k").value_or(0);
      k.aMnMajor = o.getBoolean("a_mn").value_or(false);
      k.bMnMajor = o.getBoolean("b_mn").value_or(false);
      k.acc = o.getString("acc").value_or("").str();
      k.warpgroups = o.getInteger("warpgroups").value_or(1);
      k.module = o.getString("module").value_or("").str();
      k.out = o.getString("out").value_or("").str();
      k.outLayout = o.getString("out_layout").value_or("").str();
      out.push_back(k);
    }
    return out;
  }();
  return cases;
}

std::vector<Case> casesOf(const std::string &family) {
  std::vector<Case> out;
  for (const Case &c : allCases())
    if (c.family == family)
      out.push_back(c);
  return out;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return info.param.kernel;
}

//===----------------------------------------------------------------------===//
// TMA round trips
//===----------------------------------------------------------------------===//

/// Where the region is read from and written to (element coordinates;
/// row then column).
struct Placement {
  std::string name;
  int64_t inRow, inCol, outRow, outCol;
};

/// The tensors of a round trip: rows and columns around an R x C region
/// (row strides stay multiples of 16 bytes).
std::array<int64_t, 2> roundTripTensor(const Case &c) {
  return {2 * c.rows + 5, c.cols + 64};
}

std::vector<Placement> placementsOf(const Case &c) {
  const int64_t R = c.rows, C = c.cols;
  auto [rows, cols] = roundTripTensor(c);
  const int64_t aligned = std::max<int64_t>(1, 16 / c.bytes); // 16 bytes
  return {
      {"inside", R / 2 + 1, aligned, 2, 2 * aligned},
      {"far_edges", rows - R / 2, cols - C / 2, 0, 0},
      {"near_edges", -(R / 2) - 1, -aligned, 1, aligned},
      {"clipped_store", 0, 0, rows - R / 2, cols - C / 2 - aligned},
  };
}

struct RoundTrip {
  Case c;
  Placement p;
};
void PrintTo(const RoundTrip &r, std::ostream *os) {
  *os << r.c.kernel << " " << r.p.name;
}

std::vector<RoundTrip> roundTrips() {
  std::vector<RoundTrip> out;
  for (const Case &c : casesOf("roundtrip"))
    for (const Placement &p : placementsOf(c))
      out.push_back({c, p});
  return out;
}

class TmaRoundTrip : public ::testing::TestWithParam<RoundTrip> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TmaRoundTrip);

/// `stage`: the ring stage a "stage" kernel is given (its last argument).
void checkRoundTrip(const Case &c, const Placement &p,
                    std::optional<int64_t> stage = std::nullopt) {
  const int64_t R = c.rows, C = c.cols, b = c.bytes;
  auto [rows, cols] = roundTripTensor(c);
  std::vector<uint8_t> in = randomBytes(rows * cols * b, 1234);
  std::vector<uint8_t> sentinel(rows * cols * b, 0xA5);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::of(sentinel));
  std::vector<KernelArg> args = {
      KernelArg::memref(dIn.buffer.address(), {rows, cols}),
      KernelArg::memref(dOut.buffer.address(), {rows, cols}),
      KernelArg::i64(p.inRow), KernelArg::i64(p.inCol),
      KernelArg::i64(p.outRow), KernelArg::i64(p.outCol)};
  if (stage)
    args.push_back(KernelArg::i64(*stage));
  ASSERT_OK(launchAndWait(*Suite::get().module, c.kernel, {1, 1, 1}, args));
  std::vector<uint8_t> want = sentinel;
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      int64_t oy = p.outRow + i, ox = p.outCol + j;
      if (oy < 0 || oy >= rows || ox < 0 || ox >= cols)
        continue; // the store drops out-of-bounds elements
      int64_t iy = p.inRow + i, ix = p.inCol + j;
      bool inside = iy >= 0 && iy < rows && ix >= 0 && ix < cols;
      for (int64_t k = 0; k < b; ++k)
        want[(oy * cols + ox) * b + k] =
            inside ? in[(iy * cols + ix) * b + k] : 0; // zero fill
    }
  EXPECT_TRUE(sameElements(dOut.read(), want, b, cols));
}

TEST_P(TmaRoundTrip, MatchesTheHostReference) {
  REQUIRE_SUITE();
  checkRoundTrip(GetParam().c, GetParam().p);
}

INSTANTIATE_TEST_SUITE_P(
    Generated, TmaRoundTrip, ::testing::ValuesIn(roundTrips()),
    [](const ::testing::TestParamInfo<RoundTrip> &info) {
      return info.param.c.kernel + "_" + info.param.p.name;
    });

//===----------------------------------------------------------------------===//
// cp.async (ldgsts) copies
//===----------------------------------------------------------------------===//

/// A tensor around an R x C region whose row stride is aligned to
/// `rowAlignment` bytes and no more (16, 8 or 4: the vector width the
/// emitted code must fall back to), and where the region is read from.
struct LdgstsRun {
  Case c;
  int64_t rowAlignment;
  std::string where;
  int64_t row, col;
};
void PrintTo(const LdgstsRun &r, std::ostream *os) {
  *os << r.c.kernel << " rows aligned to " << r.rowAlignment << " " << r.where;
}

std::array<int64_t, 2> ldgstsTensor(const Case &c, int64_t rowAlignment) {
  const int64_t b = c.bytes;
  int64_t cols = c.cols + 64 / b * b; // a 16-byte multiple of bytes
  if (rowAlignment < 16)
    cols += rowAlignment / b;
  return {2 * c.rows + 5, cols};
}

std::vector<LdgstsRun> ldgstsRuns() {
  std::vector<LdgstsRun> out;
  for (const Case &c : casesOf("ldgsts"))
    for (int64_t alignment : {16, 8, 4}) {
      auto [rows, cols] = ldgstsTensor(c, alignment);
      // Columns stay 4-byte aligned: cp.async moves at least 4 bytes.
      auto aligned4 = [&](int64_t col) { return col * c.bytes / 4 * 4 / c.bytes; };
      out.push_back({c, alignment, "inside", 3, 32 / c.bytes});
      out.push_back({c, alignment, "far_edges", rows - c.rows / 2,
                     aligned4(cols - c.cols / 2)});
      out.push_back({c, alignment, "before_the_first_row", -(c.rows / 2), 0});
    }
  return out;
}

class LdgstsCopy : public ::testing::TestWithParam<LdgstsRun> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LdgstsCopy);

TEST_P(LdgstsCopy, MatchesTheHostReferenceWithZeroFill) {
  REQUIRE_SUITE();
  const LdgstsRun &run = GetParam();
  const Case &c = run.c;
  const int64_t R = c.rows, C = c.cols, b = c.bytes;
  auto [rows, cols] = ldgstsTensor(c, run.rowAlignment);
  std::vector<uint8_t> in = randomBytes(rows * cols * b, 4321);
  std::vector<uint8_t> sentinel(R * C * b, 0xA5);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::of(sentinel));
  std::vector<KernelArg> args = {
      KernelArg::memref(dIn.buffer.address(), {rows, cols}),
      KernelArg::memref(dOut.buffer.address(), {R, C}),
      KernelArg::i64(run.row), KernelArg::i64(run.col)};
  ASSERT_OK(launchAndWait(*Suite::get().module, c.kernel, {1, 1, 1}, args));
  std::vector<uint8_t> want(R * C * b, 0);
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      int64_t y = run.row + i, x = run.col + j;
      if (y < 0 || y >= rows || x < 0 || x >= cols)
        continue; // zero fill
      for (int64_t k = 0; k < b; ++k)
        want[(i * C + j) * b + k] = in[(y * cols + x) * b + k];
    }
  EXPECT_TRUE(sameElements(dOut.read(), want, b, C));
}

INSTANTIATE_TEST_SUITE_P(
    Generated, LdgstsCopy, ::testing::ValuesIn(ldgstsRuns()),
    [](const ::testing::TestParamInfo<LdgstsRun> &info) {
      return info.param.c.kernel + "_rows" +
             std::to_string(info.param.rowAlignment) + "B_" + info.param.where;
    });

// One stage of a two-stage shared ring, the stage a runtime index: the
// tile goes in and out through that stage at every placement.
class TmaRingStage : public ::testing::TestWithParam<RoundTrip> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TmaRingStage);

TEST_P(TmaRingStage, EachStageMatchesTheHostReference) {
  REQUIRE_SUITE();
  for (int64_t stage : {0, 1}) {
    SCOPED_TRACE("stage " + std::to_string(stage));
    checkRoundTrip(GetParam().c, GetParam().p, stage);
  }
}

std::vector<RoundTrip> ringStages() {
  std::vector<RoundTrip> out;
  for (const Case &c : casesOf("stage"))
    for (const Placement &p : placementsOf(c))
      out.push_back({c, p});
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Generated, TmaRingStage, ::testing::ValuesIn(ringStages()),
    [](const ::testing::TestParamInfo<RoundTrip> &info) {
      return info.param.c.kernel + "_" + info.param.p.name;
    });

/// Probes, not part of the suite (a faulting kernel poisons the context, so
/// run each in its own process with --gtest_also_run_disabled_tests and a
/// filter): an inner coordinate that is not a multiple of 16 bytes, on the
/// load side or the store side.
class DISABLED_TmaUnalignedCoordinate : public TmaRoundTrip {};

TEST_P(DISABLED_TmaUnalignedCoordinate, MatchesTheHostReference) {
  REQUIRE_SUITE();
  checkRoundTrip(GetParam().c, GetParam().p);
}

std::vector<RoundTrip> unalignedProbes() {
  std::vector<RoundTrip> out;
  for (const Case &c : casesOf("roundtrip")) {
    out.push_back({c, {"unaligned_load", 1, 3, 2, 16 / int64_t(c.bytes)}});
    out.push_back({c, {"unaligned_store", 1, 0, 2, 3}});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Probe, DISABLED_TmaUnalignedCoordinate, ::testing::ValuesIn(unalignedProbes()),
    [](const ::testing::TestParamInfo<RoundTrip> &info) {
      return info.param.c.kernel + "_" + info.param.p.name;
    });

//===----------------------------------------------------------------------===//
// TMA reduce-add
//===----------------------------------------------------------------------===//

/// A small integer (|v| < 16) as an 8-bit float with `mantissa` bits and
/// exponent `bias` (e4m3: 3, 7; e5m2: 2, 15); exact.
uint8_t encodeFp8(int v, int mantissa, int bias) {
  if (!v)
    return 0;
  unsigned mag = unsigned(std::abs(v));
  int exponent = 31 - __builtin_clz(mag);
  unsigned bits = (unsigned(exponent + bias) << mantissa) |
                  ((mag << mantissa >> exponent) & ((1u << mantissa) - 1));
  return uint8_t((v < 0 ? 0x80 : 0) | bits);
}

/// `v` (a small integer) as an element of `dtype`; exact in f16/bf16 too.
void encodeInteger(const std::string &dtype, int v, uint8_t *p) {
  float f = float(v);
  uint32_t fbits;
  std::memcpy(&fbits, &f, 4);
  if (dtype == "f32") {
    std::memcpy(p, &f, 4);
  } else if (dtype == "i32") {
    std::memcpy(p, &v, 4);
  } else if (dtype == "bf16") {
    uint16_t h = uint16_t(fbits >> 16); // small integers need no rounding
    std::memcpy(p, &h, 2);
  } else if (dtype == "f8E4M3FN") {
    *p = encodeFp8(v, 3, 7);
  } else if (dtype == "f8E5M2") {
    *p = encodeFp8(v, 2, 15);
  } else if (dtype == "f16") {
    uint16_t h = 0; // sign | exponent | 10-bit mantissa
    if (v) {
      unsigned mag = unsigned(std::abs(v));
      int exponent = 31 - __builtin_clz(mag);
      h = uint16_t((v < 0 ? 0x8000 : 0) | ((exponent + 15) << 10) |
                   ((mag << (10 - exponent)) & 0x3FF));
    }
    std::memcpy(p, &h, 2);
  }
}

/// `n` random integers in [lo, hi] (into `values`) encoded as `dtype`.
std::vector<uint8_t> smallIntegers(const std::string &dtype, unsigned bytes,
                                   int64_t n, int lo, int hi, unsigned seed,
                                   std::vector<int> &values) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n * bytes);
  values.resize(n);
  for (int64_t e = 0; e < n; ++e) {
    values[e] = lo + int(rng() % unsigned(hi - lo + 1));
    encodeInteger(dtype, values[e], &out[e * bytes]);
  }
  return out;
}

class TmaReduceAdd : public ::testing::TestWithParam<Case> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TmaReduceAdd);

TEST_P(TmaReduceAdd, AddsTheTileIntoTheTensor) {
  REQUIRE_SUITE();
  const Case &c = GetParam();
  const int64_t R = c.rows, C = c.cols, rows = 2 * R, cols = C + 64;
  std::vector<int> a, o;
  std::vector<uint8_t> in = smallIntegers(c.dtype, c.bytes, rows * cols, -8, 8, 7, a);
  std::vector<uint8_t> out = smallIntegers(c.dtype, c.bytes, rows * cols, -8, 8, 8, o);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::of(out));
  const int64_t inRow = 3, inCol = 8, outRow = R / 2, outCol = 16;
  ASSERT_OK(launchAndWait(*Suite::get().module, c.kernel, {1, 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {rows, cols}),
                           KernelArg::memref(dOut.buffer.address(), {rows, cols}),
                           KernelArg::i64(inRow), KernelArg::i64(inCol),
                           KernelArg::i64(outRow), KernelArg::i64(outCol)}));
  std::vector<int> sum = o;
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j)
      sum[(outRow + i) * cols + outCol + j] += a[(inRow + i) * cols + inCol + j];
  std::vector<uint8_t> want(rows * cols * c.bytes);
  for (int64_t e = 0; e < rows * cols; ++e)
    encodeInteger(c.dtype, sum[e], &want[e * c.bytes]);
  EXPECT_TRUE(sameElements(dOut.read(), want, c.bytes, cols));
}

INSTANTIATE_TEST_SUITE_P(Generated, TmaReduceAdd,
                         ::testing::ValuesIn(casesOf("reduce")), caseName);

//===----------------------------------------------------------------------===//
// Dynamic shared memory beyond 48 KiB
//===----------------------------------------------------------------------===//

// Every stage of a ring of 32 KiB tiles (128 KiB of dynamic shared memory):
// the tensor goes in stage by stage and comes back out unchanged, so each
// stage holds its own rows and the launch raised the dynamic-shared limit.
class TmaDynamicSharedRing : public ::testing::TestWithParam<Case> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TmaDynamicSharedRing);

TEST_P(TmaDynamicSharedRing, EveryStageRoundTrips) {
  REQUIRE_SUITE();
  const Case &c = GetParam();
  const int64_t rows = c.stages * c.rows, cols = c.cols;
  llvm::Expected<Kernel> kernel = Suite::get().module->kernel(c.kernel);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_GE(kernel->spec().dynamicSharedBytes,
            uint64_t(rows * cols * c.bytes));
  std::vector<uint8_t> in = randomBytes(rows * cols * c.bytes, 4321);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::zeros(in.size()));
  ASSERT_OK(launchAndWait(*Suite::get().module, c.kernel, {1, 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {rows, cols}),
                           KernelArg::memref(dOut.buffer.address(), {rows, cols})}));
  EXPECT_TRUE(sameElements(dOut.read(), in, c.bytes, cols));
}

INSTANTIATE_TEST_SUITE_P(Generated, TmaDynamicSharedRing,
                         ::testing::ValuesIn(casesOf("ring")), caseName);

//===----------------------------------------------------------------------===//
// TMA multicast
//===----------------------------------------------------------------------===//

class TmaMulticast : public ::testing::TestWithParam<Case> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TmaMulticast);

TEST_P(TmaMulticast, EveryCtaOfTheClusterReceivesTheTile) {
  REQUIRE_SUITE();
  const Case &c = GetParam();
  const int64_t R = c.rows, C = c.cols, n = c.cluster;
  std::vector<uint8_t> in = randomBytes(R * C * c.bytes, 99);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut =
      unwrap(DeviceArray::zeros(n * R * C * c.bytes));
  ASSERT_OK(launchAndWait(*Suite::get().module, c.kernel, {unsigned(n), 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {R, C}),
                           KernelArg::memref(dOut.buffer.address(), {n * R, C})}));
  std::vector<uint8_t> want;
  for (int64_t r = 0; r < n; ++r)
    want.insert(want.end(), in.begin(), in.end());
  EXPECT_TRUE(sameElements(dOut.read(), want, c.bytes, C));
}

INSTANTIATE_TEST_SUITE_P(Generated, TmaMulticast,
                         ::testing::ValuesIn(casesOf("multicast")), caseName);

//===----------------------------------------------------------------------===//
// DSMEM
//===----------------------------------------------------------------------===//

class DsmemRing : public ::testing::TestWithParam<Case> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DsmemRing);

TEST_P(DsmemRing, EachCtaReceivesItsNeighboursRegion) {
  REQUIRE_SUITE();
  const Case &c = GetParam();
  const int64_t n = c.cluster, b = c.bytes;
  const int64_t sr = c.src[0], sc = c.src[1], dr = c.dst[0], dc = c.dst[1];
  std::vector<uint8_t> in = randomBytes(n * sr * sc * b, 5);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut =
      unwrap(DeviceArray::zeros(n * dr * dc * b));
  ASSERT_OK(launchAndWait(*Suite::get().module, c.kernel, {unsigned(n), 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {n * sr, sc}),
                           KernelArg::memref(dOut.buffer.address(), {n * dr, dc})}));
  std::vector<uint8_t> want(n * dr * dc * b);
  for (int64_t r = 0; r < n; ++r) {
    int64_t from = (r + n - 1) % n; // CTA r received from CTA r-1
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.cols; ++j)
        std::memcpy(&want[((r * dr + i) * dc + j) * b],
                    &in[((from * sr + c.srcOffset[0] + i) * sc + c.srcOffset[1] +
                         j) * b],
                    b);
  }
  EXPECT_TRUE(sameElements(dOut.read(), want, b, dc));
}

INSTANTIATE_TEST_SUITE_P(Generated, DsmemRing,
                         ::testing::ValuesIn(casesOf("dsmem")), caseName);

//===----------------------------------------------------------------------===//
// Swizzle read-back
//===----------------------------------------------------------------------===//

class SwizzleReadBack : public ::testing::TestWithParam<Case> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SwizzleReadBack);

TEST_P(SwizzleReadBack, EverySharedByteIsWhereTheLayoutAlgebraSays) {
  REQUIRE_SUITE();
  const Case &c = GetParam();
  const int64_t R = c.rows, C = c.cols, b = c.bytes;
  tile::SwizzleMode mode = c.swizzle == "128"  ? tile::SwizzleMode::B128
                           : c.swizzle == "64" ? tile::SwizzleMode::B64
                           : c.swizzle == "32" ? tile::SwizzleMode::B32
                                               : tile::SwizzleMode::None;
  tile::OrReason<tile::TileLayout> layout =
      tile::nvmmaSharedLayout(unsigned(8 * b), R, C, mode);
  ASSERT_TRUE(bool(layout)) << layout.reason();
  std::vector<uint8_t> in = randomBytes(R * C * b, 42);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dDump =
      unwrap(DeviceArray::zeros(R * C * b));
  ASSERT_OK(launchAndWait(*Suite::get().module, c.kernel, {1, 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {R, C}),
                           KernelArg::memref(dDump.buffer.address(),
                                             {R * C * b / 4})}));
  std::vector<uint8_t> dump = dDump.read();
  // Every element's bytes at the algebra's address; every byte covered once.
  std::vector<int> covered(dump.size(), 0);
  int64_t wrong = 0;
  std::string first;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t k = 0; k < C; ++k) {
      int64_t element = tile::at(layout->apply({r, k}, {R, C}), tile::Axis::m);
      ASSERT_GE(element, 0);
      ASSERT_LT(element * b, int64_t(dump.size()));
      for (int64_t i = 0; i < b; ++i)
        ++covered[element * b + i];
      if (std::memcmp(&dump[element * b], &in[(r * C + k) * b], b) != 0 &&
          wrong++ == 0)
        first = "(" + std::to_string(r) + ", " + std::to_string(k) +
                ") expected at byte " + std::to_string(element * b);
    }
  EXPECT_EQ(wrong, 0) << "elements not where the layout puts them; first: "
                      << first;
  EXPECT_EQ(std::count(covered.begin(), covered.end(), 1),
            int64_t(dump.size()));

  // The PTX-semantics model of the same copy: the tma plan's boxes (dense,
  // the map's swizzle on the byte address) must put every global byte
  // where the hardware did (the tile is 1024-byte aligned: base 0).
  tile::tma::Request req;
  req.global = {{R, C}, {C, 1}, {0, 0}};
  req.shared = {*layout, {R, C}, {0, 0}};
  req.sizes = {R, C};
  req.elementBits = unsigned(8 * b);
  req.dataType = b == 1   ? tile::cuda::TensorMapDataType::UInt8
                 : b == 2 ? tile::cuda::TensorMapDataType::Float16
                          : tile::cuda::TensorMapDataType::Float32;
  tile::OrReason<tile::tma::Plan> plan = tile::tma::planTensorCopy(req);
  ASSERT_TRUE(bool(plan)) << plan.reason();
  int64_t modelled = 0, modelWrong = 0;
  std::string firstModel;
  for (const tile::tma::Issue &is : plan->issues) {
    llvm::SmallVector<int64_t, 5> coords;
    for (const tile::tma::Coordinate &co : is.coords)
      coords.push_back(co.constant);
    tile::OrReason<std::vector<tile::cuda::model::BoxElement>> box =
        tile::cuda::model::tensorMapBox(plan->map, coords, is.sharedByte);
    ASSERT_TRUE(bool(box)) << box.reason();
    int64_t unit = tile::cuda::elementBytes(plan->map.dataType);
    for (const tile::cuda::model::BoxElement &e : *box) {
      ASSERT_TRUE(e.inBounds);
      ++modelled;
      if (std::memcmp(&dump[e.sharedByte], &in[e.globalByte], unit) != 0 &&
          modelWrong++ == 0)
        firstModel = "global byte " + std::to_string(e.globalByte) +
                     ": the model puts it at shared byte " +
                     std::to_string(e.sharedByte);
    }
  }
  EXPECT_EQ(modelWrong, 0) << "bytes not where the PTX model puts them; "
                           << "first: " << firstModel;
  EXPECT_EQ(modelled * tile::cuda::elementBytes(plan->map.dataType),
            int64_t(dump.size()));
  std::printf("[ checked  ] %s: %zu byte positions, swizzle %s (layout "
              "algebra and PTX model, %zu box(es))\n",
              c.kernel.c_str(), dump.size(), c.swizzle.c_str(),
              plan->issues.size());
}

INSTANTIATE_TEST_SUITE_P(Generated, SwizzleReadBack,
                         ::testing::ValuesIn(casesOf("readback")), caseName);

//===----------------------------------------------------------------------===//
// wgmma GEMMs
//===----------------------------------------------------------------------===//

/// An f16 bit pattern's value (normal numbers and zero: what small-integer
/// sums produce).
float halfValue(uint16_t h) {
  if (!(h & 0x7FFF))
    return 0.0f;
  int exponent = int((h >> 10) & 0x1F) - 15;
  float mantissa = 1.0f + float(h & 0x3FF) / 1024.0f;
  float v = std::ldexp(mantissa, exponent);
  return (h & 0x8000) ? -v : v;
}

/// A bf16 bit pattern's value.
float bf16Value(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

/// An integer rounded to nearest even with `mantissa` fraction bits (f16
/// 10, bf16 7), computed on integers (|x| < 2^24): what the epilogue's
/// f32 -> f16/bf16 conversion must produce.
double roundToMantissa(int64_t x, int mantissa) {
  int64_t a = x < 0 ? -x : x;
  int exponent = 0;
  while ((int64_t(1) << (exponent + 1)) <= a)
    ++exponent;
  if (exponent <= mantissa)
    return double(x);
  int64_t ulp = int64_t(1) << (exponent - mantissa);
  int64_t q = a / ulp, rem = a % ulp;
  if (rem * 2 > ulp || (rem * 2 == ulp && (q & 1)))
    ++q;
  return double(x < 0 ? -q * ulp : q * ulp);
}

class Wgmma : public ::testing::TestWithParam<Case> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Wgmma);

// Integers in [-3, 3]: every product and sum (|sum| <= 9 K <= 2304, plus
// 1000) is exact in every operand type and in f32 and f16 accumulators, so
// the results must match the host exactly. flag 0 overwrites the register
// tile (filled with 1000 by the kernel); flag 1 accumulates into it.
TEST_P(Wgmma, MatchesTheHostGemm) {
  REQUIRE_SUITE();
  const Case &c = GetParam();
  const int64_t M = c.rows, N = c.cols, K = c.k;
  std::vector<int> a, b;
  std::vector<uint8_t> aBytes =
      smallIntegers(c.dtype, c.bytes, M * K, -3, 3, 11, a);
  std::vector<uint8_t> bBytes =
      smallIntegers(c.dtype, c.bytes, K * N, -3, 3, 12, b);
  // Stored M x K (K x M when MN-major) and N x K (K x N when MN-major).
  auto A = [&](int64_t m, int64_t k) {
    return c.aMnMajor ? a[k * M + m] : a[m * K + k];
  };
  auto B = [&](int64_t k, int64_t n) {
    return c.bMnMajor ? b[k * N + n] : b[n * K + k];
  };
  std::array<int64_t, 2> aDims = c.aMnMajor ? std::array<int64_t, 2>{K, M}
                                            : std::array<int64_t, 2>{M, K};
  std::array<int64_t, 2> bDims = c.bMnMajor ? std::array<int64_t, 2>{K, N}
                                            : std::array<int64_t, 2>{N, K};
  DeviceArray dA = unwrap(DeviceArray::of(aBytes));
  DeviceArray dB = unwrap(DeviceArray::of(bBytes));
  const Module *module = &*Suite::get().module;
  if (!c.module.empty()) {
    llvm::Expected<const Module &> m = Suite::get().other(c.module);
    ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
    module = &*m;
  }
  // The stored elements: the accumulator's type, or the stmatrix
  // epilogue's 16-bit output (a column-major image for "col").
  const bool converted = !c.out.empty();
  const int64_t accBytes = converted || c.acc == "f16" ? 2 : 4;
  const bool colMajor = c.outLayout == "col";
  std::array<int64_t, 2> outDims =
      colMajor ? std::array<int64_t, 2>{M, N / 2} : std::array<int64_t, 2>{M, N};
  for (int flag : {0, 1}) {
    SCOPED_TRACE("accumulate flag " + std::to_string(flag));
    DeviceArray dOut = unwrap(DeviceArray::zeros(M * N * accBytes));
    ASSERT_OK(launchAndWait(
        *module, c.kernel, {1, 1, 1},
        {KernelArg::memref(dA.buffer.address(), {aDims[0], aDims[1]}),
         KernelArg::memref(dB.buffer.address(), {bDims[0], bDims[1]}),
         KernelArg::memref(dOut.buffer.address(), outDims),
         KernelArg::i32(flag)}));
    std::vector<uint8_t> out = dOut.read();
    int64_t wrong = 0;
    std::string first;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        int64_t want = flag ? 1000 : 0;
        for (int64_t k = 0; k < K; ++k)
          want += int64_t(A(m, k)) * B(k, n);
        float got;
        double expected = double(want);
        if (accBytes == 2) {
          uint16_t h;
          int64_t at = colMajor ? m + M * n : m * N + n;
          std::memcpy(&h, &out[at * 2], 2);
          got = c.out == "bf16" ? bf16Value(h) : halfValue(h);
          if (converted)
            expected = roundToMantissa(want, c.out == "bf16" ? 7 : 10);
        } else {
          std::memcpy(&got, &out[(m * N + n) * 4], 4);
        }
        if (double(got) != expected && wrong++ == 0)
          first = "(" + std::to_string(m) + ", " + std::to_string(n) +
                  "): " + std::to_string(got) + ", expected " +
                  std::to_string(expected);
      }
    EXPECT_EQ(wrong, 0) << wrong << " of " << M * N
                        << " elements differ; first " << first;
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, Wgmma,
                         ::testing::ValuesIn(casesOf("wgmma")), caseName);

//===----------------------------------------------------------------------===//
// The examples
//===----------------------------------------------------------------------===//

/// Loads kernels/<example>.<chip>.{cubin,json}; skips below `major`, or
/// on any other major when `exact`.
std::optional<Module> loadExample(const std::string &example,
                                  const std::string &chip, int major,
                                  bool exact, std::string &skip) {
  if (!Suite::get().device) {
    skip = Suite::get().skip;
    return std::nullopt;
  }
  const Device &d = *Suite::get().device;
  if (exact ? d.computeMajor() != major : d.computeMajor() < major) {
    skip = example + " needs an sm_" + std::to_string(major) + "0 device (" +
           (major == 10 ? "tcgen05, tensor memory" : "TMA, clusters") +
           "); device 0 is " + d.smName();
    return std::nullopt;
  }
  llvm::Expected<Module> m =
      Module::load(kernelPath(example + "." + chip + ".cubin"),
                   kernelPath(example + "." + chip + ".json"));
  if (!m) {
    ADD_FAILURE() << llvm::toString(m.takeError());
    return std::nullopt;
  }
  return std::move(*m);
}

#define LOAD_EXAMPLE(var, example, chip, major, exact)                         \
  std::string var##_skip;                                                      \
  std::optional<Module> var =                                                  \
      loadExample(example, chip, major, exact, var##_skip);                    \
  if (!var##_skip.empty())                                                     \
    GTEST_SKIP() << var##_skip;                                                \
  ASSERT_TRUE(var.has_value())

TEST(Examples, TmaCopy) {
  LOAD_EXAMPLE(module, "tma_copy", "sm_90a", 9, false);
  std::vector<uint8_t> in = randomBytes(8 * 256 * 2, 3);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::zeros(in.size()));
  ASSERT_OK(launchAndWait(*module, "tma_copy", {1, 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {8, 256}),
                           KernelArg::memref(dOut.buffer.address(), {8, 256})}));
  EXPECT_TRUE(sameElements(dOut.read(), in, 2, 256));
}

TEST(Examples, TmaCopyFromPtx) {
  // The same kernel loaded from its PTX: the driver compiles it.
  REQUIRE_SUITE();
  llvm::Expected<Module> module = Module::load(
      kernelPath("tma_copy.sm_90a.ptx"), kernelPath("tma_copy.sm_90a.json"));
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  std::vector<uint8_t> in = randomBytes(8 * 256 * 2, 13);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::zeros(in.size()));
  ASSERT_OK(launchAndWait(*module, "tma_copy", {1, 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {8, 256}),
                           KernelArg::memref(dOut.buffer.address(), {8, 256})}));
  EXPECT_TRUE(sameElements(dOut.read(), in, 2, 256));
}

TEST(Examples, TmaTileCopyOfARuntimeSizedTensor) {
  LOAD_EXAMPLE(module, "tma_tile_copy", "sm_90a", 9, false);
  const int64_t rows = 1024, cols = 512;
  std::vector<uint8_t> in = randomBytes(rows * cols * 2, 4);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::zeros(in.size()));
  ASSERT_OK(launchAndWait(*module, "tma_tile_copy",
                          {unsigned(cols / 64), unsigned(rows / 128), 1},
                          {KernelArg::memref(dIn.buffer.address(), {rows, cols}),
                           KernelArg::memref(dOut.buffer.address(), {rows, cols})}));
  EXPECT_TRUE(sameElements(dOut.read(), in, 2, cols));
}

// examples/kernel_versions.mlir launched by name: the TMA version for a
// 16-byte-aligned input, the cp.async one for rows of 4098 f16 (8196
// bytes) and for a tensor starting 4 bytes past a 16-byte boundary; the
// tile lands either way. Rows of 4097 f16 are refused before any launch.
// (The memref type has the identity layout: its offset is 0, so a view is
// passed as its own address.)
TEST(Examples, KernelVersionsChosenByTheTensors) {
  LOAD_EXAMPLE(module, "kernel_versions", "sm_90a", 9, false);
  const int64_t rows = 128, cols = 64;
  struct Input {
    int64_t rowStride, skip; // elements before the tensor in its allocation
    const char *version;
  } inputs[] = {{4096, 0, "tile_copy"},
                {4098, 0, "tile_copy_ldgsts"},
                {4096, 2, "tile_copy_ldgsts"}};
  for (const Input &input : inputs) {
    SCOPED_TRACE(input.version + std::string(" row stride ") +
                 std::to_string(input.rowStride));
    size_t elements = size_t(rows * input.rowStride + input.skip);
    std::vector<uint8_t> in = randomBytes(elements * 2, 11);
    DeviceArray dIn = unwrap(DeviceArray::of(in));
    DeviceArray dOut = unwrap(DeviceArray::zeros(rows * cols * 2));
    std::vector<KernelArg> args = {
        KernelArg::memref(dIn.buffer.address() + input.skip * 2,
                          {rows, input.rowStride}),
        KernelArg::memref(dOut.buffer.address(), {rows, cols})};
    llvm::Expected<Kernel> kernel = module->kernelFor("tile_copy", args);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_EQ(kernel->spec().name, input.version);
    LaunchConfig config;
    ASSERT_OK(kernel->launch(config, args));
    ASSERT_OK(check(driver()->cuCtxSynchronize(), "cuCtxSynchronize"));
    std::vector<uint8_t> want(rows * cols * 2);
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(&want[r * cols * 2],
                  &in[(r * input.rowStride + input.skip) * 2], cols * 2);
    EXPECT_TRUE(sameElements(dOut.read(), want, 2, cols));
  }
  DeviceArray odd = unwrap(DeviceArray::zeros(rows * 4097 * 2));
  DeviceArray out = unwrap(DeviceArray::zeros(rows * cols * 2));
  llvm::Expected<Kernel> none = module->kernelFor(
      "tile_copy", {KernelArg::memref(odd.buffer.address(), {rows, 4097}),
                    KernelArg::memref(out.buffer.address(), {rows, cols})});
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError())
                .find("no version of tile_copy takes these arguments"),
            std::string::npos);
}

// examples/cp_async_pipeline.mlir, compiled for sm_80 and loaded from its
// PTX (ISA 7.0), which the driver compiles for the device (an sm_80 cubin
// runs only on sm_8x chips): out = in * factor through the two-stage cp.async ring completing
// through cp.async groups, on random normal data against the host (one
// f32 multiply: bit for bit). One CTA walks all 128 tiles (both stages
// refilled many times), 3 and 50 CTAs several each, 200 CTAs one or none
// (a CTA with no tile commits an empty group and skips the loop).
TEST(Examples, CpAsyncPipelineScalesEveryRow) {
  REQUIRE_SUITE();
  llvm::Expected<Module> module =
      Module::load(kernelPath("cp_async_pipeline.sm_80.ptx"),
                   kernelPath("cp_async_pipeline.sm_80.json"));
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  const int64_t rows = 4096, cols = 64;
  const float factor = -1.75f;
  std::mt19937 gen(21);
  std::normal_distribution<float> normal;
  std::vector<float> in(rows * cols), want(rows * cols);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = normal(gen);
    want[i] = in[i] * factor;
  }
  std::vector<uint8_t> bytes(in.size() * 4);
  std::memcpy(bytes.data(), in.data(), bytes.size());
  DeviceArray dIn = unwrap(DeviceArray::of(bytes));
  for (unsigned ctas : {1u, 3u, 50u, 200u}) {
    SCOPED_TRACE(std::to_string(ctas) + " CTAs");
    DeviceArray dOut = unwrap(DeviceArray::zeros(bytes.size()));
    ASSERT_OK(launchAndWait(
        *module, "scale_rows", {ctas, 1, 1},
        {KernelArg::memref(dIn.buffer.address(), {rows, cols}),
         KernelArg::memref(dOut.buffer.address(), {rows, cols}),
         KernelArg::f32(factor)}));
    std::vector<uint8_t> out = dOut.read();
    std::vector<float> got(in.size());
    std::memcpy(got.data(), out.data(), out.size());
    int64_t wrong = 0, first = -1;
    for (size_t i = 0; i < got.size(); ++i)
      if (std::memcmp(&got[i], &want[i], 4) != 0 && wrong++ == 0)
        first = int64_t(i);
    EXPECT_EQ(wrong, 0) << "first at row " << first / cols << " column "
                        << first % cols << ": " << got[first] << ", want "
                        << want[first];
  }
}

TEST(Examples, DsmemCopyInClustersOfTwo) {
  LOAD_EXAMPLE(module, "dsmem_copy", "sm_90a", 9, false);
  std::vector<uint8_t> in = randomBytes(128 * 64 * 2, 6);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::zeros(in.size()));
  ASSERT_OK(launchAndWait(*module, "dsmem_copy", {132, 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {128, 64}),
                           KernelArg::memref(dOut.buffer.address(), {128, 64})}));
  EXPECT_TRUE(sameElements(dOut.read(), in, 2, 64));
}

// The grid a persistent cluster kernel should not exceed: clusters fit
// within a GPC, so pairs of CTAs fill at most half the SMs (more than one
// pair fits an SM when their shared memory allows); a kernel without a
// cluster counts CTAs.
TEST(Runtime, MaxActiveClustersCountsWholeClusters) {
  REQUIRE_SUITE();
  LOAD_EXAMPLE(module, "dsmem_copy", "sm_90a", 9, false);
  llvm::Expected<tile::runtime::Kernel> pair = module->kernel("dsmem_copy");
  ASSERT_TRUE(bool(pair)) << llvm::toString(pair.takeError());
  llvm::Expected<int> pairs = pair->maxActiveClusters();
  ASSERT_TRUE(bool(pairs)) << llvm::toString(pairs.takeError());
  int sms = Suite::get().device->multiprocessors();
  EXPECT_GE(*pairs, 1);
  // 16 KiB and 128 threads a CTA: several pairs share an SM.
  EXPECT_GE(*pairs, sms / 2);
  // At most 32 CTAs an SM.
  EXPECT_LE(*pairs, 16 * sms);
  LOAD_EXAMPLE(single, "tma_copy", "sm_90a", 9, false);
  llvm::Expected<tile::runtime::Kernel> alone = single->kernel("tma_copy");
  ASSERT_TRUE(bool(alone)) << llvm::toString(alone.takeError());
  llvm::Expected<int> ctas = alone->maxActiveClusters();
  ASSERT_TRUE(bool(ctas)) << llvm::toString(ctas.takeError());
  EXPECT_GE(*ctas, sms);
}

TEST(Tcgen05, SmemToTmemBroadcastsToEveryWarp) {
  LOAD_EXAMPLE(module, "smem_to_tmem", "sm_100a", 10, true);
  std::vector<uint8_t> in = randomBytes(128 * 4, 8);
  DeviceArray dIn = unwrap(DeviceArray::of(in));
  DeviceArray dOut = unwrap(DeviceArray::zeros(128 * 16));
  ASSERT_OK(launchAndWait(*module, "smem_to_tmem", {1, 1, 1},
                          {KernelArg::memref(dIn.buffer.address(), {128}),
                           KernelArg::memref(dOut.buffer.address(), {128, 4})}));
  // out[32w + l][k] == in[4l + k] (32-bit words) for every warp w.
  std::vector<uint8_t> want(128 * 16);
  for (int w = 0; w < 4; ++w)
    for (int l = 0; l < 32; ++l)
      std::memcpy(&want[(32 * w + l) * 16], &in[16 * l], 16);
  EXPECT_TRUE(sameElements(dOut.read(), want, 4, 4));
}

TEST(Tcgen05, GemmAsyncMatchesTheHostGemm) {
  LOAD_EXAMPLE(module, "gemm_async", "sm_100a", 10, true);
  constexpr int M = 128, N = 128, K = 64;
  std::vector<int> a, b;
  std::vector<uint8_t> aBytes = smallIntegers("f16", 2, M * K, -3, 3, 11, a);
  std::vector<uint8_t> bBytes = smallIntegers("f16", 2, K * N, -2, 2, 12, b);
  std::vector<uint8_t> want(M * N * 4);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int sum = 0;
      for (int k = 0; k < K; ++k)
        sum += a[m * K + k] * b[k * N + n];
      float f = float(sum);
      std::memcpy(&want[(m * N + n) * 4], &f, 4);
    }
  DeviceArray dA = unwrap(DeviceArray::of(aBytes));
  DeviceArray dB = unwrap(DeviceArray::of(bBytes));
  DeviceArray dC = unwrap(DeviceArray::zeros(M * N * 4));
  ASSERT_OK(launchAndWait(*module, "gemm_async", {1, 1, 1},
                          {KernelArg::memref(dA.buffer.address(), {M, K}),
                           KernelArg::memref(dB.buffer.address(), {K, N}),
                           KernelArg::memref(dC.buffer.address(), {M, N})}));
  EXPECT_TRUE(sameElements(dC.read(), want, 4, N));
}

//===----------------------------------------------------------------------===//
// Bad input never launches (on the real driver)
//===----------------------------------------------------------------------===//

TEST(Runtime, BadInputIsRefusedBeforeTheDriver) {
  REQUIRE_SUITE();
  llvm::Expected<Kernel> k =
      Suite::get().module->kernel("roundtrip_f16_128x64_sw128");
  ASSERT_TRUE(bool(k)) << llvm::toString(k.takeError());
  DeviceArray d = unwrap(DeviceArray::zeros(1 << 20));
  uint64_t base = d.buffer.address();
  LaunchConfig config;
  auto errorOf = [&](std::vector<KernelArg> args) {
    Error e = k->launch(config, args);
    return e ? llvm::toString(std::move(e)) : std::string();
  };
  auto offsets = [] {
    return std::vector<KernelArg>{KernelArg::i64(0), KernelArg::i64(0),
                                  KernelArg::i64(0), KernelArg::i64(0)};
  };
  std::vector<KernelArg> args = {KernelArg::memref(base, {256, 256}),
                                 KernelArg::memref(base + 8, {256, 256})};
  for (KernelArg &a : offsets())
    args.push_back(a);
  // The manifest's alignment need of the TMA copies, checked before the
  // tensor maps are encoded.
  EXPECT_NE(errorOf(args).find("the address of element 0"), std::string::npos);
  args[1] = KernelArg::memref(base, {256, 100});
  EXPECT_NE(errorOf(args).find("not a multiple of 16"), std::string::npos);
  args.pop_back();
  EXPECT_NE(errorOf(args).find("takes 6 arguments"), std::string::npos);
  llvm::Expected<Kernel> missing = Suite::get().module->kernel("no_such_kernel");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("roundtrip_f16_8x256_sw128"),
            std::string::npos);
  ASSERT_OK(check(driver()->cuCtxSynchronize(), "cuCtxSynchronize"));
}

} // namespace

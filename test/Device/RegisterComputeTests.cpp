//===- RegisterComputeTests.cpp - tile.map / reduce / convert on the GPU --===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The kernels of gen_register_compute_kernels.py, on random normal data (and
// random integers), against host references: reductions (exact for integers,
// max and min; a stated tolerance for float sums), maps with coordinates,
// conversions (exact: round to nearest even, satfinite), and one
// FlashAttention step (S = Q K^T, softmax in registers, O = P V, the LSE)
// against a double-precision reference of the same bf16 inputs.
//
//===----------------------------------------------------------------------===//

#include "DeviceCommon.h"

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <random>

using namespace tile::runtime;
using tile::device::kernelPath;
using llvm::Error;

namespace {

struct ComputeCase {
  std::string kernel, family, dtype, kind;
  int64_t rows = 0, cols = 0, dim = 0;
  /// The module ("" for register_compute): examples/attention_step.mlir
  /// runs as its own.
  std::string module;
};
void PrintTo(const ComputeCase &c, std::ostream *os) { *os << c.kernel; }

struct ComputeSuite {
  std::optional<Device> device;
  std::optional<Module> module, example;
  std::string skip;
  std::vector<ComputeCase> cases;

  static ComputeSuite &get() {
    static ComputeSuite suite;
    return suite;
  }

private:
  ComputeSuite() {
    if (auto file = llvm::MemoryBuffer::getFile(
            kernelPath("register_compute.cases.json"))) {
      if (llvm::Expected<llvm::json::Value> v =
              llvm::json::parse((*file)->getBuffer())) {
        for (const llvm::json::Value &c : *v->getAsArray()) {
          const llvm::json::Object &o = *c.getAsObject();
          cases.push_back({o.getString("kernel")->str(),
                           o.getString("family")->str(),
                           o.getString("dtype")->str(),
                           o.getString("kind")->str(),
                           *o.getInteger("rows"), *o.getInteger("cols"),
                           *o.getInteger("dim")});
        }
      } else {
        llvm::consumeError(v.takeError());
      }
    }
    // The readable example: the 64 x 64 step, written by hand.
    cases.push_back({"attention_step", "attention", "bf16", "", 64, 64, 64,
                     "attention_step"});
    llvm::Expected<Device> d = Device::open(0);
    if (!d) {
      skip = "no GPU: " + llvm::toString(d.takeError());
      return;
    }
    device.emplace(std::move(*d));
    if (device->computeMajor() < 9) {
      skip = "wgmma and TMA need sm_90+; device 0 is " + device->smName();
      return;
    }
    llvm::Expected<Module> m =
        Module::load(kernelPath("register_compute.sm_90a.cubin"),
                     kernelPath("register_compute.sm_90a.json"));
    if (!m) {
      skip = "cannot load the kernels: " + llvm::toString(m.takeError());
      return;
    }
    module.emplace(std::move(*m));
    llvm::Expected<Module> e =
        Module::load(kernelPath("attention_step.sm_90a.cubin"),
                     kernelPath("attention_step.sm_90a.json"));
    if (!e) {
      skip = "cannot load the example: " + llvm::toString(e.takeError());
      return;
    }
    example.emplace(std::move(*e));
  }
};

std::vector<ComputeCase> casesOf(const std::string &family) {
  std::vector<ComputeCase> out;
  for (const ComputeCase &c : ComputeSuite::get().cases)
    if (c.family == family)
      out.push_back(c);
  return out;
}

std::string caseName(const ::testing::TestParamInfo<ComputeCase> &info) {
  return info.param.kernel;
}

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    if (!ComputeSuite::get().skip.empty())                                     \
      GTEST_SKIP() << ComputeSuite::get().skip;                                \
  } while (0)

#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    if (Error e = (expr))                                                      \
      FAIL() << llvm::toString(std::move(e));                                  \
  } while (0)

struct Array {
  DeviceBuffer buffer;
  template <typename T> static Array of(const std::vector<T> &host) {
    llvm::Expected<DeviceBuffer> b =
        DeviceBuffer::allocate(std::max<size_t>(1, host.size() * sizeof(T)));
    if (!b) {
      ADD_FAILURE() << llvm::toString(b.takeError());
      std::abort();
    }
    if (Error e = b->copyFromHost(host.data(), host.size() * sizeof(T)))
      ADD_FAILURE() << llvm::toString(std::move(e));
    return Array{std::move(*b)};
  }
  template <typename T> std::vector<T> read(size_t n) const {
    std::vector<T> out(n);
    if (Error e = buffer.copyToHost(out.data(), n * sizeof(T)))
      ADD_FAILURE() << llvm::toString(std::move(e));
    return out;
  }
  KernelArg arg(int64_t rows, int64_t cols) const {
    return KernelArg::memref(buffer.address(), {rows, cols});
  }
};

Error launch(const std::string &name, std::vector<KernelArg> args,
             bool example = false) {
  ComputeSuite &suite = ComputeSuite::get();
  llvm::Expected<Kernel> kernel =
      (example ? suite.example : suite.module)->kernel(name);
  if (!kernel)
    return kernel.takeError();
  LaunchConfig config;
  if (Error e = kernel->launch(config, args))
    return e;
  return check(driver()->cuCtxSynchronize(), "cuCtxSynchronize after " + name);
}

std::vector<float> normal(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

std::vector<int32_t> integers(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> dist(-(1 << 20), 1 << 20);
  std::vector<int32_t> v(n);
  for (int32_t &x : v)
    x = dist(rng);
  return v;
}

//===----------------------------------------------------------------------===//
// Host conversions (round to nearest even; fp8 satfinite)
//===----------------------------------------------------------------------===//

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t toBf16(float f) {
  uint32_t u = bitsOf(f);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
float fromBf16(uint16_t h) { return floatOf(uint32_t(h) << 16); }

/// A small float format: `exp` exponent bits, `man` mantissa bits, the
/// largest finite value `max`; the value's bits for x rounded to nearest
/// even, saturated to +-max (satfinite; NaN stays NaN).
uint32_t toSmallFloat(double x, int exp, int man, double max, bool ieeeInf) {
  const int bias = (1 << (exp - 1)) - 1;
  uint32_t sign = std::signbit(x) ? 1u << (exp + man) : 0;
  double a = std::fabs(x);
  if (std::isnan(x))
    return ieeeInf ? sign | (((1u << exp) - 1) << man) | 1
                   : sign | ((1u << (exp + man)) - 1); // e4m3: S.1111.111
  if (a >= max)
    a = max;
  // Quantum at a's binade (subnormals share the smallest one).
  int e = a > 0 ? std::ilogb(a) : 1 - bias;
  e = std::max(e, 1 - bias);
  double quantum = std::ldexp(1.0, e - man);
  double q = std::nearbyint(a / quantum) * quantum; // ties to even
  if (q > max)
    q = max;
  if (q == 0)
    return sign;
  int qe = std::max(std::ilogb(q), 1 - bias);
  uint32_t mant = uint32_t(std::lround(q / std::ldexp(1.0, qe - man)));
  if (std::ilogb(q) < 1 - bias) // subnormal
    return sign | mant;
  return sign | (uint32_t(qe + bias) << man) | (mant & ((1u << man) - 1));
}

/// IEEE half, round to nearest even: overflow (from 65520 on) is infinity.
uint16_t toF16(float f) {
  if (std::fabs(f) >= 65520.0f)
    return std::signbit(f) ? 0xfc00 : 0x7c00;
  return uint16_t(toSmallFloat(f, 5, 10, 65504.0, true) & 0xffff);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class RegisterReduce : public ::testing::TestWithParam<ComputeCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegisterReduce);

template <typename T>
T combine(const std::string &kind, T a, T b) {
  if (kind == "add")
    return a + b;
  if (kind == "max")
    return std::max(a, b);
  if (kind == "min")
    return std::min(a, b);
  if constexpr (std::is_integral_v<T>)
    return a ^ b;
  return a;
}

template <typename T> void runReduce(const ComputeCase &c) {
  const int64_t R = c.rows, C = c.cols;
  const bool alongRows = c.dim == 1;
  const int64_t V = alongRows ? R : C;
  std::vector<T> in;
  if constexpr (std::is_integral_v<T>)
    in = integers(R * C, 21);
  else
    in = normal(R * C, 21);
  std::vector<double> want(V);
  std::vector<T> exact(V);
  for (int64_t v = 0; v < V; ++v) {
    const int64_t n = alongRows ? C : R;
    auto at = [&](int64_t i) {
      return alongRows ? in[v * C + i] : in[i * C + v];
    };
    T acc = at(0);
    double sum = double(at(0));
    for (int64_t i = 1; i < n; ++i) {
      acc = combine<T>(c.kind, acc, at(i));
      sum += double(at(i));
    }
    exact[v] = acc;
    want[v] = c.kind == "add" && !std::is_integral_v<T> ? sum : double(acc);
  }
  Array dIn = Array::of(in);
  Array dRows = Array::of(std::vector<T>(V, T(0)));
  Array dOut = Array::of(std::vector<T>(R * C, T(0)));
  ASSERT_OK(launch(c.kernel, {dIn.arg(R, C),
                              dRows.arg(alongRows ? R : 1, alongRows ? 1 : C),
                              dOut.arg(R, C)}));
  std::vector<T> rows = dRows.template read<T>(V);
  std::vector<T> out = dOut.template read<T>(R * C);
  const bool floatSum = c.kind == "add" && !std::is_integral_v<T>;
  // A float sum of up to 256 normal values, in another order: f32
  // rounding, relative to the sum of magnitudes.
  for (int64_t v = 0; v < V; ++v) {
    if (floatSum)
      ASSERT_NEAR(double(rows[v]), want[v], 1e-5 * std::sqrt(double(C * R)))
          << "vector element " << v;
    else
      ASSERT_EQ(rows[v], exact[v]) << "vector element " << v;
  }
  // D = S - R (xor): every thread's replica of R.
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      T s = in[i * C + j];
      int64_t v = alongRows ? i : j;
      if constexpr (std::is_integral_v<T>) {
        T expected = c.kind == "xor" ? T(s ^ exact[v])
                                     : T(uint32_t(s) - uint32_t(exact[v]));
        ASSERT_EQ(out[i * C + j], expected) << "(" << i << ", " << j << ")";
      } else if (floatSum) {
        ASSERT_NEAR(double(out[i * C + j]), double(s) - want[v],
                    2e-5 * std::sqrt(double(C * R)))
            << "(" << i << ", " << j << ")";
      } else {
        ASSERT_EQ(out[i * C + j], s - exact[v]) << "(" << i << ", " << j << ")";
      }
    }
}

TEST_P(RegisterReduce, MatchesTheHostReduction) {
  REQUIRE_GPU();
  const ComputeCase &c = GetParam();
  if (c.dtype == "i32")
    runReduce<int32_t>(c);
  else
    runReduce<float>(c);
}

INSTANTIATE_TEST_SUITE_P(Generated, RegisterReduce,
                         ::testing::ValuesIn(casesOf("reduce")), caseName);

//===----------------------------------------------------------------------===//
// Maps with coordinates
//===----------------------------------------------------------------------===//

class RegisterMap : public ::testing::TestWithParam<ComputeCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegisterMap);

TEST_P(RegisterMap, MatchesTheHostMap) {
  REQUIRE_GPU();
  const ComputeCase &c = GetParam();
  const int64_t R = c.rows, C = c.cols;
  std::vector<float> in = normal(R * C, 31);
  Array dIn = Array::of(in);
  Array dOut = Array::of(std::vector<float>(R * C, 0.f));
  ASSERT_OK(launch(c.kernel, {dIn.arg(R, C), dOut.arg(R, C)}));
  std::vector<float> out = dOut.read<float>(R * C);
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      float x = in[i * C + j], got = out[i * C + j];
      if (c.kind == "causal") {
        float want = j > i ? -std::numeric_limits<float>::infinity()
                           : std::fma(x, 2.f, 1.f);
        ASSERT_EQ(got, want) << "(" << i << ", " << j << ")";
      } else {
        // ex2.approx: 2 ulp.
        double want = std::exp2(double(x));
        ASSERT_NEAR(got, want, 4e-7 * want) << "(" << i << ", " << j << ")";
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Generated, RegisterMap,
                         ::testing::ValuesIn(casesOf("map")), caseName);

// out = scale[i] > 0 ? in * scale[i] : in, the guard a row vector: rows
// whose guard is false keep their values bit for bit.
class RegisterGuardedMap : public ::testing::TestWithParam<ComputeCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegisterGuardedMap);

TEST_P(RegisterGuardedMap, UpdatesOnlyTheGuardedRows) {
  REQUIRE_GPU();
  const ComputeCase &c = GetParam();
  const int64_t R = c.rows, C = c.cols;
  std::vector<float> in = normal(R * C, 37), scale = normal(R, 38);
  Array dIn = Array::of(in), dScale = Array::of(scale);
  Array dOut = Array::of(std::vector<float>(R * C, 0.f));
  ASSERT_OK(launch(c.kernel, {dIn.arg(R, C), dScale.arg(R, 1), dOut.arg(R, C)}));
  std::vector<float> out = dOut.read<float>(R * C);
  int64_t guarded = 0;
  for (int64_t i = 0; i < R; ++i) {
    guarded += scale[i] > 0.f;
    for (int64_t j = 0; j < C; ++j) {
      float x = in[i * C + j];
      float want = scale[i] > 0.f ? x * scale[i] : x;
      ASSERT_EQ(out[i * C + j], want) << "(" << i << ", " << j << ")";
    }
  }
  // Random normal scales: both branches taken.
  EXPECT_GT(guarded, 0);
  EXPECT_LT(guarded, R);
}

INSTANTIATE_TEST_SUITE_P(Generated, RegisterGuardedMap,
                         ::testing::ValuesIn(casesOf("guarded_map")), caseName);

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

class RegisterConvert : public ::testing::TestWithParam<ComputeCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegisterConvert);

TEST_P(RegisterConvert, RoundsLikeTheHost) {
  REQUIRE_GPU();
  const ComputeCase &c = GetParam();
  const int64_t n = c.rows * c.cols;
  std::vector<float> in = normal(n, 41);
  // Values beyond the fp8 ranges too (saturation), and exact ties.
  for (int64_t i = 0; i < n; i += 17)
    in[i] *= 1e5f;
  in[1] = 1.0f + 1.0f / 16; // an e4m3 tie (between 1 and 1.125)
  in[2] = 3.0f * std::ldexp(1.0f, -10); // near the fp8 subnormals
  Array dIn = Array::of(in);
  const bool byte = c.dtype == "f8E4M3FN" || c.dtype == "f8E5M2";
  const bool word = c.dtype == "f32";
  Array dOut = byte   ? Array::of(std::vector<uint8_t>(n, 0))
               : word ? Array::of(std::vector<float>(n, 0.f))
                      : Array::of(std::vector<uint16_t>(n, 0));
  ASSERT_OK(launch(c.kernel, {dIn.arg(c.rows, c.cols), dOut.arg(c.rows, c.cols)}));
  std::vector<float> words = word ? dOut.read<float>(n) : std::vector<float>();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t want, got;
    if (word) {
      got = bitsOf(words[i]);
      want = bitsOf(in[i]);
    } else if (byte) {
      got = dOut.read<uint8_t>(n)[i];
      want = c.dtype == "f8E4M3FN" ? toSmallFloat(in[i], 4, 3, 448.0, false)
                                   : toSmallFloat(in[i], 5, 2, 57344.0, true);
    } else {
      got = dOut.read<uint16_t>(n)[i];
      want = c.dtype == "bf16" ? toBf16(in[i]) : toF16(in[i]);
    }
    ASSERT_EQ(got, want) << "element " << i << " = " << in[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, RegisterConvert,
                         ::testing::ValuesIn(casesOf("convert")), caseName);

//===----------------------------------------------------------------------===//
// A global argument with a declared alignment
//===----------------------------------------------------------------------===//

TEST(DeclaredAlignment, VectorAccessesCopyTheSliceAndTheLaunchChecksThePromise) {
  REQUIRE_GPU();
  // Three 64 x 64 slices: slice 1 = slice 0, slice 2 untouched.
  std::vector<float> in = normal(3 * 4096, 43);
  Array w = Array::of(in);
  ASSERT_OK(launch("declared_alignment_copy",
                   {KernelArg::memref(w.buffer.address(), {3 * 64, 64}),
                    KernelArg::i64(0)}));
  std::vector<float> out = w.read<float>(3 * 4096);
  for (int64_t i = 0; i < 4096; ++i) {
    ASSERT_EQ(bitsOf(out[4096 + i]), bitsOf(in[i])) << "element " << i;
    ASSERT_EQ(bitsOf(out[2 * 4096 + i]), bitsOf(in[2 * 4096 + i]))
        << "element " << i << " of the slice not written";
  }
  // One element in: 4-byte aligned, not the 16 bytes the argument
  // promises. The launch refuses it, naming the promise.
  Error e = launch("declared_alignment_copy",
                   {KernelArg::memref(w.buffer.address() + 4, {2 * 64, 64}),
                    KernelArg::i64(0)});
  ASSERT_TRUE(bool(e));
  std::string message = llvm::toString(std::move(e));
  EXPECT_NE(message.find("is not a multiple of 16 bytes, as the tile.load"),
            std::string::npos)
      << message;
}

TEST(DeclaredAlignment, VectorAccessesAtTileOffsetsCopyTheTile) {
  REQUIRE_GPU();
  // Tile (1, 0) of 64 x 64 of a 128 x 128 matrix, then tile (1, 1): the
  // runtime offsets (64, 0) and (64, 64) are multiples of 64 elements, so
  // the kernel moves element pairs as 8-byte vectors.
  std::vector<float> in = normal(128 * 128, 47);
  Array src = Array::of(in);
  Array dst = Array::of(std::vector<float>(128 * 128, 0.f));
  for (int64_t j : {0, 1})
    ASSERT_OK(launch("declared_alignment_tile_copy",
                     {KernelArg::memref(src.buffer.address(), {128, 128}),
                      KernelArg::memref(dst.buffer.address(), {128, 128}),
                      KernelArg::i64(1), KernelArg::i64(j)}));
  std::vector<float> out = dst.read<float>(128 * 128);
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t c = 0; c < 128; ++c) {
      float want = r >= 64 ? in[r * 128 + c] : 0.f;
      ASSERT_EQ(bitsOf(out[r * 128 + c]), bitsOf(want))
          << "row " << r << ", column " << c;
    }
}

//===----------------------------------------------------------------------===//
// One FlashAttention step
//===----------------------------------------------------------------------===//

class AttentionStep : public ::testing::TestWithParam<ComputeCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AttentionStep);

TEST_P(AttentionStep, MatchesTheHostSoftmaxAttention) {
  REQUIRE_GPU();
  const ComputeCase &c = GetParam();
  const int64_t M = c.rows, N = c.cols, D = c.dim;
  const float scale = 1.0f / std::sqrt(float(D));
  auto bf16Of = [](const std::vector<float> &v) {
    std::vector<uint16_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      out[i] = toBf16(v[i]);
    return out;
  };
  std::vector<uint16_t> q = bf16Of(normal(M * D, 51)),
                        k = bf16Of(normal(N * D, 52)),
                        v = bf16Of(normal(N * D, 53));
  Array dQ = Array::of(q), dK = Array::of(k), dV = Array::of(v);
  Array dO = Array::of(std::vector<float>(M * D, 0.f));
  Array dL = Array::of(std::vector<float>(M, 0.f));
  ASSERT_OK(launch(c.kernel, {dQ.arg(M, D), dK.arg(N, D), dV.arg(N, D),
                              dO.arg(M, D), dL.arg(M, 1),
                              KernelArg::f32(scale)},
                   !c.module.empty()));
  std::vector<float> o = dO.read<float>(M * D), lse = dL.read<float>(M);
  double worstO = 0, worstL = 0;
  for (int64_t i = 0; i < M; ++i) {
    std::vector<double> s(N);
    double max = -INFINITY;
    for (int64_t j = 0; j < N; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < D; ++d)
        dot += double(fromBf16(q[i * D + d])) * fromBf16(k[j * D + d]);
      s[j] = dot * scale;
      max = std::max(max, s[j]);
    }
    double l = 0;
    for (double &x : s)
      l += (x = std::exp(x - max));
    for (int64_t d = 0; d < D; ++d) {
      double want = 0;
      for (int64_t j = 0; j < N; ++j)
        want += s[j] / l * fromBf16(v[j * D + d]);
      worstO = std::max(worstO, std::fabs(o[i * D + d] - want));
    }
    worstL = std::max(worstL, std::fabs(lse[i] - (max + std::log(l))));
  }
  // P is rounded to bf16 (8 bits) before P V, as in FlashAttention: the
  // output's error is a few bf16 ulps of the weights times |V| ~ 1.
  std::printf("%s: largest |O - reference| %.3g, |LSE - reference| %.3g\n",
              c.kernel.c_str(), worstO, worstL);
  EXPECT_LT(worstO, 1e-2) << "largest |O - reference|";
  EXPECT_LT(worstL, 1e-4) << "largest |LSE - reference|";
}

INSTANTIATE_TEST_SUITE_P(Generated, AttentionStep,
                         ::testing::ValuesIn(casesOf("attention")), caseName);

} // namespace

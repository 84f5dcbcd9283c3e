//===- HopperGemm.cpp - host side of the Hopper GEMM family ----------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "HopperGemm.h"

#include "DeviceCommon.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

using namespace tile::runtime;
using llvm::Error;

namespace tile::device::gemm {

std::string GemmCase::family() const {
  std::string type = dtype == "f8E4M3FN" ? "e4m3" : dtype;
  return type + (bMnMajor ? " nn" : " tn");
}

std::string GemmShape::str() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

llvm::Expected<std::vector<GemmCase>> loadGemmCases(const std::string &path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read " + path + ": " +
                                       file.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *kernels = root ? root->getArray("kernels") : nullptr;
  if (!kernels)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": no \"kernels\" list");
  std::vector<GemmCase> cases;
  for (const llvm::json::Value &entry : *kernels) {
    const llvm::json::Object *o = entry.getAsObject();
    if (!o || !o->getString("kernel") || !o->getString("dtype") ||
        !o->getString("out") || !o->getInteger("bm") || !o->getInteger("bn"))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     path + ": an entry lacks kernel, dtype, "
                                            "out, bm or bn");
    GemmCase c;
    c.kernel = o->getString("kernel")->str();
    c.dtype = o->getString("dtype")->str();
    c.out = o->getString("out")->str();
    c.bMnMajor = o->getBoolean("b_mn").value_or(false);
    c.bm = unsigned(*o->getInteger("bm"));
    c.bn = unsigned(*o->getInteger("bn"));
    c.bk = unsigned(o->getInteger("bk").value_or(0));
    c.stages = unsigned(o->getInteger("stages").value_or(0));
    c.cluster =
        unsigned(std::max<int64_t>(1, o->getInteger("cluster").value_or(1)));
    cases.push_back(std::move(c));
  }
  return cases;
}

llvm::Expected<Module> loadGemmModule() {
  return Module::load(kernelPath("gemm.sm_90a.cubin"),
                      kernelPath("gemm.sm_90a.json"));
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

unsigned elementBytes(const std::string &dtype) {
  return dtype == "f8E4M3FN" ? 1 : dtype == "f32" ? 4 : 2;
}

namespace {

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float floatOf(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

uint16_t toBf16(float f) {
  uint32_t b = bitsOf(f);
  if ((b & 0x7FFFFFFF) > 0x7F800000)
    return uint16_t((b >> 16) | 0x40); // quiet NaN
  return uint16_t((b + 0x7FFF + ((b >> 16) & 1)) >> 16);
}

uint16_t toF16(float f) {
  uint32_t b = bitsOf(f);
  uint16_t sign = uint16_t((b >> 16) & 0x8000);
  uint32_t mag = b & 0x7FFFFFFF;
  if (mag >= 0x7F800000)
    return sign | (mag > 0x7F800000 ? 0x7E00 : 0x7C00);
  if (mag >= 0x477FF000) // 65520 and above round to infinity
    return sign | 0x7C00;
  if (mag < 0x38800000) // below 2^-14: a subnormal in units of 2^-24
    return sign | uint16_t(std::nearbyint(floatOf(mag) * 16777216.0f));
  uint32_t mantissa = mag & 0x7FFFFF;
  uint32_t h = ((int(mag >> 23) - 127 + 15) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h; // a carry into the exponent is still the right value
  return sign | uint16_t(h);
}

float fromF16(uint16_t h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  int exponent = (h >> 10) & 0x1F;
  int mantissa = h & 0x3FF;
  if (exponent == 0)
    return sign * std::ldexp(float(mantissa), -24);
  if (exponent == 31)
    return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(1024 + mantissa), exponent - 25);
}

/// e4m3 (bias 7, no infinities) for values it holds exactly.
uint8_t toE4m3(float f) {
  if (f == 0)
    return 0;
  uint8_t sign = f < 0 ? 0x80 : 0;
  int exponent;
  float fraction = std::frexp(std::fabs(f), &exponent); // [0.5, 1)
  int biased = exponent - 1 + 7;
  if (biased <= 0) // subnormal: units of 2^-9
    return sign | uint8_t(std::nearbyint(std::fabs(f) * 512.0f));
  unsigned mantissa = unsigned(std::nearbyint((fraction * 2 - 1) * 8));
  return sign | uint8_t((biased << 3) + mantissa);
}

float fromE4m3(uint8_t v) {
  float sign = (v & 0x80) ? -1.0f : 1.0f;
  int exponent = (v >> 3) & 0xF, mantissa = v & 7;
  if (exponent == 0xF && mantissa == 7)
    return NAN;
  if (exponent == 0)
    return sign * std::ldexp(float(mantissa), -9);
  return sign * std::ldexp(float(8 + mantissa), exponent - 10);
}

} // namespace

void encodeElement(const std::string &dtype, float value, uint8_t *to) {
  if (dtype == "f8E4M3FN") {
    *to = toE4m3(value);
    return;
  }
  if (dtype == "f32") {
    std::memcpy(to, &value, 4);
    return;
  }
  uint16_t h = dtype == "bf16" ? toBf16(value) : toF16(value);
  std::memcpy(to, &h, 2);
}

float decodeElement(const std::string &dtype, const uint8_t *from) {
  if (dtype == "f8E4M3FN")
    return fromE4m3(*from);
  if (dtype == "f32") {
    float f;
    std::memcpy(&f, from, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, from, 2);
  return dtype == "bf16" ? floatOf(uint32_t(h) << 16) : fromF16(h);
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

namespace {

/// `cols` rounded up so that a row is a multiple of 16 bytes.
int64_t paddedRow(int64_t cols, unsigned bytes) {
  int64_t per16 = 16 / bytes;
  return (cols + per16 - 1) / per16 * per16;
}

/// Integers in [-3, 3], eight per splitmix64 step (fast enough for the
/// 8192 x 28672 x 4096 benchmark problem).
void fillQuarters(std::vector<int8_t> &values, uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < values.size(); i += 8) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (size_t j = 0; j < 8 && i + j < values.size(); ++j)
      values[i + j] = int8_t(int((z >> (8 * j)) & 0xFF) % 7 - 3);
  }
}

/// Rows x cols of quarter values (value(r, c) gives 4x the value) encoded
/// as `dtype` with `ld` elements per row, uploaded.
template <typename Value>
llvm::Expected<DeviceBuffer> upload(const std::string &dtype, int64_t rows,
                                    int64_t cols, int64_t ld, Value value) {
  unsigned bytes = elementBytes(dtype);
  uint8_t encoded[7][4];
  for (int v = -3; v <= 3; ++v)
    encodeElement(dtype, float(v) / 4, encoded[v + 3]);
  std::vector<uint8_t> host(size_t(rows * ld) * bytes, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(&host[size_t(r * ld + c) * bytes], encoded[value(r, c) + 3],
                  bytes);
  llvm::Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(host.size());
  if (!buffer)
    return buffer.takeError();
  if (Error e = buffer->copyFromHost(host.data(), host.size()))
    return std::move(e);
  return std::move(*buffer);
}

} // namespace

llvm::Expected<GemmOperands> GemmOperands::create(const GemmCase &kernel,
                                                  GemmShape shape,
                                                  uint64_t seed) {
  GemmOperands o;
  o.kernel = kernel;
  o.shape = shape;
  const int64_t M = shape.m, N = shape.n, K = shape.k;
  unsigned in = elementBytes(kernel.dtype), out = elementBytes(kernel.out);
  o.lda = paddedRow(K, in);
  o.ldb = kernel.bMnMajor ? paddedRow(N, in) : paddedRow(K, in);
  o.ldc = paddedRow(N, out);
  o.a4.resize(size_t(M * K));
  o.bt4.resize(size_t(N * K));
  fillQuarters(o.a4, seed);
  fillQuarters(o.bt4, seed + 1);
  llvm::Expected<DeviceBuffer> a =
      upload(kernel.dtype, M, K, o.lda,
             [&](int64_t m, int64_t k) { return o.a4[size_t(m * K + k)]; });
  if (!a)
    return a.takeError();
  o.a = std::move(*a);
  llvm::Expected<DeviceBuffer> b =
      kernel.bMnMajor
          ? upload(kernel.dtype, K, N, o.ldb,
                   [&](int64_t k, int64_t n) { return o.bt4[size_t(n * K + k)]; })
          : upload(kernel.dtype, N, K, o.ldb,
                   [&](int64_t n, int64_t k) { return o.bt4[size_t(n * K + k)]; });
  if (!b)
    return b.takeError();
  o.b = std::move(*b);
  llvm::Expected<DeviceBuffer> c = DeviceBuffer::allocate(size_t(M * o.ldc) * out);
  if (!c)
    return c.takeError();
  o.c = std::move(*c);
  if (Error e = o.poisonOutput())
    return std::move(e);
  return std::move(o);
}

std::vector<KernelArg> GemmOperands::args() const {
  const int64_t M = shape.m, N = shape.n, K = shape.k;
  KernelArg b = kernel.bMnMajor
                    ? KernelArg::memref(this->b.address(), {K, N}, {ldb, 1})
                    : KernelArg::memref(this->b.address(), {N, K}, {ldb, 1});
  return {KernelArg::memref(a.address(), {M, K}, {lda, 1}), b,
          KernelArg::memref(c.address(), {M, N}, {ldc, 1})};
}

LaunchConfig gemmLaunchConfig(const GemmCase &kernel, const GemmShape &shape,
                              int multiprocessors) {
  // A cluster works on `cluster` tiles adjacent along M at a time.
  const int64_t cluster = kernel.cluster,
                clusterRows = int64_t(kernel.bm) * cluster;
  int64_t tiles = (shape.m + clusterRows - 1) / clusterRows *
                  ((shape.n + kernel.bn - 1) / kernel.bn);
  LaunchConfig config;
  config.grid = {
      unsigned(cluster *
               std::max<int64_t>(
                   1, std::min<int64_t>(multiprocessors / cluster, tiles))),
      1, 1};
  return config;
}

Error GemmOperands::poisonOutput() { return c.fill(0xFF); }

llvm::Expected<std::vector<uint8_t>> GemmOperands::readOutput() const {
  std::vector<uint8_t> host(c.size());
  if (Error e = c.copyToHost(host.data(), host.size()))
    return std::move(e);
  return host;
}

float GemmOperands::exactValue(int64_t m, int64_t n) const {
  const int64_t K = shape.k;
  const int8_t *a = &a4[size_t(m * K)], *b = &bt4[size_t(n * K)];
  int32_t sum = 0;
  for (int64_t k = 0; k < K; ++k)
    sum += int32_t(a[k]) * int32_t(b[k]);
  return float(sum) / 16; // |sum| <= 9 K: exact in f32 while 9 K < 2^24
}

float GemmOperands::expected(int64_t m, int64_t n) const {
  uint8_t bytes[4];
  encodeElement(kernel.out, exactValue(m, n), bytes);
  return decodeElement(kernel.out, bytes);
}

Error launchGemm(const Kernel &kernel, const GemmCase &which,
                 const GemmOperands &operands, int multiprocessors) {
  if (which.dtype != operands.kernel.dtype || which.out != operands.kernel.out ||
      which.bMnMajor != operands.kernel.bMnMajor)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        which.kernel + " (" + which.family() + ") cannot run on operands made "
        "for " + operands.kernel.family() + " -> " + operands.kernel.out);
  return kernel.launch(gemmLaunchConfig(which, operands.shape, multiprocessors),
                       operands.args());
}

//===----------------------------------------------------------------------===//
// The host reference check
//===----------------------------------------------------------------------===//

namespace {

/// Indices in [0, size): the first and last, both sides of the first few
/// and the last tile boundaries, and `random` more.
std::vector<int64_t> sampleIndices(int64_t size, int64_t tile, int random,
                                   uint64_t seed) {
  std::set<int64_t> picked = {0, size - 1};
  for (int64_t t = 1; t <= 3; ++t)
    for (int64_t i : {t * tile - 1, t * tile})
      if (i < size)
        picked.insert(i);
  int64_t lastTile = (size - 1) / tile * tile;
  for (int64_t i : {lastTile - 1, lastTile, lastTile + 1})
    if (i >= 0 && i < size)
      picked.insert(i);
  uint64_t state = seed;
  for (int i = 0; i < random; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    picked.insert(int64_t((state >> 33) % uint64_t(size)));
  }
  return {picked.begin(), picked.end()};
}

} // namespace

GemmCheckResult checkAgainstHostReference(const GemmOperands &operands,
                                          const std::vector<uint8_t> &output,
                                          bool sampled, int randomLines) {
  const GemmShape &s = operands.shape;
  const std::string &type = operands.kernel.out;
  unsigned bytes = elementBytes(type);
  GemmCheckResult result;
  auto checkOne = [&](int64_t m, int64_t n) {
    ++result.checked;
    float got = decodeElement(type, &output[size_t(m * operands.ldc + n) * bytes]);
    float want = operands.expected(m, n);
    if (got == want)
      return;
    if (result.wrong++ < 4)
      result.firstWrong += " (" + std::to_string(m) + ", " + std::to_string(n) +
                           "): got " + std::to_string(got) + ", expected " +
                           std::to_string(want) + ";";
  };
  if (!sampled) {
    for (int64_t m = 0; m < s.m; ++m)
      for (int64_t n = 0; n < s.n; ++n)
        checkOne(m, n);
    return result;
  }
  for (int64_t m : sampleIndices(s.m, operands.kernel.bm, randomLines, 5))
    for (int64_t n = 0; n < s.n; ++n)
      checkOne(m, n);
  for (int64_t n : sampleIndices(s.n, operands.kernel.bn, randomLines, 7))
    for (int64_t m = 0; m < s.m; ++m)
      checkOne(m, n);
  return result;
}

} // namespace tile::device::gemm

//===- GemmChooserTests.cpp - the GEMM family behind one call -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tile::runtime::Gemm (the kernel chosen per call, docs/Gemm.md) and its C
// API on the GPU: bf16 and e4m3 problems whose choices span every form the
// heuristic makes (the family's tiles, split-K with a workspace and its
// reduction, swap-AB, cluster split-K), operands and C whose rows TMA
// cannot address (copied), K = 0 and empty problems, and bad arguments
// refused before anything launches. Random quarter-integer operands: every
// form's f32 sums are exact, so the output must equal the host reference
// rounded once.
//
//===----------------------------------------------------------------------===//

#include "DeviceCommon.h"
#include "HopperGemm.h"

#include "tile-c/Runtime.h"
#include "tile/Runtime/Gemm.h"

#include "gtest/gtest.h"

#include <optional>
#include <set>

using namespace tile::runtime;
using namespace tile::device::gemm;
using tile::device::kernelPath;
using llvm::Error;

namespace {

/// The folder of the GEMM family's files (kernels/, or the fallback the
/// sanitized run names: the family has no sanitized twin).
std::string familyDir() {
  std::string path = kernelPath("gemm.cases.json");
  return path.substr(0, path.rfind('/'));
}

struct ChosenEnvironment {
  std::optional<Device> device;
  std::unique_ptr<Gemm> gemm;
  std::string skip;

  static ChosenEnvironment &get() {
    static ChosenEnvironment environment;
    return environment;
  }

private:
  ChosenEnvironment() {
    skip = tile::device::openSm90(device, "the GEMM family");
    if (!skip.empty())
      return;
    llvm::Expected<std::unique_ptr<Gemm>> g = Gemm::open(familyDir());
    if (!g) {
      skip = "cannot open the GEMM family: " + llvm::toString(g.takeError());
      return;
    }
    gemm = std::move(*g);
  }
};

#define REQUIRE_GEMM()                                                         \
  do {                                                                         \
    if (!ChosenEnvironment::get().skip.empty())                                \
      GTEST_SKIP() << ChosenEnvironment::get().skip;                           \
  } while (0)

struct ChosenCase {
  std::string dtype;
  GemmShape shape;
  /// Rows of A, W and C one element longer than they need: strides TMA
  /// cannot take (K + 1 and N + 1 elements must not be 16-byte multiples).
  bool oddStrides = false;
};

void PrintTo(const ChosenCase &c, std::ostream *os) {
  *os << c.dtype << " " << c.shape.str() << (c.oddStrides ? " odd" : "");
}

std::string caseName(const ::testing::TestParamInfo<ChosenCase> &info) {
  std::string dtype = info.param.dtype == "f8E4M3FN" ? "e4m3" : info.param.dtype;
  return dtype + "_" + info.param.shape.str() +
         (info.param.oddStrides ? "_odd_strides" : "");
}

GemmCase operandCase(const std::string &dtype) {
  GemmCase c;
  c.kernel = "chosen";
  c.dtype = dtype;
  c.out = std::string(gemmOutputType(dtype));
  c.bm = c.bn = 128; // where the sampled check looks for tile edges
  c.bk = 64;
  return c;
}

/// `rows` x `cols` of `bytes`-byte elements copied between pitches.
Error copyRows(uint64_t to, int64_t toStride, uint64_t from,
               int64_t fromStride, int64_t rows, int64_t cols, int64_t bytes) {
  CUDA_MEMCPY2D copy = {};
  copy.srcMemoryType = copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = CUdeviceptr(from);
  copy.srcPitch = size_t(fromStride * bytes);
  copy.dstDevice = CUdeviceptr(to);
  copy.dstPitch = size_t(toStride * bytes);
  copy.WidthInBytes = size_t(cols * bytes);
  copy.Height = size_t(rows);
  if (Error e = check(driver()->cuMemcpy2DAsync(&copy, nullptr),
                      "cuMemcpy2DAsync"))
    return e;
  return check(driver()->cuCtxSynchronize(), "cuCtxSynchronize");
}

/// A copy of `rows` x `cols` at `from` with rows `cols + 1` elements apart.
llvm::Expected<DeviceBuffer> oddCopy(uint64_t from, int64_t fromStride,
                                     int64_t rows, int64_t cols,
                                     int64_t bytes) {
  llvm::Expected<DeviceBuffer> b =
      DeviceBuffer::allocate(size_t(rows * (cols + 1) * bytes));
  if (!b)
    return b.takeError();
  if (Error e = copyRows(b->address(), cols + 1, from, fromStride, rows, cols,
                         bytes))
    return std::move(e);
  return std::move(*b);
}

void runAndCheck(const ChosenCase &c) {
  const Gemm &gemm = *ChosenEnvironment::get().gemm;
  const GemmShape &s = c.shape;
  llvm::Expected<GemmOperands> ops = GemmOperands::create(
      operandCase(c.dtype), s, uint64_t(s.m * 131 + s.n * 17 + s.k));
  ASSERT_TRUE(bool(ops)) << llvm::toString(ops.takeError());
  int64_t in = gemmElementBytes(c.dtype),
          out = gemmElementBytes(gemmOutputType(c.dtype));
  GemmMatrix a{ops->a.address(), s.m, s.k, ops->lda};
  GemmMatrix w{ops->b.address(), s.n, s.k, ops->ldb};
  GemmMatrix result{ops->c.address(), s.m, s.n, ops->ldc};
  DeviceBuffer oddA, oddW, oddC;
  if (c.oddStrides) {
    llvm::Expected<DeviceBuffer> a2 = oddCopy(a.address, a.rowStride, s.m, s.k, in);
    ASSERT_TRUE(bool(a2)) << llvm::toString(a2.takeError());
    llvm::Expected<DeviceBuffer> w2 = oddCopy(w.address, w.rowStride, s.n, s.k, in);
    ASSERT_TRUE(bool(w2)) << llvm::toString(w2.takeError());
    llvm::Expected<DeviceBuffer> c2 =
        oddCopy(result.address, result.rowStride, s.m, s.n, out); // NaNs
    ASSERT_TRUE(bool(c2)) << llvm::toString(c2.takeError());
    oddA = std::move(*a2);
    oddW = std::move(*w2);
    oddC = std::move(*c2);
    a = {oddA.address(), s.m, s.k, s.k + 1};
    w = {oddW.address(), s.n, s.k, s.k + 1};
    result = {oddC.address(), s.m, s.n, s.n + 1};
  }
  std::string why;
  if (Error e = gemm.linear(c.dtype, a, w, result, nullptr, &why))
    FAIL() << llvm::toString(std::move(e));
  if (Error e = check(driver()->cuCtxSynchronize(), "cuCtxSynchronize"))
    FAIL() << why << ": " << llvm::toString(std::move(e));
  if (c.oddStrides) {
    EXPECT_NE(why.find("A copied: row stride"), std::string::npos) << why;
    EXPECT_NE(why.find("W copied: row stride"), std::string::npos) << why;
    EXPECT_NE(why.find("C copied: row stride"), std::string::npos) << why;
    if (Error e = copyRows(ops->c.address(), ops->ldc, result.address,
                           result.rowStride, s.m, s.n, out))
      FAIL() << llvm::toString(std::move(e));
  }
  llvm::Expected<std::vector<uint8_t>> host = ops->readOutput();
  ASSERT_TRUE(bool(host)) << llvm::toString(host.takeError());
  bool sampled = s.m * s.n * s.k > (int64_t(1) << 31);
  GemmCheckResult r = checkAgainstHostReference(*ops, *host, sampled);
  EXPECT_GT(r.checked, 0);
  EXPECT_EQ(r.wrong, 0) << why << ": " << r.wrong << " of " << r.checked
                        << " elements differ; first at" << r.firstWrong;
}

class ChosenGemm : public ::testing::TestWithParam<ChosenCase> {};

TEST_P(ChosenGemm, MatchesTheHostReference) {
  REQUIRE_GEMM();
  runAndCheck(GetParam());
}

/// The problems of more than 2^30 multiply-adds (left out of the
/// compute-sanitizer runs, like HopperGemmLarge).
class ChosenGemmLarge : public ::testing::TestWithParam<ChosenCase> {};

TEST_P(ChosenGemmLarge, MatchesTheHostReference) {
  REQUIRE_GEMM();
  runAndCheck(GetParam());
}

std::vector<ChosenCase> allChosenCases() {
  // On 132 SMs (H100 SXM, H200): swap-AB with a workspace (1 x 4096), in
  // pairs (16 x 6144), with 8 parts (64 x 1024 x 8192), in 64-row tiles
  // for M = 128 (bf16 128 x 4096 x 4096); split-K with a workspace (bf16
  // 320 x 1024 x 3072, 5 parts); 128 x 64 tiles (128 x 6144, and 200 x 4096
  // x 1024: a last row tile moved back inside A); the tiles (1000^3, 4096 x
  // 6144); small and odd shapes of each.
  const GemmShape shapes[] = {
      {1, 4096, 4096},   {7, 300, 1000},    {16, 6144, 4096},
      {64, 1024, 8192},  {127, 1100, 3000}, {128, 4096, 4096},
      {128, 6144, 4096}, {256, 4096, 14336}, {300, 700, 200},
      {320, 1024, 3072}, {200, 4096, 1024}, {1000, 1000, 1000},
      {4096, 6144, 512}};
  std::vector<ChosenCase> out;
  for (const char *dtype : {"bf16", "f8E4M3FN"})
    for (const GemmShape &s : shapes)
      out.push_back({dtype, s, false});
  for (const char *dtype : {"bf16", "f8E4M3FN"}) {
    out.push_back({dtype, {4095, 4097, 4096}, true});
    out.push_back({dtype, {33, 515, 1030}, true});
  }
  return out;
}

std::vector<ChosenCase> chosenCases(bool large) {
  std::vector<ChosenCase> out;
  for (const ChosenCase &c : allChosenCases())
    if ((c.shape.m * c.shape.n * c.shape.k > (int64_t(1) << 30)) == large)
      out.push_back(c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Shapes, ChosenGemm,
                         ::testing::ValuesIn(chosenCases(false)), caseName);
INSTANTIATE_TEST_SUITE_P(Shapes, ChosenGemmLarge,
                         ::testing::ValuesIn(chosenCases(true)), caseName);

TEST(ChosenGemmForms, TheShapesCoverEveryForm) {
  REQUIRE_GEMM();
  const Gemm &gemm = *ChosenEnvironment::get().gemm;
  std::set<GemmForm> forms;
  for (const ChosenCase &c : allChosenCases()) {
    llvm::Expected<GemmChoice> choice =
        gemm.choose(c.dtype, c.shape.m, c.shape.n, c.shape.k);
    ASSERT_TRUE(bool(choice)) << llvm::toString(choice.takeError());
    forms.insert(choice->kernelCase->form);
  }
  for (GemmForm f : {GemmForm::Tiles, GemmForm::SplitK, GemmForm::SwapAB,
                     GemmForm::ClusterK})
    EXPECT_TRUE(forms.count(f)) << "form " << int(f) << " never chosen on "
                                << gemm.multiprocessors() << " SMs";
}

TEST(ChosenGemmEdges, ZeroKWritesZerosAndEmptyProblemsLaunchNothing) {
  REQUIRE_GEMM();
  const Gemm &gemm = *ChosenEnvironment::get().gemm;
  const int64_t m = 70, n = 33, ldc = 40;
  llvm::Expected<DeviceBuffer> c = DeviceBuffer::allocate(size_t(m * ldc * 2));
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  ASSERT_FALSE(bool(c->fill(0xFF)));
  llvm::Expected<DeviceBuffer> operand = DeviceBuffer::allocate(256);
  ASSERT_TRUE(bool(operand)) << llvm::toString(operand.takeError());
  uint64_t any = operand->address();
  if (Error e = gemm.linear("bf16", {any, m, 0, 8}, {any, n, 0, 8},
                            {c->address(), m, n, ldc}))
    FAIL() << llvm::toString(std::move(e));
  ASSERT_FALSE(bool(check(driver()->cuCtxSynchronize(), "sync")));
  std::vector<uint16_t> host(size_t(m * ldc));
  ASSERT_FALSE(bool(c->copyToHost(host.data(), host.size() * 2)));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j)
      ASSERT_EQ(host[size_t(i * ldc + j)], j < n ? 0 : 0xFFFF)
          << "(" << i << ", " << j << ")";
  // M = 0 and N = 0: nothing to write, not even through a null C.
  EXPECT_FALSE(bool(gemm.linear("bf16", {any, 0, 64, 64}, {any, n, 64, 64},
                                {0, 0, n, n})));
  EXPECT_FALSE(bool(gemm.linear("bf16", {any, m, 64, 64}, {any, 0, 64, 64},
                                {0, m, 0, 0})));
}

TEST(ChosenGemmEdges, BadArgumentsAreRefusedBeforeAnyLaunch) {
  REQUIRE_GEMM();
  const Gemm &gemm = *ChosenEnvironment::get().gemm;
  uint64_t any = 1 << 20; // never dereferenced: every call below is refused
  auto error = [&](llvm::StringRef dtype, GemmMatrix a, GemmMatrix w,
                   GemmMatrix c) {
    Error e = gemm.linear(dtype, a, w, c);
    return e ? llvm::toString(std::move(e)) : std::string("launched");
  };
  EXPECT_NE(error("f32", {any, 8, 8, 8}, {any, 8, 8, 8}, {any, 8, 8, 8})
                .find("'f32' is not a GEMM type"),
            std::string::npos);
  EXPECT_NE(error("bf16", {any, 8, 16, 16}, {any, 8, 8, 8}, {any, 8, 8, 8})
                .find("[M, K] and [N, K] expected"),
            std::string::npos);
  EXPECT_NE(error("bf16", {any, 8, 8, 8}, {any, 8, 8, 8}, {any, 8, 9, 9})
                .find("C is 8x9, the product 8x8"),
            std::string::npos);
  EXPECT_NE(error("bf16", {0, 8, 8, 8}, {any, 8, 8, 8}, {any, 8, 8, 8})
                .find("A is a null address"),
            std::string::npos);
  EXPECT_NE(error("bf16", {any, 8, 8, 4}, {any, 8, 8, 8}, {any, 8, 8, 8})
                .find("A's row stride 4 overlaps its 8-element rows"),
            std::string::npos);
}

TEST(ChosenGemmCApi, LaunchesTheChosenKernelAndReportsErrors) {
  REQUIRE_GEMM();
  char *error = nullptr;
  TileGemmRef gemm = tileGemmOpen(familyDir().c_str(), &error);
  ASSERT_NE(gemm, nullptr) << error;
  const GemmShape s{64, 1024, 8192};
  TileGemmChoice choice = {};
  ASSERT_EQ(tileGemmChoose(gemm, "bf16", s.m, s.n, s.k, &choice, &error), 0)
      << error;
  llvm::Expected<GemmChoice> cpp =
      ChosenEnvironment::get().gemm->choose("bf16", s.m, s.n, s.k);
  ASSERT_TRUE(bool(cpp)) << llvm::toString(cpp.takeError());
  EXPECT_EQ(std::string(choice.kernel), cpp->kernelCase->kernel);
  EXPECT_EQ(choice.parts, cpp->parts.value_or(0));
  EXPECT_EQ(std::string(choice.why), cpp->why);
  tileGemmChoiceFree(&choice);

  llvm::Expected<GemmOperands> ops = GemmOperands::create(operandCase("bf16"), s, 5);
  ASSERT_TRUE(bool(ops)) << llvm::toString(ops.takeError());
  char *why = nullptr;
  int rc = tileGemmLinear(gemm, "bf16", {ops->a.address(), s.m, s.k, ops->lda},
                          {ops->b.address(), s.n, s.k, ops->ldb},
                          {ops->c.address(), s.m, s.n, ops->ldc}, nullptr,
                          &why, &error);
  ASSERT_EQ(rc, 0) << error;
  EXPECT_NE(std::string(why).find(": "), std::string::npos);
  tileRuntimeFreeString(why);
  ASSERT_FALSE(bool(check(driver()->cuCtxSynchronize(), "sync")));
  llvm::Expected<std::vector<uint8_t>> host = ops->readOutput();
  ASSERT_TRUE(bool(host)) << llvm::toString(host.takeError());
  GemmCheckResult r = checkAgainstHostReference(*ops, *host, false);
  EXPECT_EQ(r.wrong, 0) << r.firstWrong;

  rc = tileGemmLinear(gemm, "bf16", {ops->a.address(), s.m, s.k, ops->lda},
                      {ops->b.address(), s.n, s.k + 1, ops->ldb},
                      {ops->c.address(), s.m, s.n, ops->ldc}, nullptr, nullptr,
                      &error);
  ASSERT_NE(rc, 0);
  EXPECT_NE(std::string(error).find("[M, K] and [N, K] expected"),
            std::string::npos)
      << error;
  tileRuntimeFreeString(error);
  tileGemmDestroy(gemm);

  error = nullptr;
  EXPECT_EQ(tileGemmOpen("/nonexistent", &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("gemm.cases.json"), std::string::npos)
      << error;
  tileRuntimeFreeString(error);
}

} // namespace

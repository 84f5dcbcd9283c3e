//===- GemmTests.cpp - the Hopper GEMM family against the host -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every kernel of bench/Kernels/gen_gemm_kernels.py (kernels/gemm.sm_90a,
// listed in gemm.cases.json) on shapes that are and are not tile
// multiples, launched through the shared host code (HopperGemm.h), every
// output compared exactly with the host reference (quarter-integer inputs:
// the f32 accumulation is exact, the only rounding is the final one to the
// output type):
//   - HopperGemm: small shapes, every element checked;
//   - HopperGemmLarge: 4095 x 4097 x 4096 and 8192 x 8192 x 128, checked on
//     whole rows and columns (the tile edges near both ends, the first and
//     last, random ones). These take seconds each; the sanitizer runs of
//     scripts/device-run leave them out.
// examples/hopper_gemm.mlir, the family's 128 x 256 x 64 3-stage bf16 TN
// kernel written by hand (kernels/hopper_gemm.sm_90a), runs through the
// same host code on the same shapes (instances Example/...), plus
// 1000 x 1000 x 1000.
// The family is sm_90a code (wgmma): on other devices the tests skip.
//
//===----------------------------------------------------------------------===//

#include "DeviceCommon.h"
#include "HopperGemm.h"

#include "gtest/gtest.h"

#include <map>
#include <optional>

using namespace tile::runtime;
using namespace tile::device::gemm;
using tile::device::kernelPath;
using llvm::Error;

namespace {

/// The device and the GEMM module, opened once; `skip` says why not.
struct GemmEnvironment {
  std::optional<Device> device;
  std::optional<Module> module;
  std::string skip;

  static GemmEnvironment &get() {
    static GemmEnvironment environment;
    return environment;
  }

  /// The family's module for "gemm"; else kernels/<name>.sm_90a.{cubin,json}
  /// (an example's), loaded on first use.
  llvm::Expected<const Module &> moduleNamed(const std::string &name) {
    if (name == "gemm")
      return *module;
    auto it = examples.find(name);
    if (it == examples.end()) {
      llvm::Expected<Module> m =
          Module::load(kernelPath(name + ".sm_90a.cubin"),
                       kernelPath(name + ".sm_90a.json"));
      if (!m)
        return m.takeError();
      it = examples.emplace(name, std::move(*m)).first;
    }
    return it->second;
  }

private:
  std::map<std::string, Module> examples;

  GemmEnvironment() {
    skip = tile::device::openSm90(device, "the Hopper GEMM family");
    if (!skip.empty())
      return;
    llvm::Expected<Module> m = loadGemmModule();
    if (!m) {
      skip = "cannot load the GEMM kernels: " + llvm::toString(m.takeError());
      return;
    }
    module.emplace(std::move(*m));
  }
};

std::vector<GemmCase> familyCases() {
  llvm::Expected<std::vector<GemmCase>> cases =
      loadGemmCases(kernelPath("gemm.cases.json"));
  if (!cases) {
    llvm::consumeError(cases.takeError()); // HopperGemmFamily reports it
    return {};
  }
  return std::move(*cases);
}

struct GemmTestCase {
  GemmCase kernel;
  GemmShape shape;
  /// The module holding the kernel (GemmEnvironment::moduleNamed).
  std::string module = "gemm";
};

void PrintTo(const GemmTestCase &c, std::ostream *os) {
  *os << c.kernel.kernel << " " << c.shape.str();
}

std::vector<GemmTestCase> testCases(llvm::ArrayRef<GemmShape> shapes) {
  std::vector<GemmTestCase> out;
  for (const GemmCase &c : familyCases())
    for (const GemmShape &s : shapes)
      out.push_back({c, s});
  return out;
}

/// examples/hopper_gemm.mlir's kernel: gemm_bf16_tn_128x256x64_s3's
/// arguments, tile and grid rule, so the family's host code runs it.
std::vector<GemmTestCase> exampleCases(llvm::ArrayRef<GemmShape> shapes) {
  GemmCase example;
  example.kernel = "hopper_gemm";
  example.dtype = example.out = "bf16";
  example.bm = 128;
  example.bn = 256;
  example.bk = 64;
  example.stages = 3;
  std::vector<GemmTestCase> out;
  for (const GemmShape &s : shapes)
    out.push_back({example, s, "hopper_gemm"});
  return out;
}

std::string testName(const ::testing::TestParamInfo<GemmTestCase> &info) {
  return info.param.kernel.kernel + "_" + info.param.shape.str();
}

/// Runs the case and compares with the host reference.
void runAndCheck(const GemmTestCase &c, bool sampled) {
  GemmEnvironment &env = GemmEnvironment::get();
  llvm::Expected<const Module &> module = env.moduleNamed(c.module);
  ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
  llvm::Expected<Kernel> kernel = module->kernel(c.kernel.kernel);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  llvm::Expected<GemmOperands> ops = GemmOperands::create(
      c.kernel, c.shape, uint64_t(c.shape.m * 31 + c.shape.n * 7 + c.shape.k));
  ASSERT_TRUE(bool(ops)) << llvm::toString(ops.takeError());
  if (Error e = launchGemm(*kernel, c.kernel, *ops,
                           env.device->multiprocessors()))
    FAIL() << llvm::toString(std::move(e));
  if (Error e = check(driver()->cuCtxSynchronize(),
                      "cuCtxSynchronize after " + c.kernel.kernel))
    FAIL() << llvm::toString(std::move(e));
  llvm::Expected<std::vector<uint8_t>> out = ops->readOutput();
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  GemmCheckResult r = checkAgainstHostReference(*ops, *out, sampled);
  EXPECT_GT(r.checked, 0);
  EXPECT_EQ(r.wrong, 0) << r.wrong << " of " << r.checked
                        << " checked elements differ from the exact host "
                           "reference; first at"
                        << r.firstWrong;
}

#define REQUIRE_HOPPER()                                                       \
  do {                                                                         \
    if (!GemmEnvironment::get().skip.empty())                                  \
      GTEST_SKIP() << GemmEnvironment::get().skip;                             \
  } while (0)

TEST(HopperGemmFamily, IsListedBesideTheKernels) {
  llvm::Expected<std::vector<GemmCase>> cases =
      loadGemmCases(kernelPath("gemm.cases.json"));
  ASSERT_TRUE(bool(cases)) << llvm::toString(cases.takeError());
  EXPECT_FALSE(cases->empty());
}

class HopperGemm : public ::testing::TestWithParam<GemmTestCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HopperGemm);

TEST_P(HopperGemm, MatchesTheHostReferenceExactly) {
  REQUIRE_HOPPER();
  runAndCheck(GetParam(), /*sampled=*/false);
}

// One tile with one K step; a multiple of every tile; then edges in M, N
// and K (N = 700 and K = 200 need padded rows for e4m3/TMA), a single row,
// and M, N one past a tile multiple.
const GemmShape smallShapes[] = {
    {128, 256, 64}, {256, 512, 128}, {300, 700, 200},
    {1, 4096, 512}, {257, 129, 192},
};
INSTANTIATE_TEST_SUITE_P(Family, HopperGemm,
                         ::testing::ValuesIn(testCases(smallShapes)),
                         testName);

// The hand-written example: the same shapes, and a square one that is no
// multiple of the tile in M, N or K.
std::vector<GemmTestCase> exampleSmallCases() {
  std::vector<GemmShape> shapes(std::begin(smallShapes), std::end(smallShapes));
  shapes.push_back({1000, 1000, 1000});
  return exampleCases(shapes);
}
INSTANTIATE_TEST_SUITE_P(Example, HopperGemm,
                         ::testing::ValuesIn(exampleSmallCases()), testName);

class HopperGemmLarge : public ::testing::TestWithParam<GemmTestCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HopperGemmLarge);

TEST_P(HopperGemmLarge, MatchesTheHostReferenceOnSampledRowsAndColumns) {
  REQUIRE_HOPPER();
  runAndCheck(GetParam(), /*sampled=*/true);
}

const GemmShape largeShapes[] = {{4095, 4097, 4096}, {8192, 8192, 128}};
INSTANTIATE_TEST_SUITE_P(Family, HopperGemmLarge,
                         ::testing::ValuesIn(testCases(largeShapes)),
                         testName);
INSTANTIATE_TEST_SUITE_P(Example, HopperGemmLarge,
                         ::testing::ValuesIn(exampleCases(largeShapes)),
                         testName);

} // namespace

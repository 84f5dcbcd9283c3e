//===- SanitizeTests.cpp - sanitize mode on the GPU ------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Kernels compiled with `tile-compile --sanitize`: the protocol kernel of
// Kernels/sanitize_protocol.mlir launched right (the tile arrives, nothing
// is reported) and with each bug sanitize mode catches at run time. A
// failing check traps, which ends the process's CUDA context, so each bug
// runs in a child process (a death test re-executing this binary) whose
// exit code and stderr carry TileRuntime's error.
//
//===----------------------------------------------------------------------===//

#include "DeviceCommon.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace tile::runtime;
using tile::device::kernelPath;

namespace {

/// The protocol the host chooses (see the kernel's comment); the defaults
/// are right.
struct Protocol {
  int64_t ringStage = 1;
  int64_t barIndex = 1;
  int64_t count = 1;
  int64_t extraBytes = 0;
  int64_t latePhase = 0;
  int64_t extraArrivals = 0;
};

constexpr int64_t kRows = 64, kCols = 64;

/// "" when a GPU that runs the kernel is here, else why not.
std::string whyNoGpu() {
  llvm::Expected<Device> device = Device::open(0);
  if (!device)
    return "no GPU: " + llvm::toString(device.takeError());
  if (device->computeMajor() < 9)
    return "TMA needs sm_90+; device 0 is " + device->smName();
  return "";
}

/// Launches ring_round_trip with `protocol` on random bf16 data; the
/// launch's error, or "" when it succeeded and `out` equals the input.
std::string roundTrip(const Protocol &protocol) {
  llvm::Expected<Device> device = Device::open(0);
  if (!device)
    return llvm::toString(device.takeError());
  llvm::Expected<Module> module =
      Module::load(kernelPath("sanitize_protocol.sm_90a.cubin"),
                   kernelPath("sanitize_protocol.sm_90a.json"));
  if (!module)
    return llvm::toString(module.takeError());
  llvm::Expected<Kernel> kernel = module->kernel("ring_round_trip");
  if (!kernel)
    return llvm::toString(kernel.takeError());
  if (!kernel->sanitized())
    return "the protocol kernel was not compiled with --sanitize";
  std::vector<uint16_t> host(kRows * kCols), back(kRows * kCols, 0);
  std::mt19937 random(7);
  std::normal_distribution<float> normal;
  for (uint16_t &v : host) {
    float f = normal(random);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    v = uint16_t(bits >> 16);
  }
  size_t bytes = host.size() * 2;
  llvm::Expected<DeviceBuffer> in = DeviceBuffer::allocate(bytes);
  llvm::Expected<DeviceBuffer> out = DeviceBuffer::allocate(bytes);
  if (!in || !out)
    return "allocation failed";
  if (llvm::Error e = in->copyFromHost(host.data(), bytes))
    return llvm::toString(std::move(e));
  if (llvm::Error e = out->fill(0))
    return llvm::toString(std::move(e));
  llvm::Error launched = kernel->launch(
      LaunchConfig{},
      {KernelArg::memref(in->address(), {kRows, kCols}),
       KernelArg::memref(out->address(), {kRows, kCols}),
       KernelArg::i64(protocol.ringStage), KernelArg::i64(protocol.barIndex),
       KernelArg::i64(protocol.count), KernelArg::i64(protocol.extraBytes),
       KernelArg::i64(protocol.latePhase),
       KernelArg::i64(protocol.extraArrivals)});
  if (launched)
    return llvm::toString(std::move(launched));
  if (llvm::Error e = out->copyToHost(back.data(), bytes))
    return llvm::toString(std::move(e));
  if (back != host)
    return "the tile did not arrive intact";
  return "";
}

/// In the child: the launch's error on stderr, exit code 3 for an error.
[[noreturn]] void roundTripInChild(const Protocol &protocol) {
  std::string error = roundTrip(protocol);
  std::fprintf(stderr, "%s\n", error.c_str());
  std::fflush(stderr);
  std::_Exit(error.empty() ? 0 : 3);
}

class SanitizeMode : public ::testing::Test {
protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    std::string why = whyNoGpu();
    if (!why.empty())
      GTEST_SKIP() << why;
  }
};

TEST_F(SanitizeMode, RightProtocolPassesAndMovesTheTile) {
  EXPECT_EQ(roundTrip(Protocol{}), "");
}

TEST_F(SanitizeMode, BarrierIndexOutOfRangeIsReported) {
  Protocol p;
  p.barIndex = 2;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "kernel 'ring_round_trip': sanitize check [0-9]+ "
              "\\(mbarrier-index\\) failed at .*sanitize_protocol.mlir:.*"
              "thread \\(0, 0, 0\\).* used mbarrier 2 of a group of 2");
}

TEST_F(SanitizeMode, RingStageOutOfRangeIsReported) {
  Protocol p;
  p.ringStage = 5;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "\\(shared-region\\) failed at .*shared buffer 2x64x64xbf16.*"
              "dim 0.* used offset 5 where at most 1 is in range");
}

TEST_F(SanitizeMode, MissingArrivalTimesOut) {
  Protocol p;
  p.count = 2;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "\\(mbarrier-wait-timeout\\) failed at "
              ".*sanitize_protocol.mlir:94:7.* waited [0-9]+ ms for mbarrier "
              "1 to complete its phase of parity 0.*its current phase has 1 "
              "of 2 arrivals");
}

TEST_F(SanitizeMode, MoreBytesExpectedThanCopiedTimesOut) {
  Protocol p;
  p.extraBytes = 128;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "\\(mbarrier-wait-timeout\\) failed at "
              ".*sanitize_protocol.mlir:94:7.* mbarrier 1 .*parity 0.* "
              "expects 128 bytes that no copy has brought");
}

TEST_F(SanitizeMode, FewerBytesExpectedThanCopiedIsReported) {
  // The phase completes once half the tile has landed: the consumer would
  // read the rest before it arrives.
  Protocol p;
  p.extraBytes = -4096;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "\\(mbarrier-tx-balance\\) failed at "
              ".*sanitize_protocol.mlir:94:7.* saw mbarrier 1 complete its "
              "phase of parity 0 while its arrivals since init had expected "
              "-4096 bytes fewer than the copies");
}

TEST_F(SanitizeMode, AWarpArrivingWhereOneThreadShouldIsReported) {
  Protocol p;
  p.extraArrivals = 31;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "\\(mbarrier-arrival-count\\) failed at "
              ".*sanitize_protocol.mlir:(87:16|91:7).* arrived on mbarrier 1 "
              "\\(init count 1\\) after [0-9]+ arrivals since its init");
}

TEST_F(SanitizeMode, MoreArrivalsThanTheInitCountAreReported) {
  // Init count 2 and three threads of a warp arriving together: the third
  // arrival counts toward phase 1 while the barrier is still in phase 0.
  // The leader's own arrival (lane 0 of the same warp, which may run ahead
  // of the other lanes' branch) can be the one that sees it first.
  Protocol p;
  p.count = 2;
  p.extraArrivals = 3;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "\\(mbarrier-arrival-count\\) failed at "
              ".*sanitize_protocol.mlir:(87:16|91:7).* \\(init count 2\\) "
              "after [23] arrivals since its init, with a count of 1");
}

TEST_F(SanitizeMode, WaitForAPhaseNobodyCompletesTimesOut) {
  Protocol p;
  p.latePhase = 1;
  EXPECT_EXIT(roundTripInChild(p), ::testing::ExitedWithCode(3),
              "\\(mbarrier-wait-timeout\\) failed at "
              ".*sanitize_protocol.mlir:97:9.* parity 1");
}

/// The suite's sanitized run (scripts/device-run) sets
/// TILE_DEVICE_EXPECT_SANITIZED: then the suite's kernels must be the
/// sanitized ones, or that run would prove nothing.
TEST_F(SanitizeMode, SuiteKernelsAreSanitizedWhenExpected) {
  if (!std::getenv("TILE_DEVICE_EXPECT_SANITIZED"))
    GTEST_SKIP() << "not the sanitized run";
  llvm::Expected<Device> device = Device::open(0);
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  for (const char *name : {"hopper_gemm", "gemm", "device_suite"}) {
    llvm::Expected<Module> module =
        Module::load(kernelPath(std::string(name) + ".sm_90a.cubin"),
                     kernelPath(std::string(name) + ".sm_90a.json"));
    ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
    bool any = false;
    for (const tile::manifest::KernelSpec *spec : module->manifest().kernels())
      any |= !spec->sanitizeChecks.empty();
    EXPECT_TRUE(any) << name << " has no sanitize checks";
  }
}

} // namespace

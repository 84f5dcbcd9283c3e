//===- LaunchTest.cpp - the runtime's checks before the driver -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Manifests written by tile-compile at build time (tma_tile_copy: runtime
// sizes, two tensor maps; dsmem_copy: static 128x64 memrefs, clusters of 2)
// read back, arguments packed, tensor maps completed, and every kind of bad
// input refused with a message naming it. No GPU: nothing here launches.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/Launch.h"
#include "tile/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstring>
#include <map>

using namespace tile::runtime;
using tile::cuda::TensorMapSwizzle;

namespace {

const LaunchManifest &manifestOf(const std::string &example) {
  static std::map<std::string, LaunchManifest> cache;
  auto it = cache.find(example);
  if (it == cache.end()) {
    std::string path =
        std::string(TILE_TEST_MANIFEST_DIR) + "/" + example + ".sm_90a.json";
    llvm::Expected<LaunchManifest> m = LaunchManifest::load(path);
    if (!m) {
      ADD_FAILURE() << llvm::toString(m.takeError());
      static LaunchManifest empty;
      return empty;
    }
    it = cache.emplace(example, std::move(*m)).first;
  }
  return it->second;
}

const KernelSpec &tileCopy() {
  const KernelSpec *k = manifestOf("tma_tile_copy").kernel("tma_tile_copy");
  EXPECT_NE(k, nullptr);
  static KernelSpec none;
  return k ? *k : none;
}

const KernelSpec &dsmemCopy() {
  const KernelSpec *k = manifestOf("dsmem_copy").kernel("dsmem_copy");
  EXPECT_NE(k, nullptr);
  static KernelSpec none;
  return k ? *k : none;
}

/// The error text of `value`, or "" when it succeeded.
template <typename T> std::string errorOf(llvm::Expected<T> value) {
  return value ? "" : llvm::toString(value.takeError());
}

uint64_t u64At(const PreparedLaunch &p, unsigned param) {
  uint64_t v;
  std::memcpy(&v, p.storage.data() + p.offsets[param], 8);
  return v;
}

TEST(LaunchManifest, ReadsWhatTileCompileWrote) {
  const KernelSpec &k = tileCopy();
  EXPECT_EQ(manifestOf("tma_tile_copy").version, kSupportedManifestVersion);
  EXPECT_EQ(manifestOf("tma_tile_copy").chip, "sm_90a");
  ASSERT_EQ(k.args.size(), 4u);
  EXPECT_EQ(k.args[0].kind, ArgSpec::Kind::MemRef);
  EXPECT_EQ(k.args[0].elementBits, 16u);
  EXPECT_EQ(k.args[0].shape, (llvm::SmallVector<int64_t, 5>{-1, -1}));
  EXPECT_EQ(k.args[2].kind, ArgSpec::Kind::TensorMap);
  EXPECT_EQ(k.args[3].map, 1);
  EXPECT_EQ(k.numHostArgs(), 2u);
  EXPECT_EQ(k.hostSignature(), "(memref<?x?xf16, 1>, memref<?x?xf16, 1>)");
  // 7 parameters per memref, then the two maps.
  ASSERT_EQ(k.params.size(), 16u);
  EXPECT_EQ(k.params[14].kind, ParamSpec::Kind::GridConstant);
  EXPECT_EQ(k.params[14].bytes, 128u);
  EXPECT_EQ(k.params[5].part, "stride[0]");
  ASSERT_EQ(k.tensorMaps.size(), 2u);
  EXPECT_EQ(k.tensorMaps[1].globalArg, 1u);
  EXPECT_EQ(k.tensorMaps[1].loweredParam, 15u);
  EXPECT_EQ(k.tensorMaps[0].dimSources, (llvm::SmallVector<int64_t, 5>{1, 0}));
  EXPECT_EQ(*k.blockDims, (std::array<unsigned, 3>{128, 1, 1}));
  EXPECT_FALSE(k.clusterDims);
  EXPECT_EQ(*dsmemCopy().clusterDims, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_EQ(dsmemCopy().args[1].shape, (llvm::SmallVector<int64_t, 5>{128, 64}));
}

TEST(PrepareLaunch, PacksParametersAndCompletesTensorMaps) {
  // in: 256x512 f16 at 0x10000; out: a 300x512 view from row 1 of a buffer
  // at 0x40000 with rows padded to 520 elements (the identity layout fixes
  // the offset at 0: the view is passed by its address).
  llvm::Expected<PreparedLaunch> p = prepareLaunch(
      tileCopy(), {KernelArg::memref(0x10000, {256, 512}),
                   KernelArg::memref(0x40000 + 520 * 2, {300, 512}, {520, 1})});
  ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
  // Seven 8-byte values per memref, the maps at 128-byte boundaries.
  ASSERT_EQ(p->offsets.size(), 16u);
  EXPECT_EQ(p->offsets[13], 104u);
  EXPECT_EQ(p->offsets[14], 128u);
  EXPECT_EQ(p->offsets[15], 256u);
  EXPECT_EQ(p->storage.size(), 384u);
  EXPECT_EQ(u64At(*p, 1), 0x10000u);   // aligned pointer
  EXPECT_EQ(u64At(*p, 3), 256u);       // size[0]
  EXPECT_EQ(u64At(*p, 5), 512u);       // stride[0]
  EXPECT_EQ(u64At(*p, 8), 0x40000u + 520 * 2); // aligned pointer of out
  EXPECT_EQ(u64At(*p, 12), 520u);      // stride[0] of out

  ASSERT_EQ(p->tensorMaps.size(), 2u);
  const tile::cuda::TensorMapDesc &in = p->tensorMaps[0].desc;
  EXPECT_EQ(p->tensorMaps[0].param, 14u);
  EXPECT_EQ(in.rank, 2u);
  EXPECT_EQ(*in.globalAddress, 0x10000u);
  EXPECT_EQ(*in.globalDims[0], 512u);   // columns, innermost first
  EXPECT_EQ(*in.globalDims[1], 256u);
  EXPECT_EQ(*in.globalStrides[0], 1024u); // bytes per row
  EXPECT_EQ(in.boxDims, (llvm::SmallVector<uint32_t, 5>{64, 128}));
  EXPECT_EQ(in.swizzle, TensorMapSwizzle::B128);
  const tile::cuda::TensorMapDesc &out = p->tensorMaps[1].desc;
  EXPECT_EQ(p->tensorMaps[1].param, 15u);
  EXPECT_EQ(*out.globalAddress, 0x40000u + 520 * 2); // the view's offset
  EXPECT_EQ(*out.globalDims[1], 300u);
  EXPECT_EQ(*out.globalStrides[0], 1040u);
}

TEST(PrepareLaunch, WrongArgumentCountNamesTheSignature) {
  std::string e = errorOf(prepareLaunch(
      tileCopy(), {KernelArg::memref(0x10000, {256, 512}),
                   KernelArg::memref(0x20000, {256, 512}), KernelArg::i32(3)}));
  EXPECT_NE(e.find("kernel tma_tile_copy takes 2 arguments (memref<?x?xf16, 1>, "
                   "memref<?x?xf16, 1>), 3 given"),
            std::string::npos)
      << e;
}

TEST(PrepareLaunch, MisalignedPointers) {
  // f16-aligned but not 16-byte aligned: what the manifest says the
  // kernel's TMA copies need.
  std::string e = errorOf(prepareLaunch(
      tileCopy(), {KernelArg::memref(0x10008, {256, 512}),
                   KernelArg::memref(0x20000, {256, 512})}));
  EXPECT_NE(e.find("argument 0 (memref<?x?xf16, 1>): the address of element "
                   "0, 0x10008, is not a multiple of 16 bytes, as the tma "
                   "copies of this kernel need"),
            std::string::npos)
      << e;
  // The identity layout fixes the element offset at 0: a descriptor with
  // another would be read at offset 0 by the kernel's own code.
  e = errorOf(prepareLaunch(
      tileCopy(), {KernelArg::memref(0x10000, {256, 512}, {520, 1}, 4),
                   KernelArg::memref(0x20000, {256, 512})}));
  EXPECT_NE(e.find("argument 0 (memref<?x?xf16, 1>): offset 4 elements but "
                   "the memref type fixes it at 0 (pass a view by its "
                   "address)"),
            std::string::npos)
      << e;
  // Not even element-aligned: named before any map is looked at.
  e = errorOf(prepareLaunch(tileCopy(), {KernelArg::memref(0x10001, {256, 512}),
                                         KernelArg::memref(0x20000, {256, 512})}));
  EXPECT_NE(e.find("argument 0 (memref<?x?xf16, 1>): pointer 0x10001 is not "
                   "aligned to its 2-byte f16 elements"),
            std::string::npos)
      << e;
  e = errorOf(prepareLaunch(tileCopy(), {KernelArg::memref(0, {256, 512}),
                                         KernelArg::memref(0x20000, {256, 512})}));
  EXPECT_NE(e.find("argument 0 (memref<?x?xf16, 1>): null device pointer"),
            std::string::npos)
      << e;
}

TEST(PrepareLaunch, EveryViolatedRuleIsListed) {
  // 100 columns: a 200-byte row stride; the output misaligned as well.
  std::string e = errorOf(prepareLaunch(
      tileCopy(), {KernelArg::memref(0x10000, {256, 100}),
                   KernelArg::memref(0x20002, {256, 512})}));
  EXPECT_NE(e.find("argument 0 (memref<?x?xf16, 1>): stride[0] = 100 "
                   "elements (200 bytes) is not a multiple of 16 bytes, as "
                   "the tma copies of this kernel need"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("argument 1 (memref<?x?xf16, 1>): the address of element "
                   "0, 0x20002, is not a multiple of 16 bytes"),
            std::string::npos)
      << e;
  // Past the alignment, the tensor-map rules: a box row beyond 2^32 dims.
  e = errorOf(prepareLaunch(
      tileCopy(), {KernelArg::memref(0x10000, {256, int64_t(1) << 33}),
                   KernelArg::memref(0x20000, {256, 512})}));
  EXPECT_NE(e.find("tensor map of argument 0 (memref<?x?xf16, 1>): "
                   "globalDim[0] = 8589934592 is not in [1, 2^32]"),
            std::string::npos)
      << e;
}

// examples/kernel_versions.mlir: `tile_copy` (TMA: 16-byte tensors) and its
// version `tile_copy_ldgsts` (cp.async: 4-byte). The first version whose
// needs the tensors meet is chosen; none: every refusal is listed.
TEST(KernelVersions, TheFirstVersionTheTensorsSuitIsChosen) {
  const LaunchManifest &m = manifestOf("kernel_versions");
  ASSERT_EQ(m.versions("tile_copy").size(), 2u);
  const KernelSpec &ldgsts = *m.versions("tile_copy")[1];
  EXPECT_EQ(ldgsts.name, "tile_copy_ldgsts");
  // cp.async tests the base and the row stride; TMA's map strides come
  // from the row stride too.
  ASSERT_EQ(ldgsts.args[0].alignment.size(), 1u);
  EXPECT_EQ(ldgsts.args[0].alignment[0],
            (AlignmentNeed{4, "ldgsts", {0}}));
  ASSERT_EQ(ldgsts.args[1].alignment.size(), 1u);
  EXPECT_EQ(ldgsts.args[1].alignment[0], (AlignmentNeed{16, "tma", {0}}));
  auto chosen = [&](llvm::ArrayRef<KernelArg> args, std::string *why = nullptr) {
    llvm::Expected<const KernelSpec *> k = chooseVersion(m, "tile_copy", args, why);
    return k ? (*k)->name : llvm::toString(k.takeError());
  };
  KernelArg out = KernelArg::memref(0x40000, {128, 64});
  // Aligned: the TMA kernel.
  EXPECT_EQ(chosen({KernelArg::memref(0x10000, {128, 4096}), out}), "tile_copy");
  // Rows of 4098 f16 (8196 bytes): cp.async's 4-byte vectors.
  std::string why;
  EXPECT_EQ(chosen({KernelArg::memref(0x10000, {128, 4098}), out}, &why),
            "tile_copy_ldgsts");
  EXPECT_NE(why.find("cannot launch tile_copy:\n  argument 0 "
                     "(memref<?x?xf16, 1>): stride[0] = 4098 elements (8196 "
                     "bytes) is not a multiple of 16 bytes"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("tile_copy_ldgsts: chosen"), std::string::npos) << why;
  // The chosen version's packed launch comes back with it (what
  // Module::launch launches): the same bytes prepareLaunch gives that
  // version, not the first version's.
  PreparedLaunch prepared;
  std::vector<KernelArg> unaligned = {KernelArg::memref(0x10000, {128, 4098}),
                                      out};
  llvm::Expected<const KernelSpec *> picked =
      chooseVersion(m, "tile_copy", unaligned, nullptr, &prepared);
  ASSERT_TRUE(bool(picked)) << llvm::toString(picked.takeError());
  EXPECT_EQ(*picked, &ldgsts);
  llvm::Expected<PreparedLaunch> direct = prepareLaunch(ldgsts, unaligned);
  ASSERT_TRUE(bool(direct)) << llvm::toString(direct.takeError());
  ASSERT_FALSE(prepared.storage.empty());
  EXPECT_EQ(prepared.storage, direct->storage);
  EXPECT_EQ(prepared.offsets, direct->offsets);
  EXPECT_EQ(prepared.tensorMaps.size(), direct->tensorMaps.size());
  // A base 4 bytes past a 16-byte boundary (a view at element 2).
  EXPECT_EQ(chosen({KernelArg::memref(0x10004, {128, 4096}), out}),
            "tile_copy_ldgsts");
  // Rows of 4097 f16: no cp.async width divides them.
  std::string e = chosen({KernelArg::memref(0x10000, {128, 4097}), out});
  EXPECT_NE(e.find("no version of tile_copy takes these arguments:"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("stride[0] = 4097 elements (8194 bytes) is not a multiple "
                   "of 4 bytes, as the ldgsts copies of this kernel need"),
            std::string::npos)
      << e;
  // The output is stored by TMA in both versions.
  e = chosen({KernelArg::memref(0x10000, {128, 4096}),
              KernelArg::memref(0x40000, {128, 60})});
  EXPECT_NE(e.find("no version of tile_copy"), std::string::npos) << e;
  // An unknown name lists the manifest's kernels.
  EXPECT_EQ(errorOf(chooseVersion(m, "copy", {})),
            "the manifest has no kernel 'copy' (kernels: tile_copy, "
            "tile_copy_ldgsts)");
}

TEST(PrepareLaunch, KindsRanksAndStaticShapes) {
  std::string e = errorOf(prepareLaunch(
      dsmemCopy(), {KernelArg::i64(7), KernelArg::memref(0x20000, {128, 32})}));
  EXPECT_NE(e.find("argument 0 (memref<128x64xf16, 1>): a memref is expected, "
                   "a scalar was given"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("argument 1 (memref<128x64xf16, 1>): size[1] = 32 but the "
                   "kernel was compiled for 64"),
            std::string::npos)
      << e;
  e = errorOf(prepareLaunch(dsmemCopy(),
                            {KernelArg::memref(0x10000, {128, 64}),
                             KernelArg::memref(0x20000, {128 * 64})}));
  EXPECT_NE(e.find("argument 1 (memref<128x64xf16, 1>): rank 2 expected, got 1 "
                   "sizes and 1 strides"),
            std::string::npos)
      << e;
  e = errorOf(prepareLaunch(dsmemCopy(),
                            {KernelArg::memref(0x10000, {128, 64}, {128, 1}),
                             KernelArg::memref(0x20000, {128, 64})}));
  EXPECT_NE(e.find("stride[0] = 128 elements but the kernel was compiled for 64"),
            std::string::npos)
      << e;
}

TEST(LaunchConfig, ClustersAndBlocks) {
  LaunchConfig config;
  config.grid = {3, 1, 1};
  std::string e = errorOf(checkLaunchConfig(dsmemCopy(), config));
  EXPECT_NE(e.find("grid x = 3 is not a multiple of the cluster's 2"),
            std::string::npos)
      << e;
  config.grid = {4, 1, 1};
  config.block = std::array<unsigned, 3>{64, 1, 1};
  e = errorOf(checkLaunchConfig(dsmemCopy(), config));
  EXPECT_NE(e.find("block (64, 1, 1) differs from the kernel's (128, 1, 1)"),
            std::string::npos)
      << e;
  config.block.reset();
  llvm::Expected<std::array<unsigned, 3>> block =
      checkLaunchConfig(dsmemCopy(), config);
  ASSERT_TRUE(bool(block));
  EXPECT_EQ(*block, (std::array<unsigned, 3>{128, 1, 1}));
}

// tma_copy's 128B-swizzled 4096-byte tile is in the dynamic segment: 4096
// bytes plus 1008 to round its base up to 1024. A launch asks for that by
// default, and a smaller explicit amount is refused.
TEST(LaunchConfig, DynamicSharedBytesComeFromTheManifest) {
  const KernelSpec *k = manifestOf("tma_copy").kernel("tma_copy");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->dynamicSharedBytes, 5104u);
  EXPECT_EQ(k->staticSharedBytes, 8u); // the mbarrier
  LaunchConfig config;
  EXPECT_EQ(dynamicSharedBytesToLaunch(*k, config), 5104u);
  EXPECT_TRUE(bool(checkLaunchConfig(*k, config)));
  config.dynamicSharedBytes = 8192;
  EXPECT_EQ(dynamicSharedBytesToLaunch(*k, config), 8192u);
  EXPECT_TRUE(bool(checkLaunchConfig(*k, config)));
  config.dynamicSharedBytes = 4096;
  std::string e = errorOf(checkLaunchConfig(*k, config));
  EXPECT_NE(e.find("dynamic shared memory 4096 bytes is below the kernel's 5104"),
            std::string::npos)
      << e;
}

// The on-device suite's 4-stage ring of 32 KiB tiles: 131072 bytes after an
// 8-byte buffer (the ring at 1024), plus 1008 of rounding; the mbarrier
// (8 bytes) is static.
TEST(LaunchManifest, RingBeyondStaticSharedMemory) {
  const KernelSpec *k =
      manifestOf("device_suite").kernel("ring_f16_4x128x128_sw128");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->dynamicSharedBytes, 133104u);
  EXPECT_EQ(k->staticSharedBytes, 8u);
  EXPECT_EQ(dynamicSharedBytesToLaunch(*k, LaunchConfig()), 133104u);
}

TEST(LaunchManifest, MissingAndStaleManifests) {
  std::string e = errorOf(LaunchManifest::load("/nonexistent/k.json"));
  EXPECT_NE(e.find("cannot read the manifest /nonexistent/k.json"),
            std::string::npos)
      << e;
  // Module::load reads the manifest before touching the driver: the same
  // error with or without a GPU.
  e = errorOf(Module::load("/nonexistent/k.cubin", "/nonexistent/k.json"));
  EXPECT_NE(e.find("cannot read the manifest /nonexistent/k.json"),
            std::string::npos)
      << e;
  e = errorOf(LaunchManifest::parse(R"({"version": 1, "modules": []})", "old.json"));
  EXPECT_EQ(e, "manifest old.json: $.version: version 1 is not the supported 4 "
               "(recompile with this tile-compile)");
  e = errorOf(LaunchManifest::parse("{", "bad.json"));
  EXPECT_NE(e.find("manifest bad.json is not JSON"), std::string::npos) << e;
  e = errorOf(LaunchManifest::parse(
      R"({"version": 4, "modules": [{"kernels": [{"name": "k", "args": [],
          "params": [{"index": 0, "bytes": 8, "align": 8, "kind": "pointer",
                      "source": {"arg": 3}}],
          "tensor_maps": [], "block_dims": null, "cluster_dims": null,
          "static_shared_bytes": 0, "dynamic_shared_bytes": 0}]}]})",
      "x.json"));
  EXPECT_EQ(e, "manifest x.json: $.modules[0].kernels[0](k).params[0]: source "
               "argument 3 does not exist");
}

TEST(Driver, ErrorsNameTheProblem) {
  // With a driver the device opens; without one the error names libcuda.
  llvm::Expected<Device> device = Device::open(0);
  if (device) {
    EXPECT_GE(device->computeMajor(), 1);
    std::string e = errorOf(Device::open(1000));
    EXPECT_NE(e.find("device 1000 does not exist"), std::string::npos) << e;
    return;
  }
  std::string e = llvm::toString(device.takeError());
  EXPECT_TRUE(e.find("libcuda.so.1") != std::string::npos ||
              e.find("cuInit") != std::string::npos)
      << e;
}

} // namespace

//===- ManifestSchemaTest.cpp - the launch manifest's one schema ------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The writer (toJSON) and the reader (LaunchManifest::parse) of the launch
// manifest agree: manifests tile-compile wrote at build time read back and
// write out byte for byte; a manifest with every field set (and every
// optional one absent) survives write -> read unchanged; malformed and
// hostile input is an error naming its JSON path, never a crash.
//
//===----------------------------------------------------------------------===//

#include "tile/Manifest/LaunchManifest.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace tile::manifest;

namespace {

std::string fileText(const std::string &path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return "";
  return (*file)->getBuffer().str();
}

template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

/// A manifest exercising every field: a memref with and without strides, a
/// scalar with and without a width, a tensor map, every parameter kind, a
/// cluster, dispatch records, two modules.
LaunchManifest everyField() {
  KernelSpec k;
  k.name = "k";
  ArgSpec memref;
  memref.kind = ArgSpec::Kind::MemRef;
  memref.index = 0;
  memref.type = "memref<?x64xf16, 1>";
  memref.elementType = "f16";
  memref.elementBits = 16;
  memref.shape = {-1, 64};
  memref.strides = llvm::SmallVector<int64_t, 5>{64, 1};
  memref.offset = 0;
  memref.alignment = {{16, "tma", {0}}, {4, "ldgsts", {0, 1}}};
  ArgSpec unstrided = memref;
  unstrided.index = 1;
  unstrided.strides.reset();
  unstrided.offset.reset();
  unstrided.elementBits = 0;
  unstrided.alignment.clear();
  ArgSpec scalar;
  scalar.index = 2;
  scalar.type = "i32";
  scalar.scalarBits = 32;
  ArgSpec opaque;
  opaque.index = 3;
  opaque.type = "index";
  ArgSpec map;
  map.kind = ArgSpec::Kind::TensorMap;
  map.index = 4;
  map.type = "!llvm.ptr";
  map.map = 0;
  k.args = {memref, unstrided, scalar, opaque, map};
  ParamSpec::Kind kinds[] = {ParamSpec::Kind::Pointer, ParamSpec::Kind::Integer,
                             ParamSpec::Kind::Float, ParamSpec::Kind::GridConstant,
                             ParamSpec::Kind::ByVal, ParamSpec::Kind::Other};
  for (unsigned i = 0; i < 6; ++i) {
    ParamSpec p;
    p.kind = kinds[i];
    p.index = i;
    p.type = "!llvm.ptr";
    p.bytes = i == 3 ? 128 : 8;
    p.align = i == 3 ? 128 : 8;
    p.sourceArg = i < 3 ? 0 : 4;
    p.part = i == 1 ? "aligned" : "";
    k.params.push_back(p);
  }
  TensorMapSpec t;
  t.param = 4;
  t.globalArg = 0;
  t.loweredParam = 3;
  t.loweredGlobalParam = 0;
  t.dataType = tile::cuda::TensorMapDataType::Float16;
  t.encode = {2, -1, 64, -1, 64, 128, 1, 1, 0, 3, 2, 0};
  t.dimSources = {1, 0};
  t.strideSources = {0};
  t.strideScales = {2};
  t.bytesPerIssue = 16384;
  t.issues = 1;
  k.tensorMaps = {t};
  k.blockDims = std::array<unsigned, 3>{128, 1, 1};
  k.clusterDims = std::array<unsigned, 3>{2, 1, 1};
  k.staticSharedBytes = 33792;
  k.dynamicSharedBytes = 1 << 17;
  k.dispatch = {{"tile.copy_async", "tma", "k.mlir:12:5"},
                {"tile.gemm_async", "tcgen05", "k.mlir:20:7"}};
  k.sanitizeChecks = {{"mbarrier-wait-timeout", "k.mlir:30:7", "a wait"},
                      {"shared-region", "k.mlir:31:7", "a region"}};
  k.programmaticLaunch = true;
  KernelSpec bare;
  bare.name = "bare";
  // A version of `k2`, a kernel without arguments like it.
  KernelSpec primary;
  primary.name = "k2";
  bare.versionOf = "k2";
  LaunchManifest m;
  m.chip = "sm_90a";
  m.ptx = "k.ptx";
  m.cubin = "k.cubin";
  m.modules = {{"kernels", "sm_90a", {k, bare, primary}}, {"empty", "", {}}};
  return m;
}

TEST(ManifestSchema, EveryFieldSurvivesWriteThenRead) {
  LaunchManifest written = everyField();
  std::string text = toJSONText(written);
  llvm::Expected<LaunchManifest> read = LaunchManifest::parse(text, "x.json");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError()) << "\n" << text;
  EXPECT_TRUE(*read == written) << text;
  EXPECT_EQ(toJSONText(*read), text);
  // Equality looks at every field: one change is seen.
  LaunchManifest changed = written;
  changed.modules[0].kernels[0].tensorMaps[0].strideScales[0] = 1;
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].args[1].strides = llvm::SmallVector<int64_t, 5>{};
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].dispatch[1].loc = "k.mlir:20:8";
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].sanitizeChecks[1].what = "another";
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].args[0].offset = 8;
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].args[0].alignment[1].bytes = 8;
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].args[0].alignment[0].by = "ldgsts";
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].args[0].alignment[1].strides = {1};
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[1].versionOf = "k";
  EXPECT_FALSE(changed == written);
  changed = written;
  changed.modules[0].kernels[0].programmaticLaunch = false;
  EXPECT_FALSE(changed == written);
  // The versions of k2: itself, then `bare`.
  std::vector<const KernelSpec *> versions = read->versions("k2");
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0]->name, "k2");
  EXPECT_EQ(versions[1]->name, "bare");
  EXPECT_TRUE(read->versions("nothing").empty());
}

TEST(ManifestSchema, ProgrammaticLaunchIsABoolean) {
  std::string text = toJSONText(everyField());
  size_t at = text.find("\"programmatic_launch\": true");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 27, "\"programmatic_launch\": 1");
  EXPECT_EQ(errorOf(LaunchManifest::parse(text, "p.json")),
            "manifest p.json: $.modules[0].kernels[0](k).programmatic_launch: "
            "expected a "
            "boolean");
}

TEST(ManifestSchema, VersionsAndAlignmentsAreChecked) {
  auto refusal = [](const LaunchManifest &m) {
    return errorOf(LaunchManifest::parse(toJSONText(m), "v.json"));
  };
  LaunchManifest m = everyField();
  m.modules[0].kernels[1].versionOf = "missing";
  EXPECT_EQ(refusal(m), "manifest v.json: $.kernels(bare).version_of: "
                        "'missing' is not another kernel of the manifest that "
                        "is not itself a version");
  // A version of a version.
  m = everyField();
  m.modules[0].kernels[2].versionOf = "k";
  EXPECT_NE(refusal(m).find("'k2' is not another kernel"), std::string::npos)
      << refusal(m);
  // Other arguments than its primary's: the runtime could not launch it
  // with the primary's.
  m = everyField();
  m.modules[0].kernels[1].versionOf = "k";
  EXPECT_EQ(refusal(m), "manifest v.json: $.kernels(bare).version_of: the "
                        "version takes (), 'k' takes " +
                            m.modules[0].kernels[0].hostSignature());
  m = everyField();
  m.modules[0].kernels[0].args[0].alignment[0].bytes = 12;
  EXPECT_NE(refusal(m).find("args[0].alignment[0].bytes: alignment 12 is not "
                            "a power of two"),
            std::string::npos)
      << refusal(m);
  m = everyField();
  m.modules[0].kernels[0].args[0].alignment[1].strides = {0, 2};
  EXPECT_NE(refusal(m).find("args[0].alignment[1].strides: dim 2 is not a dim "
                            "of the memref"),
            std::string::npos)
      << refusal(m);
}

TEST(ManifestSchema, UnknownSanitizeCheckKindIsRefused) {
  LaunchManifest m = everyField();
  m.modules[0].kernels[0].sanitizeChecks[0].kind = "parity";
  llvm::Expected<LaunchManifest> read =
      LaunchManifest::parse(toJSONText(m), "x.json");
  ASSERT_FALSE(bool(read));
  std::string message = llvm::toString(read.takeError());
  EXPECT_NE(message.find("sanitize_checks[0].kind"), std::string::npos)
      << message;
  EXPECT_NE(message.find("unknown sanitize check 'parity'"), std::string::npos)
      << message;
}

TEST(ManifestSchema, TileCompileManifestsRoundTripByteForByte) {
  for (const char *example :
       {"tma_tile_copy.sm_90a", "dsmem_copy.sm_90a", "tma_copy.sm_90a",
        "gemm_block_scaled.sm_100a", "kernel_versions.sm_90a"}) {
    std::string path =
        std::string(TILE_TEST_MANIFEST_DIR) + "/" + example + ".json";
    std::string text = fileText(path);
    ASSERT_FALSE(text.empty()) << path;
    llvm::Expected<LaunchManifest> read = LaunchManifest::parse(text, path);
    ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
    EXPECT_EQ(toJSONText(*read), text) << example;
    EXPECT_FALSE(read->kernels().empty()) << example;
  }
}

TEST(ManifestSchema, HostileInputIsAnErrorNamingThePath) {
  auto parse = [](const std::string &text) {
    return errorOf(LaunchManifest::parse(text, "h.json"));
  };
  const std::string kernelHead =
      R"({"version": 4, "modules": [{"kernels": [{"name": "k", )";
  const std::string kernelTail =
      R"("tensor_maps": [], "block_dims": null, "cluster_dims": null,
         "static_shared_bytes": 0, "dynamic_shared_bytes": 0}]}]})";
  EXPECT_EQ(parse("[]"), "manifest h.json: $: expected an object");
  EXPECT_EQ(parse(R"({"version": "2"})"),
            "manifest h.json: $.version: expected an integer");
  EXPECT_EQ(parse(R"({"version": 4})"), "manifest h.json: $.modules: missing");
  EXPECT_EQ(parse(R"({"version": 4, "modules": [7]})"),
            "manifest h.json: $.modules[0]: expected an object");
  EXPECT_EQ(parse(kernelHead + R"("args": [{"index": -1, "type": "i32",
               "kind": "scalar"}], "params": [], )" + kernelTail),
            "manifest h.json: $.modules[0].kernels[0](k).args[0].index: -1 is "
            "outside [0, 4294967295]");
  EXPECT_EQ(parse(kernelHead + R"("args": [], "params": [{"index": 0,
               "bytes": 99999999999999, "align": 8, "kind": "pointer",
               "source": {"arg": 0}}], )" + kernelTail),
            "manifest h.json: $.modules[0].kernels[0](k).params[0].bytes: "
            "99999999999999 is outside [0, 4294967295]");
  EXPECT_EQ(parse(kernelHead + R"("args": [{"index": 0, "type": "t",
               "kind": "tensor_map", "map": 3}], "params": [], )" + kernelTail),
            "manifest h.json: $.modules[0].kernels[0](k).args[0]: tensor map 3 "
            "does not exist");
  EXPECT_EQ(parse(kernelHead + R"("args": [], "params": [], "tensor_maps": [],
               "block_dims": [1, 0, 1], "cluster_dims": null,
               "static_shared_bytes": 0, "dynamic_shared_bytes": 0}]}]})"),
            "manifest h.json: $.modules[0].kernels[0](k).block_dims: expected "
            "three positive integers");
  EXPECT_EQ(parse(kernelHead + R"("args": [], "params": [], "tensor_maps": [],
               "block_dims": null, "cluster_dims": null,
               "static_shared_bytes": -4, "dynamic_shared_bytes": 0}]}]})"),
            "manifest h.json: $.modules[0].kernels[0](k).static_shared_bytes: "
            "-4 is outside [0, 9223372036854775807]");
  // Deep nesting where a number belongs: a type error, not a recursion.
  std::string deep(2000, '[');
  deep += std::string(2000, ']');
  EXPECT_EQ(parse(R"({"version": )" + deep + "}"),
            "manifest h.json: $.version: expected an integer");
  // Every prefix of a real manifest is refused with a message (truncation);
  // the whole text but its final newline is the first complete document.
  std::string text = toJSONText(everyField());
  for (size_t n = 0; n + 1 < text.size(); n += 7)
    EXPECT_NE(parse(text.substr(0, n)), "") << n;
}

// Random single-byte and span mutations of real manifests (digits, signs,
// quotes, brackets, deleted or duplicated spans): every mutant either
// parses or is refused with a path; none crashes or reads out of bounds
// (run under the sanitizer build too).
TEST(ManifestSchema, MutatedManifestsNeverCrash) {
  std::vector<std::string> texts = {toJSONText(everyField())};
  for (const char *example : {"tma_tile_copy.sm_90a", "gemm_block_scaled.sm_100a"})
    texts.push_back(fileText(std::string(TILE_TEST_MANIFEST_DIR) + "/" +
                             example + ".json"));
  const char pieces[] = "0123456789-+e.\"{}[],:nulltruefalse ";
  uint64_t state = 42;
  auto next = [&](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  int parsed = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = texts[next(texts.size())];
    ASSERT_FALSE(text.empty());
    for (int edits = 1 + next(3); edits > 0; --edits) {
      size_t at = next(text.size());
      switch (next(4)) {
      case 0: text[at] = pieces[next(sizeof(pieces) - 1)]; break;
      case 1: text.erase(at, next(12)); break;
      case 2: text.insert(at, text.substr(next(text.size()), next(16))); break;
      default: text.insert(at, "99999999999999999999"); break;
      }
      if (text.empty())
        text = "{";
    }
    llvm::Expected<LaunchManifest> m = LaunchManifest::parse(text, "m.json");
    if (m) {
      ++parsed;
      // What parses writes back and reads again to the same manifest.
      llvm::Expected<LaunchManifest> again =
          LaunchManifest::parse(toJSONText(*m), "again.json");
      ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
      EXPECT_TRUE(*again == *m);
    } else {
      ++refused;
      EXPECT_NE(llvm::toString(m.takeError()).find("manifest m.json"),
                std::string::npos);
    }
  }
  EXPECT_GT(refused, 1000);
  std::printf("manifest mutants: %d parsed, %d refused\n", parsed, refused);
}

} // namespace

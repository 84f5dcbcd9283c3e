//===- EmbeddingTest.cpp - variants registered by another library -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ExternalVariants.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Conversion/TileToNVVM/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dispatch/PlanCache.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

const char *kCopies = R"mlir(
func.func @f(%s: !tile.buffer<256x64xf16, shared>, %d: !tile.buffer<256x64xf16, shared>,
             %bar: !llvm.ptr<3>, %peer: i32) {
  tile.copy_async %s[0, 0] to %d[0, 0] sizes [8, 64] exec thread
      mbar(%bar) remote_cta(%peer)
      : !tile.buffer<256x64xf16, shared> to !tile.buffer<256x64xf16, shared>
  tile.copy_async %s[0, 0] to %d[0, 0] sizes [256, 64] exec thread
      mbar(%bar) remote_cta(%peer)
      : !tile.buffer<256x64xf16, shared> to !tile.buffer<256x64xf16, shared>
  return
}
)mlir";

class EmbeddingTest : public ::testing::Test {
protected:
  void SetUp() override {
    tile::registerBuiltinVariants(tile::dispatch::VariantRegistry::global());
    external::registerExternalVariants();
    context.loadDialect<tile::TileDialect, func::FuncDialect,
                        LLVM::LLVMDialect>();
    // Only the notes the pass attaches, not "see current operation".
    context.printOpOnDiagnostic(false);
  }

  /// Runs select + lower; returns whether both succeeded.
  bool selectAndLower(const std::string &text, std::string &lowered) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    PassManager pm(&context);
    pm.addPass(tile::createTileSelectVariants());
    pm.addPass(tile::createTileLowerVariants());
    bool ok = succeeded(pm.run(*module));
    llvm::raw_string_ostream os(lowered);
    module->print(os);
    return ok;
  }

  /// Runs --tile-select-variants; returns the `variant` of each copy (or "")
  /// and collects diagnostics.
  std::vector<std::string> select(const std::string &text, bool &ok) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    PassManager pm(&context);
    pm.addPass(tile::createTileSelectVariants());
    ok = succeeded(pm.run(*module));
    std::vector<std::string> variants;
    module->walk([&](tile::CopyAsyncOp op) {
      variants.push_back(op.getVariant() ? op.getVariant()->str() : "");
    });
    return variants;
  }

  MLIRContext context;
};

TEST_F(EmbeddingTest, HigherPriorityExternalVariantWins) {
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    messages.push_back(d.str());
    return success();
  });
  bool ok = false;
  std::vector<std::string> variants = select(kCopies, ok);
  ASSERT_TRUE(ok);
  // 8x64 f16 = 1 KiB: the external variant (priority 100) beats dsmem (10).
  // 256x64 f16 = 32 KiB: its predicate rejects it, dsmem is next.
  EXPECT_EQ(variants, (std::vector<std::string>{"fast_small_copy", "dsmem"}));
  EXPECT_TRUE(messages.empty());
}

TEST_F(EmbeddingTest, ForcedExternalVariantIsRejectedByItsPredicate) {
  std::string text = kCopies;
  // Force the external variant on the 32 KiB copy.
  size_t at = text.rfind("mbar(%bar) remote_cta(%peer)");
  text.insert(at + std::string("mbar(%bar) remote_cta(%peer)").size(),
              " {dispatch = \"fast_small_copy\"}");
  std::vector<std::string> errors, notes;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    errors.push_back(d.str());
    for (Diagnostic &note : d.getNotes())
      notes.push_back(note.str());
    return success();
  });
  bool ok = true;
  select(text, ok);
  EXPECT_FALSE(ok);
  ASSERT_EQ(errors.size(), 1u) << errors.back();
  EXPECT_EQ(errors[0], "forced variant 'fast_small_copy' cannot implement "
                       "this tile.copy_async on sm_100a");
  ASSERT_EQ(notes.size(), 1u) << notes[0] << " / " << notes.back();
  EXPECT_EQ(notes[0], "fast_small_copy (priority 100): rejected: "
                      "at_most_1kib — region is 32768 bytes, more than 1024");
}

TEST_F(EmbeddingTest, ExternalEmitterLowersItsOps) {
  std::string lowered;
  ASSERT_TRUE(selectAndLower(kCopies, lowered)) << lowered;
  // The 1 KiB copy became the external library call, the 32 KiB one the
  // builtin dsmem bulk copy; no tile op is left.
  EXPECT_NE(lowered.find("llvm.func @external_small_copy(!llvm.ptr<3>, "
                         "!llvm.ptr<3>, i32)"),
            std::string::npos)
      << lowered;
  EXPECT_NE(lowered.find("llvm.call @external_small_copy("), std::string::npos);
  EXPECT_NE(lowered.find("llvm.mlir.constant(1024 : i32)"), std::string::npos);
  EXPECT_NE(lowered.find("nvvm.cp.async.bulk.shared.cluster.shared.cta"),
            std::string::npos);
  // (The `tile.dispatch` record names the ops in quotes; an op would be
  // printed with its operands.)
  EXPECT_EQ(lowered.find("tile.copy_async %"), std::string::npos)
      << "a tile op survived:\n" << lowered;
}

TEST_F(EmbeddingTest, SelectedVariantWithoutEmitterIsAnError) {
  std::string text = kCopies;
  size_t at = text.find("mbar(%bar) remote_cta(%peer)");
  text.insert(at + std::string("mbar(%bar) remote_cta(%peer)").size(),
              " {dispatch = \"planned_only\"}");
  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    errors.push_back(d.str());
    return success();
  });
  std::string lowered;
  EXPECT_FALSE(selectAndLower(text, lowered));
  ASSERT_EQ(errors.size(), 1u) << errors.back();
  EXPECT_EQ(errors[0], "variant 'planned_only' cannot lower tile.copy_async "
                       "yet: it registers no emitter");
  // Nothing was rewritten.
  EXPECT_NE(lowered.find("tile.copy_async"), std::string::npos);
}

TEST_F(EmbeddingTest, EachOpIsPlannedOncePerPipelineRun) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kCopies, &context);
  ASSERT_TRUE(module);
  auto cache = std::make_shared<tile::dispatch::PlanCache>();
  PassManager pm(&context);
  pm.addPass(tile::createTileSelectVariants({}, cache));
  pm.addPass(tile::createTileLowerVariants({}, cache));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  // Both copies were planned at selection and their plans emitted as is.
  EXPECT_EQ(cache->reused(), 2u);
  EXPECT_EQ(cache->planned(), 0u);
}

TEST_F(EmbeddingTest, AChangedOpIsPlannedAgain) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kCopies, &context);
  ASSERT_TRUE(module);
  auto cache = std::make_shared<tile::dispatch::PlanCache>();
  PassManager select(&context);
  select.addPass(tile::createTileSelectVariants({}, cache));
  ASSERT_TRUE(succeeded(select.run(*module)));
  // Between the passes the second copy changes (a smaller region): its
  // plan from selection no longer describes it.
  tile::CopyAsyncOp second;
  module->walk([&](tile::CopyAsyncOp op) { second = op; });
  second.setSizes({128, 64});
  PassManager lower(&context);
  lower.addPass(tile::createTileLowerVariants({}, cache));
  ASSERT_TRUE(succeeded(lower.run(*module)));
  EXPECT_EQ(cache->reused(), 1u);
  EXPECT_EQ(cache->planned(), 1u);
  // The new plan is the one emitted: 128 rows of 64 f16 = 16 KiB in one
  // contiguous bulk copy.
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("arith.constant 16384 : i32"), std::string::npos)
      << text;
}

TEST(Registry, OrderIsPriorityThenNameAndDuplicatesAreRefused) {
  tile::dispatch::VariantRegistry &r = tile::dispatch::VariantRegistry::global();
  auto make = [](std::string name, int priority) {
    tile::dispatch::Variant v;
    v.opName = "test.op";
    v.family = "cuda";
    v.name = std::move(name);
    v.priority = priority;
    return v;
  };
  EXPECT_TRUE(r.registerVariant(make("b", 5)));
  EXPECT_TRUE(r.registerVariant(make("a", 5)));
  EXPECT_TRUE(r.registerVariant(make("z", 7)));
  EXPECT_FALSE(r.registerVariant(make("a", 9)));
  std::vector<std::string> order;
  for (const tile::dispatch::Variant *v : r.candidates("test.op", "cuda"))
    order.push_back(v->name);
  EXPECT_EQ(order, (std::vector<std::string>{"z", "a", "b"}));
  EXPECT_TRUE(r.candidates("test.op", "rocm").empty());
}

TEST(TargetInfo, ParsesKnownChips) {
  using tile::dispatch::TargetInfo;
  tile::OrReason<TargetInfo> h = TargetInfo::parse("sm_90a");
  ASSERT_TRUE(bool(h));
  EXPECT_EQ(h->sm, 90u);
  EXPECT_TRUE(h->archSpecific);
  EXPECT_EQ(h->info.ptx.min, 80u);
  tile::OrReason<TargetInfo> b = TargetInfo::parse("sm_100");
  ASSERT_TRUE(bool(b));
  EXPECT_EQ(b->sm, 100u);
  EXPECT_FALSE(b->archSpecific);
  tile::OrReason<TargetInfo> f = TargetInfo::parse("sm_100f");
  ASSERT_TRUE(bool(f));
  EXPECT_FALSE(f->archSpecific);
  EXPECT_EQ(f->info.suffix, 'f');
  for (const char *bad : {"gfx90a", "sm_", "sm_9x", "sm_1000a"})
    EXPECT_EQ(TargetInfo::parse(bad).reason().rfind(
                  std::string("unknown chip '") + bad + "'; known chips: sm_80",
                  0),
              0u)
        << bad;
}

} // namespace

//===- DialectTest.cpp - #tile.layout / !tile.buffer from C++ ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <iterator>
#include <random>

using namespace mlir;
using namespace tile;

namespace {

class DialectTest : public ::testing::Test {
protected:
  DialectTest() { context.loadDialect<TileDialect>(); }

  TileLayout parseLayout(StringRef text) {
    Attribute attr = parseAttribute(text, &context);
    auto layout = dyn_cast_or_null<LayoutAttr>(attr);
    EXPECT_TRUE(layout) << text.str();
    return layout ? layout.getLayout() : TileLayout();
  }

  MLIRContext context;
};

TEST_F(DialectTest, LayoutAttrHoldsTheAlgebraValue) {
  EXPECT_EQ(parseLayout("#tile.layout<S[(32,16):(16,1)]>"),
            TileLayout::rowMajor({32, 16}));
  EXPECT_EQ(parseLayout("#tile.layout<S[(32,16):(1@TLane,1@TCol)] + "
                        "R[4:32@TLane]>"),
            *tmemWarpBroadcastLayout(16, 4));
  EXPECT_EQ(parseLayout("#tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>"),
            *nvmmaSharedLayout(16, 8, 256, SwizzleMode::B128));
  TileLayout off = parseLayout("#tile.layout<S[8:1] + 4@TCol + 2>");
  EXPECT_EQ(off.offset(Axis::TCol), 4);
  EXPECT_EQ(off.offset(Axis::m), 2);
}

TEST_F(DialectTest, LayoutAttrPrintsLayoutNotation) {
  LayoutAttr attr = LayoutAttr::get(&context, *tmemWarpBroadcastLayout(16, 4));
  std::string text;
  llvm::raw_string_ostream os(text);
  Attribute(attr).print(os);
  EXPECT_EQ(text, "#tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>");
  // Uniqued: the same layout is the same attribute.
  EXPECT_EQ(attr, parseAttribute(text, &context));
}

TEST_F(DialectTest, BufferTypeEffectiveLayout) {
  auto type = dyn_cast_or_null<BufferType>(
      parseType("!tile.buffer<4x8xf32, shared>", &context));
  ASSERT_TRUE(type);
  EXPECT_EQ(type.getScope(), MemoryScope::shared);
  EXPECT_EQ(type.getElementBits(), 32u);
  EXPECT_EQ(type.getEffectiveLayout(), TileLayout::rowMajor({4, 8}));
  auto dyn = dyn_cast_or_null<BufferType>(
      parseType("!tile.buffer<?x64xf16, global>", &context));
  ASSERT_TRUE(dyn);
  EXPECT_FALSE(dyn.getEffectiveLayout());
  EXPECT_TRUE(dyn.isDynamicDim(0));
}

TEST_F(DialectTest, AllocSharedAlignmentAndBytes) {
  context.loadDialect<func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f() {
      %a = tile.alloc_shared : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
      %b = tile.alloc_shared : !tile.buffer<8x64xf32, shared, #tile.layout<S[(8,64):(64,1)], swizzle<1,2,3>>>
      %c = tile.alloc_shared {alignment = 128 : i64} : !tile.buffer<3x5xf32, shared, #tile.layout<S[(3,5):(8,1)]>>
      %d = tile.alloc_shared : !tile.buffer<64xf4E2M1FN, shared>
      return
    })mlir", &context);
  ASSERT_TRUE(module);
  std::vector<std::pair<int64_t, int64_t>> got;
  module->walk([&](AllocSharedOp op) {
    got.emplace_back(op.getEffectiveAlignment(), op.getAllocationBytes());
  });
  // Default alignment is one swizzle atom (8 rows of 128 / 32 bytes), and
  // at least 128 bytes (where TMA boxes start) for an unswizzled tile;
  // bytes are the memory cosize: 2048 f16, 512 f32, a padded 3x8 f32 tile
  // whose last row ends at element 21, and 64 fp4 = 32 bytes.
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int64_t>>{
                     {1024, 4096}, {256, 2048}, {128, 84}, {128, 32}}));
}

TEST_F(DialectTest, BadBufferIsADiagnosticNotACrash) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  Type t = parseType("!tile.buffer<4x8xf32, tmem>", &context);
  EXPECT_FALSE(t);
  EXPECT_EQ(message,
            "a tmem buffer needs a layout placing its elements on TLane/TCol");
  BufferType checked = BufferType::getChecked(
      [&] { return emitError(UnknownLoc::get(&context)); }, &context,
      ArrayRef<int64_t>{0}, Type(Float32Type::get(&context)), MemoryScope::shared,
      LayoutAttr());
  EXPECT_FALSE(checked);
  EXPECT_EQ(message, "dim 0 has extent 0; extents must be positive");
}

} // namespace

namespace {

/// Mutation fuzzing of the layout parser: every mutated text either fails
/// with a diagnostic or parses to an attribute that prints and re-parses to
/// itself. A crash (or an ASan/UBSan report in the sanitizer build) fails.
TEST(LayoutParserFuzz, MutationsDiagnoseOrRoundTrip) {
  MLIRContext context;
  context.loadDialect<TileDialect>();
  int diagnostics = 0;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &) {
    ++diagnostics;
    return success();
  });
  const char *seeds[] = {
      "S[(32,16):(16,1)]",
      "S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]",
      "S[(8,4,64):(64,512,1)], swizzle<3,3,3>",
      "S[8:1] + 4@TCol + 2",
      "S[(4,8,2):(1@warpid,4@laneid,1)] + R[(2,4):(1@tid_in_wg,8@wid_in_wg)]",
  };
  const std::string alphabet[] = {
      "S", "R", "[", "]", "(", ")", ":", ",", "@", "+", "<", ">", "-", "0",
      "1", "7", "64", "4294967297", "99999999999999999999", "TLane", "TCol",
      "m", "cta", "swizzle", " ", "@bogus", "1099511627776"};
  std::mt19937 rng(7);
  int parsed = 0, rejected = 0;
  for (int n = 0; n < 4000; ++n) {
    std::string text = seeds[rng() % std::size(seeds)];
    int edits = 1 + rng() % 3;
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (text.size() + 1);
      const std::string &piece = alphabet[rng() % std::size(alphabet)];
      switch (rng() % 3) {
      case 0:
        text.insert(pos, piece);
        break;
      case 1:
        if (pos < text.size())
          text.erase(pos, 1 + rng() % 3);
        break;
      default:
        if (pos < text.size())
          text.replace(pos, 1, piece);
      }
    }
    std::string full = "#tile.layout<" + text + ">";
    Attribute attr = parseAttribute(full, &context);
    if (!attr) {
      ++rejected;
      continue;
    }
    ++parsed;
    auto layout = dyn_cast<LayoutAttr>(attr);
    ASSERT_TRUE(layout) << full;
    EXPECT_EQ(layout.getLayout().validate(), "") << full;
    std::string printed;
    llvm::raw_string_ostream os(printed);
    attr.print(os);
    EXPECT_EQ(parseAttribute(printed, &context), attr) << full << " printed as "
                                                       << printed;
  }
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 1000);
  EXPECT_GE(diagnostics, rejected);
  std::printf("layout fuzz: %d parsed and round-tripped, %d rejected\n",
              parsed, rejected);
}

} // namespace

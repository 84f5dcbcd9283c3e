//===- LoweringCheckTest.cpp - the translation validation catches broken emitters ===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each test lowers an example with --tile-lower-variants=check and, through
// the pass's test hook, changes one thing the emitter produced before the
// check reads it back -- what a broken emitter would have emitted -- and
// expects the error on the tile op naming the first wrong element. The
// unchanged lowering passes the check.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Registration/Registration.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

using Mutation = std::function<void(Operation *, SmallVectorImpl<Operation *> &)>;

class LoweringCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    tile::registerBuiltinVariants(tile::dispatch::VariantRegistry::global());
    DialectRegistry registry;
    tile::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  /// Lowers examples/`name` (or `name` itself, when it is MLIR source) with
  /// the check on, `mutate` applied to each op's emitted ops; the errors,
  /// empty when the check passed.
  std::string lower(const std::string &name, Mutation mutate) {
    std::string errors;
    warnings.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        errors += d.str() + "\n";
      if (d.getSeverity() == DiagnosticSeverity::Warning)
        warnings += d.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module =
        name.find('{') != std::string::npos
            ? parseSourceString<ModuleOp>(name, &context)
            : parseSourceFile<ModuleOp>(
                  std::string(TILE_EXAMPLES_DIR) + "/" + name, &context);
    EXPECT_TRUE(module) << name;
    if (!module)
      return "parse error";
    PassManager pm(&context);
    pm.addPass(tile::createTileSelectVariants());
    pm.addPass(tile::createTileAssignSharedOffsets());
    tile::TileLowerVariantsOptions options;
    options.check = true;
    pm.addPass(tile::createTileLowerVariants(options, nullptr, mutate));
    bool ok = succeeded(pm.run(*module));
    EXPECT_EQ(ok, errors.empty()) << errors;
    return errors;
  }

  MLIRContext context;
  /// The warnings of the last lower().
  std::string warnings;
};

/// Every op of type T among the emitted ops and inside them.
template <typename T>
SmallVector<T> emittedOps(ArrayRef<Operation *> emitted) {
  SmallVector<T> out;
  for (Operation *op : emitted)
    op->walk([&](T t) { out.push_back(t); });
  return out;
}

/// The register-A wgmma inline PTX among the emitted ops (not the empty
/// statements that pin registers before the fence).
SmallVector<LLVM::InlineAsmOp> registerAMmas(ArrayRef<Operation *> emitted) {
  SmallVector<LLVM::InlineAsmOp> out;
  for (LLVM::InlineAsmOp op : emittedOps<LLVM::InlineAsmOp>(emitted))
    if (op.getAsmString().contains("wgmma."))
      out.push_back(op);
  return out;
}

/// Replaces `gep`'s dynamic index i by `OpT(i, delta)` (an add or xor of a
/// constant of i's type), the new ops recorded in `ops` before `gep`: the
/// check reads the emitted ops in program order.
template <typename OpT>
void moveDynamicIndex(LLVM::GEPOp gep, int64_t delta,
                      SmallVectorImpl<Operation *> &ops) {
  OpBuilder b(gep);
  Value index = gep.getDynamicIndices()[0];
  Value constant = LLVM::ConstantOp::create(
      b, gep.getLoc(), index.getType(),
      b.getIntegerAttr(index.getType(), delta));
  Value moved = OpT::create(b, gep.getLoc(), index, constant);
  gep.getDynamicIndicesMutable().assign(moved);
  ops.insert(llvm::find(ops, gep.getOperation()),
             {constant.getDefiningOp(), moved.getDefiningOp()});
}

/// `value`'s constant changed by `delta` (the constant an emitter built).
void bump(Value value, int64_t delta) {
  auto cst = value.getDefiningOp<arith::ConstantOp>();
  ASSERT_TRUE(cst) << "not a constant";
  auto attr = cast<IntegerAttr>(cst.getValue());
  cst.setValueAttr(IntegerAttr::get(attr.getType(), attr.getInt() + delta));
}

/// The constant part of a descriptor `base | template (+ start)`.
Value descriptorTemplate(Value descriptor) {
  if (auto add = descriptor.getDefiningOp<arith::AddIOp>())
    descriptor = add.getLhs();
  auto orOp = descriptor.getDefiningOp<arith::OrIOp>();
  return orOp ? orOp.getRhs() : Value();
}

Mutation none() {
  return [](Operation *, SmallVectorImpl<Operation *> &) {};
}

TEST_F(LoweringCheckTest, CorrectEmittersPass) {
  for (const char *example : {"tma_copy.mlir", "tma_tile_copy.mlir",
                              "dsmem_copy.mlir", "smem_to_tmem.mlir",
                              "gemm_async.mlir", "gemm_block_scaled.mlir",
                              "tmem_accumulate_init.mlir"})
    EXPECT_EQ(lower(example, none()), "") << example;
}

// tma: the load's row coordinate one further.
TEST_F(LoweringCheckTest, CatchesTmaCoordinate) {
  std::string errors = lower("tma_copy.mlir", [](Operation *,
                                                  SmallVectorImpl<Operation *> &ops) {
    for (auto load :
         emittedOps<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(ops))
      bump(load.getCoordinates()[1], 1);
  });
  EXPECT_EQ(errors,
            "lowering check (tma): element (0, 0) byte 0 (global byte 0) is moved by no tensor copy\n");
}

// dsmem: a bulk copy 16 bytes short.
TEST_F(LoweringCheckTest, CatchesDsmemCopySize) {
  std::string errors = lower("dsmem_copy.mlir", [](Operation *,
                                                    SmallVectorImpl<Operation *> &ops) {
    for (auto copy :
         emittedOps<NVVM::CpAsyncBulkSharedCTAToSharedClusterOp>(ops))
      bump(copy.getSize(), -16);
  });
  EXPECT_EQ(errors,
            "lowering check (dsmem): element (127, 56) byte 0: no bulk copy writes "
            "destination byte 20464, where the layout puts it\n");
}

// tcgen05_cp: the descriptor template's SBO 16 bytes larger.
TEST_F(LoweringCheckTest, CatchesTcgen05CpDescriptorTemplate) {
  std::string errors = lower("smem_to_tmem.mlir", [](Operation *,
                                                      SmallVectorImpl<Operation *> &ops) {
    for (auto cp : emittedOps<NVVM::Tcgen05CpOp>(ops))
      bump(descriptorTemplate(cp.getSmemDesc()), int64_t(1) << 32);
  });
  EXPECT_EQ(errors,
            "lowering check (tcgen05_cp): element (8, 0): tensor-memory lane 8, "
            "column byte 0 should receive shared byte 4224 (the shared layout); "
            "tcgen05.cp 1 of 1 delivers shared byte 4240\n");
}

// tcgen05_cp: a descriptor that is not a compile-time value.
TEST_F(LoweringCheckTest, RefusesUnreadableDescriptor) {
  std::string errors = lower("smem_to_tmem.mlir", [](Operation *,
                                                      SmallVectorImpl<Operation *> &ops) {
    for (auto cp : emittedOps<NVVM::Tcgen05CpOp>(ops)) {
      OpBuilder b(cp);
      Value poison = LLVM::PoisonOp::create(b, cp.getLoc(), b.getI64Type());
      cp->setOperand(1, poison);
    }
  });
  EXPECT_EQ(errors,
            "lowering check (tcgen05_cp): the shared-memory descriptor of "
            "'nvvm.tcgen05.cp' is not a compile-time value (it comes from "
            "'llvm.mlir.poison')\n");
}

// tcgen05: the second MMA's A start 16 bytes further.
TEST_F(LoweringCheckTest, CatchesTcgen05MmaIssueOffset) {
  std::string errors = lower("gemm_async.mlir", [](Operation *,
                                                    SmallVectorImpl<Operation *> &ops) {
    auto mmas = emittedOps<NVVM::Tcgen05MMAOp>(ops);
    if (mmas.size() > 1)
      bump(mmas[1].getMatrixA().getDefiningOp<arith::AddIOp>().getRhs(), 1);
  });
  EXPECT_EQ(errors,
            "lowering check (tcgen05): tcgen05.mma 2 of 4 (tile 0, 0, K step 1) "
            "multiplies A(0, 16): the layout has it at shared byte 4128, the "
            "instruction reads shared byte 4144\n");
}

// tcgen05: the instruction descriptor's N field 8 larger.
TEST_F(LoweringCheckTest, CatchesTcgen05MmaIdescN) {
  std::string errors = lower("gemm_async.mlir", [](Operation *,
                                                    SmallVectorImpl<Operation *> &ops) {
    auto mmas = emittedOps<NVVM::Tcgen05MMAOp>(ops);
    if (!mmas.empty())
      bump(mmas[0].getIdesc(), int64_t(1) << 17);
  });
  EXPECT_EQ(errors,
            "lowering check (tcgen05): tcgen05.mma 1 of 4: the instruction shape "
            "128x136x16 does not tile the op's [128, 128, 64]\n");
}

// tcgen05: the accumulator one tensor-memory column further (the emitter
// adds an offset where it adds none).
TEST_F(LoweringCheckTest, CatchesTcgen05MmaTmemColumn) {
  std::string errors = lower("gemm_async.mlir", [](Operation *,
                                                    SmallVectorImpl<Operation *> &ops) {
    auto mmas = emittedOps<NVVM::Tcgen05MMAOp>(ops);
    if (mmas.empty())
      return;
    NVVM::Tcgen05MMAOp mma = mmas[0];
    auto toPtr = mma.getMatrixD().getDefiningOp<LLVM::IntToPtrOp>();
    OpBuilder b(mma);
    Location loc = mma.getLoc();
    auto one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
    auto moved = arith::AddIOp::create(b, loc, toPtr.getArg(), one);
    auto ptr = LLVM::IntToPtrOp::create(b, loc, toPtr.getType(),
                                        moved.getResult());
    mma->setOperand(0, ptr);
    // Emitted at the top level: list the new ops before the MMA.
    auto at = llvm::find(ops, mma.getOperation());
    if (at != ops.end())
      ops.insert(at, {one.getOperation(), moved.getOperation(),
                      ptr.getOperation()});
  });
  EXPECT_EQ(errors,
            "lowering check (tcgen05): tcgen05.mma 1 of 4 accumulates its D(0, 0) "
            "in tensor-memory lane 0, column 257, where C's layout has C(0, 1), "
            "not the first element of a 128x128 output tile\n");
}

// A 64x64x32 f16 wgmma with A in registers: two inline-PTX MMAs.
const char *kRegisterA = R"mlir(
!ra = !tile.buffer<64x32xf16, local, #tile.layout<S[(4,2,8,4,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bk = !tile.buffer<64x32xf16, shared, #tile.layout<S[(64,32):(32,1)], swizzle<2,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %b = tile.alloc_shared : !bk
    %a = tile.alloc_local : !ra
    %acc = tile.alloc_local : !acc
    tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 32] exec warpgroup {transpose_b} : !acc, !ra, !bk
    gpu.return
  }
}
)mlir";

TEST_F(LoweringCheckTest, RegisterAWgmmaPasses) {
  EXPECT_EQ(lower(kRegisterA, none()), "");
}

// wgmma register A: an A register rewritten between the fence and the MMA.
TEST_F(LoweringCheckTest, CatchesRegisterAWrittenAfterFence) {
  std::string errors = lower(kRegisterA, [](Operation *,
                                            SmallVectorImpl<Operation *> &ops) {
    auto mmas = registerAMmas(ops);
    if (mmas.size() < 2)
      return; // nothing to corrupt: the expectation below then fails
    LLVM::InlineAsmOp mma = mmas[1];
    OpBuilder b(mma);
    auto copy = LLVM::BitcastOp::create(b, mma.getLoc(), b.getI32Type(),
                                        mma->getOperand(0));
    mma->setOperand(0, copy);
    ops.insert(llvm::find(ops, mma.getOperation()), copy.getOperation());
  });
  EXPECT_EQ(errors, "lowering check (wgmma): MMA 1's A register is written "
                    "after the wgmma fence by 'llvm.bitcast'\n");
}

// wgmma register A: the accumulators not tied to the outputs (read from
// other registers than the MMA writes).
TEST_F(LoweringCheckTest, CatchesUntiedRegisterAAccumulators) {
  std::string errors = lower(kRegisterA, [](Operation *,
                                            SmallVectorImpl<Operation *> &ops) {
    for (LLVM::InlineAsmOp mma : registerAMmas(ops)) {
      std::string c = mma.getConstraints().str();
      c.replace(c.find(",0,1,"), 5, ",f,1,");
      mma.setConstraints(c);
    }
  });
  EXPECT_NE(errors.find("lowering check (wgmma): register-A wgmma inline PTX "
                        "constraints '=f,"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("the accumulators tied to the outputs"),
            std::string::npos);
}

// A 64x64x64 e4m3 wgmma with A in registers: two k32 inline-PTX MMAs,
// four fp8 elements in each A register.
const char *kRegisterAFp8 = R"mlir(
!ra = !tile.buffer<64x64xf8E4M3FN, local, #tile.layout<S[(4,2,8,2,2,4,4):(32@tid_in_wg,4,4@tid_in_wg,16,8,1@tid_in_wg,1)]>>
!bk = !tile.buffer<64x64xf8E4M3FN, shared, #tile.layout<S[(64,64):(64,1)], swizzle<2,4,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %b = tile.alloc_shared : !bk
    %a = tile.alloc_local : !ra
    %acc = tile.alloc_local : !acc
    tile.gemm_async %acc[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !acc, !ra, !bk
    gpu.return
  }
}
)mlir";

TEST_F(LoweringCheckTest, RegisterAFp8WgmmaPasses) {
  EXPECT_EQ(lower(kRegisterAFp8, none()), "");
}

// fp8 has no imm-trans-b: an inline PTX that passes one is caught.
TEST_F(LoweringCheckTest, CatchesImmTransBOnFp8RegisterA) {
  std::string errors = lower(kRegisterAFp8, [](Operation *,
                                               SmallVectorImpl<Operation *> &ops) {
    for (LLVM::InlineAsmOp mma : registerAMmas(ops)) {
      std::string text = mma.getAsmString().str();
      text.replace(text.find(", p, 1, 1;"), 10, ", p, 1, 1, 0;");
      mma.setAsmString(text);
    }
  });
  EXPECT_NE(errors.find("lowering check (wgmma): register-A wgmma inline PTX "),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("does not end in scale-d, 1, 1 (no imm-trans-b for "
                        "e4m3)"),
            std::string::npos)
      << errors;
}

// Register tiles: an attention step's map / reduce / convert, and the
// epilogue store through stmatrix and the vector stores of a global row.
TEST_F(LoweringCheckTest, AttentionStepPasses) {
  EXPECT_EQ(lower("attention_step.mlir", none()), "");
}

// tile.reduce: one butterfly by the wrong lane offset.
TEST_F(LoweringCheckTest, CatchesReduceButterflyOffset) {
  std::string errors = lower("attention_step.mlir", [](Operation *op,
                                                        SmallVectorImpl<Operation *> &ops) {
    if (!isa<tile::ReduceOp>(op))
      return;
    auto shuffles = emittedOps<NVVM::ShflOp>(ops);
    ASSERT_FALSE(shuffles.empty());
    OpBuilder b(shuffles.front());
    shuffles.front().getOffsetMutable().assign(LLVM::ConstantOp::create(
        b, shuffles.front().getLoc(), b.getI32Type(), b.getI32IntegerAttr(8)));
  });
  EXPECT_NE(errors.find("lowering check (warp_shuffle): output element"),
            std::string::npos)
      << errors;
}

// tile.reduce: a max where the row sum adds.
TEST_F(LoweringCheckTest, CatchesReduceCombineKind) {
  std::string errors = lower("attention_step.mlir", [](Operation *op,
                                                        SmallVectorImpl<Operation *> &ops) {
    auto reduce = dyn_cast<tile::ReduceOp>(op);
    if (!reduce || reduce.getKind() != tile::ReduceKind::add)
      return;
    auto adds = emittedOps<LLVM::FAddOp>(ops);
    ASSERT_FALSE(adds.empty());
    OpBuilder b(adds.front());
    Value max = LLVM::MaxNumOp::create(b, adds.front().getLoc(),
                                       adds.front().getLhs(),
                                       adds.front().getRhs());
    adds.front().getResult().replaceAllUsesWith(max);
  });
  EXPECT_NE(errors.find("nor the reduction's combine ('llvm.intr.maxnum')"),
            std::string::npos)
      << errors;
}

// tile.map: the broadcast row maximum read from the other row's register.
TEST_F(LoweringCheckTest, CatchesMapInputRegister) {
  std::string errors = lower("attention_step.mlir", [](Operation *op,
                                                        SmallVectorImpl<Operation *> &ops) {
    auto map = dyn_cast<tile::MapOp>(op);
    if (!map || map.getInputs().size() != 2 ||
        map.getInputs()[1].getType() == map.getInputs()[0].getType())
      return;
    // The row tile is the one of two registers a thread.
    for (auto gep : emittedOps<LLVM::GEPOp>(ops)) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(gep.getElemType());
      if (!array || array.getNumElements() != 2)
        continue;
      ArrayRef<int32_t> raw = gep.getRawConstantIndices();
      gep.setRawConstantIndices({raw[0], 1 - raw[1]});
      return;
    }
  });
  EXPECT_NE(errors.find("lowering check (registers): output register 0 of "
                        "thread 0 reads input 1 elsewhere"),
            std::string::npos)
      << errors;
}

// tile.convert: two registers of a packed cvt swapped.
TEST_F(LoweringCheckTest, CatchesConvertPairOrder) {
  std::string errors = lower("attention_step.mlir", [](Operation *op,
                                                        SmallVectorImpl<Operation *> &ops) {
    if (!isa<tile::ConvertOp>(op))
      return;
    auto cvt = emittedOps<NVVM::ConvertF32x2ToBF16x2Op>(ops);
    ASSERT_FALSE(cvt.empty());
    Value hi = cvt.front().getSrcHi(), lo = cvt.front().getSrcLo();
    cvt.front().getSrcHiMutable().assign(lo);
    cvt.front().getSrcLoMutable().assign(hi);
  });
  EXPECT_NE(errors.find("lowering check (registers): result register 0 of "
                        "thread 0"),
            std::string::npos)
      << errors;
}

// tile.store (vector): one element stored one column further.
TEST_F(LoweringCheckTest, CatchesVectorStoreAddress) {
  std::string errors = lower("attention_step.mlir", [](Operation *op,
                                                        SmallVectorImpl<Operation *> &ops) {
    auto store = dyn_cast<tile::StoreOp>(op);
    if (!store || store.getDst().getType().getShape()[1] != 1)
      return; // the LSE row
    for (auto gep : emittedOps<LLVM::GEPOp>(ops)) {
      if (gep.getRawConstantIndices().size() != 1 ||
          gep.getDynamicIndices().empty())
        continue;
      moveDynamicIndex<LLVM::AddOp>(gep, 1, ops);
      return;
    }
  });
  EXPECT_NE(errors.find("lowering check (vector): thread 0's register 0 is "
                        "accessed at byte"),
            std::string::npos)
      << errors;
}

} // namespace

namespace {

/// A column sum of a wgmma accumulator in two warpgroups: its rows span
/// the warps, so it goes through the shared scratch.
constexpr const char *kColumnSum = R"mlir(
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!cols = !tile.buffer<1x16xf32, local, #tile.layout<S[(1,2,4,2):(0,2,1@tid_in_wg,1)] + R[32:4@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @column_sum() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %s = tile.alloc_local : !acc
    %c = tile.alloc_local : !cols
    tile.reduce <add> %s dims [0] into %c : !acc into !cols
    gpu.return
  }
}
)mlir";

TEST_F(LoweringCheckTest, ReduceAcrossWarpsPasses) {
  EXPECT_EQ(lower(kColumnSum, none()), "");
}

// Without the first barrier, warps would read partials not yet written.
TEST_F(LoweringCheckTest, CatchesReduceAcrossWarpsMissingBarrier) {
  std::string errors = lower(kColumnSum, [](Operation *op,
                                            SmallVectorImpl<Operation *> &ops) {
    auto barriers = emittedOps<NVVM::BarrierOp>(ops);
    ASSERT_EQ(barriers.size(), 2u);
    // The check reads only `ops`; erasing the op behind the conversion
    // driver's back would leave it a dangling pointer.
    ops.erase(llvm::find(ops, barriers.front().getOperation()));
  });
  EXPECT_NE(errors.find("lowering check (shared_memory): a scratch read "
                        "outside the two barriers"),
            std::string::npos)
      << errors;
}

// Every lane writing: the lanes of a row collide on its warp's word.
TEST_F(LoweringCheckTest, CatchesReduceAcrossWarpsEveryLaneWriting) {
  std::string errors = lower(kColumnSum, [](Operation *op,
                                            SmallVectorImpl<Operation *> &ops) {
    auto writers = emittedOps<scf::IfOp>(ops);
    ASSERT_EQ(writers.size(), 1u);
    OpBuilder b(writers.front());
    Value all = LLVM::ConstantOp::create(b, writers.front().getLoc(),
                                         b.getI1Type(), b.getBoolAttr(true));
    writers.front().getConditionMutable().assign(all);
    ops.insert(llvm::find(ops, writers.front().getOperation()),
               all.getDefiningOp());
  });
  EXPECT_NE(errors.find("is written by threads"), std::string::npos) << errors;
}

// A read of the wrong warp's word: one partial counted twice.
TEST_F(LoweringCheckTest, CatchesReduceAcrossWarpsWrongWord) {
  std::string errors = lower(kColumnSum, [](Operation *op,
                                            SmallVectorImpl<Operation *> &ops) {
    for (auto load : emittedOps<LLVM::LoadOp>(ops)) {
      auto gep = load.getAddr().getDefiningOp<LLVM::GEPOp>();
      if (!gep || gep.getDynamicIndices().empty())
        continue;
      moveDynamicIndex<LLVM::XOrOp>(gep, 4, ops);
      return;
    }
  });
  EXPECT_NE(errors.find("lowering check (shared_memory): output element "
                        "(0,0) of thread 0 combines input (16,0) twice"),
            std::string::npos)
      << errors;
}

constexpr const char *kAccumulatorToRows = R"mlir(
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rowt = !tile.buffer<64x16xbf16, local, #tile.layout<S[(64,16):(1@tid_in_wg,1)] + R[2:64@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @to_rows() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %s = tile.alloc_local : !acc
    %t = tile.alloc_local : !rowt
    tile.convert %s to %t : !acc to !rowt
    tile.convert %t to %s : !rowt to !acc
    gpu.return
  }
}
)mlir";

TEST_F(LoweringCheckTest, ConvertThroughSharedPasses) {
  EXPECT_EQ(lower(kAccumulatorToRows, none()), "");
}

// The replicas of the row layout writing too: two threads per element.
TEST_F(LoweringCheckTest, CatchesConvertThroughSharedReplicaWriting) {
  std::string errors =
      lower(kAccumulatorToRows, [](Operation *op,
                                   SmallVectorImpl<Operation *> &ops) {
        auto convert = dyn_cast<tile::ConvertOp>(op);
        if (!convert || convert.getSource().getType().getShape()[1] != 16 ||
            !convert.getResult().getType().getElementType().isF32())
          return;
        auto writers = emittedOps<scf::IfOp>(ops);
        ASSERT_EQ(writers.size(), 1u);
        OpBuilder b(writers.front());
        Value all = LLVM::ConstantOp::create(b, writers.front().getLoc(),
                                             b.getI1Type(), b.getBoolAttr(true));
        writers.front().getConditionMutable().assign(all);
        ops.insert(llvm::find(ops, writers.front().getOperation()),
                   all.getDefiningOp());
      });
  EXPECT_NE(errors.find("lowering check (shared_memory): scratch byte 0 is "
                        "written by threads 0 and 64"),
            std::string::npos)
      << errors;
}

// A result register read from its neighbour's element.
TEST_F(LoweringCheckTest, CatchesConvertThroughSharedWrongElement) {
  std::string errors =
      lower(kAccumulatorToRows, [](Operation *op,
                                   SmallVectorImpl<Operation *> &ops) {
        if (!isa<tile::ConvertOp>(op))
          return;
        for (auto load : emittedOps<LLVM::LoadOp>(ops)) {
          auto gep = load.getAddr().getDefiningOp<LLVM::GEPOp>();
          if (!gep || gep.getDynamicIndices().empty())
            continue;
          moveDynamicIndex<LLVM::AddOp>(gep, 4, ops);
          return;
        }
      });
  EXPECT_NE(errors.find("lowering check (shared_memory): result register 0 of "
                        "thread 0 (element (0,0)) reads what thread 0 wrote, "
                        "not its source register holding that element"),
            std::string::npos)
      << errors;
}

constexpr const char *kLdMatrixLoad = R"mlir(
!a = !tile.buffer<64x16xbf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!sa = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc_shared : !sa
    %r = tile.alloc_local : !a
    tile.load %s[0, 0] to %r : !sa to !a
    gpu.return
  }
}
)mlir";

TEST_F(LoweringCheckTest, LdMatrixLoadPasses) {
  EXPECT_EQ(lower(kLdMatrixLoad, none()), "");
}

// ldmatrix.trans where the plan said row-major: every fragment transposed.
TEST_F(LoweringCheckTest, CatchesLdMatrixTransposed) {
  std::string errors = lower(kLdMatrixLoad, [](Operation *op,
                                               SmallVectorImpl<Operation *> &ops) {
    auto loads = emittedOps<NVVM::LdMatrixOp>(ops);
    ASSERT_FALSE(loads.empty());
    loads.front().setLayout(NVVM::MMALayout::col);
  });
  EXPECT_NE(errors.find("lowering check (ldmatrix): thread 0"),
            std::string::npos)
      << errors;
}

// A variant registered without a check (as another compiler may): under
// the check its output is lowered with a warning naming it, not refused.
TEST_F(LoweringCheckTest, VariantWithoutCheckIsAWarning) {
  tile::dispatch::Variant unchecked;
  unchecked.opName = "tile.reduce";
  unchecked.family = "cuda";
  unchecked.name = "unchecked_for_test";
  unchecked.priority = -100; // never chosen unless named
  unchecked.emit = [](Operation *, const tile::dispatch::AnyPlan &,
                      ValueRange, const tile::dispatch::DispatchContext &,
                      RewriterBase &) { return success(); };
  tile::dispatch::VariantRegistry::global().registerVariant(unchecked);
  EXPECT_EQ(lower(R"mlir(
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %s = tile.alloc_local : !acc
    %m = tile.alloc_local : !rows
    tile.reduce <max> %s dims [1] into %m {dispatch = "unchecked_for_test"} : !acc into !rows
    gpu.return
  }
}
)mlir",
                  none()),
            "");
  EXPECT_NE(warnings.find("variant 'unchecked_for_test' registers no check "
                          "of its emitted IR"),
            std::string::npos)
      << warnings;
}

// Every scratch write moved one warpgroup region further: the last
// warpgroup's writes fall outside the bytes reserved for the op.
TEST_F(LoweringCheckTest, CatchesReduceAcrossWarpsWriteOutsideScratch) {
  std::string errors = lower(kColumnSum, [](Operation *op,
                                            SmallVectorImpl<Operation *> &ops) {
    auto writers = emittedOps<scf::IfOp>(ops);
    ASSERT_EQ(writers.size(), 1u);
    for (Operation &inner : writers.front().getThenRegion().front()) {
      auto store = dyn_cast<LLVM::StoreOp>(inner);
      if (!store)
        continue;
      auto gep = store.getAddr().getDefiningOp<LLVM::GEPOp>();
      ASSERT_TRUE(gep && !gep.getDynamicIndices().empty());
      // 16 outputs x 4 warps x 4 bytes: one warpgroup's region.
      moveDynamicIndex<LLVM::AddOp>(gep, 256, ops);
    }
  });
  EXPECT_NE(errors.find("outside the 512 bytes reserved for the op"),
            std::string::npos)
      << errors;
}

// An ldmatrix row address 2 bytes off its 16-byte row.
TEST_F(LoweringCheckTest, CatchesLdMatrixMisalignedRow) {
  std::string errors = lower(kLdMatrixLoad, [](Operation *op,
                                               SmallVectorImpl<Operation *> &ops) {
    auto loads = emittedOps<NVVM::LdMatrixOp>(ops);
    ASSERT_FALSE(loads.empty());
    OpBuilder b(loads.front());
    Location loc = loads.front().getLoc();
    Value moved = LLVM::GEPOp::create(
        b, loc, loads.front().getPtr().getType(), b.getI8Type(),
        loads.front().getPtr(), ArrayRef<LLVM::GEPArg>{2});
    loads.front().getPtrMutable().assign(moved);
    ops.insert(llvm::find(ops, loads.front().getOperation()),
               moved.getDefiningOp());
  });
  EXPECT_NE(errors.find("lowering check (ldmatrix): lane 0 supplies an "
                        "ldmatrix row address that is not 16-byte aligned"),
            std::string::npos)
      << errors;
}

} // namespace

// O = O·alpha where the row's guard holds: one branch per guard register.
constexpr const char *kGuardedMap = R"(
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
!grew = !tile.buffer<64x1xi1, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
func.func @rescale() {
  %o = tile.alloc_local : !acc
  %alpha = tile.alloc_local : !rows
  %grew = tile.alloc_local : !grew
  tile.map ins(%o, %alpha : !acc, !rows) outs(%o : !acc) where(%grew : !grew) {
  ^bb0(%x: f32, %a: f32, %i: index, %j: index):
    %r = arith.mulf %x, %a : f32
    tile.yield %r : f32
  }
  return
}
)";

TEST_F(LoweringCheckTest, GuardedMapPasses) {
  EXPECT_EQ(lower(kGuardedMap, none()), "");
}

// The two rows' branches on each other's guard.
TEST_F(LoweringCheckTest, CatchesGuardedMapOtherRowsGuard) {
  std::string errors = lower(kGuardedMap, [](Operation *op,
                                             SmallVectorImpl<Operation *> &ops) {
    if (!isa<tile::MapOp>(op))
      return;
    auto branches = emittedOps<scf::IfOp>(ops);
    ASSERT_EQ(branches.size(), 2u);
    Value first = branches[0].getCondition();
    branches[0].getConditionMutable().assign(branches[1].getCondition());
    branches[1].getConditionMutable().assign(first);
  });
  EXPECT_NE(errors.find("output register 0 of thread 0 is stored under a "
                        "condition other than the register holding its "
                        "guard (0,0)"),
            std::string::npos)
      << errors;
}

// The guard ignored: the first branch's body run unconditionally (moved
// before it; the branch, now empty, stays: the conversion owns it).
TEST_F(LoweringCheckTest, CatchesGuardedMapStoreOutsideItsBranch) {
  std::string errors = lower(kGuardedMap, [](Operation *op,
                                             SmallVectorImpl<Operation *> &ops) {
    if (!isa<tile::MapOp>(op))
      return;
    auto branches = emittedOps<scf::IfOp>(ops);
    ASSERT_EQ(branches.size(), 2u);
    scf::IfOp branch = branches[0];
    SmallVector<Operation *> body;
    for (Operation &inner : branch.thenBlock()->without_terminator())
      body.push_back(&inner);
    for (Operation *inner : body)
      inner->moveBefore(branch);
    ops.insert(llvm::find(ops, branch.getOperation()), body.begin(),
               body.end());
  });
  EXPECT_NE(errors.find("a register of the result is stored outside the "
                        "branch of its guard"),
            std::string::npos)
      << errors;
}

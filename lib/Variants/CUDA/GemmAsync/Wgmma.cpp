//===- Wgmma.cpp - the wgmma gemm_async variant -----------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// gemm_async through Hopper's `wgmma.mma_async` (sm_90a): a warpgroup
// multiplies shared-memory A and B into a register tile C (a `local`
// buffer with the accumulator fragment layout). The whole variant is
// declared here: the predicates, the op -> wgmma::Request for the pure
// planner (WgmmaPlanner.cpp) and the emitter.
//
// Emission, per op: every output tile's accumulator registers are loaded
// from C's alloca into an !llvm.struct (selected against zero first when
// `accumulate(%p)` decides at run time), then one `nvvm.wgmma.fence.aligned`,
// then the `nvvm.wgmma.mma_async` chain (each K step consumes the previous
// result), then the results are written back to the alloca. After LLVM
// promotes the alloca, the loads and stores vanish: the registers are
// written before the fence and read only by the next MMA of the chain or
// by whatever the program does after its `tile.wait_group wgmma`. The
// emitter neither commits nor waits (`tile.commit_group wgmma`,
// `tile.wait_group wgmma, N` are the program's).
//
//===----------------------------------------------------------------------===//

#include "../CopyAsync/Predicates.h"
#include "../TargetPredicate.h"
#include "../Tcgen05Emit.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/GemmAsync/WgmmaPlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ScopedPrinter.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using cuda::MmaAccumulator;
using cuda::MmaElement;
using copy_async::RegionSide;

namespace {

std::optional<MmaElement> wgmmaElementOf(Type t) {
  if (t.isF16()) return MmaElement::F16;
  if (t.isBF16()) return MmaElement::BF16;
  if (t.isF32() || t.isTF32()) return MmaElement::TF32;
  if (isa<Float8E4M3FNType>(t)) return MmaElement::E4M3;
  if (isa<Float8E5M2Type>(t)) return MmaElement::E5M2;
  return std::nullopt;
}

std::optional<MmaAccumulator> wgmmaAccumulatorOf(Type t) {
  if (t.isF32()) return MmaAccumulator::F32;
  if (t.isF16()) return MmaAccumulator::F16;
  return std::nullopt;
}

/// The element-type problem of `op`, or "".
std::string elementTypeProblem(GemmAsyncOp op) {
  for (auto [value, name] : {std::pair{op.getA(), "A"}, {op.getB(), "B"}}) {
    Type t = cast<BufferType>(value.getType()).getElementType();
    if (!wgmmaElementOf(t))
      return std::string(name) + " elements are " + llvm::to_string(t) +
             "; wgmma takes f16, bf16, tf32 (f32) and fp8 (e4m3, e5m2)";
  }
  Type c = op.getC().getType().getElementType();
  std::optional<MmaAccumulator> d = wgmmaAccumulatorOf(c);
  if (!d)
    return "C elements are " + llvm::to_string(c) +
           "; wgmma accumulates in f32 or f16";
  return wgmma::typeRule(*wgmmaElementOf(op.getA().getType().getElementType()),
                         *wgmmaElementOf(op.getB().getType().getElementType()),
                         *d);
}

Verdict elementTypes(GemmAsyncOp op, const DispatchContext &) {
  std::string bad = elementTypeProblem(op);
  return bad.empty() ? Verdict::success() : Verdict::failure(bad);
}

Verdict issuer(GemmAsyncOp op, const DispatchContext &) {
  if (op.getExec() == ExecScope::warpgroup)
    return Verdict::success();
  return Verdict::failure("issued by a " +
                          stringifyExecScope(op.getExec()).str() +
                          "; wgmma.mma_async is issued by all 128 threads of "
                          "a warpgroup together (exec warpgroup)");
}

Verdict operandScopes(GemmAsyncOp op, const DispatchContext &) {
  if (op.getC().getType().getScope() != MemoryScope::local)
    return Verdict::failure(
        "C is in " +
        stringifyMemoryScope(op.getC().getType().getScope()).str() +
        "; wgmma accumulates in registers (a local tile)");
  if (op.getA().getType().getScope() == MemoryScope::local)
    return Verdict::failure(
        "A is a register tile; the register-A form of wgmma.mma_async has "
        "no nvvm.wgmma.mma_async op (its A is a shared-memory descriptor): "
        "put A in shared memory");
  if (op.getA().getType().getScope() != MemoryScope::shared)
    return Verdict::failure(
        "A is in " +
        stringifyMemoryScope(op.getA().getType().getScope()).str() +
        "; wgmma reads A from shared memory");
  if (op.getSfa())
    return Verdict::failure("block scaling (sfa/sfb) is tcgen05's; wgmma has "
                            "no scale factors");
  if (op.getCtaGroup().value_or(1) != 1 || op.getWeightStationary() ||
      op.getInstructionShape() || op.getCollector() || op.getCollectorBuffer())
    return Verdict::failure("cta_group, weight_stationary, "
                            "instruction_shape and collector configure "
                            "tcgen05.mma; wgmma has none of them");
  return Verdict::success();
}

/// Transposed (MN-major) operands are 16-bit only, as gemm_async spells
/// them: transpose_a, or B without transpose_b.
Verdict majorness(GemmAsyncOp op, const DispatchContext &) {
  for (auto [value, mnMajor, name, fix] :
       {std::tuple{op.getA(), op.getTransposeA(), "A", "drop transpose_a"},
        std::tuple{op.getB(), !op.getTransposeB(), "B",
                   "store B as N x K and set transpose_b"}}) {
    unsigned bits = cast<BufferType>(value.getType()).getElementBits();
    if (mnMajor && bits != 16)
      return Verdict::failure(
          std::string(name) + " is MN-major with " + std::to_string(bits) +
          "-bit elements; wgmma transposes only 16-bit (f16, bf16) "
          "operands: " + fix);
  }
  return Verdict::success();
}

/// The planner's request; the C side keeps the local layout's thread axes.
OrReason<wgmma::Plan> planWgmma(GemmAsyncOp op, const DispatchContext &) {
  using R = OrReason<wgmma::Plan>;
  if (std::string bad = elementTypeProblem(op); !bad.empty())
    return R::failure(bad);
  BufferType a = op.getA().getType(), b = op.getB().getType(),
             c = op.getC().getType();
  if (c.getScope() != MemoryScope::local || a.getScope() != MemoryScope::shared)
    return R::failure("wgmma needs C in registers and A in shared memory");
  wgmma::Request r;
  r.a = *wgmmaElementOf(a.getElementType());
  r.b = *wgmmaElementOf(b.getElementType());
  r.d = *wgmmaAccumulatorOf(c.getElementType());
  r.aBits = a.getElementBits();
  r.bBits = b.getElementBits();
  if (llvm::any_of(op.getCStaticOffsets(), ShapedType::isDynamic))
    return R::failure("C has a runtime offset; a register tile is indexed "
                      "by constants only (its registers are named at compile "
                      "time)");
  const char *planned = "descriptor starts and registers are planned at "
                        "compile time";
  OrReason<copy_async::GemmRegionSides> sides =
      copy_async::gemmRegionSides(op, planned);
  if (!sides)
    return R::failure(sides.reason());
  r.aSide = sides->a;
  r.bSide = sides->b;
  r.cSide = sides->c;
  r.transposeA = op.getTransposeA();
  r.transposeB = op.getTransposeB();
  ArrayRef<int64_t> mnk = op.getSizes();
  r.m = mnk[0];
  r.n = mnk[1];
  r.k = mnk[2];
  r.hasAccumulateFlag = static_cast<bool>(op.getAccumulate());
  return wgmma::planWgmma(r);
}

NVVM::WGMMATypes nvvmType(MmaElement e) {
  switch (e) {
  case MmaElement::BF16: return NVVM::WGMMATypes::bf16;
  case MmaElement::TF32: return NVVM::WGMMATypes::tf32;
  case MmaElement::E4M3: return NVVM::WGMMATypes::e4m3;
  case MmaElement::E5M2: return NVVM::WGMMATypes::e5m2;
  default: return NVVM::WGMMATypes::f16;
  }
}

LogicalResult emitWgmma(GemmAsyncOp op, const wgmma::Plan &plan,
                        ValueRange lowered, const DispatchContext &,
                        RewriterBase &rewriter) {
  using wgmma::InputD;
  GemmAsyncOp::Adaptor adaptor(lowered, op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Type element = op.getC().getType().getElementType();
  const bool packed = plan.d == MmaAccumulator::F16;
  const int64_t regs = plan.instN / 2;
  // f16 accumulators: two registers a 32-bit struct member.
  Type member = packed ? Type(VectorType::get({2}, element)) : element;
  const int64_t members = packed ? regs / 2 : regs;
  auto structType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(members, member));
  auto array = LLVM::LLVMArrayType::get(element,
                                        static_cast<uint64_t>(plan.cRegisters));
  Value cTile = adaptor.getC();
  auto registerPtr = [&](int64_t reg) -> Value {
    return LLVM::GEPOp::create(rewriter, loc, cTile.getType(), array, cTile,
                               ArrayRef<LLVM::GEPArg>{0, int32_t(reg)});
  };
  Type i32 = rewriter.getI32Type();
  auto index = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(rewriter, loc, i32,
                                    rewriter.getI32IntegerAttr(v));
  };

  // 1. The accumulators in, before the fence: every register write (the
  // zeroing select of a runtime accumulate flag included) precedes it.
  Value zero;
  if (adaptor.getAccumulate())
    zero = LLVM::ZeroOp::create(rewriter, loc, member);
  const int64_t tiles = plan.mTiles * plan.nTiles;
  SmallVector<Value> acc(tiles);
  for (int64_t t = 0; t < tiles; ++t) {
    const std::vector<int64_t> &map = plan.accumulatorRegisters[t];
    bool fromFlag = plan.issues[t * plan.kSteps].inputD == InputD::FromFlag;
    Value s = LLVM::UndefOp::create(rewriter, loc, structType);
    for (int64_t p = 0; p < members; ++p) {
      Value v;
      if (packed) {
        v = LLVM::UndefOp::create(rewriter, loc, member);
        for (int64_t half = 0; half < 2; ++half) {
          Value x = LLVM::LoadOp::create(rewriter, loc, element,
                                         registerPtr(map[2 * p + half]));
          v = LLVM::InsertElementOp::create(rewriter, loc, v, x, index(half));
        }
      } else {
        v = LLVM::LoadOp::create(rewriter, loc, element, registerPtr(map[p]));
      }
      if (fromFlag)
        v = LLVM::SelectOp::create(rewriter, loc, adaptor.getAccumulate(), v,
                                   zero);
      s = LLVM::InsertValueOp::create(rewriter, loc, s, v, p);
    }
    acc[t] = s;
  }

  // 2. Descriptors, the fence, the chain.
  Value aBase = tcgen05::sharedDescriptor(rewriter, loc, adaptor.getA(),
                                          plan.aOperand.descriptorTemplate());
  Value bBase = tcgen05::sharedDescriptor(rewriter, loc, adaptor.getB(),
                                          plan.bOperand.descriptorTemplate());
  NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
  auto shape = NVVM::MMAShapeAttr::get(ctx, plan.instM, plan.instN, plan.instK);
  // K-major is row-major A and column-major B (no transpose).
  auto layoutA = plan.aOperand.mnMajor ? NVVM::MMALayout::col
                                       : NVVM::MMALayout::row;
  auto layoutB = plan.bOperand.mnMajor ? NVVM::MMALayout::row
                                       : NVVM::MMALayout::col;
  NVVM::WGMMATypes typeD =
      packed ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::f32;
  for (const wgmma::Issue &is : plan.issues) {
    int64_t t = is.mi * plan.nTiles + is.ni;
    Value a = tcgen05::advanceDescriptor(rewriter, loc, aBase, is.aByte);
    Value b = tcgen05::advanceDescriptor(rewriter, loc, bBase, is.bByte);
    auto scaleD = is.inputD == InputD::Overwrite ? NVVM::WGMMAScaleOut::zero
                                                 : NVVM::WGMMAScaleOut::one;
    acc[t] = NVVM::WgmmaMmaAsyncOp::create(
        rewriter, loc, structType, acc[t], a, b, shape, nvvmType(plan.a),
        nvvmType(plan.b), typeD, scaleD, NVVM::WGMMAScaleIn::one,
        NVVM::WGMMAScaleIn::one, layoutA, layoutB,
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
  }

  // 3. The results back into C's registers (renames once promoted).
  for (int64_t t = 0; t < tiles; ++t) {
    const std::vector<int64_t> &map = plan.accumulatorRegisters[t];
    for (int64_t p = 0; p < members; ++p) {
      Value v = LLVM::ExtractValueOp::create(rewriter, loc, acc[t], p);
      if (!packed) {
        LLVM::StoreOp::create(rewriter, loc, v, registerPtr(map[p]));
        continue;
      }
      for (int64_t half = 0; half < 2; ++half) {
        Value x = LLVM::ExtractElementOp::create(rewriter, loc, v, index(half));
        LLVM::StoreOp::create(rewriter, loc, x, registerPtr(map[2 * p + half]));
      }
    }
  }
  return success();
}

SmallVector<cuda::InstructionFamily, 2> wgmmaFamilies(GemmAsyncOp) {
  return {cuda::InstructionFamily::Wgmma};
}

OpPredicate<GemmAsyncOp> wgmmaTarget() {
  return targetPredicate<GemmAsyncOp>(
      "wgmma_target", wgmmaFamilies,
      [](cuda::InstructionFamily) { return true; },
      [](const TargetInfo &target, cuda::InstructionFamily family) {
        return needsOneOf("wgmma.mma_async", target, family);
      });
}

/// C's layout against the accumulator fragment (the planner repeats it
/// with the chosen N; any N divides into the same fragment map).
Verdict accumulatorLayout(GemmAsyncOp op, const DispatchContext &) {
  BufferType c = op.getC().getType();
  ArrayRef<int64_t> mnk = op.getSizes();
  if (c.getScope() != MemoryScope::local || mnk[0] % 64 || mnk[1] % 8 ||
      c.getRank() != 2)
    return Verdict::success(); // the scope and shape rules say why
  RegionSide side;
  side.layout = *c.getEffectiveLayout();
  side.shape.assign(c.getShape().begin(), c.getShape().end());
  for (int64_t o : op.getCStaticOffsets())
    side.offsets.push_back(ShapedType::isDynamic(o) ? 0 : o);
  std::string problem = wgmma::accumulatorProblem(side, mnk[0], mnk[1]);
  return problem.empty() ? Verdict::success() : Verdict::failure(problem);
}

} // namespace

void tile::registerWgmmaVariant(VariantRegistry &registry) {
  VariantDecl<GemmAsyncOp, wgmma::Plan> mma{
      "wgmma", kWgmmaPriority,
      {{"issuer", issuer}, {"operand_scopes", operandScopes},
       {"element_types", elementTypes}, {"majorness", majorness},
       {"accumulator_layout", accumulatorLayout}, wgmmaTarget()},
      planWgmma, /*prepare=*/nullptr, emitWgmma, wgmmaFamilies};
  registerVariant(registry, std::move(mma));
}

//===- Wgmma.cpp - the wgmma gemm_async variant -----------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// gemm_async through Hopper's `wgmma.mma_async` (sm_90a): a warpgroup
// multiplies A (shared memory, or a register tile with the A fragment
// layout) and shared-memory B into a register tile C (a `local` buffer
// with the accumulator fragment layout). The whole variant is declared
// here: the predicates, the op -> wgmma::Request for the pure planner
// (WgmmaPlanner.cpp) and the emitter.
//
// Emission, per op: every output tile's accumulator registers are loaded
// from C's alloca into an !llvm.struct (selected against zero first when
// `accumulate(%p)` decides at run time), then one `nvvm.wgmma.fence.aligned`,
// then the `nvvm.wgmma.mma_async` chain (each K step consumes the previous
// result), then the results are written back to the alloca. A register A
// is loaded and packed into its 32-bit fragment registers before the fence
// too, and its MMAs are inline PTX (registerAWgmma, accumulators tied in
// place: no NVVM op has a register A). After LLVM promotes the alloca,
// the loads and stores vanish: the registers are written before the fence
// and read only by the next MMA of the chain or by whatever the program
// does after its `tile.wait_group wgmma`. The emitter neither commits nor
// waits (`tile.commit_group wgmma`, `tile.wait_group wgmma, N` are the
// program's).
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/VariantHelpers.h"
#include "../TargetPredicate.h"
#include "../Tcgen05Emit.h"

#include "tile/Dialect/Tile/IR/LocalTiles.h"
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
  MemoryScope aScope = op.getA().getType().getScope();
  if (aScope != MemoryScope::shared && aScope != MemoryScope::local)
    return Verdict::failure("A is in " + stringifyMemoryScope(aScope).str() +
                            "; wgmma reads A from shared memory or from "
                            "registers (a local tile)");
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
  if (c.getScope() != MemoryScope::local ||
      (a.getScope() != MemoryScope::shared &&
       a.getScope() != MemoryScope::local))
    return R::failure("wgmma needs C in registers and A in shared memory or "
                      "registers");
  wgmma::Request r;
  r.aInRegisters = a.getScope() == MemoryScope::local;
  r.a = *wgmmaElementOf(a.getElementType());
  r.b = *wgmmaElementOf(b.getElementType());
  r.d = *wgmmaAccumulatorOf(c.getElementType());
  r.aBits = a.getElementBits();
  r.bBits = b.getElementBits();
  SmallVector<std::pair<ArrayRef<int64_t>, const char *>, 2> registerTiles{
      {op.getCStaticOffsets(), "C"}};
  if (r.aInRegisters)
    registerTiles.push_back({op.getAStaticOffsets(), "A"});
  for (auto [offsets, name] : registerTiles)
    if (llvm::any_of(offsets, ShapedType::isDynamic))
      return R::failure(std::string(name) +
                        " has a runtime offset; a register tile is indexed "
                        "by constants only (its registers are named at "
                        "compile time)");
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

const char *ptxType(MmaElement e) {
  switch (e) {
  case MmaElement::BF16: return "bf16";
  case MmaElement::TF32: return "tf32";
  case MmaElement::E4M3: return "e4m3";
  case MmaElement::E5M2: return "e5m2";
  default: return "f16";
  }
}

/// wgmma.mma_async with A in registers, the only inline PTX of the variant:
/// MLIR 22 has no NVVM op for it (nvvm.wgmma.mma_async takes A only as a
/// descriptor), and nvvm.inline_ptx mis-lowers an op that mixes read-write
/// and read-only operands (it appends the read-write ties after the
/// read-only constraints, so the accumulators take the A registers'
/// constraints), so this is an llvm.inline_asm with the constraints
/// spelled out. The accumulators are outputs tied to their inputs (one
/// register each, read and written in place, as wgmma requires), the four
/// A registers and B's descriptor plain inputs; side effects keep it
/// ordered against the fence, the other MMAs and commit/wait. Returns
/// the struct of the new accumulator values.
Value registerAWgmma(RewriterBase &rewriter, Location loc,
                     const wgmma::Plan &plan, ValueRange a, Value descriptorB,
                     ValueRange accumulators, bool scaleD) {
  const int64_t regs = accumulators.size();
  const bool packed = plan.d == MmaAccumulator::F16;
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, " << (scaleD ? 1 : 0)
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << plan.instN << "k"
     << plan.instK << (packed ? ".f16." : ".f32.") << ptxType(plan.a) << "."
     << ptxType(plan.b) << " {";
  for (int64_t i = 0; i < regs; ++i)
    os << (i ? ", " : "") << "$" << i;
  os << "}, {$" << regs << ", $" << regs + 1 << ", $" << regs + 2 << ", $"
     << regs + 3 << "}, $" << regs + 4 << ", p, 1, 1";
  // imm-trans-b exists for 16-bit types only; 1 reads B MN-major.
  if (cuda::mmaElementBits(plan.b) == 16)
    os << ", " << (plan.bOperand.mnMajor ? 1 : 0);
  os << ";\n}\n";
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += packed ? "=r," : "=f,";
  constraints += "r,r,r,r,l";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(a.begin(), a.end());
  operands.push_back(descriptorB);
  operands.append(accumulators.begin(), accumulators.end());
  auto result = LLVM::LLVMStructType::getLiteral(
      rewriter.getContext(),
      SmallVector<Type>(regs, accumulators.front().getType()));
  auto asmOp = LLVM::InlineAsmOp::create(
      rewriter, loc, result, operands, ptx, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return asmOp.getResult(0);
}

/// What the steps of one op's emission share.
struct WgmmaEmitter {
  GemmAsyncOp op;
  const wgmma::Plan &plan;
  GemmAsyncOp::Adaptor adaptor;
  RewriterBase &rewriter;
  Location loc;
  Type element; // C's
  bool packed;  // f16 accumulators: two a 32-bit register
  bool registerA;
  // f16 accumulators: two registers a 32-bit struct member (an i32 operand
  // of the register-A inline PTX).
  Type pair, member;
  int64_t members;

  WgmmaEmitter(GemmAsyncOp op, const wgmma::Plan &plan, ValueRange lowered,
               RewriterBase &rewriter)
      : op(op), plan(plan), adaptor(lowered, op), rewriter(rewriter),
        loc(op.getLoc()), element(op.getC().getType().getElementType()),
        packed(plan.d == MmaAccumulator::F16), registerA(plan.aInRegisters),
        pair(VectorType::get({2}, element)), member(packed ? pair : element),
        members(packed ? plan.instN / 4 : plan.instN / 2) {}

  Value registerPtr(Value tile, Type type, int64_t count, int64_t reg) {
    auto array = LLVM::LLVMArrayType::get(type, static_cast<uint64_t>(count));
    return LLVM::GEPOp::create(rewriter, loc, tile.getType(), array, tile,
                               ArrayRef<LLVM::GEPArg>{0, int32_t(reg)});
  }
  Value cRegister(int64_t reg) {
    return registerPtr(adaptor.getC(), element, plan.cRegisters, reg);
  }
  Value index(int64_t v) {
    return LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                    rewriter.getI32IntegerAttr(v));
  }

  /// Each output tile's accumulator members, loaded (and selected against
  /// zero for a runtime accumulate flag): register writes, all before the
  /// fence.
  SmallVector<SmallVector<Value>> loadAccumulators() {
    Value zero;
    if (adaptor.getAccumulate())
      zero = LLVM::ZeroOp::create(rewriter, loc, member);
    const int64_t tiles = plan.mTiles * plan.nTiles;
    SmallVector<SmallVector<Value>> acc(tiles);
    for (int64_t t = 0; t < tiles; ++t) {
      const std::vector<int64_t> &map = plan.accumulatorRegisters[t];
      bool fromFlag =
          plan.issues[t * plan.kSteps].inputD == wgmma::InputD::FromFlag;
      for (int64_t p = 0; p < members; ++p) {
        Value v;
        if (packed) {
          v = LLVM::UndefOp::create(rewriter, loc, member);
          for (int64_t half = 0; half < 2; ++half) {
            Value x = LLVM::LoadOp::create(rewriter, loc, element,
                                           cRegister(map[2 * p + half]));
            v = LLVM::InsertElementOp::create(rewriter, loc, v, x,
                                              index(half));
          }
        } else {
          v = LLVM::LoadOp::create(rewriter, loc, element, cRegister(map[p]));
        }
        if (fromFlag)
          v = LLVM::SelectOp::create(rewriter, loc, adaptor.getAccumulate(),
                                     v, zero);
        if (packed && registerA)
          v = LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), v);
        acc[t].push_back(v);
      }
    }
    return acc;
  }

  /// A register A's 32-bit registers per (M tile, K step), packed before
  /// the fence too (a packing move after it would write a wgmma input
  /// register).
  SmallVector<SmallVector<Value, 4>> packRegisterA() {
    SmallVector<SmallVector<Value, 4>> out;
    BufferType aType = op.getA().getType();
    // fp8 registers are i8 (LLVM has no fp8 type): four to a word.
    Type aElement = registerStorageType(aType.getElementType());
    int64_t count = aType.getEffectiveLayout()->cosize(Axis::m);
    auto load = [&](int64_t reg) -> Value {
      return LLVM::LoadOp::create(
          rewriter, loc, aElement,
          registerPtr(adaptor.getA(), aElement, count, reg));
    };
    for (const std::vector<int64_t> &map : plan.aRegisters) {
      SmallVector<Value, 4> words;
      for (int64_t w = 0; w < 4; ++w) {
        Value word;
        if (plan.aPerRegister == 1) {
          word = load(map[w]);
        } else {
          word = LLVM::UndefOp::create(
              rewriter, loc, VectorType::get({plan.aPerRegister}, aElement));
          for (int64_t e = 0; e < plan.aPerRegister; ++e)
            word = LLVM::InsertElementOp::create(
                rewriter, loc, word, load(map[w * plan.aPerRegister + e]),
                index(e));
        }
        words.push_back(LLVM::BitcastOp::create(rewriter, loc,
                                                rewriter.getI32Type(), word));
      }
      out.push_back(std::move(words));
    }
    return out;
  }

  /// The results back into C's registers (renames once promoted): the
  /// members of each tile's last result struct, or its last values.
  void storeAccumulators(ArrayRef<SmallVector<Value>> acc,
                         ArrayRef<Value> structs) {
    for (auto [t, values] : llvm::enumerate(acc)) {
      const std::vector<int64_t> &map = plan.accumulatorRegisters[t];
      for (int64_t p = 0; p < members; ++p) {
        Value v = structs[t] ? LLVM::ExtractValueOp::create(rewriter, loc,
                                                            structs[t], p)
                                   .getResult()
                             : values[p];
        if (!packed) {
          LLVM::StoreOp::create(rewriter, loc, v, cRegister(map[p]));
          continue;
        }
        if (v.getType() != pair)
          v = LLVM::BitcastOp::create(rewriter, loc, pair, v);
        for (int64_t half = 0; half < 2; ++half) {
          Value x =
              LLVM::ExtractElementOp::create(rewriter, loc, v, index(half));
          LLVM::StoreOp::create(rewriter, loc, x,
                                cRegister(map[2 * p + half]));
        }
      }
    }
  }

  LogicalResult emit();
};

LogicalResult WgmmaEmitter::emit() {
  using wgmma::InputD;
  MLIRContext *ctx = op.getContext();
  auto structType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(members, member));

  // 1. The accumulators (and a register A) in, before the fence. Pinned
  // there: LLVM would otherwise materialize constant inputs (the zeros of
  // `accumulate(%false)`) or packing moves next to their MMA, after the
  // fence, and ptxas serializes every wgmma when an instruction defines
  // MMA registers while another MMA may be in flight.
  SmallVector<SmallVector<Value>> acc = loadAccumulators();
  for (SmallVector<Value> &tile : acc)
    tile = pinRegisters(rewriter, loc, tile);
  SmallVector<Value> accStruct(acc.size());
  for (size_t t = 0; !registerA && t < acc.size(); ++t) {
    Value s = LLVM::UndefOp::create(rewriter, loc, structType);
    for (auto [p, v] : llvm::enumerate(acc[t]))
      s = LLVM::InsertValueOp::create(rewriter, loc, s, v, p);
    accStruct[t] = s;
  }
  SmallVector<SmallVector<Value, 4>> aRegs;
  if (registerA) {
    aRegs = packRegisterA();
    for (SmallVector<Value, 4> &regs : aRegs) {
      SmallVector<Value> pinned = pinRegisters(rewriter, loc, regs);
      regs.assign(pinned.begin(), pinned.end());
    }
  }

  // 2. Descriptors, the fence, the chain.
  // Swap-AB: the instructions' A is the op's B and their B the op's A.
  Value aBuffer = plan.swapAB ? adaptor.getB() : adaptor.getA();
  Value bBuffer = plan.swapAB ? adaptor.getA() : adaptor.getB();
  Value aBase;
  if (!registerA)
    aBase = tcgen05::sharedDescriptor(rewriter, loc, aBuffer,
                                      plan.aOperand.descriptorTemplate());
  Value bBase = tcgen05::sharedDescriptor(rewriter, loc, bBuffer,
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
    Value a;
    if (!registerA)
      a = tcgen05::advanceDescriptor(rewriter, loc, aBase, is.aByte);
    Value b = tcgen05::advanceDescriptor(rewriter, loc, bBase, is.bByte);
    if (registerA) {
      Value d = registerAWgmma(rewriter, loc, plan,
                               aRegs[is.mi * plan.kSteps + is.ki], b, acc[t],
                               is.inputD != InputD::Overwrite);
      for (int64_t p = 0; p < members; ++p)
        acc[t][p] = LLVM::ExtractValueOp::create(rewriter, loc, d, p);
      continue;
    }
    auto scaleD = is.inputD == InputD::Overwrite ? NVVM::WGMMAScaleOut::zero
                                                 : NVVM::WGMMAScaleOut::one;
    accStruct[t] = NVVM::WgmmaMmaAsyncOp::create(
        rewriter, loc, structType, accStruct[t], a, b, shape, nvvmType(plan.a),
        nvvmType(plan.b), typeD, scaleD, NVVM::WGMMAScaleIn::one,
        NVVM::WGMMAScaleIn::one, layoutA, layoutB,
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
  }

  // 3. The results back into C's registers.
  storeAccumulators(acc, accStruct);
  return success();
}

LogicalResult emitWgmma(GemmAsyncOp op, const wgmma::Plan &plan,
                        ValueRange lowered, const DispatchContext &,
                        RewriterBase &rewriter) {
  return WgmmaEmitter(op, plan, lowered, rewriter).emit();
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

/// C's layout against the accumulator fragment, or (A in shared memory)
/// against it transposed, the swap-AB form (the planner repeats it with the
/// chosen N; any N divides into the same fragment map).
Verdict accumulatorLayout(GemmAsyncOp op, const DispatchContext &) {
  BufferType c = op.getC().getType();
  ArrayRef<int64_t> mnk = op.getSizes();
  if (c.getScope() != MemoryScope::local || c.getRank() != 2)
    return Verdict::success(); // the scope and shape rules say why
  RegionSide side;
  side.layout = *c.getEffectiveLayout();
  side.shape.assign(c.getShape().begin(), c.getShape().end());
  for (int64_t o : op.getCStaticOffsets())
    side.offsets.push_back(ShapedType::isDynamic(o) ? 0 : o);
  auto fits = [](int64_t m, int64_t n) { return m % 64 == 0 && n % 8 == 0; };
  std::string direct, swapped;
  if (fits(mnk[0], mnk[1])) {
    direct = wgmma::accumulatorProblem(side, mnk[0], mnk[1]);
    if (direct.empty())
      return Verdict::success();
  }
  bool swappable = op.getA().getType().getScope() == MemoryScope::shared &&
                   fits(mnk[1], mnk[0]);
  if (swappable) {
    OrReason<RegionSide> t = wgmma::transposedSide(side);
    swapped = t ? wgmma::accumulatorProblem(*t, mnk[1], mnk[0]) : t.reason();
    if (swapped.empty())
      return Verdict::success();
  }
  if (direct.empty() && swapped.empty())
    return Verdict::success(); // the shape rules say why
  if (swapped.empty())
    return Verdict::failure(direct);
  std::string swapReason = std::string(wgmma::kSwapABReason) + ": " + swapped;
  if (direct.empty())
    return Verdict::failure("M = " + std::to_string(mnk[0]) +
                            " is not a multiple of 64 (wgmma's M); " +
                            swapReason);
  return Verdict::failure(direct + "; " + swapReason);
}

/// A register A against the A fragment (the planner repeats it): K-major
/// only, f16/bf16/tf32/e4m3/e5m2, every element in its fragment thread and
/// register.
Verdict aFragment(GemmAsyncOp op, const DispatchContext &) {
  BufferType a = op.getA().getType();
  if (a.getScope() != MemoryScope::local)
    return Verdict::success();
  if (op.getTransposeA())
    return Verdict::failure(wgmma::kTransposedRegisterA);
  std::optional<MmaElement> e = wgmmaElementOf(a.getElementType());
  if (!e)
    return Verdict::success(); // element_types says why
  const unsigned bits = a.getElementBits();
  if (std::string rule = wgmma::registerARule(*e, bits); !rule.empty())
    return Verdict::failure(rule);
  ArrayRef<int64_t> mnk = op.getSizes();
  if (mnk[0] % 64 || mnk[2] % wgmma::instructionK(*e))
    return Verdict::success(); // the shape rules say why
  if (llvm::any_of(op.getAStaticOffsets(), ShapedType::isDynamic))
    return Verdict::failure("A has a runtime offset; a register tile is "
                            "indexed by constants only (its registers are "
                            "named at compile time)");
  OrReason<RegionSide> side =
      copy_async::regionSide(a, op.getAStaticOffsets(), 2, "A", "");
  if (!side)
    return Verdict::failure(side.reason());
  std::string problem = wgmma::aFragmentProblem(*side, mnk[0], mnk[2], bits);
  return problem.empty() ? Verdict::success() : Verdict::failure(problem);
}

} // namespace

void tile::registerWgmmaVariant(VariantRegistry &registry) {
  VariantDecl<GemmAsyncOp, wgmma::Plan> mma{
      "wgmma", kWgmmaPriority,
      {{"issuer", issuer}, {"operand_scopes", operandScopes},
       {"element_types", elementTypes}, {"majorness", majorness},
       {"accumulator_layout", accumulatorLayout}, {"a_fragment", aFragment},
       wgmmaTarget()},
      planWgmma, /*prepare=*/nullptr, emitWgmma, wgmmaFamilies};
  registerVariant(registry, std::move(mma));
}

//===- Tcgen05Mma.cpp - the tcgen05 gemm_async variant ----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// gemm_async through `tcgen05.mma` (PTX ISA "Tensor Memory: tcgen05.mma").
// The whole variant is declared here: the predicates, the op ->
// tcgen05_mma::Request for the pure planner (Tcgen05MmaPlanner.cpp) and the
// emitter. Completion is the caller's: tcgen05.commit to an mbarrier,
// issued by the same thread, after the MMAs.
//
// Emission: a shared operand's descriptor is its folded constant (LBO, SBO,
// swizzle, the fixed bits) OR the start-address field of the buffer,
// computed once; each issue adds its start (bytes >> 4). Tensor-memory
// operands are the buffer's 32-bit address plus `(lane << 16) | column`.
// The instruction descriptor of each issue is a constant.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/VariantHelpers.h"
#include "../Tcgen05Common.h"
#include "../Tcgen05Emit.h"
#include "../TargetPredicate.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/GemmAsync/Tcgen05MmaPlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ScopedPrinter.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using cuda::MmaAccumulator;
using cuda::MmaElement;

namespace {

/// The MMA element type of a tile element type.
std::optional<MmaElement> mmaElementOf(Type t) {
  if (t.isF16()) return MmaElement::F16;
  if (t.isBF16()) return MmaElement::BF16;
  if (t.isF32() || t.isTF32()) return MmaElement::TF32;
  if (isa<Float8E4M3FNType>(t)) return MmaElement::E4M3;
  if (isa<Float8E5M2Type>(t)) return MmaElement::E5M2;
  if (isa<Float6E2M3FNType>(t)) return MmaElement::E2M3;
  if (isa<Float6E3M2FNType>(t)) return MmaElement::E3M2;
  if (isa<Float4E2M1FNType>(t)) return MmaElement::E2M1;
  if (auto i = dyn_cast<IntegerType>(t); i && i.getWidth() == 8)
    return i.isUnsigned() ? MmaElement::U8 : MmaElement::S8;
  return std::nullopt;
}

std::optional<MmaAccumulator> accumulatorOf(Type t) {
  if (t.isF32()) return MmaAccumulator::F32;
  if (t.isF16()) return MmaAccumulator::F16;
  if (t.isInteger(32)) return MmaAccumulator::S32;
  return std::nullopt;
}

std::optional<cuda::ScaleFactorType> scaleTypeOf(Type t) {
  if (isa<Float8E8M0FNUType>(t)) return cuda::ScaleFactorType::UE8M0;
  if (isa<Float8E4M3FNType>(t)) return cuda::ScaleFactorType::UE4M3;
  return std::nullopt;
}

/// The element-type problem of `op`, or "".
std::string elementTypeProblem(GemmAsyncOp op) {
  for (auto [value, name] : {std::pair{op.getA(), "A"}, {op.getB(), "B"}}) {
    Type t = cast<BufferType>(value.getType()).getElementType();
    if (!mmaElementOf(t))
      return std::string(name) + " elements are " + llvm::to_string(t) +
             "; tcgen05.mma takes f16, bf16, tf32 (f32), fp8 (e4m3, e5m2), "
             "fp6, fp4 (e2m1) or 8-bit integers";
  }
  Type c = op.getC().getType().getElementType();
  if (!accumulatorOf(c))
    return "C elements are " + llvm::to_string(c) +
           "; tcgen05.mma accumulates in f32, f16 or i32";
  if (op.getSfa()) {
    Type sa = op.getSfa().getType().getElementType();
    Type sb = op.getSfb().getType().getElementType();
    if (!scaleTypeOf(sa) || sa != sb)
      return "scale factors are " + llvm::to_string(sa) + " and " + llvm::to_string(sb) +
             "; block scaling takes f8E8M0FNU (ue8m0) or f8E4M3FN (ue4m3) "
             "for both";
  }
  return "";
}

tcgen05_mma::CollectorOp collectorOpOf(std::optional<MmaCollector> c) {
  using tcgen05_mma::CollectorOp;
  switch (c.value_or(MmaCollector::discard)) {
  case MmaCollector::lastuse: return CollectorOp::LastUse;
  case MmaCollector::fill: return CollectorOp::Fill;
  case MmaCollector::use: return CollectorOp::Use;
  case MmaCollector::discard: break;
  }
  return CollectorOp::Discard;
}

/// The planner's request: element kinds, the three sides (and scale
/// tiles), the shape and the config.
OrReason<tcgen05_mma::Plan> planTcgen05Mma(GemmAsyncOp op,
                                           const DispatchContext &) {
  using namespace tcgen05_mma;
  using R = OrReason<Plan>;
  if (std::string bad = elementTypeProblem(op); !bad.empty())
    return R::failure(bad);
  Request r;
  BufferType a = op.getA().getType(), b = op.getB().getType(),
             c = op.getC().getType();
  r.a = *mmaElementOf(a.getElementType());
  r.b = *mmaElementOf(b.getElementType());
  r.d = *accumulatorOf(c.getElementType());
  r.aBits = a.getElementBits();
  r.bBits = b.getElementBits();
  r.dBits = c.getElementBits();
  const char *planned = "descriptor starts and tensor-memory addresses are "
                        "planned at compile time";
  OrReason<copy_async::GemmRegionSides> sides =
      copy_async::gemmRegionSides(op, planned);
  if (!sides)
    return R::failure(sides.reason());
  r.aSide = sides->a;
  r.aInTmem = a.getScope() == MemoryScope::tmem;
  r.transposeA = op.getTransposeA();
  r.bSide = sides->b;
  r.transposeB = op.getTransposeB();
  r.cSide = sides->c;
  ArrayRef<int64_t> mnk = op.getSizes();
  r.m = mnk[0];
  r.n = mnk[1];
  r.k = mnk[2];
  r.ctaGroup = op.getCtaGroup().value_or(1);
  r.hasAccumulateFlag = static_cast<bool>(op.getAccumulate());
  r.weightStationary = op.getWeightStationary();
  if (std::optional<ArrayRef<int64_t>> shape = op.getInstructionShape())
    r.instructionShape = {(*shape)[0], (*shape)[1]};
  if (op.getCollectorBuffer() && !r.weightStationary)
    return R::failure("collector_buffer names a B buffer of tcgen05.mma.ws; "
                      "the op has no weight_stationary");
  r.collectorBuffer = op.getCollectorBuffer().value_or(0);
  r.collectorOp = collectorOpOf(op.getCollector());
  if (op.getSfa()) {
    BufferType sa = op.getSfa().getType(), sb = op.getSfb().getType();
    r.scaleType = *scaleTypeOf(sa.getElementType());
    // Scale tiles are whole buffers: [rows, K / vec] from column 0.
    OrReason<RegionSide> sfa = copy_async::regionSide(
        sa, SmallVector<int64_t>(sa.getRank(), 0), 2, "sfa", planned);
    if (!sfa)
      return R::failure(sfa.reason());
    OrReason<RegionSide> sfb = copy_async::regionSide(
        sb, SmallVector<int64_t>(sb.getRank(), 0), 2, "sfb", planned);
    if (!sfb)
      return R::failure(sfb.reason());
    r.sfaSide = *sfa;
    r.sfbSide = *sfb;
    // An unknown kind is the planner's to refuse, with its reason.
    int64_t vec = 0;
    if (OrReason<cuda::MmaKind> kind =
            selectKind(r.a, r.b, /*scaled=*/true, r.scaleType))
      vec = cuda::scaleVectorSize(*kind, r.scaleType);
    if (vec && (sa.getRank() != 2 || sb.getRank() != 2 ||
                sa.getShape()[1] < r.k / vec || sb.getShape()[1] < r.k / vec))
      return R::failure("scale tiles must be [rows, K / " + std::to_string(vec) +
                        "] = [., " + std::to_string(r.k / vec) + "]");
  }
  return planMma(r);
}

std::optional<NVVM::Tcgen05MMAKind> denseKind(cuda::MmaKind kind) {
  switch (kind) {
  case cuda::MmaKind::F16: return NVVM::Tcgen05MMAKind::F16;
  case cuda::MmaKind::TF32: return NVVM::Tcgen05MMAKind::TF32;
  case cuda::MmaKind::F8F6F4: return NVVM::Tcgen05MMAKind::F8F6F4;
  case cuda::MmaKind::I8: return NVVM::Tcgen05MMAKind::I8;
  default: return std::nullopt;
  }
}

NVVM::MMABlockScaleKind scaledKind(cuda::MmaKind kind) {
  switch (kind) {
  case cuda::MmaKind::MXF4: return NVVM::MMABlockScaleKind::MXF4;
  case cuda::MmaKind::MXF4NVF4: return NVVM::MMABlockScaleKind::MXF4NVF4;
  default: return NVVM::MMABlockScaleKind::MXF8F6F4;
  }
}

NVVM::Tcgen05MMACollectorOp nvvmCollector(tcgen05_mma::CollectorOp op) {
  using tcgen05_mma::CollectorOp;
  switch (op) {
  case CollectorOp::LastUse: return NVVM::Tcgen05MMACollectorOp::LASTUSE;
  case CollectorOp::Fill: return NVVM::Tcgen05MMACollectorOp::FILL;
  case CollectorOp::Use: return NVVM::Tcgen05MMACollectorOp::USE;
  case CollectorOp::Discard: break;
  }
  return NVVM::Tcgen05MMACollectorOp::DISCARD;
}

/// One tcgen05.mma (.ws, .block_scale) per planned issue, before `op`.
LogicalResult emitTcgen05Mma(GemmAsyncOp op, const tcgen05_mma::Plan &plan,
                             ValueRange lowered, const DispatchContext &,
                             RewriterBase &rewriter) {
  using namespace tcgen05_mma;
  GemmAsyncOp::Adaptor adaptor(lowered, op);
  Location loc = op.getLoc();
  // exec warp: the elected lane issues; the others skip.
  OpBuilder::InsertionGuard guard(rewriter);
  if (op.getExec() == ExecScope::warp) {
    Value elected = NVVM::ElectSyncOp::create(rewriter, loc, rewriter.getI1Type(),
                                              Value());
    auto ifOp = scf::IfOp::create(rewriter, loc, elected, /*else=*/false);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }

  auto plusStart = [&](Value descriptor, int64_t byte) {
    return tcgen05::advanceDescriptor(rewriter, loc, descriptor, byte);
  };
  // One pointer per distinct tensor-memory address (D repeats per K step).
  llvm::DenseMap<std::pair<Value, uint32_t>, Value> tmemPointers;
  auto tmemAt = [&](Value base, uint32_t offset) -> Value {
    Value &ptr = tmemPointers[{base, offset}];
    if (!ptr)
      ptr = tcgen05::tmemPointer(rewriter, loc, base, offset);
    return ptr;
  };

  Value aBase = plan.a ? tcgen05::sharedDescriptor(rewriter, loc,
                                                   adaptor.getA(),
                                                   plan.a->descriptorTemplate())
                       : Value();
  Value bBase = tcgen05::sharedDescriptor(rewriter, loc, adaptor.getB(),
                                          plan.b.descriptorTemplate());
  Value isTrue, isFalse;
  auto flag = [&](InputD inputD) -> Value {
    if (inputD == InputD::FromFlag)
      return adaptor.getAccumulate();
    Value &slot = inputD == InputD::Accumulate ? isTrue : isFalse;
    if (!slot)
      slot = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(),
                                          inputD == InputD::Accumulate);
    return slot;
  };
  auto group =
      plan.ctaGroup == 2 ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1;
  std::optional<NVVM::Tcgen05MMAKind> dense = denseKind(plan.kind);
  unsigned perInstruction =
      plan.instK / std::max(1u, cuda::scaleVectorSize(plan.kind,
                                                      plan.idesc.scaleType));
  auto collector = nvvmCollector(plan.collectorOp);
  llvm::DenseMap<uint32_t, Value> idescs;
  for (const Issue &is : plan.issues) {
    // Operands in a fixed order (call arguments would not fix it).
    Value d = tmemAt(adaptor.getC(), is.dTmem);
    Value a = plan.a ? plusStart(aBase, is.aByte)
                     : tmemAt(adaptor.getA(), is.aTmem);
    Value b = plusStart(bBase, is.bByte);
    Value &idesc = idescs[is.idesc];
    if (!idesc)
      idesc = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                           static_cast<int32_t>(is.idesc));
    Value inputD = flag(is.inputD);
    if (dense && plan.weightStationary) {
      NVVM::Tcgen05MMAWsOp::create(
          rewriter, loc, *dense,
          static_cast<NVVM::Tcgen05MMACollectorBBuffer>(plan.collectorBuffer),
          collector, d, a, b, idesc, inputD, Value());
      continue;
    }
    if (dense) {
      NVVM::Tcgen05MMAOp::create(rewriter, loc, *dense, group, collector,
                                 /*aShift=*/false, d, a, b, idesc, inputD,
                                 Value(), Value());
      continue;
    }
    Value sfa = tmemAt(adaptor.getSfa(), is.sfaTmem);
    Value sfb = tmemAt(adaptor.getSfb(), is.sfbTmem);
    // block16 / block32: the elements one scale covers.
    auto blockScale = perInstruction * 16 == unsigned(plan.instK)
                          ? NVVM::Tcgen05MMABlockScale::BLOCK16
                          : NVVM::Tcgen05MMABlockScale::BLOCK32;
    NVVM::Tcgen05MMABlockScaleOp::create(
        rewriter, loc, scaledKind(plan.kind), group, blockScale,
        collector, d, a, b, idesc, inputD, sfa, sfb);
  }
  return success();
}

Verdict issuer(GemmAsyncOp op, const DispatchContext &) {
  ExecScope exec = op.getExec();
  if (exec == ExecScope::thread || exec == ExecScope::warp)
    return Verdict::success();
  return Verdict::failure(
      "issued by a " + stringifyExecScope(exec).str() +
      "; one thread issues tcgen05.mma (exec thread), or a warp that "
      "elects one lane (exec warp)");
}

Verdict operandScopes(GemmAsyncOp op, const DispatchContext &) {
  if (op.getC().getType().getScope() != MemoryScope::tmem)
    return Verdict::failure("C is a register tile (local); tcgen05.mma "
                            "accumulates in tensor memory");
  if (op.getA().getType().getScope() == MemoryScope::local)
    return Verdict::failure("A is a register tile (local); tcgen05.mma reads "
                            "A from shared or tensor memory");
  return Verdict::success();
}

Verdict tmemAddress(GemmAsyncOp gemm, const DispatchContext &) {
  llvm::SmallVector<std::pair<Value, StringRef>, 4> tmem;
  if (gemm.getC().getType().getScope() == MemoryScope::tmem)
    tmem.push_back({gemm.getC(), "C"});
  if (gemm.getA().getType().getScope() == MemoryScope::tmem)
    tmem.push_back({gemm.getA(), "A"});
  if (gemm.getSfa()) {
    tmem.push_back({gemm.getSfa(), "sfa"});
    tmem.push_back({gemm.getSfb(), "sfb"});
  }
  for (auto [value, name] : tmem)
    if (std::optional<std::string> problem =
            tcgen05::tmemAddressProblem(value, name))
      return Verdict::failure(*problem);
  return Verdict::success();
}

Verdict elementTypes(GemmAsyncOp op, const DispatchContext &) {
  std::string bad = elementTypeProblem(op);
  return bad.empty() ? Verdict::success() : Verdict::failure(bad);
}

/// tcgen05.mma; kind::i8 and block scaling are families of their own.
SmallVector<cuda::InstructionFamily, 2> mmaFamilies(GemmAsyncOp op) {
  SmallVector<cuda::InstructionFamily, 2> families = {
      cuda::InstructionFamily::Tcgen05};
  std::optional<MmaElement> a =
      mmaElementOf(op.getA().getType().getElementType());
  if (a == MmaElement::S8 || a == MmaElement::U8)
    families.push_back(cuda::InstructionFamily::Tcgen05MmaI8);
  if (op.getSfa())
    families.push_back(cuda::InstructionFamily::Tcgen05BlockScale);
  return families;
}

OpPredicate<GemmAsyncOp> tcgen05Target() {
  return targetPredicate<GemmAsyncOp>(
      "tcgen05_target", mmaFamilies,
      [](cuda::InstructionFamily) { return true; },
      [](const TargetInfo &target, cuda::InstructionFamily family) {
        return needsOneOf(family == cuda::InstructionFamily::Tcgen05
                              ? "tcgen05.mma"
                              : cuda::familyName(family).str(),
                          target, family);
      });
}

} // namespace

void tile::registerTcgen05MmaVariant(VariantRegistry &registry) {
  VariantDecl<GemmAsyncOp, tcgen05_mma::Plan> mma{
      "tcgen05", kTcgen05MmaPriority,
      {{"issuer", issuer}, {"operand_scopes", operandScopes},
       {"tmem_address", tmemAddress},
       {"element_types", elementTypes},
       tcgen05Target()},
      planTcgen05Mma, /*prepare=*/nullptr, emitTcgen05Mma, mmaFamilies};
  registerVariant(registry, std::move(mma));
}

//===- Tcgen05Mma.cpp - the tcgen05 gemm_async variant ----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// gemm_async through `tcgen05.mma` (PTX ISA "Tensor Memory: tcgen05.mma"):
// the predicates, the planner hook that turns the op into a
// tcgen05_mma::Request for the pure planner (Tcgen05MmaPlanner.cpp), and
// the emitter hook (Tcgen05MmaEmitter.cpp). Completion is the caller's:
// tcgen05.commit to an mbarrier, issued by the same thread, after the MMAs.
//
//===----------------------------------------------------------------------===//

#include "../CopyAsync/Predicates.h"
#include "../Tcgen05Common.h"
#include "Tcgen05Mma.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using cuda::MmaAccumulator;
using cuda::MmaElement;

namespace {

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

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
      return std::string(name) + " elements are " + typeString(t) +
             "; tcgen05.mma takes f16, bf16, tf32 (f32), fp8 (e4m3, e5m2), "
             "fp6, fp4 (e2m1) or 8-bit integers";
  }
  Type c = op.getC().getType().getElementType();
  if (!accumulatorOf(c))
    return "C elements are " + typeString(c) +
           "; tcgen05.mma accumulates in f32, f16 or i32";
  if (op.getSfa()) {
    Type sa = op.getSfa().getType().getElementType();
    Type sb = op.getSfb().getType().getElementType();
    if (!scaleTypeOf(sa) || sa != sb)
      return "scale factors are " + typeString(sa) + " and " + typeString(sb) +
             "; block scaling takes f8E8M0FNU (ue8m0) or f8E4M3FN (ue4m3) "
             "for both";
  }
  return "";
}

} // namespace

OrReason<tcgen05_mma::Plan> tcgen05_mma::planFor(GemmAsyncOp op) {
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
  auto side = [&](BufferType type, ArrayRef<int64_t> offsets,
                  StringRef name) {
    return copy_async::regionSide(type, offsets, name, planned);
  };
  OrReason<RegionSide> aSide = side(a, op.getAStaticOffsets(), "A");
  if (!aSide)
    return R::failure(aSide.reason());
  OrReason<RegionSide> bSide = side(b, op.getBStaticOffsets(), "B");
  if (!bSide)
    return R::failure(bSide.reason());
  OrReason<RegionSide> cSide = side(c, op.getCStaticOffsets(), "C");
  if (!cSide)
    return R::failure(cSide.reason());
  r.aSide = *aSide;
  r.aInTmem = a.getScope() == MemoryScope::tmem;
  r.transposeA = op.getTransposeA();
  r.bSide = *bSide;
  r.transposeB = op.getTransposeB();
  r.cSide = *cSide;
  ArrayRef<int64_t> mnk = op.getSizes();
  r.m = mnk[0];
  r.n = mnk[1];
  r.k = mnk[2];
  r.ctaGroup = op.getCtaGroup().value_or(1);
  r.hasAccumulateFlag = static_cast<bool>(op.getAccumulate());
  if (op.getSfa()) {
    BufferType sa = op.getSfa().getType(), sb = op.getSfb().getType();
    r.scaleType = *scaleTypeOf(sa.getElementType());
    // Scale tiles are whole buffers: [rows, K / vec] from column 0.
    OrReason<RegionSide> sfa =
        side(sa, SmallVector<int64_t>(sa.getRank(), 0), "sfa");
    if (!sfa)
      return R::failure(sfa.reason());
    OrReason<RegionSide> sfb =
        side(sb, SmallVector<int64_t>(sb.getRank(), 0), "sfb");
    if (!sfb)
      return R::failure(sfb.reason());
    r.sfaSide = *sfa;
    r.sfbSide = *sfb;
    int64_t vec = 0;
    std::string why;
    if (std::optional<cuda::MmaKind> kind =
            selectKind(r.a, r.b, true, r.scaleType, &why))
      vec = cuda::scaleVectorSize(*kind, r.scaleType);
    if (vec && (sa.getRank() != 2 || sb.getRank() != 2 ||
                sa.getShape()[1] < r.k / vec || sb.getShape()[1] < r.k / vec))
      return R::failure("scale tiles must be [rows, K / " + std::to_string(vec) +
                        "] = [., " + std::to_string(r.k / vec) + "]");
  }
  return planMma(r);
}

namespace {

Verdict planTcgen05Mma(Operation *op, const DispatchContext &) {
  OrReason<tcgen05_mma::Plan> plan =
      tcgen05_mma::planFor(cast<GemmAsyncOp>(op));
  if (!plan)
    return Verdict::reject(plan.reason());
  return Verdict::accept();
}

LogicalResult emitTcgen05Mma(Operation *op, ValueRange lowered,
                             const DispatchContext &, RewriterBase &rewriter) {
  auto gemm = cast<GemmAsyncOp>(op);
  OrReason<tcgen05_mma::Plan> plan = tcgen05_mma::planFor(gemm);
  if (!plan)
    return op->emitError() << "tcgen05 planner declined at lowering: "
                           << plan.reason();
  tcgen05_mma::emitPlan(gemm, *plan, lowered, rewriter);
  return success();
}

} // namespace

void tile::registerTcgen05MmaVariant(VariantRegistry &registry) {
  Variant v;
  v.opName = GemmAsyncOp::getOperationName().str();
  v.family = "cuda";
  v.name = "tcgen05";
  v.priority = 10;
  v.predicates = {
      {"issuer",
       [](Operation *op, const DispatchContext &) {
         ExecScope exec = cast<GemmAsyncOp>(op).getExec();
         if (exec == ExecScope::thread || exec == ExecScope::warp)
           return Verdict::accept();
         return Verdict::reject(
             "issued by a " + stringifyExecScope(exec).str() +
             "; one thread issues tcgen05.mma (exec thread), or a warp that "
             "elects one lane (exec warp)");
       }},
      {"tmem_address",
       [](Operation *op, const DispatchContext &) {
         auto gemm = cast<GemmAsyncOp>(op);
         llvm::SmallVector<std::pair<Value, StringRef>, 4> tmem = {
             {gemm.getC(), "C"}};
         if (gemm.getA().getType().getScope() == MemoryScope::tmem)
           tmem.push_back({gemm.getA(), "A"});
         if (gemm.getSfa()) {
           tmem.push_back({gemm.getSfa(), "sfa"});
           tmem.push_back({gemm.getSfb(), "sfb"});
         }
         for (auto [value, name] : tmem)
           if (std::optional<std::string> problem =
                   tcgen05::tmemAddressProblem(value, name))
             return Verdict::reject(*problem);
         return Verdict::accept();
       }},
      {"element_types",
       [](Operation *op, const DispatchContext &) {
         std::string bad = elementTypeProblem(cast<GemmAsyncOp>(op));
         return bad.empty() ? Verdict::accept() : Verdict::reject(bad);
       }},
      tcgen05::targetPredicate("tcgen05.mma"),
  };
  v.plan = planTcgen05Mma;
  v.emit = emitTcgen05Mma;
  registry.registerVariant(std::move(v));
}

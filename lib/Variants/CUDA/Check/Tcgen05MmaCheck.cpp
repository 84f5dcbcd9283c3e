//===- Tcgen05MmaCheck.cpp - translation validation of tcgen05 (MMA) ------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads every emitted nvvm.tcgen05.mma / .mma.ws / .mma.block_scale back:
// kind, cta_group, collector and block size from its attributes (each must
// be what the op asks for), the A/B descriptor words, tensor-memory
// addresses, the instruction descriptor and the enable-input-d flag by
// evaluating the operands (A at kSharedBase, B at kSecondSharedBase when
// it is another buffer, tensor memory at kTmemBase). The instruction
// descriptor's element formats must be the op's element types. Which output
// tile and K step each MMA computes is not taken from the plan: the check
// derives it from where the model puts the MMA's D(0, 0) in C's layout and
// from the MMAs before it, then compares every A, B, D and scale element
// with the layouts (plan_check word-level check).
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"

#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/ScopedPrinter.h"

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;
namespace model = tile::cuda::model;
using tcgen05_mma::InputD;

namespace {

std::optional<model::Element> elementOf(Type t) {
  using E = model::Element;
  if (t.isF16()) return E::F16;
  if (t.isBF16()) return E::BF16;
  if (t.isF32() || t.isTF32()) return E::TF32;
  if (isa<Float8E4M3FNType>(t)) return E::E4M3;
  if (isa<Float8E5M2Type>(t)) return E::E5M2;
  if (isa<Float6E2M3FNType>(t)) return E::E2M3;
  if (isa<Float6E3M2FNType>(t)) return E::E3M2;
  if (isa<Float4E2M1FNType>(t)) return E::E2M1;
  if (auto i = dyn_cast<IntegerType>(t); i && i.getWidth() == 8)
    return i.isUnsigned() ? E::U8 : E::S8;
  return std::nullopt;
}

std::optional<model::Accumulator> accumulatorOf(Type t) {
  if (t.isF32()) return model::Accumulator::F32;
  if (t.isF16()) return model::Accumulator::F16;
  if (t.isInteger(32)) return model::Accumulator::S32;
  return std::nullopt;
}

model::Kind denseKind(NVVM::Tcgen05MMAKind k) {
  switch (k) {
  case NVVM::Tcgen05MMAKind::F16: return model::Kind::F16;
  case NVVM::Tcgen05MMAKind::TF32: return model::Kind::TF32;
  case NVVM::Tcgen05MMAKind::F8F6F4: return model::Kind::F8F6F4;
  case NVVM::Tcgen05MMAKind::I8: return model::Kind::I8;
  }
  return model::Kind::F16;
}

model::Kind scaledKind(NVVM::MMABlockScaleKind k) {
  switch (k) {
  case NVVM::MMABlockScaleKind::MXF8F6F4: return model::Kind::MXF8F6F4;
  case NVVM::MMABlockScaleKind::MXF4: return model::Kind::MXF4;
  case NVVM::MMABlockScaleKind::MXF4NVF4: return model::Kind::MXF4NVF4;
  }
  return model::Kind::MXF8F6F4;
}

MmaCollector collectorOf(NVVM::Tcgen05MMACollectorOp c) {
  switch (c) {
  case NVVM::Tcgen05MMACollectorOp::LASTUSE: return MmaCollector::lastuse;
  case NVVM::Tcgen05MMACollectorOp::FILL: return MmaCollector::fill;
  case NVVM::Tcgen05MMACollectorOp::USE: return MmaCollector::use;
  case NVVM::Tcgen05MMACollectorOp::DISCARD: break;
  }
  return MmaCollector::discard;
}

/// What one emitted MMA says besides its operands.
struct MmaForm {
  model::Kind kind;
  unsigned ctaGroup = 1;
  bool ws = false;
  MmaCollector collector = MmaCollector::discard;
  unsigned collectorBuffer = 0;
  unsigned scaleBlock = 0;
  /// Operands the model does not define (a shift, lane masks, scale-d).
  bool unmodelled = false;
};

std::optional<MmaForm> formOf(Operation *inst) {
  using F = std::optional<MmaForm>;
  auto group = [](NVVM::CTAGroupKind g) {
    return g == NVVM::CTAGroupKind::CTA_2 ? 2u : 1u;
  };
  return llvm::TypeSwitch<Operation *, F>(inst)
      .Case([&](NVVM::Tcgen05MMAOp mma) -> F {
        return MmaForm{denseKind(mma.getKind()), group(mma.getCtaGroup()),
                       false, collectorOf(mma.getCollectorOp()), 0, 0,
                       mma.getAShiftAttr() || mma.getScaleInputD() ||
                           mma.getDisableOutputLane()};
      })
      .Case([&](NVVM::Tcgen05MMAWsOp mma) -> F {
        return MmaForm{denseKind(mma.getKind()), 1, true,
                       collectorOf(mma.getCollectorOp()),
                       unsigned(mma.getCollectorBBuffer()), 0,
                       bool(mma.getZeroColMask())};
      })
      .Case([&](NVVM::Tcgen05MMABlockScaleOp mma) -> F {
        auto block = mma.getBlockScale();
        return MmaForm{scaledKind(mma.getKind()), group(mma.getCtaGroup()),
                       false, collectorOf(mma.getCollectorOp()), 0,
                       block == NVVM::Tcgen05MMABlockScale::BLOCK16   ? 16u
                       : block == NVVM::Tcgen05MMABlockScale::BLOCK32 ? 32u
                                                                      : 0u,
                       block == NVVM::Tcgen05MMABlockScale::DEFAULT};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The emitted form must be the op's configuration.
Status checkForm(GemmAsyncOp gemm, const MmaForm &f) {
  auto differs = [](const std::string &what, const std::string &emitted,
                    const std::string &op) {
    return Status::failure("a tcgen05.mma is emitted with " + what + " " +
                           emitted + "; the op asks for " + op);
  };
  if (f.unmodelled)
    return Status::failure("a tcgen05.mma uses an A shift, lane masks, a "
                           "scale-d input or the default block size, which "
                           "the check does not model");
  unsigned group = gemm.getCtaGroup().value_or(1);
  if (f.ctaGroup != group)
    return differs("cta_group", std::to_string(f.ctaGroup),
                   std::to_string(group));
  if (f.ws != gemm.getWeightStationary())
    return differs(".ws", f.ws ? "on" : "off",
                   gemm.getWeightStationary() ? "on" : "off");
  MmaCollector c = gemm.getCollector().value_or(MmaCollector::discard);
  if (f.collector != c)
    return differs("collector", stringifyMmaCollector(f.collector).str(),
                   stringifyMmaCollector(c).str());
  if (f.ws && f.collectorBuffer != gemm.getCollectorBuffer().value_or(0))
    return differs("collector buffer", std::to_string(f.collectorBuffer),
                   std::to_string(gemm.getCollectorBuffer().value_or(0)));
  if (model::isBlockScaled(f.kind) != bool(gemm.getSfa()))
    return Status::failure("a tcgen05.mma's kind ::" +
                           model::nameOf(f.kind).str() +
                           (gemm.getSfa() ? " is not block-scaled; the op is"
                                          : " is block-scaled; the op is not"));
  return Status::success();
}

/// The instruction descriptor's element formats must be the op's types.
Status checkFormats(GemmAsyncOp gemm, const model::MmaInstruction &mi) {
  OrReason<model::MmaFields> f =
      model::readInstrDescriptor(mi.idesc, mi.kind, mi.weightStationary);
  if (!f)
    return Status::success(); // the model's refusal is reported with context
  Type a = gemm.getA().getType().getElementType(),
       b = gemm.getB().getType().getElementType(),
       c = gemm.getC().getType().getElementType();
  if (elementOf(a) != f->a || elementOf(b) != f->b)
    return Status::failure(
        "a tcgen05.mma's instruction descriptor multiplies " +
        model::nameOf(f->a).str() + " by " + model::nameOf(f->b).str() +
        "; the op's A and B are " + llvm::to_string(a) + " and " +
        llvm::to_string(b));
  if (accumulatorOf(c) != f->d)
    return Status::failure("a tcgen05.mma's instruction descriptor "
                           "accumulates in another type than C's " +
                           llvm::to_string(c));
  return Status::success();
}

/// The buffers' placements and the operand values that are not numbers.
struct MmaBindings {
  Value accumulate;
  bool aInTmem = false;
};

Status readOperands(Operation *inst, const EmittedValues &values,
                    const MmaBindings &b, plan_check::MmaIssueWords &w) {
  model::MmaInstruction &mi = w.inst;
  auto read = [&](Value v, const char *what, auto &into) -> Status {
    OrReason<int64_t> x = valueOf(values, inst, v, what);
    if (!x)
      return Status::failure(x.reason());
    into = static_cast<std::remove_reference_t<decltype(into)>>(*x);
    return Status::success();
  };
  Value a = inst->getOperand(1), bDesc = inst->getOperand(2);
  Value d = inst->getOperand(0), idesc = inst->getOperand(3);
  Value enable = inst->getOperand(4);
  Status s = read(d, "the D address", mi.dTmem);
  if (s && b.aInTmem)
    s = read(a, "the A address", mi.aTmem);
  uint64_t aWord = 0;
  if (s && !b.aInTmem && (s = read(a, "the A descriptor", aWord)))
    mi.aDescriptor = aWord;
  if (s)
    s = read(bDesc, "the B descriptor", mi.bDescriptor);
  if (s)
    s = read(idesc, "the instruction descriptor", mi.idesc);
  if (auto scaled = dyn_cast<NVVM::Tcgen05MMABlockScaleOp>(inst); s && scaled) {
    s = read(scaled.getScaleA(), "the A scale address", mi.sfaTmem);
    if (s)
      s = read(scaled.getScaleB(), "the B scale address", mi.sfbTmem);
  }
  if (!s)
    return s;
  if (enable == b.accumulate) {
    w.inputD = InputD::FromFlag;
    return Status::success();
  }
  int64_t flag = 0;
  if (Status f = read(enable, "enable-input-d", flag); !f)
    return f;
  w.inputD = flag ? InputD::Accumulate : InputD::Overwrite;
  return Status::success();
}

/// One emitted MMA as words; its form and formats must be the op's.
OrReason<plan_check::MmaIssueWords> readMma(GemmAsyncOp gemm, Operation *inst,
                                            const EmittedValues &values,
                                            const MmaBindings &b) {
  using R = OrReason<plan_check::MmaIssueWords>;
  std::optional<MmaForm> form = formOf(inst);
  if (!form)
    return R::failure(unexpectedInstruction(inst).reason());
  if (Status s = checkForm(gemm, *form); !s)
    return R::failure(s.reason());
  plan_check::MmaIssueWords w;
  w.inst.kind = form->kind;
  w.inst.ctaGroup = form->ctaGroup;
  w.inst.weightStationary = form->ws;
  w.inst.scaleBlock = form->scaleBlock;
  if (Status s = readOperands(inst, values, b, w); !s)
    return R::failure(s.reason());
  if (Status s = checkFormats(gemm, w.inst); !s)
    return R::failure(s.reason());
  return w;
}

/// The op's sides and shape, as the word-level check takes them.
OrReason<tcgen05_mma::Request> requestOf(GemmAsyncOp op) {
  using R = OrReason<tcgen05_mma::Request>;
  tcgen05_mma::Request r;
  const char *why = "the check needs static offsets";
  auto side = [&](BufferType t, ArrayRef<int64_t> offsets, StringRef name) {
    return copy_async::regionSide(t, offsets, /*regionRank=*/2, name, why);
  };
  BufferType a = op.getA().getType(), b = op.getB().getType(),
             c = op.getC().getType();
  OrReason<copy_async::RegionSide> as = side(a, op.getAStaticOffsets(), "A"),
                                   bs = side(b, op.getBStaticOffsets(), "B"),
                                   cs = side(c, op.getCStaticOffsets(), "C");
  for (auto *s : {&as, &bs, &cs})
    if (!*s)
      return R::failure(s->reason());
  r.aSide = *as, r.bSide = *bs, r.cSide = *cs;
  r.aBits = a.getElementBits(), r.bBits = b.getElementBits();
  r.dBits = c.getElementBits();
  r.transposeA = op.getTransposeA(), r.transposeB = op.getTransposeB();
  r.m = op.getSizes()[0], r.n = op.getSizes()[1], r.k = op.getSizes()[2];
  r.hasAccumulateFlag = static_cast<bool>(op.getAccumulate());
  if (op.getSfa()) {
    BufferType sa = op.getSfa().getType(), sb = op.getSfb().getType();
    auto sfa = side(sa, SmallVector<int64_t>(sa.getRank(), 0), "sfa");
    auto sfb = side(sb, SmallVector<int64_t>(sb.getRank(), 0), "sfb");
    if (!sfa || !sfb)
      return R::failure(!sfa ? sfa.reason() : sfb.reason());
    r.sfaSide = *sfa, r.sfbSide = *sfb;
  }
  return r;
}

} // namespace

LogicalResult lowering_check::checkTcgen05MmaLowering(
    Operation *op, ValueRange lowered, ArrayRef<Operation *> emitted,
    const dispatch::DispatchContext &) {
  auto gemm = cast<GemmAsyncOp>(op);
  GemmAsyncOp::Adaptor adaptor(lowered, gemm);
  OrReason<tcgen05_mma::Request> request = requestOf(gemm);
  if (!request)
    return reportOn(op, "tcgen05", Status::failure(request.reason()));
  MmaBindings b{adaptor.getAccumulate(),
                gemm.getA().getType().getScope() == MemoryScope::tmem};
  plan_check::Placement placement{kSharedBase, kTmemBase, kSharedBase};
  EmittedValues values;
  // B first: A's binding wins when both are one buffer.
  if (adaptor.getB() != adaptor.getA())
    placement.sharedBaseB = kSecondSharedBase;
  values.bind(adaptor.getB(), placement.sharedBaseB);
  values.bind(adaptor.getA(), b.aInTmem ? kTmemBase : kSharedBase);
  for (Value tmem : {adaptor.getC(), adaptor.getSfa(), adaptor.getSfb()})
    if (tmem)
      values.bind(tmem, kTmemBase);
  std::vector<plan_check::MmaIssueWords> issues;
  Status read = runEmitted(emitted, values, [&](Operation *inst) -> Status {
    OrReason<plan_check::MmaIssueWords> w = readMma(gemm, inst, values, b);
    if (!w)
      return Status::failure(w.reason());
    issues.push_back(*w);
    return Status::success();
  });
  if (!read)
    return reportOn(op, "tcgen05", read);
  return reportOn(op, "tcgen05",
                  plan_check::checkTcgen05MmaWords(*request, std::nullopt,
                                                   issues, placement,
                                                   {"tcgen05.mma", true}));
}

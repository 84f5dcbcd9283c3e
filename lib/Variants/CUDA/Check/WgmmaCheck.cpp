//===- WgmmaCheck.cpp - translation validation of wgmma ----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads the emitted IR of a wgmma gemm_async back, independently of the
// plan: one nvvm.wgmma.fence.aligned before every nvvm.wgmma.mma_async; each
// MMA's shape (M 64, N legal and dividing the op's N, K of its type) and
// operand types are the op's; M/64 x N/n x K/k MMAs; each descriptor is a
// valid wgmma descriptor word (template decoded with the wgmma flavour)
// advanced by whole 16-byte units; and the accumulator rule: an MMA's
// accumulator is either built before the fence or the result of an
// earlier MMA, and an MMA's result feeds at most one later MMA and
// otherwise only the extractions after the last MMA (nothing reads or
// writes the registers while the chain is in flight). A register A's MMAs
// are inline PTX, read back from the asm string and its constraints (four
// A registers written before the fence, the accumulators tied in place).
// Each descriptor must start from the op's A or B buffer, one each: A's
// from B's marks the swap-AB form (C^T = B^T A^T), read with M and N, and
// the operand types, exchanged. Which elements each
// descriptor reads is the planner's element-by-element check; this check
// does not re-derive it through the PTX model.
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/CUDA/SmemDescriptor.h"
#include "tile/Variants/CUDA/GemmAsync/WgmmaPlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ScopedPrinter.h"

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// The descriptor word's constant template and start advance (bytes):
/// `(field | template) + advance`.
Status checkDescriptor(Value descriptor, StringRef name) {
  int64_t advance = 0;
  if (auto add = descriptor.getDefiningOp<arith::AddIOp>()) {
    APInt step;
    if (!matchPattern(add.getRhs(), m_ConstantInt(&step)))
      return Status::failure(name.str() + " descriptor advance is not a "
                                          "constant");
    advance = step.getSExtValue();
    descriptor = add.getLhs();
  }
  if (advance < 0)
    return Status::failure(name.str() + " descriptor moves back " +
                           str(-advance) + " 16-byte units");
  auto orOp = descriptor.getDefiningOp<arith::OrIOp>();
  APInt word;
  if (!orOp || !matchPattern(orOp.getRhs(), m_ConstantInt(&word)))
    return Status::failure(name.str() + " descriptor is not the buffer's "
                                        "start field OR a constant template");
  OrReason<cuda::SmemDescriptor> decoded = cuda::SmemDescriptor::decode(
      word.getZExtValue(), cuda::DescriptorFlavour::Wgmma);
  if (!decoded)
    return Status::failure(name.str() + " descriptor template: " +
                           decoded.reason());
  if (decoded->startAddress != 0)
    return Status::failure(name.str() + " descriptor template has a start "
                                        "address");
  return Status::success();
}

/// The PTX type name of an operand element type.
StringRef expectedType(Type t) {
  if (t.isBF16()) return "bf16";
  if (t.isF32() || t.isTF32()) return "tf32";
  if (isa<Float8E4M3FNType>(t)) return "e4m3";
  if (isa<Float8E5M2Type>(t)) return "e5m2";
  return "f16";
}

/// One emitted MMA, from an nvvm.wgmma.mma_async or the register-A inline
/// PTX (read back from its asm string and constraints).
struct Mma {
  Operation *op = nullptr;
  int64_t m = 0, n = 0, k = 0;
  std::string d, a, b;
  Value descriptorA, descriptorB; // descriptorA null: A in registers
  SmallVector<Value, 4> aRegisters;
  SmallVector<Value> accumulators; // the inouts struct, or the tied inputs
};

Mma fromNvvm(NVVM::WgmmaMmaAsyncOp mma) {
  Mma out;
  out.op = mma;
  out.m = mma.getShape().getM();
  out.n = mma.getShape().getN();
  out.k = mma.getShape().getK();
  out.d = NVVM::stringifyWGMMATypes(mma.getTypeD()).str();
  out.a = NVVM::stringifyWGMMATypes(mma.getTypeA()).str();
  out.b = NVVM::stringifyWGMMATypes(mma.getTypeB()).str();
  out.descriptorA = mma.getDescriptorA();
  out.descriptorB = mma.getDescriptorB();
  out.accumulators.push_back(mma.getInouts());
  return out;
}

/// The register-A form: `wgmma.mma_async.sync.aligned.m64nNkK.D.A.B {d},
/// {a0..a3}, b-desc, ...` with constraints `=X` per accumulator, `r` x 4,
/// `l`, then each accumulator input tied to its output.
OrReason<std::optional<Mma>> fromInlineAsm(LLVM::InlineAsmOp asmOp) {
  using R = OrReason<std::optional<Mma>>;
  StringRef text = asmOp.getAsmString();
  if (!text.contains("wgmma."))
    return R(std::optional<Mma>());
  llvm::Regex shape("wgmma\\.mma_async\\.sync\\.aligned\\.m([0-9]+)n([0-9]+)"
                    "k([0-9]+)\\.([a-z0-9]+)\\.([a-z0-9]+)\\.([a-z0-9]+) ");
  SmallVector<StringRef, 7> match;
  if (!shape.match(text, &match))
    return R::failure("inline PTX '" + text.str() +
                      "' is not a wgmma.mma_async");
  if (!asmOp.getHasSideEffects())
    return R::failure("the register-A wgmma inline PTX has no side effects "
                      "(LLVM may move it across the fence or the waits)");
  Mma out;
  out.op = asmOp;
  match[1].getAsInteger(10, out.m);
  match[2].getAsInteger(10, out.n);
  match[3].getAsInteger(10, out.k);
  out.d = match[4].str();
  out.a = match[5].str();
  out.b = match[6].str();
  // The immediates: scale-a and scale-b 1, then imm-trans-b, which PTX
  // has for 16-bit types only (tf32 and fp8 are K-major).
  llvm::Regex immediates(", p, 1, 1(, [01])?;");
  SmallVector<StringRef, 2> imm;
  const bool transB = out.b == "f16" || out.b == "bf16";
  if (!immediates.match(text, &imm) || imm[1].empty() == transB)
    return R::failure("register-A wgmma inline PTX '" + text.str() +
                      "' does not end in scale-d, 1, 1" +
                      (transB ? ", imm-trans-b (16-bit B)"
                              : " (no imm-trans-b for " + out.b + ")"));
  SmallVector<StringRef> constraints;
  asmOp.getConstraints().split(constraints, ',');
  auto result = asmOp.getNumResults() == 1
                    ? dyn_cast<LLVM::LLVMStructType>(
                          asmOp.getResult(0).getType())
                    : LLVM::LLVMStructType();
  const size_t regs = result ? result.getBody().size() : 0;
  ValueRange operands = asmOp.getOperands();
  bool shapeOk = regs > 0 && operands.size() == 5 + regs &&
                 constraints.size() == 5 + 2 * regs;
  for (size_t i = 0; shapeOk && i < regs; ++i)
    shapeOk = constraints[i] == (out.d == "f16" ? "=r" : "=f") &&
              constraints[regs + 5 + i] == std::to_string(i);
  for (size_t i = 0; shapeOk && i < 5; ++i)
    shapeOk = constraints[regs + i] == (i < 4 ? "r" : "l");
  if (!shapeOk)
    return R::failure("register-A wgmma inline PTX constraints '" +
                      asmOp.getConstraints().str() +
                      "' are not the accumulator outputs, four A registers, "
                      "B's descriptor and the accumulators tied to the "
                      "outputs");
  out.aRegisters.assign(operands.begin(), operands.begin() + 4);
  out.descriptorB = operands[4];
  out.accumulators.assign(operands.begin() + 5, operands.end());
  return R(std::optional<Mma>(std::move(out)));
}

/// The fence and the MMAs among the emitted ops, in order.
Status collectMmas(ArrayRef<Operation *> emitted, Operation *&fence,
                   SmallVectorImpl<Mma> &mmas) {
  fence = nullptr;
  for (Operation *inst : emitted) {
    std::optional<Mma> mma;
    if (isa<NVVM::WgmmaFenceAlignedOp>(inst)) {
      if (fence)
        return Status::failure("two wgmma fences in one op's lowering");
      fence = inst;
    } else if (auto nvvm = dyn_cast<NVVM::WgmmaMmaAsyncOp>(inst)) {
      mma = fromNvvm(nvvm);
    } else if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(inst)) {
      OrReason<std::optional<Mma>> read = fromInlineAsm(asmOp);
      if (!read)
        return Status::failure(read.reason());
      mma = *read;
    }
    if (!mma)
      continue;
    if (!fence)
      return Status::failure("a wgmma.mma_async before the wgmma fence");
    mmas.push_back(std::move(*mma));
  }
  if (mmas.empty())
    return Status::failure("no wgmma.mma_async emitted");
  return Status::success();
}

/// The register and accumulator rules of one MMA: A registers and
/// accumulators written before the fence (or, for the accumulators, an
/// earlier MMA's result); its result read only by at most one later MMA
/// while the chain is in flight.
Status checkRegisters(const Mma &mma, const std::string &what,
                      Operation *fence, Operation *last,
                      const llvm::DenseSet<Operation *> &chain) {
  for (Value reg : mma.aRegisters)
    if (Operation *def = reg.getDefiningOp();
        def && !def->isBeforeInBlock(fence))
      return Status::failure(what + "'s A register is written after the "
                                    "wgmma fence by '" +
                             def->getName().getStringRef().str() + "'");
  for (Value in : mma.accumulators) {
    Operation *def = in.getDefiningOp();
    if (auto extract = dyn_cast_or_null<LLVM::ExtractValueOp>(def);
        extract && !extract->isBeforeInBlock(fence))
      def = extract.getContainer().getDefiningOp();
    if (def && !chain.contains(def) && !def->isBeforeInBlock(fence))
      return Status::failure(what + "'s accumulator is written after the "
                                    "wgmma fence by '" +
                             def->getName().getStringRef().str() + "'");
  }
  auto inFlight = [&](Operation *user) {
    return Status::failure(what + "'s accumulator is read by '" +
                           user->getName().getStringRef().str() +
                           "' while the chain is in flight");
  };
  llvm::SmallPtrSet<Operation *, 2> next;
  for (Operation *user : mma.op->getResult(0).getUsers()) {
    if (chain.contains(user)) {
      next.insert(user);
      continue;
    }
    auto extract = dyn_cast<LLVM::ExtractValueOp>(user);
    if (!extract)
      return inFlight(user);
    // The NVVM chain extracts only after its last MMA; the register-A
    // chain passes each member on to the next MMA of its tile.
    if (mma.descriptorA) {
      if (extract->isBeforeInBlock(last))
        return inFlight(user);
      continue;
    }
    for (Operation *reader : extract.getResult().getUsers()) {
      if (chain.contains(reader))
        next.insert(reader);
      else if (reader->isBeforeInBlock(last))
        return inFlight(reader);
    }
  }
  if (next.size() > 1)
    return Status::failure(what + "'s accumulator feeds " + str(next.size()) +
                           " MMAs");
  return Status::success();
}

/// Whether `v` is computed from `source` through the ops defining it.
bool derivesFrom(Value v, Value source) {
  SmallVector<Value> stack{v};
  llvm::DenseSet<Value> seen;
  while (!stack.empty()) {
    Value x = stack.pop_back_val();
    if (x == source)
      return true;
    if (!seen.insert(x).second)
      continue;
    if (Operation *def = x.getDefiningOp())
      llvm::append_range(stack, def->getOperands());
  }
  return false;
}

Status checkForm(GemmAsyncOp op, ArrayRef<Mma> mmas, bool swap);
Status checkChain(ArrayRef<Mma> mmas, Operation *fence, bool registerA);

Status checkEmitted(GemmAsyncOp op, ValueRange lowered,
                    ArrayRef<Operation *> emitted) {
  Operation *fence = nullptr;
  SmallVector<Mma> mmas;
  if (Status s = collectMmas(emitted, fence, mmas); !s)
    return s;
  const bool registerA = op.getA().getType().getScope() == MemoryScope::local;
  if (!registerA && !mmas.front().descriptorA)
    return Status::failure("MMA 0 takes A from registers; A is in shared "
                           "memory");
  // Which buffer each descriptor starts from: the op's A and B, or in the
  // swap-AB form (C^T = B^T A^T) B and A, and then the MMAs see an
  // N x M x K problem with B's type as A's. Where both readings fit (A and
  // B lower to one pointer, e.g. two stages of one ring), the form whose
  // shapes and counts match is the one emitted.
  GemmAsyncOp::Adaptor adaptor(lowered, op);
  bool direct = true, swapped = false;
  if (!registerA) {
    const Mma &mma = mmas.front();
    direct = derivesFrom(mma.descriptorA, adaptor.getA()) &&
             derivesFrom(mma.descriptorB, adaptor.getB());
    swapped = derivesFrom(mma.descriptorA, adaptor.getB()) &&
              derivesFrom(mma.descriptorB, adaptor.getA());
    if (!direct && !swapped)
      return Status::failure("the MMA descriptors do not start from the "
                             "op's A and B buffers (one each)");
  }
  Status form = Status::failure("");
  for (bool swap : {false, true}) {
    if (!(swap ? swapped : direct))
      continue;
    Status s = checkForm(op, mmas, swap);
    if (s)
      return checkChain(mmas, fence, registerA);
    if (form.reason().empty())
      form = s;
  }
  return form;
}

/// The MMAs' shapes, count and types against the op's problem, read
/// directly or (`swap`) as C^T = B^T A^T.
Status checkForm(GemmAsyncOp op, ArrayRef<Mma> mmas, bool swap) {
  SmallVector<int64_t, 3> mnk(op.getSizes());
  Type a = op.getA().getType().getElementType();
  Type b = op.getB().getType().getElementType();
  Type c = op.getC().getType().getElementType();
  if (swap) {
    std::swap(mnk[0], mnk[1]);
    std::swap(a, b);
  }
  const Mma &first = mmas.front();
  int64_t n = first.n, k = first.k;
  int64_t wantK = 256 / a.getIntOrFloatBitWidth();
  std::string form = swap ? " (read as swap-AB, C^T = B A^T)" : "";
  if (first.m != 64 || k != wantK || !wgmma::shapeRule(n).empty() ||
      mnk[1] % n)
    return Status::failure("MMA shape m" + str(first.m) + "n" + str(n) +
                           "k" + str(k) + " for a " + str(mnk[0]) + "x" +
                           str(mnk[1]) + "x" + str(mnk[2]) + " op (m64, k" +
                           str(wantK) + ", N dividing the op's)" + form);
  int64_t want = (mnk[0] / 64) * (mnk[1] / n) * (mnk[2] / k);
  if (int64_t(mmas.size()) != want)
    return Status::failure(str(mmas.size()) + " MMAs; an " + str(mnk[0]) +
                           "x" + str(mnk[1]) + "x" + str(mnk[2]) +
                           " op of m64n" + str(n) + "k" + str(k) + " needs " +
                           str(want) + form);
  for (auto [i, mma] : llvm::enumerate(mmas)) {
    std::string what = "MMA " + str(i);
    if (mma.m != first.m || mma.n != n || mma.k != k)
      return Status::failure(what + " has another shape");
    if (mma.a != expectedType(a) || mma.b != expectedType(b))
      return Status::failure(what + " operand types differ from the op's " +
                             llvm::to_string(a) + " x " + llvm::to_string(b) +
                             form);
    if (mma.d != (c.isF16() ? "f16" : "f32"))
      return Status::failure(what + " accumulates in another type than C's");
  }
  return Status::success();
}

/// What every MMA must satisfy whatever the form: A from registers exactly
/// when A is a register tile, valid descriptors, the register rule.
Status checkChain(ArrayRef<Mma> mmas, Operation *fence, bool registerA) {
  llvm::DenseSet<Operation *> chain;
  for (const Mma &mma : mmas)
    chain.insert(mma.op);
  for (auto [i, mma] : llvm::enumerate(mmas)) {
    std::string what = "MMA " + str(i);
    if (registerA != !mma.descriptorA)
      return Status::failure(what + (registerA ? " reads A through a "
                                                 "descriptor; A is a "
                                                 "register tile"
                                               : " takes A from registers; "
                                                 "A is in shared memory"));
    if (mma.descriptorA)
      if (Status s = checkDescriptor(mma.descriptorA, "A"); !s)
        return s;
    if (Status s = checkDescriptor(mma.descriptorB, "B"); !s)
      return s;
    if (Status s = checkRegisters(mma, what, fence, mmas.back().op, chain); !s)
      return s;
  }
  return Status::success();
}

} // namespace

LogicalResult lowering_check::checkWgmmaLowering(
    Operation *op, ValueRange lowered, ArrayRef<Operation *> emitted,
    const dispatch::DispatchContext &) {
  return reportOn(op, "wgmma",
                  checkEmitted(cast<GemmAsyncOp>(op), lowered, emitted));
}

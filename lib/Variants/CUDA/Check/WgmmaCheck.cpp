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
// writes the registers while the chain is in flight). Which elements each
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

NVVM::WGMMATypes expectedType(Type t) {
  if (t.isBF16()) return NVVM::WGMMATypes::bf16;
  if (t.isF32() || t.isTF32()) return NVVM::WGMMATypes::tf32;
  if (isa<Float8E4M3FNType>(t)) return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(t)) return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::f16;
}

Status checkEmitted(GemmAsyncOp op, ArrayRef<Operation *> emitted) {
  Operation *fence = nullptr;
  SmallVector<NVVM::WgmmaMmaAsyncOp> mmas;
  for (Operation *inst : emitted) {
    if (isa<NVVM::WgmmaFenceAlignedOp>(inst)) {
      if (fence)
        return Status::failure("two wgmma fences in one op's lowering");
      fence = inst;
    } else if (auto mma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(inst)) {
      if (!fence)
        return Status::failure("a wgmma.mma_async before the wgmma fence");
      mmas.push_back(mma);
    }
  }
  ArrayRef<int64_t> mnk = op.getSizes();
  if (mmas.empty())
    return Status::failure("no wgmma.mma_async emitted");
  Type a = op.getA().getType().getElementType();
  Type b = op.getB().getType().getElementType();
  Type c = op.getC().getType().getElementType();
  NVVM::MMAShapeAttr shape = mmas.front().getShape();
  int64_t n = shape.getN(), k = shape.getK();
  int64_t wantK = 256 / a.getIntOrFloatBitWidth();
  if (shape.getM() != 64 || k != wantK || !wgmma::shapeRule(n).empty() ||
      mnk[1] % n)
    return Status::failure("MMA shape m" + str(shape.getM()) + "n" + str(n) +
                           "k" + str(k) + " for a " + str(mnk[0]) + "x" +
                           str(mnk[1]) + "x" + str(mnk[2]) + " op (m64, k" +
                           str(wantK) + ", N dividing the op's)");
  int64_t want = (mnk[0] / 64) * (mnk[1] / n) * (mnk[2] / k);
  if (int64_t(mmas.size()) != want)
    return Status::failure(str(mmas.size()) + " MMAs; an " + str(mnk[0]) +
                           "x" + str(mnk[1]) + "x" + str(mnk[2]) +
                           " op of m64n" + str(n) + "k" + str(k) + " needs " +
                           str(want));
  llvm::DenseSet<Operation *> chain(mmas.begin(), mmas.end());
  for (auto [i, mma] : llvm::enumerate(mmas)) {
    std::string what = "MMA " + str(i);
    if (mma.getShape() != shape)
      return Status::failure(what + " has another shape");
    if (mma.getTypeA() != expectedType(a) || mma.getTypeB() != expectedType(b))
      return Status::failure(what + " operand types differ from the op's " +
                             llvm::to_string(a) + " x " + llvm::to_string(b));
    NVVM::WGMMATypes d =
        c.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::f32;
    if (mma.getTypeD() != d)
      return Status::failure(what + " accumulates in another type than C's");
    if (Status s = checkDescriptor(mma.getDescriptorA(), "A"); !s)
      return s;
    if (Status s = checkDescriptor(mma.getDescriptorB(), "B"); !s)
      return s;
    // The accumulator rule.
    Operation *in = mma.getInouts().getDefiningOp();
    if (in && !chain.contains(in) && !in->isBeforeInBlock(fence))
      return Status::failure(what + "'s accumulator is written after the "
                                    "wgmma fence by '" +
                             in->getName().getStringRef().str() + "'");
    int64_t chained = 0;
    for (Operation *user : mma.getResult().getUsers()) {
      if (chain.contains(user)) {
        ++chained;
        continue;
      }
      if (!isa<LLVM::ExtractValueOp>(user) ||
          user->isBeforeInBlock(mmas.back()))
        return Status::failure(what + "'s accumulator is read by '" +
                               user->getName().getStringRef().str() +
                               "' while the chain is in flight");
    }
    if (chained > 1)
      return Status::failure(what + "'s accumulator feeds " + str(chained) +
                             " MMAs");
  }
  return Status::success();
}

} // namespace

LogicalResult lowering_check::checkWgmmaLowering(
    Operation *op, ValueRange, ArrayRef<Operation *> emitted,
    const dispatch::DispatchContext &) {
  return reportOn(op, "wgmma", checkEmitted(cast<GemmAsyncOp>(op), emitted));
}

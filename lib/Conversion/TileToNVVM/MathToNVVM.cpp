//===- MathToNVVM.cpp - --tile-math-to-nvvm --------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// f32 math ops as the special-function unit's approximations (the fast
// path softmax and activations need); max/min, fma, abs and sqrt as the
// LLVM intrinsics NVPTX selects to single instructions; everything else is
// left to convert-gpu-to-nvvm (libdevice).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"


namespace tile {
#define GEN_PASS_DEF_TILEMATHTONVVM
#include "tile/Conversion/TileToNVVM/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {

Value callIntrinsic(PatternRewriter &rewriter, Location loc, StringRef name,
                    Value x) {
  return LLVM::CallIntrinsicOp::create(rewriter, loc, x.getType(),
                                       rewriter.getStringAttr(name),
                                       ValueRange{x})
      .getResult(0);
}

Value scaled(PatternRewriter &rewriter, Location loc, Value x, double by) {
  Value c = arith::ConstantOp::create(rewriter, loc,
                                      rewriter.getF32FloatAttr(float(by)));
  return arith::MulFOp::create(rewriter, loc, x, c);
}

constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;
constexpr const char *kEx2 = "llvm.nvvm.ex2.approx.ftz.f32";
constexpr const char *kLg2 = "llvm.nvvm.lg2.approx.ftz.f";

template <typename OpT>
struct F32Pattern : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  using Build = Value (*)(PatternRewriter &, Location, Value);
  F32Pattern(MLIRContext *ctx, Build build)
      : OpRewritePattern<OpT>(ctx), build(build) {}

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    rewriter.replaceOp(op, build(rewriter, op.getLoc(), op.getOperand()));
    return success();
  }
  Build build;
};

Value exp2(PatternRewriter &r, Location loc, Value x) {
  return callIntrinsic(r, loc, kEx2, x);
}
Value exp(PatternRewriter &r, Location loc, Value x) {
  return callIntrinsic(r, loc, kEx2, scaled(r, loc, x, kLog2E));
}
Value log2(PatternRewriter &r, Location loc, Value x) {
  return callIntrinsic(r, loc, kLg2, x);
}
Value log(PatternRewriter &r, Location loc, Value x) {
  return scaled(r, loc, callIntrinsic(r, loc, kLg2, x), kLn2);
}
Value rsqrt(PatternRewriter &r, Location loc, Value x) {
  return callIntrinsic(r, loc, "llvm.nvvm.rsqrt.approx.ftz.f", x);
}
Value tanh(PatternRewriter &r, Location loc, Value x) {
  // tanh.approx.f32 has no NVVM intrinsic.
  auto dialect = LLVM::AsmDialectAttr::get(r.getContext(),
                                           LLVM::AsmDialect::AD_ATT);
  return LLVM::InlineAsmOp::create(
             r, loc, x.getType(), ValueRange{x}, "tanh.approx.f32 $0, $1;",
             "=f,f", /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::TailCallKind::None, dialect, ArrayAttr())
      .getResult(0);
}

/// `OpT` on f32 (or f16 / bf16 / f64) as the LLVM intrinsic `IntrT`, which
/// NVPTX selects to one instruction (max.f32, fma.rn.f32, sqrt.rn.f32, ...)
/// instead of the libdevice call convert-gpu-to-nvvm would make.
template <typename OpT, typename IntrT>
struct IntrinsicPattern : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    if (!type.isF32() && !type.isF16() && !type.isBF16() && !type.isF64())
      return failure();
    rewriter.replaceOpWithNewOp<IntrT>(op, type, op->getOperands());
    return success();
  }
};

/// |x| as the sign bit cleared: exact for every input (-0, NaN, infinities)
/// and legal where convert-gpu-to-nvvm refuses llvm.intr.fabs.
struct AbsFPattern : OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type)
      return failure();
    unsigned width = type.getWidth();
    Location loc = op.getLoc();
    Type bits = rewriter.getIntegerType(width);
    Value raw = arith::BitcastOp::create(rewriter, loc, bits, op.getOperand());
    Value mask = arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getIntegerAttr(bits, APInt::getSignedMaxValue(width)));
    Value cleared = arith::AndIOp::create(rewriter, loc, raw, mask);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, cleared);
    return success();
  }
};

/// Correctly rounded square roots (sqrt.rn) through the NVVM intrinsics:
/// convert-gpu-to-nvvm refuses llvm.intr.sqrt. f16 and bf16 go through
/// f32, still correctly rounded (f32 has more than twice their bits).
struct SqrtPattern : OpRewritePattern<math::SqrtOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::SqrtOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Location loc = op.getLoc();
    if (type.isF64()) {
      rewriter.replaceOp(op, callIntrinsic(rewriter, loc, "llvm.nvvm.sqrt.rn.d",
                                           op.getOperand()));
      return success();
    }
    if (!type.isF32() && !type.isF16() && !type.isBF16())
      return failure();
    Value x = op.getOperand();
    if (!type.isF32())
      x = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), x);
    Value root = callIntrinsic(rewriter, loc, "llvm.nvvm.sqrt.rn.f", x);
    if (!type.isF32())
      root = arith::TruncFOp::create(rewriter, loc, type, root);
    rewriter.replaceOp(op, root);
    return success();
  }
};

struct TileMathToNVVMPass
    : public tile::impl::TileMathToNVVMBase<TileMathToNVVMPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<F32Pattern<math::Exp2Op>>(ctx, exp2);
    patterns.add<F32Pattern<math::ExpOp>>(ctx, exp);
    patterns.add<F32Pattern<math::Log2Op>>(ctx, log2);
    patterns.add<F32Pattern<math::LogOp>>(ctx, log);
    patterns.add<F32Pattern<math::RsqrtOp>>(ctx, rsqrt);
    patterns.add<F32Pattern<math::TanhOp>>(ctx, tanh);
    patterns.add<AbsFPattern, SqrtPattern>(ctx);
    patterns.add<IntrinsicPattern<arith::MaxNumFOp, LLVM::MaxNumOp>,
                 IntrinsicPattern<arith::MinNumFOp, LLVM::MinNumOp>,
                 IntrinsicPattern<arith::MaximumFOp, LLVM::MaximumOp>,
                 IntrinsicPattern<arith::MinimumFOp, LLVM::MinimumOp>,
                 IntrinsicPattern<math::FmaOp, LLVM::FMAOp>>(ctx);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

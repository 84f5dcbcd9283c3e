//===- variant.cpp - a variant registered from another compiler ------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What an embedding compiler does to lower a copy no built-in variant takes
// (shared -> shared inside one CTA) through its own routine: it registers a
// `vendor_call` variant of tile.copy_async, with named predicates, a
// planner built on tile-mlir's public helpers, an emitter and a check of
// the emitted IR, then runs selection and lowering with the check on.
//
//   tile-consumer-variant input.mlir [--wrong-byte-count]
//
// --wrong-byte-count breaks the emitter (two bytes short): the check must
// refuse it.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/VariantHelpers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

constexpr StringLiteral kCallee = "vendor_shared_copy";
bool wrongByteCount = false;

/// The routine copies `bytes` contiguous bytes from src + srcOffset to
/// dst + dstOffset (element offsets of the region's first element).
struct VendorCopyPlan {
  int64_t bytes = 0;
  int64_t srcOffset = 0;
  int64_t dstOffset = 0;
};

int64_t regionBytes(CopyAsyncOp copy) {
  int64_t bytes = copy.getSrcType().getElementBits() / 8;
  for (int64_t size : copy.getSizes())
    bytes *= size;
  return bytes;
}

Verdict sharedToShared(CopyAsyncOp copy, const DispatchContext &) {
  if (copy.getSrcType().getScope() == MemoryScope::shared &&
      copy.getDstType().getScope() == MemoryScope::shared &&
      !copy.getRemoteCta())
    return Verdict::success();
  return Verdict::failure(copy_async::direction(copy) +
                          "; vendor_call copies shared -> shared in one CTA");
}

/// The region's first element, when the region is contiguous in the
/// buffer (element i of the region, row-major, at start + i). Leading
/// indexed dims are already folded into the layout by the public
/// regionSide helper.
OrReason<int64_t> contiguousStart(const copy_async::RegionSide &side,
                                  ArrayRef<int64_t> sizes) {
  int64_t rank = sizes.size();
  SmallVector<int64_t> coord(side.offsets.begin(), side.offsets.end());
  int64_t start = at(side.layout.apply(coord, side.shape), Axis::m);
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      coord[d] = side.offsets[d] + rest % sizes[d];
      rest /= sizes[d];
    }
    if (at(side.layout.apply(coord, side.shape), Axis::m) != start + i)
      return OrReason<int64_t>::failure(
          "the region is not contiguous (element " + std::to_string(i) +
          ")");
  }
  return start;
}

OrReason<VendorCopyPlan> planVendorCopy(CopyAsyncOp copy,
                                        const DispatchContext &) {
  auto sizes = copy.getSizes();
  int64_t rank = sizes.size();
  OrReason<copy_async::RegionSide> src = copy_async::regionSide(
      copy.getSrcType(), copy.getSrcStaticOffsets(), rank, "source",
      "a runtime offset is not supported");
  if (!src)
    return OrReason<VendorCopyPlan>::failure(src.reason());
  OrReason<copy_async::RegionSide> dst = copy_async::regionSide(
      copy.getDstType(), copy.getDstStaticOffsets(), rank, "destination",
      "a runtime offset is not supported");
  if (!dst)
    return OrReason<VendorCopyPlan>::failure(dst.reason());
  OrReason<int64_t> srcStart = contiguousStart(*src, sizes);
  if (!srcStart)
    return OrReason<VendorCopyPlan>::failure("source: " + srcStart.reason());
  OrReason<int64_t> dstStart = contiguousStart(*dst, sizes);
  if (!dstStart)
    return OrReason<VendorCopyPlan>::failure("destination: " +
                                             dstStart.reason());
  return VendorCopyPlan{regionBytes(copy), *srcStart, *dstStart};
}

Value elementAddress(RewriterBase &rewriter, Location loc, Value base,
                     Type element, int64_t offset) {
  return LLVM::GEPOp::create(rewriter, loc, base.getType(), element, base,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
}

LogicalResult emitVendorCopy(CopyAsyncOp copy, const VendorCopyPlan &plan,
                             ValueRange lowered, const DispatchContext &,
                             RewriterBase &rewriter) {
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  Location loc = copy.getLoc();
  MLIRContext *ctx = copy.getContext();
  auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
  auto fnType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(ctx), {ptr3, ptr3, rewriter.getI32Type()});
  Operation *table = SymbolTable::getNearestSymbolTable(copy);
  if (!SymbolTable::lookupSymbolIn(table, kCallee)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&table->getRegion(0).front());
    LLVM::LLVMFuncOp::create(rewriter, loc, kCallee, fnType);
  }
  Type element = copy.getSrcType().getElementType();
  Value src = elementAddress(rewriter, loc, adaptor.getSrc(), element,
                             plan.srcOffset);
  Value dst = elementAddress(rewriter, loc, adaptor.getDst(), element,
                             plan.dstOffset);
  Value bytes = LLVM::ConstantOp::create(
      rewriter, loc, rewriter.getI32Type(),
      plan.bytes - (wrongByteCount ? 2 : 0));
  LLVM::CallOp::create(rewriter, loc, fnType, kCallee,
                       ValueRange{src, dst, bytes});
  return success();
}

/// Reads the emitted IR back: exactly one call of the routine, moving the
/// region's bytes (computed here from the op's types, not from the plan).
LogicalResult checkVendorCopy(Operation *op, ValueRange,
                              ArrayRef<Operation *> emitted,
                              const DispatchContext &) {
  auto copy = cast<CopyAsyncOp>(op);
  SmallVector<LLVM::CallOp> calls;
  for (Operation *e : emitted)
    if (auto call = dyn_cast<LLVM::CallOp>(e))
      calls.push_back(call);
  if (calls.size() != 1 || calls[0].getCallee() != kCallee)
    return op->emitError("vendor_call check: expected one call of ")
           << kCallee << ", found " << calls.size() << " calls";
  APInt bytes;
  if (calls[0].getNumOperands() != 3 ||
      !matchPattern(calls[0].getOperand(2), m_ConstantInt(&bytes)))
    return op->emitError("vendor_call check: the byte count is not a constant");
  if (bytes.getSExtValue() != regionBytes(copy))
    return op->emitError("vendor_call check: the call moves ")
           << bytes.getSExtValue() << " bytes, the region has "
           << regionBytes(copy);
  return success();
}

void registerVendorVariant() {
  VariantRegistry &registry = VariantRegistry::global();
  registerVariant(registry,
                  VariantDecl<CopyAsyncOp, VendorCopyPlan>{
                      "vendor_call", /*priority=*/5,
                      {{"shared_to_shared", sharedToShared},
                       copy_async::singleThread("one call")},
                      planVendorCopy, /*prepare=*/nullptr, emitVendorCopy});
  registry.setCheck(CopyAsyncOp::getOperationName(), kCudaFamily,
                    "vendor_call", checkVendorCopy);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 ||
      (argc == 3 && StringRef(argv[2]) != "--wrong-byte-count")) {
    llvm::errs() << "usage: tile-consumer-variant file.mlir "
                    "[--wrong-byte-count]\n";
    return 2;
  }
  wrongByteCount = argc == 3;
  registerBuiltinVariants(VariantRegistry::global());
  registerVendorVariant();
  DialectRegistry dialects;
  dialects.insert<TileDialect, func::FuncDialect, LLVM::LLVMDialect>();
  MLIRContext context(dialects);
  context.printOpOnDiagnostic(false);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  PassManager pm(&context);
  pm.addPass(createTileSelectVariants());
  TileLowerVariantsOptions lower;
  lower.check = true;
  pm.addPass(createTileLowerVariants(lower));
  if (failed(pm.run(*module))) {
    llvm::outs() << "lowering failed\n";
    return 1;
  }
  module->print(llvm::outs());
  llvm::outs() << "\nlowered with the check on\n";
  return 0;
}

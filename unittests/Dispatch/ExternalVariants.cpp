//===- ExternalVariants.cpp - a variant from "another compiler" -------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Built as its own static library, as an embedding compiler would build its
// variants, using only tile-mlir's public headers.
//
//===----------------------------------------------------------------------===//

#include "ExternalVariants.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

/// The external variant's plan: the bytes one call copies.
struct SmallCopyPlan {
  int64_t bytes = 0;
};

OrReason<SmallCopyPlan> planSmallCopy(CopyAsyncOp copy,
                                      const DispatchContext &) {
  int64_t bytes = copy.getSrcType().getElementBits() / 8;
  for (int64_t s : copy.getSizes())
    bytes *= s;
  return SmallCopyPlan{bytes};
}

LogicalResult emitLibraryCall(CopyAsyncOp copy, const SmallCopyPlan &plan,
                              ValueRange lowered, const DispatchContext &,
                              RewriterBase &rewriter) {
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  MLIRContext *ctx = copy.getContext();
  Operation *table = SymbolTable::getNearestSymbolTable(copy);
  constexpr StringLiteral callee = "external_small_copy";
  auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
  auto fnType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(ctx), {ptr3, ptr3, rewriter.getI32Type()});
  if (!SymbolTable::lookupSymbolIn(table, callee)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&table->getRegion(0).front());
    LLVM::LLVMFuncOp::create(rewriter, copy.getLoc(), callee, fnType);
  }
  Value size = LLVM::ConstantOp::create(rewriter, copy.getLoc(),
                                        rewriter.getI32Type(), plan.bytes);
  LLVM::CallOp::create(rewriter, copy.getLoc(), fnType, callee,
                       ValueRange{adaptor.getSrc(), adaptor.getDst(), size});
  return success();
}

Verdict atMost1KiB(CopyAsyncOp copy, const DispatchContext &context) {
  int64_t bytes = (*planSmallCopy(copy, context)).bytes;
  if (bytes <= 1024)
    return Verdict::success();
  return Verdict::failure("region is " + std::to_string(bytes) +
                         " bytes, more than 1024");
}

} // namespace

void external::registerExternalVariants() {
  registerVariant(VariantRegistry::global(),
                  VariantDecl<CopyAsyncOp, SmallCopyPlan>{
                      "fast_small_copy", /*priority=*/100,
                      {{"at_most_1kib", atMost1KiB}}, planSmallCopy,
                      /*prepare=*/nullptr, emitLibraryCall});

  // Selectable (only when forced: every builtin outranks it) but without an
  // emitter yet, as variants are while being developed.
  registerVariant(VariantRegistry::global(),
                  VariantDecl<CopyAsyncOp, SmallCopyPlan>{
                      "planned_only", /*priority=*/-100, {}, planSmallCopy});
}

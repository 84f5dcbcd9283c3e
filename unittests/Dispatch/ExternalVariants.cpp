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
#include "tile/Dispatch/Registry.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

/// Lowers a small shared copy to a call into the embedding compiler's own
/// device library: `external_small_copy(src, dst, bytes)`.
LogicalResult emitLibraryCall(Operation *op, ValueRange lowered,
                              const DispatchContext &, RewriterBase &rewriter) {
  auto copy = cast<CopyAsyncOp>(op);
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  MLIRContext *ctx = op->getContext();
  Operation *table = SymbolTable::getNearestSymbolTable(op);
  constexpr StringLiteral callee = "external_small_copy";
  auto ptr3 = LLVM::LLVMPointerType::get(ctx, 3);
  auto fnType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(ctx), {ptr3, ptr3, rewriter.getI32Type()});
  if (!SymbolTable::lookupSymbolIn(table, callee)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&table->getRegion(0).front());
    LLVM::LLVMFuncOp::create(rewriter, op->getLoc(), callee, fnType);
  }
  int64_t bytes = copy.getSrcType().getElementBits() / 8;
  for (int64_t s : copy.getSizes())
    bytes *= s;
  Value size = LLVM::ConstantOp::create(rewriter, op->getLoc(),
                                        rewriter.getI32Type(), bytes);
  LLVM::CallOp::create(rewriter, op->getLoc(), fnType, callee,
                       ValueRange{adaptor.getSrc(), adaptor.getDst(), size});
  return success();
}

} // namespace

void external::registerExternalVariants() {
  Variant v;
  v.opName = CopyAsyncOp::getOperationName().str();
  v.family = "cuda";
  v.name = "fast_small_copy";
  v.priority = 100;
  v.predicates = {{"at_most_1kib", [](mlir::Operation *op,
                                      const DispatchContext &) {
                     auto copy = llvm::cast<CopyAsyncOp>(op);
                     int64_t bytes = copy.getSrcType().getElementBits() / 8;
                     for (int64_t s : copy.getSizes())
                       bytes *= s;
                     if (bytes <= 1024)
                       return Verdict::accept();
                     return Verdict::reject("region is " +
                                            std::to_string(bytes) +
                                            " bytes, more than 1024");
                   }}};
  v.emit = emitLibraryCall;
  VariantRegistry::global().registerVariant(std::move(v));

  // Selectable (only when forced: every builtin outranks it) but without an
  // emitter yet, as variants are while being developed.
  Variant planned;
  planned.opName = CopyAsyncOp::getOperationName().str();
  planned.family = "cuda";
  planned.name = "planned_only";
  planned.priority = -100;
  VariantRegistry::global().registerVariant(std::move(planned));
}

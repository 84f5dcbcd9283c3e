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

using namespace tile;
using namespace tile::dispatch;

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
  VariantRegistry::global().registerVariant(std::move(v));
}

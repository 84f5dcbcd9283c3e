//===- main.cpp - a find_package(TileMLIR) consumer -------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Parses a file with the tile dialect registered and prints, for every tile
// buffer value, its type and the size of its layout from the layout algebra.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: tile-consumer file.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  registry.insert<tile::TileDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  int buffers = 0;
  module->walk([&](mlir::Operation *op) {
    for (mlir::Value v : op->getResults()) {
      auto type = llvm::dyn_cast<tile::BufferType>(v.getType());
      if (!type)
        continue;
      ++buffers;
      std::optional<tile::TileLayout> layout = type.getEffectiveLayout();
      llvm::outs() << op->getName() << " -> " << type << " : "
                   << (layout ? layout->size() : -1) << " elements\n";
    }
  });
  llvm::outs() << "buffers: " << buffers << "\n";
  return buffers > 0 ? 0 : 1;
}

//===- TileInterfaces.td - tile dialect op interfaces ------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_INTERFACES_TD
#define TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_DispatchOpInterface : OpInterface<"DispatchOpInterface"> {
  let cppNamespace = "::tile";
  let description = [{
    An op that the dispatch registry lowers: `--tile-select-variants` picks
    one of the variants registered for the op's name and records it, and
    `--tile-lower-variants` rewrites the op with that variant's emitter.
    Passes read and write the choice through this interface, never through
    attribute names.
  }];
  let methods = [
    InterfaceMethod<
      "The variant the op forces (`dispatch = \"name\"`), if any.",
      "std::optional<::llvm::StringRef>", "getForcedVariant", (ins), [{}],
      [{ return $_op.getDispatch(); }]>,
    InterfaceMethod<
      "The variant `--tile-select-variants` recorded, if it ran.",
      "std::optional<::llvm::StringRef>", "getSelectedVariant", (ins), [{}],
      [{ return $_op.getVariant(); }]>,
    InterfaceMethod<
      "Records `name` as the selected variant.",
      "void", "setSelectedVariant", (ins "::llvm::StringRef":$name), [{}],
      [{ $_op.setVariant(name); }]>,
  ];
}

#endif // TILE_INTERFACES_TD

//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "tile/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_BufferType : Tile_Type<"Buffer", "buffer", [ShapedTypeInterface]> {
  let summary = "a tile of elements in one memory scope, with a layout";
  let description = [{
    `!tile.buffer<shape x element, scope, layout>` is a tile of `shape`
    elements living in `scope` (`global`, `shared`, `tmem` or `local`), laid
    out by a `#tile.layout`. Global dims may be dynamic (`?`): their sizes are
    runtime values encoded on the host. The layout may be omitted for
    `global`, `shared` and `local` buffers, which are then dense row-major on
    the memory axis; `tmem` buffers always need one.

    The verifier checks that the layout has as many elements as the shape and
    can be grouped by it, that it addresses only the axes the scope has
    (`global`: m; `shared`: m, cta; `tmem`: TLane, TCol, cta; `local`: m and
    thread axes), that a swizzle is one of the NVMMA 32/64/128-byte swizzles
    for the element width and only on shared memory, and that a tensor-memory
    tile stays within 128 lanes and 512 32-bit columns.

    Example:

    ```mlir
    !g = !tile.buffer<?x?xf16, global>
    !s = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
    !t = !tile.buffer<32x16xui8, tmem, #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "tile shape; ShapedType::kDynamic for `?`">:$shape,
    "::mlir::Type":$elementType,
    "::tile::MemoryScope":$scope,
    OptionalParameter<"::tile::LayoutAttr", "element layout">:$layout
  );
  let builders = [
    TypeBuilderWithInferredContext<(ins
        "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType,
        "::tile::MemoryScope":$scope,
        CArg<"::tile::LayoutAttr", "{}">:$layout), [{
      return $_get(elementType.getContext(), shape, elementType, scope, layout);
    }]>
  ];
  let extraClassDeclaration = [{
    using ::mlir::ShapedType::Trait<BufferType>::getRank;
    using ::mlir::ShapedType::Trait<BufferType>::getNumElements;
    using ::mlir::ShapedType::Trait<BufferType>::hasStaticShape;
    using ::mlir::ShapedType::Trait<BufferType>::isDynamicDim;

    bool hasRank() const { return true; }
    BufferType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                         ::mlir::Type elementType) const;

    /// Element width in bits.
    unsigned getElementBits() const;
    /// The explicit layout, or the dense row-major layout of a static shape
    /// on the memory axis when none is given. Empty for dynamic shapes
    /// without a layout.
    std::optional<::tile::TileLayout> getEffectiveLayout() const;
    /// The address step of one index along `dim` when the layout maps that
    /// dim linearly (one iter, or extent 1) and a runtime index keeps every
    /// plan valid: a shared step is a multiple of the swizzle atom (8 rows
    /// of the swizzle) or, unswizzled, of 128 bytes; a tensor-memory step
    /// moves by columns only, 4 at a time. The reason otherwise.
    ::tile::OrReason<::tile::AxisAddress> getIndexStep(unsigned dim) const;
    /// The memory-axis stride of each dim, in elements, when the layout is
    /// strided: static, unswizzled, on axis m, each dim one linear step
    /// (element (i, j, ...) at offset + i s0 + j s1 + ...). The reason
    /// otherwise.
    ::tile::OrReason<::llvm::SmallVector<int64_t, 4>> getElementStrides() const;
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TILE_TYPES_TD

//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "tile/Dialect/Tile/IR/TileBase.td"
include "tile/Dialect/Tile/IR/TileEnums.td"
include "mlir/IR/EnumAttr.td"

def Tile_MemoryScopeAttr
    : EnumAttr<Tile_Dialect, Tile_MemoryScope, "memory_scope"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ExecScopeAttr : EnumAttr<Tile_Dialect, Tile_ExecScope, "exec_scope"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_OobFillAttr : EnumAttr<Tile_Dialect, Tile_OobFill, "oob"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_CpShapeAttr : EnumAttr<Tile_Dialect, Tile_CpShape, "cp_shape"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_CpMulticastAttr
    : EnumAttr<Tile_Dialect, Tile_CpMulticast, "cp_multicast"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_CpSourceFormatAttr
    : EnumAttr<Tile_Dialect, Tile_CpSourceFormat, "cp_src_format"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_FenceKindAttr : EnumAttr<Tile_Dialect, Tile_FenceKind, "fence_kind">;

def Tile_AsyncGroupAttr : EnumAttr<Tile_Dialect, Tile_AsyncGroup, "async_group">;

def Tile_MmaCollectorAttr
    : EnumAttr<Tile_Dialect, Tile_MmaCollector, "collector"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_LayoutAttr : Tile_Attr<"Layout", "layout"> {
  let summary = "a tile layout: logical elements to hardware axes";
  let description = [{
    Maps the elements of a tile to addresses on hardware axes. The notation:

    ```
    layout  ::= term (`+` term)* (`,` `swizzle` `<` B `,` M `,` S `>`)?
    term    ::= `S[` iters `]`     // shard: the logical elements
              | `R[` iters `]`     // replica: copies of every element
              | int (`@` axis)?    // constant offset
    iters   ::= int `:` stride | `(` int (`,` int)* `):(` stride (`,` stride)* `)`
    stride  ::= int (`@` axis)?    // a bare stride is on the memory axis m
    axis    ::= m | TLane | TCol | laneid | warpid | tid_in_wg | wid_in_wg
              | tx | cta
    ```

    The row-major flattened index of an element is written in mixed radix
    over the shard extents; digit `i` adds `digit * stride_i` on its axis.
    Every replica index adds its own offset (the element is present at all of
    them). The swizzle XORs bits `[M+S, M+S+B)` of the memory-axis address
    (in elements) into bits `[M, M+B)`; the NVMMA 32/64/128-byte swizzles are
    `B` = 1/2/3, `S` = 3, and `M` = log2(16 bytes / element size).

    Example:

    ```mlir
    // A 32x16 uint8 shared tile, row-major.
    #smem = #tile.layout<S[(32,16):(16,1)]>
    // The same tile in tensor memory, broadcast to the four warp
    // subpartitions (tcgen05.cp 32x128b.warpx4).
    #tmem = #tile.layout<S[(32,16):(1@TLane,1@TCol)] + R[4:32@TLane]>
    // An 8x256 f16 tile in 128-byte swizzled shared memory.
    #sw128 = #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"::tile::Iter", "shard iters, outermost first">:$shard,
    ArrayRefParameter<"::tile::Iter", "replica iters">:$replica,
    ArrayRefParameter<"::tile::AxisOffset", "constant per-axis offsets">:$offsets,
    AttrParameter<"::tile::Swizzle", "memory-axis XOR swizzle">:$swizzle
  );
  let builders = [
    AttrBuilder<(ins "const ::tile::TileLayout &":$layout), [{
      return $_get($_ctxt, layout.shard(), layout.replica(), layout.offsets(),
                   layout.swizzle());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The layout as a value of the (MLIR-free) layout algebra.
    ::tile::TileLayout getLayout() const;
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

include "tile/Dialect/Tile/IR/TileKernelABIAttrs.td"

#endif // TILE_ATTRS_TD

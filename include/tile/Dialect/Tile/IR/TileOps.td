//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/Dialect/Tile/IR/TileTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

def Tile_AnyBuffer : Type<CPred<"::llvm::isa<::tile::BufferType>($_self)">,
    "tile buffer", "::tile::BufferType">;

class Tile_BufferIn<string scope>
    : Type<And<[CPred<"::llvm::isa<::tile::BufferType>($_self)">,
                CPred<"::llvm::cast<::tile::BufferType>($_self).getScope() == "
                      "::tile::MemoryScope::" # scope>]>,
           scope # " tile buffer", "::tile::BufferType">;

//===----------------------------------------------------------------------===//
// Buffer-making ops
//===----------------------------------------------------------------------===//

def Tile_FromMemrefOp : Tile_Op<"from_memref", [Pure]> {
  let summary = "view a kernel memref as a global tile buffer";
  let description = [{
    Wraps a global-memory `memref` (a kernel argument) as a `global`
    `!tile.buffer` of the same shape and element type. Dynamic memref dims
    stay dynamic. Without a layout on the result the memref must be dense
    row-major; with one, the layout must match the memref's static strides.

    Example:

    ```mlir
    func.func @view(%arg0: memref<?x?xf16, 1>) {
      %g = tile.from_memref %arg0 : memref<?x?xf16, 1> -> !tile.buffer<?x?xf16, global>
      return
    }
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs Tile_BufferIn<"global">:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_AllocSharedOp : Tile_Op<"alloc_shared",
    [MemoryEffects<[MemAlloc<Tile_SharedMemoryResource>]>]> {
  let summary = "allocate a shared-memory tile buffer";
  let description = [{
    Allocates a CTA-local shared-memory tile with the layout of its type.
    The allocation spans the layout's memory cosize. `alignment` (bytes, a
    power of two >= 16) defaults to the least the layout needs: the swizzle
    atom (8 rows of 32/64/128 bytes = 256/512/1024 bytes) for swizzled tiles,
    16 bytes otherwise. TMA and UMMA read 128-byte swizzled tiles correctly
    only from 1024-byte aligned atoms; a smaller explicit alignment is an
    error.

    Example:

    ```mlir
    func.func @alloc() {
      %s = tile.alloc_shared {alignment = 1024 : i64}
          : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
      return
    }
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$alignment);
  let results = (outs Tile_BufferIn<"shared">:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The alignment attribute, or the least alignment the layout requires.
    int64_t getEffectiveAlignment();
    /// Bytes the allocation spans (memory cosize times the element size).
    int64_t getAllocationBytes();
  }];
}

def Tile_TmemBufferOp : Tile_Op<"tmem_buffer", [Pure]> {
  let summary = "view allocated tensor memory as a tile buffer";
  let description = [{
    Names a tensor-memory tile whose origin is `address`, a tensor-memory
    address `(lane << 16) | column` as written by `tcgen05.alloc` (plus any
    offset). The layout's TLane/TCol addresses are relative to it.

    Example:

    ```mlir
    func.func @accumulator(%taddr: i32) {
      %t = tile.tmem_buffer %taddr
          : !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
      return
    }
    ```
  }];
  let arguments = (ins I32:$address);
  let results = (outs Tile_BufferIn<"tmem">:$result);
  let assemblyFormat = "$address attr-dict `:` qualified(type($result))";
}

#endif // TILE_OPS_TD

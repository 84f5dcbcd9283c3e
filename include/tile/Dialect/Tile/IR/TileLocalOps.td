//===- TileLocalOps.td - register-resident tiles ------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// `local` tiles live in the registers of the threads their layout names: a
// thread holds the elements whose thread-axis address is its own, at the
// `m` address the layout gives (its register index). They lower to one
// `llvm.alloca` per tile, read and written only at constant indices, so
// LLVM promotes every element to a register.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LOCAL_OPS_TD
#define TILE_LOCAL_OPS_TD

def Tile_AllocLocalOp : Tile_Op<"alloc_local",
    [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "a register-resident tile of the threads its layout names";
  let description = [{
    Every executing thread gets its own part of the tile: the elements whose
    thread-axis address (`tid_in_wg`, `wid_in_wg`, `laneid`) is its own,
    `cosize(m)` of them, at the layout's `m` addresses. The layout's thread
    axes must cover exactly the 128 threads of a warpgroup (or the 32 lanes
    of a warp when it names only `laneid`); a thread's index is `tid.x`
    modulo 128 (or 32), so blocks are one-dimensional. Without a layout each
    thread holds the whole tile, row-major.

    The elements start undefined: `tile.fill` them, or let an MMA overwrite
    them. The lowering is an `llvm.alloca` in the function's entry block,
    only ever indexed by constants, which LLVM promotes to registers.

    Example (the wgmma m64n256 f32 accumulator fragment: thread
    t = 32w + 4q + r holds row 16w + 8h + q, column 8j + 2r + e in register
    4j + 2h + e):

    ```mlir
    func.func @accumulator() {
      %acc = tile.alloc_local : !tile.buffer<64x256xf32, local,
          #tile.layout<S[(4,2,8,32,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      return
    }
    ```
  }];
  let results = (outs Tile_BufferIn<"local">:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "set every element of a local tile to one value";
  let description = [{
    Each thread writes `value` into every register of its part of `buffer`
    (a `local` tile), e.g. to zero an accumulator before the first MMA.

    Example:

    ```mlir
    func.func @zero() {
      %acc = tile.alloc_local : !tile.buffer<64x8xf32, local,
          #tile.layout<S[(4,2,8,1,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      %zero = arith.constant 0.0 : f32
      tile.fill %acc, %zero : !tile.buffer<64x8xf32, local,
          #tile.layout<S[(4,2,8,1,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>, f32
      return
    }
    ```
  }];
  let arguments = (ins Arg<Tile_BufferIn<"local">, "", [MemWrite]>:$buffer,
                       AnyType:$value);
  let assemblyFormat = [{
    $buffer `,` $value attr-dict `:` qualified(type($buffer)) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "each thread stores its registers of a local tile";
  let description = [{
    Writes the whole `src` tile (`local`) into the region of `dst` (global
    or shared) starting at `dst_offsets`: each thread stores the elements
    it holds, element (i, j) of `src` going to `dst[offsets + (i, j)]`
    where `dst`'s layout puts it. This is a GEMM's epilogue. Offsets are
    static or SSA `index` values (e.g. a warpgroup's rows). The destination
    region must be strided and unswizzled (each dim one linear step), so
    an element's address is the thread's base plus a constant. A float
    source may be stored into a narrower or wider float type (rounded to
    nearest even).

    Plain stores, not async: a shared destination read by TMA or an MMA
    afterwards needs `tile.fence proxy_async` and a barrier first.

    Example:

    ```mlir
    func.func @epilogue(%out: memref<64x8xf32, 1>) {
      %acc = tile.alloc_local : !tile.buffer<64x8xf32, local,
          #tile.layout<S[(4,2,8,1,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      %g = tile.from_memref %out : memref<64x8xf32, 1> -> !tile.buffer<64x8xf32, global>
      tile.store %acc to %g[0, 0] : !tile.buffer<64x8xf32, local,
          #tile.layout<S[(4,2,8,1,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
          to !tile.buffer<64x8xf32, global>
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_BufferIn<"local">:$src,
    Tile_AnyBuffer:$dst,
    Variadic<Index>:$dst_offsets,
    DenseI64ArrayAttr:$dst_static_offsets);
  let assemblyFormat = [{
    $src `to` $dst `` custom<DynamicIndexList>($dst_offsets, $dst_static_offsets)
    attr-dict `:` qualified(type($src)) `to` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "each thread loads its registers of a local tile";
  let description = [{
    The converse of `tile.store`: fills the whole `dst` tile (`local`)
    from the region of `src` (global or shared) starting at `src_offsets`:
    each thread loads the elements it holds, element (i, j) of `dst` coming
    from `src[offsets + (i, j)]` where `src`'s layout puts it, e.g. an MMA
    operand loaded straight into its register fragment. Offsets are static
    or SSA `index` values. The source region must be strided and
    unswizzled (each dim one linear step), so an element's address is the
    thread's base plus a constant. A float source may be loaded into a
    narrower or wider float tile (rounded to nearest even).

    Plain loads: a shared source written by TMA or another thread needs its
    barrier first (an mbarrier wait, `gpu.barrier`).

    Example (a wgmma register A: thread t = 32w + 4q + r holds rows
    16w + q and 16w + 8 + q, columns 2r, 2r + 1, 2r + 8 and 2r + 9 of each
    16-column K step):

    ```mlir
    func.func @operand(%in: memref<64x16xf16, 1>) {
      %a = tile.alloc_local : !tile.buffer<64x16xf16, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      %g = tile.from_memref %in : memref<64x16xf16, 1> -> !tile.buffer<64x16xf16, global>
      tile.load %g[0, 0] to %a : !tile.buffer<64x16xf16, global>
          to !tile.buffer<64x16xf16, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_AnyBuffer:$src,
    Variadic<Index>:$src_offsets,
    DenseI64ArrayAttr:$src_static_offsets,
    Tile_BufferIn<"local">:$dst);
  let assemblyFormat = [{
    $src `` custom<DynamicIndexList>($src_offsets, $src_static_offsets)
    `to` $dst attr-dict `:` qualified(type($src)) `to` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

#endif // TILE_LOCAL_OPS_TD

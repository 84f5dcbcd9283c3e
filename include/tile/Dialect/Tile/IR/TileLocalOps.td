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
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     Tile_DispatchOpInterface]> {
  let summary = "each thread stores its registers of a local tile";
  let description = [{
    Writes the whole `src` tile (`local`) into the region of `dst` (global
    or shared) starting at `dst_offsets`: each thread stores the elements
    it holds, element (i, j) of `src` going to `dst[offsets + (i, j)]`
    where `dst`'s layout puts it. This is a GEMM's epilogue. Offsets are
    static or SSA `index` values (e.g. a warpgroup's rows). Each element's
    address must be the thread's base plus a constant (before the
    destination's swizzle, applied per access). A float source may be
    stored into a narrower or wider float type (rounded to nearest even);
    floats of 8 bits or fewer are stored unconverted.

    Dispatched: variant `stmatrix` (priority 20) into shared memory on
    sm_90+, when the destination has 16-bit elements whose 8x8 blocks of
    the threads' element pairs are 16-byte rows (e.g. the wgmma
    accumulator into a row-major or 128-byte swizzled tile: m8n8
    x4/x2/x1, `.trans` when the blocks are column-major); otherwise
    `vector` (priority 10): plain stores, runs of consecutive elements as
    vector stores.

    Not async: a shared destination read by TMA or an MMA afterwards needs
    `tile.fence proxy_async` and a barrier first.

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
    DenseI64ArrayAttr:$dst_static_offsets,
    OptionalAttr<StrAttr>:$dispatch,
    OptionalAttr<StrAttr>:$variant);
  let assemblyFormat = [{
    $src `to` $dst `` custom<DynamicIndexList>($dst_offsets, $dst_static_offsets)
    attr-dict `:` qualified(type($src)) `to` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     Tile_DispatchOpInterface]> {
  let summary = "each thread loads its registers of a local tile";
  let description = [{
    Fills the whole `dst` tile (`local`) from the region of `src` starting
    at `src_offsets`: element (i, j) of `dst` comes from `src[offsets +
    (i, j)]`.

    Dispatched. From global or shared memory, variant `vector` (the
    converse of `tile.store`): each thread loads the elements it holds, at
    its base address plus a constant (the same rule as `tile.store`; a
    swizzled source is read through its swizzle, runs of consecutive
    elements as vector loads). A float source may be loaded into a float
    tile of another width. Plain loads: a shared source written by TMA or
    another thread needs its barrier first.

    From tensor memory (a GEMM's accumulator on sm_100a), variant
    `tcgen05_ld`: one `tcgen05.ld.sync.aligned.32x32b` per warp and a
    `tcgen05.wait::ld`.
    The tile is 128 rows of 32-bit elements, thread t of the warpgroup
    (`tid_in_wg`) holding row t with column j in register j; the region
    starts at lane 0 and row r is lane r (warp w of the warpgroup reads
    lanes 32w..32w+31). A runtime leading index selects, e.g., one of two
    accumulators. Order it after the MMAs with their commit's mbarrier wait
    and `tile.fence after_thread_sync`. The registers' uses are ordered by
    the hardware; the wait makes the tensor-memory read complete, so a
    `tile.fence before_thread_sync` and an mbarrier arrive after the op may
    hand the columns back to the MMA issuer.

    Example (64 columns of a 128 x 256 f32 accumulator):

    ```mlir
    func.func @epilogue(%taddr: i32) {
      %acc = tile.tmem_buffer %taddr : !tile.buffer<128x256xf32, tmem,
          #tile.layout<S[(128,256):(1@TLane,1@TCol)]>>
      %frag = tile.alloc_local : !tile.buffer<128x64xf32, local,
          #tile.layout<S[(128,64):(1@tid_in_wg,1)]>>
      tile.load %acc[0, 64] to %frag : !tile.buffer<128x256xf32, tmem,
          #tile.layout<S[(128,256):(1@TLane,1@TCol)]>>
          to !tile.buffer<128x64xf32, local,
          #tile.layout<S[(128,64):(1@tid_in_wg,1)]>>
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_AnyBuffer:$src,
    Variadic<Index>:$src_offsets,
    DenseI64ArrayAttr:$src_static_offsets,
    Tile_BufferIn<"local">:$dst,
    OptionalAttr<StrAttr>:$dispatch,
    OptionalAttr<StrAttr>:$variant);
  let assemblyFormat = [{
    $src `` custom<DynamicIndexList>($src_offsets, $src_static_offsets)
    `to` $dst attr-dict `:` qualified(type($src)) `to` qualified(type($dst))
  }];
  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Compute on register tiles. Each op is dispatched (DispatchOpInterface):
// the variant that implements it is chosen from what the layouts say about
// which thread holds which element (lib/Variants/CUDA/Local).
//===----------------------------------------------------------------------===//

def Tile_MapOp : Tile_Op<"map", [
    AttrSizedOperandSegments, Tile_DispatchOpInterface, SingleBlock]> {
  let summary = "elementwise computation over local tiles";
  let description = [{
    Computes every element of `output` (a `local` tile) with the scalar
    region: its arguments are the element of each input at the same logical
    coordinate, then the coordinate itself (one `index` per dim, e.g. for a
    causal or bounds mask); `tile.yield` gives the element. The region holds
    scalar ops (`arith`, `math`); it runs once per element a thread holds.

    An input has the output's rank; a dim of extent 1 where the output's is
    larger is **broadcast** (a row vector `64x1` against a `64x128` tile,
    or `1x1` for a scalar). The dispatch checks against the layouts that
    every thread holds, in its own registers, the input elements of every
    output element it holds: a broadcast vector must be replicated on the
    threads that need it (what `tile.reduce` produces). An input may be the
    output itself (an in-place update). Floats of 8 bits or fewer are not
    computed on: `tile.convert` to or from them.

    An optional `where` tile of `i1` (broadcast like an input) **guards** the
    update: an output element whose guard is false keeps its value, and the
    region is not run for it. A thread branches once per guard register it
    reads, around all the elements that read it: a guard broadcast along a
    row costs one branch per row a thread holds, and skips the row's work
    when false (online softmax rescales a row only when its maximum grew).

    Example (P = exp2(S - rowmax) on a wgmma accumulator, the row maximum
    replicated on each row's four threads):

    ```mlir
    func.func @softmax_numerator() {
      %s = tile.alloc_local : !tile.buffer<64x16xf32, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      %m = tile.alloc_local : !tile.buffer<64x1xf32, local,
          #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
      tile.map ins(%s, %m : !tile.buffer<64x16xf32, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>,
          !tile.buffer<64x1xf32, local,
          #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>)
          outs(%s : !tile.buffer<64x16xf32, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>) {
      ^bb0(%x: f32, %max: f32, %i: index, %j: index):
        %d = arith.subf %x, %max : f32
        %e = math.exp2 %d : f32
        tile.yield %e : f32
      }
      return
    }
    ```

    Example (O = O·alpha only on the rows whose maximum grew: two branches
    per thread, each around the 8 elements of one row it holds):

    ```mlir
    #acc = #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>
    #row = #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>
    func.func @rescale_rows_that_grew() {
      %o = tile.alloc_local : !tile.buffer<64x16xf32, local, #acc>
      %alpha = tile.alloc_local : !tile.buffer<64x1xf32, local, #row>
      %grew = tile.alloc_local : !tile.buffer<64x1xi1, local, #row>
      tile.map ins(%o, %alpha : !tile.buffer<64x16xf32, local, #acc>,
                                !tile.buffer<64x1xf32, local, #row>)
          outs(%o : !tile.buffer<64x16xf32, local, #acc>)
          where(%grew : !tile.buffer<64x1xi1, local, #row>) {
      ^bb0(%x: f32, %a: f32, %i: index, %j: index):
        %r = arith.mulf %x, %a : f32
        tile.yield %r : f32
      }
      return
    }
    ```
  }];
  let arguments = (ins
    Arg<Variadic<Tile_BufferIn<"local">>, "", [MemRead]>:$inputs,
    Arg<Tile_BufferIn<"local">, "", [MemWrite]>:$output,
    Arg<Optional<Tile_BufferIn<"local">>, "", [MemRead]>:$guard,
    OptionalAttr<StrAttr>:$dispatch,
    OptionalAttr<StrAttr>:$variant);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` qualified(type($inputs)) `)`)?
    `outs` `(` $output `:` qualified(type($output)) `)`
    (`where` `(` $guard^ `:` qualified(type($guard)) `)`)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::tile::BufferType getOutputType() { return getOutput().getType(); }
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, Terminator, HasParent<"MapOp">]> {
  let summary = "the element a `tile.map` region computes";
  let description = [{
    Ends a `tile.map` region with the element's value (of the output's
    element type).

    Example:

    ```mlir
    func.func @scale() {
      %t = tile.alloc_local : !tile.buffer<32x4xf32, local,
          #tile.layout<S[(32,4):(1@laneid,1)]>>
      tile.map ins(%t : !tile.buffer<32x4xf32, local,
          #tile.layout<S[(32,4):(1@laneid,1)]>>)
          outs(%t : !tile.buffer<32x4xf32, local,
          #tile.layout<S[(32,4):(1@laneid,1)]>>) {
      ^bb0(%x: f32, %i: index, %j: index):
        %two = arith.constant 2.0 : f32
        %y = arith.mulf %x, %two : f32
        tile.yield %y : f32
      }
      return
    }
    ```
  }];
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_DispatchOpInterface]> {
  let summary = "reduce a local tile along dims";
  let description = [{
    Combines the elements of `input` along `dims` with `kind` (`add`, `max`,
    `min` for floats and integers; `and`, `or`, `xor` for integers) into
    `output`, whose shape is the input's with the reduced dims of extent 1.
    Every thread that holds an element of `output` gets the whole
    reduction of its row (the result is replicated, as softmax needs): the
    output layout says which threads hold it, and the dispatch checks that
    they are the threads holding the row's inputs. Float `max` / `min`
    ignore NaN (IEEE maxNum / minNum); float `add` sums in an order the
    variant fixes (a pairwise tree in each thread, then the lanes).

    Variants, by what the layout's reduced dims span: `in_thread` (the
    registers of one thread), `warp_shuffle` (lanes of a warp:
    `shfl.sync.bfly` over exactly the lane bits the layout uses, 32-bit
    elements). A row spread over warps has no variant yet. Integers are
    signless and compared signed by `max` / `min`.

    Example (the row maximum of a wgmma accumulator, on each row's quad):

    ```mlir
    func.func @row_max() {
      %s = tile.alloc_local : !tile.buffer<64x16xf32, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      %m = tile.alloc_local : !tile.buffer<64x1xf32, local,
          #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
      tile.reduce <max> %s dims [1] into %m : !tile.buffer<64x16xf32, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
          into !tile.buffer<64x1xf32, local,
          #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,1)] + R[4:1@tid_in_wg]>>
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_ReduceKindAttr:$kind,
    Arg<Tile_BufferIn<"local">, "", [MemRead]>:$input,
    DenseI64ArrayAttr:$dims,
    Arg<Tile_BufferIn<"local">, "", [MemWrite]>:$output,
    OptionalAttr<StrAttr>:$dispatch,
    OptionalAttr<StrAttr>:$variant);
  let assemblyFormat = [{
    $kind $input `dims` $dims `into` $output attr-dict `:`
    qualified(type($input)) `into` qualified(type($output))
  }];
  let hasVerifier = 1;
}

def Tile_ConvertOp : Tile_Op<"convert", [Tile_DispatchOpInterface]> {
  let summary = "a local tile in another layout and/or element type";
  let description = [{
    Writes every element of `source` into `result` (same shape), converted
    to the result's element type: floats round to nearest even, and to
    `f8E4M3FN` / `f8E5M2` saturate to the largest finite value
    (`satfinite`). Integers keep their type.

    Variants: `registers` when every thread already holds the result's
    elements (register renaming and the conversion, pairs packed:
    `cvt.rn.bf16x2.f32`, `cvt.rn.f16x2.f32`, `cvt.rn.satfinite.e4m3x2.f32`;
    no shuffle, no shared memory), e.g. the f32 accumulator of S = Q·Kᵀ
    into the bf16 register-A operand of the next wgmma (the same layout);
    `warp_shuffle` when each result register is one source register of
    another lane of the thread's warp, the lane a function of the thread's
    lane bits (`shfl.sync.idx`, or `.bfly` for a constant xor), then
    converted the same way. Data crossing warps has no variant yet.

    Example:

    ```mlir
    func.func @to_bf16() {
      %s = tile.alloc_local : !tile.buffer<64x16xf32, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      %p = tile.alloc_local : !tile.buffer<64x16xbf16, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      tile.convert %s to %p : !tile.buffer<64x16xf32, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
          to !tile.buffer<64x16xbf16, local,
          #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
      return
    }
    ```
  }];
  let arguments = (ins
    Arg<Tile_BufferIn<"local">, "", [MemRead]>:$source,
    Arg<Tile_BufferIn<"local">, "", [MemWrite]>:$result,
    OptionalAttr<StrAttr>:$dispatch,
    OptionalAttr<StrAttr>:$variant);
  let assemblyFormat = [{
    $source `to` $result attr-dict `:`
    qualified(type($source)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // TILE_LOCAL_OPS_TD

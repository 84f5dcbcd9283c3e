//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/Dialect/Tile/IR/TileTypes.td"
include "tile/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/ViewLikeInterface.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"

def Tile_AnyBuffer : Type<CPred<"::llvm::isa<::tile::BufferType>($_self)">,
    "tile buffer", "::tile::BufferType">;

class Tile_BufferIn<string scope>
    : Type<And<[CPred<"::llvm::isa<::tile::BufferType>($_self)">,
                CPred<"::llvm::cast<::tile::BufferType>($_self).getScope() == "
                      "::tile::MemoryScope::" # scope>]>,
           scope # " tile buffer", "::tile::BufferType">;

def Tile_MBarrierGroup : Type<
    CPred<"::llvm::isa<::mlir::nvgpu::MBarrierGroupType>($_self)">,
    "nvgpu mbarrier group", "::mlir::nvgpu::MBarrierGroupType">;

// An mbarrier: one of a group (with an index operand) or its shared address.
def Tile_Barrier : AnyTypeOf<[LLVM_PointerInAddressSpace<3>, Tile_MBarrierGroup]>;

//===----------------------------------------------------------------------===//
// Buffer-making ops
//===----------------------------------------------------------------------===//

def Tile_FromMemrefOp : Tile_Op<"from_memref", [Pure]> {
  let summary = "view a kernel memref as a global tile buffer";
  let description = [{
    Wraps a global-memory `memref` (a kernel argument) as a `global`
    `!tile.buffer` of the same shape and element type. Dynamic memref dims
    stay dynamic. Without a layout on the result the memref must be dense
    row-major and the buffer starts at the memref's element 0 (its offset
    applied); with one, the layout must match the memref's static strides
    and offset, and counts from the memref's aligned pointer.

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
    power of two >= 16) defaults to what TMA and the tensor core need: the
    swizzle atom (8 rows of 32/64/128 bytes = 256/512/1024 bytes) for
    swizzled tiles, 128 bytes otherwise (where TMA boxes start; the tma
    variant declines a tile aligned to less). TMA and UMMA read 128-byte
    swizzled tiles correctly only from 1024-byte aligned atoms; a smaller
    explicit alignment is an error.

    In a `gpu.func ... kernel` the buffer lives in the kernel's dynamic
    shared-memory segment: `--tile-assign-shared-offsets` records its byte
    `offset` there (a multiple of its alignment) and the kernel's segment
    size, so a kernel may use all the shared memory of its chip (227 KiB
    on sm_90a and sm_100a), not only the 48 KiB of static shared memory.
    Outside a kernel (a device function) the buffer is a static shared
    global, limited to 48 KiB per function.

    Example:

    ```mlir
    func.func @alloc() {
      %s = tile.alloc_shared {alignment = 1024 : i64}
          : !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
      return
    }
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$alignment,
                       OptionalAttr<I64Attr>:$offset);
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

def Tile_BaseAddressOp : Tile_Op<"base_address", [Pure]> {
  let summary = "the address a tile buffer's layout counts from";
  let description = [{
    Exposes where a buffer lives so upstream ops can work next to tile ops
    (initialise an mbarrier inside a shared tile, fill a tile with ordinary
    stores, hand a tensor-memory address to `tcgen05.ld`). The result type
    follows the scope: `!llvm.ptr<1>` for `global`, `!llvm.ptr<3>` for
    `shared`, `i32` (`(lane << 16) | column`) for `tmem`. Element `i` of the
    tile is at the offset its layout gives, relative to this address (so
    element 0 is here unless the layout has an offset: a `from_memref`
    buffer with an explicit layout carries the memref's offset in it and
    counts from the memref's aligned pointer).

    Example:

    ```mlir
    func.func @fill() {
      %s = tile.alloc_shared : !tile.buffer<128x64xf16, shared>
      %p = tile.base_address %s : !tile.buffer<128x64xf16, shared> -> !llvm.ptr<3>
      return
    }
    ```
  }];
  let arguments = (ins Tile_AnyBuffer:$buffer);
  let results = (outs AnyTypeOf<[LLVM_PointerInAddressSpace<1>,
                                 LLVM_PointerInAddressSpace<3>, I32]>:$address);
  let assemblyFormat = "$buffer attr-dict `:` qualified(type($buffer)) `->` type($address)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous tile operations
//===----------------------------------------------------------------------===//

def Tile_CopyAsyncOp : Tile_Op<"copy_async", [
    AttrSizedOperandSegments, Tile_DispatchOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "asynchronously copy a region of one tile buffer into another";
  let description = [{
    Copies the region `[src_offsets, src_offsets + sizes)` of `src` into the
    region `[dst_offsets, dst_offsets + sizes)` of `dst`. Offsets are static
    or SSA `index` values; sizes are static. Element `i` of the region moves
    from where `src`'s layout puts it to where `dst`'s layout puts it.

    A buffer may have more dims than `sizes`: its leading dims are indexed
    (size 1) by their offsets, so `%ring[%stage, 0, 0]` with `sizes [128,
    64]` is one 128x64 stage of a 3-D ring, and a 2-D global region can
    land in it. A runtime index of a shared or tensor-memory buffer must
    step linearly (by whole swizzle periods when swizzled); a global one
    is a TMA coordinate.

    A region of a shared or tensor-memory buffer lies inside it. A region of
    a global buffer may start before or run past the tensor's edge, as TMA
    allows (signed 32-bit coordinates): a load writes the `oob` fill (zero
    unless `nan`) for the elements outside, a store or reduction skips them.

    Directions: `global -> shared` and `shared -> global` (TMA),
    `shared -> shared` across the CTAs of a cluster (DSMEM bulk copies) and
    `shared -> tmem` (`tcgen05.cp`). Which hardware variant implements the
    copy is decided by `--tile-select-variants`; `dispatch = "name"` forces
    one (its predicates must still pass).

    `exec` names the threads that issue the op (`thread`, `warp`,
    `warpgroup`, `cta`, `cluster`). Typed config:
    - `mbar(%bars[%i] : !nvgpu.mbarrier.group<...>)` (or `mbar(%p)` with
      a `!llvm.ptr<3>` address): the mbarrier that tracks completion
      (`complete_tx::bytes`); the caller arms it
      (`nvgpu.mbarrier.arrive.expect_tx` with the bytes of the copies
      completing on it, checked by `--tile-verify-kernels`) and waits on it.
      For cluster copies `mbar` is the local (`shared::cta`) address of the
      barrier *in the destination CTA*: the same allocation as in the
      issuing CTA, mapped to `remote_cta` by the lowering. Without `mbar`, a
      global -> shared copy of the `ldgsts` variant joins each issuing
      thread's open cp.async group instead (`tile.commit_group cp_async`,
      `tile.wait_group cp_async, N`, which the function must contain).
    - `remote_cta(%r)`: destination CTA rank in the cluster for cluster
      copies (`dst` names the same allocation in that CTA).
    - `cta_mask(%m)`: multicast mask for global -> shared copies.
    - `mbar_cta(%r)`: with `cta_group = 2` on a global -> shared copy, the
      mbarrier that receives the completion is the one at `mbar`'s offset
      in CTA `%r` of the cluster (the issuing CTA or its pair peer: PTX
      lets a `.cta_group::2` load signal a barrier in either CTA of the
      pair). The lowering maps the barrier there (`mapa`). Both CTAs of a
      pair load their halves of the MMA's operands and complete on the
      pair leader's barrier, which its MMA thread waits on. With
      `cta_mask` every destination CTA's bytes complete on the barrier at
      that offset in the CTA of the destination's pair that `%r` names
      relative to the issuer (its leader when `%r` is the issuer's).
    - `cache_hint(%h)`: a 64-bit L2 cache policy.
    - attributes `cta_group` (1 or 2), `reduce` (shared -> global only),
      `oob` fill (loads from global only: stores are clipped), `dispatch`,
      and `variant` (set by
      selection).
    - shared -> tmem only: `cp_shape` forces a `tcgen05.cp` shape
      (`#tile.cp_shape<shape_32x128b>`; otherwise the widest that fits the
      layouts is used, and the multicast always follows the destination's
      replica; `cp_multicast` = `#tile.cp_multicast<warpx4>` states it,
      checked against that replica), `src_format` says the shared bytes hold packed 6- or 4-bit
      values that land as 8-bit containers
      (`#tile.cp_src_format<b6x16_p32>`).

    The op declares what it reads and writes (per memory scope), so no
    canonicalization can delete it.

    Example:

    ```mlir
    func.func @cluster_copy(%s: !tile.buffer<128x64xf16, shared>,
                            %d: !tile.buffer<128x64xf16, shared>,
                            %bar: !llvm.ptr<3>, %peer: i32) {
      tile.copy_async %s[0, 0] to %d[0, 0] sizes [128, 64] exec thread
          mbar(%bar) remote_cta(%peer)
          : !tile.buffer<128x64xf16, shared> to !tile.buffer<128x64xf16, shared>
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_AnyBuffer:$src,
    Variadic<Index>:$src_offsets,
    DenseI64ArrayAttr:$src_static_offsets,
    Tile_AnyBuffer:$dst,
    Variadic<Index>:$dst_offsets,
    DenseI64ArrayAttr:$dst_static_offsets,
    DenseI64ArrayAttr:$sizes,
    Tile_ExecScopeAttr:$exec,
    Optional<Tile_Barrier>:$mbar,
    Optional<Index>:$mbar_index,
    Optional<I32>:$remote_cta,
    Optional<I16>:$cta_mask,
    Optional<I32>:$mbar_cta,
    Optional<I64>:$cache_hint,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2>]>>:$cta_group,
    OptionalAttr<Tile_ReduceKindAttr>:$reduce,
    OptionalAttr<Tile_OobFillAttr>:$oob,
    OptionalAttr<Tile_CpShapeAttr>:$cp_shape,
    OptionalAttr<Tile_CpMulticastAttr>:$cp_multicast,
    OptionalAttr<Tile_CpSourceFormatAttr>:$src_format,
    OptionalAttr<StrAttr>:$dispatch,
    OptionalAttr<StrAttr>:$variant
  );
  let assemblyFormat = [{
    $src `` custom<DynamicIndexList>($src_offsets, $src_static_offsets)
    `to` $dst `` custom<DynamicIndexList>($dst_offsets, $dst_static_offsets)
    `sizes` $sizes `exec` custom<ExecScope>($exec)
    (`mbar` `(` $mbar^ `` custom<BarrierIndex>($mbar_index, type($mbar)) `` `)`)?
    (`remote_cta` `(` $remote_cta^ `)`)?
    (`cta_mask` `(` $cta_mask^ `)`)?
    (`mbar_cta` `(` $mbar_cta^ `)`)?
    (`cache_hint` `(` $cache_hint^ `)`)?
    attr-dict `:` qualified(type($src)) `to` qualified(type($dst))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::tile::BufferType getSrcType() { return getSrc().getType(); }
    ::tile::BufferType getDstType() { return getDst().getType(); }
  }];
}

def Tile_GemmAsyncOp : Tile_Op<"gemm_async", [
    AttrSizedOperandSegments, Tile_DispatchOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "asynchronous tensor-core C (+)= A @ B on tile regions";
  let description = [{
    Multiplies the `M x K` region of `a` by the `K x N` region of `b` into
    the `M x N` region of `c` (`sizes = [M, N, K]`). `transpose_a` says the
    region of `a` is stored `K x M`; `transpose_b` that the region of `b` is
    `N x K` (a K-major B). A buffer of rank above 2 is indexed in its
    leading dims (`%a[%stage, 0, 0]`: one stage of a ring, the index static
    or an SSA value), as for copy_async.

    Where the operands live decides the instruction. The verifier accepts
    C in tensor memory or in registers (a `local` tile), A in shared
    memory, tensor memory or registers, B in shared memory only; dispatch
    then needs one of:
    - variant `tcgen05` (`tcgen05.mma`, sm_100a and sm_101a): C in tensor
      memory, A in shared or tensor memory (the tensor-memory buffers made
      by `tile.tmem_buffer`), B in shared memory; `exec thread` or
      `exec warp`. A and B f16, bf16, tf32 (f32 tiles), fp8 (e4m3, e5m2,
      mixable), 8-bit integers, or fp4 (e2m1) with block scaling; C f32,
      f16 or, for integers, i32.
    - variant `wgmma` (`wgmma.mma_async`, sm_90a): C in registers (a
      `local` tile whose layout is the wgmma accumulator fragment over the
      128 threads of a warpgroup), A in shared memory or registers (a
      `local` tile with the A-fragment layout: K-major, constant offsets),
      B in shared memory; `exec warpgroup`. A and B f16, bf16, tf32 (f32
      tiles), e4m3 or e5m2; C f32 or f16 (bf16 and tf32 into f32 only);
      MN-major operands (`transpose_a`, or B without `transpose_b`) only
      with 16-bit elements.

    Other placements (C in registers with A in tensor memory, C in tensor
    memory with A in registers) verify, but no variant implements them:
    `--tile-select-variants` reports each variant's reason.

    `accumulate(%p)` adds into `c` when `%p` is true (C += A @ B); without
    it the op overwrites (C = A @ B). Block-scaled kinds (tcgen05 only)
    take scale factors `sfa`/`sfb` in tensor memory, `[M, K / vec]` and
    `[N, K / vec]` (vec = 32, or 16 for ue4m3 fp4 scales). `cta_group`
    (1 or 2, tcgen05 only) selects single- or two-CTA MMAs; with 2, `sizes`
    are the pair's and each CTA's regions hold its half: `M/2 x K` of A,
    `N/2` columns of B, `M/2 x N` of C.

    Instruction config (tcgen05 only: wgmma refuses all of them; each
    refused, naming the rule, where the hardware has no such form):
    - `weight_stationary`: `tcgen05.mma.ws` (cta_group 1; M 32, 64 or 128;
      N 64, 128 or 256; no block scaling);
    - `instruction_shape = array<i64: M, N>`: the MMA instruction tile
      (e.g. a 128x128 op as two M128 x N64 MMAs); by default the planner
      picks the widest legal one;
    - `collector = #tile.collector<fill>` (`discard`, `lastuse`, `fill`,
      `use`) and, with `.ws`, `collector_buffer` (0..3, B's buffer
      `b0`..`b3`): the collector-buffer use of an op that issues one MMA.

    Issue and completion. tcgen05: `exec thread` issues from the executing
    thread, `exec warp` from the lane `elect.sync` picks. The issuer does
    not wait: completion is observed through `tcgen05.commit`
    (`tile.mma_commit`) issued by the same thread (for exec warp, under the
    same `elect.sync`) after the MMAs. wgmma: the 128 threads of the
    warpgroup issue it together and nothing waits for it; the program
    closes the group with `tile.commit_group wgmma` and waits with
    `tile.wait_group wgmma, N`, and reads C (or rewrites a register A)
    only after that wait.

    Example (tcgen05: C in tensor memory; A and B, stored N x K, K-major
    with the 128-byte swizzle; selects `tcgen05` on sm_100a):

    ```mlir
    !A = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
    !C = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
    func.func @mma(%a: !A, %b: !A, %c: !C) {
      tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [128, 128, 64]
          exec thread {transpose_b} : !C, !A, !A
      return
    }
    ```

    Example (wgmma: C in the registers of a warpgroup, thread
    t = 32w + 4q + r holding row 16w + 8h + q, column 8j + 2r + e in
    register 4j + 2h + e; selects `wgmma` on sm_90a):

    ```mlir
    !S = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
    !Acc = !tile.buffer<64x64xf32, local,
        #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
    func.func @wgmma(%a: !S, %b: !S) {
      %c = tile.alloc_local : !Acc
      tile.gemm_async %c[0, 0], %a[0, 0], %b[0, 0] sizes [64, 64, 64]
          exec warpgroup {transpose_b} : !Acc, !S, !S
      tile.commit_group wgmma
      tile.wait_group wgmma, 0
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_AnyBuffer:$c,
    Variadic<Index>:$c_offsets,
    DenseI64ArrayAttr:$c_static_offsets,
    Tile_AnyBuffer:$a,
    Variadic<Index>:$a_offsets,
    DenseI64ArrayAttr:$a_static_offsets,
    Tile_AnyBuffer:$b,
    Variadic<Index>:$b_offsets,
    DenseI64ArrayAttr:$b_static_offsets,
    DenseI64ArrayAttr:$sizes,
    Tile_ExecScopeAttr:$exec,
    Optional<I1>:$accumulate,
    Optional<Tile_AnyBuffer>:$sfa,
    Optional<Tile_AnyBuffer>:$sfb,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2>]>>:$cta_group,
    UnitAttr:$weight_stationary,
    OptionalAttr<DenseI64ArrayAttr>:$instruction_shape,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<3>]>>:$collector_buffer,
    OptionalAttr<Tile_MmaCollectorAttr>:$collector,
    OptionalAttr<StrAttr>:$dispatch,
    OptionalAttr<StrAttr>:$variant
  );
  let assemblyFormat = [{
    $c `` custom<DynamicIndexList>($c_offsets, $c_static_offsets) `,`
    $a `` custom<DynamicIndexList>($a_offsets, $a_static_offsets) `,`
    $b `` custom<DynamicIndexList>($b_offsets, $b_static_offsets)
    `sizes` $sizes `exec` custom<ExecScope>($exec)
    (`accumulate` `(` $accumulate^ `)`)?
    (`scales` `(` $sfa^ `,` $sfb `:` qualified(type($sfa)) `,` qualified(type($sfb)) `)`)?
    attr-dict `:` qualified(type($c)) `,` qualified(type($a)) `,` qualified(type($b))
  }];
  let hasVerifier = 1;
}

include "tile/Dialect/Tile/IR/TileLocalOps.td"
include "tile/Dialect/Tile/IR/TileSyncOps.td"

#endif // TILE_OPS_TD

//===- TileSyncOps.td - barriers, tensor memory, completion -*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The synchronization a kernel around copy_async / gemm_async needs, where
// upstream has no op for it. Barriers themselves are upstream's
// (`nvgpu.mbarrier.create/init/arrive.expect_tx/try_wait.parity`); tile ops
// name one either as an `!nvgpu.mbarrier.group` and an index
// (`%bars[%i]`) or as a raw `!llvm.ptr<3>`.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SYNC_OPS_TD
#define TILE_SYNC_OPS_TD

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

def Tile_TmemAllocOp : Tile_Op<"tmem_alloc",
    [MemoryEffects<[MemAlloc<Tile_TensorMemoryResource>,
                    MemWrite<Tile_SharedMemoryResource>]>]> {
  let summary = "allocate tensor-memory columns for the CTA";
  let description = [{
    Executed by every thread of the CTA (it synchronizes the CTA, like
    `gpu.barrier`). Warp `warp` (default 0) allocates `columns` tensor-memory
    columns (a power of two from 32 to 512) with `tcgen05.alloc`
    (`cta_group` 1 or 2: with 2, one warp of each CTA of the pair executes
    it and the columns are allocated in both); with `relinquish` that warp
    then gives up the right to allocate again (`relinquish_alloc_permit`),
    which lets a waiting CTA on the same SM proceed. The allocated address
    (`(lane << 16) | column`) is the result, in every thread: build
    `tile.tmem_buffer`s from it. The lowering writes it through a 4-byte
    shared slot, then fences (`tcgen05.fence::before_thread_sync`), syncs
    the CTA and fences again (`after_thread_sync`) before every thread reads
    it.

    Release the columns with `tile.tmem_dealloc` on every path: the
    `--tile-verify-kernels` check reports an allocation that some path
    leaves allocated, and more than 512 columns allocated at once.

    Example:

    ```mlir
    func.func @columns() {
      %taddr = tile.tmem_alloc 256 columns {relinquish}
      tile.tmem_dealloc %taddr, 256 columns
      return
    }
    ```
  }];
  let arguments = (ins
    I32Attr:$columns,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2>]>>:$cta_group,
    DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<0>]>, "0">:$warp,
    UnitAttr:$relinquish);
  let results = (outs I32:$address);
  let assemblyFormat = "$columns `columns` attr-dict";
  let hasVerifier = 1;
}

def Tile_TmemDeallocOp : Tile_Op<"tmem_dealloc",
    [MemoryEffects<[MemFree<Tile_TensorMemoryResource>]>]> {
  let summary = "release tensor-memory columns allocated by tile.tmem_alloc";
  let description = [{
    Executed by every thread of the CTA. Orders every thread's earlier
    tcgen05 accesses before the release (`tcgen05.fence::before_thread_sync`
    and a CTA barrier), then the allocating warp `warp` releases the
    `columns` columns at `address` (`tcgen05.dealloc`, same `cta_group`).
    `address` and `columns` must be those of one `tile.tmem_alloc`.

    Example:

    ```mlir
    func.func @release(%taddr: i32) {
      tile.tmem_dealloc %taddr, 128 columns {cta_group = 2 : i32}
      return
    }
    ```
  }];
  let arguments = (ins
    I32:$address,
    I32Attr:$columns,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2>]>>:$cta_group,
    DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<0>]>, "0">:$warp);
  let assemblyFormat = "$address `,` $columns `columns` attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Completion
//===----------------------------------------------------------------------===//

def Tile_MmaCommitOp : Tile_Op<"mma_commit", [AttrSizedOperandSegments]> {
  let summary = "arrive on an mbarrier when this thread's tcgen05 work completes";
  let description = [{
    Makes the mbarrier track the completion of every asynchronous tcgen05
    operation the issuing thread started so far: the MMAs of `gemm_async`
    (tcgen05 variant) and the shared -> tensor-memory copies of
    `copy_async` (`tcgen05_cp`). When they complete, the barrier receives
    one arrival (`tcgen05.commit ... mbarrier::arrive::one`). With
    `cta_mask(%m)` the arrival goes to the barrier at the same offset in
    every CTA of the mask (`.multicast::cluster`). Issue it from the thread
    that issued the work: `exec thread`, or `exec warp` for the lane that
    `elect.sync` picks (as `gemm_async exec warp` does). `cta_group` must
    be that of the work it tracks.

    Example:

    ```mlir
    !bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    func.func @commit(%bars: !bars, %i: index) {
      tile.mma_commit mbar(%bars[%i] : !bars) exec thread
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_Barrier:$mbar,
    Optional<Index>:$mbar_index,
    Optional<I16>:$cta_mask,
    Tile_ExecScopeAttr:$exec,
    OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2>]>>:$cta_group);
  let assemblyFormat = [{
    `mbar` `(` $mbar `` custom<BarrierIndex>($mbar_index, type($mbar)) `` `)`
    (`cta_mask` `(` $cta_mask^ `)`)?
    `exec` custom<ExecScope>($exec) attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_CommitGroupOp : Tile_Op<"commit_group"> {
  let summary = "close this thread's group of asynchronous operations";
  let description = [{
    `bulk`: the shared -> global `copy_async`s (TMA stores and reductions)
    issued since the last commit form one bulk async-group
    (`cp.async.bulk.commit_group`). `wgmma`: the warpgroup's `gemm_async`s
    (wgmma variant) since the last commit form one wgmma-group
    (`wgmma.commit_group.sync.aligned`, executed by the whole warpgroup).
    `cp_async`: the thread's `ldgsts` copies that name no mbarrier form one
    cp.async group (`cp.async.commit_group`; sm_80 on). Each thread of a
    cooperative copy commits and waits for its own share; other threads
    read the tile after their own wait and a barrier with the issuers.
    `tile.wait_group` waits for groups to complete.

    Example:

    ```mlir
    func.func @groups() {
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
      tile.commit_group cp_async
      tile.wait_group cp_async, 1
      return
    }
    ```
  }];
  let arguments = (ins Tile_AsyncGroupAttr:$group);
  let assemblyFormat = "custom<AsyncGroup>($group) attr-dict";
}

def Tile_WaitGroupOp : Tile_Op<"wait_group"> {
  let summary = "wait until at most `pending` of this thread's groups are in flight";
  let description = [{
    Blocks until at most `pending` of the most recent committed groups of
    the kind are incomplete (`cp.async.bulk.wait_group N` /
    `wgmma.wait_group.sync.aligned N` / `cp.async.wait_group N`). For
    `bulk`, `read` waits only until the copies have finished reading their
    shared-memory source (the source may then be overwritten; the global
    writes may still be in flight). `wgmma` and `cp_async` groups have no
    `read` form.

    Example:

    ```mlir
    func.func @drain() {
      tile.commit_group wgmma
      tile.wait_group wgmma, 1
      return
    }
    ```
  }];
  let arguments = (ins Tile_AsyncGroupAttr:$group,
                       ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<63>]>:$pending,
                       UnitAttr:$read);
  let assemblyFormat = "custom<AsyncGroup>($group) `,` $pending attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fences and cluster barriers
//===----------------------------------------------------------------------===//

def Tile_FenceOp : Tile_Op<"fence"> {
  let summary = "a memory-model fence the asynchronous units need";
  let description = [{
    - `proxy_async`: shared memory the executing thread wrote with ordinary
      stores becomes visible to the async proxy (TMA, the tensor core, bulk
      copies) that reads it next (`fence.proxy.async.shared::cta`). Needed
      between threads filling a tile and a `copy_async` / `gemm_async`
      reading it; `--tile-verify-kernels` reports a missing one.
    - `before_thread_sync` / `after_thread_sync`: order tcgen05 operations
      (MMAs, copies, tensor-memory loads) before / after a thread
      synchronization (`tcgen05.fence::before_thread_sync` /
      `::after_thread_sync`).
    - `mbarrier_init`: barrier initialisations visible to the cluster and
      the async proxy (`fence.mbarrier_init.release.cluster`).

    Example:

    ```mlir
    func.func @publish() {
      tile.fence proxy_async
      tile.fence after_thread_sync
      return
    }
    ```
  }];
  let arguments = (ins Tile_FenceKindAttr:$kind);
  let assemblyFormat = "custom<FenceKind>($kind) attr-dict";
}

def Tile_NamedBarrierOp : Tile_Op<"named_barrier"> {
  let summary = "synchronize on, or arrive at, a named CTA barrier of a "
                "thread count";
  let description = [{
    One of the CTA's hardware barriers 1..7 (0 is `gpu.barrier`'s, the
    whole CTA; 8..15 synchronize the shared scratch of cross-warp
    `tile.reduce` / `tile.convert`) shared by `threads` threads — a subset, such as one
    warpgroup or two consumer warpgroups taking turns. Without `arrive` the
    executing warp arrives and waits until `threads` threads have arrived
    (`bar.sync id, threads`); with `arrive` it counts its arrival and goes
    on (`bar.arrive`), which is how one role signals another that waits
    (ping-pong scheduling, producer to consumer). A warp counts as 32
    threads; `threads` is a multiple of 32. Every use of one barrier in a
    kernel must name the same count: `--tile-verify-kernels` checks
    constant counts statically and the pipeline simulation checks them as
    it runs.

    Example:

    ```mlir
    func.func @take_turns(%id: i32, %other: i32) {
      %both = arith.constant 256 : i32
      tile.named_barrier id(%id) threads(%both)
      tile.named_barrier arrive id(%other) threads(%both)
      return
    }
    ```
  }];
  let arguments = (ins I32:$id, I32:$threads, UnitAttr:$arrive);
  let assemblyFormat = [{
    (`arrive` $arrive^)? `id` `(` $id `)` `threads` `(` $threads `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierArriveRemoteOp : Tile_Op<"mbarrier_arrive_remote",
    [AttrSizedOperandSegments]> {
  let summary = "arrive on the same mbarrier in another CTA of the cluster";
  let description = [{
    Maps the mbarrier (an address of this CTA's shared memory) to CTA
    `cta` of the cluster (`mapa`) and performs an arrive-on there with
    release semantics, `count` arrivals (default 1). The consumer of a
    multicast tile releases the producer's stage this way.

    The release is at cluster scope by default
    (`mbarrier.arrive.release.cluster.shared::cluster`): the thread's
    earlier writes are visible to the other CTA's threads that observe the
    phase. ptxas implements it with a GPU-scope memory barrier before the
    arrive (`MEMBAR.ALL.GPU`), which waits for the thread's outstanding
    memory operations: about a microsecond under a GEMM's load.

    `scope cta` releases at CTA scope (`mbarrier.arrive.shared::cluster`,
    no memory barrier in SASS), as CUTLASS's sm90 pipelines release a
    multicast stage: for an arrival that announces completed reads (a
    stage's wgmma reads, retired by `wait_group`) before the other CTA
    overwrites them. The PTX memory model does not order this CTA's reads
    against the other CTA's writes at CTA scope; CUTLASS relies on it, as
    do the GEMM kernels here. It does not make this thread's writes visible
    to the other CTA.

    Example:

    ```mlir
    !bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
    func.func @release(%bars: !bars, %stage: index, %peer: i32) {
      tile.mbarrier_arrive_remote %bars[%stage] : !bars, cta %peer
      tile.mbarrier_arrive_remote %bars[%stage] : !bars, cta %peer scope cta
      return
    }
    ```
  }];
  let arguments = (ins
    Tile_Barrier:$mbar,
    Optional<Index>:$mbar_index,
    I32:$cta,
    Optional<I32>:$count,
    OptionalAttr<Tile_ExecScopeAttr>:$scope);
  let assemblyFormat = [{
    $mbar `` custom<BarrierIndex>($mbar_index, type($mbar)) `,` `cta` $cta
    (`count` $count^)? `` custom<ReleaseScope>($scope) attr-dict
  }];
  let hasVerifier = 1;
}

#endif // TILE_SYNC_OPS_TD

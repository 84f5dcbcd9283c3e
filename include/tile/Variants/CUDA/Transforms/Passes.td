//===- Passes.td - CUDA-specific checks ----------------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_TD
#define TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileVerifyKernels : Pass<"tile-verify-kernels"> {
  let summary = "kernel-wide checks of barriers, proxy fences, tensor memory "
                "and cta_group";
  let description = [{
    Checks what no single op's verifier can see, per function (a kernel or
    a device function), before lowering. Each violation is an error on the
    op, with the numbers and notes at the other ops involved; what cannot
    be proven statically is a remark saying why.

    - **expect-tx accounting.** For each mbarrier (an entry of an
      `!nvgpu.mbarrier.group` with a constant or the same SSA index, or an
      `!llvm.ptr<3>` global) and each phase, the bytes announced by
      `nvgpu.mbarrier.arrive.expect_tx` (or `nvvm.mbarrier.arrive.expect_tx`
      / `nvvm.mbarrier.expect_tx`) equal the bytes of the `copy_async`s
      completing on it (a multicast copy counts once per CTA of a constant
      `cta_mask`, or once under a `cluster rank == c` guard). Events are
      compared within the innermost loop holding them all (inner loops
      with constant trip counts multiply), leaving out waits in a loop that
      holds no announcement or copy of the barrier and sits on the other
      branch of an scf.if from all of them (the consumers' tile loop beside
      a persistent producer's: another path); a wait on the
      barrier that precedes later events in program order starts a new
      phase. Events on
      different branches of one `scf.if` whose condition is a function of
      the cluster rank, in a kernel with a `known_cluster_size`, are added
      up per CTA (each rank's branches decided; a CTA receives its own
      copies and every multicast whose mask holds it), as are copies with
      `mbar_cta` (completing on the barrier of the pair CTA it names;
      `cta_mask` and `mbar_cta` evaluated on each rank). Other branch
      conditions, and a barrier announced or completed only on one side in
      a function with calls or nvgpu TMA copies, get a remark (not proven)
      rather than a verdict.
    - **async-proxy fences.** A `copy_async` or `gemm_async` that reads a
      shared buffer threads wrote with ordinary stores (through
      `tile.base_address`) since the last `tile.fence proxy_async`; and a
      shared buffer overwritten (by threads or by a copy) while a TMA store,
      an MMA or a tcgen05.cp may still be reading it: TMA stores complete at
      `tile.wait_group bulk`, wgmma MMAs at `tile.wait_group wgmma`, tcgen05
      MMAs and copies at a wait on the barrier of their `tile.mma_commit`.
      Straight-line code, `scf.if` (both branches; a condition computed
      outside loops that guards several `scf.if`s takes one value per walk)
      and loops (the outermost two trips) are analysed; buffers indexed by
      a runtime stage are not,
      nor calls. A gemm_async with a register accumulator (wgmma) completes
      at its group's wait, one with a tensor-memory accumulator (tcgen05) at
      a wait on its commit's barrier.
    - **wgmma registers.** No use of a wgmma's register accumulator, and
      no write of its register A, between the `gemm_async` and the
      `tile.wait_group wgmma, N` that retires its group (commits counted
      along every path; another gemm_async on the same accumulator is in
      order and allowed).
    - **tensor memory.** At most 512 columns allocated at once
      (`tile.tmem_alloc`), and every allocation released by a
      `tile.tmem_dealloc` of the same address and size on every path.
    - **one cta_group.** ptxas rejects a function that mixes `cta_group::1`
      and `::2` tcgen05 instructions, and a commit tracks only the work of
      its own group: every tcgen05 operation (tile ops and hand-written
      `nvvm.tcgen05.*`) must use the function's first one's.
    - **pipeline simulation.** A kernel with a `known_block_size`, mbarrier
      groups and async copies or MMAs is executed: one cluster (its
      `known_cluster_size`) as the grid (the CTAs read `gpu.grid_dim` from
      the kernel's `tile.sample_grid = array<i64: x, y, z>` when it has
      one, so that a persistent kernel's CTA walks a few of its tiles at
      the sample sizes, not all of them), warp by warp with lane masks,
      integers only (thread ids, ranks, loop counters, stage and phase
      arithmetic), every dynamic `memref.dim` a sample size (200, 330,
      or the kernel's `tile.sample_sizes = array<i64: ...>`: up to four,
      for a branch only some sizes reach; the slow-warp runs take the last),
      a `memref.load` from a 1-D integer argument with
      `tile.sample_contents = array<i64: ...>` that element (and its
      `memref.dim` the array's length: sequence offsets, expert counts),
      updated by the run's `memref.store` and integer
      `memref.atomic_rmw` to it (an arrival counter), a register tile's
      shared-memory access narrowed to the elements its lanes hold,
      warps scheduled first to last, last to first, and with one role
      at a time as slow as possible; copies and tcgen05 commits complete
      only when no warp can move. mbarriers, named / CTA / cluster
      barriers, wgmma and bulk groups, tcgen05 commits, multicast and
      DSMEM copies and setmaxnreg follow the PTX model; what goes wrong
      is an error naming the threads, the barrier, its phase and the op
      that raced: a wait that passes on a phase its thread already saw or
      skips one; a shared or tensor-memory box read while the copy or MMA
      filling it is in flight or by a thread that did not wait for it; a
      box overwritten while a wgmma, tcgen05 op, TMA store or DSMEM copy
      may still read it or a copy into it is pending; tensor memory
      released under an MMA; a TMA copy on a barrier no
      `tile.fence mbarrier_init` fenced, a barrier used before a barrier
      published its init; a stage index outside its group, a CTA outside
      the cluster; a thread exiting with a TMA store or DSMEM copy in
      flight; a deadlock (wrong arrival or init counts, a wait on a phase
      not yet due, registers no setmaxnreg.dec released), reported with
      every waiting thread and what its barrier still expects. Kernels
      outside the model (calls, branches or indices computed from memory
      other than such an argument, or from integer arguments without a
      `tile.sample_value`) are not
      simulated;
      `simulation-remarks` says which and why.

    Shared-memory size is checked where buffers are placed.

    Example: the first pass of `--tile-to-nvvm`; `tile-opt
    --tile-verify-kernels` on its own.
  }];
  let options = [
    Option<"simulationRemarks", "simulation-remarks", "bool",
           /*default=*/"false",
           "remark on each kernel the pipeline simulation does not cover, "
           "and why">
  ];
}

def TileCheckTarget : Pass<"tile-check-target"> {
  let summary = "check each gpu.module's chip and PTX version, choose one "
                "where none is given";
  let description = [{
    After `--tile-select-variants`, for every gpu.module with an
    `#nvvm.target`: the chip must be one tile-mlir knows (an error lists
    them), a `+ptxNN` feature must be a version the chip has, and every
    instruction family the module will contain (each selected variant's
    families, and the `nvvm.tcgen05.*`, `nvvm.cp.async.bulk.*`,
    `nvvm.mapa`, `nvvm.wgmma.*` ops written next to the tile ops) must
    compile at it; each violation is an error on the op naming the family
    and the PTX versions it needs. A target without a PTX feature gets the
    lowest version that covers all of them (`+ptxNN` added to its
    features); with `explain` a remark says which and why. The table is
    `include/tile/Target/CUDA/Chips.h`.

    Example: part of `--tile-to-nvvm`, after `--tile-select-variants`.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark per gpu.module: the PTX version chosen and why">,
  ];
}

def TileSanitize : Pass<"tile-sanitize"> {
  let summary = "instrument kernels with runtime checks of their barrier "
                "protocol (sanitize mode)";
  let description = [{
    For what `--tile-verify-kernels` cannot decide at compile time, every
    kernel in a gpu.module gets runtime checks, each listed on the kernel
    (`tile.sanitize_checks`, carried by the launch manifest):

    - `mbarrier-wait-timeout`: each `nvgpu.mbarrier.try_wait.parity`
      becomes a loop of non-blocking `nvvm.mbarrier.try_wait` tests that
      gives up after `timeout-ms` of `%globaltimer` (a phase that never
      completes: a wrong parity or stage, too few arrivals, more bytes
      expected than copied, a producer that never runs).
    - `mbarrier-index`: a runtime index into an `!nvgpu.mbarrier.group` is
      below the group's size.
    - `shared-region`: a runtime offset into a shared `tile.buffer` (a ring
      stage) keeps the op's region inside the buffer.

    A failing check calls `__tile_sanitize_fail`, which writes one report
    (the check's index, the thread, the values) to the host buffer whose
    device address the runtime stores in the global
    `__tile_sanitize_report`, and traps. TileRuntime reads the report
    after the launch and returns an error naming the kernel and the check
    (`include/tile/Manifest/SanitizeReport.h` is the format). Runs after
    `--tile-select-variants`; `tile-compile --sanitize` adds it.

    Example: `tile-compile --sanitize k.mlir`, or
    `tile-opt --tile-sanitize=timeout-ms=250` after `--tile-select-variants`;
    `test/Transforms/sanitize.mlir` shows the rewritten IR.
  }];
  let options = [
    Option<"timeoutMs", "timeout-ms", "unsigned", /*default=*/"1000",
           "milliseconds an mbarrier wait may take before it is reported">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_TD

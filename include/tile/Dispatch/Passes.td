//===- Passes.td - dispatch passes -------------------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_PASSES_TD
#define TILE_DISPATCH_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSelectVariants : Pass<"tile-select-variants"> {
  let summary = "choose a hardware variant for every tile op";
  let description = [{
    For every `tile.copy_async` and `tile.gemm_async`, evaluates every
    predicate of every registered variant for the target (the chip of the
    enclosing `#nvvm.target`, else the `chip` option, else sm_100a) and
    records the highest-priority variant that passes as the op's `variant`
    attribute. A `dispatch = "name"` forces that variant, which must still
    pass. When nothing matches, the op gets an error with one note per
    variant naming every predicate that rejected it (or the planner's reason
    for declining). With `explain`, every op gets a remark naming the winner
    and why each other variant lost.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "emit a remark per op: the chosen variant and why the others lost">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "chip for ops outside a gpu.module with an #nvvm.target "
           "(default sm_100a)">,
  ];
}

def TileLowerVariants : Pass<"tile-lower-variants"> {
  let summary = "lower every tile op through its selected variant's emitter";
  let description = [{
    Rewrites each `tile.copy_async` / `tile.gemm_async` with the emitter of
    the variant `--tile-select-variants` recorded in its `variant` attribute,
    and lowers the buffer ops: `tile.alloc_shared` becomes an internal
    `llvm.mlir.global` in shared memory (address space 3, the op's
    alignment) in the enclosing symbol table, `tile.from_memref` the memref's
    `!llvm.ptr<1>` element-0 address, `tile.tmem_buffer` its i32 address,
    `tile.base_address` the lowered buffer. Every function that held tile ops
    records what dispatch chose in `tile.dispatch` (op, variant, location),
    and every kernel records its source signature in
    `tile.source_signature`; `tile-compile` writes both to the manifest.

    Errors (all reported before anything is rewritten): an op without a
    `variant` (selection did not run), a variant that is not registered or
    has no emitter, and a function whose static shared allocations exceed
    48 KiB.

    Example: `tile-opt --tile-select-variants --tile-lower-variants`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "chip for ops outside a gpu.module with an #nvvm.target "
           "(default sm_100a)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def TileFinalizeKernelABI : Pass<"tile-finalize-kernel-abi"> {
  let summary = "make tensor-map kernel parameters by-value grid constants";
  let description = [{
    After convert-gpu-to-nvvm: every parameter recorded in a kernel's
    `tile.tensor_maps` becomes `!llvm.ptr {llvm.byval = !llvm.array<128 x i8>,
    llvm.align = 128, nvvm.grid_constant}` (what nvcc emits for a
    `const __grid_constant__ CUtensorMap`), and each plan records its
    `lowered_param` index (and `lowered_global_param`, the aligned pointer of
    the memref the map describes) for the manifest.

    Example: part of `--tile-to-nvvm`, after `convert-gpu-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TileVerifyCtaGroup : Pass<"tile-verify-cta-group"> {
  let summary = "one cta_group for every tcgen05 instruction of a function";
  let description = [{
    ptxas rejects a function that mixes `cta_group::1` and `cta_group::2`
    tcgen05 instructions, and a `tcgen05.commit` tracks only the MMAs and
    copies of its own cta_group. For every function this pass collects the
    cta_group of each tcgen05 operation in it: `tile.gemm_async` and
    shared -> tensor-memory `tile.copy_async` (`cta_group`, default 1) and
    the `nvvm.tcgen05.*` ops written next to them (alloc, dealloc,
    relinquish_alloc_permit, commit, cp, mma, shift). The first that
    differs from the function's first gets an error naming both, with a
    note at the first; a commit is named as such.

    Example: part of `--tile-to-nvvm`, before variant selection;
    `tile-opt --tile-verify-cta-group` on its own.
  }];
}

#endif // TILE_DISPATCH_PASSES_TD

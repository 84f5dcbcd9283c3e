//===- Passes.td - tile -> NVVM conversion passes ----------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETONVVM_PASSES_TD
#define TILE_CONVERSION_TILETONVVM_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    records what dispatch chose in `tile.dispatch` (`#tile.dispatch_record`
    values), and every kernel records its source signature in
    `tile.source_signature`; `tile-compile` writes both to the manifest.

    The steps, in order: resolve each op's variant and target; check the
    static shared-memory budget; plan each op (reusing the plan made at
    selection when the pipeline shares one plan cache and the op is
    unchanged); let variants add kernel parameters (tensor maps); record the
    manifest attributes; convert. Every error is reported before anything
    is rewritten: an op without a `variant` (selection did not run), a
    variant that is not registered or has no emitter, a planner that
    declines, and a function whose static shared allocations exceed 48 KiB.

    With `check`, each op's emitted NVVM ops are read back (translation
    validation, docs/PtxModel.md): descriptor words, instruction
    descriptors, tensor-memory addresses, coordinates, tensor maps and
    bulk-copy sizes are evaluated with the buffers at sample addresses,
    run through the PTX-semantics model and compared element by element
    with the op's layouts. A mismatch, or an emitted value that cannot be
    read back, is an error on the op naming the first wrong element.

    Example: `tile-opt --tile-select-variants --tile-lower-variants=check=1`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "chip for ops outside a gpu.module with an #nvvm.target "
           "(default sm_100a)">,
    Option<"check", "check", "bool", /*default=*/"false",
           "translation validation: read every emitted NVVM op back, run "
           "it through the PTX model and compare each element with the "
           "op's layouts; an error on the op on a mismatch">,
  ];
  let statistics = [
    Statistic<"numPlansReused", "plans-reused",
              "ops whose plan was reused from variant selection">,
    Statistic<"numPlansMade", "plans-made",
              "ops planned again during lowering">,
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
    `const __grid_constant__ CUtensorMap`), and each `#tile.tensor_map_plan`
    records its `lowered_param` index and `lowered_global_param`, the
    aligned pointer of the memref the map describes, for the manifest.

    Example: part of `--tile-to-nvvm`, after `convert-gpu-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // TILE_CONVERSION_TILETONVVM_PASSES_TD

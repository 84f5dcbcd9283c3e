//===- Passes.td - tile -> NVVM conversion passes ----------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETONVVM_PASSES_TD
#define TILE_CONVERSION_TILETONVVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignSharedOffsets : Pass<"tile-assign-shared-offsets"> {
  let summary = "place each kernel's shared buffers in its dynamic shared "
                "segment and check the kernel's shared-memory budget";
  let description = [{
    Every `tile.alloc_shared` of a `gpu.func ... kernel` goes to the
    kernel's dynamic shared-memory segment: in IR order, each buffer gets
    the first `offset` after the previous one that is a multiple of its
    alignment (`getEffectiveAlignment()`, 1024 bytes for a 128-byte
    swizzle). The kernel records the segment in `tile.dynamic_shared_bytes`
    (the bytes to launch with, the manifest's `dynamic_shared_bytes`) and
    `tile.dynamic_shared_alignment` (the largest buffer alignment). The
    driver aligns the segment to 16 bytes only, so when a buffer needs more
    the lowering rounds the base up at run time and the segment reserves
    `alignment - 16` bytes for it.

    The kernel's shared memory must then fit the chip's limit per block
    (`ChipInfo::sharedBytesPerBlock`, 232448 bytes on sm_90a and sm_100a;
    the chip of the enclosing `#nvvm.target`, else the `chip` option, else
    sm_100a): the dynamic segment plus the static shared memory the kernel
    and the functions it calls use (address-space-3 `llvm.mlir.global` and
    `memref.global`, workgroup attributions, `nvgpu.mbarrier.create` at 8
    bytes a barrier, `tile.alloc_shared` of the callees). Over the limit is
    an error on the kernel listing every buffer with its size, with a note
    at each buffer.

    Buffers outside kernels are left alone: --tile-lower-variants makes
    them static shared globals.

    Example: `tile-opt --tile-assign-shared-offsets=chip=sm_90a`; part of
    `--tile-to-nvvm`, before `--tile-lower-variants`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "chip for kernels outside a gpu.module with an #nvvm.target "
           "(default sm_100a)">,
  ];
}

def TileLowerVariants : Pass<"tile-lower-variants"> {
  let summary = "lower every tile op through its selected variant's emitter";
  let description = [{
    Rewrites each dispatched op (`tile.copy_async`, `tile.gemm_async`,
    `tile.load`, `tile.store`, `tile.map`, `tile.reduce`, `tile.convert`)
    with the emitter of the variant `--tile-select-variants` recorded in
    its `variant` attribute,
    and lowers the buffer ops: `tile.alloc_shared` with an `offset` (a
    kernel's buffer, placed by `--tile-assign-shared-offsets`) becomes the
    address of the extern dynamic shared segment `__tile_dynamic_shared`,
    its base rounded up to the kernel's `tile.dynamic_shared_alignment`,
    plus the offset; without one (outside a kernel) an internal
    `llvm.mlir.global` in shared memory (address space 3, the op's
    alignment) in the enclosing symbol table. `tile.from_memref` the memref's
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
    declines, a kernel buffer without an `offset` (the placement did not
    run), and a function whose static shared allocations exceed 48 KiB.

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
    "::mlir::scf::SCFDialect", "::mlir::gpu::GPUDialect",
    "::mlir::nvgpu::NVGPUDialect",
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

def TileMathToNVVM : Pass<"tile-math-to-nvvm"> {
  let summary = "f32 math ops to the GPU's fast approximations";
  let description = [{
    The scalar ops kernels compute with (inside `tile.map` regions) on f32,
    lowered to the special-function unit's approximations rather than to
    libdevice calls: `math.exp2` -> `ex2.approx.ftz.f32`, `math.exp` ->
    `ex2.approx.ftz.f32` of x·log2(e), `math.log2` -> `lg2.approx.ftz.f32`,
    `math.log` -> `lg2.approx.ftz.f32` · ln(2), `math.rsqrt` ->
    `rsqrt.approx.ftz.f32`, `math.tanh` -> `tanh.approx.f32` (sm_75+; the
    one instruction without an NVVM intrinsic, so inline PTX). Subnormal
    inputs and results flush to zero. `arith.maxnumf` / `minnumf` /
    `maximumf` / `minimumf` and `math.fma` (f16, bf16, f32, f64) become the
    LLVM intrinsics NVPTX selects to single instructions (`max.f32`,
    `max.NaN.f32`, `fma.rn.f32`); `math.absf` clears the sign bit (`abs.f32`
    after LLVM) and `math.sqrt` calls `sqrt.rn` (f32, f64; f16 and bf16
    through f32), both correctly rounded (`convert-gpu-to-nvvm` refuses
    the LLVM fabs and sqrt intrinsics). Other math ops, and other types,
    are left to `convert-gpu-to-nvvm`: libdevice calls, linked when the
    CUDA toolkit is found ($CUDA_ROOT, $CUDA_HOME, $CUDA_PATH).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TILE_CONVERSION_TILETONVVM_PASSES_TD

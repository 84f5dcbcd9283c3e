//===- NVPTXCodegen.h - NVVM + LLVM dialect module to PTX ---------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The steps of gpu-module-to-binary (format=isa) for an #nvvm.target,
// without the work that does not change the PTX: a target's NVPTX
// TargetMachine is built once per process, and libdevice is read only when
// the module calls into it. A module of kernels alone gets a short LLVM IR
// pipeline instead of default<O2> (LLVMPipeline::Kernel).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_COMPILER_NVPTXCODEGEN_H
#define TILE_LIB_COMPILER_NVPTXCODEGEN_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Support/LLVM.h"
#include "tile/Compiler/Compiler.h"

#include <string>

namespace tile::detail {

/// The PTX of `module` (lowered to the NVVM and LLVM dialects, verified)
/// for `target`: translation to LLVM IR, the bitcode libraries it needs,
/// the LLVM IR pipeline `pipeline` names and code generation at the
/// target's O level. Errors are diagnostics on `module`. Callers run one
/// code generation at a time (the cached TargetMachines are shared).
mlir::FailureOr<std::string> emitPTX(mlir::gpu::GPUModuleOp module,
                                     mlir::NVVM::NVVMTargetAttr target,
                                     LLVMPipeline pipeline);

} // namespace tile::detail

#endif // TILE_LIB_COMPILER_NVPTXCODEGEN_H

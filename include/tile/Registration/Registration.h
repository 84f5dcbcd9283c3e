//===- Registration.h - everything tile tools register ----------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_REGISTRATION_REGISTRATION_H
#define TILE_REGISTRATION_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tile {
/// The tile dialect plus the upstream dialects, interfaces and LLVM-IR
/// translations the tile-to-PTX pipeline needs (gpu, nvvm, llvm, arith, scf,
/// cf, memref, func, index), including the NVVM target attribute's
/// serialization model (without it gpu-module-to-binary crashes).
void registerAllDialects(mlir::DialectRegistry &registry);

/// The tile passes and the --tile-to-nvvm pipeline (and tile-mlir's built-in
/// variants, into the global dispatch registry) plus the upstream passes of
/// the pipeline: canonicalize, cse, the gpu passes (gpu-module-to-binary,
/// nvvm-attach-target, ...) and the conversions to LLVM/NVVM.
void registerAllPasses();
/// The built-in variants (tma, dsmem, tcgen05_cp, tcgen05) in the global
/// dispatch registry, once per process (what compiling needs; the passes
/// themselves need no registration to be built programmatically).
void registerBuiltinVariantsOnce();
} // namespace tile

#endif // TILE_REGISTRATION_REGISTRATION_H

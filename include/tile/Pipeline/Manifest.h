//===- Manifest.h - the launch manifest of compiled kernels -----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What a host needs to launch the kernels of a lowered module (DESIGN.md §6):
// per kernel its source arguments, its parameters (with the source argument each came from),
// block and cluster dims, shared-memory bytes, tensor maps and the dispatch
// decisions. Built from the output of --tile-to-nvvm, before
// gpu-module-to-binary replaces the modules.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINE_MANIFEST_H
#define TILE_PIPELINE_MANIFEST_H

#include "llvm/Support/JSON.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tile {

/// Format version of the manifest; bumped on incompatible changes.
constexpr int kManifestVersion = 2;

/// `{"version", "modules": [{"name", "chip", "kernels": [...]}]}` for every
/// gpu.module of `lowered` (kernels are `llvm.func`s marked `nvvm.kernel`).
llvm::json::Object buildLaunchManifest(mlir::ModuleOp lowered);

} // namespace tile

#endif // TILE_PIPELINE_MANIFEST_H

//===- Manifest.h - the launch manifest of compiled kernels -----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The compiler's side of the launch manifest: what a host needs to launch
// each kernel of a lowered module (docs/Design.md, "Kernel ABI and the launch manifest"), read
// off the kernel attributes lowering recorded. The schema and its JSON form
// are tile/Manifest/LaunchManifest.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINE_MANIFEST_H
#define TILE_PIPELINE_MANIFEST_H

#include "tile/Manifest/LaunchManifest.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tile {

/// The manifest of every gpu.module kernel of `lowered` (after
/// --tile-to-nvvm). The files (`ptx`, `cubin`) are left for the driver.
manifest::LaunchManifest buildLaunchManifest(mlir::ModuleOp lowered);

} // namespace tile

#endif // TILE_PIPELINE_MANIFEST_H

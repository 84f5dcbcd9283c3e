//===- Passes.h - CUDA-specific checks --------------------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_H
#define TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tile {
#define GEN_PASS_DECL
#include "tile/Variants/CUDA/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Variants/CUDA/Transforms/Passes.h.inc"
} // namespace tile

#endif // TILE_VARIANTS_CUDA_TRANSFORMS_PASSES_H

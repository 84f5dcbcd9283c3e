//===- Passes.h - dispatch passes -------------------------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_PASSES_H
#define TILE_DISPATCH_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tile {
#define GEN_PASS_DECL
#include "tile/Dispatch/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Dispatch/Passes.h.inc"
} // namespace tile

#endif // TILE_DISPATCH_PASSES_H

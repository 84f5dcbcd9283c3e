//===- ExternalVariants.h - a variant from "another compiler" ---*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_DISPATCH_EXTERNALVARIANTS_H
#define TILE_UNITTESTS_DISPATCH_EXTERNALVARIANTS_H

namespace external {
/// Registers `fast_small_copy` (priority 100) for tile.copy_async on cuda;
/// its predicate `at_most_1kib` accepts regions of at most 1024 bytes.
void registerExternalVariants();
} // namespace external

#endif

//===- Tcgen05Common.h - predicates the tcgen05 variants share --*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What tcgen05_cp (copy_async) and tcgen05 (gemm_async) check the same way:
// the target chip, and where a tensor-memory buffer's address comes from.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_TCGEN05COMMON_H
#define TILE_LIB_VARIANTS_CUDA_TCGEN05COMMON_H

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <optional>
#include <string>

namespace tile::tcgen05 {

/// `tcgen05_target`: sm_100a or sm_101a (NVVM's tcgen05 ops need the
/// arch-specific chip); `instruction` names what needs it.
inline std::string bufferName(llvm::StringRef name) {
  return "the tensor-memory buffer" + (name.empty() ? "" : " " + name.str());
}

/// Why the tensor-memory buffer `value` (`name`) has no address to use, or
/// nullopt when it has one: made by tile.tmem_buffer, or passed into a
/// non-kernel function by a caller that has one.
inline std::optional<std::string> tmemAddressProblem(mlir::Value value,
                                                     llvm::StringRef name) {
  if (value.getDefiningOp<TmemBufferOp>())
    return std::nullopt;
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
    auto kernel =
        llvm::dyn_cast<mlir::gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
    if (!kernel || !kernel.isKernel())
      return std::nullopt;
    return bufferName(name) + " is a kernel argument; tensor memory is allocated in the kernel "
           "(tcgen05.alloc) and named with tile.tmem_buffer";
  }
  return bufferName(name) + " has no allocated address (make it with tile.tmem_buffer from the "
         "tcgen05.alloc result)";
}

} // namespace tile::tcgen05

#endif // TILE_LIB_VARIANTS_CUDA_TCGEN05COMMON_H

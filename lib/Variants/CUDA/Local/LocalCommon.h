//===- LocalCommon.h - what the register-tile variants share ----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_LOCAL_LOCALCOMMON_H
#define TILE_LIB_VARIANTS_CUDA_LOCAL_LOCALCOMMON_H

#include "tile/Dialect/Tile/IR/LocalTiles.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/Local/RegisterTilePlanners.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tile::local {

constexpr int kMapRegistersPriority = 10;
constexpr int kReduceInThreadPriority = 30;
constexpr int kReduceWarpShufflePriority = 20;
constexpr int kReduceSharedMemoryPriority = 10;
constexpr int kConvertRegistersPriority = 30;
constexpr int kConvertWarpShufflePriority = 20;
constexpr int kConvertSharedMemoryPriority = 10;
constexpr int kStoreStMatrixPriority = 20;
constexpr int kStoreVectorPriority = 10;
constexpr int kLoadTcgen05Priority = 20;
constexpr int kLoadLdMatrixPriority = 20;
constexpr int kLoadVectorPriority = 10;

/// The register table of a local buffer type (its layout over its shape).
inline OrReason<RegisterTable> tableOf(BufferType type) {
  std::optional<TileLayout> layout = type.getEffectiveLayout();
  if (!layout)
    return OrReason<RegisterTable>::failure("the tile has no layout");
  return RegisterTable::build(*layout, type.getShape());
}

/// One register of a lowered local tile, loaded or stored.
struct LocalTileAccess {
  mlir::Value tile;
  mlir::Type storage;
  int64_t registers;

  LocalTileAccess(mlir::Value lowered, BufferType type)
      : tile(lowered), storage(registerStorageType(type.getElementType())),
        registers(type.getEffectiveLayout()->cosize(Axis::m)) {}

  mlir::Value load(mlir::OpBuilder &b, mlir::Location loc, int64_t r) const {
    return mlir::LLVM::LoadOp::create(
        b, loc, storage, localRegisterAddress(b, loc, tile, storage,
                                              registers, r));
  }
  void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
             int64_t r) const {
    mlir::LLVM::StoreOp::create(
        b, loc, v, localRegisterAddress(b, loc, tile, storage, registers, r));
  }
};

void registerMapVariant(dispatch::VariantRegistry &registry);
void registerReduceVariants(dispatch::VariantRegistry &registry);
void registerConvertVariants(dispatch::VariantRegistry &registry);
/// The translation validation of the three (Check/LocalComputeCheck.cpp).
void registerLocalComputeChecks(dispatch::VariantRegistry &registry);
/// The translation validation of the shared_memory variants of tile.reduce
/// and tile.convert (Check/SharedScratchCheck.cpp).
void registerSharedScratchChecks(dispatch::VariantRegistry &registry);
/// The translation validation of tile.store / tile.load
/// (Check/LocalAccessCheck.cpp).
void registerLocalAccessChecks(dispatch::VariantRegistry &registry);

} // namespace tile::local

#endif // TILE_LIB_VARIANTS_CUDA_LOCAL_LOCALCOMMON_H

//===- TileDialect.h - tile dialect -----------------------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one header users include for the tile dialect: dialect, enums,
// attributes, types and ops. It pulls in no NVVM/GPU headers.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_H
#define TILE_DIALECT_TILE_IR_TILEDIALECT_H

#include "tile/Layout/Layout.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tile {
/// Side-effect resources of the tile dialect's memory effects.
struct SharedMemoryResource
    : public mlir::SideEffects::Resource::Base<SharedMemoryResource> {
  llvm::StringRef getName() final { return "tile.shared_memory"; }
};
struct TensorMemoryResource
    : public mlir::SideEffects::Resource::Base<TensorMemoryResource> {
  llvm::StringRef getName() final { return "tile.tensor_memory"; }
};
struct GlobalMemoryResource
    : public mlir::SideEffects::Resource::Base<GlobalMemoryResource> {
  llvm::StringRef getName() final { return "tile.global_memory"; }
};

/// True if `space` denotes global memory: none, integer 0 or 1, or
/// #gpu.address_space<global>.
bool isGlobalMemorySpace(mlir::Attribute space);

/// A kernel's global memref argument attribute: its base address is a
/// multiple of this many bytes (verified by the dialect, checked at launch;
/// register-tile loads and stores through it may move vectors).
constexpr llvm::StringLiteral kBaseAlignmentAttr = "tile.base_alignment";

/// `barrier` (an mbarrier operand, possibly null) with its `index`: an
/// `!llvm.ptr<3>` takes none, a workgroup `!nvgpu.mbarrier.group` needs one
/// (a constant one inside the group).
mlir::LogicalResult verifyBarrierOperand(mlir::Operation *op,
                                         mlir::Value barrier,
                                         mlir::Value index);

/// The extents of the regions `tile.gemm_async` with `sizes` [M, N, K]
/// reads and writes in each CTA (cta_group 2 halves M and N between the
/// pair): C {M/g, N}; A {M/g, K}, or {K, M/g} transposed; B {K, N/g}, or
/// {N/g, K} transposed. The verifier and the runtime checks share it.
struct GemmRegionSizes {
  llvm::SmallVector<int64_t, 2> a, b, c;
};
GemmRegionSizes gemmRegionSizes(llvm::ArrayRef<int64_t> mnk, int64_t ctaGroup,
                                bool transposeA, bool transposeB);

namespace OpTrait {
/// Fails, listing `known`, on a discardable attribute of `op` whose name has
/// no dialect prefix.
mlir::LogicalResult verifyKnownAttributes(mlir::Operation *op,
                                          llvm::ArrayRef<llvm::StringRef> known);

template <typename ConcreteType>
class KnownAttributesOnly
    : public mlir::OpTrait::TraitBase<ConcreteType, KnownAttributesOnly> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyKnownAttributes(op, ConcreteType::getAttributeNames());
  }
};
} // namespace OpTrait
} // namespace tile

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"
#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.h.inc"

#include "tile/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H

//===- LocalAccess.h - addressing a register tile's elements ----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the tile.store / tile.load variants share: a thread's base offset in
// a global or shared region (its thread digits and the region's runtime
// offsets, computed once), each element's address (base + the plan's
// constant, through the buffer's swizzle), vector widths, float
// conversions, and the stmatrix request of a store.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_LOCAL_LOCALACCESS_H
#define TILE_LIB_VARIANTS_CUDA_LOCAL_LOCALACCESS_H

#include "tile/Dialect/Tile/IR/LocalTiles.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/Local/StMatrixPlanner.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tile::local {

/// The widest vector access (in elements) that can start at element `i` of
/// a plan: consecutive registers at consecutive offsets, the offset and
/// the runtime base aligned to the width, at most 16 bytes and inside one
/// chunk the swizzle keeps whole.
int64_t vectorWidth(const LocalElements &local, const LocalAccessPlan &plan,
                    size_t i, int64_t baseAlignment, int64_t bufferAlignment,
                    unsigned bits);

/// A thread's addressing of a local tile's elements in a global or shared
/// region: its base offset (the region's runtime offsets and its thread
/// digits, emitted once) and the base's known alignment in elements.
struct ThreadBase {
  mlir::Value offset; // null when zero
  int64_t alignment = 0;
};

/// The base of `thread` (tid.x when null); `lead` is the number of the
/// memory buffer's dims before the region's.
ThreadBase threadBase(mlir::OpBuilder &b, mlir::Location loc,
                      const LocalAccessPlan &plan, const LocalElements &local,
                      size_t lead, llvm::ArrayRef<int64_t> staticOffsets,
                      mlir::ValueRange dynamic,
                      mlir::Value thread = mlir::Value());

/// buffer + swizzle(at) elements (x ^ ((x & mask) >> shift)).
mlir::Value swizzledAddress(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value at, const Swizzle &swizzle,
                            mlir::Value buffer, mlir::Type element);

/// The address of element run `i` of a plan: base + its constant offset,
/// through the buffer's swizzle.
mlir::Value elementAddress(mlir::OpBuilder &b, mlir::Location loc,
                           const ThreadBase &base, const LocalAccessPlan &plan,
                           size_t i, mlir::Value buffer, mlir::Type element);

/// What a vector access may assume of `memory`'s base address: a shared
/// allocation's alignment, a global buffer's declared one
/// (declaredAlignment), else only the element's.
int64_t bufferAlignment(mlir::Value memory, BufferType type);

/// A global buffer whose base a kernel argument's `tile.base_alignment`
/// promises: a tile.from_memref of the argument (an identity-layout
/// memref), or of a memref.reinterpret_cast of it at an offset that is a
/// known multiple of elements (constants, their products and sums).
struct DeclaredAlignment {
  mlir::BlockArgument arg;
  int64_t bytes; ///< the promise, less what the offset keeps of it
  int64_t declared; ///< the argument's promise, which the launch checks
};
std::optional<DeclaredAlignment> declaredAlignment(mlir::Value memory);

/// Records what a vector access through `memory` relies on (the
/// argument's declared alignment) as a launch requirement of its kernel.
mlir::LogicalResult requireDeclaredAlignment(mlir::Operation *op,
                                             mlir::Value memory,
                                             dispatch::KernelABI &abi,
                                             llvm::StringRef by);

/// A float value converted to `to` (rounded to nearest even when narrower;
/// bf16 <-> f16 through f32, neither holds the other).
mlir::Value convertFloat(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value v, mlir::Type to);

/// The stmatrix request of a store (stmatrix::Request): every thread's
/// element offsets, what the runtime base is a multiple of, the swizzle's
/// chunk.
/// The stmatrix / ldmatrix request of an access of the local tile `local`
/// (elements `elements`) to the memory tile `memory` at `staticOffsets`.
stmatrix::Request matrixRequest(BufferType local, BufferType memory,
                                llvm::ArrayRef<int64_t> staticOffsets,
                                const LocalAccessPlan &plan,
                                const LocalElements &elements,
                                int64_t threads, int64_t alignment);

/// The row addresses a lane supplies to stmatrix / ldmatrix: its row
/// thread's base (the warp's lane 4 (l % 8), or (l % 8) / 2 transposed)
/// plus each instruction's lane-bit constants, swizzled like the memory.
class MatrixRowAddresses {
public:
  MatrixRowAddresses(mlir::OpBuilder &b, mlir::Location loc,
                     const stmatrix::Plan &matrices,
                     const LocalAccessPlan &plan, const LocalElements &local,
                     size_t lead, llvm::ArrayRef<int64_t> staticOffsets,
                     mlir::ValueRange dynamicOffsets, mlir::Value memory,
                     mlir::Type element);
  mlir::Value at(const stmatrix::Instruction &instr);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
  const LocalAccessPlan &plan;
  mlir::Value memory;
  mlir::Type element;
  ThreadBase base;
  mlir::Value laneBit[5];
};

void registerStoreVariants(dispatch::VariantRegistry &registry);
void registerLoadVariants(dispatch::VariantRegistry &registry);

} // namespace tile::local

#endif // TILE_LIB_VARIANTS_CUDA_LOCAL_LOCALACCESS_H

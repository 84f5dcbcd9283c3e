//===- KernelABI.h - kernel parameters variants add -------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// DESIGN.md §6: a TMA tensor map is a by-value kernel parameter
// (`!llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 128,
// nvvm.grid_constant}`), one per distinct plan. Before lowering, a variant
// asks for the parameter here: it is appended to the gpu.func kernel as an
// `!llvm.ptr` argument and its plan recorded in the kernel's
// `tile.tensor_maps` attribute (with `param`, the source argument index).
// After convert-gpu-to-nvvm (which drops `llvm.byval`, and MLIR 22 rejects
// `nvvm.grid_constant` on gpu.func), --tile-finalize-kernel-abi puts the
// by-value attributes on the lowered parameter and records its index as
// `lowered_param`.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_KERNELABI_H
#define TILE_DISPATCH_KERNELABI_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace tile::dispatch {

/// Kernel attributes --tile-lower-variants records and the manifest reads.
constexpr llvm::StringLiteral kTensorMapsAttr = "tile.tensor_maps";
constexpr llvm::StringLiteral kSourceSignatureAttr = "tile.source_signature";
constexpr llvm::StringLiteral kDispatchAttr = "tile.dispatch";
/// Bytes of a CUtensorMap (cuda.h declares it alignas(128)).
constexpr unsigned kTensorMapBytes = 128;

class KernelABI {
public:
  /// The kernel argument index of the tensor-map parameter described by
  /// `plan` in the gpu.func kernel enclosing `op`; added on first use, equal
  /// plans share one. Reports an error on `op` outside a kernel.
  mlir::FailureOr<unsigned> tensorMapParam(mlir::Operation *op,
                                           mlir::DictionaryAttr plan);
};

/// The parameters convert-gpu-to-nvvm makes from one kernel argument of
/// type `type`, named: a memref of rank r becomes `allocated`, `aligned`,
/// `offset`, `size[0..r)`, `stride[0..r)`; anything else one unnamed ("").
llvm::SmallVector<std::string> loweredParamParts(mlir::Type type);

/// Index of source argument `sourceIndex` among the lowered parameters of
/// `signature`.
unsigned loweredParamIndex(mlir::FunctionType signature, unsigned sourceIndex);

} // namespace tile::dispatch

#endif // TILE_DISPATCH_KERNELABI_H

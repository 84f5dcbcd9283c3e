//===- KernelABI.h - kernel parameters variants add -------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The kernel ABI (docs/Design.md, "Kernel ABI and the launch manifest"): a
// TMA tensor map is a
// by-value kernel parameter (`!llvm.ptr {llvm.byval = !llvm.array<128 x
// i8>, llvm.align = 128, nvvm.grid_constant}`, what nvcc emits for a
// `const __grid_constant__ CUtensorMap`), one per distinct plan. Before
// lowering, a variant asks for the parameter here: it is appended to the
// gpu.func kernel as an `!llvm.ptr` argument and its plan recorded as a
// `#tile.tensor_map_plan` in the kernel's `tile.tensor_maps`. After
// convert-gpu-to-nvvm (which drops `llvm.byval`, and MLIR 22 rejects
// `nvvm.grid_constant` on gpu.func), --tile-finalize-kernel-abi puts the
// by-value attributes on the lowered parameter and records its index.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_KERNELABI_H
#define TILE_DISPATCH_KERNELABI_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "tile/Support/OrReason.h"

#include <optional>
#include <string>

namespace tile {
class TensorMapPlanAttr;
} // namespace tile

namespace tile::dispatch {

/// Kernel attributes --tile-lower-variants records and the manifest reads:
/// an array of #tile.tensor_map_plan, the source function type, an array of
/// #tile.dispatch_record.
constexpr llvm::StringLiteral kTensorMapsAttr = "tile.tensor_maps";
constexpr llvm::StringLiteral kSourceSignatureAttr = "tile.source_signature";
constexpr llvm::StringLiteral kDispatchAttr = "tile.dispatch";
/// What the kernel's variants need of its memref arguments' alignment: an
/// array of dictionaries {arg, bytes, by, strides}
/// (KernelABI::requireAlignment); the manifest's `alignment` of each
/// argument.
constexpr llvm::StringLiteral kArgAlignmentAttr = "tile.arg_alignment";
/// The kernel this one is a version of (set by its author on the
/// gpu.func): the manifest's `version_of`, which TileRuntime's
/// Module::kernelFor chooses among by the versions' alignment needs.
constexpr llvm::StringLiteral kVersionOfAttr = "tile.version_of";
/// Kernel attributes --tile-assign-shared-offsets records: the bytes of the
/// dynamic shared segment to launch with (the manifest's
/// `dynamic_shared_bytes`) and the alignment the lowering rounds its base
/// up to.
constexpr llvm::StringLiteral kDynamicSharedBytesAttr =
    "tile.dynamic_shared_bytes";
constexpr llvm::StringLiteral kDynamicSharedAlignmentAttr =
    "tile.dynamic_shared_alignment";
/// The extern shared array the dynamic segment is addressed through
/// (`extern __shared__ char __tile_dynamic_shared[]`).
constexpr llvm::StringLiteral kDynamicSharedSymbol = "__tile_dynamic_shared";

/// The byte offset in the dynamic segment of the shared scratch an op's
/// variant uses (Variant::sharedScratch), recorded on the op by
/// --tile-assign-shared-offsets.
constexpr llvm::StringLiteral kScratchOffsetAttr = "tile.scratch_offset";
/// The bytes reserved there (what the variant asked for): each op has its
/// own region.
constexpr llvm::StringLiteral kScratchBytesAttr = "tile.scratch_bytes";
/// The named barriers (bar.sync id, count) emitted code synchronizing a
/// warpgroup through the scratch uses: id kScratchBarrierFirstId + the
/// warpgroup's index in the CTA. Ids below it are left to kernels.
constexpr int64_t kScratchBarrierFirstId = 8;

/// The shared address `offset` bytes into the dynamic segment of the
/// kernel enclosing `within`: the extern segment (declared in the nearest
/// symbol table on first use) rounded up to the kernel's
/// tile.dynamic_shared_alignment. Fails (reporting on `within`) outside a
/// kernel with a segment.
mlir::FailureOr<mlir::Value> dynamicSegmentAddress(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   mlir::Operation *within,
                                                   int64_t offset);

/// The address of the shared scratch placed for `op` (kScratchOffsetAttr).
mlir::FailureOr<mlir::Value> sharedScratchAddress(mlir::OpBuilder &b,
                                                  mlir::Operation *op);

/// A global buffer's runtime extents, for emitters that compute global
/// addresses themselves (a TMA copy's extents travel in its host-encoded
/// tensor map instead): i64 values by dim, constants where the buffer's
/// type or layout fixes them, else read from the memref's descriptor
/// (which a kernel argument carries: KernelABI.h's loweredParamParts).
struct GlobalExtents {
  llvm::SmallVector<mlir::Value, 5> sizes;
  /// Element strides.
  llvm::SmallVector<mlir::Value, 5> strides;
};

/// The element strides of global buffer type `bufferType` by dim as the
/// compiler knows them: from its #tile.layout (each dim one strided iter),
/// else dense row-major over its shape, mlir::ShapedType::kDynamic where a
/// dim inside is dynamic (the run time knows them: the memref's strides).
OrReason<llvm::SmallVector<int64_t, 5>>
staticGlobalStrides(mlir::Type bufferType);

/// Emits the extents of `buffer`, a global tile buffer viewing `memref`
/// (the source of its tile.from_memref, KernelABI::globalTensorSource).
GlobalExtents emitGlobalExtents(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value memref, mlir::Type bufferType);

class KernelABI {
public:
  /// The memref whose descriptor holds the runtime sizes and strides of
  /// `buffer`, a global tile buffer used by `op`: the source of its
  /// tile.from_memref, which dominates `op`. Reports on `op` why they are
  /// out of reach otherwise (a buffer passed through a function argument,
  /// a block argument, or not global).
  mlir::FailureOr<mlir::Value> globalTensorSource(mlir::Operation *op,
                                                  mlir::Value buffer);

  /// The kernel argument holding the tensor-map parameter described by
  /// `plan` (its `param` is ignored) in the gpu.func kernel enclosing `op`:
  /// appended on first use, shared by equal plans. Reports an error on `op`
  /// outside a kernel.
  mlir::FailureOr<unsigned> addTensorMapParam(mlir::Operation *op,
                                              TensorMapPlanAttr plan);

  /// Records that variant `by`, lowering `op`, needs the address of element
  /// 0 of `memref` and the strides of its dims `strideDims` to be multiples
  /// of `bytes` (a power of two). Only a memref that is an argument of the
  /// enclosing kernel is recorded (the host checks it before launching; the
  /// manifest's `alignment`), once per distinct need. Nothing is recorded
  /// for other memrefs, except in a kernel version (`tile.version_of`):
  /// TileRuntime chooses a version by its arguments' needs, so an error on
  /// `op` there.
  mlir::LogicalResult requireAlignment(mlir::Operation *op, mlir::Value memref,
                                       uint64_t bytes, llvm::StringRef by,
                                       llvm::ArrayRef<int64_t> strideDims);
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

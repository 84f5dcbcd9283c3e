//===- LoweringCheck.h - what the variants' IR checkers share ---*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The translation validation of --tile-lower-variants=check (docs/Design.md,
// docs/PtxModel.md): each variant's checker (one file each, beside this
// one) reads the NVVM ops its emitter produced back with EmittedIR.h,
// decodes the words with the PTX model's own readers, and compares the
// result element by element with the tile op's layouts through the plan
// checker's word-level checks (PlanChecker.h). Nothing here includes an
// emitter, an encoder or a planner's arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_CHECK_LOWERINGCHECK_H
#define TILE_LIB_VARIANTS_CUDA_CHECK_LOWERINGCHECK_H

#include "EmittedIR.h"

#include "tile/Dispatch/Registry.h"
#include "tile/Variants/CUDA/PlanChecker.h"

#include "mlir/IR/Operation.h"

namespace tile::lowering_check {

/// Where the checks place the buffers (docs/PtxModel.md): shared buffers at
/// 1024-aligned addresses (the swizzle patterns' alignment; a second
/// operand 1 KiB after the first, so a swapped buffer shows), tensor memory
/// at lane 0, column 0 of an allocation.
constexpr int64_t kSharedBase = 0x1000;
constexpr int64_t kSecondSharedBase = 0x1400;
constexpr uint32_t kTmemBase = 0;

/// The error on `op` for a failed `report` (none when it passed).
llvm::LogicalResult reportOn(mlir::Operation *op, llvm::StringRef variant,
                             const plan_check::CheckReport &report);
/// The error on `op` for `status`.
llvm::LogicalResult reportOn(mlir::Operation *op, llvm::StringRef variant,
                             const Status &status);

/// An instruction the variant does not emit.
Status unexpectedInstruction(mlir::Operation *inst);

/// The known value of `operand` of `inst` (named `what`), or the reason.
OrReason<int64_t> valueOf(const EmittedValues &values, mlir::Operation *inst,
                          mlir::Value operand, llvm::StringRef what);

/// The translation validation of each built-in variant.
llvm::LogicalResult checkTMALowering(mlir::Operation *op,
                                     mlir::ValueRange lowered,
                                     llvm::ArrayRef<mlir::Operation *> emitted,
                                     const dispatch::DispatchContext &);
llvm::LogicalResult checkLdgstsLowering(mlir::Operation *op,
                                        mlir::ValueRange lowered,
                                        llvm::ArrayRef<mlir::Operation *> emitted,
                                        const dispatch::DispatchContext &);
llvm::LogicalResult checkDSMEMLowering(mlir::Operation *op,
                                       mlir::ValueRange lowered,
                                       llvm::ArrayRef<mlir::Operation *> emitted,
                                       const dispatch::DispatchContext &);
llvm::LogicalResult
checkTcgen05CpLowering(mlir::Operation *op, mlir::ValueRange lowered,
                       llvm::ArrayRef<mlir::Operation *> emitted,
                       const dispatch::DispatchContext &);
llvm::LogicalResult
checkTcgen05MmaLowering(mlir::Operation *op, mlir::ValueRange lowered,
                        llvm::ArrayRef<mlir::Operation *> emitted,
                        const dispatch::DispatchContext &);

llvm::LogicalResult
checkWgmmaLowering(mlir::Operation *op, mlir::ValueRange lowered,
                   llvm::ArrayRef<mlir::Operation *> emitted,
                   const dispatch::DispatchContext &);

} // namespace tile::lowering_check

#endif // TILE_LIB_VARIANTS_CUDA_CHECK_LOWERINGCHECK_H

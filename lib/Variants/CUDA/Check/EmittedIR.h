//===- EmittedIR.h - read emitted NVVM IR back as numbers -------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The translation validation's reader (docs/PtxModel.md, "Translation
// validation"). It runs the ops an emitter produced the way the issuing
// thread would, with the lowered buffers bound to symbolic placements
// (a shared buffer at a 1024-aligned address, a tensor-memory buffer at
// its allocation), and evaluates the integer and pointer arithmetic that
// builds descriptor words, tensor-memory addresses, coordinates and byte
// offsets: arith constants and integer ops, casts, ptrtoint / inttoptr /
// addrspacecast, i8 GEPs, mapa (the same offset in the peer CTA), scf.for
// with constant bounds (unrolled), scf.if on a known condition (elect.sync
// is the issuing lane: true). It knows nothing of what the emitters meant
// to build; every instruction op (an op without results) is handed to the
// variant's checker with the values known at that point.
//
// A value that is neither bound nor computed from bound values and
// constants cannot be read back: asking for it fails with the reason.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_CHECK_EMITTEDIR_H
#define TILE_LIB_VARIANTS_CUDA_CHECK_EMITTEDIR_H

#include "tile/Support/OrReason.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tile::lowering_check {

/// The values of the emitted ops, as far as they are known.
class EmittedValues {
public:
  /// `value` is `x` (a buffer's placement, a dynamic offset's instance).
  void bind(mlir::Value value, int64_t x) { known[value] = x; }
  /// The value, or why it is not known at compile time.
  OrReason<int64_t> get(mlir::Value value) const;
  /// Evaluates `op`'s results where its semantics are modelled; leaves
  /// them unknown otherwise.
  void evaluate(mlir::Operation *op);

private:
  llvm::DenseMap<mlir::Value, int64_t> known;
};

using InstructionVisitor = llvm::function_ref<Status(mlir::Operation *)>;

/// Runs `ops` (and the regions of scf.for / scf.if among them) in program
/// order, calling `visit` on every op without results that is not a
/// terminator; the first failure stops the run.
Status runEmitted(llvm::ArrayRef<mlir::Operation *> ops, EmittedValues &values,
                  InstructionVisitor visit);

/// `what` of `op` as a message prefix: "operand 2 of nvvm.tcgen05.cp".
std::string describeOperand(mlir::Operation *op, llvm::StringRef what);

} // namespace tile::lowering_check

#endif // TILE_LIB_VARIANTS_CUDA_CHECK_EMITTEDIR_H

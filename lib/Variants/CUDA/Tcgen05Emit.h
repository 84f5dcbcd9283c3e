//===- Tcgen05Emit.h - NVVM building blocks of the tcgen05 emitters -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the tcgen05_cp and tcgen05 (MMA) emitters build the same way: a
// shared-memory descriptor from a buffer's address and the descriptor's
// constant part, a start advanced by a byte offset, and a tensor-memory
// pointer at `(lane << 16) | column` past a buffer's address.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_TCGEN05EMIT_H
#define TILE_LIB_VARIANTS_CUDA_TCGEN05EMIT_H

#include "tile/Target/CUDA/SmemDescriptor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace tile::tcgen05 {

/// The descriptor of a shared tile at `sharedPtr` (`!llvm.ptr<3>`): its
/// start-address field (cuda::smemStartAddressField, computed at run time)
/// OR `descriptorTemplate` (LBO, SBO, fixed bits, swizzle; start 0).
inline mlir::Value sharedDescriptor(mlir::RewriterBase &rewriter,
                                    mlir::Location loc, mlir::Value sharedPtr,
                                    uint64_t descriptorTemplate) {
  mlir::Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  auto c32 = [&](int64_t v) -> mlir::Value {
    return mlir::arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  mlir::Value addr =
      mlir::LLVM::PtrToIntOp::create(rewriter, loc, i32, sharedPtr);
  mlir::Value masked =
      mlir::arith::AndIOp::create(rewriter, loc, addr,
                                  c32(cuda::kSmemStartAddressMask));
  mlir::Value field = mlir::arith::ShRUIOp::create(
      rewriter, loc, masked, c32(cuda::kSmemStartAddressShift));
  mlir::Value field64 = mlir::arith::ExtUIOp::create(rewriter, loc, i64, field);
  return mlir::arith::OrIOp::create(
      rewriter, loc, field64,
      mlir::arith::ConstantIntOp::create(
          rewriter, loc, i64, static_cast<int64_t>(descriptorTemplate)));
}

/// `descriptor` with its start moved `bytes` (a multiple of 16) on.
inline mlir::Value advanceDescriptor(mlir::RewriterBase &rewriter,
                                     mlir::Location loc, mlir::Value descriptor,
                                     int64_t bytes) {
  if (!bytes)
    return descriptor;
  return mlir::arith::AddIOp::create(
      rewriter, loc, descriptor,
      mlir::arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                         bytes >> cuda::kSmemStartAddressShift));
}

/// `!llvm.ptr<6>` at the i32 tensor-memory address `base` plus `offset`
/// (`(lane << 16) | column`).
inline mlir::Value tmemPointer(mlir::RewriterBase &rewriter, mlir::Location loc,
                               mlir::Value base, uint32_t offset) {
  mlir::Value addr = base;
  if (offset)
    addr = mlir::arith::AddIOp::create(
        rewriter, loc, base,
        mlir::arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                           offset));
  return mlir::LLVM::IntToPtrOp::create(
      rewriter, loc,
      mlir::LLVM::LLVMPointerType::get(
          rewriter.getContext(), unsigned(mlir::NVVM::NVVMMemorySpace::Tensor)),
      addr);
}

} // namespace tile::tcgen05

#endif // TILE_LIB_VARIANTS_CUDA_TCGEN05EMIT_H

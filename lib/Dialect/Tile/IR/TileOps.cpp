//===- TileOps.cpp - tile dialect operations --------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tile;

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// FromMemrefOp
//===----------------------------------------------------------------------===//

/// True if `space` denotes global memory: none, integer 1, or
/// #gpu.address_space<global> (matched by name to keep GPU headers out).
static bool isGlobalMemorySpace(Attribute space) {
  if (!space)
    return true;
  if (auto i = dyn_cast<IntegerAttr>(space))
    return i.getInt() == 0 || i.getInt() == 1;
  std::string text;
  llvm::raw_string_ostream os(text);
  space.print(os);
  return StringRef(text) == "#gpu.address_space<global>";
}

LogicalResult FromMemrefOp::verify() {
  auto memref = cast<MemRefType>(getSource().getType());
  BufferType buffer = getResult().getType();
  if (memref.getElementType() != buffer.getElementType())
    return emitOpError("element type ")
           << buffer.getElementType() << " differs from the memref's "
           << memref.getElementType();
  if (memref.getShape() != buffer.getShape())
    return emitOpError("buffer shape must equal the memref shape ")
           << "(dynamic dims included)";
  if (!isGlobalMemorySpace(memref.getMemorySpace()))
    return emitOpError("expects a global-memory memref, got memory space ")
           << memref.getMemorySpace();

  SmallVector<int64_t> strides;
  int64_t memrefOffset;
  if (failed(memref.getStridesAndOffset(strides, memrefOffset)))
    return emitOpError("memref layout is not strided");
  if (!buffer.getLayout()) {
    if (!memref.getLayout().isIdentity() &&
        !memref.areTrailingDimsContiguous(memref.getRank()))
      return emitOpError("memref is not dense row-major; give the buffer a ")
             << "#tile.layout matching its strides";
    return success();
  }
  if (ShapedType::isDynamic(memrefOffset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return emitOpError("a buffer layout needs static memref strides");
  SmallVector<Iter> iters;
  for (auto [extent, stride] : llvm::zip(memref.getShape(), strides))
    iters.push_back(Iter{extent, stride, Axis::m});
  SmallVector<AxisOffset> offsets;
  if (memrefOffset)
    offsets.push_back(AxisOffset{Axis::m, memrefOffset});
  TileLayout expected(iters, {}, offsets);
  TileLayout actual = buffer.getLayout().getLayout();
  // Compare functions, not spellings: S[512:1] is S[(8,64):(64,1)].
  if (expected.canonicalize() != actual.canonicalize())
    return emitOpError("buffer layout ")
           << actual.toString() << " does not match the memref strides ("
           << expected.toString() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// AllocSharedOp
//===----------------------------------------------------------------------===//

/// Least alignment a shared tile of `type` needs: one swizzle atom (8 rows of
/// the swizzle width) when swizzled, else 16 bytes (TMA / bulk-copy minimum).
static int64_t requiredAlignment(BufferType type) {
  if (!type.getLayout())
    return 16;
  std::optional<SwizzleMode> mode = classifyNvmmaSwizzle(
      type.getLayout().getSwizzle(), type.getElementBits());
  if (!mode)
    return 16;
  return 8 * swizzleBytes(*mode);
}

int64_t AllocSharedOp::getEffectiveAlignment() {
  if (std::optional<uint64_t> a = getAlignment())
    return static_cast<int64_t>(*a);
  return requiredAlignment(getResult().getType());
}

int64_t AllocSharedOp::getAllocationBytes() {
  BufferType type = getResult().getType();
  int64_t elements = type.getEffectiveLayout()->cosize(Axis::m);
  return llvm::divideCeil(elements * type.getElementBits(), 8);
}

LogicalResult AllocSharedOp::verify() {
  BufferType type = getResult().getType();
  if (!type.hasStaticShape())
    return emitOpError("shared buffers need a static shape");
  if (std::optional<uint64_t> a = getAlignment()) {
    int64_t alignment = static_cast<int64_t>(*a);
    if (alignment < 16 || !llvm::isPowerOf2_64(alignment))
      return emitOpError("alignment must be a power of two >= 16, got ")
             << alignment;
    int64_t required = requiredAlignment(type);
    if (alignment < required)
      return emitOpError("a swizzled tile needs alignment >= ")
             << required << " (one swizzle atom), got " << alignment;
  }
  return success();
}

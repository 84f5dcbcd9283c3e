//===- KernelABI.cpp - kernel parameters variants add -----------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dispatch/KernelABI.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/CUDA/HardwareLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tile::dispatch;
using namespace tile;
using tile::TensorMapPlanAttr;

namespace {

/// The tensor-map records of `kernel`.
SmallVector<TensorMapPlanAttr> tensorMapsOf(gpu::GPUFuncOp kernel) {
  SmallVector<TensorMapPlanAttr> maps;
  if (auto existing = kernel->getAttrOfType<ArrayAttr>(kTensorMapsAttr))
    for (Attribute map : existing)
      maps.push_back(cast<TensorMapPlanAttr>(map));
  return maps;
}

gpu::GPUFuncOp enclosingKernel(Operation *op) {
  auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
  return kernel && kernel.isKernel() ? kernel : gpu::GPUFuncOp();
}

} // namespace

FailureOr<unsigned> KernelABI::addTensorMapParam(Operation *op,
                                                 TensorMapPlanAttr plan) {
  gpu::GPUFuncOp kernel = enclosingKernel(op);
  if (!kernel)
    return op->emitError()
           << "a tensor-map copy must be inside a gpu.func kernel: its "
              "tensor map is a kernel parameter";
  for (TensorMapPlanAttr map : tensorMapsOf(kernel))
    if (map.withParam(0) == plan.withParam(0))
      return unsigned(map.getParam());
  MLIRContext *ctx = op->getContext();
  unsigned index = kernel.getNumArguments();
  NamedAttrList argAttrs;
  argAttrs.append(LLVM::LLVMDialect::getAlignAttrName(),
                  IntegerAttr::get(IntegerType::get(ctx, 64),
                                   cuda::kTensorMapBytes));
  if (failed(kernel.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                                   argAttrs.getDictionary(ctx), op->getLoc())))
    return op->emitError() << "cannot add the tensor-map parameter to kernel "
                           << kernel.getName();
  SmallVector<Attribute> maps;
  for (TensorMapPlanAttr map : tensorMapsOf(kernel))
    maps.push_back(map);
  maps.push_back(plan.withParam(index));
  kernel->setAttr(kTensorMapsAttr, ArrayAttr::get(ctx, maps));
  return index;
}

LogicalResult KernelABI::requireAlignment(Operation *op, Value memref,
                                          uint64_t bytes, StringRef by,
                                          ArrayRef<int64_t> strideDims) {
  gpu::GPUFuncOp kernel = enclosingKernel(op);
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!kernel || bytes <= 1)
    return success();
  if (!arg || arg.getOwner() != &kernel.getBody().front()) {
    if (kernel->hasAttr(kVersionOfAttr))
      return op->emitError()
             << "in a kernel version (tile.version_of), " << by
             << " copies read a kernel argument, not a view of one: the "
                "runtime chooses a version by what it needs of its "
                "arguments";
    return success();
  }
  MLIRContext *ctx = op->getContext();
  Builder b(ctx);
  SmallVector<int64_t> dims(strideDims);
  llvm::sort(dims);
  dims.erase(llvm::unique(dims), dims.end());
  DictionaryAttr need = b.getDictionaryAttr(
      {b.getNamedAttr("arg", b.getI64IntegerAttr(arg.getArgNumber())),
       b.getNamedAttr("bytes", b.getI64IntegerAttr(bytes)),
       b.getNamedAttr("by", b.getStringAttr(by)),
       b.getNamedAttr("strides", b.getDenseI64ArrayAttr(dims))});
  SmallVector<Attribute> records;
  if (auto existing = kernel->getAttrOfType<ArrayAttr>(kArgAlignmentAttr))
    records.assign(existing.begin(), existing.end());
  if (llvm::is_contained(records, need))
    return success();
  records.push_back(need);
  kernel->setAttr(kArgAlignmentAttr, ArrayAttr::get(ctx, records));
  return success();
}

SmallVector<std::string> tile::dispatch::loweredParamParts(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return {""};
  SmallVector<std::string> parts = {"allocated", "aligned", "offset"};
  for (int64_t d = 0; d < memref.getRank(); ++d)
    parts.push_back("size[" + std::to_string(d) + "]");
  for (int64_t d = 0; d < memref.getRank(); ++d)
    parts.push_back("stride[" + std::to_string(d) + "]");
  return parts;
}

unsigned tile::dispatch::loweredParamIndex(FunctionType signature,
                                           unsigned sourceIndex) {
  unsigned index = 0;
  for (unsigned i = 0; i < sourceIndex; ++i)
    index += loweredParamParts(signature.getInput(i)).size();
  return index;
}

/// base + (-base mod alignment) + offset, where base is the extern segment
/// (`extern __shared__ char __tile_dynamic_shared[]`). It is declared
/// 16-byte aligned, what the driver guarantees: a larger declared alignment
/// would let LLVM fold the rounding away.
FailureOr<Value> tile::dispatch::dynamicSegmentAddress(OpBuilder &b,
                                                       Location loc,
                                                       Operation *within,
                                                       int64_t offset) {
  auto kernel = within->getParentOfType<FunctionOpInterface>();
  auto alignmentAttr =
      kernel ? kernel->getAttrOfType<IntegerAttr>(kDynamicSharedAlignmentAttr)
             : IntegerAttr();
  if (!alignmentAttr)
    return within->emitError()
           << "no dynamic shared segment in the enclosing kernel; run "
              "--tile-assign-shared-offsets first";
  Operation *table = SymbolTable::getNearestSymbolTable(within);
  if (!table)
    return within->emitError() << "no enclosing symbol table";
  MLIRContext *ctx = b.getContext();
  unsigned shared = unsigned(NVVM::NVVMMemorySpace::Shared);
  Operation *segment = SymbolTable::lookupSymbolIn(table, kDynamicSharedSymbol);
  if (segment && !isa<LLVM::GlobalOp>(segment))
    return within->emitError() << "@" << kDynamicSharedSymbol
                               << " names something other than the dynamic "
                                  "shared segment";
  if (!segment) {
    OpBuilder::InsertionGuard guard(b);
    Operation *owner = within;
    while (owner->getParentOp() != table)
      owner = owner->getParentOp();
    b.setInsertionPoint(owner);
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kDynamicSharedSymbol,
        /*value=*/Attribute(), cuda::kDynamicSharedBaseAlignment, shared);
  }
  auto ptrType = LLVM::LLVMPointerType::get(ctx, shared);
  Value base =
      LLVM::AddressOfOp::create(b, loc, ptrType, kDynamicSharedSymbol);
  int64_t alignment = alignmentAttr.getInt();
  if (alignment > cuda::kDynamicSharedBaseAlignment) {
    // Shared addresses fit in 32 bits; only the low ones matter here.
    Type i32 = b.getI32Type();
    Value address = LLVM::PtrToIntOp::create(b, loc, i32, base);
    Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
    Value mask = LLVM::ConstantOp::create(b, loc, i32, alignment - 1);
    Value negated = LLVM::SubOp::create(b, loc, zero, address);
    Value padding = LLVM::AndOp::create(b, loc, negated, mask);
    base = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{padding});
  }
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)})
      .getResult();
}

FailureOr<Value> tile::dispatch::sharedScratchAddress(OpBuilder &b,
                                                      Operation *op) {
  auto offset = op->getAttrOfType<IntegerAttr>(kScratchOffsetAttr);
  if (!offset)
    return op->emitError() << "no shared scratch was placed for this op; run "
                              "--tile-assign-shared-offsets first";
  return dynamicSegmentAddress(b, op->getLoc(), op, offset.getInt());
}

OrReason<SmallVector<int64_t, 5>>
tile::dispatch::staticGlobalStrides(Type bufferType) {
  using R = OrReason<SmallVector<int64_t, 5>>;
  auto type = dyn_cast<BufferType>(bufferType);
  if (!type || type.getScope() != MemoryScope::global)
    return R::failure("not a global tile buffer");
  ArrayRef<int64_t> shape = type.getShape();
  const unsigned rank = shape.size();
  SmallVector<int64_t, 5> strides(rank, 1);
  if (LayoutAttr layoutAttr = type.getLayout()) {
    OrReason<GroupedLayout> grouped = layoutAttr.getLayout().group(shape);
    if (!grouped)
      return R::failure("global layout: " + grouped.reason());
    for (unsigned d = 0; d < rank; ++d) {
      unsigned nonUnit = 0;
      for (const Iter &it : grouped->group(d))
        if (it.extent > 1) {
          strides[d] = it.stride;
          ++nonUnit;
        }
      if (nonUnit > 1)
        return R::failure("global dim " + std::to_string(d) +
                          " is not one strided dim");
    }
    return strides;
  }
  int64_t inner = 1;
  for (unsigned d = rank; d-- > 0;) {
    strides[d] = inner;
    if (inner != ShapedType::kDynamic)
      inner = ShapedType::isDynamic(shape[d]) ? ShapedType::kDynamic
                                              : inner * shape[d];
  }
  return strides;
}

GlobalExtents tile::dispatch::emitGlobalExtents(OpBuilder &b, Location loc,
                                                Value memref,
                                                Type bufferType) {
  auto type = cast<BufferType>(bufferType);
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  // The descriptor is read only where the type leaves a value open.
  memref::ExtractStridedMetadataOp metadata;
  auto read = [&]() {
    if (!metadata)
      metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    return metadata;
  };
  auto asI64 = [&](Value index) -> Value {
    return arith::IndexCastOp::create(b, loc, i64, index);
  };
  OrReason<SmallVector<int64_t, 5>> strides = staticGlobalStrides(type);
  GlobalExtents extents;
  for (unsigned d = 0; d < type.getRank(); ++d) {
    int64_t size = type.getShape()[d];
    extents.sizes.push_back(ShapedType::isDynamic(size)
                                ? asI64(read().getSizes()[d])
                                : constant(size));
    int64_t stride = strides ? (*strides)[d] : ShapedType::kDynamic;
    extents.strides.push_back(ShapedType::isDynamic(stride)
                                  ? asI64(read().getStrides()[d])
                                  : constant(stride));
  }
  return extents;
}

FailureOr<Value> KernelABI::globalTensorSource(Operation *op, Value buffer) {
  auto type = dyn_cast<BufferType>(buffer.getType());
  if (!type || type.getScope() != MemoryScope::global)
    return op->emitError() << "expected a global tile buffer";
  auto view = buffer.getDefiningOp<FromMemrefOp>();
  if (!view)
    return op->emitError()
           << "the global buffer's runtime sizes and strides are needed: it "
              "must be a tile.from_memref in the same function (not a "
              "function or block argument)";
  return view.getSource();
}

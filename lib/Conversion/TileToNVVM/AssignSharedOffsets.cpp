//===- AssignSharedOffsets.cpp - --tile-assign-shared-offsets ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lays each kernel's tile.alloc_shared buffers out in its dynamic shared
// segment, then checks everything the kernel keeps in shared memory against
// the chip's limit per block.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Target/CUDA/Chips.h"
#include "tile/Target/CUDA/HardwareLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

namespace tile {
#define GEN_PASS_DEF_TILEASSIGNSHAREDOFFSETS
#include "tile/Conversion/TileToNVVM/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

namespace {

/// Scratch words are read and written 16 bytes at a time at most.
constexpr int64_t kScratchAlignment = 16;

/// One thing a kernel keeps in shared memory, as the budget error lists it.
struct SharedUse {
  std::string name;
  int64_t bytes = 0;
  int64_t alignment = 1;
  Location loc;
  /// Offset in the dynamic segment; none for static shared memory.
  std::optional<int64_t> offset;
};

/// "240 KiB", "240.5 KiB".
std::string kibibytes(int64_t bytes) {
  if (bytes % 1024 == 0)
    return std::to_string(bytes / 1024) + " KiB";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.1f KiB", bytes / 1024.0);
  return text;
}

std::string operandName(Value value, AsmState &state) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, state);
  return text;
}

/// An `extern` global (the dynamic segment): no static bytes.
bool isDeclaration(LLVM::GlobalOp global) {
  return global.getLinkage() == LLVM::Linkage::External &&
         !global.getValueOrNull() && global.getInitializerRegion().empty();
}

bool isWorkgroupSpace(Attribute space) {
  if (auto number = dyn_cast_or_null<IntegerAttr>(space))
    return number.getInt() == int64_t(NVVM::NVVMMemorySpace::Shared);
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  return false;
}

/// Bytes of a static memref, or nullopt when they are not known.
std::optional<int64_t> memrefBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return llvm::divideCeil(
      type.getNumElements() * type.getElementTypeBitWidth(), 8);
}

struct AssignSharedOffsetsPass
    : public tile::impl::TileAssignSharedOffsetsBase<AssignSharedOffsetsPass> {
  using TileAssignSharedOffsetsBase::TileAssignSharedOffsetsBase;

  /// A scratch region per op that needs one, after the buffers, its offset
  /// and size recorded on the op. Regions are not shared between ops: the
  /// warpgroups of a kernel synchronize only within themselves, so one
  /// may run an op while another still runs the previous one. The end of
  /// the segment, or none when no op needs scratch.
  std::optional<int64_t> placeScratch(gpu::GPUFuncOp kernel, int64_t end,
                                      SmallVectorImpl<SharedUse> &uses) {
    bool any = false;
    kernel.walk([&](DispatchOpInterface op) {
      op->removeAttr(dispatch::kScratchOffsetAttr);
      op->removeAttr(dispatch::kScratchBytesAttr);
      std::optional<StringRef> name = op.getSelectedVariant();
      if (!name)
        return;
      std::optional<dispatch::DispatchContext> context =
          dispatch::dispatchContextFor(op, chip);
      if (!context)
        return;
      const dispatch::Variant *variant = dispatch::findVariant(
          op->getName().getStringRef(), context->family, *name);
      if (!variant || !variant->sharedScratch || !variant->plan)
        return;
      OrReason<dispatch::AnyPlan> plan = variant->plan(op, *context);
      if (!plan)
        return; // lowering reports the planner's reason
      int64_t need = variant->sharedScratch(op, *plan);
      if (need <= 0)
        return;
      int64_t offset = llvm::alignTo(end, kScratchAlignment);
      Builder b(kernel.getContext());
      op->setAttr(dispatch::kScratchOffsetAttr, b.getI64IntegerAttr(offset));
      op->setAttr(dispatch::kScratchBytesAttr, b.getI64IntegerAttr(need));
      uses.push_back({"scratch of " + op->getName().getStringRef().str() +
                          " (" + variant->name + ")",
                      need, kScratchAlignment, op->getLoc(), offset});
      end = offset + need;
      any = true;
    });
    return any ? std::optional<int64_t>(end) : std::nullopt;
  }

  /// Places the kernel's buffers in IR order, each at the first multiple of
  /// its alignment, and records the segment on the kernel.
  void placeBuffers(gpu::GPUFuncOp kernel, AsmState &names,
                    SmallVectorImpl<SharedUse> &uses) {
    int64_t end = 0;
    int64_t alignment = cuda::kDynamicSharedBaseAlignment;
    bool any = false;
    kernel.walk([&](AllocSharedOp alloc) {
      int64_t align = alloc.getEffectiveAlignment();
      int64_t offset = llvm::alignTo(end, align);
      alloc.setOffset(offset);
      end = offset + alloc.getAllocationBytes();
      alignment = std::max(alignment, align);
      any = true;
      uses.push_back({operandName(alloc.getResult(), names),
                      alloc.getAllocationBytes(), align, alloc.getLoc(),
                      offset});
    });
    if (std::optional<int64_t> scratchEnd =
            placeScratch(kernel, end, uses)) {
      end = *scratchEnd;
      alignment = std::max(alignment, kScratchAlignment);
      any = true;
    }
    if (!any) {
      kernel->removeAttr(dispatch::kDynamicSharedBytesAttr);
      kernel->removeAttr(dispatch::kDynamicSharedAlignmentAttr);
      return;
    }
    // The driver's base is only 16-byte aligned: rounding it up to
    // `alignment` moves it by at most alignment - 16 bytes.
    int64_t bytes = end + alignment - cuda::kDynamicSharedBaseAlignment;
    Builder b(kernel.getContext());
    kernel->setAttr(dispatch::kDynamicSharedBytesAttr,
                    b.getI64IntegerAttr(bytes));
    kernel->setAttr(dispatch::kDynamicSharedAlignmentAttr,
                    b.getI64IntegerAttr(alignment));
  }

  /// The static shared memory `func` and the functions it calls use, each
  /// global once.
  void collectStatic(FunctionOpInterface func, AsmState &names,
                     SymbolTableCollection &symbols,
                     llvm::SetVector<Operation *> &visited,
                     llvm::SetVector<Operation *> &globals,
                     SmallVectorImpl<SharedUse> &uses) {
    if (!visited.insert(func))
      return;
    bool isRoot = visited.size() == 1;
    std::string where = isRoot ? "" : (" in @" + func.getName()).str();
    if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(func.getOperation()))
      for (BlockArgument arg : gpuFunc.getWorkgroupAttributions())
        if (std::optional<int64_t> bytes =
                memrefBytes(cast<MemRefType>(arg.getType())))
          uses.push_back({(isRoot ? operandName(arg, names) : "workgroup") +
                              where,
                          *bytes, 16, arg.getLoc(), std::nullopt});
    func.walk([&](Operation *op) {
      if (auto address = dyn_cast<LLVM::AddressOfOp>(op)) {
        auto global = symbols.lookupNearestSymbolFrom<LLVM::GlobalOp>(
            op, address.getGlobalNameAttr());
        if (!global || global.getAddrSpace() !=
                           unsigned(NVVM::NVVMMemorySpace::Shared) ||
            isDeclaration(global) || !globals.insert(global))
          return;
        DataLayout layout = DataLayout::closest(global);
        uses.push_back({"@" + global.getSymName().str(),
                        int64_t(layout.getTypeSize(global.getGlobalType())),
                        int64_t(global.getAlignment().value_or(1)),
                        global.getLoc(), std::nullopt});
      } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
        auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
            op, get.getNameAttr());
        if (!global || !isWorkgroupSpace(global.getType().getMemorySpace()) ||
            !globals.insert(global))
          return;
        if (std::optional<int64_t> bytes = memrefBytes(global.getType()))
          uses.push_back({"@" + global.getSymName().str(), *bytes,
                          int64_t(global.getAlignment().value_or(1)),
                          global.getLoc(), std::nullopt});
      } else if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
        int64_t count = create.getBarriers().getType().getNumBarriers();
        uses.push_back({(isRoot ? operandName(create.getBarriers(), names)
                                : "mbarriers") +
                            " (" + std::to_string(count) + " mbarriers)" +
                            where,
                        count * cuda::kMbarrierBytes, cuda::kMbarrierBytes,
                        op->getLoc(), std::nullopt});
      } else if (isa<TmemAllocOp>(op)) {
        // The 4-byte shared slot tcgen05.alloc writes the address to.
        uses.push_back({"tile.tmem_alloc address slot" + where, 4, 4,
                        op->getLoc(), std::nullopt});
      } else if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
        // A callee's buffer is a static global (it has no kernel segment).
        if (!isRoot)
          uses.push_back({"tile.alloc_shared" + where,
                          alloc.getAllocationBytes(),
                          alloc.getEffectiveAlignment(), op->getLoc(),
                          std::nullopt});
      } else if (auto call = dyn_cast<CallOpInterface>(op)) {
        if (auto callee = dyn_cast_or_null<FunctionOpInterface>(
                call.resolveCallableInTable(&symbols)))
          if (!callee.isExternal())
            collectStatic(callee, names, symbols, visited, globals, uses);
      }
    });
  }

  /// The chip's limit per block, or an error on the kernel.
  std::optional<std::pair<std::string, int64_t>>
  limitFor(gpu::GPUFuncOp kernel) {
    if (dispatch::dispatchFamilyOf(kernel) != dispatch::kCudaFamily)
      return std::nullopt;
    std::string name = dispatch::enclosingTargetChip(kernel).value_or(
        chip.empty() ? std::string("sm_100a") : std::string(chip));
    OrReason<cuda::ChipInfo> info = cuda::lookupChip(name);
    if (!info) {
      kernel.emitError() << info.reason();
      anyError = true;
      return std::nullopt;
    }
    return std::make_pair(name, info->sharedBytesPerBlock);
  }

  void checkBudget(gpu::GPUFuncOp kernel, ArrayRef<SharedUse> uses) {
    std::optional<std::pair<std::string, int64_t>> limit = limitFor(kernel);
    if (!limit)
      return;
    int64_t dynamicBytes = 0;
    if (auto attr =
            kernel->getAttrOfType<IntegerAttr>(dispatch::kDynamicSharedBytesAttr))
      dynamicBytes = attr.getInt();
    int64_t staticBytes = 0, listed = 0;
    for (const SharedUse &use : uses) {
      listed += use.bytes;
      if (!use.offset)
        staticBytes = llvm::alignTo(staticBytes, std::max<int64_t>(
                                                     use.alignment, 1)) +
                      use.bytes;
    }
    int64_t total = staticBytes + dynamicBytes;
    if (total <= limit->second)
      return;
    InFlightDiagnostic diag = kernel.emitError();
    diag << "kernel @" << kernel.getName() << " needs " << total
         << " bytes of shared memory (" << kibibytes(total) << ") but "
         << limit->first << " allows " << limit->second << " per block ("
         << kibibytes(limit->second) << "): ";
    llvm::interleaveComma(uses, diag, [&](const SharedUse &use) {
      diag << use.name << " " << use.bytes << " B";
    });
    if (total > listed)
      diag << ", alignment padding " << total - listed << " B";
    for (const SharedUse &use : uses) {
      Diagnostic &note = diag.attachNote(use.loc);
      note << use.name << ": " << use.bytes << " B";
      if (use.offset)
        note << " at offset " << *use.offset << " of the dynamic segment";
      else
        note << " of static shared memory";
    }
    anyError = true;
  }

  void runOnOperation() override {
    SymbolTableCollection symbols;
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return;
      AsmState names(kernel);
      SmallVector<SharedUse> uses;
      placeBuffers(kernel, names, uses);
      llvm::SetVector<Operation *> visited, globals;
      collectStatic(kernel, names, symbols, visited, globals, uses);
      checkBudget(kernel, uses);
    });
    if (anyError)
      signalPassFailure();
  }

  bool anyError = false;
};

} // namespace

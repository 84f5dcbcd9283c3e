//===- LowerVariants.cpp - --tile-lower-variants ----------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pass, as named steps: resolve each dispatch op's variant and target,
// check the shared buffers' placement and the static shared-memory budget,
// plan each op once, let variants add kernel parameters, record the
// manifest attributes, convert. Every
// check runs before anything is rewritten, so a failed run leaves the IR
// intact and reports every problem.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/Passes.h"
#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Dispatch/PlanCache.h"
#include "tile/Target/CUDA/HardwareLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tile {
#define GEN_PASS_DEF_TILELOWERVARIANTS
#include "tile/Conversion/TileToNVVM/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;

namespace {

/// `file:line:col` for file locations, the printed location otherwise.
std::string describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" +
            std::to_string(file.getLine()) + ":" +
            std::to_string(file.getColumn()))
        .str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (isa<FileLineColLoc>(inner))
        return describeLocation(inner);
  if (auto named = dyn_cast<NameLoc>(loc))
    return describeLocation(named.getChildLoc());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

struct LowerVariantsPass
    : public tile::impl::TileLowerVariantsBase<LowerVariantsPass> {
  using TileLowerVariantsBase::TileLowerVariantsBase;

  /// Shared with --tile-select-variants in a pipeline; a fresh one when the
  /// pass runs alone.
  std::shared_ptr<PlanCache> cache;
  /// Tests: called on each op's emitted ops before the check.
  EmittedOpsHook beforeCheck;

  /// Step 1: the variant and target of every dispatch op.
  LogicalResult resolveVariants(PlannedOps &work) {
    bool ok = true;
    getOperation()->walk([&](DispatchOpInterface op) {
      std::optional<StringRef> name = op.getSelectedVariant();
      if (!name) {
        op->emitError() << "no variant selected for this " << op->getName()
                        << "; run --tile-select-variants first";
        ok = false;
        return;
      }
      // The variant is checked first, so an op with an unknown variant and
      // a bad target reports both.
      std::string family = dispatchFamilyOf(op);
      const Variant *variant =
          findVariant(op->getName().getStringRef(), family, *name);
      if (!variant) {
        op->emitError() << "variant '" << *name << "' is not registered for "
                        << op->getName() << " on " << family;
        ok = false;
      } else if (!variant->emit) {
        op->emitError() << "variant '" << *name << "' cannot lower "
                        << op->getName() << " yet: it registers no emitter";
        ok = false;
      }
      std::optional<DispatchContext> context = dispatchContextFor(op, chip);
      if (!context)
        ok = false;
      else if (variant && variant->emit)
        work[op] = PlannedOp{variant, *context, nullptr};
    });
    return success(ok);
  }

  /// Step 2: every kernel buffer placed in its dynamic segment, and the
  /// static shared allocations (outside kernels) of each function within
  /// the static limit.
  LogicalResult checkSharedPlacement() {
    bool ok = true;
    getOperation()->walk([&](FunctionOpInterface func) {
      auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(func.getOperation());
      bool isKernel = gpuFunc && gpuFunc.isKernel();
      bool hasSegment = func->hasAttr(kDynamicSharedAlignmentAttr);
      int64_t bytes = 0;
      func.walk([&](AllocSharedOp alloc) {
        if (alloc.getOffset() ? !hasSegment : isKernel) {
          alloc.emitError() << "shared buffer of @" << func.getName()
                            << " is not placed in a dynamic shared segment; "
                               "run --tile-assign-shared-offsets first";
          ok = false;
        }
        if (alloc.getOffset())
          return;
        bytes = llvm::alignTo(bytes, alloc.getEffectiveAlignment()) +
                alloc.getAllocationBytes();
      });
      if (bytes > cuda::kMaxStaticSharedBytes) {
        func.emitError() << "static shared allocations total " << bytes
                         << " bytes; the static shared-memory limit is "
                         << cuda::kMaxStaticSharedBytes << " bytes";
        ok = false;
      }
    });
    return success(ok);
  }

  /// Step 3: the plan of every op, reused from selection when unchanged
  /// (in IR order, so errors are too).
  LogicalResult planOps(PlannedOps &work) {
    bool ok = true;
    getOperation()->walk([&](DispatchOpInterface op) {
      PlannedOp &planned = work.find(op)->second;
      unsigned before = cache->planned();
      OrReason<AnyPlan> plan =
          cache->planOf(op, *planned.variant, planned.context);
      if (cache->planned() != before)
        ++numPlansMade;
      else
        ++numPlansReused;
      if (!plan) {
        op->emitError() << planned.variant->name
                        << " planner declined at lowering: " << plan.reason();
        ok = false;
        return;
      }
      planned.plan = *plan;
    });
    return success(ok);
  }

  /// Step 4: each variant's kernel-ABI work (tensor-map parameters), in IR
  /// order so parameters are numbered as the ops appear.
  LogicalResult prepareKernelABI(PlannedOps &work) {
    KernelABI abi;
    bool ok = true;
    getOperation()->walk([&](DispatchOpInterface op) {
      PlannedOp &planned = work.find(op)->second;
      if (planned.variant->prepare &&
          failed(planned.variant->prepare(op, planned.plan, planned.context,
                                          abi)))
        ok = false;
    });
    return success(ok);
  }

  /// Step 5: `tile.dispatch` on every function with dispatch ops; the
  /// source signature on every GPU kernel (after step 4 added parameters).
  void recordForManifest() {
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](FunctionOpInterface func) {
      SmallVector<Attribute> decisions;
      func.walk([&](DispatchOpInterface op) {
        decisions.push_back(DispatchRecordAttr::get(
            ctx, op->getName().getStringRef(), *op.getSelectedVariant(),
            describeLocation(op->getLoc())));
      });
      if (!decisions.empty())
        func->setAttr(kDispatchAttr, ArrayAttr::get(ctx, decisions));
      if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(func.getOperation()))
        if (gpuFunc.isKernel())
          func->setAttr(kSourceSignatureAttr,
                        TypeAttr::get(gpuFunc.getFunctionType()));
    });
  }

  /// Step 6: the dialect conversion.
  LogicalResult convert(const PlannedOps &work) {
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    populateTileBufferTypeConversions(converter);
    RewritePatternSet patterns(ctx);
    LoweringCheck lowering{check, beforeCheck};
    WgmmaAccumulators waited = collectWgmmaAccumulators(getOperation());
    populateTileLowerVariantsPatterns(converter, patterns, chip, &work,
                                      &lowering, &waited);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    // Buffers may cross function boundaries and structured control flow;
    // those ops are rewritten to carry the lowered values.
    populateAnyFunctionOpInterfaceTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (auto func = dyn_cast<FunctionOpInterface>(op)) {
        auto type = dyn_cast<FunctionType>(func.getFunctionType());
        return !type || (converter.isSignatureLegal(type) &&
                         converter.isLegal(&func.getFunctionBody()));
      }
      return converter.isLegal(op);
    });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    LogicalResult converted =
        applyPartialConversion(getOperation(), target, std::move(patterns));
    return success(succeeded(converted) && !lowering.failed);
  }

  void runOnOperation() override {
    if (!cache)
      cache = std::make_shared<PlanCache>();
    PlannedOps work;
    bool resolved = succeeded(resolveVariants(work));
    bool fits = succeeded(checkSharedPlacement());
    if (!resolved || !fits || failed(planOps(work)) ||
        failed(prepareKernelABI(work)))
      return signalPassFailure();
    recordForManifest();
    if (failed(convert(work)))
      signalPassFailure();
    // The plans were for these ops; later runs plan their own.
    cache->clear();
  }
};

} // namespace

std::unique_ptr<Pass>
tile::createTileLowerVariants(const TileLowerVariantsOptions &options,
                              std::shared_ptr<PlanCache> cache) {
  return withPlanCache<LowerVariantsPass>(options, std::move(cache));
}

std::unique_ptr<Pass> tile::createTileLowerVariants(
    const TileLowerVariantsOptions &options, std::shared_ptr<PlanCache> cache,
    std::function<void(Operation *, SmallVectorImpl<Operation *> &)>
        beforeCheck) {
  auto pass = std::make_unique<LowerVariantsPass>(options);
  pass->cache = std::move(cache);
  pass->beforeCheck = std::move(beforeCheck);
  return pass;
}

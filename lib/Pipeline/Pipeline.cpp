//===- Pipeline.cpp - the tile -> NVVM pipeline -----------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Pipeline/Pipeline.h"
#include "tile/Conversion/TileToNVVM/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dispatch/PlanCache.h"
#include "tile/Variants/CUDA/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// cta_group check, selection, target check, shared-memory placement and
/// lowering of the tile ops;
/// `check` turns translation validation on.
static void addTileLowering(OpPassManager &pm,
                            const tile::TileToNVVMOptions &options,
                            bool check) {
  using namespace tile;
  TileVerifyKernelsOptions verify;
  verify.simulationRemarks = options.simulationRemarks;
  pm.addPass(createTileVerifyKernels(verify));
  // Selection's plans are the ones lowering emits (each op planned once).
  auto plans = std::make_shared<dispatch::PlanCache>();
  TileSelectVariantsOptions select;
  select.chip = options.chip;
  select.explain = options.explain;
  pm.addPass(createTileSelectVariants(select, plans));
  TileCheckTargetOptions target;
  target.explain = options.explain;
  pm.addPass(createTileCheckTarget(target));
  if (options.sanitize) {
    TileSanitizeOptions sanitize;
    sanitize.timeoutMs = options.sanitizeTimeoutMs;
    pm.addPass(createTileSanitize(sanitize));
  }
  TileAssignSharedOffsetsOptions placement;
  placement.chip = options.chip;
  pm.addPass(createTileAssignSharedOffsets(placement));
  TileLowerVariantsOptions lower;
  lower.check = check;
  lower.chip = options.chip;
  pm.addPass(createTileLowerVariants(lower, plans));
}

void tile::buildTileLoweringPipeline(OpPassManager &pm,
                                     const TileToNVVMOptions &options) {
  addTileLowering(pm, options, options.check);
}

void tile::buildTileToNVVMPipeline(OpPassManager &pm,
                                   const TileToNVVMOptions &options) {
  addTileLowering(pm, options, options.check);
  buildUpstreamLoweringPipeline(pm);
}

void tile::buildUpstreamLoweringPipeline(OpPassManager &pm) {
  // The emitters produce scf/arith/memref next to NVVM; gpu-to-nvvm brings
  // those (and the kernels' memref signatures) to the LLVM dialect, and
  // nvvm-to-llvm expands the NVVM ops that are inline PTX. The barrier
  // groups (nvgpu.mbarrier.*) go first: they become shared globals and
  // NVVM mbarrier ops.
  pm.addPass(mlir::createConvertNVGPUToNVVMPass());
  pm.addPass(createSCFToControlFlowPass());
  // f32 exp2/exp/log/tanh as the hardware approximations, not libdevice.
  pm.addNestedPass<gpu::GPUModuleOp>(createTileMathToNVVM());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addPass(createTileFinalizeKernelABI());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tile::buildTileCheckLoweringPipeline(OpPassManager &pm,
                                          const TileToNVVMOptions &options) {
  addTileLowering(pm, options, /*check=*/true);
}

void tile::registerTileToNVVMPipeline() {
  PassPipelineRegistration<TileToNVVMOptions>(
      "tile-to-nvvm",
      "tile ops -> NVVM + LLVM dialects: select variants, lower them, lower "
      "every gpu.module (ready for gpu-module-to-binary)",
      buildTileToNVVMPipeline);
  // Translation validation needs the tile op alive next to what its
  // emitter produced, so it runs inside the lowering, not after it.
  PassPipelineRegistration<TileToNVVMOptions>(
      "tile-check-lowering",
      "select and lower the tile ops with translation validation: every "
      "emitted NVVM instruction is decoded by the PTX model and compared, "
      "element by element, with the op's layouts (the first half of "
      "--tile-to-nvvm=check=1)",
      buildTileCheckLoweringPipeline);
}

//===- Pipeline.h - the tile -> NVVM pipeline -------------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINE_PIPELINE_H
#define TILE_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tile {

struct TileToNVVMOptions : public mlir::PassPipelineOptions<TileToNVVMOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("chip for ops outside a gpu.module with an #nvvm.target "
                     "(default sm_100a)"),
      llvm::cl::init("")};
  Option<bool> explain{
      *this, "explain",
      llvm::cl::desc("remark per tile op: the chosen variant and why the "
                     "others lost"),
      llvm::cl::init(false)};
  Option<bool> check{
      *this, "check",
      llvm::cl::desc("translation validation of the lowering "
                     "(--tile-lower-variants=check)"),
      llvm::cl::init(false)};
  Option<bool> sanitize{
      *this, "sanitize",
      llvm::cl::desc("runtime checks of the barrier protocol "
                     "(--tile-sanitize): mbarrier waits time out, barrier "
                     "and stage indices are checked"),
      llvm::cl::init(false)};
  Option<unsigned> sanitizeTimeoutMs{
      *this, "sanitize-timeout-ms",
      llvm::cl::desc("with sanitize: milliseconds an mbarrier wait may take"),
      llvm::cl::init(1000)};
  Option<bool> simulationRemarks{
      *this, "simulation-remarks",
      llvm::cl::desc("remarks of --tile-verify-kernels's pipeline "
                     "simulation: kernels it did not run or stopped in, and "
                     "why (tile-compile --remarks)"),
      llvm::cl::init(false)};
};

/// --tile-to-nvvm: check cta_groups, select variants, lower them, then the upstream lowering of
/// every gpu.module to the NVVM and LLVM dialects. The result is ready for
/// `gpu-module-to-binary`.
void buildTileToNVVMPipeline(mlir::OpPassManager &pm,
                             const TileToNVVMOptions &options);

/// The two halves of --tile-to-nvvm: the tile passes (kernel checks,
/// selection, target check, shared-memory placement, lowering of the tile
/// ops), then the upstream lowering to NVVM + LLVM dialect ops.
void buildTileLoweringPipeline(mlir::OpPassManager &pm,
                               const TileToNVVMOptions &options);
void buildUpstreamLoweringPipeline(mlir::OpPassManager &pm);

/// --tile-check-lowering: check cta_groups, select variants, check the
/// target and lower the tile ops with translation validation on (every emitted instruction decoded by the
/// PTX model and compared with the op's layouts); `check` is implied.
void buildTileCheckLoweringPipeline(mlir::OpPassManager &pm,
                                    const TileToNVVMOptions &options);

/// Registers --tile-to-nvvm and --tile-check-lowering with the global pass
/// registry.
void registerTileToNVVMPipeline();

} // namespace tile

#endif // TILE_PIPELINE_PIPELINE_H

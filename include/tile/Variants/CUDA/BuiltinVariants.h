//===- BuiltinVariants.h - tile-mlir's own variants -------------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_BUILTINVARIANTS_H
#define TILE_VARIANTS_CUDA_BUILTINVARIANTS_H

namespace tile::dispatch {
class VariantRegistry;
} // namespace tile::dispatch

namespace tile {

/// Priorities of the built-in variants. tma and ldgsts both copy global
/// -> shared: tma ranks first wherever its predicates and planner accept
/// the op, ldgsts takes what they refuse (or what `dispatch = "ldgsts"`
/// forces). The other copy_async variants cover disjoint directions. An
/// embedder's variant with a higher priority is tried first.
constexpr int kTMAPriority = 20;
constexpr int kLdgstsPriority = 15;
constexpr int kDSMEMPriority = 10;
constexpr int kTcgen05CpPriority = 10;
constexpr int kTcgen05MmaPriority = 10;
constexpr int kWgmmaPriority = 10;

/// The dsmem copy_async variant: cluster shared -> shared bulk copies.
/// Predicates: shared_to_shared, single_thread, has_remote_cta, has_mbar,
/// supported_config, cluster_target (sm_90+); planner:
/// dsmem::planClusterCopy.
void registerDSMEMVariant(dispatch::VariantRegistry &registry);

/// The tma copy_async variant: global <-> shared tensor copies.
/// Predicates: global_shared, single_thread, completion, tma_target,
/// cta_group_target; planner: tma::planTensorCopy; adds one by-value
/// tensor-map kernel parameter per distinct plan; emits cp.async.bulk.tensor.
void registerTMAVariant(dispatch::VariantRegistry &registry);

/// The ldgsts copy_async variant: global -> shared through cp.async, the
/// exec scope's threads sharing the vectors. Predicates: global_to_shared,
/// exec_scope, completion, supported_config, ldgsts_target; planner:
/// ldgsts::planCooperativeCopy; its kernel-ABI step finds the memref
/// holding the tensor's runtime sizes and strides.
void registerLdgstsVariant(dispatch::VariantRegistry &registry);

/// The tcgen05_cp copy_async variant: shared -> tensor memory through
/// tcgen05.cp. Predicates: shared_tmem, single_thread, tmem_address,
/// layouts, supported_config, tcgen05_target; planner:
/// tcgen05_cp::planSharedToTmemCopy.
void registerTcgen05CpVariant(dispatch::VariantRegistry &registry);

/// The tcgen05 gemm_async variant: tcgen05.mma (dense and block-scaled
/// kinds, cta_group 1/2, A in shared or tensor memory). Predicates: issuer,
/// tmem_address, element_types, tcgen05_target; planner:
/// tcgen05_mma::planMma.
void registerTcgen05MmaVariant(dispatch::VariantRegistry &registry);
void registerWgmmaVariant(dispatch::VariantRegistry &registry);

/// Every variant tile-mlir ships, into `registry` (idempotent). tile-opt
/// calls this; embedders call it before running the tile passes.
/// The translation validation of the built-in variants (lib/Variants/CUDA/
/// Check), attached to the registered variants.
void registerBuiltinLoweringChecks(dispatch::VariantRegistry &registry);

/// The built-in variants and their lowering checks.
void registerBuiltinVariants(dispatch::VariantRegistry &registry);

} // namespace tile

#endif // TILE_VARIANTS_CUDA_BUILTINVARIANTS_H

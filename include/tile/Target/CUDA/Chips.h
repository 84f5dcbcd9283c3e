//===- Chips.h - the chips and PTX versions tile-mlir knows ------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// One table of the NVIDIA chips the compiler targets and of the PTX ISA
// versions at which each instruction family the variants emit can be
// compiled for each of them. Dispatch predicates, the target check of
// --tile-to-nvvm and tile-compile all ask it, so a chip / PTX version /
// instruction combination the toolchain cannot compile is an error on the
// op instead of an LLVM fatal error in the NVPTX backend.
//
// The numbers are what LLVM 22's NVPTX backend selects and what ptxas 13.0
// assembles (docs/Design.md, "Targets", says how they were measured); they
// agree with the PTX ISA's target and version notes where those exist. The
// tcgen05 families are further limited to the chips MLIR 22's NVVM ops
// verify on (sm_100a, sm_101a).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_CHIPS_H
#define TILE_TARGET_CUDA_CHIPS_H

#include "tile/Support/OrReason.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tile::cuda {

/// A PTX ISA version as major * 10 + minor (86 is PTX ISA 8.6).
using PtxVersion = unsigned;

/// "8.6" for 86.
std::string ptxVersionName(PtxVersion version);

/// Whether LLVM 22's NVPTX backend has the PTX version (`+ptx<version>`).
bool isKnownPtxVersion(PtxVersion version);

/// The instruction families the built-in variants emit.
enum class InstructionFamily {
  /// cp.async.bulk.tensor loads and stores (tma).
  BulkTensorCopy,
  /// cp.reduce.async.bulk.tensor (tma with `reduce`).
  BulkTensorReduce,
  /// cp.async.bulk.tensor with .cta_group (tma with `cta_group`).
  BulkTensorCopyCtaGroup,
  /// cp.async.bulk.tensor into shared::cta (not ::cluster).
  BulkTensorCopyToCta,
  /// cp.async.bulk.shared::cluster.shared::cta and mapa (dsmem).
  BulkCopyCluster,
  /// mbarrier expect-tx / complete-tx and fence.proxy.async, the completion
  /// mechanism of the bulk copies.
  AsyncBarrier,
  /// mbarrier.try_wait.parity.
  MbarrierParityWait,
  /// cp.async (LDGSTS) and cp.async.mbarrier.arrive (ldgsts).
  CpAsync,
  /// tcgen05.mma (f16, tf32, f8f6f4), tcgen05.cp, alloc, commit.
  Tcgen05,
  /// tcgen05.mma kind::i8.
  Tcgen05MmaI8,
  /// tcgen05.mma.block_scale (mxf8f6f4, mxf4, mxf4nvf4; block16/32).
  Tcgen05BlockScale,
  /// wgmma.fence / commit_group / wait_group / mma_async.
  Wgmma,
  /// Tensor maps with CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B: sm_100 and
  /// later (the H100's driver refuses the mode, CUDA_ERROR_INVALID_VALUE).
  TensorMapSwizzleAtom32B,
};

/// "cp.async.bulk.tensor", ...: how diagnostics name a family.
llvm::StringRef familyName(InstructionFamily family);

/// The PTX versions, inclusive, at which something can be compiled.
struct PtxRange {
  PtxVersion min = 0;
  PtxVersion max = 0;
  bool contains(PtxVersion v) const { return v >= min && v <= max; }
};

/// A chip: `sm_<number>` with an optional `a` (architecture-specific) or
/// `f` (family-specific) suffix.
struct ChipInfo {
  llvm::StringRef name;
  unsigned sm = 0;
  char suffix = 0; ///< 0, 'a' or 'f'
  /// The PTX versions the chip can be compiled at (a `.target` below the
  /// minimum is refused by both LLVM and ptxas).
  PtxRange ptx;
  /// Shared memory (static + dynamic) one block may use after opting in
  /// (cudaDevAttrMaxSharedMemoryPerBlockOptin; 232448 on sm_90 and sm_100).
  int64_t sharedBytesPerBlock = 0;

  bool archSpecific() const { return suffix == 'a'; }
  /// The PTX versions at which `family` compiles for this chip; nullopt
  /// when the chip does not have it.
  std::optional<PtxRange> support(InstructionFamily family) const;
};

/// "sm_80, sm_86, ..." for diagnostics.
std::string knownChipNames();

/// "sm_100a, sm_100f, ..." : the chips that have `family`.
std::string chipsWith(InstructionFamily family);

/// The chip named `name`, or the reason there is none (an unknown name
/// lists the known ones).
OrReason<ChipInfo> lookupChip(llvm::StringRef name);

/// The most shared memory one block may use on any known chip: a bound for
/// checks that do not know the chip.
int64_t largestSharedBytesPerBlock();

/// The PTX version of a `+ptxNN` target feature list ("+ptx86,+sm_100a"),
/// nullopt when it names none, or why it is malformed: a feature mentioning
/// `ptx` must be exactly `+ptxNN` for a version LLVM 22 knows (it ignores
/// anything else and falls back to the chip's default).
OrReason<std::optional<PtxVersion>> ptxVersionOfFeatures(
    llvm::StringRef features);

} // namespace tile::cuda

#endif // TILE_TARGET_CUDA_CHIPS_H

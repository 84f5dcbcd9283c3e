//===- PlanChecker.h - check planned instructions with the PTX model -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The lowering checker (docs/PtxModel.md). It takes a variant's plan,
// turns each planned instruction into the words the kernel receives (the
// encoder's word for the planned descriptor at the planned start; the
// planned instruction descriptor; tensor memory = base + (lane << 16 |
// column)), runs them through the PTX-semantics model (Target/CUDA/Model),
// which reads them with its own tables, and compares every element with
// what the tile layouts say must happen. Descriptor fields the model says
// an instruction does not read are never consulted (any value passes); a
// read field that disagrees shows as a wrong element:
//
//  - tcgen05_cp: every byte of every element of the region, in every
//    tensor-memory replica, receives the shared byte the shared layout puts
//    that element at; nothing else in tensor memory is written; no byte is
//    written twice.
//  - tcgen05 (MMA): the issues cover every (M tile, N tile, K step) once,
//    K steps in order, the first one overwriting (or following the flag);
//    every A(m, k), B(n, k) an issue multiplies is the element the layouts
//    put at the shared byte (or tensor-memory lane/bit) the model reads; every
//    D(m, n) cell is where C's layout has it, written by one output tile;
//    block scales are read from where the scale layouts put them.
//  - tma: every region element moves between the global byte its strides
//    give and the shared byte the shared layout gives; no box element
//    touches a shared byte outside the region.
//
// The layouts are read through the layout algebra (swizzle included); the
// instructions through the model (swizzle on bytes, from the PTX ISA). A
// mismatch names the first wrong element: its logical coordinate, the
// instruction, and the expected and modelled addresses. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_PLANCHECKER_H
#define TILE_VARIANTS_CUDA_PLANCHECKER_H

#include "tile/Variants/CUDA/CopyAsync/TMAPlanner.h"
#include "tile/Variants/CUDA/CopyAsync/Tcgen05CpPlanner.h"
#include "tile/Variants/CUDA/GemmAsync/Tcgen05MmaPlanner.h"

#include "tile/Target/CUDA/Model/Tcgen05Model.h"

#include <array>
#include <functional>
#include <optional>
#include <string>

namespace tile::plan_check {

struct CheckReport {
  /// Instructions modelled and elements (or bytes, for copies) compared.
  int64_t instructions = 0;
  int64_t elements = 0;
  /// The first mismatch, or why the plan could not be modelled.
  std::optional<std::string> failure;
  /// Set (with `failure` empty) when the plan has runtime values the check
  /// was not given (a TMA plan with dynamic sizes or offsets).
  std::optional<std::string> skipped;

  bool passed() const { return !failure && !skipped; }
};

/// Where the checked buffers are assumed to start: any address aligned to
/// the 1024-byte swizzle pattern (the layouts' swizzle is relative to the
/// buffer) and any tensor-memory allocation.
struct Placement {
  int64_t sharedBase = 0x1000;
  uint32_t tmemBase = 0;
  /// tcgen05.mma's B when it is another buffer than A (-1: sharedBase).
  int64_t sharedBaseB = -1;
};

/// How reports name the checked instructions: `issue 3` (plans, 0-based)
/// or `tcgen05.mma 4 of 8` (emitted IR, 1-based with the count).
struct Naming {
  std::string noun = "issue";
  bool ofTotal = false;
  std::string operator()(size_t i, size_t total) const;
};

//===----------------------------------------------------------------------===//
// The checks on instruction words: what the kernel holds, however it was
// produced (from a plan by the encoders below; read back from emitted NVVM
// IR by the translation validation, lib/Variants/CUDA/Check).
//===----------------------------------------------------------------------===//

CheckReport checkTcgen05CpWords(const tcgen05_cp::Request &request,
                                llvm::ArrayRef<cuda::model::CpInstruction> insts,
                                Placement placement = {},
                                const Naming &naming = {"instruction"});

/// One tcgen05.mma as issued, and the output tile and K step it claims to
/// compute. `mi < 0`: no claim; the check derives the tile from where the
/// instruction's D(0, 0) lies in C's layout and the K step from the
/// instructions before it on the same tile.
struct MmaIssueWords {
  cuda::model::MmaInstruction inst;
  int64_t mi = -1, ni = -1, ki = -1;
  tcgen05_mma::InputD inputD = tcgen05_mma::InputD::Overwrite;
};
/// `instShape` (M, N, K of one instruction): the plan's; nullopt takes the
/// first instruction's.
CheckReport
checkTcgen05MmaWords(const tcgen05_mma::Request &request,
                     std::optional<std::array<int64_t, 3>> instShape,
                     llvm::ArrayRef<MmaIssueWords> issues,
                     Placement placement = {}, const Naming &naming = {});

/// One cp.async.bulk.tensor box: coordinates (map dim 0 first) and the
/// absolute shared address of the box.
struct TmaBox {
  llvm::SmallVector<int64_t, 5> coords;
  int64_t sharedAddress = 0;
};
/// The region a set of boxes must move: every element `c` of `sizes`
/// between global element `globalElement(c)` and the shared tile's
/// element at `shared.offsets + c`.
struct TmaRegion {
  llvm::SmallVector<int64_t, 5> sizes;
  unsigned elementBits = 16;
  tma::SharedSide shared;
  std::function<int64_t(llvm::ArrayRef<int64_t>)> globalElement;
  /// Whether region coordinate c is inside the tensor (unset: always).
  std::function<bool(llvm::ArrayRef<int64_t>)> inBounds;
};
/// `map` must be complete (every dim and stride known).
CheckReport checkTmaBoxes(const TmaRegion &region,
                          const cuda::TensorMapDesc &map,
                          llvm::ArrayRef<TmaBox> boxes,
                          Placement placement = {},
                          const Naming &naming = {});

//===----------------------------------------------------------------------===//
// The checks on plans: the encoders' words for each planned instruction.
//===----------------------------------------------------------------------===//

CheckReport checkTcgen05Cp(const tcgen05_cp::Request &request,
                           const tcgen05_cp::Plan &plan,
                           Placement placement = {});
CheckReport checkTcgen05Mma(const tcgen05_mma::Request &request,
                            const tcgen05_mma::Plan &plan,
                            Placement placement = {});
/// `runtime` gives the global shape, strides and region offsets a plan with
/// dynamic values runs with (every value static); without it such a plan is
/// reported skipped.
CheckReport checkTma(const tma::Request &request, const tma::Plan &plan,
                     const tma::GlobalSide *runtime = nullptr,
                     Placement placement = {});

} // namespace tile::plan_check

#endif // TILE_VARIANTS_CUDA_PLANCHECKER_H

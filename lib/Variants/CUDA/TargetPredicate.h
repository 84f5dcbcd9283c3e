//===- TargetPredicate.h - the *_target predicates of the variants --*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A variant's target predicate asks the chip table (Target/CUDA/Chips.h)
// whether the chip has each instruction family the op would be emitted as
// and, when the #nvvm.target names a PTX version, whether they compile at
// it. One predicate per variant, with the variant's own words for a chip
// that lacks the instructions.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_TARGETPREDICATE_H
#define TILE_LIB_VARIANTS_CUDA_TARGETPREDICATE_H

#include "tile/Dispatch/VariantDecl.h"
#include "tile/Target/CUDA/Chips.h"

namespace tile {

/// `name`: for each family of `families(op)` (keeping those `relevant`
/// selects), the chip has it (else `missing(target, family)`), and the
/// target's PTX version, when given, is one it compiles at.
template <typename OpT>
dispatch::OpPredicate<OpT> targetPredicate(
    std::string name,
    std::function<llvm::SmallVector<cuda::InstructionFamily, 2>(OpT)> families,
    std::function<bool(cuda::InstructionFamily)> relevant,
    std::function<std::string(const dispatch::TargetInfo &,
                              cuda::InstructionFamily)>
        missing) {
  return {std::move(name),
          [=](OpT op, const dispatch::DispatchContext &context) {
            const dispatch::TargetInfo &target = context.target;
            for (cuda::InstructionFamily family : families(op)) {
              if (!relevant(family))
                continue;
              std::optional<cuda::PtxRange> range =
                  target.info.support(family);
              if (!range)
                return dispatch::Verdict::failure(missing(target, family));
              if (target.ptx && !range->contains(*target.ptx))
                return dispatch::Verdict::failure(
                    cuda::familyName(family).str() + " needs PTX ISA " +
                    cuda::ptxVersionName(range->min) +
                    (range->max != range->min
                         ? " to " + cuda::ptxVersionName(range->max)
                         : std::string()) +
                    " on " + target.chip + "; the #nvvm.target asks for " +
                    cuda::ptxVersionName(*target.ptx));
            }
            return dispatch::Verdict::success();
          }};
}

/// "<what> needs one of <chips with family>, not <chip>".
inline std::string needsOneOf(const std::string &what,
                              const dispatch::TargetInfo &target,
                              cuda::InstructionFamily family) {
  return what + " needs one of " + cuda::chipsWith(family) + ", not " +
         target.chip;
}

} // namespace tile

#endif // TILE_LIB_VARIANTS_CUDA_TARGETPREDICATE_H

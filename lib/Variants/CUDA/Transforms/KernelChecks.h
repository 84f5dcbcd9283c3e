//===- KernelChecks.h - the checks of --tile-verify-kernels ------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each check reads one function and reports on its ops; failure means it
// emitted an error (remarks for what it could not prove do not fail).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_TRANSFORMS_KERNELCHECKS_H
#define TILE_LIB_VARIANTS_CUDA_TRANSFORMS_KERNELCHECKS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <type_traits>
#include <utility>

namespace tile::kernel_checks {

mlir::LogicalResult checkCtaGroup(mlir::FunctionOpInterface function);
mlir::LogicalResult checkExpectTx(mlir::FunctionOpInterface function);
mlir::LogicalResult checkAsyncProxy(mlir::FunctionOpInterface function);
mlir::LogicalResult checkTensorMemory(mlir::FunctionOpInterface function);
mlir::LogicalResult checkWgmmaRegisters(mlir::FunctionOpInterface function);
mlir::LogicalResult checkNamedBarriers(mlir::FunctionOpInterface function);
/// Simulates the kernel's barrier protocol (PipelineSimulation.cpp);
/// `remarks`: say when a kernel is outside the model.
mlir::LogicalResult checkPipelines(mlir::FunctionOpInterface function,
                                   bool remarks);

/// The value each of some `scf.if` conditions has on the walked path.
using DecidedGuards = llvm::DenseMap<mlir::Value, bool>;

/// Whether a walk State has `int otherThreads` (see walkPaths).
template <typename State, typename = void>
struct HasOtherThreads : std::false_type {};
template <typename State>
struct HasOtherThreads<State,
                       std::void_t<decltype(std::declval<State &>().otherThreads)>>
    : std::true_type {};

/// Visits the ops of `block` in program order with a `State` per path:
/// both branches of an `scf.if` from the state before it (merged after),
/// an outermost loop's body twice (a value carried into the next trip is
/// seen; inner loops once, so nesting stays linear) and merged with the
/// state before it (zero trips). An `scf.if` whose condition `decided`
/// holds takes only that branch (first walking the other one with
/// `state.otherThreads` raised, when State has that member). `State` has
/// `void merge(const State &)`; nested functions are skipped.
template <typename State, typename Visit>
void walkPaths(mlir::Block &block, State &state, const Visit &visit,
               bool inLoop = false, const DecidedGuards *decided = nullptr) {
  for (mlir::Operation &op : block) {
    if (llvm::isa<mlir::FunctionOpInterface>(op))
      continue;
    if (auto ifOp = llvm::dyn_cast<mlir::scf::IfOp>(op)) {
      if (decided) {
        auto it = decided->find(ifOp.getCondition());
        if (it != decided->end()) {
          mlir::Region &taken =
              it->second ? ifOp.getThenRegion() : ifOp.getElseRegion();
          mlir::Region &other =
              it->second ? ifOp.getElseRegion() : ifOp.getThenRegion();
          // The branch this thread does not take, other threads do: a
          // State that tells them apart (`otherThreads` > 0 while they
          // run) sees what they start.
          if constexpr (HasOtherThreads<State>::value) {
            if (!other.empty()) {
              ++state.otherThreads;
              walkPaths(other.front(), state, visit, inLoop, decided);
              --state.otherThreads;
            }
          }
          if (!taken.empty())
            walkPaths(taken.front(), state, visit, inLoop, decided);
          continue;
        }
      }
      State thenState = state;
      walkPaths(ifOp.getThenRegion().front(), thenState, visit, inLoop,
                decided);
      if (!ifOp.getElseRegion().empty())
        walkPaths(ifOp.getElseRegion().front(), state, visit, inLoop, decided);
      state.merge(thenState);
      continue;
    }
    if (llvm::isa<mlir::LoopLikeOpInterface>(op)) {
      State before = state;
      for (int trip = 0; trip < (inLoop ? 1 : 2); ++trip)
        for (mlir::Region &region : op.getRegions())
          for (mlir::Block &inner : region)
            walkPaths(inner, state, visit, /*inLoop=*/true, decided);
      state.merge(before);
      continue;
    }
    visit(op, state);
    for (mlir::Region &region : op.getRegions())
      for (mlir::Block &inner : region)
        walkPaths(inner, state, visit, inLoop, decided);
  }
}

/// Conditions that guard several `scf.if`s of `function` and have one value
/// per thread for the whole kernel (defined outside every loop): each class
/// holds the SSA values of one condition, equal ones (the same pure op on
/// the same operands) together. At most `limit` classes, the most used
/// first. A thread takes the same branch at every `scf.if` of a class, so
/// a check may walk once per assignment of the classes instead of merging
/// branches that no thread takes together.
llvm::SmallVector<llvm::SmallVector<mlir::Value, 2>>
correlatedGuards(mlir::FunctionOpInterface function, unsigned limit);

/// Runs `walk(decided)` once per assignment of `correlatedGuards(function,
/// 4)` (once, with null, when there are none).
template <typename Walk>
void walkPerGuardAssignment(mlir::FunctionOpInterface function,
                            const Walk &walk) {
  auto classes = correlatedGuards(function, 4);
  if (classes.empty()) {
    walk(static_cast<const DecidedGuards *>(nullptr));
    return;
  }
  for (unsigned assignment = 0; assignment < (1u << classes.size());
       ++assignment) {
    DecidedGuards decided;
    for (auto [i, members] : llvm::enumerate(classes))
      for (mlir::Value v : members)
        decided[v] = (assignment >> i) & 1;
    walk(&decided);
  }
}

} // namespace tile::kernel_checks

#endif // TILE_LIB_VARIANTS_CUDA_TRANSFORMS_KERNELCHECKS_H

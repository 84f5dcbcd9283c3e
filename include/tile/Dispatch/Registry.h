//===- Registry.h - variants, predicates and selection ----------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The dispatch contract (docs/Design.md, "Dispatch"): every tile op has
// variants per target family, each with a priority, named predicates, a
// planner that may decline and an emitter. Selection evaluates every
// predicate of every candidate, picks the highest-priority variant that
// passes (ties broken by name), and keeps the full report so failures and
// explanations list every reason.
//
// This header is the type-erased registry. Variants are declared with the
// typed `VariantDecl` (tile/Dispatch/VariantDecl.h), which erases into a
// `Variant` here; other compilers register their own the same way.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_REGISTRY_H
#define TILE_DISPATCH_REGISTRY_H

#include "tile/Support/OrReason.h"
#include "tile/Target/CUDA/Chips.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
class Value;
class RewriterBase;
class ValueRange;
} // namespace mlir

namespace tile::dispatch {

class KernelABI;

/// The target family of the built-in variants. A module's family is read
/// off the kind of its target attribute: `#nvvm.target` is cuda; any other
/// target attribute names the family of its dialect (`#rocdl.target` ->
/// rocdl), for which only variants registered under that name apply.
constexpr llvm::StringLiteral kCudaFamily = "cuda";

/// The chip a kernel is compiled for, from `#nvvm.target<chip = ...>`, and
/// the PTX version its features ask for.
struct TargetInfo {
  std::string chip = "sm_100a";
  unsigned sm = 100;          ///< 90 for sm_90a, 100 for sm_100a
  bool archSpecific = true;   ///< the `a` suffix (wgmma, tcgen05, setmaxnreg)
  /// The chip's entry in the table of known chips (Target/CUDA/Chips.h).
  cuda::ChipInfo info = *cuda::lookupChip("sm_100a");
  /// The `+ptxNN` of the target's features; none: the lowest that covers
  /// the module's instructions is chosen after selection.
  std::optional<cuda::PtxVersion> ptx;

  /// A known chip; the reason (listing the known chips) otherwise.
  static OrReason<TargetInfo> parse(llvm::StringRef chip);
};

/// What predicates and planners may look at besides the op itself.
struct DispatchContext {
  std::string family = kCudaFamily.str();
  TargetInfo target;
};

/// A predicate's answer: `Verdict::success()`, or `Verdict::failure(why)`
/// (the core's Status).
using Verdict = Status;

/// A plan, type-erased: whatever the variant's planner returned. Only the
/// variant that made it reads it (VariantDecl casts it back); its prepare
/// step may complete it (e.g. with the kernel parameter it added).
using AnyPlan = std::shared_ptr<void>;

using PredicateFn =
    std::function<Verdict(mlir::Operation *, const DispatchContext &)>;
/// Plans the op, or declines with the reason.
using PlanFn = std::function<OrReason<AnyPlan>(mlir::Operation *,
                                               const DispatchContext &)>;
/// Runs before any op is rewritten; may add kernel parameters (tensor maps)
/// through `abi` and record them in the plan, so the emitter never inspects
/// the IR that the conversion is rewriting. Reports its own errors on the
/// op.
using PrepareFn = std::function<llvm::LogicalResult(
    mlir::Operation *, AnyPlan &, const DispatchContext &, KernelABI &)>;
/// Rewrites a selected op from its plan. `loweredOperands` are the op's
/// operands after buffer lowering, in operand order: a `global` buffer is
/// its `!llvm.ptr<1>` base, a `shared` buffer its `!llvm.ptr<3>` base, a
/// `tmem` buffer its i32 tensor-memory address; other operands are
/// unchanged. The emitter inserts its ops at the rewriter's insertion point
/// (just before the op) and leaves the op itself alone: the caller erases
/// it after a successful emit. On failure the emitter reports an error on
/// the op.
using EmitFn = std::function<llvm::LogicalResult(
    mlir::Operation *op, const AnyPlan &, mlir::ValueRange loweredOperands,
    const DispatchContext &, mlir::RewriterBase &)>;

/// Translation validation (`--tile-lower-variants=check`): reads back the
/// ops `emit` produced for `op` (`emitted`, in program order, `op` still
/// alive, `loweredOperands` as `emit` got them) and compares what they do
/// with the op's layouts; reports an error on `op` on a mismatch or on
/// anything it cannot read back. Independent of the plan and the emitter.
using CheckFn = std::function<llvm::LogicalResult(
    mlir::Operation *op, mlir::ValueRange loweredOperands,
    llvm::ArrayRef<mlir::Operation *> emitted, const DispatchContext &)>;

/// Bytes of shared scratch an op needs, placed by
/// --tile-assign-shared-offsets after its kernel's buffers (the offset and
/// size recorded on the op, KernelABI.h).
using SharedScratchFn =
    std::function<int64_t(mlir::Operation *, const AnyPlan &)>;

using FamiliesFn =
    std::function<llvm::SmallVector<cuda::InstructionFamily, 2>(
        mlir::Operation *)>;

struct Predicate {
  std::string name;
  PredicateFn check;
};

struct Variant {
  std::string opName;       ///< e.g. "tile.copy_async"
  std::string family;       ///< target family, e.g. "cuda"
  std::string name;         ///< e.g. "dsmem"
  int priority = 0;
  std::vector<Predicate> predicates;
  /// The planner; declines with the planner's reason. Optional: without
  /// one the plan is null.
  PlanFn plan;
  /// Optional: kernel-ABI work before rewriting (e.g. tensor-map params).
  PrepareFn prepare;
  /// Optional: the instruction families the op will be emitted as (the
  /// target check picks the PTX version from them).
  FamiliesFn families;
  /// Rewrites the op. A variant without one can be selected but not
  /// lowered (--tile-lower-variants reports it).
  EmitFn emit;
  /// Optional: the translation validation of `emit`'s output.
  CheckFn check;
  /// Optional: the shared scratch the emitted code uses, in bytes: a
  /// region of the kernel's dynamic segment of its own. The op may run
  /// again (in a loop), so an emitter must leave it free (a barrier after
  /// its last read) before its next writes.
  SharedScratchFn sharedScratch;
};

class VariantRegistry {
public:
  /// The process-wide registry used by the tile passes.
  static VariantRegistry &global();

  /// Adds a variant. Returns false (and changes nothing) when a variant with
  /// the same (op, family, name) is already registered.
  bool registerVariant(Variant variant);

  /// Attaches the translation validation of the registered variant `name`
  /// of (`opName`, `family`). Returns false when there is none.
  bool setCheck(llvm::StringRef opName, llvm::StringRef family,
                llvm::StringRef name, CheckFn check);

  /// Candidates for (op, family): priority descending, then name.
  std::vector<const Variant *> candidates(llvm::StringRef opName,
                                          llvm::StringRef family) const;

private:
  std::vector<std::unique_ptr<Variant>> variants;
};

/// How one candidate fared.
struct CandidateReport {
  const Variant *variant = nullptr;
  /// (predicate name, reason) for each predicate that rejected the op.
  std::vector<std::pair<std::string, std::string>> rejections;
  /// The planner's reason when it declined (only asked if all predicates
  /// passed).
  std::optional<std::string> declined;
  /// The plan when the candidate is viable.
  AnyPlan plan;

  bool viable() const { return rejections.empty() && !declined; }
  /// `dsmem (priority 10): rejected: has_mbar — ...; declined — ...`.
  std::string describe() const;
};

struct Selection {
  const Variant *chosen = nullptr;
  /// The chosen variant's plan.
  AnyPlan plan;
  std::vector<CandidateReport> reports;
  /// Set when selection failed for a reason other than "nothing matched"
  /// (e.g. an unknown forced name).
  std::string error;
};

/// The target family of `op`: that of the first target attribute of its
/// enclosing gpu.module (`#nvvm.target` -> cuda, else the attribute's
/// dialect), cuda without one.
std::string dispatchFamilyOf(mlir::Operation *op);

/// The chip of the `#nvvm.target` of the gpu.module enclosing `op`, if any.
std::optional<std::string> enclosingTargetChip(mlir::Operation *op);

/// The dispatch context of `op`: the family and chip of its enclosing
/// `#nvvm.target`, else `fallbackChip` when non-empty, else sm_100a (both
/// cuda), with the PTX version of its features. Reports an error on `op`
/// and returns nullopt for an unknown chip or malformed features.
std::optional<DispatchContext> dispatchContextFor(mlir::Operation *op,
                                                  llvm::StringRef fallbackChip);

/// The registered variant `name` of `opName` on `family`, or null.
const Variant *findVariant(llvm::StringRef opName, llvm::StringRef family,
                           llvm::StringRef name);

/// Evaluates every candidate of `op` on `context.family`. With `forced`,
/// only that variant may be chosen (it must still pass its predicates and
/// planner).
Selection selectVariant(mlir::Operation *op, const DispatchContext &context,
                        std::optional<llvm::StringRef> forced);

} // namespace tile::dispatch

#endif // TILE_DISPATCH_REGISTRY_H

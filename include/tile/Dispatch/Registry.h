//===- Registry.h - variants, predicates and selection ----------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The dispatch contract (DESIGN.md §5): every tile op has variants per
// target family, each with a priority, named predicates and a planner that
// may decline. Selection evaluates every predicate of every candidate, picks
// the highest-priority variant that passes (ties broken by name), and keeps
// the full report so failures and explanations list every reason.
//
// Other compilers register their own variants through the same registry.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DISPATCH_REGISTRY_H
#define TILE_DISPATCH_REGISTRY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
class RewriterBase;
class ValueRange;
} // namespace mlir

namespace tile::dispatch {

class KernelABI;

/// The chip a kernel is compiled for, from `#nvvm.target<chip = ...>`.
struct TargetInfo {
  std::string chip = "sm_100a";
  unsigned sm = 100;          ///< 90 for sm_90a, 100 for sm_100a
  bool archSpecific = true;   ///< the `a` suffix (wgmma, tcgen05, setmaxnreg)

  /// Parses `sm_<digits>[a|f]`; nullopt for anything else.
  static std::optional<TargetInfo> parse(llvm::StringRef chip);
};

/// What predicates and planners may look at besides the op itself.
struct DispatchContext {
  TargetInfo target;
};

/// A predicate's or planner's answer: accepted, or rejected with a reason.
struct Verdict {
  bool accepted = true;
  std::string reason;

  static Verdict accept() { return {}; }
  static Verdict reject(std::string why) { return {false, std::move(why)}; }
};

using CheckFn =
    std::function<Verdict(mlir::Operation *, const DispatchContext &)>;
/// Rewrites a selected op. `loweredOperands` are the op's operands after
/// buffer lowering, in operand order: a `global` buffer is its `!llvm.ptr<1>`
/// base, a `shared` buffer its `!llvm.ptr<3>` base, a `tmem` buffer its i32
/// tensor-memory address; other operands are unchanged. The emitter inserts
/// its ops at the rewriter's insertion point (just before the op) and leaves
/// the op itself alone: the caller erases it after a successful emit. On
/// failure the emitter reports an error on the op.
using EmitFn = std::function<llvm::LogicalResult(
    mlir::Operation *op, mlir::ValueRange loweredOperands,
    const DispatchContext &, mlir::RewriterBase &)>;

/// Runs before any op is rewritten; may add kernel parameters (tensor maps)
/// through `abi`. Reports its own errors on the op.
using PrepareFn = std::function<llvm::LogicalResult(
    mlir::Operation *, const DispatchContext &, KernelABI &abi)>;

struct Predicate {
  std::string name;
  CheckFn check;
};

struct Variant {
  std::string opName;       ///< e.g. "tile.copy_async"
  std::string family;       ///< target family, e.g. "cuda"
  std::string name;         ///< e.g. "dsmem"
  int priority = 0;
  std::vector<Predicate> predicates;
  /// Runs the variant's planner; declines with the planner's reason.
  CheckFn plan;
  /// Optional: kernel-ABI work before rewriting (e.g. tensor-map params).
  PrepareFn prepare;
  /// Rewrites the op. A variant without one can be selected but not
  /// lowered (--tile-lower-variants reports it).
  EmitFn emit;
};

class VariantRegistry {
public:
  /// The process-wide registry used by the tile passes.
  static VariantRegistry &global();

  /// Adds a variant. Returns false (and changes nothing) when a variant with
  /// the same (op, family, name) is already registered.
  bool registerVariant(Variant variant);

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

  bool viable() const { return rejections.empty() && !declined; }
  /// `dsmem (priority 10): rejected: has_mbar — ...; declined — ...`.
  std::string describe() const;
};

struct Selection {
  const Variant *chosen = nullptr;
  std::vector<CandidateReport> reports;
  /// Set when selection failed for a reason other than "nothing matched"
  /// (e.g. an unknown forced name).
  std::string error;
};

/// The chip of the `#nvvm.target` of the gpu.module enclosing `op`, if any.
std::optional<std::string> enclosingTargetChip(mlir::Operation *op);

/// The dispatch context of `op`: the chip of its enclosing `#nvvm.target`,
/// else `fallbackChip` when non-empty, else sm_100a. Reports an error on `op`
/// and returns nullopt when the chip is not `sm_<digits>[a|f]`.
std::optional<DispatchContext> dispatchContextFor(mlir::Operation *op,
                                                  llvm::StringRef fallbackChip);

/// The registered variant `name` of `opName` on `family`, or null.
const Variant *findVariant(llvm::StringRef opName, llvm::StringRef family,
                           llvm::StringRef name);

/// Evaluates every candidate of `op` on `family`. With `forced`, only that
/// variant may be chosen (it must still pass its predicates and planner).
Selection selectVariant(mlir::Operation *op, const DispatchContext &context,
                        llvm::StringRef family,
                        std::optional<llvm::StringRef> forced);

} // namespace tile::dispatch

#endif // TILE_DISPATCH_REGISTRY_H

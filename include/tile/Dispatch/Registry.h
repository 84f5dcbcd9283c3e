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
} // namespace mlir

namespace tile::dispatch {

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
using EmitFn = std::function<llvm::LogicalResult(
    mlir::Operation *, const DispatchContext &, mlir::RewriterBase &)>;

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
  /// Rewrites the op; absent until the variant can lower.
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

/// Evaluates every candidate of `op` on `family`. With `forced`, only that
/// variant may be chosen (it must still pass its predicates and planner).
Selection selectVariant(mlir::Operation *op, const DispatchContext &context,
                        llvm::StringRef family,
                        std::optional<llvm::StringRef> forced);

} // namespace tile::dispatch

#endif // TILE_DISPATCH_REGISTRY_H

//===- Registry.cpp - variants, predicates and selection --------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dispatch/Registry.h"

#include "mlir/IR/Operation.h"

#include <algorithm>

using namespace tile::dispatch;

tile::OrReason<TargetInfo> TargetInfo::parse(llvm::StringRef chip) {
  OrReason<cuda::ChipInfo> known = cuda::lookupChip(chip);
  if (!known)
    return OrReason<TargetInfo>::failure(known.reason());
  TargetInfo info;
  info.chip = chip.str();
  info.sm = known->sm;
  info.archSpecific = known->archSpecific();
  info.info = *known;
  return info;
}

VariantRegistry &VariantRegistry::global() {
  static VariantRegistry registry;
  return registry;
}

bool VariantRegistry::registerVariant(Variant variant) {
  for (const auto &v : variants)
    if (v->opName == variant.opName && v->family == variant.family &&
        v->name == variant.name)
      return false;
  variants.push_back(std::make_unique<Variant>(std::move(variant)));
  return true;
}

bool VariantRegistry::setCheck(llvm::StringRef opName, llvm::StringRef family,
                               llvm::StringRef name, CheckFn check) {
  for (const auto &v : variants)
    if (v->opName == opName && v->family == family && v->name == name) {
      v->check = std::move(check);
      return true;
    }
  return false;
}

std::vector<const Variant *>
VariantRegistry::candidates(llvm::StringRef opName,
                            llvm::StringRef family) const {
  std::vector<const Variant *> out;
  for (const auto &v : variants)
    if (v->opName == opName && v->family == family)
      out.push_back(v.get());
  std::sort(out.begin(), out.end(), [](const Variant *a, const Variant *b) {
    if (a->priority != b->priority)
      return a->priority > b->priority;
    return a->name < b->name;
  });
  return out;
}

const Variant *tile::dispatch::findVariant(llvm::StringRef opName,
                                           llvm::StringRef family,
                                           llvm::StringRef name) {
  for (const Variant *v : VariantRegistry::global().candidates(opName, family))
    if (v->name == name)
      return v;
  return nullptr;
}

std::string CandidateReport::describe() const {
  std::string s = variant->name + " (priority " +
                  std::to_string(variant->priority) + "): ";
  if (viable())
    return s + "viable";
  for (size_t i = 0; i < rejections.size(); ++i)
    s += (i ? "; rejected: " : "rejected: ") + rejections[i].first + " — " +
         rejections[i].second;
  if (declined)
    s += "declined — " + *declined;
  return s;
}

Selection tile::dispatch::selectVariant(mlir::Operation *op,
                                        const DispatchContext &context,
                                        std::optional<llvm::StringRef> forced) {
  Selection result;
  llvm::StringRef family = context.family;
  std::vector<const Variant *> candidates = VariantRegistry::global().candidates(
      op->getName().getStringRef(), family);
  if (forced) {
    auto it = std::find_if(candidates.begin(), candidates.end(),
                           [&](const Variant *v) { return v->name == *forced; });
    if (it == candidates.end()) {
      result.error = "unknown variant '" + forced->str() + "' for " +
                     op->getName().getStringRef().str() + " on " +
                     family.str() + "; registered: ";
      for (size_t i = 0; i < candidates.size(); ++i)
        result.error += (i ? ", " : "") + candidates[i]->name;
      if (candidates.empty())
        result.error += "(none)";
      return result;
    }
  }
  // Every predicate of every candidate is evaluated, so the report is
  // complete whatever wins.
  for (const Variant *v : candidates) {
    CandidateReport report;
    report.variant = v;
    for (const Predicate &p : v->predicates) {
      Verdict verdict = p.check(op, context);
      if (!verdict.ok())
        report.rejections.emplace_back(p.name, verdict.reason());
    }
    // A variant without a planner has nothing to plan (its plan is null).
    if (report.rejections.empty() && v->plan) {
      OrReason<AnyPlan> planned = v->plan(op, context);
      if (planned)
        report.plan = std::move(*planned);
      else
        report.declined = planned.reason();
    }
    bool eligible = !forced || v->name == *forced;
    if (!result.chosen && eligible && report.viable()) {
      result.chosen = v;
      result.plan = report.plan;
    }
    result.reports.push_back(std::move(report));
  }
  return result;
}

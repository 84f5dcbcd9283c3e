//===- CheckTarget.cpp - chip and PTX version of every gpu.module ----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// After variant selection: every gpu.module's #nvvm.target names a known
// chip at a PTX version that chip has, and every instruction family its
// ops will emit (the selected variants' families, the async groups'
// commits and waits, the NVVM ops written next to them) compiles at that
// version (Target/CUDA/Chips.h). A module that names no PTX version gets
// the lowest one that covers all of them. So the NVPTX backend never meets
// a combination it cannot select.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"
#include "tile/Target/CUDA/Chips.h"
#include "tile/Variants/CUDA/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tile {
#define GEN_PASS_DEF_TILECHECKTARGET
#include "tile/Variants/CUDA/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::cuda;

namespace {

/// What an op needs: an instruction family (and so a PTX range).
struct Requirement {
  Operation *op;
  InstructionFamily family;
};

/// The printed value of `op`'s inherent attribute `name` ("" if none).
std::string printedAttr(Operation *op, StringRef name) {
  std::optional<Attribute> attr = op->getInherentAttr(name);
  if (!attr || !*attr)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  attr->print(os);
  return text;
}

/// The families of an NVVM op written by hand next to the tile ops (or
/// already lowered): its name, and the attributes that select a more
/// demanding form (block scaling, kind::i8, .cta_group, a shared::cta
/// destination, an async proxy fence).
SmallVector<InstructionFamily, 2> familiesOfNVVMOp(Operation *op) {
  using F = InstructionFamily;
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("nvvm."))
    return {};
  if (name.starts_with("tcgen05.")) {
    SmallVector<F, 2> families = {F::Tcgen05};
    if (name.contains("block_scale"))
      families.push_back(F::Tcgen05BlockScale);
    else if (name.starts_with("tcgen05.mma") &&
             StringRef(printedAttr(op, "kind")).contains("i8"))
      families.push_back(F::Tcgen05MmaI8);
    return families;
  }
  if (name.starts_with("wgmma."))
    return {F::Wgmma};
  if (name.starts_with("cp.async.bulk.tensor.reduce"))
    return {F::BulkTensorReduce};
  if (name.starts_with("cp.async.bulk.tensor.")) {
    SmallVector<F, 2> families = {F::BulkTensorCopy};
    if (!printedAttr(op, "group").empty())
      families.push_back(F::BulkTensorCopyCtaGroup);
    if (StringRef(printedAttr(op, "isCTAOnly")) == "true")
      families.push_back(F::BulkTensorCopyToCta);
    return families;
  }
  if (name.starts_with("cp.async.bulk.") || name == "mapa")
    return {F::BulkCopyCluster};
  if (name.starts_with("mbarrier.try_wait.parity"))
    return {F::MbarrierParityWait};
  if (name.starts_with("mbarrier.") && name.contains("expect_tx"))
    return {F::AsyncBarrier};
  if (name.starts_with("fence.proxy") &&
      StringRef(printedAttr(op, "kind")).contains("async"))
    return {F::AsyncBarrier};
  return {};
}

/// The family of a tile.commit_group / tile.wait_group's instructions.
InstructionFamily familyOfGroup(AsyncGroup group) {
  switch (group) {
  case AsyncGroup::bulk:
    return InstructionFamily::BulkTensorCopy;
  case AsyncGroup::wgmma:
    return InstructionFamily::Wgmma;
  case AsyncGroup::cp_async:
    return InstructionFamily::CpAsync;
  }
  return InstructionFamily::CpAsync;
}

/// Every family the module's ops will emit.
std::vector<Requirement> requirementsOf(gpu::GPUModuleOp module,
                                        StringRef family) {
  std::vector<Requirement> out;
  module.walk([&](Operation *op) {
    if (auto dispatchOp = dyn_cast<DispatchOpInterface>(op)) {
      std::optional<StringRef> name = dispatchOp.getSelectedVariant();
      const dispatch::Variant *variant =
          name ? dispatch::findVariant(op->getName().getStringRef(), family,
                                       *name)
               : nullptr;
      if (variant && variant->families)
        for (InstructionFamily f : variant->families(op))
          out.push_back({op, f});
    } else if (auto commit = dyn_cast<CommitGroupOp>(op)) {
      out.push_back({op, familyOfGroup(commit.getGroup())});
    } else if (auto wait = dyn_cast<WaitGroupOp>(op)) {
      out.push_back({op, familyOfGroup(wait.getGroup())});
    } else {
      for (InstructionFamily f : familiesOfNVVMOp(op))
        out.push_back({op, f});
    }
  });
  return out;
}

std::string rangeText(PtxRange r) {
  return r.min == r.max ? ptxVersionName(r.min)
                        : ptxVersionName(r.min) + " to " + ptxVersionName(r.max);
}

struct CheckTargetPass
    : public tile::impl::TileCheckTargetBase<CheckTargetPass> {
  using TileCheckTargetBase::TileCheckTargetBase;

  /// An explicit version: each requirement must accept it.
  LogicalResult checkExplicit(const ChipInfo &chip, PtxVersion version,
                              ArrayRef<Requirement> needs) {
    bool ok = true;
    for (const Requirement &need : needs) {
      std::optional<PtxRange> range = chip.support(need.family);
      if (range && range->contains(version))
        continue;
      InFlightDiagnostic diag = need.op->emitError();
      diag << familyName(need.family);
      if (range)
        diag << " needs PTX ISA " << rangeText(*range) << " on " << chip.name
             << "; the #nvvm.target asks for " << ptxVersionName(version);
      else
        diag << " does not exist on " << chip.name;
      ok = false;
    }
    return success(ok);
  }

  /// No explicit version: the lowest that covers every requirement.
  FailureOr<PtxVersion> chooseVersion(const ChipInfo &chip,
                                      ArrayRef<Requirement> needs,
                                      const Requirement *&decisive) {
    PtxVersion chosen = chip.ptx.min;
    decisive = nullptr;
    for (const Requirement &need : needs) {
      std::optional<PtxRange> range = chip.support(need.family);
      if (!range)
        return need.op->emitError()
               << familyName(need.family) << " does not exist on " << chip.name;
      if (range->min > chosen) {
        chosen = range->min;
        decisive = &need;
      }
    }
    for (const Requirement &need : needs)
      if (chosen > chip.support(need.family)->max)
        return need.op->emitError()
               << familyName(need.family) << " needs PTX ISA "
               << rangeText(*chip.support(need.family)) << " on " << chip.name
               << ", but "
               << (decisive ? familyName(decisive->family) : "the chip")
               << " needs " << ptxVersionName(chosen) << " or later";
    return chosen;
  }

  LogicalResult check(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                      unsigned index) {
    OrReason<ChipInfo> chip = lookupChip(target.getChip());
    if (!chip)
      return module.emitError() << chip.reason();
    OrReason<std::optional<PtxVersion>> features =
        ptxVersionOfFeatures(target.getFeatures());
    if (!features)
      return module.emitError() << "#nvvm.target features: "
                                << features.reason();
    std::vector<Requirement> needs =
        requirementsOf(module, dispatch::kCudaFamily);
    if (std::optional<PtxVersion> version = *features) {
      if (!chip->ptx.contains(*version))
        return module.emitError()
               << chip->name << " needs PTX ISA " << rangeText(chip->ptx)
               << "; the #nvvm.target asks for " << ptxVersionName(*version);
      return checkExplicit(*chip, *version, needs);
    }
    const Requirement *decisive = nullptr;
    FailureOr<PtxVersion> chosen = chooseVersion(*chip, needs, decisive);
    if (failed(chosen))
      return failure();
    std::string featureList = "+ptx" + std::to_string(*chosen);
    if (!target.getFeatures().empty())
      featureList += "," + target.getFeatures().str();
    SmallVector<Attribute> targets(module.getTargetsAttr().getValue());
    targets[index] = NVVM::NVVMTargetAttr::get(
        module.getContext(), target.getO(), target.getTriple(),
        target.getChip(), featureList, target.getFlags(), target.getLink());
    module.setTargetsAttr(ArrayAttr::get(module.getContext(), targets));
    if (explain) {
      InFlightDiagnostic remark = module.emitRemark()
                                  << "PTX ISA " << ptxVersionName(*chosen)
                                  << " for " << chip->name << ": ";
      if (decisive)
        remark << familyName(decisive->family) << " needs it";
      else
        remark << "the lowest version that supports " << chip->name
               << " (no op here needs a later one)";
      if (decisive)
        remark.attachNote(decisive->op->getLoc()) << "this op";
    }
    return success();
  }

  void runOnOperation() override {
    bool ok = true;
    getOperation()->walk([&](gpu::GPUModuleOp module) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets)
        return;
      for (auto [index, attr] : llvm::enumerate(targets))
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
          if (failed(check(module, nvvm, index)))
            ok = false;
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace

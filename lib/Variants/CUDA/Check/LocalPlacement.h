//===- LocalPlacement.h - register placements for the local checks -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Which element each (thread, register) of a local tile holds, recomputed
// from its layout with TileLayout::apply (not from the planners' tables), for
// the translation validation of the register-tile variants.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_CHECK_LOCALPLACEMENT_H
#define TILE_LIB_VARIANTS_CUDA_CHECK_LOCALPLACEMENT_H

#include "LoweringCheck.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/Registry.h"

#include <map>
#include <vector>

namespace tile::lowering_check {

struct Placement {
  int64_t threads = 1, registers = 0;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<int64_t> element;                        // [t * registers + r]
  std::map<std::pair<int64_t, int64_t>, int64_t> reg; // (element, t) -> r

  int64_t at(int64_t t, int64_t r) const {
    return element[(t % threads) * registers + r];
  }
  int64_t registerOf(int64_t t, int64_t e) const {
    auto it = reg.find({e, t % threads});
    return it == reg.end() ? -1 : it->second;
  }
  llvm::SmallVector<int64_t, 4> coord(int64_t e) const {
    llvm::SmallVector<int64_t, 4> c(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = e % shape[d];
      e /= shape[d];
    }
    return c;
  }
  int64_t flat(llvm::ArrayRef<int64_t> c) const {
    int64_t f = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      f = f * shape[d] + c[d];
    return f;
  }
  llvm::SmallVector<int64_t> used() const {
    llvm::SmallVector<int64_t> out;
    for (int64_t r = 0; r < registers; ++r)
      if (element[r] >= 0)
        out.push_back(r);
    return out;
  }
};

/// The placement of a local tile's elements: 128 threads for a warpgroup
/// tile, 32 for a warp tile, 1 for a tile without thread axes.
inline OrReason<Placement> placementOf(BufferType type) {
  using R = OrReason<Placement>;
  std::optional<TileLayout> layout = type.getEffectiveLayout();
  if (!layout)
    return R::failure("a tile without a layout");
  Placement p;
  p.shape.assign(type.getShape().begin(), type.getShape().end());
  p.threads = layout->usesAxis(Axis::tid_in_wg) ||
                      layout->usesAxis(Axis::wid_in_wg)
                  ? 128
              : layout->usesAxis(Axis::laneid) ? 32
                                               : 1;
  p.registers = layout->cosize(Axis::m);
  p.element.assign(p.threads * p.registers, -1);
  for (int64_t e = 0; e < layout->size(); ++e)
    for (int64_t rep = 0; rep < layout->replicaCount(); ++rep) {
      AxisAddress a = layout->apply(e, rep);
      int64_t t = p.threads == 1 ? 0 : threadInGroup(a);
      int64_t r = tile::at(a, Axis::m);
      if (t < 0 || t >= p.threads || r < 0 || r >= p.registers)
        return R::failure("an element outside the tile's registers");
      p.element[t * p.registers + r] = e;
      p.reg[{e, t}] = r;
    }
  return p;
}

/// A check over `OpT` as a registry CheckFn reporting on the op.
template <typename OpT>
dispatch::CheckFn checkOf(Status (*check)(OpT, mlir::ValueRange,
                                          llvm::ArrayRef<mlir::Operation *>),
                          llvm::StringRef variant) {
  return [check, variant = variant.str()](
             mlir::Operation *op, mlir::ValueRange lowered,
             llvm::ArrayRef<mlir::Operation *> emitted,
             const dispatch::DispatchContext &) -> llvm::LogicalResult {
    return reportOn(op, variant, check(llvm::cast<OpT>(op), lowered, emitted));
  };
}

} // namespace tile::lowering_check

#endif // TILE_LIB_VARIANTS_CUDA_CHECK_LOCALPLACEMENT_H

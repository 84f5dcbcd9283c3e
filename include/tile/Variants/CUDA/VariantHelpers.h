//===- VariantHelpers.h - what copy and MMA variants share -----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Public: the built-in variants use these, and so may a variant another
// compiler registers (docs/Design.md, "Adding a variant from another
// compiler"): a named `single_thread` predicate, the direction text of a
// reason, the thread count of a cooperative op's exec scope, and the
// planner's view of a region (leading indexed dims folded into the
// layout).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_VARIANTHELPERS_H
#define TILE_VARIANTS_CUDA_VARIANTHELPERS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/CopyAsync/RegionSide.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"

namespace tile::copy_async {

/// `single_thread`: the op is issued by one thread (`exec thread`);
/// `instructions` names what that thread issues, for the reason.
inline dispatch::OpPredicate<CopyAsyncOp>
singleThread(std::string instructions) {
  return {"single_thread",
          [instructions](CopyAsyncOp copy, const dispatch::DispatchContext &) {
            if (copy.getExec() == ExecScope::thread)
              return dispatch::Verdict::success();
            return dispatch::Verdict::failure(
                "issued by a " + stringifyExecScope(copy.getExec()).str() +
                "; one thread issues " + instructions + " (exec thread)");
          }};
}

/// Threads that run an op of exec scope `scope` together: 1, a warp's 32,
/// a warpgroup's 128, or the enclosing kernel's `known_block_size` for
/// `cta`; nullopt for `cluster` and for a cta without a known block.
inline std::optional<int64_t> execScopeThreads(mlir::Operation *op,
                                               ExecScope scope) {
  switch (scope) {
  case ExecScope::thread: return 1;
  case ExecScope::warp: return 32;
  case ExecScope::warpgroup: return 128;
  case ExecScope::cta: {
    auto func = op->getParentOfType<mlir::gpu::GPUFuncOp>();
    std::optional<llvm::ArrayRef<int32_t>> block =
        func ? func.getKnownBlockSize() : std::nullopt;
    if (!block)
      return std::nullopt;
    return int64_t((*block)[0]) * (*block)[1] * (*block)[2];
  }
  case ExecScope::cluster: return std::nullopt;
  }
  return std::nullopt;
}

/// `copies <src scope> -> <dst scope>`.
inline std::string direction(CopyAsyncOp copy) {
  return "copies " + stringifyMemoryScope(copy.getSrcType().getScope()).str() +
         " -> " + stringifyMemoryScope(copy.getDstType().getScope()).str();
}

/// The planner's view of one side of an op's region of rank `regionRank`:
/// the buffer's layout, shape and static region offsets. Leading buffer
/// dims beyond the region's rank are indexed (size 1) and folded into the
/// layout at their offsets; a dynamic one at 0 (the lowering adds its
/// runtime step, BufferType::getIndexStep). `dynamicOffsetReason` finishes
/// the sentence when a region offset is an SSA value.
inline OrReason<RegionSide> regionSide(BufferType type,
                                       llvm::ArrayRef<int64_t> offsets,
                                       size_t regionRank, llvm::StringRef name,
                                       llvm::StringRef dynamicOffsetReason) {
  using R = OrReason<RegionSide>;
  std::optional<TileLayout> layout = type.getEffectiveLayout();
  if (!layout)
    return R::failure(name.str() + " buffer has no static layout");
  llvm::ArrayRef<int64_t> shape = type.getShape();
  if (shape.size() < regionRank || offsets.size() != shape.size())
    return R::failure(name.str() + " buffer has rank " +
                      std::to_string(shape.size()) + "; the region has rank " +
                      std::to_string(regionRank));
  const size_t lead = shape.size() - regionRank;
  llvm::SmallVector<int64_t, 4> at(shape.size(), 0), sizes(shape);
  RegionSide side{*layout, {}, {}};
  for (size_t d = 0; d < shape.size(); ++d) {
    bool dynamic = mlir::ShapedType::isDynamic(offsets[d]);
    if (d >= lead) {
      if (dynamic)
        return R::failure(name.str() + " region has a dynamic offset; " +
                          dynamicOffsetReason.str());
      side.offsets.push_back(offsets[d]);
      side.shape.push_back(shape[d]);
      continue;
    }
    sizes[d] = 1;
    if (!dynamic) {
      at[d] = offsets[d];
      continue;
    }
    if (OrReason<AxisAddress> step = type.getIndexStep(d); !step)
      return R::failure(name.str() + " region's runtime index of " +
                        step.reason());
  }
  if (lead) {
    OrReason<SliceResult> s = layout->slice(shape, at, sizes);
    if (!s)
      return R::failure(name.str() + " region: " + s.reason());
    side.layout = s->residual;
  }
  return side;
}

/// The A, B and C sides of a gemm_async (regions of rank 2), or the first
/// side's reason; `dynamicOffsetReason` as for regionSide.
struct GemmRegionSides {
  RegionSide a, b, c;
};
inline OrReason<GemmRegionSides>
gemmRegionSides(GemmAsyncOp op, llvm::StringRef dynamicOffsetReason) {
  using R = OrReason<GemmRegionSides>;
  OrReason<RegionSide> a = regionSide(op.getA().getType(),
                                      op.getAStaticOffsets(), 2, "A",
                                      dynamicOffsetReason);
  if (!a)
    return R::failure(a.reason());
  OrReason<RegionSide> b = regionSide(op.getB().getType(),
                                      op.getBStaticOffsets(), 2, "B",
                                      dynamicOffsetReason);
  if (!b)
    return R::failure(b.reason());
  OrReason<RegionSide> c = regionSide(op.getC().getType(),
                                      op.getCStaticOffsets(), 2, "C",
                                      dynamicOffsetReason);
  if (!c)
    return R::failure(c.reason());
  return GemmRegionSides{*a, *b, *c};
}

} // namespace tile::copy_async

#endif // TILE_VARIANTS_CUDA_VARIANTHELPERS_H

//===- Predicates.h - predicates the copy_async variants share --*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_VARIANTS_CUDA_COPYASYNC_PREDICATES_H
#define TILE_LIB_VARIANTS_CUDA_COPYASYNC_PREDICATES_H

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/CopyAsync/RegionSide.h"

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

/// `copies <src scope> -> <dst scope>`.
inline std::string direction(CopyAsyncOp copy) {
  return "copies " + stringifyMemoryScope(copy.getSrcType().getScope()).str() +
         " -> " + stringifyMemoryScope(copy.getDstType().getScope()).str();
}

/// The planner's view of one side of `copy`: the buffer's layout, shape and
/// static region offsets; `dynamicOffsetReason` finishes the sentence when
/// an offset is an SSA value.
inline OrReason<RegionSide> regionSide(BufferType type,
                                       llvm::ArrayRef<int64_t> offsets,
                                       llvm::StringRef name,
                                       llvm::StringRef dynamicOffsetReason) {
  using R = OrReason<RegionSide>;
  std::optional<TileLayout> layout = type.getEffectiveLayout();
  if (!layout)
    return R::failure(name.str() + " buffer has no static layout");
  RegionSide side{*layout, {}, {}};
  side.shape.assign(type.getShape().begin(), type.getShape().end());
  for (int64_t o : offsets) {
    if (mlir::ShapedType::isDynamic(o))
      return R::failure(name.str() + " region has a dynamic offset; " +
                        dynamicOffsetReason.str());
    side.offsets.push_back(o);
  }
  return side;
}

} // namespace tile::copy_async

#endif // TILE_LIB_VARIANTS_CUDA_COPYASYNC_PREDICATES_H

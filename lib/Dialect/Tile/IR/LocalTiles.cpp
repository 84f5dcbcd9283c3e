//===- LocalTiles.cpp - where a register tile's elements go ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/LocalTiles.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tile {

mlir::Type registerStorageType(mlir::Type element) {
  if (isa<mlir::FloatType>(element) && element.getIntOrFloatBitWidth() <= 8)
    return mlir::IntegerType::get(element.getContext(),
                                  element.getIntOrFloatBitWidth());
  return element;
}

mlir::Value localRegisterAddress(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value tile, mlir::Type storage,
                                 int64_t registers, int64_t index) {
  auto array = mlir::LLVM::LLVMArrayType::get(
      storage, static_cast<uint64_t>(registers));
  return mlir::LLVM::GEPOp::create(
      b, loc, tile.getType(), array, tile,
      llvm::ArrayRef<mlir::LLVM::GEPArg>{0, int32_t(index)});
}

/// The inline-asm register constraint of a value of `type`, or "".
static llvm::StringRef registerConstraint(mlir::Type type) {
  if (type.isF32())
    return "f";
  if (type.isF64())
    return "d";
  if (type.isInteger(32))
    return "r";
  if (type.isInteger(64))
    return "l";
  return "";
}

/// A vector that fills one 32-bit register (f16x2, bf16x2, i8x4: how
/// wgmma's packed accumulators and register A travel).
static bool isPackedWord(mlir::Type type) {
  auto vector = mlir::dyn_cast<mlir::VectorType>(type);
  return vector && vector.getRank() == 1 &&
         vector.getElementType().isIntOrFloat() &&
         vector.getNumElements() *
                 vector.getElementType().getIntOrFloatBitWidth() ==
             32;
}

llvm::SmallVector<mlir::Value> pinRegisters(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::ValueRange values) {
  llvm::SmallVector<mlir::Value> out(values.begin(), values.end());
  llvm::SmallVector<mlir::Value> tied;
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<size_t> positions;
  std::string outputs, inputs;
  mlir::Type word = b.getI32Type();
  for (auto [i, v] : llvm::enumerate(values)) {
    if (isPackedWord(v.getType()))
      v = mlir::LLVM::BitcastOp::create(b, loc, word, v);
    llvm::StringRef constraint = registerConstraint(v.getType());
    if (constraint.empty())
      continue;
    outputs += (outputs.empty() ? "=" : ",=") + constraint.str();
    inputs += "," + std::to_string(tied.size());
    tied.push_back(v);
    types.push_back(v.getType());
    positions.push_back(i);
  }
  if (tied.empty())
    return out;
  mlir::Type result =
      tied.size() == 1
          ? types.front()
          : mlir::LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto pin = mlir::LLVM::InlineAsmOp::create(
      b, loc, result, tied, /*asm_string=*/"", outputs + inputs,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      mlir::LLVM::TailCallKind::None,
      mlir::LLVM::AsmDialectAttr::get(b.getContext(),
                                      mlir::LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/mlir::ArrayAttr());
  for (auto [k, i] : llvm::enumerate(positions)) {
    mlir::Value pinned =
        tied.size() == 1
            ? pin.getResult(0)
            : mlir::LLVM::ExtractValueOp::create(b, loc, pin.getResult(0),
                                                 int64_t(k))
                  .getResult();
    if (pinned.getType() != out[i].getType())
      pinned =
          mlir::LLVM::BitcastOp::create(b, loc, out[i].getType(), pinned);
    out[i] = pinned;
  }
  return out;
}

void pinLocalTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile,
                  mlir::Type storage, int64_t registers) {
  if (!storage.isIntOrFloat())
    return;
  // 16-bit elements go in pairs (2i, 2i + 1), one 32-bit register each, as
  // wgmma packs its f16 accumulators; 8-bit tiles are left alone.
  const unsigned bits = storage.getIntOrFloatBitWidth();
  const int64_t lanes = bits == 32 ? 1 : 2;
  if ((bits != 32 && bits != 16) || registers % lanes)
    return;
  mlir::Type word = lanes == 1 ? storage : mlir::VectorType::get({2}, storage);
  llvm::SmallVector<mlir::Value> addresses, words;
  for (int64_t r = 0; r < registers; ++r)
    addresses.push_back(
        localRegisterAddress(b, loc, tile, storage, registers, r));
  for (int64_t w = 0; w < registers / lanes; ++w) {
    if (lanes == 1) {
      words.push_back(mlir::LLVM::LoadOp::create(b, loc, storage,
                                                 addresses[w]));
      continue;
    }
    mlir::Value v = mlir::LLVM::UndefOp::create(b, loc, word);
    for (int64_t h = 0; h < 2; ++h) {
      mlir::Value x =
          mlir::LLVM::LoadOp::create(b, loc, storage, addresses[2 * w + h]);
      v = mlir::LLVM::InsertElementOp::create(
          b, loc, v, x,
          mlir::LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                         b.getI32IntegerAttr(h)));
    }
    words.push_back(v);
  }
  llvm::SmallVector<mlir::Value> pinned = pinRegisters(b, loc, words);
  for (int64_t w = 0; w < registers / lanes; ++w) {
    if (lanes == 1) {
      mlir::LLVM::StoreOp::create(b, loc, pinned[w], addresses[w]);
      continue;
    }
    for (int64_t h = 0; h < 2; ++h) {
      mlir::Value x = mlir::LLVM::ExtractElementOp::create(
          b, loc, pinned[w],
          mlir::LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                         b.getI32IntegerAttr(h)));
      mlir::LLVM::StoreOp::create(b, loc, x, addresses[2 * w + h]);
    }
  }
}

LocalElements localElements(BufferType type) {
  TileLayout layout = *type.getEffectiveLayout();
  GroupedLayout grouped = *layout.group(type.getShape());
  ArrayRef<int64_t> shape = type.getShape();
  // Each iter's dim and the coordinate weight of its digit inside the dim.
  struct Place {
    Iter it;
    unsigned dim;
    int64_t weight;
  };
  SmallVector<Place> places;
  for (unsigned d = 0; d < grouped.rank(); ++d) {
    ArrayRef<Iter> iters = grouped.group(d);
    int64_t weight = 1;
    SmallVector<Place> dimPlaces;
    for (size_t i = iters.size(); i-- > 0;) {
      dimPlaces.push_back({iters[i], d, weight});
      weight *= iters[i].extent;
    }
    places.append(dimPlaces.rbegin(), dimPlaces.rend());
  }
  LocalElements out;
  SmallVector<Place> mPlaces;
  for (const Place &p : places) {
    if (p.it.extent == 1)
      continue;
    if (p.it.axis == Axis::m) {
      mPlaces.push_back(p);
      continue;
    }
    int64_t threadStride =
        p.it.axis == Axis::wid_in_wg ? 32 * p.it.stride : p.it.stride;
    out.threadIters.push_back({p.dim, p.weight, p.it.extent, threadStride});
  }
  int64_t count = 1;
  for (const Place &p : mPlaces)
    count *= p.it.extent;
  int64_t base = layout.offset(Axis::m);
  for (int64_t i = 0; i < count; ++i) {
    LocalElements::Element e;
    e.reg = base;
    e.coord.assign(shape.size(), 0);
    int64_t rest = i;
    for (size_t j = mPlaces.size(); j-- > 0;) {
      int64_t digit = rest % mPlaces[j].it.extent;
      rest /= mPlaces[j].it.extent;
      e.reg += digit * mPlaces[j].it.stride;
      e.coord[mPlaces[j].dim] += digit * mPlaces[j].weight;
    }
    out.elements.push_back(std::move(e));
  }
  return out;
}

/// The offset of coordinate `x` along a dim whose layout steps are `iters`
/// (outermost first), as a mixed-radix number.
static int64_t dimOffset(ArrayRef<Iter> iters, int64_t x) {
  int64_t offset = 0;
  for (size_t i = iters.size(); i-- > 0;) {
    offset += (x % iters[i].extent) * iters[i].stride;
    x /= iters[i].extent;
  }
  return offset;
}

OrReason<LocalAccessPlan> planLocalAccess(BufferType src, BufferType dst,
                                          ArrayRef<int64_t> staticOffsets) {
  using R = OrReason<LocalAccessPlan>;
  // Sub-byte elements are packed in memory; a register's access moves at
  // least a byte.
  for (BufferType t : {src, dst})
    if (t.getElementBits() < 8)
      return R::failure("elements of " + std::to_string(t.getElementBits()) +
                        " bits are packed in memory; a register tile's "
                        "loads and stores move whole bytes");
  std::optional<TileLayout> layout = dst.getEffectiveLayout();
  if (!layout || !dst.hasStaticShape())
    return R::failure("the region's buffer has no static layout");
  std::string what = "layout " + layout->toString();
  if (!layout->replica().empty())
    return R::failure(what + " is replicated");
  OrReason<GroupedLayout> grouped = layout->canonicalize().group(dst.getShape());
  if (!grouped)
    return R::failure(grouped.reason());
  const size_t rank = dst.getRank(), lead = rank - src.getRank();
  LocalElements local = localElements(src);
  // The largest coordinate a thread's digits add along each dim, and the
  // coordinates every thread's digits add (each combination of them).
  SmallVector<int64_t, 4> threadReach(rank, 0);
  for (const LocalElements::ThreadIter &t : local.threadIters)
    threadReach[lead + t.dim] += t.coordStep * (t.extent - 1);
  // Per thread: (coordinate, digit index) pairs per dim, so that its base
  // can be checked against the steps the emitter adds.
  struct ThreadCoord {
    SmallVector<int64_t, 4> coord;
    SmallVector<int64_t, 4> digits;
  };
  SmallVector<ThreadCoord> threadCoords{
      ThreadCoord{SmallVector<int64_t, 4>(rank, 0), {}}};
  for (const LocalElements::ThreadIter &t : local.threadIters) {
    SmallVector<ThreadCoord> next;
    for (const ThreadCoord &c : threadCoords)
      for (int64_t digit = 0; digit < t.extent; ++digit) {
        next.push_back(c);
        next.back().coord[lead + t.dim] += digit * t.coordStep;
        next.back().digits.push_back(digit);
      }
    threadCoords = std::move(next);
  }

  LocalAccessPlan plan;
  plan.swizzle = layout->swizzle();
  for (const LocalElements::ThreadIter &t : local.threadIters)
    plan.threadStep.push_back(
        dimOffset(grouped->group(lead + t.dim), t.coordStep));
  plan.elementOffset.assign(local.elements.size(), layout->offset(Axis::m));
  for (size_t d = 0; d < rank; ++d) {
    ArrayRef<Iter> iters = grouped->group(d);
    for (const Iter &it : iters)
      if (it.axis != Axis::m)
        return R::failure(what + " maps dim " + std::to_string(d) +
                          " to axis " + axisName(it.axis).str());
    int64_t inner = iters.empty() ? 1 : iters.back().extent;
    plan.runtimeStride.push_back(iters.empty() ? 0 : iters.back().stride);
    bool dynamic = mlir::ShapedType::isDynamic(staticOffsets[d]);
    if (dynamic && iters.size() > 1)
      return R::failure(what + " maps dim " + std::to_string(d) + " through " +
                        std::to_string(iters.size()) +
                        " steps; a runtime offset needs one stride");
    int64_t start = dynamic ? 0 : staticOffsets[d];
    for (size_t e = 0; e < local.elements.size(); ++e) {
      int64_t x = start + (d < lead ? 0 : local.elements[e].coord[d - lead]);
      // Each thread's base (the sum of its digits' steps along this dim)
      // must move every element by the same amount: no thread coordinate
      // may carry across a step of the dim's mixed radix (one that is a
      // multiple of the innermost step moves an outer digit only).
      auto carries = [&](const ThreadCoord &c) {
        int64_t base = 0;
        for (auto [i, t] : llvm::enumerate(local.threadIters))
          if (lead + t.dim == d)
            base += c.digits[i] * plan.threadStep[i];
        return dimOffset(iters, x + c.coord[d]) != dimOffset(iters, x) + base;
      };
      if (iters.size() > 1 && llvm::any_of(threadCoords, carries))
        return R::failure(
            what + " splits dim " + std::to_string(d) + " every " +
            std::to_string(inner) + " elements, and the threads' coordinates " +
            std::to_string(x) + ".." + std::to_string(x + threadReach[d]) +
            " cross that step");
      plan.elementOffset[e] += dimOffset(iters, x);
    }
  }
  return plan;
}

OrReason<TmemLoadPlan> planTmemLoad(BufferType tmem, BufferType local,
                                    ArrayRef<int64_t> staticOffsets) {
  using R = OrReason<TmemLoadPlan>;
  ArrayRef<int64_t> shape = local.getShape();
  if (shape.size() != 2 || shape[0] != 128)
    return R::failure("a tensor-memory read fills a 128-row tile (one row "
                      "per thread of the warpgroup, its lane)");
  int64_t columns = shape[1];
  if (columns > 128 || !llvm::isPowerOf2_64(columns))
    return R::failure("tcgen05.ld 32x32b reads 1 to 128 columns, a power of "
                      "two, per thread; the tile has " +
                      std::to_string(columns));
  if (tmem.getElementBits() != 32 ||
      tmem.getElementType() != local.getElementType())
    return R::failure("tcgen05.ld 32x32b reads 32-bit cells into registers "
                      "of the same type");
  // The local layout: thread t holds row t, register j column j.
  LocalElements elements = localElements(local);
  if (elements.threadIters.size() != 1 ||
      elements.threadIters[0].dim != 0 ||
      elements.threadIters[0].coordStep != 1 ||
      elements.threadIters[0].extent != 128 ||
      elements.threadIters[0].threadStride != 1)
    return R::failure("the tile's layout must give row t to thread t of the "
                      "warpgroup (tid_in_wg), as the lanes are read");
  for (const LocalElements::Element &e : elements.elements)
    if (e.coord[0] != 0 || e.reg != e.coord[1])
      return R::failure("the tile's layout must keep column j in register j");
  // The region: row r is lane r, column c the first column plus c.
  std::optional<TileLayout> layout = tmem.getEffectiveLayout();
  if (!layout || !tmem.hasStaticShape())
    return R::failure("the tensor-memory buffer has no static layout");
  const size_t rank = tmem.getRank();
  SmallVector<int64_t, 4> at(rank, 0);
  for (size_t d = 0; d + 2 < rank; ++d)
    at[d] = mlir::ShapedType::isDynamic(staticOffsets[d]) ? 0 : staticOffsets[d];
  for (size_t d = rank - 2; d < rank; ++d) {
    if (mlir::ShapedType::isDynamic(staticOffsets[d]))
      return R::failure("the region's rows and columns must be static "
                        "offsets (a runtime index may select a leading dim)");
    at[d] = staticOffsets[d];
  }
  auto address = [&](int64_t row, int64_t col) {
    SmallVector<int64_t, 4> coord(at);
    coord[rank - 2] += row;
    coord[rank - 1] += col;
    return layout->apply(coord, tmem.getShape());
  };
  // Row r must be lane r: warp w of the warpgroup reads lanes 32w..32w+31.
  AxisAddress first = address(0, 0);
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t c = 0; c < columns; ++c) {
      AxisAddress a = address(r, c);
      if (tile::at(a, Axis::TLane) != r ||
          tile::at(a, Axis::TCol) != tile::at(first, Axis::TCol) + c)
        return R::failure("element (" + std::to_string(r) + ", " +
                          std::to_string(c) + ") of the region is not lane " +
                          std::to_string(r) + ", column first + " +
                          std::to_string(c));
    }
  return TmemLoadPlan{tile::at(first, Axis::TCol), columns};
}

} // namespace tile

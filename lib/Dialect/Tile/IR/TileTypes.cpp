//===- TileTypes.cpp - !tile.buffer -----------------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

unsigned BufferType::getElementBits() const {
  return getElementType().getIntOrFloatBitWidth();
}

BufferType BufferType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                                 Type elementType) const {
  return BufferType::get(getContext(), shape ? *shape : getShape(),
                         elementType, getScope(), getLayout());
}

std::optional<TileLayout> BufferType::getEffectiveLayout() const {
  if (getLayout())
    return getLayout().getLayout();
  if (!hasStaticShape())
    return std::nullopt;
  return TileLayout::rowMajor(getShape());
}

OrReason<AxisAddress> BufferType::getIndexStep(unsigned dim) const {
  using R = OrReason<AxisAddress>;
  std::optional<TileLayout> layout = getEffectiveLayout();
  if (!layout || !hasStaticShape())
    return R::failure("the buffer has no static layout");
  OrReason<GroupedLayout> grouped = layout->canonicalize().group(getShape());
  if (!grouped)
    return R::failure(grouped.reason());
  AxisAddress step{};
  llvm::ArrayRef<Iter> iters = grouped->group(dim);
  if (iters.empty())
    return step;
  std::string what = "dim " + std::to_string(dim) + " (" +
                     layout->toString() + ")";
  if (iters.size() != 1 || !layout->replica().empty())
    return R::failure(what + " is not one linear step");
  const Iter &it = iters.front();
  at(step, it.axis) = it.stride;
  int64_t bits = getElementBits();
  if (it.axis == Axis::m) {
    // The strictest start any planner asks of a shared tile: a swizzle
    // atom (8 rows of the swizzle) when swizzled, 128 bytes (a TMA box)
    // otherwise; a step keeping that keeps every plan for index 0 valid.
    std::optional<SwizzleMode> mode =
        classifyNvmmaSwizzle(layout->swizzle(), bits);
    int64_t align = mode ? 8 * swizzleBytes(*mode) : 128;
    if ((it.stride * bits) % (8 * align))
      return R::failure(what + " steps " + std::to_string(it.stride * bits / 8) +
                        " bytes; a runtime index needs a multiple of " +
                        std::to_string(align) + " bytes (" +
                        (mode ? "a swizzle atom" : "a TMA box's alignment") +
                        ")");
  } else if (it.axis == Axis::TCol) {
    // Whole 128-bit groups of columns, as tcgen05.cp writes them.
    if ((it.stride * bits) % 128)
      return R::failure(what + " steps " + std::to_string(it.stride * bits / 32) +
                        " 32-bit columns; a runtime index needs a multiple of "
                        "4");
  } else if (it.axis == Axis::TLane) {
    return R::failure(what + " steps along lanes; a runtime index may only "
                             "move tensor memory by columns (the data path "
                             "fixes the lanes)");
  } else {
    return R::failure(what + " steps along axis " + axisName(it.axis).str());
  }
  return step;
}

OrReason<SmallVector<int64_t, 4>> BufferType::getElementStrides() const {
  using R = OrReason<SmallVector<int64_t, 4>>;
  std::optional<TileLayout> layout = getEffectiveLayout();
  if (!layout || !hasStaticShape())
    return R::failure("the buffer has no static layout");
  std::string what = "layout " + layout->toString();
  if (!layout->swizzle().isIdentity())
    return R::failure(what + " is swizzled");
  if (!layout->replica().empty())
    return R::failure(what + " is replicated");
  OrReason<GroupedLayout> grouped = layout->canonicalize().group(getShape());
  if (!grouped)
    return R::failure(grouped.reason());
  SmallVector<int64_t, 4> strides;
  for (unsigned d = 0; d < grouped->rank(); ++d) {
    ArrayRef<Iter> iters = grouped->group(d);
    if (iters.size() > 1)
      return R::failure(what + " maps dim " + std::to_string(d) +
                        " through " + std::to_string(iters.size()) +
                        " steps, not one stride");
    if (!iters.empty() && iters.front().axis != Axis::m)
      return R::failure(what + " maps dim " + std::to_string(d) +
                        " to axis " + axisName(iters.front().axis).str());
    strides.push_back(iters.empty() ? 0 : iters.front().stride);
  }
  return strides;
}

/// Axes a buffer in `scope` may address.
static bool scopeAllowsAxis(MemoryScope scope, Axis axis) {
  switch (scope) {
  case MemoryScope::global:
    return axis == Axis::m;
  case MemoryScope::shared:
    return axis == Axis::m || axis == Axis::cta;
  case MemoryScope::tmem:
    return isTensorMemoryAxis(axis) || axis == Axis::cta;
  case MemoryScope::local:
    return axis == Axis::m || isThreadAxis(axis);
  }
  return false;
}

static std::string allowedAxes(MemoryScope scope) {
  std::string s;
  for (unsigned a = 0; a < kNumAxes; ++a) {
    if (!scopeAllowsAxis(scope, static_cast<Axis>(a)))
      continue;
    if (!s.empty())
      s += ", ";
    s += axisName(static_cast<Axis>(a)).str();
  }
  return s;
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 MemoryScope scope, LayoutAttr layoutAttr) {
  if (!elementType.isIntOrFloat())
    return emitError() << "element type must be an integer or float type, got "
                       << elementType;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  for (auto [d, extent] : llvm::enumerate(shape)) {
    if (ShapedType::isDynamic(extent)) {
      if (scope != MemoryScope::global)
        return emitError() << "dim " << d << " is dynamic; only global "
                           << "buffers may have dynamic dims";
      continue;
    }
    if (extent < 1)
      return emitError() << "dim " << d << " has extent " << extent
                         << "; extents must be positive";
  }
  if (!layoutAttr) {
    if (scope == MemoryScope::local) {
      int64_t elements = 1;
      for (int64_t extent : shape)
        elements *= extent;
      if (elements > kMaxLocalRegisters)
        return emitError() << "a local buffer without a layout puts all "
                           << elements << " elements in each thread; a "
                           << "register tile holds at most "
                           << kMaxLocalRegisters
                           << " (give it a layout spreading it over threads)";
    }
    if (scope == MemoryScope::tmem)
      return emitError() << "a tmem buffer needs a layout placing its "
                         << "elements on TLane/TCol";
    return success();
  }

  TileLayout layout = layoutAttr.getLayout();
  for (ArrayRef<Iter> iters : {layout.shard(), layout.replica()})
    for (const Iter &it : iters)
      if (!scopeAllowsAxis(scope, it.axis))
        return emitError() << "layout uses axis '" << axisName(it.axis)
                           << "', which a " << stringifyMemoryScope(scope)
                           << " buffer cannot address (allowed: "
                           << allowedAxes(scope) << ")";
  for (const AxisOffset &o : layout.offsets())
    if (!scopeAllowsAxis(scope, o.axis))
      return emitError() << "layout offsets axis '" << axisName(o.axis)
                         << "', which a " << stringifyMemoryScope(scope)
                         << " buffer cannot address (allowed: "
                         << allowedAxes(scope) << ")";

  if (!layout.swizzle().isIdentity()) {
    if (scope != MemoryScope::shared)
      return emitError() << "a swizzled layout is only valid in shared "
                         << "memory, not " << stringifyMemoryScope(scope);
    if (!classifyNvmmaSwizzle(layout.swizzle(), bits)) {
      InFlightDiagnostic diag = emitError();
      diag << layout.swizzle().toString()
           << " is not an NVMMA swizzle for " << bits << "-bit elements";
      Swizzle s32 = nvmmaSwizzle(SwizzleMode::B32, bits);
      if (!s32.isIdentity())
        diag << "; expected " << s32.toString() << " (32B), "
             << nvmmaSwizzle(SwizzleMode::B64, bits).toString()
             << " (64B) or "
             << nvmmaSwizzle(SwizzleMode::B128, bits).toString()
             << " (128B)";
      return diag;
    }
  }

  if (llvm::all_of(shape, [](int64_t d) { return !ShapedType::isDynamic(d); })) {
    OrReason<GroupedLayout> grouped = layout.group(shape);
    if (!grouped)
      return emitError() << "layout does not fit the shape: "
                         << grouped.reason();
  } else {
    return emitError() << "a buffer with dynamic dims cannot have a static "
                       << "layout; the host encodes its strides";
  }

  if (scope == MemoryScope::local) {
    if (OrReason<LocalThreads> threads = localThreads(layout); !threads)
      return emitError() << threads.reason();
    // Registers are LLVM values: integers are signless there.
    if (auto i = dyn_cast<IntegerType>(elementType); i && !i.isSignless())
      return emitError() << "a register tile of " << elementType
                         << "; registers hold signless integers (use i"
                         << i.getWidth() << ")";
  }

  if (scope == MemoryScope::tmem) {
    int64_t lanes = layout.cosize(Axis::TLane);
    if (lanes > 128)
      return emitError() << "layout reaches tensor-memory lane " << lanes - 1
                         << "; tensor memory has 128 lanes";
    int64_t columns = llvm::divideCeil(layout.cosize(Axis::TCol) * bits, 32);
    if (columns > 512)
      return emitError() << "layout needs " << columns
                         << " 32-bit tensor-memory columns; there are 512";
  }
  return success();
}

Type BufferType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  SMLoc scopeLoc = parser.getCurrentLocation();
  StringRef scopeName;
  if (parser.parseKeyword(&scopeName))
    return {};
  std::optional<MemoryScope> scope = symbolizeMemoryScope(scopeName);
  if (!scope) {
    parser.emitError(scopeLoc)
        << "unknown memory scope '" << scopeName
        << "'; expected global, shared, tmem or local";
    return {};
  }
  LayoutAttr layout;
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseCustomAttributeWithFallback(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<BufferType>(loc, parser.getContext(), shape,
                                       elementType, *scope, layout);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ", " << stringifyMemoryScope(getScope());
  if (getLayout())
    printer << ", " << getLayout();
  printer << ">";
}

//===- TileAttrs.cpp - #tile.layout and enum attributes ---------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/CUDA/TensorMap.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

TileLayout LayoutAttr::getLayout() const {
  return TileLayout(getShard(), getReplica(), getOffsets(), getSwizzle());
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<Iter> shard, ArrayRef<Iter> replica,
                                 ArrayRef<AxisOffset> offsets,
                                 Swizzle swizzle) {
  std::string problem =
      TileLayout(shard, replica, offsets, swizzle).validate();
  if (!problem.empty())
    return emitError() << "invalid layout: " << problem;
  return success();
}

namespace {
/// Recursive-descent parser for the layout notation, on MLIR tokens so every
/// error points at the offending token.
class LayoutParser {
public:
  explicit LayoutParser(AsmParser &parser) : parser(parser) {}

  ParseResult parse(SmallVectorImpl<Iter> &shard,
                    SmallVectorImpl<Iter> &replica,
                    SmallVectorImpl<AxisOffset> &offsets, Swizzle &swizzle);

private:
  ParseResult parseOptionalAxis(Axis &axis);
  ParseResult parseStride(Iter &iter);
  ParseResult parseExtent(int64_t &extent);
  ParseResult parseIters(SmallVectorImpl<Iter> &iters);
  ParseResult parseSwizzle(Swizzle &swizzle);

  AsmParser &parser;
};
} // namespace

/// `@axis`; leaves `axis` alone (the memory axis) when there is no `@`.
ParseResult LayoutParser::parseOptionalAxis(Axis &axis) {
  SMLoc loc = parser.getCurrentLocation();
  StringAttr name;
  if (failed(parser.parseOptionalSymbolName(name)))
    return success();
  std::optional<Axis> parsed = axisFromName(name.getValue());
  if (!parsed)
    return parser.emitError(loc) << "unknown axis '" << name.getValue()
                                 << "'; expected one of " << allAxisNames();
  axis = *parsed;
  return success();
}

ParseResult LayoutParser::parseExtent(int64_t &extent) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseInteger(extent))
    return failure();
  if (extent < 1)
    return parser.emitError(loc)
           << "extent must be a positive integer, got " << extent;
  return success();
}

ParseResult LayoutParser::parseStride(Iter &iter) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseInteger(iter.stride))
    return failure();
  if (iter.stride < 0)
    return parser.emitError(loc)
           << "stride must be non-negative, got " << iter.stride;
  iter.axis = Axis::m;
  return parseOptionalAxis(iter.axis);
}

ParseResult LayoutParser::parseIters(SmallVectorImpl<Iter> &iters) {
  if (parser.parseLSquare())
    return failure();
  SmallVector<int64_t> extents;
  bool grouped = succeeded(parser.parseOptionalLParen());
  if (grouped) {
    if (parser.parseCommaSeparatedList([&] {
          return parseExtent(extents.emplace_back());
        }) ||
        parser.parseRParen())
      return failure();
  } else if (parseExtent(extents.emplace_back())) {
    return failure();
  }
  if (parser.parseColon())
    return failure();
  SmallVector<Iter> strides;
  SMLoc stridesLoc = parser.getCurrentLocation();
  if (grouped) {
    if (parser.parseLParen() || parser.parseCommaSeparatedList([&] {
          return parseStride(strides.emplace_back());
        }) ||
        parser.parseRParen())
      return failure();
  } else if (parseStride(strides.emplace_back())) {
    return failure();
  }
  if (extents.size() != strides.size())
    return parser.emitError(stridesLoc)
           << "expected " << extents.size() << " strides to match the "
           << extents.size() << " extents, got " << strides.size();
  for (auto [extent, stride] : llvm::zip(extents, strides))
    iters.push_back(Iter{extent, stride.stride, stride.axis});
  return parser.parseRSquare();
}

ParseResult LayoutParser::parseSwizzle(Swizzle &swizzle) {
  SMLoc loc = parser.getCurrentLocation();
  unsigned bits, base, shift;
  if (parser.parseKeyword("swizzle") || parser.parseLess() ||
      parser.parseInteger(bits) || parser.parseComma() ||
      parser.parseInteger(base) || parser.parseComma() ||
      parser.parseInteger(shift) || parser.parseGreater())
    return failure();
  // `swizzle<0,...>` would silently mean "no swizzle": reject it here.
  Swizzle parsed{bits, base, shift};
  std::string problem = bits == 0 ? parsed.toString() + " has B = 0; omit "
                                                        "the swizzle instead"
                                  : parsed.problem();
  if (!problem.empty())
    return parser.emitError(loc) << problem;
  swizzle = parsed;
  return success();
}

ParseResult LayoutParser::parse(SmallVectorImpl<Iter> &shard,
                                SmallVectorImpl<Iter> &replica,
                                SmallVectorImpl<AxisOffset> &offsets,
                                Swizzle &swizzle) {
  bool sawShard = false;
  do {
    SMLoc loc = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalKeyword("S"))) {
      if (sawShard)
        return parser.emitError(loc) << "a layout has one shard term S[...]";
      sawShard = true;
      if (parseIters(shard))
        return failure();
      continue;
    }
    if (succeeded(parser.parseOptionalKeyword("R"))) {
      if (parseIters(replica))
        return failure();
      continue;
    }
    int64_t value = 0;
    OptionalParseResult isInt = parser.parseOptionalInteger(value);
    if (!isInt.has_value())
      return parser.emitError(loc)
             << "expected a layout term: S[...], R[...] or an offset k@axis";
    if (failed(*isInt))
      return failure();
    if (value < 0)
      return parser.emitError(loc)
             << "offset must be non-negative, got " << value;
    AxisOffset off{Axis::m, value};
    if (parseOptionalAxis(off.axis))
      return failure();
    offsets.push_back(off);
  } while (succeeded(parser.parseOptionalPlus()));
  if (!sawShard)
    return parser.emitError(parser.getCurrentLocation())
           << "a layout needs a shard term S[...]";
  if (succeeded(parser.parseOptionalComma()))
    return parseSwizzle(swizzle);
  return success();
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<Iter> shard, replica;
  SmallVector<AxisOffset> offsets;
  Swizzle swizzle;
  if (parser.parseLess() ||
      LayoutParser(parser).parse(shard, replica, offsets, swizzle) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<LayoutAttr>(loc, parser.getContext(), shard,
                                       replica, offsets, swizzle);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<" << getLayout().toString() << ">";
}

//===----------------------------------------------------------------------===//
// TensorMapPlanAttr
//===----------------------------------------------------------------------===//

TensorMapPlanAttr TensorMapPlanAttr::withParam(int64_t param) const {
  return get(getContext(), param, getGlobalArg(), getDataType(), getEncode(),
             getDimSources(), getStrideSources(), getStrideScales(),
             getBytesPerIssue(), getIssues(), getLoweredParam(),
             getLoweredGlobalParam());
}

TensorMapPlanAttr TensorMapPlanAttr::withLoweredParams(int64_t map,
                                                       int64_t global) const {
  return get(getContext(), getParam(), getGlobalArg(), getDataType(),
             getEncode(), getDimSources(), getStrideSources(),
             getStrideScales(), getBytesPerIssue(), getIssues(), map, global);
}

LogicalResult TensorMapPlanAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t param,
    int64_t globalArg, StringRef dataType, DenseI64ArrayAttr encode,
    DenseI64ArrayAttr dimSources, DenseI64ArrayAttr strideSources,
    DenseI64ArrayAttr strideScales, int64_t bytesPerIssue, int64_t issues,
    std::optional<int64_t> loweredParam,
    std::optional<int64_t> loweredGlobalParam) {
  if (param < 0 || globalArg < 0 || bytesPerIssue < 0 || issues < 0 ||
      loweredParam.value_or(0) < 0 || loweredGlobalParam.value_or(0) < 0)
    return emitError() << "tensor-map plan indices and counts must not be "
                          "negative";
  if (!cuda::dataTypeFromName(dataType))
    return emitError() << "unknown tensor-map data type \"" << dataType
                       << "\"";
  // rank, rank dims, rank - 1 strides, rank box, rank element strides, and
  // interleave, swizzle, L2 promotion, OOB fill.
  ArrayRef<int64_t> args = encode.asArrayRef();
  int64_t rank = args.empty() ? 0 : args[0];
  if (rank < 1 || rank > int64_t(cuda::kMaxTensorMapRank) ||
      int64_t(args.size()) != 4 * rank + 4)
    return emitError() << "encode must be a rank from 1 to "
                       << cuda::kMaxTensorMapRank << " and 4 * rank + 3 values";
  if (int64_t(dimSources.size()) != rank ||
      int64_t(strideSources.size()) != rank - 1 ||
      int64_t(strideScales.size()) != rank - 1)
    return emitError() << "dim_sources needs " << rank
                       << " values and stride_sources / stride_scales "
                       << rank - 1 << " for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel attributes
//===----------------------------------------------------------------------===//

/// The kernel signature the plans index: the recorded source signature
/// once lowered, else the function's own.
static FunctionType sourceSignatureOf(Operation *op) {
  if (auto recorded = op->getAttrOfType<TypeAttr>("tile.source_signature"))
    return dyn_cast<FunctionType>(recorded.getValue());
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    return dyn_cast<FunctionType>(func.getFunctionType());
  return {};
}

/// Each plan's `param` is a pointer argument and its `global_arg` a memref
/// argument of the function carrying it.
static LogicalResult verifyTensorMapArguments(Operation *op, ArrayAttr maps) {
  FunctionType signature = sourceSignatureOf(op);
  if (!signature)
    return op->emitError()
           << "'tile.tensor_maps' belongs on a function (a kernel)";
  int64_t count = signature.getNumInputs();
  for (auto map : maps.getAsRange<TensorMapPlanAttr>()) {
    if (map.getParam() >= count || map.getGlobalArg() >= count)
      return op->emitError()
             << "tensor-map plan names argument "
             << std::max(map.getParam(), map.getGlobalArg()) << " of a "
             << count << "-argument kernel";
    if (!isa<LLVM::LLVMPointerType>(signature.getInput(map.getParam())))
      return op->emitError() << "tensor-map plan parameter " << map.getParam()
                             << " is not an !llvm.ptr argument";
    if (!isa<MemRefType>(signature.getInput(map.getGlobalArg())))
      return op->emitError() << "tensor-map plan global_arg "
                             << map.getGlobalArg() << " is not a memref";
  }
  return success();
}

/// `tile.sample_value` gives an integer kernel argument the value the
/// kernel checks' pipeline simulation uses for it (a split-K part count):
/// an integer attribute on an integer or index argument.
/// `tile.sample_contents` gives a 1-D integer memref argument the elements
/// the simulation reads from it (sequence offsets, expert counts): a
/// non-empty array<i64>, as long as a static size says.
/// `tile.base_alignment` promises that a global memref argument's base
/// address is a multiple of that many bytes (a power of two, 1 to 256):
/// register-tile loads and stores through it may then move vectors, and
/// the launch checks the promise.
LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned region,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != "tile.sample_value" && name != "tile.sample_contents" &&
      name != kBaseAlignmentAttr)
    return success();
  // The signature's type (a declaration has no entry block).
  Type type;
  if (auto function = dyn_cast<FunctionOpInterface>(op)) {
    if (argIndex < function.getNumArguments())
      type = function.getArgumentTypes()[argIndex];
  } else if (op->getRegion(region).getNumArguments() > argIndex) {
    type = op->getRegion(region).getArgument(argIndex).getType();
  }
  if (name == kBaseAlignmentAttr) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    auto memref = dyn_cast_or_null<MemRefType>(type);
    if (!bytes || !bytes.getType().isInteger(64) || bytes.getInt() < 1 ||
        bytes.getInt() > 256 || !llvm::isPowerOf2_64(bytes.getInt()) ||
        !memref || !isGlobalMemorySpace(memref.getMemorySpace()))
      return op->emitError()
             << "'" << kBaseAlignmentAttr << "' on argument " << argIndex
             << " must be an i64 power of two from 1 to 256 on a global "
                "memref";
    // Only a launch checks the promise.
    if (op->getName().getStringRef() != "gpu.func" ||
        !op->hasAttr("gpu.kernel"))
      return op->emitError()
             << "'" << kBaseAlignmentAttr << "' on argument " << argIndex
             << " is a promise the launch checks: only a gpu.func kernel's "
                "argument may carry it";
    return success();
  }
  if (name == "tile.sample_contents") {
    auto contents = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    auto memref = dyn_cast_or_null<MemRefType>(type);
    if (!contents || contents.empty() || !memref || memref.getRank() != 1 ||
        !memref.getElementType().isIntOrIndex())
      return op->emitError() << "'tile.sample_contents' on argument "
                             << argIndex
                             << " must be a non-empty array<i64> on a 1-D "
                                "memref of integers";
    if (!memref.isDynamicDim(0) && memref.getDimSize(0) != contents.size())
      return op->emitError()
             << "'tile.sample_contents' on argument " << argIndex << " has "
             << contents.size() << " elements; the memref has "
             << memref.getDimSize(0);
    return success();
  }
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || !value.getType().isSignlessIntOrIndex() ||
      value.getValue().getSignificantBits() > 64 || !type ||
      !type.isIntOrIndex())
    return op->emitError() << "'tile.sample_value' on argument " << argIndex
                           << " must be an integer attribute on an integer "
                              "or index argument (signless, 64 bits at most)";
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto arrayOf = [&](auto tag, StringRef what) -> LogicalResult {
    using AttrT = decltype(tag);
    auto array = dyn_cast<ArrayAttr>(attr.getValue());
    if (!array || !llvm::all_of(array, [](Attribute a) { return isa<AttrT>(a); }))
      return op->emitError() << "'" << name << "' must be an array of " << what;
    return success();
  };
  if (name == "tile.tensor_maps") {
    if (failed(arrayOf(TensorMapPlanAttr(), "#tile.tensor_map_plan")))
      return failure();
    return verifyTensorMapArguments(op, cast<ArrayAttr>(attr.getValue()));
  }
  if (name == "tile.dispatch")
    return arrayOf(DispatchRecordAttr(), "#tile.dispatch_record");
  if (name == "tile.source_signature") {
    auto type = dyn_cast<TypeAttr>(attr.getValue());
    if (!type || !isa<FunctionType>(type.getValue()))
      return op->emitError() << "'" << name << "' must be a function type";
    return success();
  }
  if (name == "tile.sample_grid") {
    auto grid = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' belongs on a kernel function";
    if (!grid || grid.size() != 3 || grid[0] < 1 || grid[0] > INT32_MAX ||
        grid[1] < 1 || grid[1] > 65535 || grid[2] < 1 || grid[2] > 65535)
      return op->emitError() << "'" << name
                             << "' must be three grid sizes, x in [1, 2^31 - 1] "
                                "and y, z in [1, 65535]: array<i64: x, y, z>";
    // A malformed known_cluster_size is its own verifier's to report.
    if (auto cluster = op->getAttrOfType<DenseI32ArrayAttr>(
            "known_cluster_size");
        cluster && cluster.size() == 3)
      for (auto [n, c] : llvm::zip(grid.asArrayRef(), cluster.asArrayRef()))
        if (c > 0 && n % c)
          return op->emitError()
                 << "'" << name << "' must be a whole number of clusters ("
                 << "known_cluster_size " << cluster[0] << "x" << cluster[1]
                 << "x" << cluster[2] << ")";
    return success();
  }
  if (name == "tile.sample_sizes") {
    auto sizes = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' belongs on a kernel function";
    if (!sizes || sizes.empty() || sizes.size() > 4 ||
        llvm::any_of(sizes.asArrayRef(),
                     [](int64_t s) { return s < 1 || s > 65536; }))
      return op->emitError() << "'" << name
                             << "' must be one to four sample sizes in [1, "
                                "65536]: array<i64: ...>";
    return success();
  }
  if (name == "tile.version_of") {
    auto of = dyn_cast<StringAttr>(attr.getValue());
    auto symbol = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!of || of.getValue().empty())
      return op->emitError() << "'" << name
                             << "' must name the kernel this one is a version "
                                "of (a non-empty string)";
    if (symbol && symbol == of)
      return op->emitError() << "'" << name << "' names the kernel itself";
    return success();
  }
  if (name == "tile.arg_alignment") {
    auto array = dyn_cast<ArrayAttr>(attr.getValue());
    auto wellFormed = [](Attribute a) {
      auto d = dyn_cast<DictionaryAttr>(a);
      auto arg = d ? d.getAs<IntegerAttr>("arg") : IntegerAttr();
      auto bytes = d ? d.getAs<IntegerAttr>("bytes") : IntegerAttr();
      auto dims = d ? d.getAs<DenseI64ArrayAttr>("strides") : DenseI64ArrayAttr();
      return arg && bytes && d.getAs<StringAttr>("by") && dims &&
             arg.getInt() >= 0 && bytes.getInt() > 0 &&
             bytes.getInt() <= INT32_MAX &&
             llvm::isPowerOf2_64(bytes.getInt()) &&
             llvm::all_of(dims.asArrayRef(), [](int64_t x) { return x >= 0; });
    };
    if (!array || !llvm::all_of(array, wellFormed))
      return op->emitError()
             << "'" << name
             << "' must be an array of {arg, bytes (a power of two), by, "
                "strides (dims)}";
    return success();
  }
  // Other tile.* attributes (tile attribute values carried on any op) are
  // the user's.
  return success();
}

//===- TileComputeOps.cpp - verifiers of tile.map / reduce / convert ------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the ops mean on their own (shapes, types, the region's signature).
// Whether the layouts let a thread compute what it holds is the dispatch's
// question (lib/Variants/CUDA/Local), answered with the rule that failed.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tile;

/// Floats of 8 bits or fewer have no arithmetic: they are converted.
static bool isNarrowFloat(Type type) {
  return isa<FloatType>(type) && type.getIntOrFloatBitWidth() <= 8;
}

/// Why registers of `type` cannot be computed on, or "": floats other than
/// tf32 (an MMA operand format LLVM has no type for) and signless integers
/// (the ops' integer semantics are those of arith: signless).
static std::string computeTypeProblem(Type type) {
  if (isa<FloatTF32Type>(type))
    return "tf32 is an MMA operand format with no arithmetic; compute in f32";
  if (auto i = dyn_cast<IntegerType>(type); i && !i.isSignless())
    return "signed and unsigned integer types have no arithmetic here; use "
           "the signless type of the same width";
  return "";
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  for (auto [i, d] : llvm::enumerate(shape))
    text += (i ? "x" : "") + std::to_string(d);
  return text;
}

LogicalResult MapOp::verify() {
  BufferType out = getOutputType();
  if (std::string why = computeTypeProblem(out.getElementType()); !why.empty())
    return emitOpError("output: ") << why;
  for (auto [k, input] : llvm::enumerate(getInputs()))
    if (std::string why = computeTypeProblem(
            cast<BufferType>(input.getType()).getElementType());
        !why.empty())
      return emitOpError("input ") << k << ": " << why;
  if (isNarrowFloat(out.getElementType()))
    return emitOpError("computes ")
           << out.getElementType()
           << " elements; floats of 8 bits or fewer have no arithmetic: "
              "compute in a wider type and tile.convert to it";
  for (auto [k, input] : llvm::enumerate(getInputs())) {
    auto type = cast<BufferType>(input.getType());
    if (isNarrowFloat(type.getElementType()))
      return emitOpError("input ")
             << k << " has " << type.getElementType()
             << " elements; floats of 8 bits or fewer have no arithmetic: "
                "tile.convert them to a wider type first";
    if (type.getRank() != out.getRank())
      return emitOpError("input ")
             << k << " has rank " << type.getRank() << ", the output "
             << out.getRank()
             << "; broadcast dims keep their place with extent 1";
    for (unsigned d = 0; d < out.getRank(); ++d)
      if (type.getShape()[d] != out.getShape()[d] && type.getShape()[d] != 1)
        return emitOpError("input ")
               << k << " of shape " << shapeText(type.getShape())
               << " does not broadcast to the output's "
               << shapeText(out.getShape()) << ": dim " << d << " is "
               << type.getShape()[d] << ", neither "
               << out.getShape()[d] << " nor 1";
  }
  if (Value guard = getGuard()) {
    auto type = cast<BufferType>(guard.getType());
    if (!type.getElementType().isInteger(1))
      return emitOpError("the `where` guard has ")
             << type.getElementType() << " elements; it is a tile of i1";
    if (type.getRank() != out.getRank())
      return emitOpError("the `where` guard has rank ")
             << type.getRank() << ", the output " << out.getRank()
             << "; broadcast dims keep their place with extent 1";
    for (unsigned d = 0; d < out.getRank(); ++d)
      if (type.getShape()[d] != out.getShape()[d] && type.getShape()[d] != 1)
        return emitOpError("the `where` guard of shape ")
               << shapeText(type.getShape())
               << " does not broadcast to the output's "
               << shapeText(out.getShape()) << ": dim " << d << " is "
               << type.getShape()[d] << ", neither " << out.getShape()[d]
               << " nor 1";
    if (guard == getOutput())
      return emitOpError("the `where` guard is the output itself; an "
                         "element's guard would change with it");
  }
  return success();
}

LogicalResult MapOp::verifyRegions() {
  Block &body = getBody().front();
  BufferType out = getOutputType();
  const size_t inputs = getInputs().size();
  if (body.getNumArguments() != inputs + out.getRank())
    return emitOpError("region takes ")
           << body.getNumArguments() << " arguments; it takes one element per "
           << "input (" << inputs << ") and one index per dim ("
           << out.getRank() << ")";
  for (auto [k, input] : llvm::enumerate(getInputs())) {
    Type element = cast<BufferType>(input.getType()).getElementType();
    if (body.getArgument(k).getType() != element)
      return emitOpError("region argument ")
             << k << " is " << body.getArgument(k).getType() << ", input " << k
             << "'s element type is " << element;
  }
  for (size_t d = 0; d < size_t(out.getRank()); ++d)
    if (!body.getArgument(inputs + d).getType().isIndex())
      return emitOpError("region argument ")
             << inputs + d << " is the coordinate along dim " << d
             << " and must be index, not "
             << body.getArgument(inputs + d).getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("region must end with tile.yield");
  if (yield.getValue().getType() != out.getElementType())
    return yield.emitOpError("yields ")
           << yield.getValue().getType() << "; the output's elements are "
           << out.getElementType();
  // The region is run once per element by each thread, in registers: ops
  // with memory effects or nested regions have no meaning there.
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions())
      return op.emitOpError("inside tile.map: the region holds scalar ops "
                            "without regions (use arith.select for a "
                            "condition)");
    if (!isMemoryEffectFree(&op))
      return op.emitOpError("inside tile.map has memory effects; the region "
                            "computes one element from scalars");
  }
  return success();
}

LogicalResult ReduceOp::verify() {
  BufferType in = getInput().getType(), out = getOutput().getType();
  Type element = in.getElementType();
  if (out.getElementType() != element)
    return emitOpError("reduces ")
           << element << " elements into " << out.getElementType()
           << "; tile.convert before or after";
  bool isFloat = isa<FloatType>(element);
  if (std::string why = computeTypeProblem(element); !why.empty())
    return emitOpError(why);
  if (isNarrowFloat(element))
    return emitOpError("reduces ")
           << element << " elements; floats of 8 bits or fewer have no "
                         "arithmetic";
  switch (getKind()) {
  case ReduceKind::add:
  case ReduceKind::max:
  case ReduceKind::min:
    break;
  case ReduceKind::and_:
  case ReduceKind::or_:
  case ReduceKind::xor_:
    if (isFloat)
      return emitOpError("'")
             << stringifyReduceKind(getKind()) << "' reduces integers, not "
             << element;
    break;
  default:
    return emitOpError("reduces with add, max, min, and, or or xor, not '")
           << stringifyReduceKind(getKind()) << "'";
  }
  if (in.getRank() != out.getRank())
    return emitOpError("output has rank ")
           << out.getRank() << ", the input " << in.getRank()
           << "; reduced dims keep their place with extent 1";
  ArrayRef<int64_t> dims = getDims();
  if (dims.empty())
    return emitOpError("reduces along no dim");
  llvm::SmallVector<bool, 4> reduced(in.getRank(), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= int64_t(in.getRank()))
      return emitOpError("dim ") << d << " is not a dim of the rank-"
                                 << in.getRank() << " input";
    if (reduced[d])
      return emitOpError("dim ") << d << " is reduced twice";
    reduced[d] = true;
  }
  for (unsigned d = 0; d < in.getRank(); ++d) {
    int64_t expected = reduced[d] ? 1 : in.getShape()[d];
    if (out.getShape()[d] != expected)
      return emitOpError("output shape ")
             << shapeText(out.getShape()) << " should be "
             << shapeText(in.getShape()) << " with the reduced dims of "
             << "extent 1: dim " << d << " is " << out.getShape()[d]
             << ", expected " << expected;
  }
  return success();
}

LogicalResult ConvertOp::verify() {
  BufferType src = getSource().getType(), dst = getResult().getType();
  if (src.getShape() != dst.getShape())
    return emitOpError("converts a ")
           << shapeText(src.getShape()) << " tile into a "
           << shapeText(dst.getShape()) << " one; shapes must match";
  Type from = src.getElementType(), to = dst.getElementType();
  for (Type t : {from, to})
    if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
      return emitOpError(computeTypeProblem(t));
  if (from != to && !(isa<FloatType>(from) && isa<FloatType>(to)))
    return emitOpError("converts ")
           << from << " into " << to
           << "; only floats convert (to another float type)";
  if (getSource() == getResult())
    return emitOpError("converts a tile into itself");
  return success();
}

//===- LocalAccess.cpp - addressing a register tile's elements in memory --===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LocalAccess.h"

#include "tile/Dispatch/KernelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <numeric>

using namespace mlir;

namespace tile::local {

/// The widest vector store (in elements) that can start at element `i` of
/// a store plan: consecutive registers going to consecutive offsets, the
/// offset and the runtime base aligned to the width, at most 16 bytes and
/// inside one chunk the swizzle keeps whole.
int64_t vectorWidth(const LocalElements &local,
                           const LocalAccessPlan &plan, size_t i,
                           int64_t baseAlignment, int64_t bufferAlignment,
                           unsigned bits) {
  int64_t limit = std::min<int64_t>(128 / bits, bufferAlignment * 8 / bits);
  if (!plan.swizzle.isIdentity())
    limit = std::min<int64_t>(limit, int64_t(1) << plan.swizzle.base);
  int64_t width = 1;
  for (int64_t w = 2; w <= limit; w *= 2) {
    if (i + w > local.elements.size() || plan.elementOffset[i] % w ||
        (baseAlignment && baseAlignment % w))
      break;
    bool run = true;
    for (int64_t k = 1; k < w && run; ++k)
      run = local.elements[i + k].reg == local.elements[i].reg + k &&
            plan.elementOffset[i + k] == plan.elementOffset[i] + k;
    if (!run)
      break;
    width = w;
  }
  return width;
}

namespace {
/// A power of two `value` is known to be a multiple of (0: it is 0), from
/// constants, their products, sums and casts; capped, since no alignment
/// needs more. Only the power-of-two part of a constant counts, so the cap
/// never claims a factor the value lacks.
int64_t knownMultiple(Value value, int depth = 0) {
  constexpr int64_t kCap = int64_t(1) << 20;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    if (constant.isZero())
      return 0;
    return int64_t(1) << std::min<unsigned>(constant.countr_zero(), 20);
  }
  Operation *op = value.getDefiningOp();
  if (!op || depth > 16)
    return 1;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp>(op))
    return knownMultiple(op->getOperand(0), depth + 1);
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return std::gcd(knownMultiple(op->getOperand(0), depth + 1),
                    knownMultiple(op->getOperand(1), depth + 1));
  if (isa<arith::MulIOp>(op)) {
    int64_t a = knownMultiple(op->getOperand(0), depth + 1);
    int64_t b = knownMultiple(op->getOperand(1), depth + 1);
    if (!a || !b)
      return 0;
    return a > kCap / b ? kCap : a * b;
  }
  return 1;
}
} // namespace

ThreadBase threadBase(OpBuilder &b, Location loc,
                             const LocalAccessPlan &plan,
                             const LocalElements &local, size_t lead,
                             ArrayRef<int64_t> staticOffsets,
                             ValueRange dynamic, Value thread) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  ThreadBase base;
  auto add = [&](Value v, int64_t step) {
    base.offset = base.offset ? LLVM::AddOp::create(b, loc, base.offset, v)
                              : v;
    base.alignment = std::gcd(base.alignment, step);
  };
  size_t next = 0;
  for (auto [d, offset] : llvm::enumerate(staticOffsets)) {
    if (!ShapedType::isDynamic(offset))
      continue;
    // A runtime offset known to be a multiple of k (a tile index times
    // its size) keeps k strides of alignment: the epilogue's stores at
    // (m0 + row, n0 + col) stay vectors. No vector needs more than 64
    // elements of it (a power of two dividing k, and no overflow).
    Value runtime = dynamic[next++];
    int64_t multiple = std::min<int64_t>(knownMultiple(runtime), 64);
    Value index = arith::IndexCastOp::create(b, loc, i64, runtime);
    add(LLVM::MulOp::create(b, loc, index, constant(plan.runtimeStride[d])),
        multiple ? plan.runtimeStride[d] * multiple : 0);
  }
  if (!local.threadIters.empty()) {
    if (!thread) {
      Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
      thread = LLVM::ZExtOp::create(b, loc, i64, tid);
    }
    for (auto [i, t] : llvm::enumerate(local.threadIters)) {
      // digit = (thread / stride) % extent; the group (warp or warpgroup)
      // is a power of two, so this also drops the group id.
      Value digit =
          LLVM::UDivOp::create(b, loc, thread, constant(t.threadStride));
      digit = LLVM::URemOp::create(b, loc, digit, constant(t.extent));
      int64_t step = plan.threadStep[i];
      add(LLVM::MulOp::create(b, loc, digit, constant(step)), step);
    }
  }
  return base;
}

/// The address of element run `i` of a plan: base + its constant offset,
/// through the buffer's swizzle (x ^ ((x & mask) >> shift)).
Value elementAddress(OpBuilder &b, Location loc, const ThreadBase &base,
                            const LocalAccessPlan &plan, size_t i,
                            Value buffer, Type element) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value at = constant(plan.elementOffset[i]);
  if (base.offset)
    at = LLVM::AddOp::create(b, loc, base.offset, at);
  return swizzledAddress(b, loc, at, plan.swizzle, buffer, element);
}

/// buffer + swizzle(at) elements (x ^ ((x & mask) >> shift)).
Value swizzledAddress(OpBuilder &b, Location loc, Value at,
                             const Swizzle &swizzle, Value buffer,
                             Type element) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  if (!swizzle.isIdentity()) {
    int64_t mask = ((int64_t(1) << swizzle.bits) - 1)
                   << (swizzle.base + swizzle.shift);
    Value bits = LLVM::AndOp::create(b, loc, at, constant(mask));
    Value shift = constant(swizzle.shift);
    Value moved = LLVM::LShrOp::create(b, loc, bits, shift);
    at = LLVM::XOrOp::create(b, loc, at, moved);
  }
  return LLVM::GEPOp::create(b, loc, buffer.getType(), element, buffer,
                             ArrayRef<LLVM::GEPArg>{at});
}

/// What a vector access may assume of `memory`'s base address: a shared
/// allocation's alignment, else only the element's.
int64_t bufferAlignment(Value memory, BufferType type) {
  if (auto alloc = memory.getDefiningOp<AllocSharedOp>())
    return alloc.getEffectiveAlignment();
  int64_t element = std::max(1u, type.getElementBits() / 8);
  if (std::optional<DeclaredAlignment> declared = declaredAlignment(memory))
    return std::max(element, declared->bytes);
  return element;
}

std::optional<DeclaredAlignment> declaredAlignment(Value memory) {
  auto from = memory.getDefiningOp<FromMemrefOp>();
  if (!from)
    return std::nullopt;
  Value source = from.getSource();
  auto type = cast<MemRefType>(source.getType());
  int64_t offsetElements = 0;
  if (auto view = source.getDefiningOp<memref::ReinterpretCastOp>()) {
    OpFoldResult offset = view.getMixedOffsets().front();
    if (auto attr = dyn_cast<Attribute>(offset))
      offsetElements = cast<IntegerAttr>(attr).getInt();
    else
      offsetElements = knownMultiple(cast<Value>(offset));
    source = view.getSource();
    auto viewed = dyn_cast<MemRefType>(source.getType());
    if (!viewed)
      return std::nullopt;
    type = viewed;
  }
  auto arg = dyn_cast<BlockArgument>(source);
  auto function =
      arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
          : FunctionOpInterface();
  // A kernel's argument: the launch checks the promise (a device
  // function's caller does not).
  if (!function || !function->hasAttr("gpu.kernel") ||
      arg.getOwner() != &function.getFunctionBody().front() ||
      !type.getLayout().isIdentity() || type.getElementTypeBitWidth() % 8)
    return std::nullopt;
  auto promise = function.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                        kBaseAlignmentAttr);
  if (!promise || promise.getInt() < 1)
    return std::nullopt;
  int64_t bytes = promise.getInt();
  if (offsetElements)
    bytes = std::gcd(bytes, (offsetElements & -offsetElements) *
                                int64_t(type.getElementTypeBitWidth() / 8));
  return DeclaredAlignment{arg, bytes, promise.getInt()};
}

LogicalResult requireDeclaredAlignment(Operation *op, Value memory,
                                       dispatch::KernelABI &abi,
                                       StringRef by) {
  std::optional<DeclaredAlignment> declared = declaredAlignment(memory);
  if (!declared)
    return success();
  return abi.requireAlignment(op, declared->arg, declared->declared, by, {});
}

/// A float value converted to `to` (rounded to nearest even when narrower;
/// bf16 <-> f16 through f32, neither holds the other).
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth()) {
    v = LLVM::FPExtOp::create(b, loc, b.getF32Type(), v);
    return LLVM::FPTruncOp::create(b, loc, to, v);
  }
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return LLVM::FPTruncOp::create(b, loc, to, v);
  return LLVM::FPExtOp::create(b, loc, to, v);
}

/// The stmatrix request of a store (stmatrix::Request): every thread's
/// element offsets (its digits plus the plan's constants), what the
/// runtime base is a multiple of (the buffer's alignment, the runtime
/// offsets' strides), the swizzle's chunk.
stmatrix::Request matrixRequest(BufferType src, BufferType dst,
                                ArrayRef<int64_t> staticOffsets,
                                const LocalAccessPlan &plan,
                                const LocalElements &local, int64_t threads,
                                int64_t alignment) {
  stmatrix::Request req;
  req.bits = dst.getElementBits();
  req.offset.assign(threads, {});
  for (int64_t t = 0; t < threads; ++t) {
    int64_t digits = 0;
    for (auto [i, it] : llvm::enumerate(local.threadIters))
      digits += (t / it.threadStride) % it.extent * plan.threadStep[i];
    for (int64_t offset : plan.elementOffset)
      req.offset[t].push_back(digits + offset);
  }
  req.baseAlignment = std::max<int64_t>(1, alignment * 8 / req.bits);
  for (auto [d, offset] : llvm::enumerate(staticOffsets))
    if (ShapedType::isDynamic(offset))
      req.baseAlignment = std::gcd(req.baseAlignment, plan.runtimeStride[d]);
  req.swizzleChunk =
      plan.swizzle.isIdentity() ? 0 : int64_t(1) << plan.swizzle.base;
  return req;
}


MatrixRowAddresses::MatrixRowAddresses(
    OpBuilder &b, Location loc, const stmatrix::Plan &matrices,
    const LocalAccessPlan &plan, const LocalElements &local, size_t lead,
    ArrayRef<int64_t> staticOffsets, ValueRange dynamicOffsets, Value memory,
    Type element)
    : b(b), loc(loc), plan(plan), memory(memory), element(element) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value tid = LLVM::ZExtOp::create(b, loc, i64,
                                   NVVM::ThreadIdXOp::create(b, loc, i32));
  Value warp = LLVM::AndOp::create(b, loc, tid, constant(~int64_t(31)));
  Value x = LLVM::AndOp::create(b, loc, tid, constant(7));
  Value lanePart =
      matrices.transpose
          ? LLVM::LShrOp::create(b, loc, x, constant(1)).getResult()
          : LLVM::ShlOp::create(b, loc, x, constant(2)).getResult();
  Value rowThread = LLVM::AddOp::create(b, loc, warp, lanePart);
  base = threadBase(b, loc, plan, local, lead, staticOffsets, dynamicOffsets,
                    rowThread);
  // Lane bits the row constants step on, extracted once.
  for (int bit = 0; bit < 5; ++bit) {
    bool used = llvm::any_of(matrices.instructions, [&](const auto &instr) {
      return instr.laneBitStep[bit] != 0;
    });
    if (!used)
      continue;
    Value shifted = LLVM::LShrOp::create(b, loc, tid, constant(bit));
    laneBit[bit] = LLVM::AndOp::create(b, loc, shifted, constant(1));
  }
}

Value MatrixRowAddresses::at(const stmatrix::Instruction &instr) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value offset = constant(instr.rowBase);
  for (int bit = 0; bit < 5; ++bit)
    if (instr.laneBitStep[bit])
      offset = LLVM::AddOp::create(
          b, loc, offset,
          LLVM::MulOp::create(b, loc, laneBit[bit],
                              constant(instr.laneBitStep[bit])));
  if (base.offset)
    offset = LLVM::AddOp::create(b, loc, base.offset, offset);
  return swizzledAddress(b, loc, offset, plan.swizzle, memory, element);
}

} // namespace tile::local

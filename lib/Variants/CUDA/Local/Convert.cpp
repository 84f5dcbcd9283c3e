//===- Convert.cpp - the `registers` variant of tile.convert --------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every thread already holds what it needs: each result register is a
// source register (fixed for all threads), converted. Result registers
// 2p, 2p + 1 converted from f32 together are one packed instruction
// (cvt.rn.bf16x2.f32, cvt.rn.f16x2.f32, cvt.rn.satfinite.{e4m3,e5m2}x2.f32);
// a same-type conversion is a register renaming (no instruction once LLVM
// promotes the registers). warp_shuffle reads each result register from
// one source register of another lane of the warp (shfl.sync.idx, the
// lane computed from the thread's lane bits; .bfly for a constant xor),
// then converts the same way. shared_memory takes what crosses warps: each
// source element is written once to the kernel's shared scratch (by the
// holder without replica bits), the warpgroup meets at its named barrier,
// every thread reads its result elements and converts them as above; a
// second barrier frees the scratch.
//
//===----------------------------------------------------------------------===//

#include "LocalAccess.h"
#include "LocalCommon.h"
#include "SharedScratch.h"

#include "tile/Dispatch/VariantDecl.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using namespace tile::local;

namespace {

bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// fp8 values have no arithmetic in registers: converting out of fp8 is
/// not offered, into fp8 needs the packed cvt of sm_89+.
Verdict supportedConversion(ConvertOp op, const DispatchContext &context) {
  Type from = op.getSource().getType().getElementType();
  Type to = op.getResult().getType().getElementType();
  if (from == to)
    return Verdict::success();
  if (isa<FloatTF32Type>(from) || isa<FloatTF32Type>(to))
    return Verdict::failure("tf32 is an MMA operand format with no "
                            "conversion in registers; load or store f32");
  if (isa<FloatType>(from) && from.getIntOrFloatBitWidth() <= 8)
    return Verdict::failure("converting from " + typeName(from) +
                            " in registers is not offered (fp8 operands "
                            "are read by the MMAs from shared memory)");
  if (isa<FloatType>(to) && to.getIntOrFloatBitWidth() <= 8 && !isFp8(to))
    return Verdict::failure("no conversion into " + typeName(to));
  if (isFp8(to) && from.getIntOrFloatBitWidth() > 32)
    return Verdict::failure("converting " + typeName(from) + " to " +
                            typeName(to) +
                            " would round twice (through f32); convert to "
                            "f32 first");
  if (isFp8(to) && context.target.sm < 89)
    return Verdict::failure("cvt to " + typeName(to) + " needs sm_89+, not " +
                            context.target.chip);
  return Verdict::success();
}

/// `plan(source table, result table)`, or why a table cannot be built.
template <typename PlanT, typename Planner>
OrReason<PlanT> withTables(ConvertOp op, Planner plan) {
  using R = OrReason<PlanT>;
  OrReason<RegisterTable> source = tableOf(op.getSource().getType());
  if (!source)
    return R::failure("source: " + source.reason());
  OrReason<RegisterTable> result = tableOf(op.getResult().getType());
  if (!result)
    return R::failure("result: " + result.reason());
  return plan(*source, *result);
}

OrReason<ConvertPlan> planConvertOp(ConvertOp op, const DispatchContext &) {
  return withTables<ConvertPlan>(op, planRegisterConvert);
}

Value toF32(OpBuilder &b, Location loc, Value v) {
  return convertFloat(b, loc, v, b.getF32Type());
}

/// Two f32 values converted by one packed cvt, as the two result-typed
/// values (low: `lo`, from register 2p; high: `hi`).
std::pair<Value, Value> convertPair(OpBuilder &b, Location loc, Value lo,
                                    Value hi, Type to) {
  if (isFp8(to)) {
    // a -> bits 15..8, b -> bits 7..0.
    Value packed = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, b.getI16Type(), toF32(b, loc, hi), toF32(b, loc, lo),
        NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
        /*relu=*/false, to);
    Type i8 = b.getI8Type();
    Value low = LLVM::TruncOp::create(b, loc, i8, packed);
    Value high = LLVM::TruncOp::create(
        b, loc, i8,
        LLVM::LShrOp::create(b, loc, packed,
                             LLVM::ConstantOp::create(
                                 b, loc, b.getI16Type(),
                                 b.getI16IntegerAttr(8))));
    return {low, high};
  }
  auto vectorType = VectorType::get({2}, to);
  Value packed;
  if (to.isBF16())
    packed = NVVM::ConvertF32x2ToBF16x2Op::create(
        b, loc, vectorType, toF32(b, loc, hi), toF32(b, loc, lo), Value(),
        NVVM::FPRoundingMode::RN, NVVM::SaturationMode::NONE, false);
  else
    packed = NVVM::ConvertF32x2ToF16x2Op::create(
        b, loc, vectorType, toF32(b, loc, hi), toF32(b, loc, lo), Value(),
        NVVM::FPRoundingMode::RN, NVVM::SaturationMode::NONE, false);
  Type i32 = b.getI32Type();
  auto lane = [&](int64_t i) -> Value {
    return LLVM::ExtractElementOp::create(
        b, loc, packed,
        LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(i)));
  };
  return {lane(0), lane(1)};
}

/// Whether result registers of `to` converted from `from` go in pairs.
bool packs(Type from, Type to) {
  if (from == to || !isa<FloatType>(from) || from.getIntOrFloatBitWidth() < 32)
    return false;
  return from.isF32() && (to.isBF16() || to.isF16() || isFp8(to));
}

/// Stores result register `r` of each (r, value) in `moves` (ascending r),
/// converted; f32 pairs (2p, 2p + 1) by one packed cvt.
void storeConverted(ConvertOp op, ArrayRef<std::pair<int64_t, Value>> moves,
                    const LocalTileAccess &result, RewriterBase &rewriter) {
  Location loc = op.getLoc();
  Type from = op.getSource().getType().getElementType();
  Type to = op.getResult().getType().getElementType();
  const bool paired = packs(from, to);
  for (size_t i = 0; i < moves.size(); ++i) {
    auto [r, v] = moves[i];
    if (paired && r % 2 == 0 && i + 1 < moves.size() &&
        moves[i + 1].first == r + 1) {
      auto [a, b] = convertPair(rewriter, loc, v, moves[i + 1].second, to);
      result.store(rewriter, loc, a, r);
      result.store(rewriter, loc, b, r + 1);
      ++i;
      continue;
    }
    if (from == to) {
      // A renaming: the register as it is (fp8 registers are integers).
    } else if (isFp8(to)) {
      // The unpaired element alone: the low byte of a packed cvt.
      Value zero = LLVM::ConstantOp::create(rewriter, loc, rewriter.getF32Type(),
                                            rewriter.getF32FloatAttr(0));
      v = convertPair(rewriter, loc, v, zero, to).first;
    } else if (from != to) {
      v = convertFloat(rewriter, loc, v, to);
    }
    result.store(rewriter, loc, v, r);
  }
}

LogicalResult emitConvert(ConvertOp op, const ConvertPlan &plan,
                          ValueRange lowered, const DispatchContext &,
                          RewriterBase &rewriter) {
  LocalTileAccess source(lowered[0], op.getSource().getType());
  LocalTileAccess result(lowered[1], op.getResult().getType());
  SmallVector<std::pair<int64_t, Value>> moves;
  for (auto [r, s] : plan.moves)
    moves.push_back({r, source.load(rewriter, op.getLoc(), s)});
  storeConverted(op, moves, result, rewriter);
  return success();
}

//===----------------------------------------------------------------------===//
// warp_shuffle
//===----------------------------------------------------------------------===//

Verdict elementAtMost32Bit(ConvertOp op, const DispatchContext &) {
  Type element = op.getSource().getType().getElementType();
  if (element.getIntOrFloatBitWidth() <= 32)
    return Verdict::success();
  return Verdict::failure("shfl.sync moves 32-bit words; the elements are " +
                          typeName(element));
}

OrReason<ShuffleConvertPlan> planShuffleConvertOp(ConvertOp op,
                                                  const DispatchContext &) {
  return withTables<ShuffleConvertPlan>(op, planShuffleConvert);
}

/// `v` (a register of the source, at most 32 bits) as lane `lane` holds
/// it: one shfl.sync (idx, or bfly by a constant).
Value shuffled(OpBuilder &b, Location loc, Value v, Value lane, bool bfly) {
  Type i32 = b.getI32Type();
  Type type = v.getType();
  Value word = v;
  if (!type.isF32() && !type.isInteger(32)) {
    unsigned bits = type.getIntOrFloatBitWidth();
    if (!type.isInteger(bits))
      word = LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), word);
    word = LLVM::ZExtOp::create(b, loc, i32, word);
  }
  auto constant = [&](int64_t c) -> Value {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(c));
  };
  Value out = NVVM::ShflOp::create(
      b, loc, word.getType(), constant(-1), word, lane, constant(0x1f),
      bfly ? NVVM::ShflKind::bfly : NVVM::ShflKind::idx, UnitAttr());
  if (out.getType() == type)
    return out;
  unsigned bits = type.getIntOrFloatBitWidth();
  out = LLVM::TruncOp::create(b, loc, b.getIntegerType(bits), out);
  if (!type.isInteger(bits))
    out = LLVM::BitcastOp::create(b, loc, type, out);
  return out;
}

LogicalResult emitShuffleConvert(ConvertOp op, const ShuffleConvertPlan &plan,
                                 ValueRange lowered, const DispatchContext &,
                                 RewriterBase &rewriter) {
  Location loc = op.getLoc();
  LocalTileAccess source(lowered[0], op.getSource().getType());
  LocalTileAccess result(lowered[1], op.getResult().getType());
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t c) -> Value {
    return LLVM::ConstantOp::create(rewriter, loc, i32,
                                    rewriter.getI32IntegerAttr(c));
  };
  // The lane's bits, once (only those an idx shuffle reads).
  Value laneBit[5];
  auto bitOf = [&](int b) {
    if (!laneBit[b]) {
      Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
      laneBit[b] = LLVM::AndOp::create(
          rewriter, loc, LLVM::LShrOp::create(rewriter, loc, tid, constant(b)),
          constant(1));
    }
    return laneBit[b];
  };
  SmallVector<std::pair<int64_t, Value>> moves;
  for (const ShuffleConvertPlan::Move &move : plan.moves) {
    Value v = source.load(rewriter, loc, move.sourceRegister);
    if (move.isButterfly()) {
      if (move.laneXor != 0)
        v = shuffled(rewriter, loc, v, constant(move.laneXor), /*bfly=*/true);
    } else {
      Value lane = constant(move.laneXor);
      for (int b = 0; b < 5; ++b) {
        if (move.laneBitColumn[b] == 0)
          continue;
        lane = LLVM::XOrOp::create(
            rewriter, loc, lane,
            LLVM::MulOp::create(rewriter, loc, bitOf(b),
                                constant(move.laneBitColumn[b])));
      }
      v = shuffled(rewriter, loc, v, lane, /*bfly=*/false);
    }
    moves.push_back({move.resultRegister, v});
  }
  storeConverted(op, moves, result, rewriter);
  return success();
}

//===----------------------------------------------------------------------===//
// shared_memory
//===----------------------------------------------------------------------===//

Verdict convertWarpgroupBlock(ConvertOp op, const DispatchContext &) {
  return warpgroupBlock(op);
}

/// The scratch holds elements at byte addresses.
Verdict wholeByteElements(ConvertOp op, const DispatchContext &) {
  Type storage =
      registerStorageType(op.getSource().getType().getElementType());
  if (storage.getIntOrFloatBitWidth() % 8 == 0)
    return Verdict::success();
  return Verdict::failure("the scratch stores whole bytes; the elements are " +
                          typeName(storage));
}

OrReason<SharedConvertPlan> planSharedConvertOp(ConvertOp op,
                                                const DispatchContext &) {
  return withTables<SharedConvertPlan>(op, planSharedConvert);
}

/// Bytes of one source element in the scratch (as its register holds it).
int64_t scratchElementBytes(ConvertOp op) {
  return registerStorageType(op.getSource().getType().getElementType())
             .getIntOrFloatBitWidth() /
         8;
}

int64_t convertScratchBytes(ConvertOp op, const SharedConvertPlan &plan) {
  int64_t perWarpgroup =
      llvm::alignTo(plan.elements * scratchElementBytes(op), 16);
  return perWarpgroup * warpgroupsOfBlock(op).value_or(1);
}

LogicalResult emitSharedConvert(ConvertOp op, const SharedConvertPlan &plan,
                                ValueRange lowered, const DispatchContext &,
                                RewriterBase &rewriter) {
  Location loc = op.getLoc();
  const int64_t bytes = scratchElementBytes(op);
  FailureOr<ScratchFrame> frame = ScratchFrame::begin(
      rewriter, op, llvm::alignTo(plan.elements * bytes, 16));
  if (failed(frame))
    return failure();
  LocalTileAccess source(lowered[0], op.getSource().getType());
  LocalTileAccess result(lowered[1], op.getResult().getType());
  SmallVector<std::pair<Value, Value>> writes; // (value, address)
  for (const AffineRegister &w : plan.writes)
    writes.push_back({source.load(rewriter, loc, w.reg),
                      frame->address(w.base, w.threadStep, bytes)});
  auto writers = scf::IfOp::create(
      rewriter, loc, frame->noBitsOf(plan.replicaBits), /*else=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&writers.getThenRegion().front());
    for (auto [v, address] : writes)
      LLVM::StoreOp::create(rewriter, loc, v, address);
  }
  frame->barrier();
  SmallVector<std::pair<int64_t, Value>> moves;
  for (const AffineRegister &r : plan.reads)
    moves.push_back(
        {r.reg, LLVM::LoadOp::create(rewriter, loc, source.storage,
                                     frame->address(r.base, r.threadStep,
                                                    bytes))});
  frame->barrier(); // the scratch is free for the next op
  llvm::sort(moves, llvm::less_first());
  storeConverted(op, moves, result, rewriter);
  return success();
}

} // namespace

void tile::local::registerConvertVariants(VariantRegistry &registry) {
  registerVariant(registry,
                  VariantDecl<ConvertOp, ConvertPlan>{
                      "registers",
                      kConvertRegistersPriority,
                      {{"supported_conversion", supportedConversion}},
                      planConvertOp,
                      /*prepare=*/nullptr,
                      emitConvert});
  registerVariant(registry,
                  VariantDecl<ConvertOp, ShuffleConvertPlan>{
                      "warp_shuffle",
                      kConvertWarpShufflePriority,
                      {{"supported_conversion", supportedConversion},
                       {"element_at_most_32_bit", elementAtMost32Bit}},
                      planShuffleConvertOp,
                      /*prepare=*/nullptr,
                      emitShuffleConvert});
  VariantDecl<ConvertOp, SharedConvertPlan> throughShared{
      "shared_memory",
      kConvertSharedMemoryPriority,
      {{"supported_conversion", supportedConversion},
       {"whole_byte_elements", wholeByteElements},
       {"warpgroup_block", convertWarpgroupBlock}},
      planSharedConvertOp,
      /*prepare=*/nullptr,
      emitSharedConvert};
  throughShared.sharedScratch = convertScratchBytes;
  registerVariant(registry, std::move(throughShared));
}

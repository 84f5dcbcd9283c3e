//===- Sanitize.cpp - runtime checks of a kernel's barrier protocol -------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// --tile-sanitize: what the kernel checks cannot decide at compile time is
// checked when the kernel runs. Each check is a site listed on its kernel
// (`tile.sanitize_checks`); a failing one calls one function per gpu.module,
// `__tile_sanitize_fail`, which claims the report, writes it to the host
// buffer named by `__tile_sanitize_report` and traps
// (tile/Manifest/SanitizeReport.h is the format).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Manifest/SanitizeReport.h"
#include "tile/Variants/CUDA/Transforms/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

namespace tile {
#define GEN_PASS_DEF_TILESANITIZE
#include "tile/Variants/CUDA/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::sanitize;

namespace {

constexpr llvm::StringLiteral kFailFunction = "__tile_sanitize_fail";

/// `file:line:col` of `loc` (the first file location inside it).
std::string fileLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" +
              std::to_string(file.getLine()) + ":" +
              std::to_string(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (text.empty()) {
    llvm::raw_string_ostream os(text);
    loc.print(os);
  }
  return text;
}

/// The index into an mbarrier group that `op` uses, if it has one.
Value barrierIndexOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<nvgpu::MBarrierInitOp, nvgpu::MBarrierArriveOp,
            nvgpu::MBarrierArriveNoCompleteOp, nvgpu::MBarrierArriveExpectTxOp,
            nvgpu::MBarrierTestWaitOp, nvgpu::MBarrierTryWaitParityOp,
            nvgpu::MBarrierGetOp>([](auto o) { return o.getMbarId(); })
      .Case<CopyAsyncOp, MmaCommitOp, MBarrierArriveRemoteOp>(
          [](auto o) { return o.getMbarIndex(); })
      .Default([](Operation *) { return Value(); });
}

Value barrierGroupOf(Operation *op) {
  for (Value operand : op->getOperands())
    if (isa<nvgpu::MBarrierGroupType>(operand.getType()))
      return operand;
  return Value();
}

/// One region of a buffer that an op reads or writes: the buffer, its
/// runtime offsets, the static ones, and the extents of the trailing dims
/// (the op verifier's rule; leading dims have extent 1).
struct Region {
  Value buffer;
  OperandRange dynamic;
  ArrayRef<int64_t> staticOffsets;
  SmallVector<int64_t> sizes;
};

SmallVector<Region> regionsOf(Operation *op) {
  SmallVector<Region> out;
  auto shape = [](Value v) {
    return SmallVector<int64_t>(cast<BufferType>(v.getType()).getShape());
  };
  if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
    SmallVector<int64_t> sizes(copy.getSizes());
    out.push_back({copy.getSrc(), copy.getSrcOffsets(),
                   copy.getSrcStaticOffsets(), sizes});
    out.push_back({copy.getDst(), copy.getDstOffsets(),
                   copy.getDstStaticOffsets(), sizes});
  } else if (auto gemm = dyn_cast<GemmAsyncOp>(op)) {
    if (gemm.getSizes().size() != 3)
      return out;
    GemmRegionSizes sizes =
        gemmRegionSizes(gemm.getSizes(), gemm.getCtaGroup().value_or(1),
                        gemm.getTransposeA(), gemm.getTransposeB());
    out.push_back({gemm.getA(), gemm.getAOffsets(), gemm.getAStaticOffsets(),
                   SmallVector<int64_t>(sizes.a.begin(), sizes.a.end())});
    out.push_back({gemm.getB(), gemm.getBOffsets(), gemm.getBStaticOffsets(),
                   SmallVector<int64_t>(sizes.b.begin(), sizes.b.end())});
    out.push_back({gemm.getC(), gemm.getCOffsets(), gemm.getCStaticOffsets(),
                   SmallVector<int64_t>(sizes.c.begin(), sizes.c.end())});
  } else if (auto load = dyn_cast<LoadOp>(op)) {
    out.push_back({load.getSrc(), load.getSrcOffsets(),
                   load.getSrcStaticOffsets(), shape(load.getDst())});
  } else if (auto store = dyn_cast<StoreOp>(op)) {
    out.push_back({store.getDst(), store.getDstOffsets(),
                   store.getDstStaticOffsets(), shape(store.getSrc())});
  }
  return out;
}

/// "nvgpu.mbarrier.init of the mbarrier group (3) at k.mlir:40:5": the op
/// and what it addresses (SSA names do not survive parsing; the defining
/// op's location does).
std::string describeOp(Operation *op, Value subject) {
  std::string text = op->getName().getStringRef().str();
  if (!subject)
    return text;
  std::string where;
  if (Operation *def = subject.getDefiningOp())
    where = " at " + fileLocation(def->getLoc());
  if (auto group = dyn_cast<nvgpu::MBarrierGroupType>(subject.getType()))
    return text + " of the mbarrier group (" +
           std::to_string(group.getNumBarriers()) + ")" + where;
  std::string shape;
  if (auto buffer = dyn_cast<BufferType>(subject.getType())) {
    for (int64_t d : buffer.getShape())
      shape += std::to_string(d) + "x";
    llvm::raw_string_ostream os(shape);
    buffer.getElementType().print(os);
  }
  return text + " of the shared buffer " + shape + where;
}

struct SanitizePass : public tile::impl::TileSanitizeBase<SanitizePass> {
  using TileSanitizeBase::TileSanitizeBase;

  void runOnOperation() override {
    if (timeoutMs == 0) {
      getOperation()->emitError()
          << "--tile-sanitize: timeout-ms must be at least 1";
      return signalPassFailure();
    }
    SmallVector<gpu::GPUModuleOp> modules;
    if (auto module = dyn_cast<gpu::GPUModuleOp>(getOperation()))
      modules.push_back(module);
    else
      getOperation()->walk(
          [&](gpu::GPUModuleOp module) { modules.push_back(module); });
    for (gpu::GPUModuleOp module : modules)
      if (failed(instrumentModule(module)))
        return signalPassFailure();
  }

private:
  /// The checks of one kernel, as they go into `tile.sanitize_checks`.
  struct Sites {
    SmallVector<Attribute> entries;

    uint32_t add(MLIRContext *ctx, CheckKind kind, Operation *op,
                 const std::string &what) {
      Builder b(ctx);
      entries.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("kind", b.getStringAttr(checkKindName(kind))),
           b.getNamedAttr("loc", b.getStringAttr(fileLocation(op->getLoc()))),
           b.getNamedAttr("what", b.getStringAttr(what))}));
      return entries.size() - 1;
    }
  };

  LogicalResult instrumentModule(gpu::GPUModuleOp module);
  void instrumentKernel(gpu::GPUFuncOp kernel, Sites &sites);
  /// Whether integer range analysis proves `value` at most `limit`
  /// (unsigned): such an index needs no runtime check.
  bool provenAtMost(Value value, int64_t limit) const;
  void checkBarrierIndex(Operation *op, Sites &sites);
  void checkRegions(Operation *op, Sites &sites);
  /// Before `op`: unsigned `index` > `last` calls the fail function with
  /// `site`, the index and `reported` (the group size, or `last`).
  void failAbove(Operation *op, Value index, int64_t last, int64_t reported,
                 uint32_t site);
  void boundWait(nvgpu::MBarrierTryWaitParityOp wait, Sites &sites);
  void callFail(OpBuilder &b, Location loc, uint32_t site, Value value0,
                Value value1, Value waitedMs);
  void addRuntimeSupport(gpu::GPUModuleOp module);

  /// The kernel's integer ranges while it is instrumented.
  DataFlowSolver *ranges = nullptr;
};

LogicalResult SanitizePass::instrumentModule(gpu::GPUModuleOp module) {
  SymbolTable symbols(module);
  for (StringRef name : {StringRef(kFailFunction),
                         StringRef(kSanitizeReportSymbol),
                         StringRef(kSanitizeClaimSymbol)})
    if (Operation *existing = symbols.lookup(name))
      return existing->emitError()
             << "'" << name
             << "' is reserved for --tile-sanitize (is the module "
                "sanitized twice?)";
  bool any = false;
  for (auto kernel : module.getOps<gpu::GPUFuncOp>()) {
    if (!kernel.isKernel())
      continue;
    Sites sites;
    instrumentKernel(kernel, sites);
    if (sites.entries.empty())
      continue;
    kernel->setAttr(kSanitizeChecksAttr,
                    ArrayAttr::get(&getContext(), sites.entries));
    any = true;
  }
  if (any)
    addRuntimeSupport(module);
  return success();
}

bool SanitizePass::provenAtMost(Value value, int64_t limit) const {
  if (!ranges || limit < 0)
    return false;
  auto *lattice =
      ranges->lookupState<dataflow::IntegerValueRangeLattice>(value);
  if (!lattice || lattice->getValue().isUninitialized())
    return false;
  const ConstantIntRanges &range = lattice->getValue().getValue();
  return range.umax().getActiveBits() <= 63 &&
         range.umax().getZExtValue() <= uint64_t(limit);
}

void SanitizePass::instrumentKernel(gpu::GPUFuncOp kernel, Sites &sites) {
  // Ranges first, on the kernel as written (stage = i mod S, thread ids
  // under known_block_size, loop bounds): what they prove is not checked.
  DataFlowSolver solver;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  ranges = succeeded(solver.initializeAndRun(kernel)) ? &solver : nullptr;
  llvm::scope_exit reset([&] { ranges = nullptr; });
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    checkBarrierIndex(op, sites);
    checkRegions(op, sites);
    if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op))
      boundWait(wait, sites);
  }
}

void SanitizePass::checkBarrierIndex(Operation *op, Sites &sites) {
  // Constant indices too: no verifier bounds them (range analysis spares
  // the ones in range).
  Value group = barrierGroupOf(op), index = barrierIndexOf(op);
  if (!group || !index)
    return;
  int64_t entries =
      cast<nvgpu::MBarrierGroupType>(group.getType()).getNumBarriers();
  if (provenAtMost(index, entries - 1))
    return;
  uint32_t site = sites.add(&getContext(), CheckKind::BarrierIndex, op,
                            describeOp(op, group));
  failAbove(op, index, entries - 1, entries, site);
}

void SanitizePass::failAbove(Operation *op, Value index, int64_t last,
                             int64_t reported, uint32_t site) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value outside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ugt, index,
      arith::ConstantIndexOp::create(b, loc, last));
  auto ifOp = scf::IfOp::create(b, loc, outside, /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto i64 = b.getI64Type();
  Value value = arith::IndexCastOp::create(b, loc, i64, index);
  Value bound = arith::ConstantIntOp::create(b, loc, i64, reported);
  Value noWait = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  callFail(b, loc, site, value, bound, noWait);
}

void SanitizePass::checkRegions(Operation *op, Sites &sites) {
  for (Region &region : regionsOf(op)) {
    auto type = cast<BufferType>(region.buffer.getType());
    if (type.getScope() != MemoryScope::shared || region.dynamic.empty())
      continue;
    size_t rank = region.staticOffsets.size();
    size_t lead = rank - std::min(rank, region.sizes.size());
    auto dynamic = region.dynamic.begin();
    for (size_t d = 0; d < rank; ++d) {
      if (!ShapedType::isDynamic(region.staticOffsets[d]))
        continue;
      Value offset = *dynamic++;
      int64_t dim = type.getShape()[d];
      int64_t extent = d < lead ? 1 : region.sizes[d - lead];
      if (ShapedType::isDynamic(dim))
        continue;
      // Unsigned: a negative offset is out of range too. A constant one is
      // checked as well (the verifier takes an SSA offset as 0).
      int64_t last = dim - extent;
      if (provenAtMost(offset, last))
        continue;
      uint32_t site = sites.add(
          &getContext(), CheckKind::SharedRegion, op,
          describeOp(op, region.buffer) + ", dim " + std::to_string(d));
      failAbove(op, offset, last, last, site);
    }
  }
}

/// The wait becomes non-blocking tests in a loop that gives up after the
/// timeout; giving up reports the barrier, its index and the parity.
void SanitizePass::boundWait(nvgpu::MBarrierTryWaitParityOp wait,
                             Sites &sites) {
  uint32_t site = sites.add(&getContext(), CheckKind::WaitTimeout, wait,
                            describeOp(wait, wait.getBarriers()));
  OpBuilder b(wait);
  Location loc = wait.getLoc();
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  Value address = LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(
          b.getContext(), unsigned(NVVM::NVVMMemorySpace::Shared)),
      nvgpu::MBarrierGetOp::create(b, loc, i64, wait.getBarriers(),
                                   wait.getMbarId())
          .getResult());
  Value parity = arith::ExtUIOp::create(b, loc, i32, wait.getPhaseParity());
  Value ticks = arith::IndexCastUIOp::create(b, loc, i32, wait.getTicks());
  Value start = NVVM::GlobalTimerOp::create(b, loc, i64);
  Value timeout =
      arith::ConstantIntOp::create(b, loc, i64, int64_t(timeoutMs) * 1000000);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{b.getI1Type()},
                                   ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore());
    Value ready = NVVM::MBarrierTryWaitOp::create(b, loc, b.getI1Type(),
                                                  address, parity, ticks);
    Value now = NVVM::GlobalTimerOp::create(b, loc, i64);
    Value elapsed = arith::SubIOp::create(b, loc, now, start);
    Value inTime = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         elapsed, timeout);
    Value notReady = arith::XOrIOp::create(
        b, loc, ready, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    Value again = arith::AndIOp::create(b, loc, notReady, inTime);
    scf::ConditionOp::create(b, loc, again, ValueRange{ready});
    (void)before;
    Block *after =
        b.createBlock(&loop.getAfter(), {}, TypeRange{b.getI1Type()}, {loc});
    b.setInsertionPointToStart(after);
    scf::YieldOp::create(b, loc);
  }
  Value failed = arith::XOrIOp::create(
      b, loc, loop.getResult(0),
      arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  auto ifOp = scf::IfOp::create(b, loc, failed, /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value elapsed = arith::SubIOp::create(
      b, loc, NVVM::GlobalTimerOp::create(b, loc, i64), start);
  Value ms = arith::TruncIOp::create(
      b, loc, i32,
      arith::DivUIOp::create(
          b, loc, elapsed, arith::ConstantIntOp::create(b, loc, i64, 1000000)));
  Value index = arith::IndexCastOp::create(b, loc, i64, wait.getMbarId());
  Value parityWide = arith::ExtUIOp::create(b, loc, i64, wait.getPhaseParity());
  callFail(b, loc, site, index, parityWide, ms);
  wait.erase();
}

void SanitizePass::callFail(OpBuilder &b, Location loc, uint32_t site,
                            Value value0, Value value1, Value waitedMs) {
  auto i32 = b.getI32Type();
  auto fnType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(b.getContext()),
      {i32, b.getI64Type(), b.getI64Type(), i32});
  Value check = arith::ConstantIntOp::create(b, loc, i32, site);
  LLVM::CallOp::create(
      b, loc, fnType, FlatSymbolRefAttr::get(b.getContext(), kFailFunction),
      ValueRange{check, value0, value1, waitedMs});
}

/// The two globals and `__tile_sanitize_fail(check, value0, value1,
/// waited ms)`: claim the report (one thread of the grid wins), write it
/// where `__tile_sanitize_report` points, fence to system scope, mark it
/// complete and trap. A thread that loses the claim parks until the trap
/// ends the grid, so that it cannot end it before the report is written.
void SanitizePass::addRuntimeSupport(gpu::GPUModuleOp module) {
  MLIRContext *ctx = &getContext();
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Location loc = module.getLoc();
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  constexpr unsigned kGlobalSpace = 1;
  LLVM::GlobalOp::create(b, loc, i64, /*isConstant=*/false,
                         LLVM::Linkage::External, kSanitizeReportSymbol,
                         b.getI64IntegerAttr(0), /*alignment=*/8,
                         kGlobalSpace);
  LLVM::GlobalOp::create(b, loc, i32, /*isConstant=*/false,
                         LLVM::Linkage::Internal, kSanitizeClaimSymbol,
                         b.getI32IntegerAttr(0), /*alignment=*/4,
                         kGlobalSpace);
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                            {i32, i64, i64, i32});
  auto fn = LLVM::LLVMFuncOp::create(b, loc, kFailFunction, fnType,
                                     LLVM::Linkage::Internal);
  fn.setPassthroughAttr(b.getArrayAttr({b.getStringAttr("noinline")}));
  Block *entry = fn.addEntryBlock(b);
  Block *report = fn.addBlock(), *write = fn.addBlock(),
        *trap = fn.addBlock(), *park = fn.addBlock();
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  auto genericPtr = LLVM::LLVMPointerType::get(ctx);
  auto constant = [&](Type type, int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  };

  b.setInsertionPointToStart(entry);
  Value claim = LLVM::AddressOfOp::create(b, loc, globalPtr,
                                          kSanitizeClaimSymbol);
  Value pair = LLVM::AtomicCmpXchgOp::create(
      b, loc, claim, constant(i32, 0), constant(i32, 1),
      LLVM::AtomicOrdering::acq_rel, LLVM::AtomicOrdering::monotonic);
  Value won = LLVM::ExtractValueOp::create(b, loc, pair, 1);
  LLVM::CondBrOp::create(b, loc, won, report, park);

  b.setInsertionPointToStart(report);
  Value slot = LLVM::AddressOfOp::create(b, loc, globalPtr,
                                         kSanitizeReportSymbol);
  Value address = LLVM::LoadOp::create(b, loc, i64, slot);
  Value none = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, address,
                                    constant(i64, 0));
  LLVM::CondBrOp::create(b, loc, none, trap, write);

  b.setInsertionPointToStart(write);
  Value words = LLVM::IntToPtrOp::create(b, loc, genericPtr, address);
  auto store = [&](unsigned word, Value value) {
    Value at = LLVM::GEPOp::create(b, loc, genericPtr, i32, words,
                                   ArrayRef<LLVM::GEPArg>{int32_t(word)});
    LLVM::StoreOp::create(b, loc, value, at, /*alignment=*/4,
                          /*isVolatile=*/true);
  };
  store(kCheck, fn.getArgument(0));
  store(kCtaX, NVVM::BlockIdXOp::create(b, loc, i32));
  store(kCtaY, NVVM::BlockIdYOp::create(b, loc, i32));
  store(kCtaZ, NVVM::BlockIdZOp::create(b, loc, i32));
  store(kThreadX, NVVM::ThreadIdXOp::create(b, loc, i32));
  store(kThreadY, NVVM::ThreadIdYOp::create(b, loc, i32));
  store(kThreadZ, NVVM::ThreadIdZOp::create(b, loc, i32));
  for (auto [word, arg] : {std::pair<unsigned, unsigned>{kValue0, 1},
                           std::pair<unsigned, unsigned>{kValue1, 2}}) {
    Value v = fn.getArgument(arg);
    store(word, LLVM::TruncOp::create(b, loc, i32, v));
    store(word + 1, LLVM::TruncOp::create(
                        b, loc, i32,
                        LLVM::LShrOp::create(b, loc, v, constant(i64, 32))));
  }
  store(kWaitedMs, fn.getArgument(3));
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::SYS);
  store(kStatus, constant(i32, kReported));
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::SYS);
  LLVM::BrOp::create(b, loc, trap);

  b.setInsertionPointToStart(trap);
  LLVM::Trap::create(b, loc);
  LLVM::UnreachableOp::create(b, loc);

  b.setInsertionPointToStart(park);
  NVVM::NanosleepOp::create(b, loc, constant(i32, 1000000));
  LLVM::BrOp::create(b, loc, park);
}

} // namespace

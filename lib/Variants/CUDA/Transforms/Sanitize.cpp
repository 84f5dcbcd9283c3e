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
/// Prefix of the shadow arrays (one per followed mbarrier group).
constexpr llvm::StringLiteral kShadowPrefix = "__tile_sanitize_shadow";
/// How long a completed phase's byte imbalance may take to settle (another
/// CTA's count of its multicast half racing its data) before it is reported.
constexpr int64_t kTxGraceNs = 50000;

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
  void checkBalanceAfterWait(OpBuilder &b,
                             nvgpu::MBarrierTryWaitParityOp wait,
                             Sites &sites);
  /// Calls the fail function: `site`, four i64 values (Value2/Value3
  /// default to kNoCount) and the i32 milliseconds waited.
  void callFail(OpBuilder &b, Location loc, uint32_t site, Value reporting,
                Value value0, Value value1, Value waitedMs, Value value2 = {},
                Value value3 = {});
  /// Whether `bad` holds on any lane converged here: then every one of them
  /// calls the fail function (`reporting` = its own `bad`), so that no lane
  /// of the group goes on past the failed check (into the arrival or copy
  /// it guards) while another reports.
  Value anyLaneFails(OpBuilder &b, Location loc, Value bad);
  void addRuntimeSupport(gpu::GPUModuleOp module);

  // Shadow counts: per barrier of a group whose every use the pass follows,
  // three i32 in the CTA's shared memory: arrivals since init, the init
  // count, and bytes expected minus bytes copied since init.
  enum ShadowField : int64_t { kArrivals = 0, kInitCount = 1, kTxBalance = 2 };
  /// Gives each followed group of `kernel` its shadow array.
  void addShadows(gpu::GPUModuleOp module, gpu::GPUFuncOp kernel);
  /// Instruments `op`'s init, arrivals and copied bytes on shadowed groups.
  void countOnShadow(Operation *op, Sites &sites);
  /// The address (generic when `rank` is given: that CTA's copy, via mapa;
  /// else shared) of `field` of barrier `index` of `group`'s shadow.
  Value shadowAddress(OpBuilder &b, Location loc, Value group, Value index,
                      ShadowField field, Value rank = {});
  /// Checks, before a local arrival of `count` (i32) on `group[index]`,
  /// that it counts toward the phase the barrier is in.
  void checkArrival(OpBuilder &b, Location loc, Value group, Value index,
                    Value count, uint32_t site);
  /// Adds `delta` (i32) to `field` of `group[index]` in the CTA of each
  /// rank in `ranks` (`mask`: the bits of an i16 are ranks), or locally.
  void addToShadow(OpBuilder &b, Location loc, Value group, Value index,
                   ShadowField field, Value delta, Value mask, Value rank,
                   Value pairSlot);

  /// The kernel's integer ranges while it is instrumented.
  DataFlowSolver *ranges = nullptr;
  /// The shadow array of each followed mbarrier group of the kernel.
  DenseMap<Value, LLVM::GlobalOp> shadows;
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
  llvm::scope_exit reset([&] {
    ranges = nullptr;
    shadows.clear();
  });
  addShadows(kernel->getParentOfType<gpu::GPUModuleOp>(), kernel);
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    checkBarrierIndex(op, sites);
    checkRegions(op, sites);
    countOnShadow(op, sites);
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
  auto ifOp = scf::IfOp::create(b, loc, anyLaneFails(b, loc, outside),
                                /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto i64 = b.getI64Type();
  Value value = arith::IndexCastOp::create(b, loc, i64, index);
  Value bound = arith::ConstantIntOp::create(b, loc, i64, reported);
  Value noWait = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  callFail(b, loc, site, outside, value, bound, noWait);
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
  auto ifOp = scf::IfOp::create(b, loc, anyLaneFails(b, loc, failed),
                                /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value elapsed = arith::SubIOp::create(
      b, loc, NVVM::GlobalTimerOp::create(b, loc, i64), start);
  Value ms = arith::TruncIOp::create(
      b, loc, i32,
      arith::DivUIOp::create(
          b, loc, elapsed, arith::ConstantIntOp::create(b, loc, i64, 1000000)));
  Value index = arith::IndexCastOp::create(b, loc, i64, wait.getMbarId());
  Value parityWide = arith::ExtUIOp::create(b, loc, i64, wait.getPhaseParity());
  Value group = wait.getBarriers();
  if (!shadows.count(group)) {
    callFail(b, loc, site, failed, index, parityWide, ms);
    wait.erase();
    return;
  }
  // What the shadow counts say about the phase that did not complete: the
  // bytes it still expects, its arrivals of the init count.
  auto load = [&](OpBuilder &at, ShadowField field) -> Value {
    return LLVM::LoadOp::create(
        at, loc, i32, shadowAddress(at, loc, group, wait.getMbarId(), field),
        /*alignment=*/4, /*isVolatile=*/true);
  };
  Value balance = arith::ExtSIOp::create(b, loc, i64, load(b, kTxBalance));
  Value arrivals = load(b, kArrivals), initCount = load(b, kInitCount);
  Value zero32 = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value one32 = arith::ConstantIntOp::create(b, loc, i32, 1);
  Value noInit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       initCount, zero32);
  Value inPhase = arith::RemUIOp::create(
      b, loc, arrivals,
      arith::SelectOp::create(b, loc, noInit, one32, initCount));
  inPhase = arith::SelectOp::create(b, loc, noInit, arrivals, inPhase);
  Value counts = arith::OrIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, inPhase),
      arith::ShLIOp::create(b, loc,
                            arith::ExtUIOp::create(b, loc, i64, initCount),
                            arith::ConstantIntOp::create(b, loc, i64, 32)));
  callFail(b, loc, site, failed, index, parityWide, ms, balance, counts);

  b.setInsertionPointAfter(ifOp);
  checkBalanceAfterWait(b, wait, sites);
  wait.erase();
}

//===----------------------------------------------------------------------===//
// Shadow counts: arrivals per phase and expected vs copied bytes
//===----------------------------------------------------------------------===//

/// Whether the pass sees every init, arrival and completing copy of
/// `group`: each of its uses is an op it instruments (an address taken by
/// `nvgpu.mbarrier.get`, a call or an nvgpu TMA op could arrive unseen).
static bool followsEveryUse(Value group) {
  for (OpOperand &use : group.getUses()) {
    Operation *user = use.getOwner();
    bool known =
        llvm::TypeSwitch<Operation *, bool>(user)
            .Case<nvgpu::MBarrierInitOp, nvgpu::MBarrierArriveOp,
                  nvgpu::MBarrierArriveNoCompleteOp,
                  nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTestWaitOp,
                  nvgpu::MBarrierTryWaitParityOp>(
                [](auto) { return true; })
            .Case<CopyAsyncOp, MmaCommitOp, MBarrierArriveRemoteOp>(
                [&](auto op) {
                  return op.getMbar() == group && op.getMbarIndex();
                })
            .Default([](Operation *) { return false; });
    if (!known)
      return false;
  }
  return true;
}

void SanitizePass::addShadows(gpu::GPUModuleOp module,
                              gpu::GPUFuncOp kernel) {
  SymbolTable symbols(module);
  auto i32 = IntegerType::get(&getContext(), 32);
  kernel.walk([&](nvgpu::MBarrierCreateOp create) {
    Value group = create.getBarriers();
    // Counts only where something checks them: a wait or an arrival.
    bool checked = llvm::any_of(group.getUsers(), [](Operation *user) {
      return isa<nvgpu::MBarrierTryWaitParityOp, nvgpu::MBarrierArriveOp,
                 nvgpu::MBarrierArriveNoCompleteOp,
                 nvgpu::MBarrierArriveExpectTxOp, MmaCommitOp>(user);
    });
    if (!checked || !followsEveryUse(group))
      return;
    int64_t entries =
        cast<nvgpu::MBarrierGroupType>(group.getType()).getNumBarriers();
    OpBuilder b(kernel);
    // Internal, no initializer: shared memory is undefined at launch; the
    // instrumented init writes an entry before the barrier is used.
    auto global = LLVM::GlobalOp::create(
        b, create.getLoc(), LLVM::LLVMArrayType::get(i32, 3 * entries),
        /*isConstant=*/false, LLVM::Linkage::Internal,
        (kShadowPrefix + "_" + kernel.getName()).str(), Attribute(),
        /*alignment=*/4, unsigned(NVVM::NVVMMemorySpace::Shared));
    symbols.insert(global); // renames on a clash
    shadows[group] = global;
  });
}

Value SanitizePass::shadowAddress(OpBuilder &b, Location loc, Value group,
                                  Value index, ShadowField field, Value rank) {
  LLVM::GlobalOp global = shadows.lookup(group);
  auto i32 = b.getI32Type();
  auto shared = LLVM::LLVMPointerType::get(
      b.getContext(), unsigned(NVVM::NVVMMemorySpace::Shared));
  Value base = LLVM::AddressOfOp::create(b, loc, shared, global.getSymName());
  Value slot = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc,
                            arith::IndexCastOp::create(b, loc, i32, index),
                            arith::ConstantIntOp::create(b, loc, i32, 3)),
      arith::ConstantIntOp::create(b, loc, i32, int64_t(field)));
  Value address = LLVM::GEPOp::create(b, loc, shared, i32, base,
                                      ArrayRef<LLVM::GEPArg>{slot});
  if (!rank)
    return address;
  auto generic = LLVM::LLVMPointerType::get(b.getContext());
  Value local = LLVM::AddrSpaceCastOp::create(b, loc, generic, address);
  return NVVM::MapaOp::create(b, loc, generic, local, rank);
}

void SanitizePass::checkArrival(OpBuilder &b, Location loc, Value group,
                                Value index, Value count, uint32_t site) {
  auto i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  // The phase parity now, before this arrival: in a correct protocol no
  // phase can end between this test and the arrival (it needs this one).
  Value barrier = LLVM::IntToPtrOp::create(
      b, loc,
      LLVM::LLVMPointerType::get(b.getContext(),
                                 unsigned(NVVM::NVVMMemorySpace::Shared)),
      nvgpu::MBarrierGetOp::create(b, loc, i64, group, index).getResult());
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
  Value evenDone = NVVM::MBarrierTestWaitOp::create(b, loc, i1, barrier, zero);
  Value parity = arith::ExtUIOp::create(b, loc, i32, evenDone);
  Value before = LLVM::AtomicRMWOp::create(
      b, loc, LLVM::AtomicBinOp::add,
      shadowAddress(b, loc, group, index, kArrivals), count,
      LLVM::AtomicOrdering::monotonic);
  Value initCount = LLVM::LoadOp::create(
      b, loc, i32, shadowAddress(b, loc, group, index, kInitCount),
      /*alignment=*/4, /*isVolatile=*/true);
  // Arrivals before..before+count-1 belong to phases before/C and
  // (before+count-1)/C when every phase took exactly C.
  Value known = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                      initCount, zero);
  Value divisor = arith::SelectOp::create(b, loc, known, initCount, one);
  Value first = arith::DivUIOp::create(b, loc, before, divisor);
  Value last = arith::DivUIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc,
                            arith::AddIOp::create(b, loc, before, count), one),
      divisor);
  Value wrongParity = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, loc, first, one), parity);
  Value spans =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, first, last);
  Value bad = arith::AndIOp::create(
      b, loc, known, arith::OrIOp::create(b, loc, wrongParity, spans));
  auto ifOp = scf::IfOp::create(b, loc, anyLaneFails(b, loc, bad),
                                /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  callFail(b, loc, site, bad, arith::IndexCastOp::create(b, loc, i64, index),
           arith::ExtUIOp::create(b, loc, i64, before),
           arith::ConstantIntOp::create(b, loc, i32, 0),
           arith::ExtUIOp::create(b, loc, i64, initCount),
           arith::ExtUIOp::create(b, loc, i64, count));
}

void SanitizePass::addToShadow(OpBuilder &b, Location loc, Value group,
                               Value index, ShadowField field, Value delta,
                               Value mask, Value rank, Value pairSlot) {
  auto i32 = b.getI32Type();
  auto add = [&](OpBuilder &at, Value target) {
    // With a pair slot the count goes to the barrier of the CTA at that
    // place in the target's pair (a pair's loads completing on the leader).
    if (pairSlot)
      target = arith::OrIOp::create(
          at, loc,
          arith::AndIOp::create(at, loc, target,
                                arith::ConstantIntOp::create(at, loc, i32, ~1)),
          arith::AndIOp::create(at, loc, pairSlot,
                                arith::ConstantIntOp::create(at, loc, i32, 1)));
    LLVM::AtomicRMWOp::create(
        at, loc, LLVM::AtomicBinOp::add,
        shadowAddress(at, loc, group, index, field, target), delta,
        LLVM::AtomicOrdering::monotonic);
  };
  if (mask) {
    // Every rank of the mask: a loop over its 16 bits.
    Value bits = arith::ExtUIOp::create(b, loc, i32, mask);
    auto loop = scf::ForOp::create(
        b, loc, arith::ConstantIndexOp::create(b, loc, 0),
        arith::ConstantIndexOp::create(b, loc, 16),
        arith::ConstantIndexOp::create(b, loc, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value c = arith::IndexCastOp::create(b, loc, i32, loop.getInductionVar());
    Value set = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, c),
                              arith::ConstantIntOp::create(b, loc, i32, 1)),
        arith::ConstantIntOp::create(b, loc, i32, 0));
    auto ifOp = scf::IfOp::create(b, loc, set, /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    add(b, c);
    return;
  }
  if (rank || pairSlot) {
    add(b, rank ? rank : NVVM::ClusterId::create(b, loc, i32).getResult());
    return;
  }
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                            shadowAddress(b, loc, group, index, field), delta,
                            LLVM::AtomicOrdering::monotonic);
}

/// The bytes a copy completes on its barrier, if they fit an i32.
static std::optional<int64_t> copyBytes(CopyAsyncOp copy) {
  int64_t elements = 1;
  for (int64_t size : copy.getSizes())
    if (size < 0 || llvm::MulOverflow(elements, size, elements))
      return std::nullopt;
  int64_t bits = 0;
  if (llvm::MulOverflow(elements, int64_t(copy.getSrcType().getElementBits()),
                        bits) ||
      bits / 8 > INT32_MAX)
    return std::nullopt;
  return bits / 8;
}

/// True on one thread of `op`'s exec scope (the copy or commit counts
/// once, whichever threads issue it): lane 0 of a warp, thread 0 of a
/// warpgroup or CTA, the elected lane of an `exec warp` commit; null for
/// `exec thread`.
static Value oneThreadOf(OpBuilder &b, Location loc, ExecScope exec,
                         bool elected) {
  if (exec == ExecScope::thread)
    return Value();
  if (exec == ExecScope::warp && elected)
    return NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value());
  auto dim = [&](gpu::Dimension d, bool size) -> Value {
    return size ? gpu::BlockDimOp::create(b, loc, d).getResult()
                : gpu::ThreadIdOp::create(b, loc, d).getResult();
  };
  Value linear = arith::AddIOp::create(
      b, loc, dim(gpu::Dimension::x, false),
      arith::MulIOp::create(
          b, loc, dim(gpu::Dimension::x, true),
          arith::AddIOp::create(
              b, loc, dim(gpu::Dimension::y, false),
              arith::MulIOp::create(b, loc, dim(gpu::Dimension::y, true),
                                    dim(gpu::Dimension::z, false)))));
  Value within = linear;
  if (exec == ExecScope::warp || exec == ExecScope::warpgroup)
    within = arith::RemUIOp::create(
        b, loc, linear,
        arith::ConstantIndexOp::create(b, loc,
                                       exec == ExecScope::warp ? 32 : 128));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, within,
                               arith::ConstantIndexOp::create(b, loc, 0));
}

void SanitizePass::countOnShadow(Operation *op, Sites &sites) {
  Value group = barrierGroupOf(op), index = barrierIndexOf(op);
  if (!group || !index || !shadows.count(group) ||
      isa<nvgpu::MBarrierTryWaitParityOp, nvgpu::MBarrierTestWaitOp,
          nvgpu::MBarrierGetOp>(op))
    return;
  Location loc = op->getLoc();
  OpBuilder b(op);
  auto i32 = b.getI32Type();
  auto toI32 = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, i32, v);
  };
  // Runs `body` under `condition` (when there is one).
  auto guarded = [&](Value condition, llvm::function_ref<void()> body) {
    OpBuilder::InsertionGuard guard(b);
    if (condition) {
      auto ifOp = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    body();
  };
  auto arrivalSite = [&] {
    return sites.add(&getContext(), CheckKind::ArrivalCount, op,
                     describeOp(op, group));
  };
  auto one = [&]() -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, 1);
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](nvgpu::MBarrierInitOp init) {
        guarded(init.getPredicate(), [&] {
          Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
          for (auto [field, value] :
               {std::pair<ShadowField, Value>{kArrivals, zero},
                {kInitCount, toI32(init.getCount())},
                {kTxBalance, zero}})
            LLVM::StoreOp::create(b, loc, value,
                                  shadowAddress(b, loc, group, index, field),
                                  /*alignment=*/4, /*isVolatile=*/true);
        });
      })
      .Case([&](nvgpu::MBarrierArriveOp) {
        checkArrival(b, loc, group, index, one(), arrivalSite());
      })
      .Case([&](nvgpu::MBarrierArriveNoCompleteOp arrive) {
        checkArrival(b, loc, group, index, toI32(arrive.getCount()),
                     arrivalSite());
      })
      .Case([&](nvgpu::MBarrierArriveExpectTxOp arrive) {
        uint32_t site = arrivalSite();
        guarded(arrive.getPredicate(), [&] {
          // The bytes first: the copies may already have completed, and
          // this arrival may end the phase.
          addToShadow(b, loc, group, index, kTxBalance,
                      toI32(arrive.getTxcount()), {}, {}, {});
          checkArrival(b, loc, group, index, one(), site);
        });
      })
      .Case([&](CopyAsyncOp copy) {
        std::optional<int64_t> bytes = copyBytes(copy);
        if (!bytes || copy.getDstType().getScope() != MemoryScope::shared)
          return;
        guarded(oneThreadOf(b, loc, copy.getExec(), /*elected=*/false), [&] {
          Value delta = arith::ConstantIntOp::create(b, loc, i32, -*bytes);
          addToShadow(b, loc, group, index, kTxBalance, delta,
                      copy.getCtaMask(), copy.getRemoteCta(),
                      copy.getMbarCta());
        });
      })
      .Case([&](MmaCommitOp commit) {
        // The arrival comes when the MMAs complete; it is counted (and, on
        // this CTA's barrier, checked) when the commit is issued.
        Value issuer = oneThreadOf(b, loc, commit.getExec(), /*elected=*/true);
        if (commit.getCtaMask()) {
          guarded(issuer, [&] {
            addToShadow(b, loc, group, index, kArrivals, one(),
                        commit.getCtaMask(), {}, {});
          });
          return;
        }
        uint32_t site = arrivalSite();
        guarded(issuer, [&] { checkArrival(b, loc, group, index, one(), site); });
      })
      .Case([&](MBarrierArriveRemoteOp remote) {
        Value count = remote.getCount() ? Value(remote.getCount()) : one();
        addToShadow(b, loc, group, index, kArrivals, count, {},
                    remote.getCta(), {});
      });
}

Value SanitizePass::anyLaneFails(OpBuilder &b, Location loc, Value bad) {
  Value active =
      LLVM::CallIntrinsicOp::create(b, loc, Type(b.getI32Type()),
                                    b.getStringAttr("llvm.nvvm.activemask"),
                                    ValueRange{})
          .getResult(0);
  return NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), active, bad,
                                  NVVM::VoteSyncKind::any);
}

/// After `wait` completed its phase: the bytes its arrivals expected and
/// the copies completing on it must balance. A copy's bytes are counted
/// just before it is issued and may reach this CTA's shadow a little after
/// the data (another CTA's multicast half), so an imbalance is re-read for
/// up to kTxGraceNs before it is reported.
void SanitizePass::checkBalanceAfterWait(
    OpBuilder &b, nvgpu::MBarrierTryWaitParityOp wait, Sites &sites) {
  Location loc = wait.getLoc();
  Value group = wait.getBarriers();
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  auto load = [&](OpBuilder &at, ShadowField field) -> Value {
    return LLVM::LoadOp::create(
        at, loc, i32, shadowAddress(at, loc, group, wait.getMbarId(), field),
        /*alignment=*/4, /*isVolatile=*/true);
  };
  uint32_t balanceSite =
      sites.add(&getContext(), CheckKind::TxBalance, wait,
                describeOp(wait, wait.getBarriers()));
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value graceStart = NVVM::GlobalTimerOp::create(b, loc, i64);
  Value grace = arith::ConstantIntOp::create(b, loc, i64, kTxGraceNs);
  auto settle = scf::WhileOp::create(b, loc, TypeRange{i32},
                                     ValueRange{load(b, kTxBalance)});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before =
        b.createBlock(&settle.getBefore(), {}, TypeRange{i32}, {loc});
    Value current = before->getArgument(0);
    Value off = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                      current, zero);
    Value waited = arith::SubIOp::create(
        b, loc, NVVM::GlobalTimerOp::create(b, loc, i64), graceStart);
    Value inGrace = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          waited, grace);
    scf::ConditionOp::create(b, loc,
                             arith::AndIOp::create(b, loc, off, inGrace),
                             ValueRange{current});
    b.createBlock(&settle.getAfter(), {}, TypeRange{i32}, {loc});
    scf::YieldOp::create(b, loc, ValueRange{load(b, kTxBalance)});
  }
  Value unbalanced = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, settle.getResult(0), zero);
  auto report = scf::IfOp::create(b, loc, anyLaneFails(b, loc, unbalanced),
                                 /*withElse=*/false);
  b.setInsertionPointToStart(report.thenBlock());
  callFail(b, loc, balanceSite, unbalanced,
           arith::IndexCastOp::create(b, loc, i64, wait.getMbarId()),
           arith::ExtSIOp::create(b, loc, i64, settle.getResult(0)),
           arith::ConstantIntOp::create(b, loc, i32, 0),
           arith::ExtUIOp::create(b, loc, i64, wait.getPhaseParity()));
}

void SanitizePass::callFail(OpBuilder &b, Location loc, uint32_t site,
                            Value reporting, Value value0, Value value1,
                            Value waitedMs, Value value2, Value value3) {
  auto i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  auto fnType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(b.getContext()),
      {i32, i64, i64, i32, i64, i64, i1});
  Value check = arith::ConstantIntOp::create(b, loc, i32, site);
  if (!value2)
    value2 = arith::ConstantIntOp::create(b, loc, i64, kNoCount);
  if (!value3)
    value3 = arith::ConstantIntOp::create(b, loc, i64, kNoCount);
  LLVM::CallOp::create(
      b, loc, fnType, FlatSymbolRefAttr::get(b.getContext(), kFailFunction),
      ValueRange{check, value0, value1, waitedMs, value2, value3, reporting});
}

/// The report words from `fn`'s arguments, to the host buffer at
/// `address`; the status word last, between system-scope fences.
static void writeReport(OpBuilder &b, Location loc, LLVM::LLVMFuncOp fn,
                        Value address) {
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  auto genericPtr = LLVM::LLVMPointerType::get(b.getContext());
  auto constant = [&](Type type, int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  };
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
                           std::pair<unsigned, unsigned>{kValue1, 2},
                           std::pair<unsigned, unsigned>{kValue2, 4},
                           std::pair<unsigned, unsigned>{kValue3, 5}}) {
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
}

/// The two globals and `__tile_sanitize_fail(check, value0, value1,
/// waited ms, value2, value3, reporting)`: claim the report (one group of
/// lanes of the grid wins; its lowest reporting lane writes), write it where
/// `__tile_sanitize_report` points, fence to system scope, mark it complete
/// and trap. Threads that lose the claim park until the trap ends the grid,
/// so that none goes on past a failed check.
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
  auto fnType = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(ctx),
      {i32, i64, i64, i32, i64, i64, b.getI1Type()});
  auto fn = LLVM::LLVMFuncOp::create(b, loc, kFailFunction, fnType,
                                     LLVM::Linkage::Internal);
  fn.setPassthroughAttr(b.getArrayAttr({b.getStringAttr("noinline")}));
  Block *entry = fn.addEntryBlock(b);
  Block *claimBlock = fn.addBlock(), *claimed = fn.addBlock(),
        *report = fn.addBlock(), *write = fn.addBlock(),
        *trap = fn.addBlock(), *park = fn.addBlock();
  claimed->addArgument(i32, loc);
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  auto constant = [&](Type type, int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  };

  // The lanes converged at a failed check arrive here together (see
  // anyLaneFails): the lowest lane whose own check failed claims for all of
  // them, writes the report, and they trap or park as one, so that no lane
  // of the group runs on into the op the check guards.
  b.setInsertionPointToStart(entry);
  Value active =
      LLVM::CallIntrinsicOp::create(b, loc, Type(i32),
                                    b.getStringAttr("llvm.nvvm.activemask"),
                                    ValueRange{})
          .getResult(0);
  Value reporters =
      NVVM::VoteSyncOp::create(b, loc, i32, active, fn.getArgument(6),
                               NVVM::VoteSyncKind::ballot);
  Value leader = LLVM::CountTrailingZerosOp::create(b, loc, i32, reporters,
                                                    /*is_zero_poison=*/false);
  Value isLeader = LLVM::ICmpOp::create(
      b, loc, LLVM::ICmpPredicate::eq,
      NVVM::LaneIdOp::create(b, loc, i32).getResult(), leader);
  LLVM::CondBrOp::create(b, loc, isLeader, claimBlock, ValueRange{}, claimed,
                         ValueRange{constant(i32, 0)});

  b.setInsertionPointToStart(claimBlock);
  Value claim = LLVM::AddressOfOp::create(b, loc, globalPtr,
                                          kSanitizeClaimSymbol);
  Value pair = LLVM::AtomicCmpXchgOp::create(
      b, loc, claim, constant(i32, 0), constant(i32, 1),
      LLVM::AtomicOrdering::acq_rel, LLVM::AtomicOrdering::monotonic);
  Value wonHere = LLVM::ZExtOp::create(
      b, loc, i32, LLVM::ExtractValueOp::create(b, loc, pair, 1));
  LLVM::BrOp::create(b, loc, ValueRange{wonHere}, claimed);

  b.setInsertionPointToStart(claimed);
  Value wonAll = NVVM::ShflOp::create(b, loc, i32, active,
                                      claimed->getArgument(0), leader,
                                      constant(i32, 0x1f), NVVM::ShflKind::idx,
                                      UnitAttr());
  Value won = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, wonAll,
                                   constant(i32, 0));
  LLVM::CondBrOp::create(b, loc, won, report, park);

  // The leader writes; the others wait for it at the trap.
  b.setInsertionPointToStart(report);
  Value slot = LLVM::AddressOfOp::create(b, loc, globalPtr,
                                         kSanitizeReportSymbol);
  Value address = LLVM::LoadOp::create(b, loc, i64, slot);
  Value some = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, address,
                                    constant(i64, 0));
  LLVM::CondBrOp::create(b, loc, LLVM::AndOp::create(b, loc, some, isLeader),
                         write, trap);

  b.setInsertionPointToStart(write);
  writeReport(b, loc, fn, address);
  LLVM::BrOp::create(b, loc, trap);

  b.setInsertionPointToStart(trap);
  NVVM::SyncWarpOp::create(b, loc, active);
  LLVM::Trap::create(b, loc);
  LLVM::UnreachableOp::create(b, loc);

  b.setInsertionPointToStart(park);
  NVVM::NanosleepOp::create(b, loc, constant(i32, 1000000));
  LLVM::BrOp::create(b, loc, park);
}

} // namespace

//===- PipelineSimulation.cpp - run a kernel's barrier protocol ------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Executes a kernel's control flow and synchronization, one CTA, warp by
// warp with SIMT masks, on sample problem sizes, against the PTX model of
// mbarriers, named barriers and asynchronous units (PipelineModel.h). What
// the roles of a warp-specialized kernel do to each other is then observed,
// not matched by SSA names: a consumer waiting on the wrong parity passes on
// a phase it already saw or reads a stage whose copy is still in flight
// (or whose cp.async group its issuer has not retired, or retired with no
// barrier since); a producer that skips the empty barrier overwrites a
// stage a wgmma still reads; a wrong arrival count or init count deadlocks, and the report says
// which barriers every thread waits on and what each phase still expects.
//
// Only integers are computed (thread ids, cluster ranks, loop counters,
// stage and phase arithmetic); memory contents are not. Every dynamic
// `memref.dim` takes a sample size (200 and 330, or the kernel's
// `tile.sample_sizes`, so that a branch only some sizes take is run too;
// integer kernel arguments stay
// unknown unless given a `tile.sample_value`; a 1-D integer argument with
// `tile.sample_contents` is read, stored and updated by atomics as memory
// this CTA alone changes); the grid is one cluster (one CTA without a known_cluster_size),
// unless the kernel's `tile.sample_grid` gives the grid size its
// CTAs read (so that a persistent kernel's CTA walks a few tiles, not all);
// the copy engines and the tcgen05 pipe deliver as late as possible: only
// when no warp can move. Several runs: two sizes, warps in both orders,
// and the warps that take part in the protocol each made as slow as
// possible. A kernel this model does not cover (no known_block_size,
// calls, branches or indices computed from memory, unstructured control
// flow, raw NVVM barrier ops) is skipped; `--tile-verify-kernels` still
// runs its other checks. Raw `nvvm.tcgen05.ld` / `.wait` are passed over
// (their reads are not checked).
//
//===----------------------------------------------------------------------===//

#include "KernelChecks.h"
#include "tile/Dialect/Tile/IR/LocalTiles.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/CUDA/Chips.h"
#include "tile/Target/CUDA/HardwareLimits.h"
#include "tile/Target/CUDA/Model/PipelineModel.h"
#include "tile/Variants/CUDA/VariantHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <limits>

using namespace mlir;
using namespace tile;
namespace model = tile::cuda::model;

namespace {

constexpr int kLanes = 32;
using Mask = uint32_t;

/// A value in each lane of a warp; `known` says which lanes hold one.
struct LaneValues {
  Mask known = 0;
  /// Every lane holds lane[0] (and `known` is every lane): most values
  /// (loop counters, stages, sizes) are computed once.
  bool uniform = false;
  std::array<int64_t, kLanes> lane{};
};

/// Where a warp is in a region: the op to run next and the lanes running.
struct Frame {
  Operation *owner; ///< scf.for, scf.if or the function
  Block *block;
  Block::iterator next;
  Mask mask;
  /// scf.for: the uniform trip, or per lane when the bounds differ
  /// between lanes (a loop from the thread id); lanes leave as they finish.
  int64_t iv = 0, ub = 0, step = 0;
  bool perLane = false;
  std::array<int64_t, 32> ivs{}, ubs{}, steps{};
  Mask elseMask = 0;                ///< scf.if: lanes the else still runs
};

struct Warp {
  int64_t id = 0;        ///< across the cluster
  int64_t cta = 0;       ///< its CTA's rank in the cluster
  int64_t localWarp = 0; ///< within its CTA
  /// The cluster barrier generation this warp arrived at, until it waits.
  std::optional<int64_t> clusterArrival;
  /// Registers per thread (the kernel's nvvm.maxnreg, then setmaxnreg's);
  /// 0: unknown.
  int64_t registers = 0;
  Mask alive = 0;
  SmallVector<Frame, 8> frames;
  DenseMap<Value, LaneValues> values;
  /// A named/CTA barrier this warp arrived at: (id, generation).
  std::optional<std::pair<int64_t, int64_t>> arrivedAt;
  /// What the warp waits for when it cannot move.
  Operation *blockedOp = nullptr;
  std::optional<model::BarrierRef> blockedBarrier;
  int64_t blockedNamed = -1; ///< else: the named, CTA (-1) or cluster barrier
  int64_t blockedLane = 0;
  bool blockedParity = false;
  uint64_t blockedEpoch = 0;
  bool done = false;
};

enum class StepResult { Next, Blocked, Stop };

/// Bits of an integer or index type the simulation computes with (at most
/// 64); 0 for anything else, wider integers included.
unsigned widthOf(Type type) {
  if (type.isIndex())
    return 64;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 64 ? integer.getWidth() : 0;
  return 0;
}

int64_t signExtend(int64_t x, unsigned width) {
  if (width >= 64)
    return x;
  uint64_t m = uint64_t(1) << (width - 1);
  uint64_t v = uint64_t(x) & ((uint64_t(1) << width) - 1);
  return int64_t((v ^ m) - m);
}

uint64_t zeroExtend(int64_t x, unsigned width) {
  return width >= 64 ? uint64_t(x) : uint64_t(x) & ((uint64_t(1) << width) - 1);
}

class Simulation {
public:
  Simulation(gpu::GPUFuncOp kernel, int64_t blockSize,
             std::array<int64_t, 3> blockDims, int64_t sample, bool reverse,
             const DenseMap<Value, int64_t> &groups,
             const std::vector<int64_t> &groupSizes,
             const std::vector<std::string> &groupNames,
             const DenseMap<Value, int64_t> &buffers,
             const std::vector<std::string> &bufferNames,
             const DenseMap<Operation *, SmallVector<int64_t>> &tmemViews,
             SmallVector<int64_t> lazyWarps, std::array<int64_t, 3> clusterDims)
      : machine(blockSize * clusterDims[0] * clusterDims[1] * clusterDims[2],
                perCluster(groupSizes,
                           clusterDims[0] * clusterDims[1] * clusterDims[2]),
                blockSize),
        kernel(kernel), blockSize(blockSize), clusterDims(clusterDims),
        gridDims(sampleGrid(kernel, clusterDims)), ctas(clusterDims[0] * clusterDims[1] * clusterDims[2]),
        groupsPerCta(groupSizes.size()), buffersPerCta(bufferNames.size()),
        blockDims(blockDims), sample(sample), reverse(reverse),
        groups(groups), buffers(buffers), tmemViews(tmemViews),
        lazyWarps(std::move(lazyWarps)) {
    machine.groupNames = perCluster(groupNames, ctas);
    machine.bufferNames = perCluster(bufferNames, ctas);
  }

  /// Runs to completion, a finding, a deadlock or a construct the model
  /// does not cover (then `skipped` says which).
  void run();

  model::PipelineModel machine;
  /// Barrier and async operations each warp executed: the warps worth
  /// slowing down in later runs.
  std::vector<int64_t> syncOps;
  std::string skipped;
  Operation *skippedAt = nullptr;

private:
  /// `perCta` repeated for each CTA of the cluster (names get the CTA).
  template <typename T>
  static std::vector<T> perCluster(const std::vector<T> &perCta,
                                   int64_t ctas) {
    std::vector<T> all;
    for (int64_t c = 0; c < ctas; ++c)
      for (const T &x : perCta) {
        if constexpr (std::is_same_v<T, std::string>)
          all.push_back(ctas > 1 ? x + " of CTA " + std::to_string(c) : x);
        else
          all.push_back(x);
      }
    return all;
  }

  /// The grid the CTAs read: the kernel's `tile.sample_grid`, else the
  /// cluster.
  static std::array<int64_t, 3> sampleGrid(gpu::GPUFuncOp kernel,
                                           std::array<int64_t, 3> cluster) {
    auto grid = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.sample_grid");
    if (!grid || grid.size() != 3)
      return cluster;
    return {grid[0], grid[1], grid[2]};
  }

  gpu::GPUFuncOp kernel;
  int64_t blockSize;
  std::array<int64_t, 3> clusterDims;
  std::array<int64_t, 3> gridDims;
  int64_t ctas;
  int64_t groupsPerCta, buffersPerCta;
  std::array<int64_t, 3> blockDims;
  int64_t sample;
  bool reverse;
  const DenseMap<Value, int64_t> &groups;
  const DenseMap<Value, int64_t> &buffers;
  /// tile.tmem_alloc -> the buffer ids of the tile.tmem_buffer views of it.
  const DenseMap<Operation *, SmallVector<int64_t>> &tmemViews;
  /// Warps that run only when no other can and nothing is in flight: the
  /// slowest a role can be (a consumer that falls behind).
  SmallVector<int64_t> lazyWarps;
  std::vector<Warp> warps;
  int64_t steps = 0;
  /// Elements of sampled arguments (tile.sample_contents) this run wrote
  /// by memref.store or memref.atomic_rmw: the grid's other CTAs are not
  /// run, so a counter they share holds the sample plus this CTA's own
  /// updates.
  DenseMap<std::pair<Value, int64_t>, int64_t> written;
  /// Sampled arguments a store or atomic changed in a way the run did not
  /// follow (an unknown index or value): their elements are unknown since.
  DenseSet<Value> unknownContents;
  /// The element `index` of a sampled argument as this run left it.
  std::optional<int64_t> sampledElement(Value memref, int64_t index) {
    ArrayRef<int64_t> contents = sampleContents(memref);
    if (index < 0 || index >= int64_t(contents.size()) ||
        unknownContents.contains(memref))
      return std::nullopt;
    auto it = written.find({memref, index});
    return it != written.end() ? it->second : contents[index];
  }
  bool stepAtomic(Warp &warp, Frame &frame, memref::AtomicRMWOp rmw);
  void stepSampledStore(Warp &warp, Frame &frame, memref::StoreOp store);

  bool stopped() const { return !skipped.empty() || machine.failed(); }
  StepResult skip(Operation *op, const Twine &why) {
    if (skipped.empty()) {
      skipped = why.str();
      skippedAt = op;
    }
    return StepResult::Stop;
  }

  /// Threads are numbered across the cluster, CTA by CTA.
  int64_t threadOf(const Warp &warp, int lane) const {
    return warp.cta * blockSize + localThreadOf(warp, lane);
  }
  int64_t localThreadOf(const Warp &warp, int lane) const {
    return warp.localWarp * kLanes + lane;
  }
  static SmallVector<int, kLanes> lanesOf(Mask mask) {
    SmallVector<int, kLanes> lanes;
    for (int l = 0; l < kLanes; ++l)
      if (mask & (Mask(1) << l))
        lanes.push_back(l);
    return lanes;
  }

  const LaneValues &valueOf(Warp &warp, Value value);
  /// The value in every lane of `mask`, or none if some lane lacks it.
  bool known(Warp &warp, Value value, Mask mask, LaneValues &out) {
    out = valueOf(warp, value);
    return (out.known & mask) == mask;
  }
  std::optional<int64_t> uniform(Warp &warp, Value value, Mask mask);
  void setUniform(Warp &warp, Value value, int64_t v, Mask mask);

  bool runWarp(Warp &warp, bool untilOthersCanMove = false);
  StepResult step(Warp &warp, Frame &frame, Operation &op);
  StepResult stepYield(Warp &warp, Operation &op);
  StepResult stepIf(Warp &warp, Frame &frame, scf::IfOp ifOp);
  StepResult stepFor(Warp &warp, Frame &frame, scf::ForOp forOp);
  void setInductionVariable(Warp &warp, Frame &frame);
  void evalArith(Warp &warp, Operation &op, Mask mask);
  StepResult stepSync(Warp &warp, Frame &frame, Operation &op);
  std::optional<bool> namedBarrier(Warp &warp, Frame &frame, Operation &op,
                                   int64_t &id, int64_t &count);
  StepResult stepTile(Warp &warp, Frame &frame, Operation &op);
  StepResult stepCopy(Warp &warp, Frame &frame, CopyAsyncOp copy);
  bool stepGroupCopy(Warp &warp, CopyAsyncOp copy, int lane,
                     int64_t scopeThreads, int64_t bytes);
  StepResult stepAccess(Warp &warp, Frame &frame, Operation &op, Value buffer,
                        OperandRange dynamic, ArrayRef<int64_t> staticOffsets,
                        BufferType local, bool write);
  void narrowToLanes(Warp &warp, Mask mask, BufferType local,
                     model::SharedBox &box);
  std::optional<SmallVector<int64_t, 4>> copyTargets(Warp &warp,
                                                     CopyAsyncOp copy,
                                                     int lane);
  StepResult stepGemm(Warp &warp, Frame &frame, GemmAsyncOp gemm);
  StepResult stepArriveRemote(Warp &warp, Frame &frame,
                              MBarrierArriveRemoteOp remote);
  StepResult stepMBarrier(Warp &warp, Frame &frame, Operation &op);
  bool stepValue(Warp &warp, Frame &frame, Operation &op);
  bool stepShuffle(Warp &warp, Frame &frame, NVVM::ShflOp shfl);
  /// The `tile.sample_contents` of a kernel argument, or none.
  ArrayRef<int64_t> sampleContents(Value memref) {
    auto arg = dyn_cast<BlockArgument>(memref);
    if (!arg || arg.getOwner() != &kernel.getBody().front() ||
        arg.getArgNumber() >= kernel.getNumArguments())
      return {};
    auto contents = kernel.getArgAttrOfType<DenseI64ArrayAttr>(
        arg.getArgNumber(), "tile.sample_contents");
    return contents ? contents.asArrayRef() : ArrayRef<int64_t>();
  }
  StepResult stepSetMaxRegister(Warp &warp, Frame &frame,
                                NVVM::SetMaxRegisterOp setmax);

  /// The barrier `group[index]` in lane `lane`, of CTA `cta` (default:
  /// the warp's).
  std::optional<model::BarrierRef> barrierOf(Warp &warp, Operation *op,
                                             Value group, Value index,
                                             int lane, int64_t cta = -1);
  std::optional<model::SharedBox> boxOf(Warp &warp, Operation *op, Value buffer,
                                        OperandRange dynamic,
                                        ArrayRef<int64_t> staticOffsets,
                                        ArrayRef<int64_t> sizes, int lane,
                                        int64_t cta = -1);
};

const LaneValues &Simulation::valueOf(Warp &warp, Value value) {
  // Unknown until computed: integer kernel arguments too (a byte count or
  // an expert count is no sample size).
  static const LaneValues unknown;
  auto it = warp.values.find(value);
  return it != warp.values.end() ? it->second : unknown;
}

std::optional<int64_t> Simulation::uniform(Warp &warp, Value value,
                                           Mask mask) {
  LaneValues v;
  if (!mask || !known(warp, value, mask, v))
    return std::nullopt;
  SmallVector<int, kLanes> lanes = lanesOf(mask);
  for (int l : lanes)
    if (v.lane[l] != v.lane[lanes.front()])
      return std::nullopt;
  return v.lane[lanes.front()];
}

/// Lanes outside `mask` never read the value (SSA dominance): it is set in
/// all of them.
void Simulation::setUniform(Warp &warp, Value value, int64_t v, Mask mask) {
  LaneValues &out = warp.values[value];
  unsigned width = widthOf(value.getType());
  out.lane.fill(signExtend(v, width ? width : 64));
  out.known = ~Mask(0);
  out.uniform = true;
}

/// Integer arithmetic, per lane; results in lanes whose operands are
/// unknown (or that divide by zero) stay unknown.
void Simulation::evalArith(Warp &warp, Operation &op, Mask mask) {
  if (op.getNumResults() != 1)
    return;
  Value result = op.getResult(0);
  unsigned width = widthOf(result.getType());
  LaneValues out;
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()); attr && width) {
      out.known = ~Mask(0);
      out.uniform = true;
      out.lane.fill(signExtend(attr.getValue().getSExtValue(), width));
    }
    warp.values[result] = out;
    return;
  }
  if (!width || op.getNumOperands() == 0 ||
      !llvm::all_of(op.getOperandTypes(),
                    [](Type t) { return widthOf(t) != 0; })) {
    warp.values[result] = out;
    return;
  }
  // Pointers into the map: nothing is inserted before `out` is stored.
  SmallVector<const LaneValues *, 3> in;
  Mask have = mask;
  for (Value operand : op.getOperands()) {
    in.push_back(&valueOf(warp, operand));
    have &= in.back()->known;
  }
  unsigned w0 = widthOf(op.getOperand(0).getType());
  auto compute = [&](int l) -> std::optional<int64_t> {
    int64_t a = in[0]->lane[l];
    int64_t b = in.size() > 1 ? in[1]->lane[l] : 0;
    uint64_t ua = zeroExtend(a, w0), ub = zeroExtend(b, w0);
    std::optional<int64_t> r;
    // Two's complement wraps, as the hardware's integers do.
    if (isa<arith::AddIOp>(op)) r = int64_t(uint64_t(a) + uint64_t(b));
    else if (isa<arith::SubIOp>(op)) r = int64_t(uint64_t(a) - uint64_t(b));
    else if (isa<arith::MulIOp>(op)) r = int64_t(uint64_t(a) * uint64_t(b));
    else if (isa<arith::DivUIOp>(op)) { if (ub) r = int64_t(ua / ub); }
    else if (isa<arith::RemUIOp>(op)) { if (ub) r = int64_t(ua % ub); }
    else if (isa<arith::CeilDivUIOp>(op)) { if (ub) r = int64_t(ua / ub + (ua % ub != 0)); }
    // Signed division: none for a zero divisor or INT64_MIN / -1.
    else if (isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                 arith::FloorDivSIOp>(op) &&
             (!b || (b == -1 && a == std::numeric_limits<int64_t>::min()))) {}
    else if (isa<arith::DivSIOp>(op)) r = a / b;
    else if (isa<arith::RemSIOp>(op)) r = a % b;
    else if (isa<arith::CeilDivSIOp>(op)) r = (a / b) + ((a % b != 0) && ((a < 0) == (b < 0)));
    else if (isa<arith::FloorDivSIOp>(op)) r = (a / b) - ((a % b != 0) && ((a < 0) != (b < 0)));
    else if (isa<arith::MinUIOp>(op)) r = ua < ub ? a : b;
    else if (isa<arith::MaxUIOp>(op)) r = ua > ub ? a : b;
    else if (isa<arith::MinSIOp>(op)) r = std::min(a, b);
    else if (isa<arith::MaxSIOp>(op)) r = std::max(a, b);
    else if (isa<arith::AndIOp>(op)) r = a & b;
    else if (isa<arith::OrIOp>(op)) r = a | b;
    else if (isa<arith::XOrIOp>(op)) r = a ^ b;
    else if (isa<arith::ShLIOp>(op)) { if (ub < w0) r = int64_t(ua << ub); }
    else if (isa<arith::ShRUIOp>(op)) { if (ub < w0) r = int64_t(ua >> ub); }
    else if (isa<arith::ShRSIOp>(op)) { if (ub < w0) r = a >> ub; }
    else if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op)) r = a;
    else if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) r = int64_t(ua);
    else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      bool c = false;
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq: c = a == b; break;
      case arith::CmpIPredicate::ne: c = a != b; break;
      case arith::CmpIPredicate::slt: c = a < b; break;
      case arith::CmpIPredicate::sle: c = a <= b; break;
      case arith::CmpIPredicate::sgt: c = a > b; break;
      case arith::CmpIPredicate::sge: c = a >= b; break;
      case arith::CmpIPredicate::ult: c = ua < ub; break;
      case arith::CmpIPredicate::ule: c = ua <= ub; break;
      case arith::CmpIPredicate::ugt: c = ua > ub; break;
      case arith::CmpIPredicate::uge: c = ua >= ub; break;
      }
      r = c;
    } else if (isa<arith::SelectOp>(op)) {
      r = a ? b : in[2]->lane[l];
    }
    return r;
  };
  if (llvm::all_of(in, [](const LaneValues *v) { return v->uniform; })) {
    if (std::optional<int64_t> r = compute(0)) {
      out.lane.fill(signExtend(*r, width));
      out.known = ~Mask(0);
      out.uniform = true;
    }
  } else {
    for (int l : lanesOf(have))
      if (std::optional<int64_t> r = compute(l)) {
        out.lane[l] = signExtend(*r, width);
        out.known |= Mask(1) << l;
      }
  }
  warp.values[result] = out;
}

std::optional<model::BarrierRef>
Simulation::barrierOf(Warp &warp, Operation *op, Value group, Value index,
                      int lane, int64_t cta) {
  auto it = groups.find(group);
  if (it == groups.end()) {
    skip(op, "an mbarrier that is not an nvgpu.mbarrier.create group of "
             "this kernel");
    return std::nullopt;
  }
  LaneValues v = valueOf(warp, index);
  if (!(v.known & (Mask(1) << lane))) {
    skip(op, "an mbarrier index that is not an integer function of thread "
             "ids, loop counters and sizes");
    return std::nullopt;
  }
  int64_t entries =
      cast<nvgpu::MBarrierGroupType>(group.getType()).getNumBarriers();
  int64_t i = v.lane[lane];
  if (i < 0 || i >= entries) {
    machine.report({machine.threadName(threadOf(warp, lane)) +
                        " uses mbarrier " + std::to_string(i) +
                        " of a group of " + std::to_string(entries) +
                        " (a stage index out of range)",
                    op});
    return std::nullopt;
  }
  return model::BarrierRef{(cta < 0 ? warp.cta : cta) * groupsPerCta +
                               it->second,
                           i};
}

std::optional<model::SharedBox>
Simulation::boxOf(Warp &warp, Operation *op, Value buffer, OperandRange dynamic,
                  ArrayRef<int64_t> staticOffsets, ArrayRef<int64_t> sizes,
                  int lane, int64_t cta) {
  auto it = buffers.find(buffer);
  if (it == buffers.end()) {
    skip(op, "a shared buffer that is not a tile.alloc_shared of this "
             "kernel");
    return std::nullopt;
  }
  model::SharedBox box;
  box.buffer = (cta < 0 ? warp.cta : cta) * buffersPerCta + it->second;
  if (sizes.size() > staticOffsets.size()) {
    skip(op, "a region of more dims than its buffer");
    return std::nullopt;
  }
  size_t lead = staticOffsets.size() - sizes.size();
  auto dyn = dynamic.begin();
  for (size_t d = 0; d < staticOffsets.size(); ++d) {
    int64_t offset = staticOffsets[d];
    if (ShapedType::isDynamic(offset)) {
      LaneValues v = valueOf(warp, *dyn++);
      if (!(v.known & (Mask(1) << lane))) {
        skip(op, "a shared-buffer offset that is not an integer function "
                 "of thread ids, loop counters and sizes");
        return std::nullopt;
      }
      offset = v.lane[lane];
    }
    int64_t end = 0;
    if (llvm::AddOverflow(offset, d < lead ? int64_t(1) : sizes[d - lead],
                          end)) {
      skip(op, "a region whose end overflows");
      return std::nullopt;
    }
    box.lo.push_back(offset);
    box.hi.push_back(end);
  }
  return box;
}

StepResult Simulation::stepIf(Warp &warp, Frame &frame, scf::IfOp ifOp) {
  LaneValues cond;
  if (!known(warp, ifOp.getCondition(), frame.mask, cond))
    return skip(ifOp, "a branch on a value that is not an integer function "
                      "of thread ids, loop counters and sizes");
  Mask thenMask = 0;
  for (int l : lanesOf(frame.mask))
    if (cond.lane[l])
      thenMask |= Mask(1) << l;
  Mask elseMask = ifOp.getElseRegion().empty() ? 0 : frame.mask & ~thenMask;
  for (Value result : ifOp.getResults()) {
    warp.values[result].known &= ~frame.mask;
    warp.values[result].uniform = false;
  }
  if (!thenMask && !elseMask) {
    ++frame.next;
    return StepResult::Next;
  }
  Frame inner;
  inner.owner = ifOp;
  if (thenMask) {
    inner.block = &ifOp.getThenRegion().front();
    inner.mask = thenMask;
    inner.elseMask = elseMask;
  } else {
    inner.block = &ifOp.getElseRegion().front();
    inner.mask = elseMask;
  }
  inner.next = inner.block->begin();
  warp.frames.push_back(inner);
  return StepResult::Next;
}

StepResult Simulation::stepFor(Warp &warp, Frame &frame, scf::ForOp forOp) {
  Block *body = forOp.getBody();
  Frame inner;
  inner.owner = forOp;
  inner.block = body;
  inner.next = body->begin();
  std::optional<int64_t> lb = uniform(warp, forOp.getLowerBound(), frame.mask);
  std::optional<int64_t> ub = uniform(warp, forOp.getUpperBound(), frame.mask);
  std::optional<int64_t> st = uniform(warp, forOp.getStep(), frame.mask);
  if (lb && ub && st && *st > 0) {
    inner.mask = *lb < *ub ? frame.mask : 0;
    inner.iv = *lb;
    inner.ub = *ub;
    inner.step = *st;
  } else {
    LaneValues lbs, ubs, steps;
    if (!known(warp, forOp.getLowerBound(), frame.mask, lbs) ||
        !known(warp, forOp.getUpperBound(), frame.mask, ubs) ||
        !known(warp, forOp.getStep(), frame.mask, steps))
      return skip(forOp, "a loop whose bounds are not integer functions of "
                         "thread ids, loop counters and sizes");
    inner.perLane = true;
    inner.mask = 0;
    for (int l : lanesOf(frame.mask)) {
      if (steps.lane[l] <= 0)
        return skip(forOp, "a loop with a step that is not positive");
      inner.ivs[l] = lbs.lane[l];
      inner.ubs[l] = ubs.lane[l];
      inner.steps[l] = steps.lane[l];
      if (lbs.lane[l] < ubs.lane[l])
        inner.mask |= Mask(1) << l;
    }
  }
  // Lanes that run no trip get the initial values now.
  Mask zeroTrip = frame.mask & ~inner.mask;
  for (auto [result, init] :
       llvm::zip(forOp.getResults(), forOp.getInitArgs())) {
    LaneValues v = valueOf(warp, init);
    LaneValues &out = warp.values[result];
    out.uniform = false;
    out.known &= ~frame.mask;
    for (int l : lanesOf(zeroTrip & v.known)) {
      out.lane[l] = v.lane[l];
      out.known |= Mask(1) << l;
    }
  }
  if (!inner.mask) {
    ++frame.next;
    return StepResult::Next;
  }
  for (auto [arg, init] :
       llvm::zip(body->getArguments().drop_front(), forOp.getInitArgs()))
  {
    LaneValues value = valueOf(warp, init); // before the map may grow
    warp.values[arg] = value;
  }
  warp.frames.push_back(inner);
  setInductionVariable(warp, warp.frames.back());
  return StepResult::Next;
}

void Simulation::setInductionVariable(Warp &warp, Frame &frame) {
  Value iv = cast<scf::ForOp>(frame.owner).getInductionVar();
  if (!frame.perLane)
    return setUniform(warp, iv, frame.iv, frame.mask);
  LaneValues &out = warp.values[iv];
  out.uniform = false;
  out.known = frame.mask;
  for (int l : lanesOf(frame.mask))
    out.lane[l] = frame.ivs[l];
}

StepResult Simulation::stepYield(Warp &warp, Operation &op) {
  Frame &frame = warp.frames.back();
  SmallVector<LaneValues, 4> yielded;
  for (Value v : op.getOperands())
    yielded.push_back(valueOf(warp, v));
  if (auto forOp = dyn_cast<scf::ForOp>(frame.owner)) {
    // Lanes past their bound leave with this trip's values.
    Mask finished = 0;
    if (frame.perLane) {
      for (int l : lanesOf(frame.mask))
        if (llvm::AddOverflow(frame.ivs[l], frame.steps[l], frame.ivs[l]) ||
            frame.ivs[l] >= frame.ubs[l])
          finished |= Mask(1) << l;
    } else if (llvm::AddOverflow(frame.iv, frame.step, frame.iv) ||
               frame.iv >= frame.ub) {
      finished = frame.mask;
    }
    for (auto [result, v] : llvm::zip(forOp.getResults(), yielded)) {
      LaneValues &out = warp.values[result];
      if (finished == frame.mask && frame.mask == warp.frames[warp.frames.size() - 2].mask) {
        out = v;
        continue;
      }
      out.uniform = false;
      for (int l : lanesOf(finished)) {
        out.lane[l] = v.lane[l];
        if (v.known & (Mask(1) << l))
          out.known |= Mask(1) << l;
        else
          out.known &= ~(Mask(1) << l);
      }
    }
    frame.mask &= ~finished;
    if (frame.mask) {
      Block *body = forOp.getBody();
      for (auto [arg, v] : llvm::zip(body->getArguments().drop_front(), yielded))
        warp.values[arg] = v;
      setInductionVariable(warp, frame);
      frame.next = body->begin();
      return StepResult::Next;
    }
    warp.frames.pop_back();
    ++warp.frames.back().next;
    return StepResult::Next;
  }
  auto ifOp = cast<scf::IfOp>(frame.owner);
  for (auto [result, v] : llvm::zip(ifOp.getResults(), yielded)) {
    LaneValues &out = warp.values[result];
    out.uniform = false;
    for (int l : lanesOf(frame.mask & v.known)) {
      out.lane[l] = v.lane[l];
      out.known |= Mask(1) << l;
    }
  }
  if (frame.elseMask) {
    frame.block = &ifOp.getElseRegion().front();
    frame.next = frame.block->begin();
    frame.mask = frame.elseMask;
    frame.elseMask = 0;
    return StepResult::Next;
  }
  warp.frames.pop_back();
  ++warp.frames.back().next;
  return StepResult::Next;
}

/// mbarriers, named barriers and the CTA barrier.
/// nvgpu.mbarrier.init / arrive / arrive.expect_tx / try_wait.parity,
/// each lane's; a wait blocks the warp until every lane's passes.
StepResult Simulation::stepMBarrier(Warp &warp, Frame &frame, Operation &op) {
  SmallVector<int, kLanes> lanes = lanesOf(frame.mask);
  auto predicateHolds = [&](Value predicate, int lane) {
    if (!predicate)
      return true;
    LaneValues p = valueOf(warp, predicate);
    return (p.known & (Mask(1) << lane)) && p.lane[lane];
  };
  if (auto init = dyn_cast<nvgpu::MBarrierInitOp>(op)) {
    LaneValues count = valueOf(warp, init.getCount());
    for (int l : lanes) {
      if (!predicateHolds(init.getPredicate(), l))
        continue;
      std::optional<model::BarrierRef> b =
          barrierOf(warp, &op, init.getBarriers(), init.getMbarId(), l);
      if (!b || !(count.known & (Mask(1) << l)))
        return stopped() ? StepResult::Stop
                         : skip(&op, "an mbarrier init count that is not "
                                     "known");
      machine.init(threadOf(warp, l), *b, count.lane[l], &op);
    }
    return StepResult::Next;
  }
  if (auto arrive = dyn_cast<nvgpu::MBarrierArriveOp>(op)) {
    for (int l : lanes) {
      std::optional<model::BarrierRef> b =
          barrierOf(warp, &op, arrive.getBarriers(), arrive.getMbarId(), l);
      if (!b)
        return StepResult::Stop;
      machine.arrive(threadOf(warp, l), *b, 1, &op);
    }
    return StepResult::Next;
  }
  if (auto arrive = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(op)) {
    LaneValues bytes = valueOf(warp, arrive.getTxcount());
    for (int l : lanes) {
      if (!predicateHolds(arrive.getPredicate(), l))
        continue;
      std::optional<model::BarrierRef> b =
          barrierOf(warp, &op, arrive.getBarriers(), arrive.getMbarId(), l);
      if (!b)
        return StepResult::Stop;
      if (!(bytes.known & (Mask(1) << l)))
        return skip(&op, "a transaction byte count that is not known");
      machine.expectTx(threadOf(warp, l), *b, bytes.lane[l], &op);
      machine.arrive(threadOf(warp, l), *b, 1, &op);
    }
    return StepResult::Next;
  }
  if (auto wait = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(op)) {
    LaneValues parity = valueOf(warp, wait.getPhaseParity());
    SmallVector<model::BarrierRef, kLanes> refs;
    for (int l : lanes) {
      std::optional<model::BarrierRef> b =
          barrierOf(warp, &op, wait.getBarriers(), wait.getMbarId(), l);
      if (!b)
        return StepResult::Stop;
      if (!(parity.known & (Mask(1) << l)))
        return skip(&op, "a wait parity that is not an integer function of "
                         "thread ids, loop counters and sizes");
      refs.push_back(*b);
      if (!machine.wouldPass(*b, parity.lane[l] & 1)) {
        warp.blockedOp = &op;
        warp.blockedBarrier = *b;
        warp.blockedNamed = -1;
        warp.blockedLane = l;
        warp.blockedParity = parity.lane[l] & 1;
        return StepResult::Blocked;
      }
    }
    for (auto [l, b] : llvm::zip(lanes, refs))
      machine.tryWait(threadOf(warp, l), b, parity.lane[l] & 1, &op);
    return StepResult::Next;
  }
  return skip(&op, "`" + op.getName().getStringRef() + "`");
}

/// tile.named_barrier (bar.sync or bar.arrive) and nvvm.barrier.arrive: the
/// id and count, and whether the warp only arrives (counts and goes on);
/// none (after a skip) when they differ between lanes or are unknown.
std::optional<bool> Simulation::namedBarrier(Warp &warp, Frame &frame,
                                             Operation &op, int64_t &id,
                                             int64_t &count) {
  Value namedId, namedCount;
  bool arriveOnly = true;
  if (auto named = dyn_cast<NamedBarrierOp>(op)) {
    namedId = named.getId();
    namedCount = named.getThreads();
    arriveOnly = named.getArrive();
  } else {
    auto arrive = cast<NVVM::BarrierArriveOp>(op);
    namedId = arrive.getBarrierId();
    namedCount = arrive.getNumberOfThreads();
  }
  std::optional<int64_t> v =
      namedId ? uniform(warp, namedId, frame.mask) : int64_t(0);
  std::optional<int64_t> n = uniform(warp, namedCount, frame.mask);
  if (!v || !n) {
    skip(&op, "a named barrier id or thread count that differs between "
              "lanes or is not known");
    return std::nullopt;
  }
  id = *v;
  count = *n;
  return arriveOnly;
}

StepResult Simulation::stepSync(Warp &warp, Frame &frame, Operation &op) {
  ++syncOps[warp.id];
  SmallVector<int, kLanes> lanes = lanesOf(frame.mask);
  if (isa<nvgpu::NVGPUDialect>(op.getDialect()))
    return stepMBarrier(warp, frame, op);
  // barrier.cluster.arrive / wait: every thread of the cluster.
  using Model = model::PipelineModel;
  if (isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp>(op)) {
    if (warp.clusterArrival)
      return skip(&op, "a second cluster arrive before its wait");
    int64_t generation = 0;
    for (int l : lanes)
      generation =
          machine.barArrive(threadOf(warp, l), Model::kClusterBarrier,
                            Model::kAllThreadsOfCluster, &op);
    warp.clusterArrival = generation;
    return StepResult::Next;
  }
  if (isa<NVVM::ClusterWaitOp>(op)) {
    if (!warp.clusterArrival)
      return skip(&op, "a cluster wait with no arrive before it");
    if (!machine.barPassed(threadOf(warp, lanes.front()),
                           Model::kClusterBarrier, *warp.clusterArrival)) {
      warp.blockedOp = &op;
      warp.blockedBarrier.reset();
      warp.blockedNamed = Model::kClusterBarrier;
      warp.blockedLane = lanes.front();
      return StepResult::Blocked;
    }
    warp.clusterArrival.reset();
    return StepResult::Next;
  }
  // bar.sync: a named barrier (id, thread count) or the CTA's.
  int64_t id = -1, count = -1;
  if (auto bar = dyn_cast<NVVM::BarrierOp>(op)) {
    if (op.getNumResults())
      return skip(&op, "a barrier reduction");
    if (bar.getBarrierId()) {
      std::optional<int64_t> v = uniform(warp, bar.getBarrierId(), frame.mask);
      if (!v)
        return skip(&op, "a named barrier id that differs between lanes or "
                         "is not known");
      id = *v;
    }
    if (bar.getNumberOfThreads()) {
      std::optional<int64_t> v =
          uniform(warp, bar.getNumberOfThreads(), frame.mask);
      if (!v)
        return skip(&op, "a named barrier thread count that is not known");
      count = *v;
      if (id < 0)
        id = 0;
    }
    if (id == 0 && count < 0)
      id = -1;
  }
  bool arriveOnly = false;
  if (isa<NamedBarrierOp, NVVM::BarrierArriveOp>(op)) {
    std::optional<bool> arrive = namedBarrier(warp, frame, op, id, count);
    if (!arrive)
      return StepResult::Stop;
    arriveOnly = *arrive;
  }
  if (arriveOnly) {
    for (int l : lanes)
      machine.barArrive(threadOf(warp, l), id, count, &op,
                        l == lanes.front() ? kLanes - int64_t(lanes.size()) + 1
                                           : 1);
    return StepResult::Next;
  }
  if (!warp.arrivedAt) {
    int64_t generation = 0;
    // At a counted barrier a warp arrives as 32 threads, whatever its
    // active lanes (its first lane carries the rest).
    for (int l : lanes) {
      int64_t arrivals = 1;
      if (count > 0 && l == lanes.front())
        arrivals = kLanes - int64_t(lanes.size()) + 1;
      generation =
          machine.barArrive(threadOf(warp, l), id, count, &op, arrivals);
    }
    warp.arrivedAt = {id, generation};
  }
  if (!machine.barPassed(threadOf(warp, lanes.front()), warp.arrivedAt->first,
                         warp.arrivedAt->second)) {
    warp.blockedOp = &op;
    warp.blockedBarrier.reset();
    warp.blockedNamed = warp.arrivedAt->first;
    warp.blockedLane = lanes.front();
    return StepResult::Blocked;
  }
  warp.arrivedAt.reset();
  // tcgen05.alloc / dealloc are CTA-collective: a CTA barrier, then (for a
  // release) the columns go while no MMA may still write them.
  if (auto dealloc = dyn_cast<TmemDeallocOp>(op)) {
    Operation *alloc = dealloc.getAddress().getDefiningOp();
    auto views = tmemViews.find(alloc);
    if (views != tmemViews.end())
      machine.releaseTensorMemory(threadOf(warp, lanes.front()),
                                  views->second, &op);
  }
  return StepResult::Next;
}

/// The CTA ranks a lane's copy lands in: a multicast mask's bits, a DSMEM
/// copy's peer, or its own CTA; none (after a report or a skip) otherwise.
std::optional<SmallVector<int64_t, 4>>
Simulation::copyTargets(Warp &warp, CopyAsyncOp copy, int lane) {
  Operation &op = *copy;
  SmallVector<int64_t, 4> ctaList;
  Value rank = copy.getCtaMask() ? copy.getCtaMask() : copy.getRemoteCta();
  if (!rank)
    return SmallVector<int64_t, 4>{warp.cta};
  const LaneValues &v = valueOf(warp, rank);
  if (!(v.known & (Mask(1) << lane))) {
    skip(&op, "a multicast mask or peer CTA that is not an integer "
              "function of thread ids, ranks and sizes");
    return std::nullopt;
  }
  uint64_t value = zeroExtend(v.lane[lane], widthOf(rank.getType()));
  if (copy.getCtaMask()) {
    for (int64_t c = 0; c < 16; ++c)
      if (value & (uint64_t(1) << c))
        ctaList.push_back(c);
  } else {
    ctaList.push_back(int64_t(value));
  }
  for (int64_t c : ctaList)
    if (c >= ctas) {
      machine.report({machine.threadName(threadOf(warp, lane)) +
                          (copy.getCtaMask()
                               ? " multicasts to CTA "
                               : " copies into the shared memory of CTA ") +
                          std::to_string(c) + ", outside the cluster of " +
                          std::to_string(ctas),
                      &op});
      return std::nullopt;
    }
  return ctaList;
}

/// A cooperative copy (cp.async, the ldgsts variant): each thread of the
/// exec scope copies a share of the region and completes its bytes on the
/// mbarrier. Modelled as an even split of the bytes and a slice of the
/// region's rows per thread (the slices tile the region, so the phase
/// completes only when every thread of the scope has issued its share):
/// narrows `box` to the slice of the scope's thread `rank` and returns its
/// bytes.
static int64_t cooperativeShare(CopyAsyncOp copy, int64_t scopeThreads,
                                int64_t rank, int64_t bytes,
                                model::SharedBox &box) {
  size_t rowDim = box.lo.size() - copy.getSizes().size();
  int64_t rows = copy.getSizes().front();
  int64_t first = box.lo[rowDim];
  box.lo[rowDim] = first + rows * rank / scopeThreads;
  box.hi[rowDim] = first + rows * (rank + 1) / scopeThreads;
  return bytes * (rank + 1) / scopeThreads - bytes * rank / scopeThreads;
}

/// The model's kind of a tile async group.
static model::AsyncGroupKind modelGroupKind(AsyncGroup group) {
  switch (group) {
  case AsyncGroup::bulk:
    return model::AsyncGroupKind::Bulk;
  case AsyncGroup::wgmma:
    return model::AsyncGroupKind::Wgmma;
  case AsyncGroup::cp_async:
    return model::AsyncGroupKind::CpAsync;
  }
  return model::AsyncGroupKind::CpAsync;
}

/// The bytes of a copy's region; none above 2^40 (or overflowing).
static std::optional<int64_t> copyBytes(CopyAsyncOp copy) {
  int64_t elements = 1, bits = 0;
  for (int64_t size : copy.getSizes())
    if (size < 0 || llvm::MulOverflow(elements, size, elements))
      return std::nullopt;
  if (llvm::MulOverflow(elements, int64_t(copy.getSrcType().getElementBits()),
                        bits) ||
      bits / 8 > (int64_t(1) << 40))
    return std::nullopt;
  return bits / 8;
}

/// A cp.async copy without an mbarrier, lane `l`'s share: it lands when
/// the thread's cp.async group retires. False when the run must stop.
bool Simulation::stepGroupCopy(Warp &warp, CopyAsyncOp copy, int l,
                               int64_t scopeThreads, int64_t bytes) {
  Operation *op = copy;
  std::optional<model::SharedBox> box =
      boxOf(warp, op, copy.getDst(), copy.getDstOffsets(),
            copy.getDstStaticOffsets(), copy.getSizes(), l);
  if (!box)
    return false;
  model::SharedBox region = *box;
  if (scopeThreads > 1)
    cooperativeShare(copy, scopeThreads, localThreadOf(warp, l) % scopeThreads,
                     bytes, *box);
  machine.copyIntoSharedByGroup(threadOf(warp, l), *box, op, scopeThreads,
                                region);
  return !machine.failed();
}

/// A copy_async: TMA loads (multicast), DSMEM copies, TMA stores and
/// tcgen05.cp, each issuing lane's; cp.async copies shared by a scope.
StepResult Simulation::stepCopy(Warp &warp, Frame &frame, CopyAsyncOp copy) {
  Operation &op = *copy;
  SmallVector<int, kLanes> lanes = lanesOf(frame.mask);
  MemoryScope from = copy.getSrcType().getScope();
  MemoryScope to = copy.getDstType().getScope();
  int64_t scopeThreads = 1;
  if (copy.getExec() != ExecScope::thread) {
    std::optional<int64_t> threads =
        copy_async::execScopeThreads(copy, copy.getExec());
    if (!threads || from != MemoryScope::global || to != MemoryScope::shared ||
        copy.getSizes().empty() || copy.getCtaMask() || copy.getRemoteCta() ||
        copy.getMbarCta())
      return skip(&op, "a cooperative copy other than global -> own shared "
                       "memory");
    scopeThreads = *threads;
  }
  auto targets = [&](int lane) { return copyTargets(warp, copy, lane); };
  std::optional<int64_t> regionBytes = copyBytes(copy);
  if (!regionBytes)
    return skip(&op, "a copy of more than 2^40 bytes");
  int64_t bytes = *regionBytes;
  for (int l : lanes) {
    int64_t thread = threadOf(warp, l);
    if ((from == MemoryScope::global || from == MemoryScope::shared) &&
        to == MemoryScope::shared) {
      if (!copy.getMbar() && from == MemoryScope::global) {
        if (!stepGroupCopy(warp, copy, l, scopeThreads, bytes))
          return StepResult::Stop;
        continue;
      }
      if (!copy.getMbar() || !copy.getMbarIndex())
        return skip(&op, "a copy into shared memory that completes on no "
                         "mbarrier group entry");
      std::optional<SmallVector<int64_t, 4>> into = targets(l);
      if (!into)
        return StepResult::Stop;
      // A DSMEM copy reads its own CTA's source until it completes.
      std::optional<model::SharedBox> source;
      if (from == MemoryScope::shared) {
        source = boxOf(warp, &op, copy.getSrc(), copy.getSrcOffsets(),
                       copy.getSrcStaticOffsets(), copy.getSizes(), l);
        if (!source)
          return StepResult::Stop;
      }
      // With mbar_cta the bytes complete on the barrier of the CTA in the
      // destination's pair at mbar_cta's place in the issuer's.
      std::optional<int64_t> pairSlot;
      if (copy.getMbarCta()) {
        const LaneValues &v = valueOf(warp, copy.getMbarCta());
        if (!(v.known & (Mask(1) << l)))
          return skip(&op, "an mbar_cta that is not known");
        if (v.lane[l] < 0 || v.lane[l] / 2 != warp.cta / 2 ||
            v.lane[l] >= ctas) {
          machine.report({machine.threadName(thread) +
                              " completes a copy on the barrier of CTA " +
                              std::to_string(v.lane[l]) +
                              ", not a CTA of its pair",
                          &op});
          return StepResult::Stop;
        }
        pairSlot = v.lane[l] & 1;
      }
      for (int64_t cta : *into) {
        int64_t signalled = pairSlot ? cta / 2 * 2 + *pairSlot : cta;
        if (signalled >= ctas)
          return skip(&op, "a pair copy landing outside the cluster");
        std::optional<model::BarrierRef> b = barrierOf(
            warp, &op, copy.getMbar(), copy.getMbarIndex(), l, signalled);
        std::optional<model::SharedBox> box =
            b ? boxOf(warp, &op, copy.getDst(), copy.getDstOffsets(),
                      copy.getDstStaticOffsets(), copy.getSizes(), l, cta)
              : std::nullopt;
        if (!box)
          return StepResult::Stop;
        int64_t share =
            scopeThreads == 1
                ? bytes
                : cooperativeShare(copy, scopeThreads,
                                   localThreadOf(warp, l) % scopeThreads,
                                   bytes, *box);
        machine.copyIntoShared(thread, *box, *b, share, &op,
                               source ? &*source : nullptr);
        if (machine.failed())
          return StepResult::Stop;
      }
    } else if (from == MemoryScope::shared && to == MemoryScope::global) {
      std::optional<model::SharedBox> box =
          boxOf(warp, &op, copy.getSrc(), copy.getSrcOffsets(),
                copy.getSrcStaticOffsets(), copy.getSizes(), l);
      if (!box)
        return StepResult::Stop;
      int64_t threads[] = {thread};
      machine.asyncRead(threads, model::AsyncGroupKind::Bulk, *box, &op);
    } else if (from == MemoryScope::shared && to == MemoryScope::tmem) {
      // tcgen05.cp: on the tcgen05 pipe, completed by a commit.
      std::optional<model::SharedBox> src =
          boxOf(warp, &op, copy.getSrc(), copy.getSrcOffsets(),
                copy.getSrcStaticOffsets(), copy.getSizes(), l);
      std::optional<model::SharedBox> dst =
          src ? boxOf(warp, &op, copy.getDst(), copy.getDstOffsets(),
                      copy.getDstStaticOffsets(), copy.getSizes(), l)
              : std::nullopt;
      if (!dst)
        return StepResult::Stop;
      model::SharedBox reads[] = {*src}, writes[] = {*dst};
      machine.tcgen05Op(thread, reads, writes, &op);
    } else {
      return skip(&op, "a copy between these memories");
    }
    if (machine.failed())
      return StepResult::Stop;
  }
  return StepResult::Next;
}

/// A gemm_async: a tcgen05 MMA per issuing lane, or a wgmma the
/// warpgroup's four warps issue together.
StepResult Simulation::stepGemm(Warp &warp, Frame &frame, GemmAsyncOp gemm) {
  Operation &op = *gemm;
  SmallVector<int, kLanes> lanes = lanesOf(frame.mask);
  ArrayRef<int64_t> mnk = gemm.getSizes();
  // With cta_group 2 the pair shares the MMA: each CTA's buffers hold
  // M/2 rows of A and C and N/2 rows of B, at the same offsets.
  int64_t group = gemm.getCtaGroup().value_or(1);
  if (group == 2 && warp.cta / 2 * 2 + 1 >= ctas)
    return skip(&op, "a cta_group 2 MMA outside a cluster of pairs");
  int64_t m = mnk[0] / group, n = mnk[1] / group;
  SmallVector<int64_t> a = gemm.getTransposeA()
                               ? SmallVector<int64_t>{mnk[2], m}
                               : SmallVector<int64_t>{m, mnk[2]};
  SmallVector<int64_t> b = gemm.getTransposeB()
                               ? SmallVector<int64_t>{n, mnk[2]}
                               : SmallVector<int64_t>{mnk[2], n};
  // The operands in shared or tensor memory, as boxes, in each CTA the MMA
  // spans.
  auto boxes = [&](int lane, SmallVectorImpl<model::SharedBox> &reads,
                   SmallVectorImpl<model::SharedBox> &writes) {
    auto add = [&](Value buffer, OperandRange dynamic,
                   ArrayRef<int64_t> offsets, ArrayRef<int64_t> extents,
                   bool isWrite) {
      MemoryScope scope = cast<BufferType>(buffer.getType()).getScope();
      if (scope != MemoryScope::shared && scope != MemoryScope::tmem)
        return true;
      int64_t first = group == 2 ? warp.cta / 2 * 2 : warp.cta;
      for (int64_t cta = first; cta < first + group; ++cta) {
        std::optional<model::SharedBox> box =
            boxOf(warp, &op, buffer, dynamic, offsets, extents, lane, cta);
        if (!box)
          return false;
        (isWrite ? writes : reads).push_back(*box);
      }
      return true;
    };
    return add(gemm.getA(), gemm.getAOffsets(), gemm.getAStaticOffsets(), a,
               false) &&
           add(gemm.getB(), gemm.getBOffsets(), gemm.getBStaticOffsets(), b,
               false) &&
           add(gemm.getC(), gemm.getCOffsets(), gemm.getCStaticOffsets(),
               {m, mnk[1]}, true);
  };
  if (gemm.getExec() == ExecScope::thread ||
      gemm.getExec() == ExecScope::warp) {
    // tcgen05: each issuing lane starts an MMA on the tcgen05 pipe (one
    // elected lane for `exec warp`).
    if (gemm.getExec() == ExecScope::warp)
      lanes.resize(1);
    for (int l : lanes) {
      SmallVector<model::SharedBox, 4> reads, writes;
      if (!boxes(l, reads, writes))
        return StepResult::Stop;
      machine.tcgen05Op(threadOf(warp, l), reads, writes, &op);
      if (machine.failed())
        return StepResult::Stop;
    }
    return StepResult::Next;
  }
  if (gemm.getExec() != ExecScope::warpgroup)
    return skip(&op, "an MMA issued by a scope other than a thread or a "
                     "warpgroup");
  // wgmma: the four warps of the warpgroup issue it together (a warp's
  // wait for it cannot return before every warp issued it); its shared
  // operands stay read until their wgmma group retires (the register
  // accumulator is the wgmma-register check's).
  int64_t together = model::PipelineModel::kWgmmaIssue + warp.localWarp / 4;
  if (!warp.arrivedAt) {
    int64_t generation = 0;
    for (int l : lanes)
      generation = machine.barArrive(threadOf(warp, l), together, 128, &op);
    warp.arrivedAt = {together, generation};
  }
  if (!machine.barPassed(threadOf(warp, lanes.front()), together,
                         warp.arrivedAt->second)) {
    warp.blockedOp = &op;
    warp.blockedBarrier.reset();
    warp.blockedNamed = together;
    warp.blockedLane = lanes.front();
    return StepResult::Blocked;
  }
  // This issue's instance: the warpgroup and its issue generation.
  int64_t warpgroup = (warp.cta * blockSize) / 128 + warp.localWarp / 4;
  int64_t instance = (warp.arrivedAt->second * 4096 + warpgroup) * 4;
  warp.arrivedAt.reset();
  SmallVector<int64_t> threads;
  for (int l : lanes)
    threads.push_back(threadOf(warp, l));
  if (group != 1)
    return skip(&op, "a wgmma with cta_group 2");
  SmallVector<model::SharedBox, 3> reads, writes;
  if (!boxes(lanes.front(), reads, writes))
    return StepResult::Stop;
  for (const model::SharedBox &box : reads) {
    machine.asyncRead(threads, model::AsyncGroupKind::Wgmma, box, &op,
                      instance++, /*joiners=*/4);
    if (machine.failed())
      return StepResult::Stop;
  }
  return StepResult::Next;
}

/// tile.mbarrier_arrive_remote: arrivals on a cluster peer's barrier.
StepResult Simulation::stepArriveRemote(Warp &warp, Frame &frame,
                                        MBarrierArriveRemoteOp remote) {
  Operation &op = *remote;
  SmallVector<int, kLanes> lanes = lanesOf(frame.mask);
  const LaneValues &cta = valueOf(warp, remote.getCta());
  for (int l : lanes) {
    int64_t count = 1;
    if (remote.getCount()) {
      const LaneValues &c = valueOf(warp, remote.getCount());
      if (!(c.known & (Mask(1) << l)))
        return skip(&op, "a remote arrival count that is not known");
      count = c.lane[l];
      if (count < 1 || count >= (int64_t(1) << 20)) {
        machine.report({machine.threadName(threadOf(warp, l)) +
                            " arrives " + std::to_string(count) +
                            " times at once (an mbarrier counts 1 to 2^20 "
                            "- 1 arrivals)",
                        &op});
        return StepResult::Stop;
      }
    }
    if (!(cta.known & (Mask(1) << l)) || !remote.getMbarIndex())
      return skip(&op, "a remote arrival whose CTA or barrier is not an "
                       "integer function of thread ids, ranks and sizes");
    int64_t rank = cta.lane[l];
    if (rank < 0 || rank >= ctas) {
      machine.report({machine.threadName(threadOf(warp, l)) +
                          " arrives on the mbarrier of CTA " +
                          std::to_string(rank) + ", outside the cluster of " +
                          std::to_string(ctas),
                      &op});
      return StepResult::Stop;
    }
    std::optional<model::BarrierRef> b = barrierOf(
        warp, &op, remote.getMbar(), remote.getMbarIndex(), l, rank);
    if (!b)
      return StepResult::Stop;
    machine.arrive(threadOf(warp, l), *b, count, &op);
  }
  return StepResult::Next;
}

/// tile.store / tile.load of shared or tensor memory: an ordinary access
/// by the warp (its first lane's box).
StepResult Simulation::stepAccess(Warp &warp, Frame &frame, Operation &op,
                                  Value buffer, OperandRange dynamic,
                                  ArrayRef<int64_t> staticOffsets,
                                  BufferType local, bool write) {
  MemoryScope scope = cast<BufferType>(buffer.getType()).getScope();
  if (scope != MemoryScope::shared && scope != MemoryScope::tmem)
    return StepResult::Next;
  int lane = lanesOf(frame.mask).front();
  std::optional<model::SharedBox> box = boxOf(
      warp, &op, buffer, dynamic, staticOffsets, local.getShape(), lane);
  if (!box)
    return StepResult::Stop;
  if (scope == MemoryScope::shared)
    narrowToLanes(warp, frame.mask, local, *box);
  if (write)
    machine.writeShared(threadOf(warp, lane), *box, &op);
  else
    machine.readShared(threadOf(warp, lane), *box, &op);
  return machine.failed() ? StepResult::Stop : StepResult::Next;
}

/// A register tile's access by the lanes of `mask` only (a warp that stores
/// or loads its own rows in a branch the others do not take): `box`, the
/// whole tile's region, narrowed to the elements those threads hold
/// (localElements), for layouts spread over a warp's or a warpgroup's
/// threads without replicas. Other layouts keep the whole region.
void Simulation::narrowToLanes(Warp &warp, Mask mask, BufferType local,
                               model::SharedBox &box) {
  // The emitted code reads its thread digits from %tid.x: a 1-D block only.
  std::optional<TileLayout> layout = local.getEffectiveLayout();
  if (local.getScope() != MemoryScope::local || blockDims[1] != 1 ||
      blockDims[2] != 1 || !layout || !local.hasStaticShape() ||
      !layout->replica().empty() || !layout->group(local.getShape()))
    return;
  OrReason<LocalThreads> threads = localThreads(*layout);
  if (!threads || threads->threads < 32)
    return;
  LocalElements elements = localElements(local);
  if (elements.elements.empty())
    return;
  size_t rank = local.getRank(), lead = box.lo.size() - rank;
  SmallVector<int64_t, 4> lo(rank, std::numeric_limits<int64_t>::max());
  SmallVector<int64_t, 4> hi(rank, std::numeric_limits<int64_t>::min());
  for (int l : lanesOf(mask)) {
    int64_t thread = localThreadOf(warp, l) % threads->threads;
    SmallVector<int64_t, 4> base(rank, 0);
    for (const LocalElements::ThreadIter &t : elements.threadIters)
      base[t.dim] += (thread / t.threadStride) % t.extent * t.coordStep;
    for (const LocalElements::Element &e : elements.elements)
      for (size_t d = 0; d < rank; ++d) {
        lo[d] = std::min(lo[d], base[d] + e.coord[d]);
        hi[d] = std::max(hi[d], base[d] + e.coord[d] + 1);
      }
  }
  for (size_t d = 0; d < rank; ++d) {
    int64_t start = box.lo[lead + d];
    box.lo[lead + d] = start + lo[d];
    box.hi[lead + d] = start + hi[d];
  }
}

StepResult Simulation::stepTile(Warp &warp, Frame &frame, Operation &op) {
  ++syncOps[warp.id];
  SmallVector<int, kLanes> lanes = lanesOf(frame.mask);
  if (auto copy = dyn_cast<CopyAsyncOp>(op))
    return stepCopy(warp, frame, copy);
  if (auto gemm = dyn_cast<GemmAsyncOp>(op))
    return stepGemm(warp, frame, gemm);
  if (auto commit = dyn_cast<MmaCommitOp>(op)) {
    if (!commit.getMbarIndex() || (commit.getExec() != ExecScope::thread &&
                                   commit.getExec() != ExecScope::warp))
      return skip(&op, "a tcgen05.commit not issued by a thread or a warp "
                       "on an mbarrier group entry");
    if (commit.getExec() == ExecScope::warp)
      lanes.resize(1);
    for (int l : lanes) {
      // A multicast commit arrives on the barrier in each CTA of its mask.
      SmallVector<int64_t, 4> into = {warp.cta};
      if (commit.getCtaMask()) {
        const LaneValues &mask = valueOf(warp, commit.getCtaMask());
        if (!(mask.known & (Mask(1) << l)))
          return skip(&op, "a commit's cta_mask that is not known");
        into.clear();
        for (int64_t c = 0; c < 16; ++c)
          if ((zeroExtend(mask.lane[l], 16) >> c) & 1) {
            if (c >= ctas) {
              machine.report({machine.threadName(threadOf(warp, l)) +
                                  " commits to CTA " + std::to_string(c) +
                                  ", outside the cluster of " +
                                  std::to_string(ctas),
                              &op});
              return StepResult::Stop;
            }
            into.push_back(c);
          }
      }
      for (int64_t cta : into) {
        std::optional<model::BarrierRef> b = barrierOf(
            warp, &op, commit.getMbar(), commit.getMbarIndex(), l, cta);
        if (!b)
          return StepResult::Stop;
        machine.tcgen05Commit(threadOf(warp, l), *b, &op);
      }
    }
    return StepResult::Next;
  }
  if (auto commit = dyn_cast<CommitGroupOp>(op)) {
    model::AsyncGroupKind kind = modelGroupKind(commit.getGroup());
    for (int l : lanes)
      machine.commitGroup(threadOf(warp, l), kind);
    return StepResult::Next;
  }
  if (auto wait = dyn_cast<WaitGroupOp>(op)) {
    model::AsyncGroupKind kind = modelGroupKind(wait.getGroup());
    for (int l : lanes)
      machine.waitGroup(threadOf(warp, l), kind, wait.getPending());
    return StepResult::Next;
  }
  if (auto fence = dyn_cast<FenceOp>(op)) {
    // fence.mbarrier_init publishes inits to the cluster's async proxy,
    // fence.proxy.async to the CTA's.
    if (fence.getKind() == FenceKind::mbarrier_init ||
        fence.getKind() == FenceKind::proxy_async)
      for (int l : lanes)
        machine.fenceInit(threadOf(warp, l),
                          fence.getKind() == FenceKind::mbarrier_init);
    return StepResult::Next;
  }
  if (auto store = dyn_cast<StoreOp>(op))
    return stepAccess(warp, frame, op, store.getDst(), store.getDstOffsets(),
                      store.getDstStaticOffsets(), store.getSrc().getType(),
                      /*write=*/true);
  if (auto load = dyn_cast<LoadOp>(op))
    return stepAccess(warp, frame, op, load.getSrc(), load.getSrcOffsets(),
                      load.getSrcStaticOffsets(), load.getDst().getType(),
                      /*write=*/false);
  if (auto remote = dyn_cast<MBarrierArriveRemoteOp>(op))
    return stepArriveRemote(warp, frame, remote);
  return StepResult::Next;
}

/// A shuffle of a 32-bit integer among the running lanes (the
/// kernels broadcast a warpgroup index from lane 0 so that ptxas knows
/// it is warp-uniform): lane l reads lane j of the PTX ISA's shfl.sync
/// rule, itself where j is outside l's segment; unknown where j is not
/// running or its value is unknown.
bool Simulation::stepShuffle(Warp &warp, Frame &frame, NVVM::ShflOp shfl) {
  if (shfl.getReturnValueAndIsValid() ||
      !shfl.getVal().getType().isInteger(32))
    return false;
  const LaneValues &val = valueOf(warp, shfl.getVal());
  const LaneValues &offset = valueOf(warp, shfl.getOffset());
  const LaneValues &clamp = valueOf(warp, shfl.getMaskAndClamp());
  LaneValues out;
  out.uniform = false;
  for (int l : lanesOf(frame.mask)) {
    if (!(offset.known >> l & 1) || !(clamp.known >> l & 1))
      continue;
    int64_t b = offset.lane[l] & 0x1f, c = clamp.lane[l];
    int64_t segMask = (c >> 8) & 0x1f;
    int64_t minLane = l & segMask;
    int64_t maxLane = minLane | ((c & 0x1f) & ~segMask);
    int64_t j = l;
    switch (shfl.getKind()) {
    case NVVM::ShflKind::idx:
      j = minLane | (b & ~segMask);
      break;
    case NVVM::ShflKind::up:
      j = l - b;
      break;
    case NVVM::ShflKind::down:
      j = l + b;
      break;
    case NVVM::ShflKind::bfly:
      j = l ^ b;
      break;
    }
    bool inside = shfl.getKind() == NVVM::ShflKind::up ? j >= maxLane
                                                       : j <= maxLane;
    if (!inside)
      j = l;
    if (j < 0 || j >= kLanes || !(frame.mask >> j & 1) ||
        !(val.known >> j & 1))
      continue;
    out.known |= Mask(1) << l;
    out.lane[l] = val.lane[j];
  }
  warp.values[shfl.getResult()] = out;
  return true;
}

/// Thread and lane ids, elect.sync, block and cluster coordinates and
/// dims, memref.dim: true when `op` is one (its results are set).
bool Simulation::stepValue(Warp &warp, Frame &frame, Operation &op) {
  StringRef name = op.getName().getStringRef();
  // Sample values: one CTA of one, sizes of `sample`.
  std::optional<int64_t> special;
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(op)) {
    LaneValues &out = warp.values[tid.getResult()];
    out.known = frame.mask;
    out.uniform = false;
    for (int l : lanesOf(frame.mask)) {
      int64_t t = localThreadOf(warp, l);
      int64_t x = t % blockDims[0], y = t / blockDims[0] % blockDims[1],
              z = t / (blockDims[0] * blockDims[1]);
      out.lane[l] = tid.getDimension() == gpu::Dimension::x   ? x
                    : tid.getDimension() == gpu::Dimension::y ? y
                                                              : z;
    }
    return true;
  }
  if (isa<gpu::LaneIdOp>(op) || name == "nvvm.read.ptx.sreg.laneid") {
    LaneValues &out = warp.values[op.getResult(0)];
    out.known = frame.mask;
    out.uniform = false;
    for (int l : lanesOf(frame.mask))
      out.lane[l] = l;
    return true;
  }
  if (name == "nvvm.read.ptx.sreg.tid.x" && blockDims[1] == 1 &&
      blockDims[2] == 1) {
    LaneValues &out = warp.values[op.getResult(0)];
    out.known = frame.mask;
    out.uniform = false;
    for (int l : lanesOf(frame.mask))
      out.lane[l] = localThreadOf(warp, l);
    return true;
  }
  if (auto shfl = dyn_cast<NVVM::ShflOp>(op))
    if (stepShuffle(warp, frame, shfl))
      return true;
  if (isa<NVVM::ElectSyncOp>(op)) {
    SmallVector<int, kLanes> lanes = lanesOf(frame.mask);
    LaneValues &out = warp.values[op.getResult(0)];
    out.known = frame.mask;
    out.uniform = false;
    for (int l : lanes)
      out.lane[l] = l == lanes.front() ? -1 : 0;
    return true;
  }
  // The CTAs simulated are one cluster: CTA (x, y, z) of it is block
  // (x, y, z) of the grid, whose size is the cluster's or, given, the
  // kernel's tile.sample_grid.
  std::array<int64_t, 3> ctaXyz = {
      warp.cta % clusterDims[0], warp.cta / clusterDims[0] % clusterDims[1],
      warp.cta / (clusterDims[0] * clusterDims[1])};
  auto axis = [&](StringRef suffix) {
    return suffix.ends_with(".x") ? 0 : suffix.ends_with(".y") ? 1 : 2;
  };
  if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
    special = blockDims[int(dim.getDimension())];
  else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
    special = ctaXyz[int(id.getDimension())];
  else if (auto id = dyn_cast<gpu::ClusterBlockIdOp>(op))
    special = ctaXyz[int(id.getDimension())];
  else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
    special = gridDims[int(dim.getDimension())];
  else if (auto dim = dyn_cast<gpu::ClusterDimBlocksOp>(op))
    special = clusterDims[int(dim.getDimension())];
  else if (name.starts_with("nvvm.read.ptx.sreg.ctaid") ||
           name.starts_with("nvvm.read.ptx.sreg.cluster.ctaid"))
    special = ctaXyz[axis(name)];
  else if (name.starts_with("nvvm.read.ptx.sreg.nctaid"))
    special = gridDims[axis(name)];
  else if (name.starts_with("nvvm.read.ptx.sreg.cluster.nctaid"))
    special = clusterDims[axis(name)];
  else if (name == "nvvm.read.ptx.sreg.cluster.ctarank")
    special = warp.cta;
  else if (name == "nvvm.read.ptx.sreg.cluster.nctarank")
    special = ctas;
  else if (auto dim = dyn_cast<memref::DimOp>(op)) {
    auto type = dyn_cast<MemRefType>(dim.getSource().getType());
    std::optional<int64_t> index = dim.getConstantIndex();
    if (auto contents = sampleContents(dim.getSource()); !contents.empty())
      special = int64_t(contents.size());
    else
      special = type && index && *index >= 0 && *index < type.getRank() &&
                        !type.isDynamicDim(*index)
                    ? type.getDimSize(*index)
                    : sample;
  } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
    // An argument's element, where the kernel gives its sample contents
    // (tile.sample_contents) and the index is known: a sequence offset
    // or an expert count read from memory.
    if (load.getIndices().size() == 1)
      if (std::optional<int64_t> i =
              uniform(warp, load.getIndices().front(), frame.mask))
        special = sampledElement(load.getMemRef(), *i);
  } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
    stepSampledStore(warp, frame, store);
    return true;
  } else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op)) {
    return stepAtomic(warp, frame, rmw);
  }
  if (special) {
    setUniform(warp, op.getResult(0), *special, frame.mask);
    return true;
  }
  return false;
}

/// A store into a sampled argument: later loads and atomics read it (an
/// index or value the run does not know makes the argument unknown).
void Simulation::stepSampledStore(Warp &warp, Frame &frame,
                                  memref::StoreOp store) {
  LaneValues index, value;
  if (sampleContents(store.getMemRef()).empty())
    return;
  if (store.getIndices().size() != 1 ||
      !known(warp, store.getIndices().front(), frame.mask, index) ||
      !known(warp, store.getValue(), frame.mask, value)) {
    unknownContents.insert(store.getMemRef());
    return;
  }
  for (int l : lanesOf(frame.mask))
    if (sampledElement(store.getMemRef(), index.lane[l]))
      written[{store.getMemRef(), index.lane[l]}] = value.lane[l];
}

/// An integer atomic on a sampled argument (a split-K tile's arrival
/// counter): lane by lane, each lane's result the element before its own
/// update. Elsewhere the result is unknown (a branch on it is not followed).
bool Simulation::stepAtomic(Warp &warp, Frame &frame,
                            memref::AtomicRMWOp rmw) {
  LaneValues &out = warp.values[rmw.getResult()];
  out.known &= ~frame.mask;
  out.uniform = false;
  LaneValues index, value;
  if (sampleContents(rmw.getMemref()).empty())
    return true;
  unsigned width = widthOf(rmw.getType());
  auto kind = rmw.getKind();
  bool followed = kind == arith::AtomicRMWKind::addi ||
                  kind == arith::AtomicRMWKind::assign ||
                  kind == arith::AtomicRMWKind::maxs ||
                  kind == arith::AtomicRMWKind::mins ||
                  kind == arith::AtomicRMWKind::ori ||
                  kind == arith::AtomicRMWKind::andi;
  if (!width || !followed || rmw.getIndices().size() != 1 ||
      !known(warp, rmw.getIndices().front(), frame.mask, index) ||
      !known(warp, rmw.getValue(), frame.mask, value)) {
    // An update the run cannot follow: the argument's contents are
    // unknown from here on.
    unknownContents.insert(rmw.getMemref());
    return true;
  }
  for (int l : lanesOf(frame.mask)) {
    std::optional<int64_t> old = sampledElement(rmw.getMemref(), index.lane[l]);
    if (!old)
      continue; // outside the sample: this lane's result stays unknown
    *old = signExtend(*old, width);
    int64_t v = value.lane[l], next;
    switch (kind) {
    case arith::AtomicRMWKind::addi:
      next = int64_t(uint64_t(*old) + uint64_t(v));
      break;
    case arith::AtomicRMWKind::assign:
      next = v;
      break;
    case arith::AtomicRMWKind::maxs:
      next = std::max(*old, v);
      break;
    case arith::AtomicRMWKind::mins:
      next = std::min(*old, v);
      break;
    case arith::AtomicRMWKind::ori:
      next = *old | v;
      break;
    case arith::AtomicRMWKind::andi:
      next = *old & v;
      break;
    default:
      llvm_unreachable("an atomic kind the run does not follow");
    }
    written[{rmw.getMemref(), index.lane[l]}] = signExtend(next, width);
    out.lane[l] = *old;
    out.known |= Mask(1) << l;
  }
  return true;
}

/// setmaxnreg: registers through the CTA's pool (from nvvm.maxnreg).
StepResult Simulation::stepSetMaxRegister(Warp &warp, Frame &frame,
                                          NVVM::SetMaxRegisterOp setmax) {
  Operation &op = *setmax;
  if (!warp.registers) { // no nvvm.maxnreg: the starting count is ptxas's
    ++frame.next;
    return StepResult::Next;
  }
  int64_t target = setmax.getRegCount();
  bool increase = setmax.getAction() == NVVM::SetMaxRegisterAction::increase;
  int64_t thread = threadOf(warp, lanesOf(frame.mask).front());
  if (increase ? target < warp.registers : target > warp.registers) {
    machine.report({machine.threadName(thread) + " asks setmaxnreg." +
                        (increase ? "inc" : "dec") + " for " +
                        std::to_string(target) +
                        " registers per thread, but its warp holds " +
                        std::to_string(warp.registers),
                    &op});
    return StepResult::Stop;
  }
  int64_t amount = (target - warp.registers) * kLanes;
  if (!increase) {
    machine.releaseRegisters(warp.cta, -amount);
  } else if (!machine.acquireRegisters(warp.cta, amount)) {
    warp.blockedOp = &op;
    warp.blockedBarrier.reset();
    warp.blockedNamed = model::PipelineModel::kRegisterWait;
    warp.blockedLane = lanesOf(frame.mask).front();
    return StepResult::Blocked;
  }
  warp.registers = target;
  ++frame.next;
  return StepResult::Next;
}

StepResult Simulation::step(Warp &warp, Frame &frame, Operation &op) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return stepIf(warp, frame, ifOp);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return stepFor(warp, frame, forOp);
  if (isa<scf::YieldOp>(op))
    return stepYield(warp, op);
  if (isa<gpu::ReturnOp>(op)) {
    for (int l : lanesOf(frame.mask))
      machine.exitThread(threadOf(warp, l), &op);
    warp.done = true;
    return StepResult::Stop;
  }
  Dialect *dialect = op.getDialect();
  StringRef name = op.getName().getStringRef();
  if (isa_and_nonnull<arith::ArithDialect>(dialect)) {
    evalArith(warp, op, frame.mask);
    ++frame.next;
    return StepResult::Next;
  }
  if (stepValue(warp, frame, op)) {
    ++frame.next;
    return StepResult::Next;
  }
  if (auto setmax = dyn_cast<NVVM::SetMaxRegisterOp>(op))
    return stepSetMaxRegister(warp, frame, setmax);
  // What the model does not follow: regions other than scf.if / scf.for
  // bodies and tile.map's scalar body (its ops run on each element).
  if (op.getNumRegions() && !isa<MapOp>(op))
    return skip(&op, "`" + name + "`, an op with regions");
  // Nor these.
  if (isa<scf::WhileOp, scf::IndexSwitchOp, scf::ExecuteRegionOp,
          scf::ParallelOp, scf::ForallOp>(op) ||
      isa<CallOpInterface>(op) || op.getNumSuccessors() ||
      name.starts_with("llvm.inline_asm") || name.contains("mbarrier") ||
      name.starts_with("nvvm.cp.async") || name.starts_with("nvvm.wgmma") ||
      (name.starts_with("nvvm.tcgen05") && name != "nvvm.tcgen05.ld" &&
       name != "nvvm.tcgen05.wait") ||
      (name.starts_with("nvvm.cluster") &&
       !isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp,
            NVVM::ClusterWaitOp>(op)) ||
      name.starts_with("nvgpu.tma") || name.starts_with("nvgpu.warpgroup") ||
      name.starts_with("gpu.cluster")) {
    if (!isa<nvgpu::MBarrierInitOp, nvgpu::MBarrierArriveOp,
             nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTryWaitParityOp,
             nvgpu::MBarrierCreateOp, MBarrierArriveRemoteOp>(op))
      return skip(&op, "`" + name + "`");
  }
  StepResult result = StepResult::Next;
  if (isa<nvgpu::NVGPUDialect>(dialect) ||
      isa<NVVM::BarrierOp, NVVM::BarrierArriveOp, NamedBarrierOp>(op) ||
      isa<gpu::BarrierOp>(op) || name == "nvvm.barrier0" ||
      isa<TmemAllocOp, TmemDeallocOp>(op) ||
      isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp,
          NVVM::ClusterWaitOp>(op))
    result = isa<nvgpu::MBarrierCreateOp>(op) ? StepResult::Next
                                              : stepSync(warp, frame, op);
  else if (isa_and_nonnull<TileDialect>(dialect))
    result = stepTile(warp, frame, op);
  if (result == StepResult::Next) {
    // Results of anything else are unknown values.
    for (Value v : op.getResults()) {
      warp.values[v].known = 0;
      warp.values[v].uniform = false;
    }
    ++frame.next;
  }
  if (machine.failed())
    return StepResult::Stop;
  return result;
}

/// Runs `warp` until it blocks or finishes (or, `untilOthersCanMove`, a
/// phase or barrier generation completes); true if it made progress.
bool Simulation::runWarp(Warp &warp, bool untilOthersCanMove) {
  bool progressed = false;
  uint64_t epoch = machine.epoch();
  if (warp.blockedOp && warp.blockedEpoch == machine.epoch())
    return false;
  while (!warp.done && !stopped()) {
    if (++steps > 4'000'000) {
      skip(kernel, "more than 4 million steps at the sample sizes");
      return progressed;
    }
    Frame &frame = warp.frames.back();
    StepResult result = step(warp, frame, *frame.next);
    if (result == StepResult::Blocked) {
      warp.blockedEpoch = machine.epoch();
      return progressed;
    }
    warp.blockedOp = nullptr;
    warp.blockedBarrier.reset();
    warp.blockedNamed = -1;
    progressed = true;
    if (result == StepResult::Stop ||
        (untilOthersCanMove && machine.epoch() != epoch))
      return progressed;
  }
  return progressed;
}

void Simulation::run() {
  int64_t warpsPerCta = (blockSize + kLanes - 1) / kLanes;
  int64_t numWarps = warpsPerCta * ctas;
  warps.resize(numWarps);
  syncOps.assign(numWarps, 0);
  for (int64_t w = 0; w < numWarps; ++w) {
    Warp &warp = warps[w];
    warp.id = w;
    warp.cta = w / warpsPerCta;
    warp.localWarp = w % warpsPerCta;
    int64_t lanes =
        std::min<int64_t>(kLanes, blockSize - warp.localWarp * kLanes);
    warp.alive = lanes == kLanes ? ~Mask(0) : (Mask(1) << lanes) - 1;
    Block &entry = kernel.getBody().front();
    warp.frames.push_back({kernel, &entry, entry.begin(), warp.alive});
    if (auto maxnreg = kernel->getAttrOfType<IntegerAttr>("nvvm.maxnreg"))
      warp.registers = maxnreg.getInt();
    // An integer argument is unknown unless the kernel gives it a sample
    // value (`tile.sample_value`): a byte or expert count is no size.
    // (Only the signature's arguments: a gpu.func's entry block also holds
    // its workgroup and private attributions.)
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
      if (auto v = kernel.getArgAttrOfType<IntegerAttr>(i, "tile.sample_value"))
        setUniform(warp, entry.getArgument(i), v.getValue().getSExtValue(),
                   ~Mask(0));
  }
  auto isLazy = [&](const Warp &warp) {
    return llvm::is_contained(lazyWarps, warp.id);
  };
  while (!stopped()) {
    bool progressed = false;
    for (int64_t i = 0; i < numWarps && !stopped(); ++i) {
      Warp &warp = warps[reverse ? numWarps - 1 - i : i];
      if (!warp.done && !isLazy(warp))
        progressed |= runWarp(warp);
    }
    if (stopped())
      return;
    if (progressed || machine.completeOldest())
      continue;
    // Lazy warps move last, each only until it lets another one move.
    for (Warp &warp : warps)
      if (!warp.done && isLazy(warp) && !progressed && !stopped())
        progressed |= runWarp(warp, /*untilOthersCanMove=*/true);
    if (stopped())
      return;
    if (progressed)
      continue;
    if (llvm::all_of(warps, [](const Warp &w) { return w.done; })) {
      while (machine.completeOldest()) {
      }
      return;
    }
    SmallVector<model::PipelineModel::BlockedWait> blocked;
    for (const Warp &warp : warps)
      if (!warp.done && warp.blockedOp)
        blocked.push_back({threadOf(warp, warp.blockedLane), warp.blockedOp,
                           warp.blockedBarrier,
                           warp.blockedNamed,
                           warp.blockedParity});
    // Registers no one releases say most, then mbarrier waits; CTA and
    // named barriers last.
    auto rank = [](const model::PipelineModel::BlockedWait &wait) {
      return wait.namedBarrier == model::PipelineModel::kRegisterWait ? 0
             : wait.barrier                                          ? 1
                                                                     : 2;
    };
    std::stable_sort(blocked.begin(), blocked.end(),
                     [&](const auto &a, const auto &b) {
                       return rank(a) < rank(b);
                     });
    machine.reportDeadlock(blocked);
    return;
  }
}

/// The kernel's mbarrier groups, shared buffers and tensor-memory views,
/// numbered, with names for messages.
struct KernelObjects {
  DenseMap<Value, int64_t> groups, buffers;
  /// tile.tmem_alloc -> the buffer ids of its tile.tmem_buffer views.
  DenseMap<Operation *, SmallVector<int64_t>> tmemViews;
  std::vector<int64_t> groupSizes;
  std::vector<std::string> groupNames, bufferNames;
  bool any = false; ///< an async copy or MMA
  /// A cp.async copy completing through cp.async groups (no mbarrier).
  bool groupCopies = false;
};

KernelObjects collectObjects(gpu::GPUFuncOp kernel) {
  KernelObjects objects;
  auto &[groups, buffers, tmemViews, groupSizes, groupNames, bufferNames,
         any, groupCopies] = objects;
  auto lineOf = [](Operation *op) {
    auto loc = dyn_cast<FileLineColLoc>(op->getLoc());
    return loc ? " on line " + std::to_string(loc.getLine()) : std::string();
  };
  kernel.walk([&](Operation *op) {
    if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      groups[create.getBarriers()] = groupSizes.size();
      groupSizes.push_back(create.getBarriers().getType().getNumBarriers());
      groupNames.push_back("the mbarrier group" + lineOf(op));
    } else if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
      buffers[alloc.getResult()] = buffers.size();
      bufferNames.push_back("the shared buffer" + lineOf(op));
    } else if (auto view = dyn_cast<TmemBufferOp>(op)) {
      int64_t id = buffers.size();
      buffers[view.getResult()] = id;
      bufferNames.push_back("the tensor memory" + lineOf(op));
      // The allocation it views (its address, maybe plus an offset).
      Operation *def = view.getAddress().getDefiningOp();
      while (def && !isa<TmemAllocOp>(def) && def->getNumOperands() &&
             isa<arith::ArithDialect>(def->getDialect()))
        def = def->getOperand(0).getDefiningOp();
      if (def)
        tmemViews[def].push_back(id);
    } else if (isa<CopyAsyncOp, GemmAsyncOp>(op)) {
      any = true;
      if (auto copy = dyn_cast<CopyAsyncOp>(op))
        groupCopies |= !copy.getMbar() &&
                       copy.getSrcType().getScope() == MemoryScope::global &&
                       copy.getDstType().getScope() == MemoryScope::shared;
    }
  });
  return objects;
}

/// A finding as an error on its op, notes at the others, and the run that
/// found it.
void reportFinding(const model::Finding &finding, int64_t sample,
                   bool reverse, ArrayRef<int64_t> lazy) {
  auto *op = static_cast<Operation *>(const_cast<void *>(finding.op));
  std::string schedule =
      reverse ? "warps run last to first" : "warps run first to last";
  if (!lazy.empty()) {
    schedule = "warp";
    schedule += lazy.size() > 1 ? "s " : " ";
    schedule += std::to_string(lazy.front());
    if (lazy.size() > 1)
      schedule += ".." + std::to_string(lazy.back());
    schedule += " as slow as possible";
  }
  InFlightDiagnostic diag = op->emitError()
                            << finding.message << " [pipeline simulation, "
                            << "sizes " << sample << ", " << schedule << "]";
  for (const auto &[other, what] : finding.notes)
    diag.attachNote(
        static_cast<Operation *>(const_cast<void *>(other))->getLoc())
        << what;
}

} // namespace

LogicalResult
tile::kernel_checks::checkPipelines(FunctionOpInterface function,
                                    bool remarks) {
  auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
  if (!kernel || !kernel.isKernel() || kernel.getBody().empty() ||
      !kernel.getBody().hasOneBlock())
    return success();
  auto notSimulated = [&](const Twine &why) {
    if (remarks)
      kernel->emitRemark() << "pipeline simulation of @" << kernel.getName()
                           << " not run: " << why;
    return success();
  };
  std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize();
  if (!block || block->size() != 3)
    return notSimulated("no known_block_size");
  std::array<int64_t, 3> dims = {(*block)[0], (*block)[1], (*block)[2]};
  if (llvm::any_of(dims, [](int64_t d) { return d < 1 || d > 1024; }))
    return notSimulated("a block dim outside 1..1024");
  int64_t threads = dims[0] * dims[1] * dims[2];
  if (threads > 1024)
    return notSimulated("a block of more than 1024 threads");
  std::array<int64_t, 3> cluster = {1, 1, 1};
  if (std::optional<ArrayRef<int32_t>> dims = kernel.getKnownClusterSize()) {
    if (dims->size() != 3 || llvm::any_of(*dims, [](int32_t d) {
          return d < 1 || d > 16;
        }))
      return notSimulated("a known_cluster_size outside 1..16 per dim");
    cluster = {(*dims)[0], (*dims)[1], (*dims)[2]};
    if (cluster[0] * cluster[1] * cluster[2] > 16)
      return notSimulated("a cluster of more than 16 CTAs");
  }

  KernelObjects objects = collectObjects(kernel);
  if (!objects.any || (objects.groups.empty() && !objects.groupCopies))
    return notSimulated("no mbarrier group and async copy or MMA, and no "
                        "copy completing through cp.async groups");
  // More barriers than any chip's shared memory holds: the kernel cannot
  // run (the shared-memory budget check says so); modelling them would
  // only exhaust this process's memory.
  int64_t barrierBytes = 0;
  for (int64_t size : objects.groupSizes)
    barrierBytes += size * cuda::kMbarrierBytes;
  if (barrierBytes > cuda::largestSharedBytesPerBlock())
    return notSimulated("mbarrier groups of " +
                        Twine(barrierBytes / cuda::kMbarrierBytes) +
                        " barriers, more than shared memory holds");

  // Short K loops and wrapping rings; warps in both orders (a producer
  // running ahead, consumers running ahead); then each warp of the first
  // warpgroup, and each later warpgroup, as slow as it can be.
  struct Run {
    int64_t sample;
    bool reverse;
    SmallVector<int64_t> lazy;
  };
  SmallVector<int64_t> sizes = {200, 330};
  if (auto given = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.sample_sizes");
      given && !given.empty())
    sizes.assign(given.asArrayRef().begin(), given.asArrayRef().end());
  SmallVector<Run> runs;
  for (int64_t size : sizes) {
    runs.push_back({size, false, {}});
    runs.push_back({size, true, {}});
  }
  int64_t lazySize = sizes.back();
  int64_t numWarps = (threads + kLanes - 1) / kLanes;
  for (size_t index = 0; index < runs.size(); ++index) {
    {
      Run run = runs[index];
      int64_t sample = run.sample;
      bool reverse = run.reverse;
      Simulation sim(kernel, threads, dims, sample, reverse, objects.groups,
                     objects.groupSizes, objects.groupNames, objects.buffers,
                     objects.bufferNames, objects.tmemViews, run.lazy,
                     cluster);
      sim.run();
      // A kernel outside the model keeps the other checks' verdicts.
      if (!sim.skipped.empty()) {
        if (remarks)
          (sim.skippedAt ? sim.skippedAt : kernel.getOperation())
                  ->emitRemark()
              << "pipeline simulation of @" << kernel.getName()
              << " stopped here: " << sim.skipped;
        return success();
      }
      // After the first run: the lazy runs, for warps (and, past the
      // first warpgroup, warpgroups) that take part in the protocol.
      if (index == 0) {
        auto active = [&](int64_t w) { return sim.syncOps[w] > 0; };
        for (int64_t w = 0; w < std::min<int64_t>(numWarps, 4); ++w)
          if (active(w))
            runs.push_back({lazySize, false, {w}});
        for (int64_t first = 4; first < numWarps; first += 4) {
          Run lazy{lazySize, false, {}};
          for (int64_t w = first; w < std::min(numWarps, first + 4); ++w)
            lazy.lazy.push_back(w);
          if (llvm::any_of(lazy.lazy, active))
            runs.push_back(lazy);
        }
      }
      if (!sim.machine.failed())
        continue;
      reportFinding(sim.machine.getFindings().front(), sample, reverse,
                    run.lazy);
      return failure();
    }
  }
  return success();
}

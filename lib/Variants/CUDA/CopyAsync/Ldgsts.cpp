//===- Ldgsts.cpp - the ldgsts copy_async variant ---------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// copy_async global -> shared through `cp.async` (LDGSTS), for tensors a
// tensor map cannot describe (strides or a base that are not 16-byte
// multiples, more than 5 dims). A cooperative copy: the threads of the
// op's exec scope each move their vectors (LdgstsPlanner.h). The global
// tensor's sizes and strides are read at run time from its memref
// (KernelABI::globalTensorSource in the kernel-ABI step,
// emitGlobalExtents in the emitter); the emitted code takes the widest
// vector the runtime alignment allows and zero-fills what lies outside
// the tensor (cp.async's src-size).
//
// Completion, with an mbar operand, keeps the tma variant's protocol, so a
// kernel can be compiled with either: the caller arms the mbarrier with
// the region's bytes (`arrive.expect_tx`); each thread makes the barrier
// track its copies (`cp.async.mbarrier.arrive`, which raises the pending
// count now and lowers it when they land) and then completes its bytes
// (`mbarrier.complete_tx`). The phase cannot end before every thread's
// copies have landed: a thread's raise precedes its complete_tx, and the
// transaction count reaches zero only after the last complete_tx. That
// needs sm_90's transaction counts. Without an mbar operand the copies
// join each thread's open cp.async group, which the kernel closes and
// waits for (`tile.commit_group cp_async` / `tile.wait_group cp_async`):
// the sm_80 protocol. `prepare` refuses such a copy in a function with no
// commit or no wait of cp.async groups (a TMA-style copy missing its mbar
// would otherwise compile to copies no one waits for).
//
//===----------------------------------------------------------------------===//

#include "../TargetPredicate.h"
#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Dispatch/VariantDecl.h"
#include "tile/Variants/CUDA/BuiltinVariants.h"
#include "tile/Variants/CUDA/CopyAsync/LdgstsPlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <numeric>

using namespace mlir;
using namespace tile;
using namespace tile::dispatch;
using NVVM::NVVMMemorySpace;

namespace {

/// The plan, and the memref whose descriptor holds the global tensor's
/// runtime sizes and strides (found by the kernel-ABI step).
struct LdgstsLowering {
  ldgsts::Plan plan;
  Value memref;
};

/// The enclosing kernel's known_block_size, if any.
std::optional<SmallVector<int64_t, 3>> knownBlock(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!func)
    return std::nullopt;
  std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize();
  if (!block)
    return std::nullopt;
  return SmallVector<int64_t, 3>(block->begin(), block->end());
}

/// What the shared tile's base is aligned to, after the lowering moves it
/// to the stage its runtime leading indices name.
int64_t sharedBaseAlignment(CopyAsyncOp copy) {
  BufferType shared = copy.getDstType();
  // A tile that does not come from its tile.alloc_shared here is assumed
  // 16-byte aligned (allocations are at least 128-byte aligned unless an
  // explicit alignment says less).
  int64_t alignment = 16;
  if (auto alloc = copy.getDst().getDefiningOp<AllocSharedOp>())
    alignment = alloc.getEffectiveAlignment();
  ArrayRef<int64_t> offsets = copy.getDstStaticOffsets();
  const size_t lead = shared.getRank() - copy.getSizes().size();
  for (size_t d = 0; d < lead; ++d)
    if (ShapedType::isDynamic(offsets[d]))
      if (OrReason<AxisAddress> step = shared.getIndexStep(d))
        alignment = std::gcd(alignment, at(*step, Axis::m) *
                                            shared.getElementBits() / 8);
  return alignment;
}

OrReason<ldgsts::Plan> planLdgsts(CopyAsyncOp copy, const DispatchContext &) {
  using R = OrReason<ldgsts::Plan>;
  BufferType global = copy.getSrcType();
  ArrayRef<int64_t> sizes = copy.getSizes();
  if (global.getRank() < static_cast<int64_t>(sizes.size()))
    return R::failure("the global buffer has fewer dims than the region");
  ldgsts::Request r;
  r.sizes.assign(sizes.begin(), sizes.end());
  r.elementBits = global.getElementBits();
  OrReason<SmallVector<int64_t, 5>> strides = staticGlobalStrides(global);
  if (!strides)
    return R::failure(strides.reason());
  for (int64_t s : *strides)
    r.global.strides.push_back(ShapedType::isDynamic(s) ? ldgsts::kDynamic : s);
  for (int64_t o : copy.getSrcStaticOffsets())
    r.global.offsets.push_back(ShapedType::isDynamic(o) ? ldgsts::kDynamic : o);
  OrReason<copy_async::RegionSide> side = copy_async::regionSide(
      copy.getDstType(), copy.getDstStaticOffsets(), sizes.size(),
      "the shared", "cp.async's shared addresses are planned from static "
                    "offsets");
  if (!side)
    return R::failure(side.reason());
  r.shared = std::move(*side);
  r.sharedAlignment = sharedBaseAlignment(copy);
  std::optional<int64_t> threads =
      copy_async::execScopeThreads(copy, copy.getExec());
  if (!threads)
    return R::failure("the exec scope's thread count is unknown");
  r.threads = *threads;
  return ldgsts::planCooperativeCopy(r);
}

/// A copy with no mbar completes through its threads' cp.async groups:
/// the function must close and wait for them, or the copy was meant to
/// complete on an mbarrier (a TMA-style copy missing its mbar).
LogicalResult requireGroupCompletion(CopyAsyncOp copy) {
  if (copy.getMbar())
    return success();
  Operation *function = copy->getParentOfType<FunctionOpInterface>();
  bool commits = false, waits = false;
  if (function) {
    function->walk([&](CommitGroupOp commit) {
      commits |= commit.getGroup() == AsyncGroup::cp_async;
    });
    function->walk([&](WaitGroupOp wait) {
      waits |= wait.getGroup() == AsyncGroup::cp_async;
    });
  }
  if (commits && waits)
    return success();
  return copy.emitOpError("names no mbar, so its cp.async copies complete "
                          "through each issuing thread's cp.async group, "
                          "but the function has no tile.")
         << (commits ? "wait_group" : "commit_group")
         << " cp_async: commit and wait for the group, or give mbar(...) "
            "for a completion on an mbarrier";
}

LogicalResult prepareLdgsts(CopyAsyncOp copy, LdgstsLowering &lowering,
                            const DispatchContext &, KernelABI &abi) {
  if (failed(requireGroupCompletion(copy)))
    return failure();
  FailureOr<Value> memref = abi.globalTensorSource(copy, copy.getSrc());
  if (failed(memref))
    return failure();
  lowering.memref = *memref;
  // Below the narrowest width no cp.async can move a row: the kernel traps,
  // so the host refuses such tensors before launching. The emitted code
  // tests the base and every dim's stride but the innermost.
  SmallVector<int64_t> strideDims;
  for (int64_t d = 0; d + 1 < copy.getSrcType().getRank(); ++d)
    strideDims.push_back(d);
  return abi.requireAlignment(copy, *memref, lowering.plan.widths.back().bytes,
                              "ldgsts", strideDims);
}

/// Emits integer arithmetic on i64 values with constants folded in.
struct I64Builder {
  OpBuilder &b;
  Location loc;

  Value c(int64_t v) const {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value add(Value x, Value y) const {
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value mul(Value x, int64_t k) const {
    return k == 1 ? x : arith::MulIOp::create(b, loc, x, c(k)).getResult();
  }
  Value mul(Value x, Value y) const {
    return arith::MulIOp::create(b, loc, x, y);
  }
  Value div(Value x, int64_t k) const {
    return k == 1 ? x : arith::DivUIOp::create(b, loc, x, c(k)).getResult();
  }
  Value rem(Value x, int64_t k) const {
    return arith::RemUIOp::create(b, loc, x, c(k));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
};

/// The thread's index in the exec scope (0 for `thread`).
Value threadInScope(CopyAsyncOp copy, int64_t threads, const I64Builder &i) {
  if (threads == 1)
    return i.c(0);
  OpBuilder &b = i.b;
  Location loc = i.loc;
  auto tid = [&](gpu::Dimension d) -> Value {
    Value v = gpu::ThreadIdOp::create(b, loc, d);
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), v);
  };
  Value linear = tid(gpu::Dimension::x);
  if (auto block = knownBlock(copy); block && ((*block)[1] > 1 || (*block)[2] > 1))
    linear = i.add(linear, i.mul(i.add(tid(gpu::Dimension::y),
                                       i.mul(tid(gpu::Dimension::z),
                                             (*block)[1])),
                                 (*block)[0]));
  return copy.getExec() == ExecScope::cta ? linear : i.rem(linear, threads);
}

/// The shared element address (before the element size) of the region
/// element at `coord`: the layout's address of offsets + coord, swizzled.
Value sharedElement(const copy_async::RegionSide &side, ArrayRef<Value> coord,
                    const I64Builder &i) {
  Value flat = i.c(0);
  for (size_t d = 0; d < coord.size(); ++d)
    flat = i.add(i.mul(flat, side.shape[d]),
                 i.add(coord[d], i.c(side.offsets[d])));
  Value address = i.c(side.layout.offset(Axis::m));
  ArrayRef<Iter> iters = side.layout.shard();
  for (size_t k = iters.size(); k-- > 0;) {
    const Iter &it = iters[k];
    Value digit = k == 0 ? flat : i.rem(flat, it.extent);
    if (it.axis == Axis::m && it.stride != 0)
      address = i.add(address, i.mul(digit, it.stride));
    if (k != 0)
      flat = i.div(flat, it.extent);
  }
  const Swizzle &swizzle = side.layout.swizzle();
  if (swizzle.isIdentity())
    return address;
  int64_t mask = ((int64_t(1) << swizzle.bits) - 1)
                 << (swizzle.base + swizzle.shift);
  Value bits = arith::AndIOp::create(i.b, i.loc, address, i.c(mask));
  Value moved = arith::ShRUIOp::create(i.b, i.loc, bits, i.c(swizzle.shift));
  return arith::XOrIOp::create(i.b, i.loc, address, moved);
}

/// What every vector of one width needs: the lowered buffers, the global
/// tensor's runtime extents and the region's global offsets.
struct CopySite {
  CopyAsyncOp copy;
  Value shared;     // !llvm.ptr<3>, the stage's base
  Value global;     // !llvm.ptr<1>, the buffer's element 0
  Value mbar;       // !llvm.ptr<3>
  Value thread;     // i64, in the exec scope
  int64_t threads;
  GlobalExtents extents;
  SmallVector<Value, 5> offsets; // i64 by global dim
  int64_t layoutOffset;          // the global layout's element offset
  copy_async::RegionSide side;
};

/// One cp.async of vector `q` (i64) of `width`.
void emitVector(const CopySite &s, const ldgsts::Width &width, Value q,
                const I64Builder &i) {
  OpBuilder &b = i.b;
  Location loc = i.loc;
  MLIRContext *ctx = b.getContext();
  const int64_t elementBytes = width.bytes / width.elements;
  const size_t rank = width.grid.size();
  const size_t lead = s.offsets.size() - rank;

  // The vector's region coordinates.
  SmallVector<Value, 4> coord(rank);
  int64_t inner = 1;
  for (size_t d = rank; d-- > 0;) {
    Value digit = d == 0 ? i.div(q, inner) : i.rem(i.div(q, inner), width.grid[d]);
    coord[d] = d + 1 == rank ? i.mul(digit, width.elements) : digit;
    inner *= width.grid[d];
  }

  // Shared destination.
  Value sharedByte = i.mul(sharedElement(s.side, coord, i), elementBytes);
  Value dst = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Shared)),
      b.getI8Type(), s.shared, ArrayRef<LLVM::GEPArg>{sharedByte});

  // Global source and bounds: every dim's index inside the tensor, the
  // innermost one's in-bounds elements (cp.async zero-fills the rest).
  Value element = i.c(s.layoutOffset);
  Value inside = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value remaining;
  const size_t globalRank = s.offsets.size();
  for (size_t d = 0; d < globalRank; ++d) {
    Value index = d < lead ? s.offsets[d] : i.add(s.offsets[d], coord[d - lead]);
    element = i.add(element, i.mul(index, s.extents.strides[d]));
    if (d + 1 < globalRank) {
      inside = arith::AndIOp::create(
          b, loc, inside,
          i.cmp(arith::CmpIPredicate::ult, index, s.extents.sizes[d]));
      continue;
    }
    // Unsigned: an index before the start leaves nothing to read.
    Value in = i.cmp(arith::CmpIPredicate::ult, index, s.extents.sizes[d]);
    inside = arith::AndIOp::create(b, loc, inside, in);
    remaining = arith::SubIOp::create(b, loc, s.extents.sizes[d], index);
  }
  Value vector = i.c(width.elements);
  Value valid = arith::MinSIOp::create(b, loc, remaining, vector);
  Value readBytes = arith::SelectOp::create(b, loc, inside,
                                            i.mul(valid, elementBytes), i.c(0));
  // Nothing to read: point at the tensor's base rather than outside it.
  Value at = arith::SelectOp::create(b, loc, inside, i.mul(element, elementBytes),
                                     i.c(0));
  Value src = LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, unsigned(NVVMMemorySpace::Global)),
      b.getI8Type(), s.global, ArrayRef<LLVM::GEPArg>{at});
  Value srcSize =
      arith::TruncIOp::create(b, loc, b.getI32Type(), readBytes);
  NVVM::CpAsyncOp::create(
      b, loc, dst, src, b.getI32IntegerAttr(width.bytes),
      NVVM::LoadCacheModifierKindAttr::get(
          ctx, width.bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                 : NVVM::LoadCacheModifierKind::CA),
      srcSize);
}

/// The thread's vectors of `width`, then the completion of its bytes.
void emitWidth(const CopySite &s, const ldgsts::Width &width,
               const I64Builder &i) {
  OpBuilder &b = i.b;
  Location loc = i.loc;
  const int64_t full = width.vectors / s.threads;
  const int64_t extra = width.vectors % s.threads;
  if (full > 1) {
    // A loop kept rolled: unrolled, every vector's address and bounds are
    // invariant in a caller's K loop, LLVM hoists all of them out of it,
    // and a GEMM producer (40 registers) spills them.
    MLIRContext *ctx = b.getContext();
    auto rolled = LLVM::LoopAnnotationAttr::get(
        ctx, {}, {}, {},
        LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true), {}, {}, {},
                                  {}, {}, {}),
        {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
    auto loop = scf::ForOp::create(b, loc, i.c(0), i.c(full), i.c(1));
    loop->setAttr("loop_annotation", rolled);
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    I64Builder body{b, loc};
    emitVector(s, width,
               body.add(s.thread, body.mul(loop.getInductionVar(),
                                           body.c(s.threads))),
               body);
  }
  for (int64_t j = full > 1 ? full : 0; j < width.perThread; ++j) {
    Value q = i.add(s.thread, i.c(j * s.threads));
    if (j < full) {
      emitVector(s, width, q, i);
      continue;
    }
    // The last round: only the first `extra` threads have a vector.
    Value has = i.cmp(arith::CmpIPredicate::ult, s.thread, i.c(extra));
    auto guard = scf::IfOp::create(b, loc, has, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inGuard(b);
    b.setInsertionPointToStart(guard.thenBlock());
    emitVector(s, width, q, I64Builder{b, loc});
  }
  if (!s.mbar)
    return;
  NVVM::CpAsyncMBarrierArriveOp::create(b, loc, s.mbar, /*noinc=*/false);
  Value mine = i.c(full);
  if (extra)
    mine = i.add(mine, arith::ExtUIOp::create(
                           b, loc, b.getI64Type(),
                           i.cmp(arith::CmpIPredicate::ult, s.thread,
                                 i.c(extra))));
  Value bytes = arith::TruncIOp::create(b, loc, b.getI32Type(),
                                        i.mul(mine, width.bytes));
  if (full == 0) {
    Value some = i.cmp(arith::CmpIPredicate::ne, mine, i.c(0));
    auto guard = scf::IfOp::create(b, loc, some, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inGuard(b);
    b.setInsertionPointToStart(guard.thenBlock());
    NVVM::MBarrierCompleteTxOp::create(b, loc, s.mbar, bytes);
    return;
  }
  NVVM::MBarrierCompleteTxOp::create(b, loc, s.mbar, bytes);
}

LogicalResult emitLdgsts(CopyAsyncOp copy, const LdgstsLowering &lowering,
                         ValueRange lowered, const DispatchContext &,
                         RewriterBase &rewriter) {
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  Location loc = copy.getLoc();
  I64Builder i{rewriter, loc};
  const ldgsts::Plan &plan = lowering.plan;
  BufferType globalType = copy.getSrcType();

  CopySite s;
  s.copy = copy;
  s.shared = adaptor.getDst();
  s.global = adaptor.getSrc();
  s.mbar = adaptor.getMbar();
  s.threads = *copy_async::execScopeThreads(copy, copy.getExec());
  s.thread = threadInScope(copy, s.threads, i);
  s.extents = emitGlobalExtents(rewriter, loc, lowering.memref, globalType);
  ArrayRef<int64_t> staticOffsets = copy.getSrcStaticOffsets();
  ValueRange dynamicOffsets = adaptor.getSrcOffsets();
  for (size_t d = 0, next = 0; d < staticOffsets.size(); ++d)
    s.offsets.push_back(
        ShapedType::isDynamic(staticOffsets[d])
            ? arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                         dynamicOffsets[next++])
                  .getResult()
            : i.c(staticOffsets[d]));
  s.layoutOffset = 0;
  if (LayoutAttr layout = globalType.getLayout())
    s.layoutOffset = layout.getLayout().offset(Axis::m);
  s.side = *copy_async::regionSide(copy.getDstType(), copy.getDstStaticOffsets(),
                                   copy.getSizes().size(), "the shared", "");

  // What the runtime values are aligned to: the base, the innermost
  // offset and every other dim's stride, in bytes.
  const int64_t elementBytes = globalType.getElementBits() / 8;
  Value misalignment = i.mul(
      i.add(s.offsets.back(), i.c(s.layoutOffset)), elementBytes);
  Value base = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                        s.global);
  misalignment = arith::OrIOp::create(rewriter, loc, misalignment, base);
  for (size_t d = 0; d + 1 < s.extents.strides.size(); ++d)
    misalignment = arith::OrIOp::create(
        rewriter, loc, misalignment, i.mul(s.extents.strides[d], elementBytes));

  // The widest width whose alignment holds; none: trap (cp.async cannot
  // move these bytes).
  auto aligned = [&](OpBuilder &b, int64_t bytes) -> Value {
    I64Builder at{b, loc};
    Value low = arith::AndIOp::create(b, loc, misalignment, at.c(bytes - 1));
    return at.cmp(arith::CmpIPredicate::eq, low, at.c(0));
  };
  std::function<void(OpBuilder &, size_t)> choose = [&](OpBuilder &b,
                                                        size_t k) {
    const ldgsts::Width &width = plan.widths[k];
    auto test = scf::IfOp::create(b, loc, aligned(b, width.bytes),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(test.thenBlock());
    emitWidth(s, width, I64Builder{b, loc});
    b.setInsertionPointToStart(test.elseBlock());
    if (k + 1 < plan.widths.size())
      choose(b, k + 1);
    else
      LLVM::Trap::create(b, loc);
  };
  choose(rewriter, 0);
  return success();
}

Verdict globalToShared(CopyAsyncOp copy, const DispatchContext &) {
  if (copy.getSrcType().getScope() == MemoryScope::global &&
      copy.getDstType().getScope() == MemoryScope::shared)
    return Verdict::success();
  return Verdict::failure(copy_async::direction(copy) +
                          "; cp.async copies global -> shared");
}

/// The exec scopes the variant serves: every thread of a warp, warpgroup
/// or CTA (known_block_size) takes its share; one thread may copy alone.
Verdict execScope(CopyAsyncOp copy, const DispatchContext &) {
  if (copy_async::execScopeThreads(copy, copy.getExec()))
    return Verdict::success();
  if (copy.getExec() == ExecScope::cta)
    return Verdict::failure("exec cta without a known_block_size on the "
                            "kernel: the copy is shared among the CTA's "
                            "threads, so their number must be known");
  return Verdict::failure("exec " +
                          stringifyExecScope(copy.getExec()).str() +
                          "; cp.async serves a thread, warp, warpgroup or "
                          "CTA (its own shared memory)");
}

Verdict supportedConfig(CopyAsyncOp copy, const DispatchContext &) {
  SmallVector<std::string> unused;
  if (copy.getCtaMask())
    unused.push_back("cta_mask");
  if (copy.getMbarCta())
    unused.push_back("mbar_cta");
  if (copy.getRemoteCta())
    unused.push_back("remote_cta");
  if (copy.getCtaGroup())
    unused.push_back("cta_group");
  if (copy.getCacheHint())
    unused.push_back("cache_hint");
  if (copy.getOob() && *copy.getOob() == OobFill::nan)
    unused.push_back("oob = nan");
  if (unused.empty())
    return Verdict::success();
  return Verdict::failure(llvm::join(unused, ", ") +
                          " given; cp.async copies into the issuing CTA, "
                          "zero-filling what lies outside the tensor");
}

/// cp.async, and mbarrier transaction counts when the copy completes on
/// its mbar (without one it completes through cp.async groups).
SmallVector<cuda::InstructionFamily, 2> ldgstsFamilies(CopyAsyncOp copy) {
  if (!copy.getMbar())
    return {cuda::InstructionFamily::CpAsync};
  return {cuda::InstructionFamily::CpAsync,
          cuda::InstructionFamily::AsyncBarrier};
}

OpPredicate<CopyAsyncOp> ldgstsTarget() {
  return targetPredicate<CopyAsyncOp>(
      "ldgsts_target", ldgstsFamilies,
      [](cuda::InstructionFamily) { return true; },
      [](const TargetInfo &target, cuda::InstructionFamily family) {
        if (family == cuda::InstructionFamily::CpAsync)
          return needsOneOf("cp.async", target, family);
        return needsOneOf("completing an ldgsts copy on an mbarrier "
                          "(mbarrier.complete_tx)",
                          target, family);
      });
}

} // namespace

void tile::registerLdgstsVariant(VariantRegistry &registry) {
  registerVariant(registry, VariantDecl<CopyAsyncOp, LdgstsLowering>{
                                "ldgsts", kLdgstsPriority,
                                {{"global_to_shared", globalToShared},
                                 {"exec_scope", execScope},
                                 {"supported_config", supportedConfig},
                                 ldgstsTarget()},
                                [](CopyAsyncOp copy, const DispatchContext &c)
                                    -> OrReason<LdgstsLowering> {
                                  OrReason<ldgsts::Plan> plan =
                                      planLdgsts(copy, c);
                                  if (!plan)
                                    return OrReason<LdgstsLowering>::failure(
                                        plan.reason());
                                  return LdgstsLowering{std::move(*plan), {}};
                                },
                                prepareLdgsts, emitLdgsts, ldgstsFamilies});
}

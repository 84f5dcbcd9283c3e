//===- LdgstsCheck.cpp - translation validation of ldgsts ------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Runs the emitted code of an ldgsts copy for every thread of its exec
// scope on sample tensors (the global buffer at a base aligned to 16, 8
// and 4 bytes so that each vector width's path is taken, the last row
// and the innermost dim's tail outside the tensor, the runtime offsets
// bound to samples) and reads every cp.async back. PTX ISA "cp.async":
// cp-size bytes land at the shared address, the first src-size of them
// read from the global address and the rest zero; both addresses aligned
// to cp-size. Every byte of every region element must land where the
// shared layout puts it, from where the tensor has it (zero outside the
// tensor); no shared byte is written twice or outside the region. With an
// mbar operand each thread must make the op's mbarrier track its copies
// (cp.async.mbarrier.arrive) before completing its bytes, and the bytes
// completed must add up to the region's; without one (completion through
// cp.async groups, which the kernel commits) no mbarrier op may appear.
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"

#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Variants/CUDA/CopyAsync/LdgstsPlanner.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <map>

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

constexpr int64_t kGlobalBase = int64_t(1) << 32;
constexpr int64_t kBarrier = 0x10;
/// Shared bytes no element occupies read back as this.
constexpr int64_t kZero = -1;

/// One sample tensor and where the region sits in it.
struct Sample {
  std::string name;
  int64_t base = kGlobalBase;
  SmallVector<int64_t, 5> sizes, strides, offsets;
};

/// The global dims' sizes, strides and offsets of a sample: the region at
/// its static offsets (runtime ones at the vector-aligned samples below),
/// the last row outside the tensor, the innermost dim `innerCut` elements
/// short of the region's end, runtime strides dense row-major.
Sample makeSample(CopyAsyncOp copy, std::string name, int64_t base,
                  int64_t innerCut) {
  BufferType global = copy.getSrcType();
  ArrayRef<int64_t> sizes = copy.getSizes();
  const size_t rank = global.getRank(), lead = rank - sizes.size();
  Sample s{std::move(name), base, {}, {}, {}};
  for (size_t d = 0; d < rank; ++d) {
    int64_t o = copy.getSrcStaticOffsets()[d];
    // Runtime offsets: a multiple of 16 bytes' elements inside the tensor.
    if (ShapedType::isDynamic(o))
      o = d + 1 == rank ? 16 * 8 / int64_t(global.getElementBits()) * 2 : 3;
    s.offsets.push_back(o);
    int64_t size = global.getShape()[d];
    if (ShapedType::isDynamic(size)) {
      int64_t region = d < lead ? 1 : sizes[d - lead];
      size = o + region;
      if (d + 1 == rank)
        size -= innerCut;
      else if (d >= lead && region > 1)
        size -= 1; // the last row lies outside
    }
    s.sizes.push_back(std::max<int64_t>(size, 1));
  }
  OrReason<SmallVector<int64_t, 5>> fixed =
      dispatch::staticGlobalStrides(global);
  s.strides.assign(rank, 0);
  int64_t inner = 1;
  for (size_t d = rank; d-- > 0;) {
    int64_t stride = fixed ? (*fixed)[d] : ShapedType::kDynamic;
    s.strides[d] = ShapedType::isDynamic(stride) ? inner : stride;
    inner = s.strides[d] * s.sizes[d];
  }
  return s;
}

struct Issued {
  int64_t dst, src, bytes, read, thread;
};

Status runThreads(CopyAsyncOp copy, ValueRange lowered,
                  ArrayRef<Operation *> emitted, const Sample &sample,
                  int64_t threads, std::vector<Issued> &issued,
                  int64_t &completed) {
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  for (int64_t t = 0; t < threads; ++t) {
    EmittedValues values;
    values.bind(adaptor.getDst(), kSharedBase);
    values.bind(adaptor.getSrc(), sample.base);
    if (Value mbar = adaptor.getMbar())
      values.bind(mbar, kBarrier);
    for (size_t d = 0, next = 0; d < sample.offsets.size(); ++d)
      if (ShapedType::isDynamic(copy.getSrcStaticOffsets()[d]))
        values.bind(adaptor.getSrcOffsets()[next++], sample.offsets[d]);
    for (Operation *op : emitted) {
      if (auto tid = dyn_cast<gpu::ThreadIdOp>(op))
        values.bind(tid, tid.getDimension() == gpu::Dimension::x ? t : 0);
      if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
        for (size_t d = 0; d < sample.sizes.size(); ++d) {
          values.bind(meta.getSizes()[d], sample.sizes[d]);
          values.bind(meta.getStrides()[d], sample.strides[d]);
        }
      }
    }
    bool tracked = false;
    Status run = runEmitted(emitted, values, [&](Operation *inst) -> Status {
      if (auto cp = dyn_cast<NVVM::CpAsyncOp>(inst)) {
        if (tracked)
          return Status::failure("thread " + str(t) + " issues a cp.async "
                                 "after making the mbarrier track its copies");
        OrReason<int64_t> dst = valueOf(values, inst, cp.getDst(), "the destination");
        OrReason<int64_t> src = valueOf(values, inst, cp.getSrc(), "the source");
        if (!dst || !src)
          return Status::failure(!dst ? dst.reason() : src.reason());
        int64_t read = cp.getSize();
        if (Value size = cp.getCpSize()) {
          OrReason<int64_t> r = valueOf(values, inst, size, "the src-size");
          if (!r)
            return Status::failure(r.reason());
          read = *r;
        }
        issued.push_back({*dst, *src, int64_t(cp.getSize()), read, t});
        return Status::success();
      }
      if (!copy.getMbar() &&
          isa<NVVM::CpAsyncMBarrierArriveOp, NVVM::MBarrierCompleteTxOp>(inst))
        return Status::failure("thread " + str(t) + " signals an mbarrier, "
                               "but the copy names none: it completes "
                               "through the thread's cp.async group");
      if (auto arrive = dyn_cast<NVVM::CpAsyncMBarrierArriveOp>(inst)) {
        OrReason<int64_t> bar = valueOf(values, inst, arrive.getAddr(), "the mbarrier");
        if (!bar)
          return Status::failure(bar.reason());
        if (*bar != kBarrier || arrive.getNoinc())
          return Status::failure("thread " + str(t) + "'s cp.async.mbarrier."
                                 "arrive is not the raising form on the op's "
                                 "mbarrier");
        tracked = true;
        return Status::success();
      }
      if (auto tx = dyn_cast<NVVM::MBarrierCompleteTxOp>(inst)) {
        OrReason<int64_t> bar = valueOf(values, inst, tx.getAddr(), "the mbarrier");
        OrReason<int64_t> bytes = valueOf(values, inst, tx.getTxcount(), "the byte count");
        if (!bar || !bytes)
          return Status::failure(!bar ? bar.reason() : bytes.reason());
        if (*bar != kBarrier)
          return Status::failure("thread " + str(t) + " completes bytes on "
                                 "another mbarrier than the op's");
        if (!tracked)
          return Status::failure("thread " + str(t) + " completes its bytes "
                                 "before the mbarrier tracks its copies: the "
                                 "phase could end before they land");
        completed += *bytes;
        return Status::success();
      }
      if (isa<LLVM::Trap>(inst))
        return Status::failure("the emitted code traps, though a vector "
                               "width's alignment holds");
      return unexpectedInstruction(inst);
    });
    if (!run)
      return Status::failure("thread " + str(t) + ": " + run.reason());
  }
  return Status::success();
}

/// Every byte of every region element against what the copies wrote.
Status compare(CopyAsyncOp copy, const Sample &sample,
               ArrayRef<Issued> issued) {
  const int64_t elementBytes = copy.getSrcType().getElementBits() / 8;
  std::map<int64_t, std::pair<int64_t, size_t>> written; // shared -> (global, copy)
  for (size_t k = 0; k < issued.size(); ++k) {
    const Issued &c = issued[k];
    std::string name = "cp.async " + str(int64_t(k) + 1) + " (thread " +
                       str(c.thread) + ")";
    if (c.bytes != 4 && c.bytes != 8 && c.bytes != 16)
      return Status::failure(name + " moves " + str(c.bytes) +
                             " bytes; cp.async moves 4, 8 or 16");
    if (c.dst % c.bytes || (c.read > 0 && c.src % c.bytes))
      return Status::failure(name + " from " + str(c.src) + " to shared " +
                             str(c.dst) + " is not aligned to its " +
                             str(c.bytes) + " bytes");
    if (c.read < 0 || c.read > c.bytes || c.read % elementBytes)
      return Status::failure(name + " reads " + str(c.read) + " of its " +
                             str(c.bytes) + " bytes");
    for (int64_t b = 0; b < c.bytes; ++b)
      if (!written.emplace(c.dst + b,
                           std::make_pair(b < c.read ? c.src + b : kZero, k))
               .second)
        return Status::failure(name + " writes shared byte " + str(c.dst + b) +
                               " a second time");
  }
  ArrayRef<int64_t> sizes = copy.getSizes();
  OrReason<copy_async::RegionSide> side = copy_async::regionSide(
      copy.getDstType(), copy.getDstStaticOffsets(), sizes.size(), "the shared",
      "the check needs static offsets");
  if (!side)
    return Status::failure(side.reason());
  int64_t layoutOffset = 0;
  if (LayoutAttr layout = copy.getSrcType().getLayout())
    layoutOffset = layout.getLayout().offset(Axis::m);
  const size_t lead = sample.sizes.size() - sizes.size();
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  SmallVector<int64_t, 4> c(sizes.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t shared = kSharedBase +
                     ldgsts::sharedByte(*side, c, copy.getSrcType().getElementBits());
    int64_t element = layoutOffset;
    bool inside = true;
    for (size_t d = 0; d < sample.sizes.size(); ++d) {
      int64_t index = sample.offsets[d] + (d < lead ? 0 : c[d - lead]);
      inside &= index >= 0 && index < sample.sizes[d];
      element += index * sample.strides[d];
    }
    for (int64_t b = 0; b < elementBytes; ++b) {
      int64_t want = inside ? sample.base + element * elementBytes + b : kZero;
      std::string el = "element (";
      for (size_t d = 0; d < c.size(); ++d)
        el += (d ? ", " : "") + str(c[d]);
      el += ")" + (elementBytes > 1 ? " byte " + str(b) : "");
      auto it = written.find(shared + b);
      if (it == written.end())
        return Status::failure(el + ": no cp.async writes shared byte " +
                               str(shared + b) + ", where the layout puts it");
      if (it->second.first != want)
        return Status::failure(
            el + " should be " +
            (inside ? "global byte " + str(want) : std::string("zero")) +
            "; cp.async " + str(int64_t(it->second.second) + 1) +
            " writes " +
            (it->second.first == kZero ? std::string("zero")
                                       : "global byte " + str(it->second.first)));
      written.erase(it);
    }
    for (size_t d = c.size(); d-- > 0;) {
      if (++c[d] < sizes[d])
        break;
      c[d] = 0;
    }
  }
  if (!written.empty())
    return Status::failure("a cp.async writes shared byte " +
                           str(written.begin()->first) +
                           ", which holds no element of the region");
  return Status::success();
}

} // namespace

LogicalResult lowering_check::checkLdgstsLowering(
    Operation *op, ValueRange lowered, ArrayRef<Operation *> emitted,
    const dispatch::DispatchContext &) {
  auto copy = cast<CopyAsyncOp>(op);
  const int64_t threads =
      copy_async::execScopeThreads(copy, copy.getExec()).value_or(0);
  const int64_t elementBytes = copy.getSrcType().getElementBits() / 8;
  int64_t regionBytes = elementBytes;
  for (int64_t s : copy.getSizes())
    regionBytes *= s;
  // One sample per vector width (the base aligned to exactly it), each
  // with the tensor's tail cutting the region.
  // The innermost dim cut short by the fewest elements that keep rows
  // 16-byte multiples (none when the region's row is too short).
  int64_t innerCut = 0;
  {
    Sample whole = makeSample(copy, "", kGlobalBase, 0);
    int64_t end = whole.sizes.back(), inner = copy.getSizes().back();
    for (int64_t k = 1; k < inner; ++k)
      if (((end - k) * elementBytes) % 16 == 0) {
        innerCut = k;
        break;
      }
  }
  // The narrowest vector the emitted code issues: a base aligned to less
  // must trap, any other must be copied.
  int64_t narrowest = 16;
  for (Operation *root : emitted)
    root->walk([&](NVVM::CpAsyncOp cp) {
      narrowest = std::min<int64_t>(narrowest, cp.getSize());
    });
  SmallVector<Sample, 4> samples;
  for (int64_t width : {16, 8, 4})
    if (width >= std::max(elementBytes, narrowest))
      samples.push_back(makeSample(copy,
                                   "a base aligned to " + str(width) + " bytes",
                                   kGlobalBase + (width == 16 ? 0 : width),
                                   innerCut));
  Status status = Status::success();
  for (const Sample &sample : samples) {
    std::vector<Issued> issued;
    int64_t completed = 0;
    status = runThreads(copy, lowered, emitted, sample, threads, issued,
                        completed);
    if (status)
      status = compare(copy, sample, issued);
    if (status && copy.getMbar() && completed != regionBytes)
      status = Status::failure("the threads complete " + str(completed) +
                               " bytes on the mbarrier; the region has " +
                               str(regionBytes));
    if (!status) {
      status = Status::failure(sample.name + ": " + status.reason());
      break;
    }
  }
  return reportOn(op, "ldgsts", status);
}

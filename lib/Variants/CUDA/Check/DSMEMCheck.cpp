//===- DSMEMCheck.cpp - translation validation of dsmem --------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads every emitted cp.async.bulk.shared::cluster.shared::cta back (loops
// unrolled): the source and destination addresses and the size, with the
// source tile at kSharedBase and the destination tile at kSecondSharedBase
// of the peer CTA (kSharedBase too when it is the same buffer). PTX ISA "cp.async.bulk": `size` contiguous bytes from the
// source address to the destination address, both 16-byte aligned, the
// size a multiple of 16. The destination and the mbarrier must be the op's,
// mapped (mapa) into the op's remote_cta. Every byte of every region element
// must land where the destination layout puts it, from where the source
// layout has it; no byte is written twice or outside the region.
//
//===----------------------------------------------------------------------===//

#include "LoweringCheck.h"

#include "tile/Variants/CUDA/VariantHelpers.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <map>

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// Follows `v` through address arithmetic to its mapa; it must map
/// `buffer` into `peer`.
Status mappedFrom(Value v, Value buffer, Value peer, StringRef what) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto mapa = dyn_cast<NVVM::MapaOp>(def)) {
      if (mapa.getA() == buffer && mapa.getB() == peer)
        return Status::success();
      break;
    }
    if (!isa<LLVM::GEPOp, LLVM::AddrSpaceCastOp, LLVM::IntToPtrOp,
             LLVM::PtrToIntOp>(def))
      break;
    v = def->getOperand(0);
  }
  return Status::failure("a bulk copy's " + what.str() + " is not the op's, "
                         "mapped into remote_cta");
}

/// One bulk copy: `bytes` from `src` to `dst`.
struct BulkCopy {
  int64_t src = 0, dst = 0, bytes = 0;
};

struct Written {
  int64_t src;
  size_t copy;
};

/// The bytes the copies write, destination byte -> source byte.
OrReason<std::map<int64_t, Written>> writes(llvm::ArrayRef<BulkCopy> copies) {
  using R = OrReason<std::map<int64_t, Written>>;
  std::map<int64_t, Written> out;
  for (size_t i = 0; i < copies.size(); ++i) {
    const BulkCopy &c = copies[i];
    std::string name =
        "bulk copy " + str(int64_t(i) + 1) + " of " + str(copies.size());
    if (c.bytes <= 0 || c.bytes % 16 || c.src % 16 || c.dst % 16)
      return R::failure(name + " moves " + str(c.bytes) + " bytes from " +
                        str(c.src) + " to " + str(c.dst) + "; cp.async.bulk "
                        "needs 16-byte multiples and 16-byte aligned addresses");
    for (int64_t b = 0; b < c.bytes; ++b)
      if (!out.emplace(c.dst + b, Written{c.src + b, i}).second)
        return R::failure(name + " writes destination byte " + str(c.dst + b) +
                          " a second time");
  }
  return out;
}

/// Every byte of every element of the region against the copies (the
/// destination tile at `dstBase`).
Status compare(CopyAsyncOp copy, llvm::ArrayRef<BulkCopy> copies,
               int64_t dstBase) {
  const char *why = "the check needs static offsets";
  OrReason<copy_async::RegionSide> src = copy_async::regionSide(
      copy.getSrcType(), copy.getSrcStaticOffsets(), copy.getSizes().size(),
      "source", why);
  OrReason<copy_async::RegionSide> dst = copy_async::regionSide(
      copy.getDstType(), copy.getDstStaticOffsets(), copy.getSizes().size(),
      "destination", why);
  if (!src || !dst)
    return Status::failure(!src ? src.reason() : dst.reason());
  OrReason<std::map<int64_t, Written>> written = writes(copies);
  if (!written)
    return Status::failure(written.reason());
  unsigned bits = copy.getSrcType().getElementBits();
  if (bits % 8)
    return Status::failure("sub-byte elements are not modelled");
  int64_t bytes = bits / 8, n = 1;
  ArrayRef<int64_t> sizes = copy.getSizes();
  for (int64_t s : sizes)
    n *= s;
  SmallVector<int64_t, 4> c(sizes.size(), 0), sc, dc;
  for (int64_t e = 0; e < n; ++e) {
    sc.clear(), dc.clear();
    for (size_t d = 0; d < c.size(); ++d) {
      sc.push_back(src->offsets[d] + c[d]);
      dc.push_back(dst->offsets[d] + c[d]);
    }
    int64_t s = kSharedBase + at(src->layout.apply(sc, src->shape), Axis::m) * bytes;
    int64_t t = dstBase + at(dst->layout.apply(dc, dst->shape), Axis::m) * bytes;
    for (int64_t b = 0; b < bytes; ++b) {
      std::string el = "element (";
      for (size_t d = 0; d < c.size(); ++d)
        el += (d ? ", " : "") + str(c[d]);
      el += ")" + (bytes > 1 ? " byte " + str(b) : "");
      auto it = written->find(t + b);
      if (it == written->end())
        return Status::failure(el + ": no bulk copy writes destination byte " +
                               str(t + b) + ", where the layout puts it");
      if (it->second.src != s + b)
        return Status::failure(
            el + " should come from source byte " + str(s + b) +
            " (the source layout); bulk copy " +
            str(int64_t(it->second.copy) + 1) + " of " + str(copies.size()) +
            " writes destination byte " + str(t + b) + " from source byte " +
            str(it->second.src));
      written->erase(it);
    }
    for (size_t d = c.size(); d-- > 0;) {
      if (++c[d] < sizes[d])
        break;
      c[d] = 0;
    }
  }
  if (!written->empty())
    return Status::failure(
        "bulk copy " + str(int64_t(written->begin()->second.copy) + 1) +
        " of " + str(copies.size()) + " writes destination byte " +
        str(written->begin()->first) + ", which holds no element of the region");
  return Status::success();
}

} // namespace

LogicalResult lowering_check::checkDSMEMLowering(
    Operation *op, ValueRange lowered, ArrayRef<Operation *> emitted,
    const dispatch::DispatchContext &) {
  auto copy = cast<CopyAsyncOp>(op);
  CopyAsyncOp::Adaptor adaptor(lowered, copy);
  EmittedValues values;
  // One buffer copied to the same buffer of the peer: one placement.
  int64_t dstBase =
      adaptor.getDst() == adaptor.getSrc() ? kSharedBase : kSecondSharedBase;
  values.bind(adaptor.getDst(), dstBase);
  values.bind(adaptor.getSrc(), kSharedBase);
  values.bind(adaptor.getMbar(), 0);
  std::vector<BulkCopy> copies;
  Status read = runEmitted(emitted, values, [&](Operation *inst) -> Status {
    auto bulk = dyn_cast<NVVM::CpAsyncBulkSharedCTAToSharedClusterOp>(inst);
    if (!bulk)
      return unexpectedInstruction(inst);
    Value peer = adaptor.getRemoteCta();
    if (Status s = mappedFrom(bulk.getDstMem(), adaptor.getDst(), peer,
                              "destination");
        !s)
      return s;
    if (Status s = mappedFrom(bulk.getMbar(), adaptor.getMbar(), peer,
                              "mbarrier");
        !s)
      return s;
    OrReason<int64_t> from = valueOf(values, inst, bulk.getSrcMem(), "the source");
    OrReason<int64_t> to = valueOf(values, inst, bulk.getDstMem(), "the destination");
    OrReason<int64_t> size = valueOf(values, inst, bulk.getSize(), "the size");
    for (auto *v : {&from, &to, &size})
      if (!*v)
        return Status::failure(v->reason());
    copies.push_back(BulkCopy{*from, *to, *size});
    return Status::success();
  });
  if (read)
    read = compare(copy, copies, dstBase);
  return reportOn(op, "dsmem", read);
}

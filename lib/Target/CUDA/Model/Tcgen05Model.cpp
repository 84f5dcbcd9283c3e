//===- Tcgen05Model.cpp - which bytes tcgen05.cp / tcgen05.mma move -------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Target/CUDA/Model/Tcgen05Model.h"

using namespace tile::cuda;
using namespace tile::cuda::model;

using tile::OrReason;

TmemCell model::tmemCell(uint32_t address) {
  return TmemCell{int64_t(address >> 16), int64_t(address & 0xFFFF)};
}

//===----------------------------------------------------------------------===//
// tcgen05.cp
//===----------------------------------------------------------------------===//

OrReason<std::vector<CpByte>> model::tcgen05Copy(const CpInstruction &inst) {
  using R = OrReason<std::vector<CpByte>>;
  if (inst.ctaGroup != 1 && inst.ctaGroup != 2)
    return R::failure("cta_group " + std::to_string(inst.ctaGroup));
  OrReason<SmemDescriptor> d =
      SmemDescriptor::decode(inst.descriptor, DescriptorFlavour::Tcgen05);
  if (!d)
    return R::failure("descriptor: " + d.reason());
  if (d->swizzle == SmemSwizzle::B128Atom32B || d->lboAbsolute ||
      d->baseOffset)
    return R::failure("descriptor uses a swizzle, LBO mode or base "
                      "offset the model does not define");
  const bool swizzled = d->swizzle != SmemSwizzle::None;
  const int64_t w = swizzled ? smemSwizzleRowBytes(d->swizzle) : 16;
  if (swizzled && (d->startAddress % (8 * w)) / w)
    return R::failure("start address " + std::to_string(d->startAddress) +
                      " is inside its swizzle pattern's rows 1-7");

  int64_t rows = 0, rowBytes = 0;
  llvm::SmallVector<int64_t, 4> replicas{0};
  bool multicastOk = false;
  switch (inst.shape) {
  case Tcgen05CpShape::S128x256b: rows = 128; rowBytes = 32;
    multicastOk = inst.multicast == Tcgen05CpMulticast::None; break;
  case Tcgen05CpShape::S4x256b: rows = 4; rowBytes = 32;
    multicastOk = inst.multicast == Tcgen05CpMulticast::None; break;
  case Tcgen05CpShape::S128x128b: rows = 128; rowBytes = 16;
    multicastOk = inst.multicast == Tcgen05CpMulticast::None; break;
  case Tcgen05CpShape::S64x128b: rows = 64; rowBytes = 16;
    multicastOk = inst.multicast == Tcgen05CpMulticast::Warpx2_02_13 ||
                  inst.multicast == Tcgen05CpMulticast::Warpx2_01_23;
    replicas = {0, inst.multicast == Tcgen05CpMulticast::Warpx2_02_13 ? 64 : 32};
    break;
  case Tcgen05CpShape::S32x128b: rows = 32; rowBytes = 16;
    multicastOk = inst.multicast == Tcgen05CpMulticast::Warpx4;
    replicas = {0, 32, 64, 96};
    break;
  }
  if (!multicastOk)
    return R::failure("the shape and multicast do not pair (64x128b "
                      "needs warpx2, 32x128b warpx4, the others none)");
  auto laneOf = [&](int64_t r) -> int64_t {
    if (inst.shape == Tcgen05CpShape::S4x256b)
      return 32 * r;
    if (inst.multicast == Tcgen05CpMulticast::Warpx2_01_23)
      return 64 * (r / 32) + r % 32;
    return r;
  };
  TmemCell base = tmemCell(inst.tmemAddress);
  if (base.column % 4)
    return R::failure("column " + std::to_string(base.column) + " is not 128-bit aligned");
  if (base.column + rowBytes / 4 > kTensorMemoryColumns)
    return R::failure("columns " + std::to_string(base.column) + ".." +
                      std::to_string(base.column + rowBytes / 4 - 1) + " pass 512");
  int64_t lastLane = base.lane + laneOf(rows - 1) + replicas.back();
  if (lastLane >= kTensorMemoryLanes)
    return R::failure("lanes up to " + std::to_string(lastLane) + " pass 128");

  const unsigned valueBits = inst.sourceFormat == Tcgen05CpSourceFormat::B6x16P32 ? 6
                             : inst.sourceFormat == Tcgen05CpSourceFormat::B4x16P64
                                 ? 4
                                 : 8;
  std::vector<CpByte> out;
  out.reserve(rows * rowBytes * replicas.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < rowBytes; ++b) {
      int64_t chunk = b / 16;
      int64_t chunkStart = d->startAddress + (r / 8) * d->strideByteOffset +
                           (r % 8) * w +
                           (chunk ? (swizzled ? 16 : d->leadingByteOffset) : 0);
      // Byte b % 16 of the destination group: a plain byte, or value
      // b % 16 of the chunk's packed values.
      int64_t bit = (b % 16) * valueBits;
      int64_t pre = chunkStart + bit / 8;
      for (int64_t rep : replicas) {
        CpByte out1;
        out1.lane = base.lane + laneOf(r) + rep;
        out1.columnByte = base.column * 4 + b;
        out1.sharedByte = *swizzleAddress(pre, d->swizzle);
        out1.sourceBit = unsigned(bit % 8);
        out1.sourceBits = valueBits;
        out.push_back(out1);
      }
    }
  return out;
}

//===----------------------------------------------------------------------===//
// tcgen05.mma
//===----------------------------------------------------------------------===//

namespace {
/// Bits of an operand element as the kind reads it from memory.
unsigned operandBits(MmaKind kind, MmaElement element) {
  switch (kind) {
  case MmaKind::F16: return 16;
  case MmaKind::TF32: return 32;
  case MmaKind::F8F6F4: case MmaKind::MXF8F6F4: case MmaKind::I8: return 8;
  case MmaKind::MXF4: case MmaKind::MXF4NVF4: return 4;
  }
  return mmaElementBits(element);
}

/// The shared operand `name` a tcgen05 descriptor word describes.
OrReason<SharedOperandModel> sharedOperand(const std::string &name,
                                           uint64_t word, bool mnMajor,
                                           unsigned bits) {
  using R = OrReason<SharedOperandModel>;
  OrReason<SmemDescriptor> d =
      SmemDescriptor::decode(word, DescriptorFlavour::Tcgen05);
  if (!d)
    return R::failure(name + " descriptor: " + d.reason());
  OrReason<SharedOperandModel> m = SharedOperandModel::create(
      *d, mnMajor ? OperandMajor::MN : OperandMajor::K, bits);
  if (!m)
    return R::failure(name + ": " + m.reason());
  return m;
}
} // namespace

OrReason<MmaModel> MmaModel::create(const MmaInstruction &inst) {
  using R = OrReason<MmaModel>;
  if (inst.ctaGroup != 1 && inst.ctaGroup != 2)
    return R::failure("cta_group " + std::to_string(inst.ctaGroup));
  OrReason<InstrDescriptor> id = InstrDescriptor::decode(inst.idesc, inst.kind);
  if (!id)
    return R::failure("instruction descriptor: " + id.reason());
  // Shapes of the data paths (PTX "Matrix shape"): M 64 / 128 (cta_group
  // 1), 128 / 256 (cta_group 2).
  const unsigned g = inst.ctaGroup;
  if (id->m != 64 * g && id->m != 128 * g)
    return R::failure("M = " + std::to_string(id->m) + " with cta_group " + std::to_string(g));
  MmaModel m;
  m.idesc = *id;
  m.group = g;
  unsigned aBits = operandBits(inst.kind, id->a);
  unsigned bBits = operandBits(inst.kind, id->b);
  m.instK = 256 / aBits;
  m.vec = scaleVectorSize(inst.kind, id->scaleType);
  if (m.vec && (g == 2 || id->n > 128))
    return R::failure("block scaling with cta_group 2 or N > 128 is not "
                      "modelled (where those scale factors sit)");
  if (inst.aDescriptor) {
    OrReason<SharedOperandModel> a =
        sharedOperand("A", *inst.aDescriptor, id->aMnMajor, aBits);
    if (!a)
      return R::failure(a.reason());
    m.aShared = *a;
  } else {
    if (id->aMnMajor)
      return R::failure("A in tensor memory is read K-major; the "
                        "instruction descriptor says MN-major");
    m.aCell = tmemCell(inst.aTmem);
  }
  OrReason<SharedOperandModel> b =
      sharedOperand("B", inst.bDescriptor, id->bMnMajor, bBits);
  if (!b)
    return R::failure(b.reason());
  m.bShared = *b;
  m.dCell = tmemCell(inst.dTmem);
  m.sfaCell = tmemCell(inst.sfaTmem);
  m.sfbCell = tmemCell(inst.sfbTmem);
  if (m.dCell.lane + m.dataPathLane(m.rowsA() - 1) >= kTensorMemoryLanes ||
      m.dCell.column + int64_t(id->n) > kTensorMemoryColumns)
    return R::failure("D at lane " + std::to_string(m.dCell.lane) + ", column " +
                      std::to_string(m.dCell.column) + " passes tensor memory");
  return m;
}

int64_t MmaModel::dataPathLane(int64_t r) const {
  if (idesc.m == 128 * group)
    return r;
  return 32 * (r / 16) + r % 16;
}

AOperandPlace MmaModel::a(int64_t m, int64_t k) const {
  AOperandPlace p;
  if (aShared) {
    p.shared = aShared->address(m, k);
    return p;
  }
  p.inTensorMemory = true;
  p.lane = aCell.lane + dataPathLane(m);
  p.bit = aCell.column * 32 + k * (256 / instK);
  return p;
}

ElementAddress MmaModel::b(int64_t n, int64_t k) const {
  return bShared.address(n, k);
}

TmemCell MmaModel::d(int64_t m, int64_t n) const {
  return TmemCell{dCell.lane + dataPathLane(m), dCell.column + n};
}

std::pair<int64_t, int64_t> MmaModel::scaleA(int64_t m, int64_t j) const {
  return {sfaCell.lane + dataPathLane(m),
          sfaCell.column * 4 + idesc.aScaleId + j};
}

std::pair<int64_t, int64_t> MmaModel::scaleB(int64_t n, int64_t j) const {
  // B's scale rows follow the N rows of this CTA on the same data path.
  return {sfbCell.lane + n, sfbCell.column * 4 + idesc.bScaleId + j};
}

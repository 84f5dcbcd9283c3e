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

namespace {
/// Rows, bytes per row and replica lane offsets of a tcgen05.cp form.
struct CpForm {
  int64_t rows = 0, rowBytes = 0;
  llvm::SmallVector<int64_t, 4> replicas{0};
  bool paired = false;
};

CpForm cpForm(const CpInstruction &inst) {
  CpForm f;
  bool none = inst.multicast == Tcgen05CpMulticast::None;
  switch (inst.shape) {
  case Tcgen05CpShape::S128x256b: f = {128, 32, {0}, none}; break;
  case Tcgen05CpShape::S4x256b: f = {4, 32, {0}, none}; break;
  case Tcgen05CpShape::S128x128b: f = {128, 16, {0}, none}; break;
  case Tcgen05CpShape::S64x128b:
    f = {64, 16, {0, inst.multicast == Tcgen05CpMulticast::Warpx2_02_13 ? 64 : 32},
         inst.multicast == Tcgen05CpMulticast::Warpx2_02_13 ||
             inst.multicast == Tcgen05CpMulticast::Warpx2_01_23};
    break;
  case Tcgen05CpShape::S32x128b:
    f = {32, 16, {0, 32, 64, 96}, inst.multicast == Tcgen05CpMulticast::Warpx4};
    break;
  }
  return f;
}

/// Lane of source row r relative to the instruction's lane.
int64_t cpLane(const CpInstruction &inst, int64_t r) {
  if (inst.shape == Tcgen05CpShape::S4x256b)
    return 32 * r;
  if (inst.multicast == Tcgen05CpMulticast::Warpx2_01_23)
    return 64 * (r / 32) + r % 32;
  return r;
}

/// The source descriptor of a copy, or why the model does not define it.
OrReason<SharedDescriptorFields> cpSource(const CpInstruction &inst) {
  using R = OrReason<SharedDescriptorFields>;
  if (inst.ctaGroup != 1 && inst.ctaGroup != 2)
    return R::failure("cta_group " + std::to_string(inst.ctaGroup));
  OrReason<SharedDescriptorFields> d =
      readSharedDescriptor(inst.descriptor, Family::Tcgen05);
  if (!d)
    return R::failure("descriptor: " + d.reason());
  if (d->swizzle == Swizzle::B128Atom32B || d->lboAbsolute || d->baseOffset)
    return R::failure("descriptor uses a swizzle, LBO mode or base "
                      "offset the model does not define");
  const int64_t w = swizzleRowBytes(d->swizzle);
  if (d->swizzle != Swizzle::None && (d->start % (8 * w)) / w)
    return R::failure("start address " + std::to_string(d->start) +
                      " is inside its swizzle pattern's rows 1-7");
  return d;
}

/// Why the copy's destination does not fit, if it does not.
std::optional<std::string> cpPlaceProblem(const CpInstruction &inst,
                                          const CpForm &f) {
  if (!f.paired)
    return std::string("the shape and multicast do not pair (64x128b "
                       "needs warpx2, 32x128b warpx4, the others none)");
  TmemCell base = tmemCell(inst.tmemAddress);
  if (base.column % 4)
    return "column " + std::to_string(base.column) + " is not 128-bit aligned";
  if (base.column + f.rowBytes / 4 > kTensorMemoryColumns)
    return "columns " + std::to_string(base.column) + ".." +
           std::to_string(base.column + f.rowBytes / 4 - 1) + " pass 512";
  int64_t lastLane = base.lane + cpLane(inst, f.rows - 1) + f.replicas.back();
  if (lastLane >= kTensorMemoryLanes)
    return "lanes up to " + std::to_string(lastLane) + " pass 128";
  return std::nullopt;
}
} // namespace

OrReason<std::vector<CpByte>> model::tcgen05Copy(const CpInstruction &inst) {
  using R = OrReason<std::vector<CpByte>>;
  OrReason<SharedDescriptorFields> d = cpSource(inst);
  if (!d)
    return R::failure(d.reason());
  const CpForm f = cpForm(inst);
  if (std::optional<std::string> p = cpPlaceProblem(inst, f))
    return R::failure(*p);
  const bool swizzled = d->swizzle != Swizzle::None;
  const int64_t w = swizzleRowBytes(d->swizzle);
  const TmemCell base = tmemCell(inst.tmemAddress);
  const unsigned valueBits =
      inst.sourceFormat == Tcgen05CpSourceFormat::B6x16P32   ? 6
      : inst.sourceFormat == Tcgen05CpSourceFormat::B4x16P64 ? 4
                                                             : 8;
  std::vector<CpByte> out;
  out.reserve(f.rows * f.rowBytes * f.replicas.size());
  for (int64_t r = 0; r < f.rows; ++r)
    for (int64_t b = 0; b < f.rowBytes; ++b) {
      int64_t chunkStart = d->start + (r / 8) * d->sbo + (r % 8) * w +
                           (b / 16 ? (swizzled ? 16 : d->lbo) : 0);
      // Byte b % 16 of the destination group: a plain byte, or value
      // b % 16 of the chunk's packed values.
      int64_t bit = (b % 16) * valueBits;
      for (int64_t rep : f.replicas) {
        CpByte c;
        c.lane = base.lane + cpLane(inst, r) + rep;
        c.columnByte = base.column * 4 + b;
        c.sharedByte = swizzleAddress(chunkStart + bit / 8, d->swizzle);
        c.sourceBit = unsigned(bit % 8);
        c.sourceBits = valueBits;
        out.push_back(c);
      }
    }
  return out;
}

OrReason<DescriptorUse> model::tcgen05CopyFieldsRead(const CpInstruction &inst) {
  OrReason<SharedDescriptorFields> d = cpSource(inst);
  if (!d)
    return OrReason<DescriptorUse>::failure(d.reason());
  const CpForm f = cpForm(inst);
  DescriptorUse u;
  u.sbo = f.rows > 8;
  u.lbo = d->swizzle == Swizzle::None && f.rowBytes > 16;
  return u;
}

//===----------------------------------------------------------------------===//
// tcgen05.mma
//===----------------------------------------------------------------------===//

std::optional<DataPath> model::dataPathOf(unsigned m, unsigned ctaGroup,
                                          bool ws) {
  if (ws)
    return ctaGroup != 1 ? std::nullopt
           : m == 32     ? std::optional(DataPath::G)
           : m == 64     ? std::optional(DataPath::E)
           : m == 128    ? std::optional(DataPath::D)
                         : std::nullopt;
  if (ctaGroup == 1)
    return m == 64 ? std::optional(DataPath::F)
           : m == 128 ? std::optional(DataPath::D) : std::nullopt;
  if (ctaGroup == 2)
    return m == 128 ? std::optional(DataPath::B)
           : m == 256 ? std::optional(DataPath::A) : std::nullopt;
  return std::nullopt;
}

namespace {
using Problem = std::optional<std::string>;

/// N values of PTX Table 39 for (kind, cta_group, .ws).
bool validN(Kind kind, unsigned n, unsigned g, bool ws) {
  if (ws)
    return n == 64 || n == 128 || n == 256;
  if (n == 0 || n > 256)
    return false;
  if (kind == Kind::I8)
    return g == 1 ? (n <= 32 ? n % 8 == 0 : n % 16 == 0) : n % 32 == 0;
  return n % (8 * g) == 0;
}

/// M and N of PTX Table 39 ("Various combinations of .kind and shapes").
Problem shapeProblem(Kind kind, const MmaFields &f, unsigned g, bool ws) {
  std::string what = "kind::" + nameOf(kind).str() + (ws ? ".ws" : "") +
                     " with cta_group " + std::to_string(g);
  if (ws && (g != 1 || isBlockScaled(kind)))
    return "tcgen05.mma.ws is cta_group 1 and dense kinds only, not " + what;
  bool mOk = ws ? f.m == 32 || f.m == 64 || f.m == 128
              : isBlockScaled(kind) && g == 1 ? f.m == 128
                                              : f.m == 64 * g || f.m == 128 * g;
  if (!mOk)
    return "M = " + std::to_string(f.m) + " is not a shape of " + what;
  if (!validN(kind, f.n, g, ws))
    return "N = " + std::to_string(f.n) + " is not a shape of " + what;
  return std::nullopt;
}

/// Lane of row m relative to the operand's lane (the layout's row part).
int64_t rowLane(DataPath p, int64_t m) {
  return p == DataPath::F ? 32 * (m / 16) + m % 16 : m;
}

char letter(DataPath p) { return char('A' + int(p)); }
} // namespace

TmemCell MmaModel::dOffset(int64_t m, int64_t n) const {
  const int64_t cols = dColumns();
  switch (path) {
  case DataPath::B: case DataPath::E: case DataPath::G:
    // The N columns fold into 2 (B, E: 64-lane halves) or 4 (G: 32-lane
    // quarters) lane groups.
    return TmemCell{m + (path == DataPath::G ? 32 : 64) * (n / cols),
                    n % cols};
  default:
    return TmemCell{rowLane(path, m), n};
  }
}

int64_t MmaModel::dColumns() const {
  switch (path) {
  case DataPath::B: case DataPath::E: return fields.n / 2;
  case DataPath::G: return fields.n / 4;
  default: return fields.n;
  }
}

OrReason<MmaModel> MmaModel::create(const MmaInstruction &inst) {
  using R = OrReason<MmaModel>;
  const unsigned g = inst.ctaGroup;
  if (g != 1 && g != 2)
    return R::failure("cta_group " + std::to_string(g));
  OrReason<MmaFields> f =
      readInstrDescriptor(inst.idesc, inst.kind, inst.weightStationary);
  if (!f)
    return R::failure("instruction descriptor: " + f.reason());
  if (Problem p = shapeProblem(inst.kind, *f, g, inst.weightStationary))
    return R::failure(*p);
  MmaModel m;
  m.fields = *f;
  m.kind = inst.kind;
  m.group = g;
  m.instK = instructionK(inst.kind);
  m.path = *dataPathOf(f->m, g, inst.weightStationary);
  m.dCell = tmemCell(inst.dTmem);
  bool halfOk = m.path == DataPath::F && m.dCell.lane == 16;
  if (m.dCell.lane != 0 && !halfOk)
    return R::failure("D at lane " + std::to_string(m.dCell.lane) +
                      ": layout " + letter(m.path) + " starts at lane 0" +
                      (m.path == DataPath::F ? " or 16" : ""));
  if (m.dCell.column + m.dColumns() > kTensorMemoryColumns)
    return R::failure("D at lane " + std::to_string(m.dCell.lane) +
                      ", column " + std::to_string(m.dCell.column) +
                      " passes tensor memory");
  if (OrReason<void> s = m.placeOperands(inst); !s)
    return R::failure(s.reason());
  if (OrReason<void> s = m.placeScales(inst); !s)
    return R::failure(s.reason());
  return m;
}

OrReason<void> MmaModel::placeOperands(const MmaInstruction &inst) {
  using R = OrReason<void>;
  const unsigned aBits = storageBits(kind, fields.a);
  const unsigned bBits = storageBits(kind, fields.b);
  auto shared = [&](const char *name, uint64_t word, bool mn, unsigned bits,
                    std::optional<SharedOperandModel> &out) -> R {
    OrReason<SharedOperandModel> s = SharedOperandModel::create(
        word, Family::Tcgen05, mn ? OperandMajor::MN : OperandMajor::K, bits);
    if (!s)
      return R::failure(std::string(name) + ": " + s.reason());
    out = *s;
    return R::success();
  };
  if (R s = shared("B", inst.bDescriptor, fields.bMnMajor, bBits, bShared); !s)
    return s;
  if (inst.aDescriptor)
    return shared("A", *inst.aDescriptor, fields.aMnMajor, aBits, aShared);
  if (fields.aMnMajor)
    return R::failure("A in tensor memory is read K-major; the instruction "
                      "descriptor says MN-major");
  if (path == DataPath::G)
    return R::failure("A in tensor memory under layout G (M 32 .ws): no "
                      "source places its rows");
  aCell = tmemCell(inst.aTmem);
  int64_t wantLane = path == DataPath::F ? dCell.lane : 0;
  if (aCell.lane != wantLane)
    return R::failure("A in tensor memory at lane " +
                      std::to_string(aCell.lane) + "; layout " + letter(path) +
                      " needs lane " + std::to_string(wantLane) +
                      (path == DataPath::F ? " (D's lane alignment)" : ""));
  if (aCell.column + instK * aBits / 32 > kTensorMemoryColumns)
    return R::failure("A in tensor memory passes column 511");
  return R::success();
}

OrReason<void> MmaModel::placeScales(const MmaInstruction &inst) {
  using R = OrReason<void>;
  if (!isBlockScaled(kind))
    return R::success();
  bool nvf4 = kind == Kind::MXF4NVF4;
  vec = inst.scaleBlock ? inst.scaleBlock : nvf4 && !fields.ue8m0 ? 16 : 32;
  bool legal = vec == 32 ? fields.ue8m0 : vec == 16 && nvf4;
  if (!legal || (nvf4 && fields.ue8m0 && !inst.scaleBlock))
    return R::failure("scale block " + std::to_string(inst.scaleBlock) +
                      " with " + (fields.ue8m0 ? "UE8M0" : "UE4M3") +
                      " scales is not a form of kind::" + nameOf(kind).str() +
                      " (Table 57)");
  // 1X: any byte; 2X: half-word 0 or 2; 4X: the whole word (Scale Factor
  // A/B ID layouts).
  const int64_t perInst = instK / vec;
  auto idOk = [&](unsigned id) { return (id % perInst) == 0; };
  if (!idOk(fields.sfaId) || !idOk(fields.sfbId))
    return R::failure("scale-factor ids " + std::to_string(fields.sfaId) +
                      "/" + std::to_string(fields.sfbId) + " do not fit " +
                      std::to_string(perInst) + " scales per row");
  sfaCell = tmemCell(inst.sfaTmem);
  sfbCell = tmemCell(inst.sfbTmem);
  for (auto [cell, cols, name] :
       {std::tuple{sfaCell, scaleColumnsA(), "A"},
        std::tuple{sfbCell, scaleColumnsB(), "B"}}) {
    if (cell.lane != 0)
      return R::failure(std::string("scale factors ") + name + " at lane " +
                        std::to_string(cell.lane) +
                        ": each 32-lane partition's copy starts at its "
                        "first lane (address lane 0)");
    if (cell.column + cols > kTensorMemoryColumns)
      return R::failure(std::string("scale factors ") + name +
                        " at column " + std::to_string(cell.column) +
                        " pass column 511 (" + std::to_string(cols) +
                        " columns)");
  }
  return R::success();
}

namespace {
/// Columns a scale vector of `rows` rows takes: 32 rows a column.
int64_t columnsFor(int64_t rows) { return (rows + 31) / 32; }
} // namespace

int64_t MmaModel::scaleColumnsA() const { return columnsFor(rowsA()); }

int64_t MmaModel::scaleColumnsB() const {
  return columnsFor(path == DataPath::B ? fields.n / 2 : fields.n);
}

ScalePlace MmaModel::scaleA(int64_t m, int64_t j) const {
  ScalePlace p;
  for (int64_t part = 0; part < 4; ++part)
    p.lanes.push_back(sfaCell.lane + 32 * part + m % 32);
  p.byte = (sfaCell.column + m / 32) * 4 + fields.sfaId + j;
  return p;
}

ScalePlace MmaModel::scaleB(int64_t n, int64_t j) const {
  ScalePlace p;
  // Layout B: partitions 2h, 2h+1 compute N half h and read its scales as
  // their own rows 0..N/2-1; A and D: every partition computes all of N.
  const bool halves = path == DataPath::B;
  const int64_t half = fields.n / 2, row = halves ? n % half : n;
  const int64_t first = halves ? 2 * (n / half) : 0, count = halves ? 2 : 4;
  for (int64_t part = first; part < first + count; ++part)
    p.lanes.push_back(sfbCell.lane + 32 * part + row % 32);
  p.byte = (sfbCell.column + row / 32) * 4 + fields.sfbId + j;
  return p;
}

AOperandPlace MmaModel::a(int64_t m, int64_t k) const {
  AOperandPlace p;
  if (aShared) {
    p.shared = aShared->address(m, k);
    return p;
  }
  p.inTensorMemory = true;
  p.lane = aCell.lane + rowLane(path, m);
  p.bit = aCell.column * 32 + k * (256 / instK);
  if (path == DataPath::B || path == DataPath::E)
    p.replicaLane = p.lane + 64;
  return p;
}

ElementAddress MmaModel::b(int64_t n, int64_t k) const {
  return bShared->address(n, k);
}

TmemCell MmaModel::d(int64_t m, int64_t n) const {
  TmemCell o = dOffset(m, n);
  return TmemCell{dCell.lane + o.lane, dCell.column + o.column};
}

DescriptorUse MmaModel::aFieldsRead() const {
  return aShared ? aShared->fieldsRead(rowsA(), instK) : DescriptorUse{};
}

DescriptorUse MmaModel::bFieldsRead() const {
  return bShared->fieldsRead(rowsB(), instK);
}

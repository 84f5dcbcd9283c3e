//===- Tcgen05MmaPlanner.cpp - plan tensor-core MMAs on tiles ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each operand region is viewed as a function (row, k) -> address through
// its layout (the swizzle left out: it acts on absolute addresses, the same
// way for the layout and for the hardware's descriptor walk). The first
// instruction tile fixes major-ness, LBO and SBO; then every element of
// every instruction tile is compared with the canonical formula, so a plan
// exists only where the descriptor reads exactly the elements the layout
// names.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/GemmAsync/Tcgen05MmaPlanner.h"

#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace tile;
using namespace tile::tcgen05_mma;
using cuda::MmaElement;
using cuda::MmaKind;
using cuda::SmemSwizzle;

using namespace tile::mma_operand;

namespace {

bool isFp8OrNarrower(MmaElement e) {
  switch (e) {
  case MmaElement::E4M3: case MmaElement::E5M2: case MmaElement::E2M3:
  case MmaElement::E3M2: case MmaElement::E2M1: return true;
  default: return false;
  }
}
} // namespace

OrReason<MmaKind> tcgen05_mma::selectKind(MmaElement a, MmaElement b,
                                          bool scaled,
                                          cuda::ScaleFactorType scaleType) {
  using R = OrReason<MmaKind>;
  std::string types = cuda::mmaElementName(a).str() + " x " +
                      cuda::mmaElementName(b).str();
  if (isFp8OrNarrower(a) && isFp8OrNarrower(b)) {
    if (!scaled)
      return MmaKind::F8F6F4;
    if (a == MmaElement::E2M1 && b == MmaElement::E2M1)
      return scaleType == cuda::ScaleFactorType::UE4M3 ? MmaKind::MXF4NVF4
                                                       : MmaKind::MXF4;
    if (scaleType != cuda::ScaleFactorType::UE8M0)
      return R::failure("block-scaled " + types +
                        " is kind::mxf8f6f4, whose scales are ue8m0, not "
                        "ue4m3");
    return MmaKind::MXF8F6F4;
  }
  if (scaled)
    return R::failure("block scaling takes fp8/fp6/fp4 operands, not " + types);
  if (a != b)
    return R::failure("A and B types differ (" + types +
                      "); only the fp8/fp6/fp4 kinds mix types");
  switch (a) {
  case MmaElement::F16: case MmaElement::BF16: return MmaKind::F16;
  case MmaElement::TF32: return MmaKind::TF32;
  case MmaElement::U8: case MmaElement::S8: return MmaKind::I8;
  default:
    return R::failure("no tcgen05.mma kind takes " + types);
  }
}

std::string tcgen05_mma::shapeRule(unsigned ctaGroup, int64_t m, int64_t n,
                                   bool weightStationary, MmaKind kind) {
  if (weightStationary) {
    if (ctaGroup != 1)
      return "cta_group " + str(ctaGroup) + ": tcgen05.mma.ws is cta_group 1 "
                                            "only";
    if (m != 32 && m != 64 && m != 128)
      return "M = " + str(m) + ": .ws MMAs have M 32, 64 or 128";
    if (n != 64 && n != 128 && n != 256)
      return "N = " + str(n) + ": .ws MMAs have N 64, 128 or 256";
    return "";
  }
  auto rule = [&](int64_t granule, int64_t lo) -> std::string {
    if (n % granule == 0 && n >= lo && n <= 256)
      return "";
    return "N = " + str(n) + ": cta_group " + str(ctaGroup) + " M " + str(m) +
           " MMAs have N a multiple of " + str(granule) + " in " + str(lo) +
           "..256";
  };
  bool i8 = kind == MmaKind::I8;
  if (ctaGroup == 1) {
    // kind::i8 M 64: N 8, 16, 24, 32, then multiples of 16.
    if (m == 64 && i8 && n > 32 && n % 16)
      return "N = " + str(n) + ": kind::i8 cta_group 1 M 64 MMAs have N 8, "
                               "16, 24, 32 or a multiple of 16 up to 256";
    if (m == 64) return rule(8, 8);
    if (m == 128) return rule(16, 16);
    return "M = " + str(m) + ": cta_group 1 MMAs have M 64 or 128";
  }
  if (ctaGroup == 2) {
    if (m != 128 && m != 256)
      return "M = " + str(m) + ": cta_group 2 MMAs have M 128 or 256";
    return i8 ? rule(32, 32) : rule(16, 16);
  }
  return "cta_group " + str(ctaGroup) + " (1 or 2)";
}

std::string tcgen05_mma::dataPathName(DataPath path) {
  switch (path) {
  case DataPath::A: return "A (M 256, cta_group 2)";
  case DataPath::B: return "B (M 128, cta_group 2)";
  case DataPath::D: return "D (M 128)";
  case DataPath::E: return "E (M 64, .ws)";
  case DataPath::F: return "F (M 64, cta_group 1)";
  case DataPath::G: return "G (M 32, .ws)";
  }
  return "?";
}

DataPath tcgen05_mma::dataPathOf(unsigned ctaGroup, int64_t instM,
                                 bool weightStationary) {
  if (ctaGroup == 2)
    return instM == 256 ? DataPath::A : DataPath::B;
  if (instM == 128)
    return DataPath::D;
  if (instM == 64)
    return weightStationary ? DataPath::E : DataPath::F;
  return DataPath::G;
}

bool tcgen05_mma::isFolded(DataPath path) {
  return path == DataPath::B || path == DataPath::E || path == DataPath::G;
}

TmemPlace tcgen05_mma::accumulatorPlace(DataPath path, int64_t instN,
                                        int64_t r, int64_t c) {
  switch (path) {
  case DataPath::B:
  case DataPath::E:
    return {r + 64 * (c / (instN / 2)), c % (instN / 2)};
  case DataPath::G:
    return {r + 32 * (c / (instN / 4)), c % (instN / 4)};
  case DataPath::F:
    return {32 * (r / 16) + r % 16, c};
  case DataPath::A:
  case DataPath::D:
    break;
  }
  return {r, c};
}

int64_t tcgen05_mma::rowLane(DataPath path, int64_t r) {
  return path == DataPath::F ? 32 * (r / 16) + r % 16 : r;
}

ScaleRowPlace tcgen05_mma::scaleRowPlace(DataPath path, bool operandB,
                                         int64_t instN, int64_t r) {
  // Path B folds N: lane partitions 0-1 compute the first N/2 columns,
  // 2-3 the rest, each scaling with its own half of B's scales.
  bool halves = operandB && path == DataPath::B;
  int64_t row = halves ? r % (instN / 2) : r;
  int64_t first = halves ? 2 * (r / (instN / 2)) : 0;
  int64_t count = halves ? 2 : 4;
  ScaleRowPlace p;
  p.column = row / 32;
  for (int64_t part = first; part < first + count; ++part)
    p.lanes.push_back(32 * part + row % 32);
  return p;
}

namespace {

//===----------------------------------------------------------------------===//
// Tensor-memory tiles
//===----------------------------------------------------------------------===//

/// `(lane << 16) | column` of the tile at (row0, col0), after checking every
/// element: (r, c) at lane + place(r, c).lane and, in 32-bit columns,
/// column + place(r, c).column * elementBits / 32 (packed) or + place.column
/// (unpacked: one element per column).
using PlaceFn = llvm::function_ref<TmemPlace(int64_t, int64_t)>;
OrReason<uint32_t> tmemTile(const Region &region, const std::string &name,
                            unsigned bits, bool packed, int64_t row0,
                            int64_t col0, int64_t rows, int64_t cols,
                            const std::string &pathName, PlaceFn place) {
  using R = OrReason<uint32_t>;
  AxisAddress a0 = region.at(row0, col0);
  int64_t lane0 = at(a0, Axis::TLane), tcol0 = at(a0, Axis::TCol);
  if ((tcol0 * int64_t(bits)) % 32)
    return R::failure(name + " tile at (" + str(row0) + ", " + str(col0) +
                      ") starts " + str(tcol0 * int64_t(bits) % 32) +
                      " bits into a 32-bit column");
  int64_t column = tcol0 * int64_t(bits) / 32;
  if (!packed && bits > 32)
    return R::failure(name + " has " + str(bits) + "-bit elements");
  // Element place p sits at TCol (in elements) tcol0 + step * p.column.
  int64_t step = packed ? 1 : 32 / int64_t(bits);
  int64_t maxLane = 0, maxColumn = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      TmemPlace p = place(r, c);
      maxLane = std::max(maxLane, p.lane);
      maxColumn = std::max(maxColumn, p.column);
      AxisAddress x = region.at(row0 + r, col0 + c);
      int64_t wantLane = lane0 + p.lane, wantCol = tcol0 + step * p.column;
      if (at(x, Axis::TLane) != wantLane || at(x, Axis::TCol) != wantCol)
        return R::failure(
            name + " element (" + str(row0 + r) + ", " + str(col0 + c) +
            ") is in lane " + str(at(x, Axis::TLane)) + ", TCol " +
            str(at(x, Axis::TCol)) + "; data path " + pathName +
            " puts it in lane " + str(wantLane) + ", TCol " + str(wantCol) +
            (packed ? "" : " (one element per 32-bit column)"));
    }
  int64_t columns = packed ? (maxColumn + 1) * int64_t(bits) / 32
                           : maxColumn + 1;
  if (lane0 < 0 || lane0 + maxLane >= 128)
    return R::failure(name + " tile at (" + str(row0) + ", " + str(col0) +
                      ") uses lanes " + str(lane0) + ".." +
                      str(lane0 + maxLane) + ": tensor memory has 128");
  if (column < 0 || column + columns > 512)
    return R::failure(name + " tile at (" + str(row0) + ", " + str(col0) +
                      ") uses columns " + str(column) + ".." +
                      str(column + columns - 1) + ": tensor memory has 512");
  return static_cast<uint32_t>((lane0 << 16) | column);
}

/// The scale factors one instruction reads for rows row0.. of its operand:
/// `count` consecutive bytes per row from the byte the scale-factor id
/// names (a multiple of count), in the column and lanes scaleRowPlace
/// gives (relative to the scale address, which is at lane 0).
struct ScaleTile {
  uint32_t tmem = 0;
  unsigned id = 0;
};
using ScaleRowFn = llvm::function_ref<ScaleRowPlace(int64_t)>;

/// Whether (row, col) of `region` has a place at (lane, tcol).
bool holds(const Region &region, int64_t row, int64_t col, int64_t lane,
           int64_t tcol) {
  for (const AxisAddress &a : region.places(row, col))
    if (at(a, Axis::TLane) == lane && at(a, Axis::TCol) == tcol)
      return true;
  return false;
}

/// Where (row, col) of a scale tile is, for a report.
std::string scalePlaces(const Region &region, int64_t row, int64_t col) {
  std::string s;
  for (const AxisAddress &a : region.places(row, col))
    s += (s.empty() ? "lane " : ", lane ") + str(at(a, Axis::TLane)) +
         " TCol " + str(at(a, Axis::TCol));
  return s;
}

/// The scale address of the instruction reading K blocks k0.. of rows
/// row0..: its first element's lowest lane (0) and byte (the id).
OrReason<ScaleTile> scaleStart(const Region &region, const std::string &name,
                               int64_t row0, int64_t k0, int64_t count) {
  using R = OrReason<ScaleTile>;
  llvm::SmallVector<AxisAddress, 4> p0 = region.places(row0, k0);
  AxisAddress a0 = *llvm::min_element(p0, [](const AxisAddress &x,
                                             const AxisAddress &y) {
    return at(x, Axis::TLane) < at(y, Axis::TLane);
  });
  int64_t lane0 = at(a0, Axis::TLane), tcol0 = at(a0, Axis::TCol);
  std::string where = name + " (" + str(row0) + ", " + str(k0) + ")";
  if (lane0 != 0)
    return R::failure(where + " is in lane " + str(lane0) +
                      " at the lowest; an instruction reads each 32-lane "
                      "partition's copy of the scales from its first lane "
                      "(scale address lane 0)");
  if (count > 1 && holds(region, row0, k0 + 1, lane0, tcol0))
    return R::failure(name + " are broadcast along K (K blocks " + str(k0) +
                      " and " + str(k0 + 1) + " share TCol " + str(tcol0) +
                      "): an instruction reads " + str(count) +
                      " consecutive scale bytes a row, so each K block needs "
                      "its own byte");
  ScaleTile s;
  s.id = static_cast<unsigned>(tcol0 % 4);
  if (s.id % count)
    return R::failure(name + " for K block " + str(k0) + " start at byte " +
                      str(s.id) + " of a column; an instruction reading " +
                      str(count) + " scale(s) per row starts at byte 0" +
                      (count == 1 ? "..3" : count == 2 ? " or 2" : ""));
  s.tmem = static_cast<uint32_t>(tcol0 / 4);
  return s;
}

OrReason<ScaleTile> scaleTile(const Region &region, const std::string &name,
                              int64_t row0, int64_t rows, int64_t k0,
                              int64_t count, ScaleRowFn placeOf) {
  using R = OrReason<ScaleTile>;
  OrReason<ScaleTile> s = scaleStart(region, name, row0, k0, count);
  if (!s)
    return s;
  const int64_t tcol0 = int64_t(s->tmem) * 4 + s->id;
  int64_t columns = 0;
  for (int64_t r = 0; r < rows; ++r) {
    ScaleRowPlace p = placeOf(r);
    columns = std::max(columns, p.column + 1);
    for (int64_t j = 0; j < count; ++j)
      for (int64_t lane : p.lanes) {
        int64_t tcol = tcol0 + 4 * p.column + j;
        if (!holds(region, row0 + r, k0 + j, lane, tcol))
          return R::failure(
              name + " (" + str(row0 + r) + ", " + str(k0 + j) + ") is at " +
              scalePlaces(region, row0 + r, k0 + j) +
              "; the instruction reads it from lane " + str(lane) +
              ", TCol " + str(tcol) + " (byte " + str(tcol % 4) +
              " of column " + str(tcol / 4) + ")");
      }
  }
  if (int64_t(s->tmem) + columns > 512)
    return R::failure(name + " use columns " + str(s->tmem) + ".." +
                      str(s->tmem + columns - 1) + ": tensor memory has 512");
  return s;
}

/// The operand widths the tiles store must be the element types' own, and
/// fp6/fp4 of the f8f6f4 kinds come in 8-bit containers, not packed.
Status checkElementWidths(const Request &req, MmaKind kind) {
  std::string kindName = "kind::" + cuda::mmaKindName(kind).str();
  for (auto [e, bits, name] : {std::tuple{req.a, req.aBits, "A"},
                               std::tuple{req.b, req.bBits, "B"}}) {
    if (bits != cuda::mmaElementBits(e))
      return Status::failure(std::string(name) + " elements are " + str(bits) +
                             "-bit; " + cuda::mmaElementName(e).str() + " is " +
                             str(cuda::mmaElementBits(e)) + "-bit");
    if (bits < 8 && (kind == MmaKind::F8F6F4 || kind == MmaKind::MXF8F6F4))
      return Status::failure(
          std::string(name) + " is " + cuda::mmaElementName(e).str() + ": " +
          kindName +
          " reads fp6/fp4 from 8-bit containers in shared memory, which a "
          "tile of packed " +
          str(bits) +
          "-bit elements does not describe (packed fp4 is "
          "kind::mxf4/mxf4nvf4, with scales)");
  }
  return Status::success();
}

/// The form's own rules: cta_group, `.ws` (cta_group 1, no block scaling),
/// the collector buffers, M and N split evenly across a pair.
Status checkForm(const Request &req, bool scaled) {
  const int64_t g = req.ctaGroup;
  if (g != 1 && g != 2)
    return Status::failure("cta_group " + str(g) + " (1 or 2)");
  if (req.weightStationary && g != 1)
    return Status::failure("tcgen05.mma.ws is cta_group 1 only");
  if (req.weightStationary && scaled)
    return Status::failure("tcgen05.mma.ws has no block-scaled kinds");
  if (!req.weightStationary && req.collectorBuffer != 0)
    return Status::failure("collector buffer b" + str(req.collectorBuffer) +
                           ": buffers b0..b3 hold B of tcgen05.mma.ws; the "
                           "dense form collects A in one buffer");
  if (req.collectorBuffer > 3)
    return Status::failure("collector buffer b" + str(req.collectorBuffer) +
                           " (b0..b3)");
  if (req.m % g || req.n % g)
    return Status::failure("cta_group 2 splits M and N between two CTAs; M "
                           "= " + str(req.m) + ", N = " + str(req.n) +
                           " are not even");
  return Status::success();
}

std::string instShapeName(const Request &req) {
  return "instruction_shape " + str(req.instructionShape->first) + "x" +
         str(req.instructionShape->second);
}

/// M: the user's, or the widest legal one dividing the region's.
OrReason<int64_t> chooseM(const Request &req, MmaKind kind) {
  using R = OrReason<int64_t>;
  // Block-scaled kinds have no M 64 form with cta_group 1.
  bool scaled = req.sfaSide.has_value();
  llvm::SmallVector<int64_t, 3> ms =
      req.weightStationary ? llvm::SmallVector<int64_t, 3>{128, 64, 32}
      : req.ctaGroup == 2  ? llvm::SmallVector<int64_t, 3>{256, 128}
      : scaled             ? llvm::SmallVector<int64_t, 3>{128}
                           : llvm::SmallVector<int64_t, 3>{128, 64};
  std::string form = req.weightStationary ? std::string(".ws")
                     : scaled && req.ctaGroup == 1
                         ? std::string("block-scaled cta_group 1")
                         : "cta_group " + str(req.ctaGroup);
  if (req.instructionShape) {
    int64_t m = req.instructionShape->first;
    if (!llvm::is_contained(ms, m)) {
      std::string rule =
          shapeRule(req.ctaGroup, m, req.instructionShape->second,
                    req.weightStationary, kind);
      return R::failure(instShapeName(req) + ": " +
                        (rule.empty() ? "M = " + str(m) + ": " + form +
                                            " MMAs have M 128"
                                      : rule));
    }
    if (req.m % m)
      return R::failure(instShapeName(req) + ": M " + str(m) +
                        " does not divide the region's " + str(req.m));
    return m;
  }
  for (int64_t m : ms)
    if (req.m % m == 0)
      return m;
  // Ascending: "128", "64 or 128", "32, 64 or 128".
  std::string list;
  for (size_t i = ms.size(); i-- > 0;)
    list += str(ms[i]) + (i == 1 ? " or " : i ? ", " : "");
  return R::failure("M = " + str(req.m) + " is not a multiple of a " + form +
                    " MMA's M (" + list + ")");
}

/// N: the user's, or the widest legal one dividing the region's.
OrReason<int64_t> chooseN(const Request &req, MmaKind kind, int64_t m) {
  using R = OrReason<int64_t>;
  if (req.instructionShape) {
    int64_t n = req.instructionShape->second;
    if (std::string rule = shapeRule(req.ctaGroup, m, n, req.weightStationary, kind);
        !rule.empty())
      return R::failure(instShapeName(req) + ": " + rule);
    if (req.n % n)
      return R::failure(instShapeName(req) + ": N " + str(n) +
                        " does not divide the region's " + str(req.n));
    return n;
  }
  for (int64_t n = std::min<int64_t>(256, req.n); n >= 8; --n)
    if (req.n % n == 0 &&
        shapeRule(req.ctaGroup, m, n, req.weightStationary, kind).empty())
      return n;
  return R::failure(shapeRule(req.ctaGroup, m, req.n, req.weightStationary,
                              kind) +
                    "; no such N divides the region's " + str(req.n));
}

/// The instruction shape and data path: M and N as above, K of the kind
/// (256 bits of a row).
OrReason<Plan> chooseShape(const Request &req, MmaKind kind, bool scaled) {
  using R = OrReason<Plan>;
  if (Status s = checkForm(req, scaled); !s)
    return R::failure(s.reason());
  Plan plan;
  plan.kind = kind;
  plan.ctaGroup = req.ctaGroup;
  plan.weightStationary = req.weightStationary;
  plan.collectorBuffer = req.collectorBuffer;
  plan.collectorOp = req.collectorOp;
  plan.instK = cuda::mmaInstructionK(kind);
  OrReason<int64_t> m = chooseM(req, kind);
  if (!m)
    return R::failure(m.reason());
  OrReason<int64_t> n = chooseN(req, kind, *m);
  if (!n)
    return R::failure(n.reason());
  plan.instM = *m;
  plan.instN = *n;
  plan.dataPath = dataPathOf(req.ctaGroup, plan.instM, req.weightStationary);
  if (req.k % plan.instK)
    return R::failure("K = " + str(req.k) + " is not a multiple of kind::" +
                      cuda::mmaKindName(kind).str() + "'s instruction K = " +
                      str(plan.instK) + " (256 bits of a row)");
  if (req.aInTmem && isFolded(plan.dataPath))
    return R::failure("A in tensor memory under data path " +
                      dataPathName(plan.dataPath) +
                      ": where the folded path reads A is not modelled; "
                      "put A in shared memory");
  int64_t issues =
      (req.m / plan.instM) * (req.n / plan.instN) * (req.k / plan.instK);
  if (issues > int64_t(kMaxIssues))
    return R::failure(str(issues) + " MMAs (more than " + str(kMaxIssues) +
                      ")");
  if (req.collectorOp != CollectorOp::Discard && issues != 1)
    return R::failure("a collector fill/use/lastuse names one MMA's "
                      "operand; this op issues " + str(issues) +
                      " MMAs (the planner does not chain collector uses)");
  return plan;
}

/// The op's operands as this CTA holds them. Not copyable: the shared
/// planners refer to the regions.
struct Operands {
  int64_t mTiles = 0, nTiles = 0, kSteps = 0;
  int64_t rowsA = 0, rowsB = 0; ///< rows of one instruction's A / B here
  std::optional<Region> a, b, c, sfa, sfb;
  std::optional<SharedPlanner> aShared, bShared;
  int64_t scalesPerIssue = 0; ///< scale factors one instruction reads a row

  Operands(const Request &req, const Plan &plan)
      : mTiles(req.m / plan.instM), nTiles(req.n / plan.instN),
        kSteps(req.k / plan.instK), rowsA(plan.instM / req.ctaGroup),
        rowsB(plan.instN / req.ctaGroup) {}
  Operands(const Operands &) = delete;

  Status slice(const Request &req, Plan &plan);
  Status sliceScales(const Request &req, const Plan &plan);
};

/// A, B and C sliced to this CTA's part; the shared operands' descriptors
/// (major-ness, swizzle, LBO, SBO) read off their first instruction tile.
Status Operands::slice(const Request &req, Plan &plan) {
  const int64_t mLocal = req.m / req.ctaGroup, nLocal = req.n / req.ctaGroup;
  OrReason<Region> ra =
      regionOf(req.aSide, mLocal, req.k, req.transposeA, "A", req.aInTmem);
  if (!ra)
    return Status::failure(ra.reason());
  OrReason<Region> rb =
      regionOf(req.bSide, nLocal, req.k, !req.transposeB, "B", false);
  if (!rb)
    return Status::failure(rb.reason());
  OrReason<Region> rc = regionOf(req.cSide, mLocal, req.n, false, "C", true);
  if (!rc)
    return Status::failure(rc.reason());
  a = *ra;
  b = *rb;
  c = *rc;
  if (req.aInTmem && req.transposeA)
    return Status::failure("A in tensor memory is read K-major ([M, K], K "
                           "along columns); transpose_a needs A in shared "
                           "memory");
  if (!req.aInTmem) {
    aShared.emplace(
        SharedPlanner{*a, "A", req.aBits, rowsA, plan.instK, {}, {}, {}});
    if (Status s = aShared->derive(); !s)
      return s;
    plan.a = aShared->operand;
  }
  bShared.emplace(SharedPlanner{*b, "B", req.bBits, rowsB, plan.instK, {}, {}, {}});
  if (Status s = bShared->derive(); !s)
    return s;
  plan.b = bShared->operand;
  return Status::success();
}

/// Block scaling: the scale tiles over [rows, K / vec] in tensor memory;
/// one instruction reads instK / vec of them a row.
Status Operands::sliceScales(const Request &req, const Plan &plan) {
  int64_t vec = cuda::scaleVectorSize(plan.kind, req.scaleType);
  scalesPerIssue = plan.instK / vec;
  if (!req.sfbSide)
    return Status::failure("block scaling needs both sfa and sfb");
  // Each CTA holds its own rows of A's scales and all N of B's.
  const int64_t mLocal = req.m / req.ctaGroup;
  OrReason<Region> sa = regionOf(*req.sfaSide, mLocal, req.k / vec, false,
                                 "scale factors A", true, true);
  if (!sa)
    return Status::failure(sa.reason());
  OrReason<Region> sb = regionOf(*req.sfbSide, req.n, req.k / vec, false,
                                 "scale factors B", true, true);
  if (!sb)
    return Status::failure(sb.reason());
  sfa = *sa;
  sfb = *sb;
  return Status::success();
}

/// The instruction descriptor (scale-factor ids 0; each issue sets its own).
Status describeInstruction(const Request &req, bool scaled, Plan &plan) {
  plan.idesc.kind = plan.kind;
  plan.idesc.a = req.a;
  plan.idesc.b = req.b;
  plan.idesc.d = scaled ? cuda::MmaAccumulator::F32 : req.d;
  plan.idesc.aMnMajor = plan.a && plan.a->mnMajor;
  plan.idesc.bMnMajor = plan.b.mnMajor;
  plan.idesc.m = static_cast<unsigned>(plan.instM);
  plan.idesc.n = static_cast<unsigned>(plan.instN);
  plan.idesc.scaleType = req.scaleType;
  if (auto problems = plan.idesc.problems(); !problems.empty())
    return Status::failure("instruction descriptor: " + problems.front());
  return Status::success();
}

/// Per-tile results, each computed (and every element checked) once: A's
/// and B's descriptor starts or A's tensor-memory address per (tile, K
/// step), C's address per output tile.
struct TileStarts {
  std::vector<int64_t> a, b;
  std::vector<uint32_t> aTmem, d;
};

OrReason<TileStarts> tileStarts(const Request &req, const Operands &ops,
                                const Plan &plan) {
  using R = OrReason<TileStarts>;
  const int64_t kSteps = ops.kSteps, instK = plan.instK;
  TileStarts t;
  t.a.resize(ops.mTiles * kSteps);
  t.aTmem.resize(ops.mTiles * kSteps);
  t.b.resize(ops.nTiles * kSteps);
  t.d.resize(ops.mTiles * ops.nTiles);
  for (int64_t mi = 0; mi < ops.mTiles; ++mi)
    for (int64_t ki = 0; ki < kSteps; ++ki) {
      if (ops.aShared) {
        OrReason<int64_t> s = ops.aShared->tile(mi * ops.rowsA, ki * instK);
        if (!s)
          return R::failure(s.reason());
        t.a[mi * kSteps + ki] = *s;
        continue;
      }
      OrReason<uint32_t> at = tmemTile(
          *ops.a, "A", req.aBits, /*packed=*/true, mi * ops.rowsA, ki * instK,
          ops.rowsA, instK, dataPathName(plan.dataPath),
          [&](int64_t r, int64_t c) {
            return TmemPlace{rowLane(plan.dataPath, r), c};
          });
      if (!at)
        return R::failure(at.reason());
      t.aTmem[mi * kSteps + ki] = *at;
    }
  for (int64_t ni = 0; ni < ops.nTiles; ++ni)
    for (int64_t ki = 0; ki < kSteps; ++ki) {
      OrReason<int64_t> s = ops.bShared->tile(ni * ops.rowsB, ki * instK);
      if (!s)
        return R::failure(s.reason());
      t.b[ni * kSteps + ki] = *s;
    }
  for (int64_t mi = 0; mi < ops.mTiles; ++mi)
    for (int64_t ni = 0; ni < ops.nTiles; ++ni) {
      OrReason<uint32_t> dt = tmemTile(
          *ops.c, "C", req.dBits, /*packed=*/false, mi * ops.rowsA,
          ni * plan.instN, ops.rowsA, plan.instN, dataPathName(plan.dataPath),
          [&](int64_t r, int64_t c) {
            return accumulatorPlace(plan.dataPath, plan.instN, r, c);
          });
      if (!dt)
        return R::failure(dt.reason());
      t.d[mi * ops.nTiles + ni] = *dt;
    }
  return t;
}

/// The scale addresses and ids of `is`: A's rows of its M tile (this
/// CTA's), B's rows of its N tile (all N).
Status scaleIssue(const Operands &ops, const Plan &plan, Issue &is,
                  cuda::InstrDescriptor &idesc) {
  const int64_t count = ops.scalesPerIssue, k0 = is.ki * count;
  OrReason<ScaleTile> sa = scaleTile(
      *ops.sfa, "scale factors A", is.mi * ops.rowsA, ops.rowsA, k0, count,
      [&](int64_t r) { return scaleRowPlace(plan.dataPath, false, plan.instN, r); });
  if (!sa)
    return Status::failure(sa.reason());
  OrReason<ScaleTile> sb = scaleTile(
      *ops.sfb, "scale factors B", is.ni * plan.instN, plan.instN, k0, count,
      [&](int64_t r) { return scaleRowPlace(plan.dataPath, true, plan.instN, r); });
  if (!sb)
    return Status::failure(sb.reason());
  is.sfaTmem = sa->tmem;
  is.sfbTmem = sb->tmem;
  idesc.aScaleId = sa->id;
  idesc.bScaleId = sb->id;
  return Status::success();
}

/// The issues, output tiles (mi, ni) with K steps innermost: the first K
/// step overwrites C (or follows the accumulate flag), later ones add;
/// block-scaled issues carry their scale-factor addresses and ids.
Status listIssues(const Request &req, const Operands &ops, const TileStarts &t,
                  Plan &plan) {
  const int64_t kSteps = ops.kSteps;
  for (int64_t mi = 0; mi < ops.mTiles; ++mi)
    for (int64_t ni = 0; ni < ops.nTiles; ++ni)
      for (int64_t ki = 0; ki < kSteps; ++ki) {
        Issue is;
        is.mi = mi;
        is.ni = ni;
        is.ki = ki;
        if (ops.aShared)
          is.aByte = t.a[mi * kSteps + ki];
        else
          is.aTmem = t.aTmem[mi * kSteps + ki];
        is.bByte = t.b[ni * kSteps + ki];
        is.dTmem = t.d[mi * ops.nTiles + ni];
        is.inputD = ki > 0                  ? InputD::Accumulate
                    : req.hasAccumulateFlag ? InputD::FromFlag
                                            : InputD::Overwrite;
        cuda::InstrDescriptor idesc = plan.idesc;
        if (ops.sfa)
          if (Status s = scaleIssue(ops, plan, is, idesc); !s)
            return s;
        is.idesc = *idesc.encode();
        plan.issues.push_back(is);
      }
  return Status::success();
}

} // namespace

OrReason<Plan> tcgen05_mma::planMma(const Request &req) {
  using R = OrReason<Plan>;
  bool scaled = req.sfaSide.has_value();
  OrReason<MmaKind> kind = selectKind(req.a, req.b, scaled, req.scaleType);
  if (!kind)
    return R::failure(kind.reason());
  if (Status s = checkElementWidths(req, *kind); !s)
    return R::failure(s.reason());
  OrReason<Plan> plan = chooseShape(req, *kind, scaled);
  if (!plan)
    return plan;
  Operands ops(req, *plan);
  Status s = ops.slice(req, *plan);
  if (s)
    s = describeInstruction(req, scaled, *plan);
  if (s && scaled)
    s = ops.sliceScales(req, *plan);
  if (!s)
    return R::failure(s.reason());
  OrReason<TileStarts> starts = tileStarts(req, ops, *plan);
  if (!starts)
    return R::failure(starts.reason());
  s = listIssues(req, ops, *starts, *plan);
  if (!s)
    return R::failure(s.reason());
  return plan;
}

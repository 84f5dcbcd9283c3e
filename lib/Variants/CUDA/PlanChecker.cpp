//===- PlanChecker.cpp - check planned instructions with the PTX model ----===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/PlanChecker.h"

#include "tile/Target/CUDA/Model/SharedMemoryModel.h"
#include "tile/Target/CUDA/Model/Tcgen05Model.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>

using namespace tile;
using namespace tile::plan_check;
namespace model = tile::cuda::model;
using copy_async::RegionSide;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string coordString(llvm::ArrayRef<int64_t> c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i)
    s += (i ? ", " : "") + str(c[i]);
  return s + ")";
}

/// The word the encoder produces for `desc` with its start at `start`
/// (the emitted start: buffer base plus the planned byte offset).
uint64_t descriptorWord(cuda::SmemDescriptor desc, int64_t start) {
  desc.startAddress = uint32_t(start);
  std::optional<uint64_t> word = desc.encode();
  // An unencodable descriptor reaches the model as an invalid word.
  return word ? *word : 0;
}

/// The model's name of a planned kind.
model::Kind modelKind(cuda::MmaKind k) {
  switch (k) {
  case cuda::MmaKind::F16: return model::Kind::F16;
  case cuda::MmaKind::TF32: return model::Kind::TF32;
  case cuda::MmaKind::F8F6F4: return model::Kind::F8F6F4;
  case cuda::MmaKind::I8: return model::Kind::I8;
  case cuda::MmaKind::MXF8F6F4: return model::Kind::MXF8F6F4;
  case cuda::MmaKind::MXF4: return model::Kind::MXF4;
  case cuda::MmaKind::MXF4NVF4: return model::Kind::MXF4NVF4;
  }
  return model::Kind::F16;
}

/// Calls `f(coords)` for every coordinate of `sizes`, row-major; stops when
/// `f` returns false.
template <typename F>
void forEachCoord(llvm::ArrayRef<int64_t> sizes, F f) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  llvm::SmallVector<int64_t, 5> c(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (!f(llvm::ArrayRef<int64_t>(c)))
      return;
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++c[d] < sizes[d])
        break;
      c[d] = 0;
    }
  }
}

llvm::SmallVector<int64_t, 5> plus(llvm::ArrayRef<int64_t> offsets,
                                   llvm::ArrayRef<int64_t> c) {
  llvm::SmallVector<int64_t, 5> out;
  for (size_t d = 0; d < c.size(); ++d)
    out.push_back(offsets[d] + c[d]);
  return out;
}

} // namespace

//===----------------------------------------------------------------------===//
// tcgen05.cp
//===----------------------------------------------------------------------===//

std::string Naming::operator()(size_t i, size_t total) const {
  return ofTotal ? noun + " " + str(int64_t(i) + 1) + " of " + str(int64_t(total))
                 : noun + " " + str(int64_t(i));
}

CheckReport plan_check::checkTcgen05Cp(const tcgen05_cp::Request &req,
                                       const tcgen05_cp::Plan &plan,
                                       Placement pl) {
  std::vector<model::CpInstruction> insts;
  for (const tcgen05_cp::Instruction &inst : plan.instructions) {
    model::CpInstruction mi;
    mi.shape = plan.form.shape;
    mi.multicast = plan.form.multicast;
    mi.sourceFormat = plan.sourceFormat;
    mi.ctaGroup = plan.ctaGroup;
    mi.tmemAddress = pl.tmemBase + inst.tmemOffset();
    mi.descriptor =
        descriptorWord(plan.descriptor, pl.sharedBase + inst.sharedByte);
    insts.push_back(mi);
  }
  return checkTcgen05CpWords(req, insts, pl, Naming{"instruction"});
}

CheckReport plan_check::checkTcgen05CpWords(
    const tcgen05_cp::Request &req, llvm::ArrayRef<model::CpInstruction> insts,
    Placement pl, const Naming &naming) {
  CheckReport report;
  const model::TmemCell tbase = model::tmemCell(pl.tmemBase);
  struct Written {
    model::CpByte byte;
    size_t instruction;
  };
  std::map<std::pair<int64_t, int64_t>, Written> written;
  auto name = [&](size_t i) { return naming(i, insts.size()); };
  for (size_t i = 0; i < insts.size(); ++i) {
    const model::CpInstruction &mi = insts[i];
    OrReason<std::vector<model::CpByte>> bytes = model::tcgen05Copy(mi);
    ++report.instructions;
    if (!bytes) {
      tcgen05_cp::Form form{mi.shape, mi.multicast};
      report.failure = name(i) + " (" + form.name() +
                       "): the model refuses it: " + bytes.reason();
      return report;
    }
    for (const model::CpByte &b : *bytes)
      if (!written.emplace(std::pair{b.lane, b.columnByte}, Written{b, i})
               .second) {
        report.failure = name(i) + " writes tensor-memory "
                         "lane " + str(b.lane) + ", column byte " +
                         str(b.columnByte) + " a second time";
        return report;
      }
  }

  const int64_t bytes = req.elementBits / 8;
  forEachCoord(req.sizes, [&](llvm::ArrayRef<int64_t> c) {
    auto sc = plus(req.shared.offsets, c), tc = plus(req.tmem.offsets, c);
    int64_t shared =
        pl.sharedBase +
        at(req.shared.layout.apply(sc, req.shared.shape), Axis::m) * bytes;
    for (int64_t rep = 0; rep < req.tmem.layout.replicaCount(); ++rep) {
      AxisAddress t = req.tmem.layout.apply(tc, req.tmem.shape, rep);
      int64_t lane = tbase.lane + at(t, Axis::TLane);
      int64_t colByte = tbase.column * 4 + at(t, Axis::TCol) * bytes;
      for (int64_t k = 0; k < bytes; ++k) {
        std::string where = "element " + coordString(c) +
                            (bytes > 1 ? " byte " + str(k) : "") +
                            (rep ? " (replica " + str(rep) + ")" : "") +
                            ": tensor-memory lane " + str(lane) +
                            ", column byte " + str(colByte + k);
        auto it = written.find({lane, colByte + k});
        if (it == written.end()) {
          report.failure = where + " is never written";
          return false;
        }
        const model::CpByte &got = it->second.byte;
        int64_t want = shared + k;
        bool ok = got.sourceBits == 8
                      ? got.sharedByte == want
                      : (got.sharedByte & ~int64_t(15)) == (want & ~int64_t(15)) &&
                            (colByte + k) % 16 == want % 16;
        if (!ok) {
          report.failure = where + " should receive shared byte " +
                           str(want) + " (the shared layout); " +
                           name(it->second.instruction) + " delivers shared "
                           "byte " + str(got.sharedByte) +
                           (got.sourceBits == 8 ? "" : " (packed value)");
          return false;
        }
        written.erase(it);
      }
    }
    ++report.elements;
    return true;
  });
  if (!report.failure && !written.empty()) {
    const auto &[cell, w] = *written.begin();
    report.failure = name(w.instruction) + " writes tensor-"
                     "memory lane " + str(cell.first) + ", column byte " +
                     str(cell.second) + ", which holds no element of the "
                     "region";
  }
  return report;
}

//===----------------------------------------------------------------------===//
// tcgen05.mma
//===----------------------------------------------------------------------===//

namespace {

/// An A, B, C or scale element of a region side at (row, col) of the
/// operand as the MMA reads it ([col, row] in the tile when `transpose`).
AxisAddress elementOf(const RegionSide &side, bool transpose, int64_t row,
                      int64_t col) {
  llvm::SmallVector<int64_t, 2> c =
      transpose ? llvm::SmallVector<int64_t, 2>{side.offsets[0] + col,
                                                side.offsets[1] + row}
                : llvm::SmallVector<int64_t, 2>{side.offsets[0] + row,
                                                side.offsets[1] + col};
  return side.layout.apply(c, side.shape);
}

std::string placeString(const model::ElementAddress &a) {
  return "shared byte " + str(a.byte) + (a.bit ? " bit " + str(a.bit) : "");
}

/// The check of one tcgen05.mma plan, issue by issue: coverage and order of
/// the issues, then every element the model says each one reads or writes
/// against the layouts.
struct MmaChecker {
  const tcgen05_mma::Request &req;
  /// The issues with their claimed (or derived) tiles.
  std::vector<MmaIssueWords> issues;
  int64_t instM, instN, instK;
  Placement pl;
  const Naming &naming;
  CheckReport &report;
  model::TmemCell tbase;
  int64_t mTiles, nTiles, kSteps;
  /// Issues per (M tile, N tile, K step).
  std::vector<int> seen;
  /// The output tile each accumulator cell belongs to.
  llvm::DenseMap<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>
      dOwner;
  /// C's (m, n) at each accumulator cell (built when a tile is derived).
  llvm::DenseMap<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>
      cAt;

  MmaChecker(const tcgen05_mma::Request &req,
             llvm::ArrayRef<MmaIssueWords> issues, std::array<int64_t, 3> inst,
             Placement pl, const Naming &naming, CheckReport &report)
      : req(req), issues(issues.begin(), issues.end()), instM(inst[0]),
        instN(inst[1]), instK(inst[2]), pl(pl), naming(naming),
        report(report), tbase(model::tmemCell(pl.tmemBase)),
        mTiles(req.m / instM), nTiles(req.n / instN), kSteps(req.k / instK),
        seen(mTiles * nTiles * kSteps, 0) {}

  /// The shared place of an element at `a` of a `bits`-bit tile.
  model::ElementAddress sharedPlace(const AxisAddress &a, unsigned bits,
                                    bool isB = false) const {
    int64_t bit = at(a, Axis::m) * int64_t(bits);
    int64_t base = isB && pl.sharedBaseB >= 0 ? pl.sharedBaseB : pl.sharedBase;
    return model::ElementAddress{base + bit / 8, unsigned(bit % 8)};
  }

  Status checkOrder(size_t i, const std::string &issue);
  OrReason<model::MmaModel> modelOf(size_t i, const std::string &issue);
  Status deriveTile(size_t i, const model::MmaModel &mm,
                    const std::string &issue);
  Status checkA(const std::string &issue, const model::MmaModel &mm, int64_t m0,
                int64_t k0);
  Status checkTmemA(const std::string &el, const model::AOperandPlace &got,
                    int64_t m, int64_t k) const;
  Status checkB(const std::string &issue, const model::MmaModel &mm, int64_t n0,
                int64_t k0);
  Status checkD(const std::string &issue, const MmaIssueWords &is,
                const model::MmaModel &mm, int64_t m0, int64_t dn0);
  Status checkScales(const std::string &issue, const MmaIssueWords &is,
                     const model::MmaModel &mm, int64_t m0, int64_t dn0);
  Status checkIssue(size_t i);
  Status checkCoverage() const;
};

/// Each (M tile, N tile, K step) once; the first K step overwrites C (or
/// follows the accumulate flag), later ones accumulate, in K order.
Status MmaChecker::checkOrder(size_t i, const std::string &issue) {
  using tcgen05_mma::InputD;
  const MmaIssueWords &is = issues[i];
  if (is.mi < 0 || is.mi >= mTiles || is.ni < 0 || is.ni >= nTiles ||
      is.ki < 0 || is.ki >= kSteps ||
      seen[(is.mi * nTiles + is.ni) * kSteps + is.ki]++)
    return Status::failure(issue + " is outside the op or repeats a tile");
  InputD wantD = is.ki != 0              ? InputD::Accumulate
                 : req.hasAccumulateFlag ? InputD::FromFlag
                                         : InputD::Overwrite;
  if (is.inputD != wantD)
    return Status::failure(issue +
                           ": the first K step must overwrite C (or "
                           "follow the accumulate flag) and every later one "
                           "accumulate");
  if (i && is.ki && issues[i - 1].ki != is.ki - 1)
    return Status::failure(issue + " does not follow K step " + str(is.ki - 1) +
                           " of its tile");
  return Status::success();
}

/// The model of issue `i`'s words, whose shape must be the instruction
/// shape the op is tiled with.
OrReason<model::MmaModel> MmaChecker::modelOf(size_t i,
                                              const std::string &issue) {
  using R = OrReason<model::MmaModel>;
  OrReason<model::MmaModel> mm = model::MmaModel::create(issues[i].inst);
  ++report.instructions;
  if (!mm)
    return R::failure(issue + ": the model refuses it: " + mm.reason());
  if (mm->m() != instM || mm->n() != instN || mm->k() != instK)
    return R::failure(issue + ": the instruction computes " + str(mm->m()) +
                      "x" + str(mm->n()) + "x" + str(mm->k()) +
                      ", the op is tiled with " + str(instM) + "x" +
                      str(instN) + "x" + str(instK));
  return mm;
}

/// An issue without a claimed tile computes the one whose first element
/// its D(0, 0) is in C's layout; its K step counts the issues before it on
/// that tile.
Status MmaChecker::deriveTile(size_t i, const model::MmaModel &mm,
                              const std::string &issue) {
  MmaIssueWords &is = issues[i];
  if (is.mi >= 0)
    return Status::success();
  if (cAt.empty())
    for (int64_t m = 0; m < mTiles * mm.rowsA(); ++m)
      for (int64_t n = 0; n < req.n; ++n) {
        AxisAddress c = elementOf(req.cSide, false, m, n);
        int64_t bit = tbase.column * 32 + at(c, Axis::TCol) * req.dBits;
        cAt.try_emplace(std::pair{tbase.lane + at(c, Axis::TLane), bit / 32},
                        std::pair{m, n});
      }
  model::TmemCell d = mm.d(0, 0);
  auto it = cAt.find({d.lane, d.column});
  std::string where = issue + " accumulates its D(0, 0) in tensor-memory "
                              "lane " + str(d.lane) + ", column " +
                      str(d.column) + ", ";
  if (it == cAt.end())
    return Status::failure(where + "which holds no element of C's region");
  auto [m, n] = it->second;
  if (m % mm.rowsA() || n % mm.n())
    return Status::failure(where + "where C's layout has C" +
                           coordString({m, n}) + ", not the first element of "
                           "a " + str(mm.rowsA()) + "x" + str(mm.n()) +
                           " output tile");
  is.mi = m / mm.rowsA();
  is.ni = n / mm.n();
  is.ki = 0;
  for (size_t j = 0; j < i; ++j)
    is.ki += issues[j].mi == is.mi && issues[j].ni == is.ni;
  return Status::success();
}

Status MmaChecker::checkTmemA(const std::string &el,
                              const model::AOperandPlace &got, int64_t m,
                              int64_t k) const {
  llvm::SmallVector<int64_t, 2> c = req.transposeA
                                        ? llvm::SmallVector<int64_t, 2>{k, m}
                                        : llvm::SmallVector<int64_t, 2>{m, k};
  for (size_t d = 0; d < 2; ++d)
    c[d] += req.aSide.offsets[d];
  int64_t wb = -1;
  llvm::SmallVector<int64_t, 4> lanes;
  for (int64_t rep = 0; rep < req.aSide.layout.replicaCount(); ++rep) {
    AxisAddress a = req.aSide.layout.apply(c, req.aSide.shape, rep);
    lanes.push_back(tbase.lane + at(a, Axis::TLane));
    wb = tbase.column * 32 + at(a, Axis::TCol) * req.aBits;
  }
  auto holds = [&](int64_t lane) { return llvm::is_contained(lanes, lane); };
  if (!holds(got.lane) || got.bit != wb)
    return Status::failure(el + "the layout has it at tensor-memory lane " +
                           str(lanes.front()) + " bit " + str(wb) +
                           ", the instruction reads lane " + str(got.lane) +
                           " bit " + str(got.bit));
  if (got.replicaLane >= 0 && !holds(got.replicaLane))
    return Status::failure(el + "the instruction also reads it from lane " +
                           str(got.replicaLane) + " (the data path's second "
                           "half); the layout does not put it there");
  return Status::success();
}

/// A(m, k): the element the layout holds where the model reads (shared
/// memory, or a tensor-memory lane and bit).
Status MmaChecker::checkA(const std::string &issue, const model::MmaModel &mm,
                          int64_t m0, int64_t k0) {
  for (int64_t r = 0; r < mm.rowsA(); ++r)
    for (int64_t k = 0; k < mm.k(); ++k) {
      AxisAddress want = elementOf(req.aSide, req.transposeA, m0 + r, k0 + k);
      model::AOperandPlace got = mm.a(r, k);
      std::string el =
          issue + " multiplies A" + coordString({m0 + r, k0 + k}) + ": ";
      if (!got.inTensorMemory) {
        model::ElementAddress w = sharedPlace(want, req.aBits);
        if (!(got.shared == w))
          return Status::failure(el + "the layout has it at " + placeString(w) +
                                 ", the instruction reads " +
                                 placeString(got.shared));
      } else if (Status t = checkTmemA(el, got, m0 + r, k0 + k); !t) {
        return t;
      }
      ++report.elements;
    }
  return Status::success();
}

/// B(n, k): B is [K, N], or [N, K] with transposeB.
Status MmaChecker::checkB(const std::string &issue, const model::MmaModel &mm,
                          int64_t n0, int64_t k0) {
  for (int64_t n = 0; n < mm.rowsB(); ++n)
    for (int64_t k = 0; k < mm.k(); ++k) {
      AxisAddress want = elementOf(req.bSide, !req.transposeB, n0 + n, k0 + k);
      model::ElementAddress w = sharedPlace(want, req.bBits, /*isB=*/true);
      model::ElementAddress got = mm.b(n, k);
      if (!(got == w))
        return Status::failure(
            issue + " multiplies B" + coordString({n0 + n, k0 + k}) +
            " (as [N, K]): the layout has it at " + placeString(w) +
            ", the instruction reads " + placeString(got));
      ++report.elements;
    }
  return Status::success();
}

/// D(m, n), one element per 32-bit column: where C's layout has it, and
/// written by one output tile only.
Status MmaChecker::checkD(const std::string &issue,
                          const MmaIssueWords &is,
                          const model::MmaModel &mm, int64_t m0, int64_t dn0) {
  for (int64_t r = 0; r < mm.rowsA(); ++r)
    for (int64_t n = 0; n < mm.n(); ++n) {
      AxisAddress want = elementOf(req.cSide, false, m0 + r, dn0 + n);
      int64_t wl = tbase.lane + at(want, Axis::TLane);
      int64_t wbit = tbase.column * 32 + at(want, Axis::TCol) * req.dBits;
      model::TmemCell got = mm.d(r, n);
      if (got.lane != wl || got.column * 32 != wbit)
        return Status::failure(
            issue + " accumulates D" + coordString({m0 + r, dn0 + n}) +
            " in tensor-memory lane " + str(got.lane) + ", column " +
            str(got.column) + "; C's layout has it at lane " + str(wl) +
            ", bit " + str(wbit) + " (column " + str(wbit / 32) + ")");
      auto [it, fresh] = dOwner.try_emplace(std::pair{got.lane, got.column},
                                            std::pair{is.mi, is.ni});
      if (!fresh && it->second != std::pair{is.mi, is.ni})
        return Status::failure(issue + " accumulates into lane " +
                               str(got.lane) + ", column " + str(got.column) +
                               ", which output tile (" + str(it->second.first) +
                               ", " + str(it->second.second) + ") also uses");
      ++report.elements;
    }
  return Status::success();
}

/// The tensor-memory bytes (lane, 4 * column + byte) holding an element of
/// a scale tile: its shard place and every replica.
std::set<std::pair<int64_t, int64_t>>
scaleBytesOf(const RegionSide &s, int64_t row, int64_t col,
             model::TmemCell base) {
  std::set<std::pair<int64_t, int64_t>> out;
  llvm::SmallVector<int64_t, 2> c{s.offsets[0] + row, s.offsets[1] + col};
  for (int64_t r = 0; r < s.layout.replicaCount(); ++r) {
    AxisAddress a = s.layout.apply(c, s.shape, r);
    out.insert({base.lane + at(a, Axis::TLane),
                base.column * 4 + at(a, Axis::TCol)});
  }
  return out;
}

/// Block scales: every lane the model says reads a scale holds it in the
/// scale layout (A: this CTA's rows of the M tile; B: all N of the tile).
Status MmaChecker::checkScales(const std::string &issue,
                               const MmaIssueWords &is,
                               const model::MmaModel &mm, int64_t m0,
                               int64_t dn0) {
  if (!req.sfaSide || !req.sfbSide)
    return Status::failure(issue + " is block-scaled; the request has no "
                                   "scale tiles");
  int64_t blocks = mm.k() / mm.scaleVector();
  int64_t kb0 = is.ki * blocks;
  for (int side = 0; side < 2; ++side) {
    const RegionSide &s = side ? *req.sfbSide : *req.sfaSide;
    int64_t rows = side ? mm.n() : mm.rowsA();
    int64_t row0 = side ? dn0 : m0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < blocks; ++j) {
        auto held = scaleBytesOf(s, row0 + r, kb0 + j, tbase);
        model::ScalePlace got = side ? mm.scaleB(r, j) : mm.scaleA(r, j);
        for (int64_t lane : got.lanes) {
          if (held.count({lane, got.byte}))
            continue;
          auto [wl, wb] = *held.begin();
          return Status::failure(
              issue + " reads the scale of " + (side ? "B" : "A") + " row " +
              str(row0 + r) + ", K block " + str(kb0 + j) +
              " from tensor-memory lane " + str(lane) + ", byte " +
              str(got.byte) + "; the scale layout has it at lane " + str(wl) +
              ", byte " + str(wb) +
              (held.size() > 1 ? " (and " + str(held.size() - 1) +
                                     " replica(s) elsewhere)"
                               : ""));
        }
        ++report.elements;
      }
  }
  return Status::success();
}

Status MmaChecker::checkIssue(size_t i) {
  std::string issue = naming(i, issues.size());
  OrReason<model::MmaModel> mm = modelOf(i, issue);
  if (!mm)
    return Status::failure(mm.reason());
  if (Status s = deriveTile(i, *mm, issue); !s)
    return s;
  const MmaIssueWords &is = issues[i];
  issue += " (tile " + str(is.mi) + ", " + str(is.ni) + ", K step " +
           str(is.ki) + ")";
  if (Status s = checkOrder(i, issue); !s)
    return s;
  const int64_t m0 = is.mi * mm->rowsA(), n0 = is.ni * mm->rowsB(),
                k0 = is.ki * mm->k(), dn0 = is.ni * mm->n();
  Status s = checkA(issue, *mm, m0, k0);
  if (s)
    s = checkB(issue, *mm, n0, k0);
  if (s)
    s = checkD(issue, is, *mm, m0, dn0);
  if (s && mm->scaleVector())
    s = checkScales(issue, is, *mm, m0, dn0);
  return s;
}

Status MmaChecker::checkCoverage() const {
  for (size_t t = 0; t < seen.size(); ++t)
    if (!seen[t]) {
      int64_t ki = t % kSteps, ni = (t / kSteps) % nTiles,
              mi = t / (kSteps * nTiles);
      return Status::failure("no issue computes tile (" + str(mi) + ", " +
                             str(ni) + ") K step " + str(ki));
    }
  return Status::success();
}

} // namespace

CheckReport plan_check::checkTcgen05Mma(const tcgen05_mma::Request &req,
                                        const tcgen05_mma::Plan &plan,
                                        Placement pl) {
  std::vector<MmaIssueWords> words;
  for (const tcgen05_mma::Issue &is : plan.issues) {
    MmaIssueWords w{{}, is.mi, is.ni, is.ki, is.inputD};
    model::MmaInstruction &mi = w.inst;
    mi.kind = modelKind(plan.kind);
    mi.idesc = is.idesc;
    mi.ctaGroup = plan.ctaGroup;
    mi.weightStationary = plan.weightStationary;
    if (plan.a)
      mi.aDescriptor =
          descriptorWord(plan.a->descriptor, pl.sharedBase + is.aByte);
    else
      mi.aTmem = pl.tmemBase + is.aTmem;
    mi.bDescriptor =
        descriptorWord(plan.b.descriptor, pl.sharedBase + is.bByte);
    // The .block16 / .block32 qualifier the emitter chooses.
    mi.scaleBlock = cuda::scaleVectorSize(plan.kind, plan.idesc.scaleType);
    mi.dTmem = pl.tmemBase + is.dTmem;
    mi.sfaTmem = pl.tmemBase + is.sfaTmem;
    mi.sfbTmem = pl.tmemBase + is.sfbTmem;
    words.push_back(w);
  }
  return checkTcgen05MmaWords(req, std::array{plan.instM, plan.instN, plan.instK},
                              words, pl);
}

CheckReport plan_check::checkTcgen05MmaWords(
    const tcgen05_mma::Request &req,
    std::optional<std::array<int64_t, 3>> instShape,
    llvm::ArrayRef<MmaIssueWords> issues, Placement pl, const Naming &naming) {
  CheckReport report;
  std::string shapeOf; // names the instruction the shape is read from
  if (!instShape) {
    if (issues.empty()) {
      report.failure = "no tcgen05.mma computes the op";
      return report;
    }
    OrReason<model::MmaModel> first = model::MmaModel::create(issues[0].inst);
    if (!first) {
      report.failure = naming(0, issues.size()) +
                       ": the model refuses it: " + first.reason();
      return report;
    }
    instShape = std::array{first->m(), first->n(), first->k()};
    shapeOf = naming(0, issues.size()) + ": ";
  }
  auto [m, n, k] = *instShape;
  if (m <= 0 || n <= 0 || k <= 0 || req.m % m || req.n % n || req.k % k) {
    report.failure = shapeOf + "the instruction shape " + str(m) + "x" +
                     str(n) + "x" +
                     str(k) + " does not tile the op's [" + str(req.m) + ", " +
                     str(req.n) + ", " + str(req.k) + "]";
    return report;
  }
  MmaChecker checker(req, issues, *instShape, pl, naming, report);
  Status s = Status::success();
  for (size_t i = 0; s && i < issues.size(); ++i)
    s = checker.checkIssue(i);
  if (s)
    s = checker.checkCoverage();
  if (!s)
    report.failure = s.reason();
  return report;
}

//===----------------------------------------------------------------------===//
// tma
//===----------------------------------------------------------------------===//

namespace {

/// The map as the runtime completes it for global side `g` (lib/Runtime:
/// dims from the memref's sizes, strides times their byte scale).
cuda::TensorMapDesc completedMap(const tma::Plan &plan,
                                 const tma::GlobalSide &g) {
  cuda::TensorMapDesc map = plan.map;
  for (unsigned i = 0; i < map.rank; ++i) {
    const tma::MapValue &d = plan.globalDims[i];
    map.globalDims[i] = uint64_t(d.isStatic() ? d.value : g.shape[d.sourceDim]);
    if (i) {
      const tma::MapValue &s = plan.globalStrides[i - 1];
      map.globalStrides[i - 1] =
          uint64_t(s.isStatic() ? s.value : g.strides[s.sourceDim] * s.scale);
    }
  }
  return map;
}

/// The static global side to check against: the request's, else `runtime`;
/// null (with the report's reason) when neither is static.
const tma::GlobalSide *staticGlobal(const tma::Request &req,
                                    const tma::GlobalSide *runtime,
                                    CheckReport &report) {
  auto isStatic = [](const tma::GlobalSide &s) {
    for (auto *v : {&s.shape, &s.strides, &s.offsets})
      for (int64_t x : *v)
        if (x == tma::kDynamic)
          return false;
    return true;
  };
  if (isStatic(req.global))
    return &req.global;
  if (!runtime)
    report.skipped = "the plan has runtime sizes, strides or offsets and "
                     "no runtime instance was given";
  else if (!isStatic(*runtime))
    report.failure = "the runtime instance has dynamic values";
  else
    return runtime;
  return nullptr;
}

} // namespace

CheckReport plan_check::checkTma(const tma::Request &req, const tma::Plan &plan,
                                 const tma::GlobalSide *runtime,
                                 Placement pl) {
  CheckReport report;
  const tma::GlobalSide *g = staticGlobal(req, runtime, report);
  if (!g)
    return report;
  cuda::TensorMapDesc map = completedMap(plan, *g);
  std::vector<TmaBox> boxes;
  for (const tma::Issue &is : plan.issues) {
    TmaBox box;
    for (const tma::Coordinate &c : is.coords)
      box.coords.push_back(c.constant +
                           (c.regionDim >= 0 ? g->offsets[c.regionDim] : 0));
    box.sharedAddress = pl.sharedBase + is.sharedByte;
    boxes.push_back(box);
  }
  TmaRegion region{req.sizes, req.elementBits, req.shared,
                   [g](llvm::ArrayRef<int64_t> c) {
                     int64_t e = 0;
                     for (size_t d = 0; d < c.size(); ++d)
                       e += (g->offsets[d] + c[d]) * g->strides[d];
                     return e;
                   },
                   [g](llvm::ArrayRef<int64_t> c) {
                     for (size_t d = 0; d < c.size(); ++d)
                       if (g->offsets[d] + c[d] < 0 ||
                           g->offsets[d] + c[d] >= g->shape[d])
                         return false;
                     return true;
                   }};
  return checkTmaBoxes(region, map, boxes, pl);
}

namespace {

/// Every byte the boxes move: global byte -> shared byte, the box that
/// moves each shared byte, and the shared bytes of box elements past the
/// tensor's edge (a load fills them, a store skips them).
struct TmaMoves {
  llvm::DenseMap<int64_t, int64_t> moved;
  llvm::DenseSet<int64_t> filled;
  llvm::DenseSet<int64_t> sharedTouched;
  llvm::DenseMap<int64_t, size_t> touchedBy;
};

Status modelBoxes(const cuda::TensorMapDesc &map, llvm::ArrayRef<TmaBox> boxes,
                  const Naming &naming, TmaMoves &out, CheckReport &report) {
  const int64_t unit = int64_t(cuda::elementBytes(map.dataType));
  for (size_t i = 0; i < boxes.size(); ++i) {
    OrReason<std::vector<model::BoxElement>> box =
        model::tensorMapBox(map, boxes[i].coords, boxes[i].sharedAddress);
    ++report.instructions;
    if (!box)
      return Status::failure(naming(i, boxes.size()) + " at " +
                             coordString(boxes[i].coords) +
                             ": the model refuses it: " + box.reason());
    for (const model::BoxElement &e : *box)
      for (int64_t b = 0; b < unit; ++b) {
        int64_t s = e.sharedByte + b;
        if (!out.sharedTouched.insert(s).second)
          return Status::failure(
              (naming.ofTotal ? naming(out.touchedBy[s], boxes.size())
                              : naming.noun + "s " + str(out.touchedBy[s])) +
              " and " + (naming.ofTotal ? naming(i, boxes.size()) : str(i)) +
              " both move shared byte " + str(s));
        out.touchedBy[s] = i;
        if (e.inBounds)
          out.moved[e.globalByte + b] = s;
        else
          out.filled.insert(s);
      }
  }
  return Status::success();
}

} // namespace

CheckReport plan_check::checkTmaBoxes(const TmaRegion &req,
                                      const cuda::TensorMapDesc &map,
                                      llvm::ArrayRef<TmaBox> boxes,
                                      Placement pl, const Naming &naming) {
  CheckReport report;
  TmaMoves mv;
  if (Status s = modelBoxes(map, boxes, naming, mv, report); !s) {
    report.failure = s.reason();
    return report;
  }
  auto name = [&](size_t i) { return naming(i, boxes.size()); };
  const int64_t bytes = req.elementBits / 8;
  forEachCoord(req.sizes, [&](llvm::ArrayRef<int64_t> c) {
    int64_t gElem = req.globalElement(c);
    bool inside = !req.inBounds || req.inBounds(c);
    auto sc = plus(req.shared.offsets, c);
    int64_t s = pl.sharedBase +
                at(req.shared.layout.apply(sc, req.shared.shape), Axis::m) * bytes;
    // Past the tensor's edge: a load fills the element's shared bytes, a
    // store skips them; either way a box must cover them out of bounds.
    for (int64_t b = 0; !inside && b < bytes; ++b) {
      if (!mv.filled.contains(s + b)) {
        report.failure = "element " + coordString(c) + " lies outside the "
                         "tensor but shared byte " + str(s + b) +
                         " is in no box past its edge";
        return false;
      }
      mv.sharedTouched.erase(s + b);
    }
    for (int64_t b = 0; inside && b < bytes; ++b) {
      auto it = mv.moved.find(gElem * bytes + b);
      std::string el = "element " + coordString(c) +
                       (bytes > 1 ? " byte " + str(b) : "");
      if (it == mv.moved.end()) {
        report.failure = el + " (global byte " + str(gElem * bytes + b) +
                         ") is moved by no " + naming.noun;
        return false;
      }
      if (it->second != s + b) {
        report.failure = el + ": the shared layout puts it at shared byte " +
                         str(s + b) + ", " + name(mv.touchedBy[it->second]) +
                         " moves it to shared byte " + str(it->second);
        return false;
      }
      mv.sharedTouched.erase(s + b);
    }
    ++report.elements;
    return true;
  });
  if (!report.failure && !mv.sharedTouched.empty()) {
    int64_t s = *mv.sharedTouched.begin();
    report.failure = name(mv.touchedBy[s]) + " moves shared byte " + str(s) +
                     ", which holds no element of the region";
  }
  return report;
}

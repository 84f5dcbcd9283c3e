//===- WgmmaPlanner.cpp - plan Hopper warpgroup MMAs on tiles ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The shared operands go through the same descriptor reading as tcgen05
// (MmaSharedOperand.h, wgmma flavour: no 32-byte-atom swizzle, MN-major
// only for 16-bit types). The accumulator is a warpgroup's register tile:
// every element of every instruction's 64 x N fragment is looked up in C's
// local layout, which must put it in the fragment's thread, at a register
// that is the same for all 128 threads.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/GemmAsync/WgmmaPlanner.h"

#include <functional>
#include <string>

using namespace tile;
using namespace tile::wgmma;
using namespace tile::mma_operand;
using cuda::MmaAccumulator;
using cuda::MmaElement;

namespace {

bool isFp8(MmaElement e) {
  return e == MmaElement::E4M3 || e == MmaElement::E5M2;
}

const char *kFragmentRule =
    "thread t = 32w + 4q + r of the warpgroup holds row 16w + 8h + q, "
    "column 8j + 2r + e in register 4j + 2h + e";

} // namespace

int64_t wgmma::instructionK(MmaElement element) {
  return 256 / cuda::mmaElementBits(element);
}

std::string wgmma::typeRule(MmaElement a, MmaElement b, MmaAccumulator d) {
  std::string types = cuda::mmaElementName(a).str() + " x " +
                      cuda::mmaElementName(b).str() + " -> " +
                      cuda::mmaAccumulatorName(d).str();
  const char *forms = "; wgmma takes f16 (into f16 or f32), bf16 (into f32), "
                      "tf32 (into f32) and e4m3/e5m2 in any mix (into f16 or "
                      "f32)";
  bool sameWide = a == b && (a == MmaElement::F16 || a == MmaElement::BF16 ||
                             a == MmaElement::TF32);
  if (!sameWide && !(isFp8(a) && isFp8(b)))
    return types + forms;
  if (d == MmaAccumulator::S32)
    return types + forms;
  if (d == MmaAccumulator::F16 &&
      (a == MmaElement::BF16 || a == MmaElement::TF32))
    return types + forms;
  return "";
}

std::string wgmma::shapeRule(int64_t n) {
  if (n >= 8 && n <= 256 && n % 8 == 0)
    return "";
  return "m64n" + str(n) + ": wgmma's N is a multiple of 8 from 8 to 256";
}

std::pair<int64_t, int64_t> wgmma::fragmentElement(int64_t thread,
                                                   int64_t i) {
  int64_t w = thread / 32, q = (thread % 32) / 4, r = thread % 4;
  int64_t j = i / 4, h = (i / 2) % 2, e = i % 2;
  return {16 * w + 8 * h + q, 8 * j + 2 * r + e};
}

int64_t wgmma::aFragmentElements(unsigned bits) { return 4 * (32 / bits); }

std::pair<int64_t, int64_t> wgmma::aFragmentElement(int64_t thread, int64_t i,
                                                    unsigned bits) {
  const int64_t per = 32 / bits;
  int64_t w = thread / 32, q = (thread % 32) / 4, r = thread % 4;
  int64_t e = i % per, h = (i / per) % 2, j = i / (2 * per);
  return {16 * w + 8 * h + q, (4 * j + r) * per + e};
}

std::string wgmma::registerARule(MmaElement a, unsigned bits) {
  if (bits == cuda::mmaElementBits(a) &&
      (a == MmaElement::F16 || a == MmaElement::BF16 ||
       a == MmaElement::TF32 || isFp8(a)))
    return "";
  return "A is a " + str(bits) + "-bit " + cuda::mmaElementName(a).str() +
         " register tile; the register-A form of wgmma takes f16, bf16 "
         "(16-bit), tf32 (32-bit) and e4m3/e5m2 (8-bit) fragments";
}

namespace {

/// M, N and K of one instruction and the counts over the op.
Status chooseShape(const Request &req, Plan &plan) {
  plan.instK = instructionK(req.a);
  if (req.m % 64 || req.m < 64)
    return Status::failure("M = " + str(req.m) +
                           " is not a multiple of 64: a warpgroup's wgmma "
                           "is M 64 (larger M as several instructions)");
  int64_t n = 0;
  for (int64_t cand = std::min<int64_t>(256, req.n); cand >= 8; --cand)
    if (req.n % cand == 0 && shapeRule(cand).empty()) {
      n = cand;
      break;
    }
  if (!n)
    return Status::failure(shapeRule(req.n) + "; no such N divides the "
                                              "region's " + str(req.n));
  if (req.k % plan.instK)
    return Status::failure("K = " + str(req.k) + " is not a multiple of " +
                           cuda::mmaElementName(req.a).str() +
                           " wgmma's K = " + str(plan.instK) +
                           " (256 bits of a row)");
  plan.instN = n;
  plan.mTiles = req.m / 64;
  plan.nTiles = req.n / n;
  plan.kSteps = req.k / plan.instK;
  int64_t issues = plan.mTiles * plan.nTiles * plan.kSteps;
  if (issues > int64_t(kMaxIssues))
    return Status::failure(str(issues) + " wgmma instructions (more than " +
                           str(kMaxIssues) + ")");
  return Status::success();
}

/// One register tile's fragments: `tiles` instruction tiles of a
/// [rows, cols] region, `count` fragment elements a thread; `element(f, t,
/// i)` is the region element that fragment element i of thread t holds in
/// tile f. Each must be in thread t, at one register index shared by all
/// 128 threads; the registers are listed per tile.
struct Fragment {
  const char *name;     // "C" or "A"
  const char *spanning; // "accumulator" or "register A"
  const char *fragment; // "accumulator fragment" or "A fragment"
  std::string rule;
  int64_t rows = 0, cols = 0, tiles = 0, count = 0;
  std::function<std::pair<int64_t, int64_t>(int64_t, int64_t, int64_t)>
      element;
};

Status fragmentRegisters(const RegionSide &side, const Fragment &f,
                         std::vector<std::vector<int64_t>> &out) {
  out.clear();
  const std::string name = f.name;
  OrReason<LocalThreads> threads = localThreads(side.layout);
  if (!threads)
    return Status::failure(name + ": " + threads.reason());
  if (threads->threads != 128)
    return Status::failure(
        name + " is a register tile of " + str(threads->threads) +
        " thread(s); a wgmma " + f.spanning +
        " spans the 128 threads of a warpgroup (" + f.rule + ")");
  OrReason<SliceResult> slice =
      side.layout.slice(side.shape, side.offsets, {f.rows, f.cols});
  if (!slice)
    return Status::failure(name + " region: " + slice.reason());
  const TileLayout &layout = slice->residual;
  for (int64_t tile = 0; tile < f.tiles; ++tile) {
    std::vector<int64_t> registers(f.count, -1);
    for (int64_t t = 0; t < 128; ++t)
      for (int64_t i = 0; i < f.count; ++i) {
        auto [row, column] = f.element(tile, t, i);
        AxisAddress a = layout.apply(row * f.cols + column);
        int64_t holder = threadInGroup(a), reg = at(a, Axis::m);
        std::string element =
            name + " element (" + str(row) + ", " + str(column) + ")";
        if (holder != t)
          return Status::failure(element + " is in thread " + str(holder) +
                                 "; the wgmma " + f.fragment +
                                 " puts it in thread " + str(t) +
                                 " (" + f.rule + ")");
        if (registers[i] < 0)
          registers[i] = reg;
        else if (registers[i] != reg)
          return Status::failure(
              element + " is in register " + str(reg) + " of thread " +
              str(t) + ", but fragment register " + str(i) +
              " is register " + str(registers[i]) +
              " of thread 0: a fragment register is one register of "
              "every thread (" + f.rule + ")");
      }
    out.push_back(std::move(registers));
  }
  return Status::success();
}

/// C's registers per output tile, every fragment element checked.
Status planAccumulator(const Request &req, Plan &plan) {
  Fragment f{"C", "accumulator", "accumulator fragment", kFragmentRule};
  f.rows = req.m;
  f.cols = req.n;
  f.tiles = plan.mTiles * plan.nTiles;
  f.count = plan.instN / 2;
  const int64_t nTiles = plan.nTiles, instN = plan.instN;
  f.element = [&](int64_t tile, int64_t t, int64_t i) {
    auto [r, c] = fragmentElement(t, i);
    return std::pair{(tile / nTiles) * 64 + r, (tile % nTiles) * instN + c};
  };
  plan.cRegisters = req.cSide.layout.cosize(Axis::m);
  return fragmentRegisters(req.cSide, f, plan.accumulatorRegisters);
}

std::string aFragmentRuleText(unsigned bits) {
  const int64_t e = 32 / bits;
  std::string column = e == 1 ? "4j + r" : str(4 * e) + "j + " + str(e) +
                                               "r + e";
  return "thread t = 32w + 4q + r of the warpgroup holds row 16w + 8h + q, "
         "column " + column + " of each " + str(256 / bits) +
         "-column K step in 32-bit register 2j + h" +
         (e == 1 ? "" : " (element e of its " + str(e) + ")");
}

/// A register A's registers per (M tile, K step).
Status planRegisterA(const Request &req, Plan &plan) {
  Fragment f{"A", "register A", "A fragment", aFragmentRuleText(req.aBits)};
  f.rows = req.m;
  f.cols = req.k;
  f.tiles = plan.mTiles * plan.kSteps;
  f.count = aFragmentElements(req.aBits);
  const int64_t kSteps = plan.kSteps, instK = plan.instK;
  const unsigned bits = req.aBits;
  f.element = [&](int64_t tile, int64_t t, int64_t i) {
    auto [r, c] = aFragmentElement(t, i, bits);
    return std::pair{(tile / kSteps) * 64 + r, (tile % kSteps) * instK + c};
  };
  plan.aInRegisters = true;
  plan.aPerRegister = 32 / bits;
  return fragmentRegisters(req.aSide, f, plan.aRegisters);
}

/// A and B: descriptors read off the first tile, every element checked.
struct Operands {
  std::optional<Region> a, b;
  std::optional<SharedPlanner> aShared, bShared;
};

Status planOperands(const Request &req, Plan &plan, Operands &ops) {
  if (!req.aInRegisters) {
    OrReason<Region> ra =
        regionOf(req.aSide, req.m, req.k, req.transposeA, "A", false);
    if (!ra)
      return Status::failure(ra.reason());
    ops.a = *ra;
    ops.aShared.emplace(SharedPlanner{*ops.a, "A", req.aBits, 64, plan.instK,
                                      {}, {},
                                      cuda::DescriptorFlavour::Wgmma});
  }
  OrReason<Region> rb =
      regionOf(req.bSide, req.n, req.k, !req.transposeB, "B", false);
  if (!rb)
    return Status::failure(rb.reason());
  ops.b = *rb;
  ops.bShared.emplace(SharedPlanner{*ops.b, "B", req.bBits, plan.instN,
                                    plan.instK, {}, {},
                                    cuda::DescriptorFlavour::Wgmma});
  std::vector<SharedPlanner *> shared{&*ops.bShared};
  if (ops.aShared)
    shared.insert(shared.begin(), &*ops.aShared);
  for (SharedPlanner *side : shared) {
    if (Status s = side->derive(); !s)
      return s;
    if (side->canon.mnMajor && side->bits != 16)
      return Status::failure(
          side->name + " is MN-major; wgmma reads MN-major operands only "
                       "for 16-bit types (f16, bf16): store " +
          side->name + " K-major (" +
          (side->name == "A" ? "no transpose_a" : "transpose_b") + ")");
  }
  if (ops.aShared)
    plan.aOperand = ops.aShared->operand;
  plan.bOperand = ops.bShared->operand;
  return Status::success();
}

Status listIssues(const Request &req, const Operands &ops, Plan &plan) {
  std::vector<int64_t> aStart(plan.mTiles * plan.kSteps),
      bStart(plan.nTiles * plan.kSteps);
  for (int64_t mi = 0; ops.aShared && mi < plan.mTiles; ++mi)
    for (int64_t ki = 0; ki < plan.kSteps; ++ki) {
      OrReason<int64_t> s = ops.aShared->tile(mi * 64, ki * plan.instK);
      if (!s)
        return Status::failure(s.reason());
      aStart[mi * plan.kSteps + ki] = *s;
    }
  for (int64_t ni = 0; ni < plan.nTiles; ++ni)
    for (int64_t ki = 0; ki < plan.kSteps; ++ki) {
      OrReason<int64_t> s =
          ops.bShared->tile(ni * plan.instN, ki * plan.instK);
      if (!s)
        return Status::failure(s.reason());
      bStart[ni * plan.kSteps + ki] = *s;
    }
  for (int64_t mi = 0; mi < plan.mTiles; ++mi)
    for (int64_t ni = 0; ni < plan.nTiles; ++ni)
      for (int64_t ki = 0; ki < plan.kSteps; ++ki) {
        Issue is;
        is.mi = mi;
        is.ni = ni;
        is.ki = ki;
        is.aByte = aStart[mi * plan.kSteps + ki];
        is.bByte = bStart[ni * plan.kSteps + ki];
        is.inputD = ki > 0                  ? InputD::Accumulate
                    : req.hasAccumulateFlag ? InputD::FromFlag
                                            : InputD::Overwrite;
        plan.issues.push_back(is);
      }
  return Status::success();
}

} // namespace

std::string wgmma::accumulatorProblem(const RegionSide &c, int64_t m,
                                      int64_t n) {
  Request req;
  req.cSide = c;
  req.m = m;
  req.n = n;
  Plan plan;
  plan.instN = 8;
  plan.mTiles = m / 64;
  plan.nTiles = n / 8;
  Status s = planAccumulator(req, plan);
  return s ? "" : s.reason();
}

std::string wgmma::aFragmentProblem(const RegionSide &a, int64_t m,
                                    int64_t k, unsigned bits) {
  Request req;
  req.aSide = a;
  req.aBits = bits;
  req.m = m;
  req.k = k;
  Plan plan;
  plan.mTiles = m / 64;
  plan.instK = 256 / bits;
  plan.kSteps = k / plan.instK;
  Status s = planRegisterA(req, plan);
  return s ? "" : s.reason();
}

OrReason<RegionSide> wgmma::transposedSide(const RegionSide &side) {
  using R = OrReason<RegionSide>;
  if (side.shape.size() != 2 || side.offsets.size() != 2)
    return R::failure("C's region is not of rank 2");
  OrReason<TileLayout> t = side.layout.permuteDims(side.shape, {1, 0});
  if (!t)
    return R::failure("C's layout does not transpose: " + t.reason());
  return RegionSide{*t, {side.shape[1], side.shape[0]},
                    {side.offsets[1], side.offsets[0]}};
}

OrReason<Request> wgmma::swappedRequest(const Request &req) {
  using R = OrReason<Request>;
  if (req.aInRegisters)
    return R::failure("A is a register tile (the swapped form reads A as "
                      "wgmma's B, from shared memory)");
  OrReason<RegionSide> cT = transposedSide(req.cSide);
  if (!cT)
    return R::failure(cT.reason());
  Request s = req;
  s.a = req.b;
  s.b = req.a;
  s.aBits = req.bBits;
  s.bBits = req.aBits;
  // A' = B: [N, K] with transpose_b, else [K, N] (MN-major); B' = A:
  // [M, K] (K-major, read as a transposed B) or [K, M] with transpose_a.
  s.aSide = req.bSide;
  s.transposeA = !req.transposeB;
  s.bSide = req.aSide;
  s.transposeB = !req.transposeA;
  s.cSide = *cT;
  s.m = req.n;
  s.n = req.m;
  return s;
}

OrReason<Plan> wgmma::planWgmma(const Request &req) {
  using R = OrReason<Plan>;
  OrReason<Plan> direct = planDirect(req);
  if (direct || req.aInRegisters)
    return direct;
  // Only what the swap changes can make it fit: M (which becomes the
  // instructions' N) or C's layout (read transposed).
  bool mFits = req.m % 64 == 0 && req.m >= 64;
  if (mFits && req.n % 8 == 0 &&
      accumulatorProblem(req.cSide, req.m, req.n).empty())
    return direct;
  // Swap-AB: C^T = B^T A^T, the op's B as wgmma's A (M 64 per instruction)
  // and its A as wgmma's B (N 8..256): an M such as 16 that no wgmma has,
  // or a C whose layout is the accumulator fragment transposed.
  OrReason<Request> s = swappedRequest(req);
  if (!s)
    return R::failure(direct.reason() + "; swap-AB (C^T = B A^T): " +
                      s.reason());
  OrReason<Plan> swapped = planDirect(*s);
  if (!swapped)
    return R::failure(direct.reason() + "; " + kSwapABReason + ": " +
                      swapped.reason());
  swapped->swapAB = true;
  return swapped;
}

OrReason<Plan> wgmma::planDirect(const Request &req) {
  using R = OrReason<Plan>;
  if (std::string rule = typeRule(req.a, req.b, req.d); !rule.empty())
    return R::failure(rule);
  for (auto [e, bits, name] : {std::tuple{req.a, req.aBits, "A"},
                               std::tuple{req.b, req.bBits, "B"}})
    if (bits != cuda::mmaElementBits(e))
      return R::failure(std::string(name) + " elements are " + str(bits) +
                        "-bit; " + cuda::mmaElementName(e).str() + " is " +
                        str(cuda::mmaElementBits(e)) + "-bit");
  if (req.aInRegisters) {
    if (std::string rule = registerARule(req.a, req.aBits); !rule.empty())
      return R::failure(rule);
    if (req.transposeA)
      return R::failure(kTransposedRegisterA);
  }
  Plan plan;
  plan.a = req.a;
  plan.b = req.b;
  plan.d = req.d;
  Operands ops;
  Status s = chooseShape(req, plan);
  if (s)
    s = planOperands(req, plan, ops);
  if (s && req.aInRegisters)
    s = planRegisterA(req, plan);
  if (s)
    s = planAccumulator(req, plan);
  if (s)
    s = listIssues(req, ops, plan);
  if (!s)
    return R::failure(s.reason());
  return plan;
}

//===- WgmmaPlanner.h - plan Hopper warpgroup MMAs on tiles -----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pure planner of the `wgmma` gemm_async variant (PTX ISA
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"): which
// `wgmma.mma_async` instructions, through which shared-memory matrix
// descriptors (MmaSharedOperand.h, wgmma flavour) and accumulator
// registers, compute `C (+)= A @ B` with C a warpgroup's register tile.
// MLIR-free.
//
// One instruction is m64nNkK: M 64 (the warpgroup's four warps, 16 rows
// each), N a multiple of 8 from 8 to 256, K 256 bits of a row (16 for
// f16/bf16, 8 for tf32, 32 for e4m3/e5m2). Its accumulator fragment: thread
// t = 32w + 4q + r of the warpgroup (w warp, q = lane / 4, r = lane % 4)
// holds D(16w + 8h + q, 8j + 2r + e) in register i = 4j + 2h + e (h, e in
// {0, 1}, j < N/8); f16 accumulators pack registers 2p, 2p + 1 in one
// 32-bit register p. The planner checks, element by element, that C's
// local layout puts each D element of each instruction in that thread at
// one register, and lists those registers per instruction tile.
//
// A may instead be a register tile (wgmma's register-A form, K-major only:
// the ISA has no imm-trans-a for it). Its m64kK fragment, with E = 32 /
// element bits elements in each 32-bit register: thread t = 32w + 4q + r
// holds A(16w + 8h + q, (4j + r)E + e) as element e of 32-bit register
// 2j + h (h, j in {0, 1}, e < E). For 16-bit types that is column
// 8j + 2r + e in element register 4j + 2h + e: the accumulator fragment of a
// 64 x 16 tile; for fp8 (E = 4) columns 16j + 4r .. 16j + 4r + 3, the
// lowest column in the lowest byte. The planner checks A's local layout
// against it the same way, element by element, for f16/bf16 (E = 2), tf32
// (E = 1) and e4m3/e5m2 (E = 4).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_GEMMASYNC_WGMMAPLANNER_H
#define TILE_VARIANTS_CUDA_GEMMASYNC_WGMMAPLANNER_H

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/InstrDescriptor.h"
#include "tile/Variants/CUDA/GemmAsync/MmaSharedOperand.h"

#include <optional>
#include <vector>

namespace tile::wgmma {

using copy_async::RegionSide;
using SharedOperand = mma_operand::SharedOperand;

/// K of one instruction: 256 bits of an operand row.
int64_t instructionK(cuda::MmaElement element);

/// Why the element types have no wgmma form, or "": A and B f16 (D f16 or
/// f32), bf16 (D f32), tf32 (D f32), or e4m3/e5m2 in any mix (D f16 or
/// f32).
std::string typeRule(cuda::MmaElement a, cuda::MmaElement b,
                     cuda::MmaAccumulator d);

/// Why m64nN is not a wgmma shape, or "": N a multiple of 8, 8..256.
std::string shapeRule(int64_t n);

/// The element of a 64 x N instruction tile that accumulator register `i`
/// of thread `t` (0..127) holds: (16w + 8h + q, 8j + 2r + e).
std::pair<int64_t, int64_t> fragmentElement(int64_t thread, int64_t i);

/// Why C's local layout (`c`, over an M x N region) does not hold the
/// accumulator fragments of m64nN instructions, or "".
std::string accumulatorProblem(const RegionSide &c, int64_t m, int64_t n);

/// Elements of A a thread holds per m64kK instruction in the register-A
/// form: four 32-bit registers of 32 / bits elements each.
int64_t aFragmentElements(unsigned bits);

/// The element of a 64 x K instruction tile of A (K = 256 / bits) that
/// element `i` (0 .. aFragmentElements(bits) - 1, element i % E of 32-bit
/// register i / E) of thread `t` holds: (16w + 8h + q, (4j + r)E + e).
std::pair<int64_t, int64_t> aFragmentElement(int64_t thread, int64_t i,
                                             unsigned bits);

/// Why A elements of `bits` bits have no register-A form, or "" (f16,
/// bf16, tf32, e4m3, e5m2 at their own widths).
std::string registerARule(cuda::MmaElement a, unsigned bits);

/// Why a register A cannot be transposed (transpose_a).
inline constexpr const char *kTransposedRegisterA =
    "transpose_a with A in registers: the register-A form of "
    "wgmma.mma_async has no imm-trans-a (its fragment is K-major by "
    "definition); load A into the fragment transposed instead";

/// Why A's local layout (`a`, over an M x K region of `bits`-bit
/// elements) does not hold the A fragments of the m64kK instructions, or
/// "".
std::string aFragmentProblem(const RegionSide &a, int64_t m, int64_t k,
                             unsigned bits);

struct Request {
  cuda::MmaElement a = cuda::MmaElement::F16;
  cuda::MmaElement b = cuda::MmaElement::F16;
  cuda::MmaAccumulator d = cuda::MmaAccumulator::F32;
  /// Element widths as the tiles store them.
  unsigned aBits = 16, bBits = 16;
  /// A (shared) over [M, K], or [K, M] with transposeA (MN-major); or,
  /// with aInRegisters, a local tile of one warpgroup over [M, K].
  RegionSide aSide;
  bool transposeA = false;
  bool aInRegisters = false;
  /// B (shared) over [K, N] (MN-major), or [N, K] with transposeB.
  RegionSide bSide;
  bool transposeB = false;
  /// C (a local tile of one warpgroup) over [M, N].
  RegionSide cSide;
  int64_t m = 0, n = 0, k = 0;
  /// The op has `accumulate(%p)`: the first K step adds into C when %p.
  bool hasAccumulateFlag = false;
};

/// How the first K step of an output tile treats C.
enum class InputD : uint8_t { Overwrite, Accumulate, FromFlag };

/// One wgmma.mma_async.
struct Issue {
  int64_t mi = 0, ni = 0, ki = 0;
  /// Descriptor starts, bytes past the buffers' bases (aByte 0 for a
  /// register A).
  int64_t aByte = 0, bByte = 0;
  InputD inputD = InputD::Overwrite;

  bool operator==(const Issue &o) const {
    return mi == o.mi && ni == o.ni && ki == o.ki && aByte == o.aByte &&
           bByte == o.bByte && inputD == o.inputD;
  }
};

struct Plan {
  int64_t instM = 64, instN = 8, instK = 16;
  cuda::MmaElement a = cuda::MmaElement::F16, b = cuda::MmaElement::F16;
  cuda::MmaAccumulator d = cuda::MmaAccumulator::F32;
  /// aOperand is unused when A is in registers.
  SharedOperand aOperand, bOperand;
  bool aInRegisters = false;
  /// Register A: per (mi * kSteps + ki), fragment element i -> the local
  /// tile's register holding it (aFragmentElements of them); element i
  /// goes into 32-bit register i / aPerRegister.
  std::vector<std::vector<int64_t>> aRegisters;
  int64_t aPerRegister = 2;
  int64_t mTiles = 1, nTiles = 1, kSteps = 1;
  /// Swap-AB: the instructions compute C^T = B^T A^T (wgmma's A is the
  /// op's B, wgmma's B the op's A; M, N, the tiles and aByte/bByte are the
  /// swapped problem's; the accumulator registers are C's, read
  /// transposed).
  bool swapAB = false;
  /// C's registers (elements) a thread holds: the local tile's cosize(m).
  int64_t cRegisters = 0;
  /// Per output tile (mi * nTiles + ni): fragment register i -> the local
  /// tile's register holding it (instN / 2 of them).
  std::vector<std::vector<int64_t>> accumulatorRegisters;
  /// In issue order: output tiles (mi, ni), K steps innermost.
  std::vector<Issue> issues;
};

/// Plans the op: checks the types and the shape (M a multiple of 64, N of
/// an instruction's widest legal N dividing it, K of the instruction's),
/// reads each shared operand's descriptor off its layout and checks every
/// element of every instruction against it (MN-major only for 16-bit
/// types), checks a register A against the A fragment and C's local layout
/// against the accumulator fragment, and lists the issues. Declines naming
/// the rule. When that fails and A is in shared memory, plans the swap-AB
/// form instead (swappedRequest; Plan::swapAB): M becomes the
/// instructions' N (so M = 8, 16, ..., 256 fits) and C's layout must be
/// the accumulator fragment transposed.
OrReason<Plan> planWgmma(const Request &request);

/// planWgmma without the swap-AB fallback.
OrReason<Plan> planDirect(const Request &request);

/// Introduces the reason a swap-AB plan declined, which speaks of the
/// swapped problem.
inline constexpr const char *kSwapABReason =
    "swap-AB (C^T = B A^T; in its terms A, B, M and N are the op's B, A, N "
    "and M, and C element (i, j) is the op's C(j, i))";

/// A rank-2 region side with its two dims exchanged (C read as C^T).
OrReason<RegionSide> transposedSide(const RegionSide &side);

/// C^T = B^T A^T as a request: A and B exchanged (each one's major-ness
/// kept: transpose flags flipped, since A' = B is read as an A and B' = A
/// as a B), C's region transposed, M and N exchanged.
OrReason<Request> swappedRequest(const Request &request);

constexpr size_t kMaxIssues = 4096;

} // namespace tile::wgmma

#endif // TILE_VARIANTS_CUDA_GEMMASYNC_WGMMAPLANNER_H

//===- Tcgen05MmaPlanner.h - plan tensor-core MMAs on tiles -----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pure planner of the `tcgen05` gemm_async variant (PTX ISA "Tensor
// Memory: tcgen05.mma"): which `tcgen05.mma` instructions, through which
// shared-memory matrix descriptors, instruction descriptor and tensor-memory
// addresses, compute `C (+)= A @ B` on the regions of three tiles. MLIR-free.
//
// Shared operands follow the PTX ISA's canonical layouts ("Shared Memory
// Matrix Layout", T = 16 bytes of elements, c = swizzle bytes / 16), in
// elements from the descriptor's start (row = M or N index):
//
//   K-major,  no swizzle  (r%8)*T + (r/8)*SBO + k%T + (k/T)*LBO
//   K-major,  swizzled    (r%8)*c*T + (r/8)*SBO + k
//   MN-major, no swizzle  r%T + (r/T)*SBO + (k%8)*T + (k/8)*LBO
//   MN-major, swizzled    r%T + ((r/T)%c)*T + (r/(c*T))*LBO + (k%8)*c*T
//                         + (k/8)*SBO
//
// then the swizzle XORs the absolute address. The planner reads LBO and SBO
// off the tile's layout and checks every element of every instruction's
// operand against the formula (before the swizzle, which both sides apply
// to the same absolute address).
//
// Tensor memory follows the PTX ISA's data-path layouts ("Data path layout
// organization"), per CTA; D(r, c) of an instruction tile with N columns
// sits at (lane, column) relative to the tile's address:
//
//   A  M 256, cta_group 2     (r, c)                        128 rows
//   B  M 128, cta_group 2     (r + 64 (c / (N/2)), c % (N/2))   64 rows
//   D  M 128, cta_group 1     (r, c)                        128 rows
//   E  M 64, .ws              as B                            64 rows
//   F  M 64, cta_group 1      (32 (r/16) + r%16, c)           64 rows
//   G  M 32, .ws              (r + 32 (c / (N/4)), c % (N/4))   32 rows
//
// (C, M 128 cta_group 2 with a sparse A, is not used: no sparse MMAs.)
// D is unpacked (one element per 32-bit column); A in tensor memory
// follows the row map of A, D and F (packed) and is refused under the
// folded paths B, E and G, whose A placement is not modelled. Block-scale
// factors sit 32 rows a column in every 32-lane partition that reads them
// (see scaleRowPlace).
//
// With cta_group 2 the two CTAs of a pair split the problem: each holds
// M/2 rows of A and C and N/2 rows of B; the region sizes on the op are
// the pair's [M, N, K] and each buffer region is this CTA's half. Block
// scales: each CTA holds its M/2 rows of A's and all N rows of B's.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_GEMMASYNC_TCGEN05MMAPLANNER_H
#define TILE_VARIANTS_CUDA_GEMMASYNC_TCGEN05MMAPLANNER_H

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/InstrDescriptor.h"
#include "tile/Target/CUDA/SmemDescriptor.h"
#include "tile/Variants/CUDA/CopyAsync/RegionSide.h"
#include "tile/Variants/CUDA/GemmAsync/MmaSharedOperand.h"

#include <optional>
#include <vector>

namespace tile::tcgen05_mma {

using copy_async::RegionSide;

/// The kind an op's element types select: f16/bf16 -> f16, f32/tf32 ->
/// tf32, 8-bit or narrower floats -> f8f6f4 (mxf8f6f4 with scales), i8 ->
/// i8, fp4 with scales -> mxf4 (ue8m0) or mxf4nvf4 (ue4m3). When the types
/// select none, the reason names the rule.
OrReason<cuda::MmaKind> selectKind(cuda::MmaElement a, cuda::MmaElement b,
                                   bool scaled,
                                   cuda::ScaleFactorType scaleType);

/// The legal instruction shapes: cta_group 1 M 64 (N % 8, 8..256) or M 128
/// (N % 16, 16..256); cta_group 2 M 128 or 256 (N % 16, 16..256); `.ws`
/// (cta_group 1 only) M 32, 64 or 128 with N 64, 128 or 256; kind::i8
/// further: M 64 N 8, 16, 24, 32 or a multiple of 16, and cta_group 2 N a
/// multiple of 32. (Block-scaled cta_group 1 MMAs are M 128 only: the
/// planner's M choice.) Returns the rule `(ctaGroup, m, n)`
/// breaks, or "" if legal.
std::string shapeRule(unsigned ctaGroup, int64_t m, int64_t n,
                      bool weightStationary = false,
                      cuda::MmaKind kind = cuda::MmaKind::F16);

/// The tensor-memory data-path layouts of tcgen05.mma (see above).
enum class DataPath : uint8_t { A, B, D, E, F, G };
/// "B (M 128, cta_group 2)".
std::string dataPathName(DataPath path);
/// The data path of a legal (ctaGroup, M, .ws) instruction shape.
DataPath dataPathOf(unsigned ctaGroup, int64_t instM, bool weightStationary);
/// Paths that fold N across lane groups: B, E, G.
bool isFolded(DataPath path);

/// A place in tensor memory relative to an instruction tile's address:
/// lane and 32-bit column (D: one accumulator element per column).
struct TmemPlace {
  int64_t lane = 0, column = 0;
  bool operator==(const TmemPlace &o) const {
    return lane == o.lane && column == o.column;
  }
};
/// Where D(r, c) of an instruction tile with `instN` columns sits.
TmemPlace accumulatorPlace(DataPath path, int64_t instN, int64_t r, int64_t c);
/// Lane of row `r` (of A in tensor memory, or of A's scale factors) on an
/// unfolded path, relative to the tile's lane.
int64_t rowLane(DataPath path, int64_t r);

/// Where an instruction reads row r of a block-scale vector, relative to
/// the scale address (lane 0): the column (32 rows a column, the K blocks
/// in its bytes from the scale-factor id) and every lane that must hold
/// it: row r % 32 of each 32-lane partition whose data path the row
/// scales. A's rows (this CTA's M or M/2): all four partitions. B's rows
/// (the pair's whole N; both CTAs hold them): all four under paths A and
/// D; under B, row n is row n % (N/2) of half h = n / (N/2), read by
/// partitions 2h and 2h+1.
struct ScaleRowPlace {
  int64_t column = 0;
  llvm::SmallVector<int64_t, 4> lanes;
};
ScaleRowPlace scaleRowPlace(DataPath path, bool operandB, int64_t instN,
                            int64_t r);

/// tcgen05.mma collector-buffer use (`.collector::<buffer>::<op>`): the
/// operand it caches is A, or B for `.ws` (buffers b0..b3).
enum class CollectorOp : uint8_t { Discard, LastUse, Fill, Use };

struct Request {
  cuda::MmaElement a = cuda::MmaElement::F16;
  cuda::MmaElement b = cuda::MmaElement::F16;
  cuda::MmaAccumulator d = cuda::MmaAccumulator::F32;
  /// Element widths as the tiles store them (4 for packed fp4).
  unsigned aBits = 16, bBits = 16, dBits = 32;
  /// A (shared, axis m; or tensor memory, TLane/TCol) over [M, K], or
  /// [K, M] with transposeA.
  RegionSide aSide;
  bool aInTmem = false;
  bool transposeA = false;
  /// B (shared) over [K, N], or [N, K] with transposeB.
  RegionSide bSide;
  bool transposeB = false;
  /// C (tensor memory) over [M, N].
  RegionSide cSide;
  /// The op's [M, N, K] (the pair's with cta_group 2).
  int64_t m = 0, n = 0, k = 0;
  unsigned ctaGroup = 1;
  /// The op has `accumulate(%p)`: the first K step adds into C when %p.
  bool hasAccumulateFlag = false;
  /// Block scaling: scale tiles in tensor memory over [M, K / vec] (this
  /// CTA's M/2 with cta_group 2) and [N, K / vec] (all N, in each CTA),
  /// 8-bit elements, replicated across the partitions that read them.
  std::optional<RegionSide> sfaSide, sfbSide;
  cuda::ScaleFactorType scaleType = cuda::ScaleFactorType::UE8M0;
  /// Weight-stationary `tcgen05.mma.ws` (cta_group 1, M 32/64/128).
  bool weightStationary = false;
  /// The instruction's (M, N) the user chose; nullopt: the planner's.
  std::optional<std::pair<int64_t, int64_t>> instructionShape;
  /// Collector buffer (`.ws` only: b0..b3) and its use.
  unsigned collectorBuffer = 0;
  CollectorOp collectorOp = CollectorOp::Discard;
};

/// How the first (K-step) instruction of an output tile treats C.
enum class InputD : uint8_t {
  Overwrite,  ///< C = A @ B
  Accumulate, ///< C += A @ B (every later K step)
  FromFlag,   ///< the op's accumulate operand decides
};

/// One tcgen05.mma.
struct Issue {
  int64_t mi = 0, ni = 0, ki = 0;
  /// Shared A / B: descriptor start, bytes past the buffer's base.
  int64_t aByte = 0, bByte = 0;
  /// Tensor-memory A: `(lane << 16) | column` past the buffer's address.
  uint32_t aTmem = 0;
  /// C: `(lane << 16) | column` past the buffer's address.
  uint32_t dTmem = 0;
  InputD inputD = InputD::Overwrite;
  /// Block scaling: scale-factor addresses and the instruction descriptor
  /// with this issue's scale-factor ids.
  uint32_t sfaTmem = 0, sfbTmem = 0;
  uint32_t idesc = 0;

  bool operator==(const Issue &o) const {
    return mi == o.mi && ni == o.ni && ki == o.ki && aByte == o.aByte &&
           bByte == o.bByte && aTmem == o.aTmem && dTmem == o.dTmem &&
           inputD == o.inputD && sfaTmem == o.sfaTmem &&
           sfbTmem == o.sfbTmem && idesc == o.idesc;
  }
};

using SharedOperand = mma_operand::SharedOperand;

struct Plan {
  cuda::MmaKind kind = cuda::MmaKind::F16;
  unsigned ctaGroup = 1;
  bool weightStationary = false;
  DataPath dataPath = DataPath::D;
  unsigned collectorBuffer = 0;
  CollectorOp collectorOp = CollectorOp::Discard;
  /// One instruction's shape (the pair's with cta_group 2).
  int64_t instM = 128, instN = 128, instK = 16;
  /// The instruction descriptor (scale-factor ids 0; see Issue::idesc).
  cuda::InstrDescriptor idesc;
  std::optional<SharedOperand> a; ///< nullopt: A in tensor memory
  SharedOperand b;
  /// In issue order: output tiles (mi, ni), K steps innermost.
  std::vector<Issue> issues;
};

/// Plans the op: selects the kind, the instruction shape (M as the rows
/// allow, the widest legal N dividing the region, K of the kind), reads
/// each shared operand's descriptor off its layout and checks every element
/// of every instruction against it, checks the tensor-memory tiles against
/// the data path, and lists the issues. Declines, naming the rule, on
/// element types no kind takes, an illegal shape, K not a multiple of the
/// instruction's, a layout neither K- nor MN-major, a swizzle that is not an
/// NVMMA one, an element off the canonical layout, a swizzled start that is
/// not on an atom's first row, offsets that do not fit the descriptor,
/// tensor-memory tiles off the data path or beyond 128 lanes / 512 columns,
/// and scale factors that are not where one instruction reads them.
OrReason<Plan> planMma(const Request &request);

constexpr size_t kMaxIssues = 4096;

} // namespace tile::tcgen05_mma

#endif // TILE_VARIANTS_CUDA_GEMMASYNC_TCGEN05MMAPLANNER_H

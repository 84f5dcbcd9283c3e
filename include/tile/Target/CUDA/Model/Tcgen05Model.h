//===- Tcgen05Model.h - which bytes tcgen05.cp / tcgen05.mma move -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The tensor-memory half of the PTX-semantics model, from the PTX ISA's
// "Tensor Memory" chapter. It takes instructions as the hardware sees them
// (descriptor words, instruction descriptors, 32-bit tensor-memory
// addresses), reads them with its own tables (Encodings.h), and says which
// bytes go where:
//
//  - tensor-memory addressing: address = (lane << 16) | column, 128 lanes of
//    512 32-bit columns;
//  - tcgen05.cp (shape, multicast, cta_group, tmem address, descriptor): row
//    r of the source starts at `start + (r/8) SBO + (r%8) W` (W = swizzle row
//    bytes, 16 unswizzled); a 256-bit row's second 16-byte chunk follows at
//    +16 when swizzled and at +LBO unswizzled; the address is then
//    swizzled. Row r lands in lane `lane + L(r)` and the multicast's
//    replicas, in rowBits/32 consecutive columns:
//      128x256b, 128x128b  L(r) = r            4x256b  L(r) = 32 r
//      64x128b.warpx2::02_13  L(r) = r, replica +64
//      64x128b.warpx2::01_23  L(r) = 64 (r/32) + r%32, replica +32
//      32x128b.warpx4  L(r) = r, replicas +32, +64, +96
//    The decompressing source formats (b6x16_p32, b4x16_p64) turn each
//    16-byte source chunk into 16 one-byte containers.
//  - tcgen05.mma[.ws] (kind, instruction descriptor, A/B descriptor words
//    or tmem A, D address, cta_group): D(m, n) = sum_k A(m, k) B(n, k) over
//    the instruction's K = 256 bits; A and B through the shared operand
//    model; D placed by the data-path layout of (M, cta_group, .ws)
//    (PTX "Data Path Layout Organization"), per CTA with cta_group 2
//    (each CTA holds M/2 rows of A and D and N/2 rows of B):
//      A  M 256 cta_group 2      lane m,                          column n
//      B  M 128 cta_group 2      lane m + 64 (n / (N/2)),         n % (N/2)
//      D  M 128 cta_group 1      lane m,                          column n
//      E  M 64 .ws               lane m + 64 (n / (N/2)),         n % (N/2)
//      F  M 64                   lane 32 (m/16) + m%16,           column n
//      G  M 32 .ws               lane m + 32 (n / (N/4)),         n % (N/4)
//    (C, sparse M 128 cta_group 2, is refused: no sparse MMAs here). A in
//    tensor memory sits where D's rows sit (lane of m; F: with D's lane
//    alignment), and under B and E also in lane m + 64 (both halves of the
//    data path read it); under G the model refuses it (no source).
//  - block-scaled kinds: a scale vector is stored 32 rows a column: row r
//    of it in lane r % 32 of a 32-lane partition, column `sf + r / 32`,
//    the instruction's K blocks j in bytes `id + j` of that column. Each
//    partition reads its own copy of the rows its data path scales (PTX:
//    "duplicated to all 32 lane partitions"):
//      A's rows (this CTA's M or M/2)   all four partitions
//      B's rows, layouts A and D        all four (each computes all N)
//      B's rows, layout B               row n: half h = n / (N/2) in
//                                       partitions 2h and 2h+1, as row
//                                       n % (N/2) of that half
//    With cta_group 2 each CTA holds its own rows of A's scales and all N
//    of B's. The scale addresses start at lane 0.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_MODEL_TCGEN05MODEL_H
#define TILE_TARGET_CUDA_MODEL_TCGEN05MODEL_H

#include "tile/Target/CUDA/Model/SharedMemoryModel.h"
#include "tile/Target/CUDA/Tcgen05CpForm.h"

namespace tile::cuda::model {

constexpr int64_t kTensorMemoryLanes = 128;
constexpr int64_t kTensorMemoryColumns = 512;

/// A 32-bit tensor-memory cell.
struct TmemCell {
  int64_t lane = 0;
  int64_t column = 0;
  bool operator==(const TmemCell &o) const {
    return lane == o.lane && column == o.column;
  }
};
/// The cell `(lane << 16) | column` names.
TmemCell tmemCell(uint32_t address);

//===----------------------------------------------------------------------===//
// tcgen05.cp
//===----------------------------------------------------------------------===//

struct CpInstruction {
  Tcgen05CpShape shape = Tcgen05CpShape::S128x256b;
  Tcgen05CpMulticast multicast = Tcgen05CpMulticast::None;
  Tcgen05CpSourceFormat sourceFormat = Tcgen05CpSourceFormat::None;
  unsigned ctaGroup = 1;
  uint32_t tmemAddress = 0;
  /// The tcgen05 shared-memory descriptor word.
  uint64_t descriptor = 0;
};

/// One destination byte of a tcgen05.cp.
struct CpByte {
  int64_t lane = 0;
  /// Byte within the lane's row: 4 * column + byte of the column.
  int64_t columnByte = 0;
  /// Absolute shared address of the source byte (of the source chunk's
  /// byte holding the value's first bit with a decompressing format).
  int64_t sharedByte = 0;
  /// First source bit of the value inside `sharedByte` and its width (8
  /// for plain copies, 6 or 4 with a decompressing format).
  unsigned sourceBit = 0;
  unsigned sourceBits = 8;
};

/// Every byte `inst` writes (per CTA with cta_group 2), rows in order and
/// replicas innermost; the reason on an invalid instruction (descriptor
/// decode, shape/multicast pairing, lanes or columns outside tensor memory,
/// a column not 128-bit aligned).
OrReason<std::vector<CpByte>> tcgen05Copy(const CpInstruction &inst);
/// The descriptor fields `inst` reads: SBO when it copies more than 8 rows,
/// LBO for unswizzled 256-bit rows (the second chunk) only.
OrReason<DescriptorUse> tcgen05CopyFieldsRead(const CpInstruction &inst);

//===----------------------------------------------------------------------===//
// tcgen05.mma
//===----------------------------------------------------------------------===//

/// The PTX data-path layouts of tcgen05.mma's tensor-memory operands.
enum class DataPath : uint8_t { A, B, C, D, E, F, G };
/// The layout of (M, cta_group, .ws) for a dense A operand.
std::optional<DataPath> dataPathOf(unsigned m, unsigned ctaGroup,
                                   bool weightStationary);

struct MmaInstruction {
  Kind kind = Kind::F16;
  uint32_t idesc = 0;
  unsigned ctaGroup = 1;
  /// `tcgen05.mma.ws` (weight stationary): cta_group 1, M 32/64/128, N
  /// 64/128/256, dense kinds only.
  bool weightStationary = false;
  /// A's tcgen05 descriptor word, or nullopt when A is in tensor memory
  /// at `aTmem`.
  std::optional<uint64_t> aDescriptor;
  uint32_t aTmem = 0;
  uint64_t bDescriptor = 0;
  uint32_t dTmem = 0;
  /// Block-scaled kinds: the scale-factor tensor-memory addresses and the
  /// K elements one scale covers (the .block16 / .block32 qualifier).
  uint32_t sfaTmem = 0, sfbTmem = 0;
  unsigned scaleBlock = 0;
};

/// Where an A element is read.
struct AOperandPlace {
  bool inTensorMemory = false;
  ElementAddress shared;
  int64_t lane = 0;
  /// Bit within the lane's row (32 * column + bit of the column).
  int64_t bit = 0;
  /// Layouts B and E: the second lane (lane + 64) that must hold the same
  /// element; -1 otherwise.
  int64_t replicaLane = -1;
};

/// Where one scale factor is read: every lane holding a copy the data path
/// reads, and the byte within those lanes' rows (4 * column + byte).
struct ScalePlace {
  llvm::SmallVector<int64_t, 4> lanes;
  int64_t byte = 0;
};

/// A decoded tcgen05.mma: shapes and where each operand element is.
class MmaModel {
public:
  /// The decoded instruction, or why the model does not define it.
  static OrReason<MmaModel> create(const MmaInstruction &inst);

  /// The instruction's shape (the pair's with cta_group 2).
  int64_t m() const { return fields.m; }
  int64_t n() const { return fields.n; }
  int64_t k() const { return instK; }
  /// Rows of A / D and of B each CTA holds.
  int64_t rowsA() const { return fields.m / group; }
  int64_t rowsB() const { return fields.n / group; }
  DataPath dataPath() const { return path; }
  /// D(m, n)'s place relative to the D address (m < rowsA(), n < n()).
  TmemCell dOffset(int64_t m, int64_t n) const;
  /// 32-bit columns D occupies from its address (N, N/2 or N/4).
  int64_t dColumns() const;

  /// A(m, k), m < rowsA(), k < k().
  AOperandPlace a(int64_t m, int64_t k) const;
  /// B(n, k), n < rowsB(), k < k().
  ElementAddress b(int64_t n, int64_t k) const;
  /// D(m, n), m < rowsA(), n < n().
  TmemCell d(int64_t m, int64_t n) const;
  /// Scale factors of A row m (m < rowsA()) / B row n (n < n(): each CTA
  /// holds all of B's) for K block j of this instruction (j < k() /
  /// scaleVector()): every lane that must hold it and its byte within the
  /// lane's row.
  ScalePlace scaleA(int64_t m, int64_t j) const;
  ScalePlace scaleB(int64_t n, int64_t j) const;
  /// 32-bit columns A's / B's scales occupy from their addresses.
  int64_t scaleColumnsA() const;
  int64_t scaleColumnsB() const;
  /// K elements one scale factor covers (0 for dense kinds).
  int64_t scaleVector() const { return vec; }
  /// The descriptor fields this instruction reads of A (shared A only) and B.
  DescriptorUse aFieldsRead() const;
  DescriptorUse bFieldsRead() const;

  const MmaFields &instrFields() const { return fields; }

private:
  OrReason<void> placeOperands(const MmaInstruction &inst);
  OrReason<void> placeScales(const MmaInstruction &inst);

  MmaFields fields;
  Kind kind = Kind::F16;
  DataPath path = DataPath::D;
  unsigned group = 1;
  int64_t instK = 16;
  int64_t vec = 0;
  std::optional<SharedOperandModel> aShared, bShared;
  TmemCell aCell, dCell, sfaCell, sfbCell;
};

} // namespace tile::cuda::model

#endif // TILE_TARGET_CUDA_MODEL_TCGEN05MODEL_H

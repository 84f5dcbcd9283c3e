//===- Tcgen05CpPlanner.h - plan shared -> tensor memory copies -*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pure planner of the `tcgen05_cp` copy_async variant (PTX ISA
// "Tensor Memory: tcgen05.cp"): which `tcgen05.cp` instructions, through
// which shared-memory matrix descriptor, move a region of a shared tile into
// a region of a tensor-memory tile. MLIR-free.
//
// One instruction moves `rows` rows of `rowBits` bits: source row r starts
// at `start + (r / 8) * SBO + (r % 8) * W` (W = the swizzle's row bytes, 16
// without swizzle), its second 16-byte chunk (256-bit rows) follows at +16
// (swizzled) or at +LBO (no swizzle); the address is then swizzled. Row r
// lands in tensor-memory lane `lane(r)` (plus the multicast replicas), in
// rowBits / 32 consecutive 32-bit columns:
//
//   shape     multicast        rows  lane(r)                  replicas
//   128x256b  -                128   r                        -
//   128x128b  -                128   r                        -
//   4x256b    -                4     32 r                     -
//   64x128b   warpx2::02_13    64    r                        +64
//   64x128b   warpx2::01_23    64    64 (r / 32) + r % 32     +32
//   32x128b   warpx4           32    r                        +32, +64, +96
//
//===----------------------------------------------------------------------===//

#ifndef TILE_VARIANTS_CUDA_COPYASYNC_TCGEN05CPPLANNER_H
#define TILE_VARIANTS_CUDA_COPYASYNC_TCGEN05CPPLANNER_H

#include "tile/Layout/Layout.h"
#include "tile/Target/CUDA/SmemDescriptor.h"
#include "tile/Target/CUDA/Tcgen05CpForm.h"
#include "tile/Variants/CUDA/CopyAsync/RegionSide.h"

#include <optional>
#include <vector>

namespace tile::tcgen05_cp {

/// The tcgen05.cp vocabulary (Target/CUDA/Tcgen05CpForm.h) under the
/// planner's names.
using Shape = cuda::Tcgen05CpShape;
using Multicast = cuda::Tcgen05CpMulticast;
using SourceFormat = cuda::Tcgen05CpSourceFormat;

struct Form {
  Shape shape = Shape::S128x256b;
  Multicast multicast = Multicast::None;

  unsigned rows() const;
  /// Bytes of one row: 32 for the 256b shapes, 16 for the 128b ones.
  unsigned rowBytes() const;
  /// Lane of source row `r`, relative to the instruction's lane.
  int64_t lane(int64_t r) const;
  /// Lane offsets of the copies the multicast adds (0 first).
  llvm::SmallVector<int64_t, 4> replicaLanes() const;
  /// `128x256b`, `64x128b.warpx2::02_13`, ...
  std::string name() const;

  bool operator==(const Form &o) const {
    return shape == o.shape && multicast == o.multicast;
  }
};

/// The forms to try, widest first: the three unicast shapes, or the one
/// multicast form.
llvm::SmallVector<Form, 3> formsFor(Multicast multicast);

using copy_async::RegionSide;

struct Request {
  /// Element width of both tiles (8, 16, 32 or 64).
  unsigned elementBits = 32;
  /// Shared tile (memory axis `m`, in elements).
  RegionSide shared;
  /// Tensor-memory tile (axes TLane and TCol; TCol counts elements).
  RegionSide tmem;
  llvm::SmallVector<int64_t, 4> sizes;
  unsigned ctaGroup = 1;
  /// A shape the op forces; nullopt lets the planner pick (widest first).
  std::optional<Shape> forcedShape;
  /// The multicast the op states; it must be the one the destination's
  /// tensor-memory replica stands for.
  std::optional<Multicast> statedMulticast;
  SourceFormat sourceFormat = SourceFormat::None;
};

/// One tcgen05.cp: the descriptor's start is `sharedByte` past the shared
/// buffer's base, the tensor-memory address is the buffer's plus
/// `(lane << 16) | column` (32-bit columns).
struct Instruction {
  int64_t lane = 0;
  int64_t column = 0;
  int64_t sharedByte = 0;

  /// `(lane << 16) | column`.
  uint32_t tmemOffset() const {
    return static_cast<uint32_t>((lane << 16) | column);
  }
  bool operator==(const Instruction &o) const {
    return lane == o.lane && column == o.column && sharedByte == o.sharedByte;
  }
};

struct Plan {
  Form form;
  unsigned ctaGroup = 1;
  SourceFormat sourceFormat = SourceFormat::None;
  /// LBO, SBO and swizzle; the start address (0 here) is patched per
  /// instruction with the buffer's address plus `sharedByte`.
  cuda::SmemDescriptor descriptor;
  /// Whether LBO is read at all (256-bit rows without swizzle); otherwise
  /// it holds 16 bytes, the value CUTLASS also stores for an unused LBO.
  bool usesLeadingByteOffset = false;
  std::vector<Instruction> instructions;
  /// Every (form, reason) the planner tried before this one.
  std::vector<std::string> rejectedForms;

  /// The descriptor constant without the start address.
  uint64_t descriptorTemplate() const { return *descriptor.encode(); }
};

/// Plans the copy. Steps (first worked out for the 32x128b.warpx4 broadcast
/// of a 32x16 u8 tile, generalized to every form):
/// slice both layouts to the region; match the tensor-memory replica to a
/// multicast; split the two layouts into common modes (in bytes); take the
/// modes that make one row of the form (rowBytes contiguous column bytes,
/// 16-byte shared chunks) and its rows (the form's lane pattern); read LBO,
/// SBO and the swizzle off the shared side of those modes; every remaining
/// mode repeats the instruction. Declines, naming the rule, on a region the
/// layouts cannot slice, a replica no form has, a swizzle that is not an
/// NVMMA one, rows that do not follow the descriptor's walk, a swizzled
/// instruction starting mid-atom or running past its swizzle row, LBO/SBO
/// not multiples of 16, a tensor-memory column not 128-bit aligned, a
/// footprint beyond 128 lanes or 512 columns, or a forced shape that does
/// not fit. When several forms are possible the first (widest) that plans
/// wins; a failure lists every form's reason.
OrReason<Plan> planSharedToTmemCopy(const Request &request);

/// Limits.
constexpr int64_t kTmemLanes = 128;
constexpr int64_t kTmemColumns = 512;
constexpr size_t kMaxInstructions = 4096;

} // namespace tile::tcgen05_cp

#endif // TILE_VARIANTS_CUDA_COPYASYNC_TCGEN05CPPLANNER_H

//===- HardwareLimits.h - sizes and limits of the CUDA target ----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Fixed sizes the lowering and the runtime share, each with its source.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_HARDWARELIMITS_H
#define TILE_TARGET_CUDA_HARDWARELIMITS_H

#include <cstdint>

namespace tile::cuda {

/// Bytes and alignment of a CUtensorMap: cuda.h (CUDA 13) declares it as
/// 16 x cuuint64_t with alignas(128); a by-value kernel parameter holding
/// one has the same size and alignment.
constexpr unsigned kTensorMapBytes = 128;

/// Static shared memory a kernel may declare (CUDA C Programming Guide,
/// "Shared Memory": 48 KB static; more must be dynamic and opted into).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

/// The alignment the driver gives the dynamic shared-memory segment. CUDA
/// documents no more than 16 bytes, and the `.align` of an `.extern
/// .shared` declaration is not honoured at launch (CCCL found it ignored
/// on Hopper, NVIDIA/cccl#5122), so a kernel needing more rounds the base
/// up at run time.
constexpr int64_t kDynamicSharedBaseAlignment = 16;

/// Bytes of one mbarrier object (PTX ISA, "Size and alignment of mbarrier
/// object": 8 bytes, 8-byte aligned).
constexpr int64_t kMbarrierBytes = 8;

} // namespace tile::cuda

#endif // TILE_TARGET_CUDA_HARDWARELIMITS_H

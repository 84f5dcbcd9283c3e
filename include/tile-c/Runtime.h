/*===- tile-c/Runtime.h - load and launch compiled tile kernels ----*- C -*-===*\
|*                                                                            *|
|* Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.     *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* TileRuntime through C: the driver API only (libcuda is opened at run
 * time), no MLIR. Errors come back as malloc'd text: free with
 * tileRuntimeFreeString. */

#ifndef TILE_C_RUNTIME_H
#define TILE_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TileRuntimeModule *TileRuntimeModuleRef;

typedef enum TileKernelArgKind {
  TileKernelArgMemRef = 0,
  TileKernelArgI32 = 1,
  TileKernelArgI64 = 2,
  TileKernelArgF32 = 3,
  TileKernelArgF64 = 4,
} TileKernelArgKind;

/// One source-level kernel argument: a memref over device memory (sizes
/// and strides in elements; strides NULL for row-major) or a scalar.
typedef struct TileKernelArg {
  int32_t kind; /* TileKernelArgKind */
  int32_t rank;
  uint64_t address;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
  int64_t i64;
  double f64;
} TileKernelArg;

/// Loads `image` (PTX text or a cubin) with its manifest (JSON text) into
/// the thread's current CUDA context (device 0's primary context, made
/// current, when there is none). NULL and `*error` on failure.
TileRuntimeModuleRef tileRuntimeModuleLoad(const void *image, size_t size,
                                           const char *manifest,
                                           size_t manifestSize, char **error);
void tileRuntimeModuleDestroy(TileRuntimeModuleRef module);

/// Checks every argument against the manifest, encodes the tensor maps and
/// launches `kernel` on `stream` (a CUstream; NULL: the default stream):
/// the kernel itself, or the first of its versions (the manifest's
/// `version_of`) that can read these tensors (TILE_RUNTIME_DEBUG=1 prints
/// the choice to stderr).
/// Returns 0, or non-zero with `*error` listing every problem (nothing is
/// launched then).
int tileRuntimeLaunch(TileRuntimeModuleRef module, const char *kernel,
                      const unsigned grid[3], void *stream,
                      const TileKernelArg *args, intptr_t count, char **error);

/// How many clusters of `kernel` (CTAs, for a kernel without a cluster)
/// the current device holds at once with the kernel's block and dynamic
/// shared memory (cuOccupancyMaxActiveClusters): the grid a persistent
/// kernel should not exceed. Returns 0 and sets `*count`, or non-zero with
/// `*error`.
int tileRuntimeMaxActiveClusters(TileRuntimeModuleRef module,
                                 const char *kernel, int *count,
                                 char **error);

void tileRuntimeFreeString(char *text);

#ifdef __cplusplus
}
#endif

#endif // TILE_C_RUNTIME_H

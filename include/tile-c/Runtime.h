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

/// tileRuntimeLaunch with the `count` arguments packed into one array of
/// `words` 64-bit words (what a binding builds with one allocation): per
/// argument its TileKernelArgKind, then for a memref its rank, address,
/// offset, `rank` sizes and `rank` strides (in elements), for an integer
/// its value, for a float the bits of its double. A count that does not
/// match the words is an error, not a read past them.
int tileRuntimeLaunchPacked(TileRuntimeModuleRef module, const char *kernel,
                            const unsigned grid[3], void *stream,
                            const int64_t *packed, intptr_t words,
                            intptr_t count, char **error);

/// How many clusters of `kernel` (CTAs, for a kernel without a cluster)
/// the current device holds at once with the kernel's block and dynamic
/// shared memory (cuOccupancyMaxActiveClusters): the grid a persistent
/// kernel should not exceed. Returns 0 and sets `*count`, or non-zero with
/// `*error`.
int tileRuntimeMaxActiveClusters(TileRuntimeModuleRef module,
                                 const char *kernel, int *count,
                                 char **error);

void tileRuntimeFreeString(char *text);

/*===--------------------------------------------------------------------===*
 * GEMMs with the kernel chosen per call (docs/Gemm.md): C = A W^T.
 *===--------------------------------------------------------------------===*/

/// A row-major matrix in device memory: rows x cols elements, rows
/// `row_stride` elements apart (unit inner stride).
typedef struct TileGemmMatrix {
  uint64_t address;
  int64_t rows;
  int64_t cols;
  int64_t row_stride;
} TileGemmMatrix;

/// A choice: the kernel's name, its K parts (0 when the kernel takes
/// none) and why. Free the strings with tileGemmChoiceFree.
typedef struct TileGemmChoice {
  char *kernel;
  int64_t parts;
  char *why;
} TileGemmChoice;

void tileGemmChoiceFree(TileGemmChoice *choice);

typedef struct TileGemm *TileGemmRef;

/// The GEMM family of `kernels_dir` (gemm.sm_90a.*, gemm_splitk.sm_90a.*
/// and their .cases.json, as the build writes build/device/kernels),
/// loaded into the current context (device 0's primary context when there
/// is none). NULL and `*error` on failure.
TileGemmRef tileGemmOpen(const char *kernels_dir, char **error);
void tileGemmDestroy(TileGemmRef gemm);

/// What tileGemmLinear runs for `dtype` ("bf16", "f16", "f8E4M3FN")
/// M x N x K on this GPU. Returns 0, or non-zero with `*error`.
int tileGemmChoose(TileGemmRef gemm, const char *dtype, int64_t m, int64_t n,
                   int64_t k, TileGemmChoice *choice, char **error);

/// C [M, N] = A [M, K] W [N, K]^T on `stream` (a CUstream; NULL: the
/// default stream). A and W of `dtype`, C of its output type (bf16 for
/// f8E4M3FN, else `dtype`). Operands TMA cannot address are copied to
/// aligned buffers first (stream-ordered allocations). `why`, when not
/// NULL, receives the choice (free with tileRuntimeFreeString). Returns 0,
/// or non-zero with `*error` (nothing is launched for a bad argument).
int tileGemmLinear(TileGemmRef gemm, const char *dtype, TileGemmMatrix a,
                   TileGemmMatrix w, TileGemmMatrix c, void *stream,
                   char **why, char **error);

/// The heuristic alone, without CUDA, for hosts that launch themselves
/// (tile_mlir.gemm): the two case lists' JSON text.
typedef struct TileGemmChooser *TileGemmChooserRef;
TileGemmChooserRef tileGemmChooserCreate(const char *family_cases,
                                         const char *splitk_cases,
                                         char **error);
void tileGemmChooserDestroy(TileGemmChooserRef chooser);

/// How many clusters of the cluster split-K kernel `kernel` the GPU holds
/// at once (0: none).
typedef int (*TileGemmClustersHeldFn)(const char *kernel, void *user);

/// The choice for `dtype` M x N x K on `sms` SMs; `allow_swap_ab` 0 never
/// chooses swap-AB. Returns 0, or non-zero with `*error`.
int tileGemmChooserChoose(TileGemmChooserRef chooser, const char *dtype,
                          int64_t m, int64_t n, int64_t k, int sms,
                          int allow_swap_ab, TileGemmClustersHeldFn held,
                          void *user, TileGemmChoice *choice, char **error);

#ifdef __cplusplus
}
#endif

#endif // TILE_C_RUNTIME_H

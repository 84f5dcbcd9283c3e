/*===- tile-c/Compile.h - compile tile kernels in process ----------*- C -*-===*\
|*                                                                            *|
|* Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.     *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILE_C_COMPILE_H
#define TILE_C_COMPILE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Zero-initialize it (`TileCompileOptions options = {0};`) and set what
/// you need: fields are added at the end (defaultLLVMPipeline was), and a
/// program built against an older header must be rebuilt.
typedef struct TileCompileOptions {
  /// Target chip ("sm_90a", "sm_100a"); NULL or "" keeps the module's.
  const char *chip;
  /// A remark per tile op: the chosen variant and why the others lost.
  bool explain;
  /// Translation validation of the lowering.
  bool check;
  /// Also assemble a cubin with ptxas.
  bool cubin;
  /// Optimise with LLVM's default<On> pipeline even for a module of
  /// kernels alone (false: the short kernel pipeline, see
  /// tile::LLVMPipeline).
  bool defaultLLVMPipeline;
  /// Keep the remarks the checks make (the kernel checks' "not proven"
  /// notes); `explain` adds dispatch's. Without either, only errors and
  /// warnings are kept.
  bool remarks;
  /// Runtime checks of the barrier protocol (tile-compile --sanitize):
  /// mbarrier waits time out, barrier and stage indices are checked; the
  /// runtime reports a failing check as a launch error.
  bool sanitize;
  /// With `sanitize`: milliseconds an mbarrier wait may take (0: 1000).
  unsigned sanitizeTimeoutMs;
} TileCompileOptions;

/// The outcome of one compilation; owns its strings.
typedef struct TileCompileResult *TileCompileResultRef;

/// Parses `source` (one gpu.module of tile IR) and compiles it, in a
/// process-wide context (thread-safe; compilations are serialized).
MLIR_CAPI_EXPORTED TileCompileResultRef
tileCompileSource(MlirStringRef source, TileCompileOptions options);

/// Compiles `module` in place, in its own context (which must have the
/// dialects of tileRegisterAllDialects).
MLIR_CAPI_EXPORTED TileCompileResultRef
tileCompileModule(MlirModule module, TileCompileOptions options);

MLIR_CAPI_EXPORTED bool tileCompileResultSucceeded(TileCompileResultRef result);
MLIR_CAPI_EXPORTED MlirStringRef tileCompileResultGetChip(TileCompileResultRef result);
MLIR_CAPI_EXPORTED MlirStringRef tileCompileResultGetPtx(TileCompileResultRef result);
/// The launch manifest (JSON).
MLIR_CAPI_EXPORTED MlirStringRef tileCompileResultGetManifest(TileCompileResultRef result);
/// The diagnostics, one per line with its location: errors, warnings and
/// their notes, and remarks when `explain` or `remarks` asked for them.
MLIR_CAPI_EXPORTED MlirStringRef tileCompileResultGetDiagnostics(TileCompileResultRef result);
/// The cubin bytes (empty unless asked for).
MLIR_CAPI_EXPORTED MlirStringRef tileCompileResultGetCubin(TileCompileResultRef result);
/// Milliseconds: [0] parse, [1] selection (kernel checks, variant
/// selection, target check), [2] tile lowering (shared-memory placement,
/// lowering of the tile ops), [3] upstream lowering to NVVM + LLVM,
/// [4] NVPTX codegen, [5] ptxas.
MLIR_CAPI_EXPORTED void tileCompileResultGetTimings(TileCompileResultRef result,
                                                    double timings[6]);
MLIR_CAPI_EXPORTED void tileCompileResultDestroy(TileCompileResultRef result);

#ifdef __cplusplus
}
#endif

#endif // TILE_C_COMPILE_H

/*===- tile-c/Dialect.h - the tile dialect's C API -----------------*- C -*-===*\
|*                                                                            *|
|* Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.     *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILE_C_DIALECT_H
#define TILE_C_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);

/// Inserts every dialect a tile kernel module and its lowering use (tile,
/// gpu, nvvm, nvgpu, llvm, scf, arith, memref, ...) and their LLVM IR
/// translations into `registry`.
MLIR_CAPI_EXPORTED void tileRegisterAllDialects(MlirDialectRegistry registry);

/// Registers the tile passes and the `--tile-to-nvvm` pipeline with MLIR's
/// pass registry (for mlirParsePassPipeline), once.
MLIR_CAPI_EXPORTED void tileRegisterPasses(void);

/// Registers the built-in variants (tma, dsmem, tcgen05_cp, tcgen05) with
/// the dispatch registry, once. The compile entry points do it themselves.
MLIR_CAPI_EXPORTED void tileRegisterBuiltinVariants(void);

/// The memory scope of a `!tile.buffer` (values of `tile::MemoryScope`).
typedef enum TileMemoryScope {
  TileMemoryScopeGlobal = 0,
  TileMemoryScopeShared = 1,
  TileMemoryScopeTmem = 2,
  TileMemoryScopeLocal = 3,
} TileMemoryScope;

/// `#tile.layout<...>`: parsed from its body (`S[(8,64):(64,1)],
/// swizzle<3,3,3>`); a null attribute (with a diagnostic) if it is not one.
MLIR_CAPI_EXPORTED MlirAttribute tileLayoutAttrParse(MlirContext context,
                                                     MlirStringRef body);
MLIR_CAPI_EXPORTED bool tileAttributeIsALayout(MlirAttribute attr);
/// Elements the layout maps (the product of its shape).
MLIR_CAPI_EXPORTED int64_t tileLayoutAttrGetSize(MlirAttribute layout);
/// One past the largest memory-axis offset it reaches.
MLIR_CAPI_EXPORTED int64_t tileLayoutAttrGetCosize(MlirAttribute layout);

/// `!tile.buffer<shape x element, scope[, layout]>`; `layout` may be null.
/// Returns a null type (with a diagnostic) when the verifier refuses it.
MLIR_CAPI_EXPORTED MlirType tileBufferTypeGet(MlirContext context,
                                              intptr_t rank,
                                              const int64_t *shape,
                                              MlirType elementType,
                                              TileMemoryScope scope,
                                              MlirAttribute layout);
MLIR_CAPI_EXPORTED bool tileTypeIsABuffer(MlirType type);
MLIR_CAPI_EXPORTED TileMemoryScope tileBufferTypeGetScope(MlirType buffer);
/// The layout, or a null attribute when the buffer has none.
MLIR_CAPI_EXPORTED MlirAttribute tileBufferTypeGetLayout(MlirType buffer);

#ifdef __cplusplus
}
#endif

#endif // TILE_C_DIALECT_H

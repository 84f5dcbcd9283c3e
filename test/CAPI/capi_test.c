/* The tile C API from C alone: dialect registration, the layout and buffer
 * constructors and accessors, and compiling modules (source text and an
 * MlirModule) to PTX + manifest, with the diagnostics of a bad one. Every
 * check prints what it saw; the exit status is the number of failures. */

#include "tile-c/Compile.h"
#include "tile-c/Dialect.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, what)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAILED: %s (%s:%d)\n", what, __FILE__, __LINE__);     \
      ++failures;                                                              \
    } else {                                                                   \
      printf("ok: %s\n", what);                                                \
    }                                                                          \
  } while (0)

static int contains(MlirStringRef text, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= text.length; ++i)
    if (memcmp(text.data + i, needle, n) == 0)
      return 1;
  return 0;
}

static const char *kTmaCopy =
    "!tile_t = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>\n"
    "!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>\n"
    "gpu.module @kernels [#nvvm.target<chip = \"sm_90a\">] {\n"
    "  gpu.func @copy(%in: memref<8x256xf16, 1>, %out: memref<8x256xf16, 1>) kernel {\n"
    "    %c0 = arith.constant 0 : index\n"
    "    %c1 = arith.constant 1 : index\n"
    "    %bytes = arith.constant 4096 : index\n"
    "    %ticks = arith.constant 1000000 : index\n"
    "    %false = arith.constant false\n"
    "    %g_in = tile.from_memref %in : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>\n"
    "    %g_out = tile.from_memref %out : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>\n"
    "    %tile = tile.alloc_shared : !tile_t\n"
    "    %bar = nvgpu.mbarrier.create -> !bar\n"
    "    nvgpu.mbarrier.init %bar[%c0], %c1 : !bar\n"
    "    nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bar\n"
    "    tile.copy_async %g_in[0, 0] to %tile[0, 0] sizes [8, 256] exec thread\n"
    "        mbar(%bar[%c0] : !bar) : !tile.buffer<8x256xf16, global> to !tile_t\n"
    "    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar\n"
    "    tile.copy_async %tile[0, 0] to %g_out[0, 0] sizes [8, 256] exec thread\n"
    "        : !tile_t to !tile.buffer<8x256xf16, global>\n"
    "    tile.commit_group bulk\n"
    "    tile.wait_group bulk, 0 {read}\n"
    "    gpu.return\n"
    "  }\n"
    "}\n";

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tileRegisterAllDialects(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__tile__(), registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirDialect tile = mlirContextGetOrLoadDialect(
      ctx, mlirDialectHandleGetNamespace(mlirGetDialectHandle__tile__()));
  CHECK(!mlirDialectIsNull(tile), "the tile dialect loads from its handle");

  /* #tile.layout and !tile.buffer. */
  MlirAttribute layout = tileLayoutAttrParse(
      ctx, mlirStringRefCreateFromCString("S[(8,4,64):(64,512,1)], swizzle<3,3,3>"));
  CHECK(!mlirAttributeIsNull(layout) && tileAttributeIsALayout(layout),
        "a swizzled 8x256 layout parses");
  CHECK(tileLayoutAttrGetSize(layout) == 2048, "its size is 2048 elements");
  CHECK(tileLayoutAttrGetCosize(layout) == 2048, "its cosize is 2048");
  int64_t shape[2] = {8, 256};
  MlirType f16 = mlirF16TypeGet(ctx);
  MlirType buffer =
      tileBufferTypeGet(ctx, 2, shape, f16, TileMemoryScopeShared, layout);
  CHECK(!mlirTypeIsNull(buffer) && tileTypeIsABuffer(buffer),
        "an 8x256 f16 shared buffer with that layout");
  CHECK(tileBufferTypeGetScope(buffer) == TileMemoryScopeShared,
        "its scope reads back as shared");
  CHECK(mlirAttributeEqual(tileBufferTypeGetLayout(buffer), layout),
        "its layout reads back");
  MlirAttribute noLayout = {NULL};
  CHECK(!mlirTypeIsNull(tileBufferTypeGet(ctx, 2, shape, f16,
                                          TileMemoryScopeShared, noLayout)),
        "a buffer without a layout");
  int64_t wrongShape[2] = {8, 128};
  CHECK(mlirTypeIsNull(tileBufferTypeGet(ctx, 2, wrongShape, f16,
                                         TileMemoryScopeShared, layout)),
        "a layout that does not match the shape is refused (null type)");
  CHECK(mlirTypeIsNull(tileBufferTypeGet(ctx, 2, shape, f16,
                                         (TileMemoryScope)7, layout)),
        "an unknown scope is refused");

  /* Compile from source text. */
  TileCompileOptions options = {"sm_90a", false, false, false, false};
  TileCompileResultRef result =
      tileCompileSource(mlirStringRefCreateFromCString(kTmaCopy), options);
  CHECK(tileCompileResultSucceeded(result), "the TMA copy compiles");
  CHECK(contains(tileCompileResultGetPtx(result), ".target sm_90a"),
        "PTX for sm_90a");
  CHECK(contains(tileCompileResultGetPtx(result),
                 "cp.async.bulk.tensor.3d.shared::cluster.global"),
        "the load is one 3-D tensor copy");
  CHECK(contains(tileCompileResultGetManifest(result), "\"name\": \"copy\""),
        "the manifest names the kernel");
  CHECK(contains(tileCompileResultGetManifest(result), "\"tensor_maps\""),
        "the manifest has its tensor maps");
  double times[6];
  tileCompileResultGetTimings(result, times);
  CHECK(times[0] > 0 && times[1] > 0 && times[2] > 0 && times[3] > 0 &&
            times[4] > 0 && times[5] == 0,
        "parse, selection, tile and upstream lowering, codegen are timed "
        "(no ptxas asked for)");
  tileCompileResultDestroy(result);

  /* LLVM's default<O2> pipeline instead of the kernel pipeline. */
  TileCompileOptions withDefaultPipeline = options;
  withDefaultPipeline.defaultLLVMPipeline = true;
  result = tileCompileSource(mlirStringRefCreateFromCString(kTmaCopy),
                             withDefaultPipeline);
  CHECK(tileCompileResultSucceeded(result) &&
            contains(tileCompileResultGetPtx(result),
                     "cp.async.bulk.tensor.3d.shared::cluster.global"),
        "the TMA copy compiles with LLVM's default pipeline too");
  tileCompileResultDestroy(result);

  /* Dispatch's remarks with explain (python/tests checks the remarks of
     the kernel checks, kept only with `remarks`, through this API). */
  TileCompileOptions explained = options;
  explained.explain = true;
  result = tileCompileSource(mlirStringRefCreateFromCString(kTmaCopy), explained);
  CHECK(contains(tileCompileResultGetDiagnostics(result), "remark: selected tma"),
        "explain keeps dispatch's remarks");
  tileCompileResultDestroy(result);

  /* A bad module: its diagnostics, no PTX. */
  result = tileCompileSource(
      mlirStringRefCreateFromCString(
          "gpu.module @k [#nvvm.target<chip = \"sm_90a\">] {\n"
          "  gpu.func @f() kernel {\n"
          "    %t = tile.tmem_alloc 96 columns\n"
          "    gpu.return\n"
          "  }\n"
          "}\n"),
      options);
  CHECK(!tileCompileResultSucceeded(result), "a bad column count fails");
  CHECK(contains(tileCompileResultGetDiagnostics(result),
                 "<source>:3:10: error: 'tile.tmem_alloc' op allocates 96 "
                 "tensor-memory columns; tcgen05.alloc takes a power of two "
                 "from 32 to 512"),
        "the diagnostic has the location and the rule");
  CHECK(tileCompileResultGetPtx(result).length == 0, "and no PTX");
  tileCompileResultDestroy(result);

  /* Compile an MlirModule of the caller's context. */
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kTmaCopy));
  CHECK(!mlirModuleIsNull(module), "the caller parses the module");
  options.chip = "sm_100a";
  result = tileCompileModule(module, options);
  CHECK(tileCompileResultSucceeded(result), "it compiles in that context");
  CHECK(contains(tileCompileResultGetChip(result), "sm_100a") &&
            contains(tileCompileResultGetPtx(result), ".target sm_100a"),
        "for the chip asked for");
  tileCompileResultDestroy(result);
  mlirModuleDestroy(module);

  mlirContextDestroy(ctx);
  printf("%d failures\n", failures);
  return failures;
}

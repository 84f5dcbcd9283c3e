/*===- gemm_chooser_test.c - the GEMM chooser through the C API ------------===*\
|*                                                                            *|
|* Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.     *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* A C host choosing GEMM kernels from the family's case lists as the build
 * writes them (TILE_GEMM_CASES_DIR): no GPU, no C++; the clusters a GPU
 * holds come from a callback. */

#include "tile-c/Runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, what)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAILED: %s\n", what);                                   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static char *readAll(const char *name) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", TILE_GEMM_CASES_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (fread(text, 1, (size_t)size, f) != (size_t)size)
    exit(1);
  text[size] = 0;
  fclose(f);
  return text;
}

/* An H200's counts: 66 pairs, 30 clusters of 4, 15 of 8. */
static int held(const char *kernel, void *calls) {
  ++*(int *)calls;
  const char *size = strstr(kernel, "clusterk");
  if (!size)
    return 0;
  switch (atoi(size + 8)) {
  case 2:
    return 66;
  case 4:
    return 30;
  default:
    return 15;
  }
}

static TileGemmChoice choose(TileGemmChooserRef chooser, const char *dtype,
                             int64_t m, int64_t n, int64_t k, int *calls) {
  TileGemmChoice choice = {0};
  char *error = NULL;
  if (tileGemmChooserChoose(chooser, dtype, m, n, k, 132, 1, held, calls,
                            &choice, &error)) {
    fprintf(stderr, "FAILED: %s %lldx%lldx%lld: %s\n", dtype, (long long)m,
            (long long)n, (long long)k, error);
    tileRuntimeFreeString(error);
    ++failures;
  }
  return choice;
}

int main(void) {
  char *family = readAll("gemm.cases.json");
  char *splitK = readAll("gemm_splitk.cases.json");
  char *error = NULL;
  TileGemmChooserRef chooser = tileGemmChooserCreate(family, splitK, &error);
  if (!chooser) {
    fprintf(stderr, "FAILED: tileGemmChooserCreate: %s\n", error);
    return 1;
  }
  int calls = 0;

  /* Large: the family's 128 x 256 tiles, no K parts. */
  TileGemmChoice c = choose(chooser, "bf16", 8192, 8192, 8192, &calls);
  CHECK(c.kernel && strstr(c.kernel, "_128x256x") && c.parts == 0,
        "bf16 8192^3 runs 128 x 256 tiles unsplit");
  CHECK(c.why && strstr(c.why, "wave(s)"), "the choice says why");
  tileGemmChoiceFree(&c);

  /* M = 16 with N a wave of tiles: swap-AB 16-row tiles summed in pairs. */
  c = choose(chooser, "bf16", 16, 28672, 4096, &calls);
  CHECK(c.kernel && strstr(c.kernel, "swapab_16x128") &&
            strstr(c.kernel, "clusterk2"),
        "bf16 16 x 28672 x 4096 runs swap-AB 16 x 128 tiles in pairs");
  CHECK(calls > 0, "the held-clusters callback was asked");
  tileGemmChoiceFree(&c);

  /* e4m3 M = 1 with N = 4096: 128-column tiles would fill a quarter of
     the SMs: 64-column swap-AB tiles in pairs. */
  c = choose(chooser, "f8E4M3FN", 1, 4096, 4096, &calls);
  CHECK(c.kernel && strstr(c.kernel, "swapab_16x64x128") &&
            strstr(c.kernel, "clusterk2"),
        "e4m3 1 x 4096 x 4096 runs swap-AB 16 x 64 tiles in pairs");
  tileGemmChoiceFree(&c);

  /* e4m3, few tiles, long K, M = 128: swap-AB in 64-row tiles, split-K
     with a workspace (8 parts). */
  c = choose(chooser, "f8E4M3FN", 128, 1024, 8192, &calls);
  CHECK(c.kernel && strstr(c.kernel, "e4m3_tn_swapab_64x128") &&
            strstr(c.kernel, "splitk") && c.parts == 8,
        "e4m3 128 x 1024 x 8192 runs swap-AB 64 x 128 tiles in 8 parts");
  tileGemmChoiceFree(&c);

  /* Above 256 rows: the 128 x 128 split-K tiles (5 parts of 13 K tiles). */
  c = choose(chooser, "bf16", 320, 1024, 4096, &calls);
  CHECK(c.kernel && strstr(c.kernel, "bf16_tn_128x128x64") &&
            strstr(c.kernel, "splitk") && c.parts == 5,
        "bf16 320 x 1024 x 4096 runs split-K in 5 parts");
  tileGemmChoiceFree(&c);

  /* Refusals come back as text. */
  TileGemmChoice none = {0};
  CHECK(tileGemmChooserChoose(chooser, "f32", 64, 64, 64, 132, 1, held, &calls,
                              &none, &error) != 0 &&
            error && strstr(error, "no kernel takes 'f32'"),
        "an unknown type is refused by name");
  tileRuntimeFreeString(error);
  error = NULL;
  CHECK(tileGemmChooserCreate("{", splitK, &error) == NULL && error &&
            strstr(error, "gemm.cases.json"),
        "a malformed case list is refused by name");
  tileRuntimeFreeString(error);
  error = NULL;
  CHECK(tileGemmChooserChoose(chooser, NULL, 64, 64, 64, 132, 1, held, &calls,
                              &none, &error) != 0 &&
            error && strstr(error, "the type is NULL"),
        "a NULL type is refused");
  tileRuntimeFreeString(error);

  tileGemmChooserDestroy(chooser);
  free(family);
  free(splitK);
  if (failures)
    return 1;
  printf("gemm chooser C API: ok\n");
  return 0;
}

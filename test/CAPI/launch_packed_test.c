/*===- launch_packed_test.c - packed launch arguments, refused when bad ---===*\
|*                                                                            *|
|* Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.     *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* tileRuntimeLaunchPacked reads its words before it touches the module:
 * every malformed array is refused with a message, none is read past its
 * end (no GPU needed; well-formed launches run in the device suite and
 * through Python). */

#include "tile-c/Runtime.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

/* Refused with a message containing `expect`. */
static void refused(const int64_t *words, intptr_t count, intptr_t args,
                    const char *expect, const char *what) {
  /* Never dereferenced: the words are refused first. */
  TileRuntimeModuleRef module = (TileRuntimeModuleRef)&failures;
  unsigned grid[3] = {1, 1, 1};
  char *error = NULL;
  int rc = tileRuntimeLaunchPacked(module, "k", grid, NULL, words, count, args,
                                   &error);
  if (rc == 0 || !error || !strstr(error, expect)) {
    fprintf(stderr, "FAILED: %s (rc %d, error %s)\n", what, rc,
            error ? error : "(none)");
    ++failures;
  }
  tileRuntimeFreeString(error);
}

int main(void) {
  /* A rank-2 memref: kind, rank, address, offset, 2 sizes, 2 strides. */
  int64_t memref[8] = {0, 2, 4096, 0, 8, 256, 256, 1};
  refused(memref, 7, 1, "runs past the 7 packed words",
          "a memref one stride short");
  refused(memref, 8, 3, "argument 1 runs past",
          "three arguments in the words of one");
  refused(memref, 8, (intptr_t)1 << 58, "cannot fit in 8 packed words",
          "a count far beyond the words (refused before any allocation)");
  refused(memref, 8, 5, "5 arguments cannot fit in 8 packed words",
          "more arguments than pairs of words");
  int64_t extra[9] = {0, 2, 4096, 0, 8, 256, 256, 1, 5};
  refused(extra, 9, 1, "1 arguments use 8 of the 9 packed words",
          "a word left over");
  int64_t rank[4] = {0, 65, 4096, 0};
  refused(rank, 4, 1, "its rank is not in [0, 64]", "a rank above 64");
  int64_t negative[4] = {0, -1, 4096, 0};
  refused(negative, 4, 1, "its rank is not in [0, 64]", "a negative rank");
  int64_t kind[2] = {9, 1};
  refused(kind, 2, 1, "unknown kind 9", "an unknown kind");
  int64_t scalar[3] = {0, 1, 1};
  refused(scalar + 2, 1, 1, "1 arguments cannot fit in 1 packed words",
          "an i32 without its value");
  refused(scalar, 3, 1, "argument 0 runs past the 3 packed words",
          "a rank-1 memref missing its size and stride");
  refused(NULL, 2, 1, "NULL", "no words");
  refused(scalar, 1, -1, "negative count", "a negative argument count");
  if (failures)
    return 1;
  printf("packed launch arguments: ok\n");
  return 0;
}

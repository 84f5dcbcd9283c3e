//===- RefusalOf.h - the reason of an expected failure ----------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_REFUSALOF_H
#define TILE_UNITTESTS_REFUSALOF_H

#include "tile/Support/OrReason.h"

#include "gtest/gtest.h"

namespace tile::testing {

/// The reason `result` gives; a result that succeeded fails the test.
template <typename T> std::string refusalOf(const OrReason<T> &result) {
  EXPECT_FALSE(result);
  return result.reason();
}

} // namespace tile::testing

#endif // TILE_UNITTESTS_REFUSALOF_H

//===- EnumTable.h - facts about a contiguous enum, by value ----*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Names and properties of an enum whose enumerators are 0, 1, 2, ... kept
// as one table indexed by value, instead of one switch per property. Each
// table is checked to have one row per enumerator:
//
//   constexpr Row kRows[] = {{"f16", 16}, {"bf16", 16}, ...};
//   static_assert(hasRowPerEnumerator(kRows, MmaElement::S8));
//   rowOf(kRows, element)->name   // null for a value outside the enum
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_ENUMTABLE_H
#define TILE_SUPPORT_ENUMTABLE_H

#include <cstddef>

namespace tile {

/// True when `table` has a row for each enumerator up to `last`.
template <typename Row, std::size_t N, typename E>
constexpr bool hasRowPerEnumerator(const Row (&)[N], E last) {
  return N == std::size_t(last) + 1;
}

/// The row of `value`, or null when `value` is outside the enum (a value
/// read from a file or cast from an integer).
template <typename Row, std::size_t N, typename E>
constexpr const Row *rowOf(const Row (&table)[N], E value) {
  return std::size_t(value) < N ? &table[std::size_t(value)] : nullptr;
}

} // namespace tile

#endif // TILE_SUPPORT_ENUMTABLE_H

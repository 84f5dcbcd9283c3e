//===- OrReason.h - a result or the reason there is none --------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The error convention of the MLIR-free core (layout algebra, target
// encoders, PTX-semantics model, planners): an operation that can fail
// returns its value or a sentence saying why, never asserts and never
// writes through an out-parameter. The reasons reach users verbatim as
// dispatch diagnostics, so they name the rule that was broken.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_ORREASON_H
#define TILE_SUPPORT_ORREASON_H

#include <optional>
#include <string>
#include <utility>

namespace tile {

/// A value, or the reason it could not be produced.
template <typename T> class OrReason {
public:
  OrReason(T value) : value(std::move(value)) {}
  static OrReason failure(std::string reason) {
    OrReason r;
    r.why = std::move(reason);
    return r;
  }
  bool ok() const { return value.has_value(); }
  explicit operator bool() const { return ok(); }
  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }
  /// Why there is no value ("" when there is one).
  const std::string &reason() const { return why; }

private:
  OrReason() = default;
  std::optional<T> value;
  std::string why;
};

/// Success, or the reason of a failure: the reason-only result.
template <> class OrReason<void> {
public:
  static OrReason success() { return OrReason(); }
  static OrReason failure(std::string reason) {
    OrReason r;
    r.failed = true;
    r.why = std::move(reason);
    return r;
  }
  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  const std::string &reason() const { return why; }

private:
  OrReason() = default;
  bool failed = false;
  std::string why;
};
using Status = OrReason<void>;

/// Reasons gathered one by one and reported together, "first; second".
class Reasons {
public:
  void add(const std::string &reason) {
    text += (text.empty() ? "" : "; ") + reason;
  }
  bool empty() const { return text.empty(); }
  const std::string &str() const { return text; }

private:
  std::string text;
};

} // namespace tile

#endif // TILE_SUPPORT_ORREASON_H

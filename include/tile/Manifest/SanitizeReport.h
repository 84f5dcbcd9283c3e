//===- SanitizeReport.h - what a sanitized kernel reports ---------*- C++ -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The contract between a kernel compiled with `--sanitize`
// (`--tile-sanitize`) and the host runtime that launches it. The kernel
// holds a global pointer, `kSanitizeReportSymbol`, that the runtime sets to
// a buffer of host memory mapped into the device. When a check fails, the
// first failing thread of the grid writes one report there, makes it
// visible to the host and traps; the others park. A trap ends the launch
// (and poisons the context), so the report lives in host memory: it is
// readable after the trap. The manifest lists each kernel's checks; a
// report names its check by index.
//
// No MLIR and no driver: the pass and the runtime both read this.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_MANIFEST_SANITIZEREPORT_H
#define TILE_MANIFEST_SANITIZEREPORT_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

namespace tile::sanitize {

/// The kernel's global holding the report buffer's device address (0: no
/// buffer; a failing check then only traps).
constexpr llvm::StringLiteral kSanitizeReportSymbol = "__tile_sanitize_report";
/// The kernel's global the first failing thread claims (0 -> 1), so that
/// one report is written whole.
constexpr llvm::StringLiteral kSanitizeClaimSymbol = "__tile_sanitize_claim";
/// The kernel attribute listing the checks (array of dictionaries with
/// `kind`, `loc`, `what`), which the manifest carries.
constexpr llvm::StringLiteral kSanitizeChecksAttr = "tile.sanitize_checks";

/// What a check tests.
enum class CheckKind : uint32_t {
  /// An mbarrier wait did not see its phase complete within the timeout.
  WaitTimeout = 1,
  /// An mbarrier index outside its group.
  BarrierIndex = 2,
  /// A region of a shared buffer outside the buffer (a ring stage index
  /// out of range).
  SharedRegion = 3,
  /// An mbarrier phase completed while the bytes its arrivals expected
  /// (`arrive.expect_tx`) and the bytes of the copies completing on it
  /// differed (counted per barrier since its init).
  TxBalance = 4,
  /// An arrival that counts toward a phase the barrier is not in: more
  /// arrivals per phase than the barrier's init count.
  ArrivalCount = 5,
};

/// Value2/Value3 when the barrier has no shadow counts (a group used by an
/// op the pass does not follow).
constexpr int64_t kNoCount = INT64_MIN;

/// The manifest's spelling ("mbarrier-wait-timeout", ...), and back.
llvm::StringRef checkKindName(CheckKind kind);
std::optional<CheckKind> parseCheckKind(llvm::StringRef name);

/// The report buffer, as 32-bit words. The kernel writes every word but
/// `kStatus` first, then fences to system scope and writes `kStatus`.
enum ReportWord : unsigned {
  /// kReported once the report is complete.
  kStatus = 0,
  /// The index of the failing check in the kernel's manifest list.
  kCheck = 1,
  /// %ctaid.x/y/z and %tid.x/y/z of the reporting thread.
  kCtaX = 2,
  kCtaY = 3,
  kCtaZ = 4,
  kThreadX = 5,
  kThreadY = 6,
  kThreadZ = 7,
  /// Four 64-bit values (low word first), by kind.
  ///  WaitTimeout: the barrier index, the parity waited for, the bytes
  ///    expected and not yet copied, and the current phase's arrivals (low
  ///    32 bits) and the init count (high 32 bits); the last two are
  ///    kNoCount for a barrier without shadow counts.
  ///  BarrierIndex: the index, the group's size.
  ///  SharedRegion: the offset, the largest offset in range.
  ///  TxBalance: the barrier index, the bytes expected minus the bytes
  ///    copied, the parity of the phase that completed.
  ///  ArrivalCount: the barrier index, how many arrivals it had before this
  ///    one since its init, its init count, the count of this arrival.
  kValue0 = 8,
  kValue1 = 10,
  /// Milliseconds waited (WaitTimeout).
  kWaitedMs = 12,
  kValue2 = 13,
  kValue3 = 15,
  kReportWords = 20,
};

constexpr uint32_t kReported = 0x7153a417;

/// One report, decoded.
struct Report {
  uint32_t check = 0;
  uint32_t cta[3] = {0, 0, 0};
  uint32_t thread[3] = {0, 0, 0};
  int64_t value0 = 0;
  int64_t value1 = 0;
  int64_t value2 = 0;
  int64_t value3 = 0;
  uint32_t waitedMs = 0;
};

/// The report in `words` (kReportWords of them), if its status says one was
/// written.
std::optional<Report> decodeReport(const volatile uint32_t *words);

/// One message for the user: the kernel, the check (its kind, location and
/// what it tests), the thread (with its warp and warpgroup in a block of
/// `block` dims) and the values.
std::string describeReport(llvm::StringRef kernel, const Report &report,
                           CheckKind kind, llvm::StringRef loc,
                           llvm::StringRef what,
                           std::array<unsigned, 3> block);

} // namespace tile::sanitize

#endif // TILE_MANIFEST_SANITIZEREPORT_H

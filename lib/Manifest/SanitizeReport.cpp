//===- SanitizeReport.cpp - decoding a sanitized kernel's report ----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Manifest/SanitizeReport.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile::sanitize;

llvm::StringRef tile::sanitize::checkKindName(CheckKind kind) {
  switch (kind) {
  case CheckKind::WaitTimeout:
    return "mbarrier-wait-timeout";
  case CheckKind::BarrierIndex:
    return "mbarrier-index";
  case CheckKind::SharedRegion:
    return "shared-region";
  case CheckKind::TxBalance:
    return "mbarrier-tx-balance";
  case CheckKind::ArrivalCount:
    return "mbarrier-arrival-count";
  }
  return "unknown";
}

std::optional<CheckKind> tile::sanitize::parseCheckKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CheckKind>>(name)
      .Case("mbarrier-wait-timeout", CheckKind::WaitTimeout)
      .Case("mbarrier-index", CheckKind::BarrierIndex)
      .Case("shared-region", CheckKind::SharedRegion)
      .Case("mbarrier-tx-balance", CheckKind::TxBalance)
      .Case("mbarrier-arrival-count", CheckKind::ArrivalCount)
      .Default(std::nullopt);
}

static int64_t wide(const volatile uint32_t *words, unsigned at) {
  return int64_t(uint64_t(words[at]) | uint64_t(words[at + 1]) << 32);
}

std::optional<Report>
tile::sanitize::decodeReport(const volatile uint32_t *words) {
  if (words[kStatus] != kReported)
    return std::nullopt;
  Report r;
  r.check = words[kCheck];
  for (unsigned d = 0; d < 3; ++d) {
    r.cta[d] = words[kCtaX + d];
    r.thread[d] = words[kThreadX + d];
  }
  r.value0 = wide(words, kValue0);
  r.value1 = wide(words, kValue1);
  r.value2 = wide(words, kValue2);
  r.value3 = wide(words, kValue3);
  r.waitedMs = words[kWaitedMs];
  return r;
}

std::string tile::sanitize::describeReport(llvm::StringRef kernel,
                                           const Report &report,
                                           CheckKind kind, llvm::StringRef loc,
                                           llvm::StringRef what,
                                           std::array<unsigned, 3> block) {
  std::string text;
  llvm::raw_string_ostream os(text);
  uint64_t linear =
      report.thread[0] +
      uint64_t(block[0]) * (report.thread[1] + uint64_t(block[1]) *
                                                   report.thread[2]);
  os << "kernel '" << kernel << "': sanitize check " << report.check << " ("
     << checkKindName(kind) << ") failed at " << loc << ", " << what
     << ": CTA (" << report.cta[0] << ", " << report.cta[1] << ", "
     << report.cta[2] << "), thread (" << report.thread[0] << ", "
     << report.thread[1] << ", " << report.thread[2] << ") (warp "
     << linear / 32 << ", warpgroup " << linear / 128 << ")";
  switch (kind) {
  case CheckKind::WaitTimeout:
    os << " waited " << report.waitedMs << " ms for mbarrier "
       << report.value0 << " to complete its phase of parity "
       << report.value1
       << " (a wrong parity or stage, too few arrivals, or more bytes "
          "expected than copied)";
    if (report.value2 != kNoCount && report.value3 != kNoCount) {
      uint64_t counts = uint64_t(report.value3);
      os << "; its current phase has " << (counts & 0xffffffffu) << " of "
         << (counts >> 32) << " arrivals";
      if (report.value2 > 0)
        os << " and expects " << report.value2
           << " bytes that no copy has brought";
      else if (report.value2 < 0)
        os << ", and its copies brought " << -report.value2
           << " bytes more than were expected";
    }
    break;
  case CheckKind::TxBalance:
    os << " saw mbarrier " << report.value0
       << " complete its phase of parity " << report.value2
       << " while its arrivals since init had expected " << report.value1
       << " bytes "
       << (report.value1 >= 0 ? "more" : "fewer")
       << " than the copies completing on it carry (an expect-tx byte count "
          "that does not match the copies: the phase completes "
       << (report.value1 >= 0 ? "late or never" : "before its data lands")
       << ")";
    break;
  case CheckKind::ArrivalCount:
    os << " arrived on mbarrier " << report.value0 << " (init count "
       << report.value2 << ") after " << report.value1
       << " arrivals since its init, with a count of " << report.value3
       << ": that counts toward a phase the barrier is not in (more "
          "arrivals per phase than its init count: a whole warp arriving "
          "where one thread should, or an init count sized for fewer "
          "arrivals)";
    break;
  case CheckKind::BarrierIndex:
    os << " used mbarrier " << report.value0 << " of a group of "
       << report.value1;
    break;
  case CheckKind::SharedRegion:
    os << " used offset " << report.value0 << " where at most "
       << report.value1 << " is in range";
    break;
  }
  return text;
}

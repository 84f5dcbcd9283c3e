//===- DSMEMPlanner.cpp - plan cluster shared->shared bulk copies -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/DSMEMPlanner.h"

#include <algorithm>
#include <vector>

using namespace tile;
using namespace tile::dsmem;

namespace {
struct ElementAddress {
  int64_t src;
  int64_t dst;
};
} // namespace

/// Memory-axis addresses of every region element of one side, or a reason.
static OrReason<std::vector<int64_t>>
regionAddresses(const RegionSide &side, llvm::ArrayRef<int64_t> sizes,
                const char *name) {
  using R = OrReason<std::vector<int64_t>>;
  OrReason<SliceResult> slice =
      side.layout.slice(side.shape, side.offsets, sizes);
  if (!slice)
    return R::failure(std::string(name) + " region: " + slice.reason());
  const TileLayout &residual = slice->residual;
  for (unsigned a = 0; a < kNumAxes; ++a) {
    Axis axis = static_cast<Axis>(a);
    if (axis != Axis::m && residual.usesAxis(axis))
      return R::failure(std::string(name) + " layout addresses axis '" +
                        axisName(axis).str() +
                        "'; a bulk copy moves one CTA's shared memory");
  }
  if (residual.replicaCount() != 1)
    return R::failure(std::string(name) + " layout has replicas");
  std::vector<int64_t> out(residual.size());
  for (int64_t i = 0; i < residual.size(); ++i)
    out[i] = at(residual.apply(i), Axis::m);
  return out;
}

OrReason<Plan> dsmem::planClusterCopy(const RegionSide &src,
                                      const RegionSide &dst,
                                      llvm::ArrayRef<int64_t> sizes,
                                      unsigned elementBits) {
  using R = OrReason<Plan>;
  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  if (count > kMaxRegionElements)
    return R::failure("region has " + std::to_string(count) +
                      " elements; the planner handles at most 2^20");

  OrReason<std::vector<int64_t>> srcAddr = regionAddresses(src, sizes, "source");
  if (!srcAddr)
    return R::failure(srcAddr.reason());
  OrReason<std::vector<int64_t>> dstAddr =
      regionAddresses(dst, sizes, "destination");
  if (!dstAddr)
    return R::failure(dstAddr.reason());

  std::vector<ElementAddress> elems(count);
  for (int64_t i = 0; i < count; ++i)
    elems[i] = {(*srcAddr)[i], (*dstAddr)[i]};
  std::sort(elems.begin(), elems.end(),
            [](const ElementAddress &a, const ElementAddress &b) {
              return a.src < b.src;
            });
  for (int64_t i = 1; i < count; ++i)
    if (elems[i].src == elems[i - 1].src)
      return R::failure("source layout maps two region elements to element "
                        "address " + std::to_string(elems[i].src));
  {
    std::vector<int64_t> d(*dstAddr);
    std::sort(d.begin(), d.end());
    for (int64_t i = 1; i < count; ++i)
      if (d[i] == d[i - 1])
        return R::failure("destination layout maps two region elements to "
                          "element address " + std::to_string(d[i]));
  }

  // Rules are checked in bits so sub-byte element types (fp4, fp6) are judged
  // exactly; byte values are only formed once a run is known to be aligned.
  auto describeBits = [](int64_t bits) {
    return bits % 8 == 0 ? std::to_string(bits / 8) + " bytes"
                         : std::to_string(bits) + " bits";
  };
  Plan plan;
  for (int64_t begin = 0; begin < count;) {
    int64_t end = begin + 1;
    while (end < count && elems[end].src == elems[end - 1].src + 1 &&
           elems[end].dst == elems[end - 1].dst + 1)
      ++end;
    int64_t srcBit = elems[begin].src * elementBits;
    int64_t dstBit = elems[begin].dst * elementBits;
    int64_t lenBits = (end - begin) * elementBits;
    if (srcBit % 128 != 0 || dstBit % 128 != 0)
      return R::failure("a contiguous run starts at source " +
                        describeBits(srcBit) + " / destination " +
                        describeBits(dstBit) +
                        "; cp.async.bulk needs 16-byte aligned addresses");
    BulkCopy copy{srcBit / 8, dstBit / 8, lenBits / 8};
    if (lenBits % 128 != 0)
      return R::failure("the contiguous run at source byte " +
                        std::to_string(copy.srcByte) + " is " +
                        describeBits(lenBits) + " (destination byte " +
                        std::to_string(copy.dstByte) +
                        "), not a multiple of 16 bytes; cp.async.bulk copies "
                        "16-byte multiples");
    plan.copies.push_back(copy);
    plan.totalBytes += copy.bytes;
    begin = end;
  }
  if (static_cast<int64_t>(plan.copies.size()) > kMaxCopies)
    return R::failure("the region needs " +
                      std::to_string(plan.copies.size()) +
                      " bulk copies; the planner emits at most 1024");
  if (plan.totalBytes > kMaxTransactionBytes)
    return R::failure("the region is " + std::to_string(plan.totalBytes) +
                      " bytes; an mbarrier transaction count holds at most "
                      "2^20 - 1");
  return plan;
}

llvm::SmallVector<dsmem::CopyRun, 4>
dsmem::groupIntoRuns(llvm::ArrayRef<BulkCopy> copies) {
  llvm::SmallVector<CopyRun, 4> runs;
  for (const BulkCopy &copy : copies) {
    if (!runs.empty()) {
      CopyRun &run = runs.back();
      int64_t srcStep = copy.srcByte - run.first.srcByte;
      int64_t dstStep = copy.dstByte - run.first.dstByte;
      if (copy.bytes == run.first.bytes) {
        if (run.count == 1) {
          run.srcStride = srcStep;
          run.dstStride = dstStep;
          run.count = 2;
          continue;
        }
        if (srcStep == run.count * run.srcStride &&
            dstStep == run.count * run.dstStride) {
          ++run.count;
          continue;
        }
      }
    }
    runs.push_back(CopyRun{copy, 1, 0, 0});
  }
  return runs;
}

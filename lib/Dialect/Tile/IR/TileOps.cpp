//===- TileOps.cpp - tile dialect operations --------------------------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/LocalTiles.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tile;

/// `exec thread`: the execution scope as a bare keyword.
static ParseResult parseExecScope(OpAsmParser &parser, ExecScopeAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ExecScope> scope = symbolizeExecScope(keyword);
  if (!scope)
    return parser.emitError(loc)
           << "unknown execution scope '" << keyword
           << "'; expected thread, warp, warpgroup, cta or cluster";
  attr = ExecScopeAttr::get(parser.getContext(), *scope);
  return success();
}

static void printExecScope(OpAsmPrinter &printer, Operation *,
                           ExecScopeAttr attr) {
  printer << stringifyExecScope(attr.getValue());
}

/// An optional `scope cta|cluster` (the release scope of a remote arrive;
/// absent: cluster).
static ParseResult parseReleaseScope(OpAsmParser &parser,
                                     ExecScopeAttr &attr) {
  if (failed(parser.parseOptionalKeyword("scope")))
    return success();
  return parseExecScope(parser, attr);
}

static void printReleaseScope(OpAsmPrinter &printer, Operation *op,
                              ExecScopeAttr attr) {
  if (!attr)
    return;
  printer << " scope ";
  printExecScope(printer, op, attr);
}

/// `[%i]` and `: !nvgpu.mbarrier.group<...>` after a barrier operand; both
/// absent for an `!llvm.ptr<3>` barrier.
static ParseResult
parseBarrierIndex(OpAsmParser &parser,
                  std::optional<OpAsmParser::UnresolvedOperand> &index,
                  Type &barrierType) {
  if (succeeded(parser.parseOptionalLSquare())) {
    index.emplace();
    if (parser.parseOperand(*index) || parser.parseRSquare())
      return failure();
  }
  if (succeeded(parser.parseOptionalColon()))
    return parser.parseType(barrierType);
  barrierType = LLVM::LLVMPointerType::get(parser.getContext(), 3);
  return success();
}

static void printBarrierIndex(OpAsmPrinter &printer, Operation *, Value index,
                              Type barrierType) {
  if (index)
    printer << "[" << index << "]";
  if (!isa<LLVM::LLVMPointerType>(barrierType))
    printer << " : " << barrierType;
}

/// An enum case as a bare keyword (`tile.fence proxy_async`).
template <typename Attr, typename Enum>
static ParseResult parseKeywordEnum(OpAsmParser &parser, Attr &attr,
                                    std::optional<Enum> (*symbolize)(StringRef),
                                    StringRef expected) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Enum> value = symbolize(keyword);
  if (!value)
    return parser.emitError(loc) << "unknown '" << keyword << "'; expected "
                                 << expected;
  attr = Attr::get(parser.getContext(), *value);
  return success();
}

static ParseResult parseAsyncGroup(OpAsmParser &parser, AsyncGroupAttr &attr) {
  return parseKeywordEnum(parser, attr, symbolizeAsyncGroup,
                           "bulk, wgmma or cp_async");
}

static void printAsyncGroup(OpAsmPrinter &printer, Operation *,
                            AsyncGroupAttr attr) {
  printer << stringifyAsyncGroup(attr.getValue());
}

static ParseResult parseFenceKind(OpAsmParser &parser, FenceKindAttr &attr) {
  return parseKeywordEnum(parser, attr, symbolizeFenceKind,
                          "proxy_async, before_thread_sync, "
                          "after_thread_sync or mbarrier_init");
}

static void printFenceKind(OpAsmPrinter &printer, Operation *,
                           FenceKindAttr attr) {
  printer << stringifyFenceKind(attr.getValue());
}

LogicalResult tile::verifyBarrierOperand(Operation *op, Value barrier,
                                         Value index) {
  if (!barrier)
    return index ? op->emitOpError("has a barrier index but no barrier")
                 : success();
  auto group = dyn_cast<nvgpu::MBarrierGroupType>(barrier.getType());
  if (!group) {
    if (index)
      return op->emitOpError("an !llvm.ptr<3> barrier takes no index; index "
                             "an !nvgpu.mbarrier.group");
    return success();
  }
  if (!index)
    return op->emitOpError("a barrier of an !nvgpu.mbarrier.group needs an "
                           "index: mbar(%bars[%i] : ...)");
  if (!nvgpu::NVGPUDialect::isSharedMemoryAddressSpace(group.getMemorySpace()))
    return op->emitOpError("mbarriers live in shared memory: the group's "
                           "memorySpace must be #gpu.address_space<workgroup>");
  APInt constant;
  if (matchPattern(index, m_ConstantInt(&constant)) &&
      (constant.isNegative() ||
       constant.getZExtValue() >= group.getNumBarriers()))
    return op->emitOpError("barrier index ")
           << constant.getSExtValue() << " is outside the group of "
           << group.getNumBarriers() << " barrier(s)";
  return success();
}

LogicalResult tile::OpTrait::verifyKnownAttributes(Operation *op,
                                                  ArrayRef<StringRef> known) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    StringRef name = attr.getName().strref();
    if (name.contains('.') || llvm::is_contained(known, name))
      continue;
    std::string list;
    for (StringRef k : known)
      if (k != "operandSegmentSizes")
        list += (list.empty() ? "" : ", ") + k.str();
    return op->emitOpError()
           << "has no attribute '" << name << "'; it knows "
           << (list.empty() ? std::string("none") : list)
           << " (other attributes need a dialect prefix, e.g. 'mydialect."
           << name << "')";
  }
  return success();
}

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// FromMemrefOp
//===----------------------------------------------------------------------===//

/// Matched by name to keep GPU headers out.
bool tile::isGlobalMemorySpace(Attribute space) {
  if (!space)
    return true;
  if (auto i = dyn_cast<IntegerAttr>(space))
    return i.getInt() == 0 || i.getInt() == 1;
  std::string text;
  llvm::raw_string_ostream os(text);
  space.print(os);
  return StringRef(text) == "#gpu.address_space<global>";
}

LogicalResult FromMemrefOp::verify() {
  auto memref = cast<MemRefType>(getSource().getType());
  BufferType buffer = getResult().getType();
  if (memref.getElementType() != buffer.getElementType())
    return emitOpError("element type ")
           << buffer.getElementType() << " differs from the memref's "
           << memref.getElementType();
  if (memref.getShape() != buffer.getShape())
    return emitOpError("buffer shape must equal the memref shape ")
           << "(dynamic dims included)";
  if (!isGlobalMemorySpace(memref.getMemorySpace()))
    return emitOpError("expects a global-memory memref, got memory space ")
           << memref.getMemorySpace();

  SmallVector<int64_t> strides;
  int64_t memrefOffset;
  if (failed(memref.getStridesAndOffset(strides, memrefOffset)))
    return emitOpError("memref layout is not strided");
  if (!buffer.getLayout()) {
    if (!memref.getLayout().isIdentity() &&
        !memref.areTrailingDimsContiguous(memref.getRank()))
      return emitOpError("memref is not dense row-major; give the buffer a ")
             << "#tile.layout matching its strides";
    // The buffer starts at the memref's offset, which must be addressable.
    if (!ShapedType::isDynamic(memrefOffset) &&
        memrefOffset * buffer.getElementBits() % 8 != 0)
      return emitOpError("memref offset ")
             << memrefOffset << " does not start on a byte boundary";
    return success();
  }
  if (ShapedType::isDynamic(memrefOffset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return emitOpError("a buffer layout needs static memref strides");
  SmallVector<Iter> iters;
  for (auto [extent, stride] : llvm::zip(memref.getShape(), strides))
    iters.push_back(Iter{extent, stride, Axis::m});
  SmallVector<AxisOffset> offsets;
  if (memrefOffset)
    offsets.push_back(AxisOffset{Axis::m, memrefOffset});
  TileLayout expected(iters, {}, offsets);
  TileLayout actual = buffer.getLayout().getLayout();
  // Compare functions, not spellings: S[512:1] is S[(8,64):(64,1)].
  if (expected.canonicalize() != actual.canonicalize())
    return emitOpError("buffer layout ")
           << actual.toString() << " does not match the memref strides ("
           << expected.toString() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// AllocSharedOp
//===----------------------------------------------------------------------===//

/// Least alignment a shared tile of `type` can have: one swizzle atom (8
/// rows of the swizzle width) when swizzled, else 16 bytes (bulk copies).
static int64_t requiredAlignment(BufferType type) {
  if (!type.getLayout())
    return 16;
  std::optional<SwizzleMode> mode = classifyNvmmaSwizzle(
      type.getLayout().getSwizzle(), type.getElementBits());
  if (!mode)
    return 16;
  return 8 * swizzleBytes(*mode);
}

/// What a tile gets without an explicit alignment: also 128 bytes, where
/// TMA boxes start (ask for 16 explicitly where only bulk copies touch it).
static int64_t defaultAlignment(BufferType type) {
  constexpr int64_t kTmaBoxAlignment = 128;
  return std::max<int64_t>(kTmaBoxAlignment, requiredAlignment(type));
}

int64_t AllocSharedOp::getEffectiveAlignment() {
  if (std::optional<uint64_t> a = getAlignment())
    return static_cast<int64_t>(*a);
  return defaultAlignment(getResult().getType());
}

int64_t AllocSharedOp::getAllocationBytes() {
  BufferType type = getResult().getType();
  int64_t elements = type.getEffectiveLayout()->cosize(Axis::m);
  return llvm::divideCeil(elements * type.getElementBits(), 8);
}

LogicalResult AllocSharedOp::verify() {
  BufferType type = getResult().getType();
  if (!type.hasStaticShape())
    return emitOpError("shared buffers need a static shape");
  if (std::optional<uint64_t> a = getAlignment()) {
    int64_t alignment = static_cast<int64_t>(*a);
    if (alignment < 16 || !llvm::isPowerOf2_64(alignment))
      return emitOpError("alignment must be a power of two >= 16, got ")
             << alignment;
    int64_t required = requiredAlignment(type);
    if (alignment < required)
      return emitOpError("a swizzled tile needs alignment >= ")
             << required << " (one swizzle atom), got " << alignment;
  }
  if (std::optional<uint64_t> offset = getOffset()) {
    // Offsets count from a base rounded to the kernel's largest alignment,
    // so the buffer is aligned exactly when its offset is.
    int64_t bytes = static_cast<int64_t>(*offset);
    // Shared-window addresses are 32-bit.
    if (bytes < 0 || bytes > INT32_MAX)
      return emitOpError("dynamic shared offset ")
             << bytes << " is outside the 32-bit shared window";
    if (bytes % getEffectiveAlignment() != 0)
      return emitOpError("dynamic shared offset ")
             << bytes << " is not a multiple of the buffer's alignment "
             << getEffectiveAlignment();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BaseAddressOp
//===----------------------------------------------------------------------===//

LogicalResult BaseAddressOp::verify() {
  MemoryScope scope = getBuffer().getType().getScope();
  Type result = getAddress().getType();
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(result);
  switch (scope) {
  case MemoryScope::global:
    if (ptr && ptr.getAddressSpace() == unsigned(NVVM::NVVMMemorySpace::Global))
      return success();
    return emitOpError("a global buffer's address is !llvm.ptr<1>, got ")
           << result;
  case MemoryScope::shared:
    if (ptr && ptr.getAddressSpace() == unsigned(NVVM::NVVMMemorySpace::Shared))
      return success();
    return emitOpError("a shared buffer's address is !llvm.ptr<3>, got ")
           << result;
  case MemoryScope::tmem:
    if (result.isInteger(32))
      return success();
    return emitOpError("a tmem buffer's address is i32, got ") << result;
  case MemoryScope::local:
    break;
  }
  return emitOpError("local buffers have no base address");
}

//===----------------------------------------------------------------------===//
// Shared helpers of the async ops
//===----------------------------------------------------------------------===//

/// The side-effect resource of a memory scope.
static SideEffects::Resource *resourceFor(MemoryScope scope) {
  switch (scope) {
  case MemoryScope::global:
    return GlobalMemoryResource::get();
  case MemoryScope::shared:
    return SharedMemoryResource::get();
  case MemoryScope::tmem:
    return TensorMemoryResource::get();
  case MemoryScope::local:
    return SideEffects::DefaultResource::get();
  }
  return SideEffects::DefaultResource::get();
}

/// Checks a region `[offsets, offsets + sizes)` of `type`: ranks agree and
/// static offsets/sizes stay inside static dims. With `globalMayLeave` (a
/// copy), a global region is exempt from the bounds: it may start before or
/// run past the tensor's edge, where a TMA load fills and a TMA store is
/// clipped (the hardware's behaviour).
static LogicalResult verifyRegion(Operation *op, StringRef name,
                                  BufferType type,
                                  ArrayRef<int64_t> staticOffsets,
                                  size_t numDynamicOffsets,
                                  ArrayRef<int64_t> sizes,
                                  bool globalMayLeave = false) {
  // A buffer may have more dims than the region: its leading dims are
  // indexed (size 1) by their offsets, e.g. one stage of a ring.
  const size_t rank = type.getRank();
  if (rank < sizes.size())
    return op->emitOpError() << name << " buffer has rank " << rank
                             << " but the region has " << sizes.size()
                             << " sizes";
  if (staticOffsets.size() != rank)
    return op->emitOpError() << name << " region has " << staticOffsets.size()
                             << " offsets for a rank-" << rank << " buffer";
  if (static_cast<size_t>(llvm::count_if(staticOffsets, ShapedType::isDynamic)) !=
      numDynamicOffsets)
    return op->emitOpError() << name << " region has a mismatched number of "
                             << "dynamic offsets";
  bool mayLeave = globalMayLeave && type.getScope() == MemoryScope::global;
  StringRef scope = stringifyMemoryScope(type.getScope());
  StringRef rule = globalMayLeave ? "; only a global region may leave its "
                                    "buffer (TMA fills loads and clips stores "
                                    "there)"
                                  : "";
  const size_t lead = rank - sizes.size();
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = d < lead ? 1 : sizes[d - lead];
    int64_t dim = type.getShape()[d];
    int64_t off = staticOffsets[d];
    if (size < 1)
      return op->emitOpError() << "region size " << size << " of dim " << d
                               << " must be positive";
    if (mayLeave)
      continue;
    if (!ShapedType::isDynamic(off) && off < 0)
      return op->emitOpError() << name << " offset " << off << " of dim " << d
                               << " is negative" << rule;
    if (ShapedType::isDynamic(dim))
      continue;
    int64_t begin = ShapedType::isDynamic(off) ? 0 : off;
    if (begin + size > dim)
      return op->emitOpError()
             << name << " region [" << begin << ", " << begin + size
             << ") of dim " << d << " exceeds the " << scope
             << " buffer extent " << dim << rule;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// CopyAsyncOp
//===----------------------------------------------------------------------===//

LogicalResult NamedBarrierOp::verify() {
  APInt id, threads;
  if (matchPattern(getId(), m_ConstantInt(&id)) &&
      (id.getSExtValue() < 1 || id.getSExtValue() > 7))
    return emitOpError("barrier id ")
           << id.getSExtValue()
           << " is not one of 1..7 (0 is gpu.barrier's, the whole CTA; "
              "8..15 are the cross-warp reductions' scratch barriers)";
  if (matchPattern(getThreads(), m_ConstantInt(&threads))) {
    int64_t n = threads.getSExtValue();
    if (n < 32 || n > 1024 || n % 32)
      return emitOpError("thread count ")
             << n << " is not a multiple of 32 from 32 to 1024 (a warp "
                     "arrives as 32 threads)";
  }
  return success();
}

GemmRegionSizes tile::gemmRegionSizes(ArrayRef<int64_t> mnk, int64_t ctaGroup,
                                      bool transposeA, bool transposeB) {
  int64_t m = mnk[0] / ctaGroup, n = mnk[1] / ctaGroup, k = mnk[2];
  GemmRegionSizes r;
  r.c = {m, mnk[1]};
  r.a = transposeA ? SmallVector<int64_t, 2>{k, m} : SmallVector<int64_t, 2>{m, k};
  r.b = transposeB ? SmallVector<int64_t, 2>{n, k} : SmallVector<int64_t, 2>{k, n};
  return r;
}

LogicalResult CopyAsyncOp::verify() {
  BufferType src = getSrcType(), dst = getDstType();
  if (failed(verifyBarrierOperand(*this, getMbar(), getMbarIndex())))
    return failure();
  if (failed(verifyRegion(*this, "source", src, getSrcStaticOffsets(),
                          getSrcOffsets().size(), getSizes(),
                          /*globalMayLeave=*/true)) ||
      failed(verifyRegion(*this, "destination", dst, getDstStaticOffsets(),
                          getDstOffsets().size(), getSizes(),
                          /*globalMayLeave=*/true)))
    return failure();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("source element type ")
           << src.getElementType() << " differs from destination element type "
           << dst.getElementType();

  MemoryScope from = src.getScope(), to = dst.getScope();
  bool g2s = from == MemoryScope::global && to == MemoryScope::shared;
  bool s2g = from == MemoryScope::shared && to == MemoryScope::global;
  bool s2s = from == MemoryScope::shared && to == MemoryScope::shared;
  bool s2t = from == MemoryScope::shared && to == MemoryScope::tmem;
  if (!g2s && !s2g && !s2s && !s2t)
    return emitOpError("cannot copy ")
           << stringifyMemoryScope(from) << " -> " << stringifyMemoryScope(to)
           << "; copy_async moves global -> shared, shared -> global, "
              "shared -> shared (cluster) and shared -> tmem";
  if (getReduce() && !s2g)
    return emitOpError("reduce applies to shared -> global copies only");
  if (getOob() && s2g)
    return emitOpError("oob fill applies to loads only: a store to global "
                       "memory is clipped at the tensor's edge and takes no "
                       "fill mode");
  if (getOob() && from != MemoryScope::global)
    return emitOpError("oob fill applies to copies from global memory only");
  if (getOob() && *getOob() == OobFill::nan &&
      !isa<FloatType>(src.getElementType()))
    return emitOpError("oob = nan needs a floating-point element type, got ")
           << src.getElementType();
  if (getCtaMask() && !g2s)
    return emitOpError("cta_mask (multicast) applies to global -> shared "
                       "copies only");
  if (getRemoteCta() && !s2s)
    return emitOpError("remote_cta applies to shared -> shared copies only");
  if (getMbarCta()) {
    if (!g2s)
      return emitOpError("mbar_cta applies to global -> shared copies only "
                         "(a TMA load signalling a barrier of its CTA pair)");
    if (!getMbar())
      return emitOpError("mbar_cta names the CTA of the copy's mbarrier, "
                         "but the copy has no mbar");
    if (getCtaGroup().value_or(1) != 2)
      return emitOpError("mbar_cta needs cta_group = 2: only a .cta_group::2 "
                         "load may signal a barrier in another CTA (its "
                         "pair peer)");
  }
  if ((getCpShape() || getCpMulticast() || getSrcFormat()) && !s2t)
    return emitOpError("cp_shape, cp_multicast and src_format apply to "
                       "shared -> tmem copies only");
  if (getSrcFormat() && src.getElementBits() != 8)
    return emitOpError("src_format decompresses into 8-bit containers; the "
                       "element type is ")
           << src.getElementType();
  return success();
}

void CopyAsyncOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSrcMutable(),
                       resourceFor(getSrcType().getScope()));
  if (getReduce())
    effects.emplace_back(MemoryEffects::Read::get(), &getDstMutable(),
                         resourceFor(getDstType().getScope()));
  effects.emplace_back(MemoryEffects::Write::get(), &getDstMutable(),
                       resourceFor(getDstType().getScope()));
  // The mbarrier's transaction count is updated on completion.
  if (getMbar())
    effects.emplace_back(MemoryEffects::Write::get(), &getMbarMutable()[0],
                         SharedMemoryResource::get());
}

//===----------------------------------------------------------------------===//
// GemmAsyncOp
//===----------------------------------------------------------------------===//

LogicalResult GemmAsyncOp::verify() {
  ArrayRef<int64_t> mnk = getSizes();
  if (mnk.size() != 3)
    return emitOpError("sizes must be [M, N, K], got ")
           << mnk.size() << " values";
  int64_t m = mnk[0], n = mnk[1];
  BufferType c = getC().getType(), a = getA().getType(), b = getB().getType();
  if (c.getScope() != MemoryScope::tmem && c.getScope() != MemoryScope::local)
    return emitOpError("C must be in tensor memory (tcgen05) or registers "
                       "(a local tile, wgmma), got ")
           << stringifyMemoryScope(c.getScope());
  if (a.getScope() == MemoryScope::global)
    return emitOpError("A must be in shared memory, tensor memory or "
                       "registers (a local tile), got global");
  if (b.getScope() != MemoryScope::shared)
    return emitOpError("B must be in shared memory, got ")
           << stringifyMemoryScope(b.getScope());
  // With cta_group 2 the pair shares the MMA: each CTA's regions hold M/2
  // rows of A and C and N/2 columns of B.
  int64_t group = getCtaGroup().value_or(1);
  if (m % group || n % group)
    return emitOpError("cta_group 2 splits M and N between two CTAs; M = ")
           << m << " and N = " << n << " must be even";
  GemmRegionSizes regions =
      gemmRegionSizes(mnk, group, getTransposeA(), getTransposeB());
  if (failed(verifyRegion(*this, "C", c, getCStaticOffsets(),
                          getCOffsets().size(), regions.c)) ||
      failed(verifyRegion(*this, "A", a, getAStaticOffsets(),
                          getAOffsets().size(), regions.a)) ||
      failed(verifyRegion(*this, "B", b, getBStaticOffsets(),
                          getBOffsets().size(), regions.b)))
    return failure();

  Type ta = a.getElementType(), tb = b.getElementType(),
       tc = c.getElementType();
  bool aFloat = isa<FloatType>(ta), bFloat = isa<FloatType>(tb);
  if (aFloat != bFloat)
    return emitOpError("A and B must both be floating-point or both integer, "
                       "got ")
           << ta << " and " << tb;
  // Narrow float formats (fp8/fp6/fp4) may be mixed; wider types may not.
  bool narrow = aFloat && a.getElementBits() <= 8 && b.getElementBits() <= 8;
  if (ta != tb && !narrow)
    return emitOpError("A and B element types differ: ") << ta << " vs " << tb;
  if (aFloat && !tc.isF32() && !tc.isF16())
    return emitOpError("a floating-point MMA accumulates in f32 or f16, got ")
           << tc;
  if (!aFloat && !tc.isInteger(32))
    return emitOpError("an integer MMA accumulates in i32, got ") << tc;
  if (static_cast<bool>(getSfa()) != static_cast<bool>(getSfb()))
    return emitOpError("block scaling needs both sfa and sfb");
  if (getSfa() &&
      (getSfa().getType().getScope() != MemoryScope::tmem ||
       getSfb().getType().getScope() != MemoryScope::tmem))
    return emitOpError("scale factors sfa/sfb must be in tensor memory");
  if (std::optional<ArrayRef<int64_t>> shape = getInstructionShape();
      shape && (shape->size() != 2 || (*shape)[0] < 1 || (*shape)[1] < 1))
    return emitOpError("instruction_shape must be [M, N], two positive "
                       "values");
  return success();
}

void GemmAsyncOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getAMutable(),
                       resourceFor(getA().getType().getScope()));
  effects.emplace_back(MemoryEffects::Read::get(), &getBMutable(),
                       SharedMemoryResource::get());
  SideEffects::Resource *cResource = resourceFor(getC().getType().getScope());
  if (getAccumulate())
    effects.emplace_back(MemoryEffects::Read::get(), &getCMutable(), cResource);
  effects.emplace_back(MemoryEffects::Write::get(), &getCMutable(), cResource);
  if (getSfa()) {
    effects.emplace_back(MemoryEffects::Read::get(), &getSfaMutable()[0],
                         TensorMemoryResource::get());
    effects.emplace_back(MemoryEffects::Read::get(), &getSfbMutable()[0],
                         TensorMemoryResource::get());
  }
}

//===----------------------------------------------------------------------===//
// Register-resident tiles
//===----------------------------------------------------------------------===//

/// A conversion involving an fp8/fp6/fp4 type: LLVM has no such float
/// types (their registers are integers of their width), so tile.load and
/// tile.store move them unconverted.
static bool narrowFloatConversion(Type from, Type to) {
  return from.getIntOrFloatBitWidth() <= 8 || to.getIntOrFloatBitWidth() <= 8;
}

LogicalResult FillOp::verify() {
  Type element = getBuffer().getType().getElementType();
  if (getValue().getType() != element)
    return emitOpError("fills ")
           << element << " elements with a " << getValue().getType()
           << " value";
  return success();
}

LogicalResult StoreOp::verify() {
  BufferType src = getSrc().getType(), dst = getDst().getType();
  if (dst.getScope() != MemoryScope::global &&
      dst.getScope() != MemoryScope::shared)
    return emitOpError("stores registers to global or shared memory, not ")
           << stringifyMemoryScope(dst.getScope());
  if (failed(verifyRegion(*this, "destination", dst, getDstStaticOffsets(),
                          getDstOffsets().size(), src.getShape())))
    return failure();
  Type from = src.getElementType(), to = dst.getElementType();
  if (from != to && !(isa<FloatType>(from) && isa<FloatType>(to)))
    return emitOpError("stores ")
           << from << " elements into " << to
           << "; only a float tile converts (to another float type)";
  if (from != to && narrowFloatConversion(from, to))
    return emitOpError("stores ")
           << from << " elements into " << to
           << "; floats of 8 bits or fewer are stored as they are (no "
              "conversion to or from them)";
  if (OrReason<LocalAccessPlan> plan =
          planLocalAccess(src, dst, getDstStaticOffsets());
      !plan)
    return emitOpError("cannot place each thread's elements at its base "
                       "address plus constants: ")
           << plan.reason();
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSrcMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getDstMutable(),
                       resourceFor(getDst().getType().getScope()));
}

LogicalResult LoadOp::verify() {
  BufferType src = getSrc().getType(), dst = getDst().getType();
  if (src.getScope() == MemoryScope::local)
    return emitOpError("loads registers from global, shared or tensor "
                       "memory, not from another local tile");
  if (failed(verifyRegion(*this, "source", src, getSrcStaticOffsets(),
                          getSrcOffsets().size(), dst.getShape())))
    return failure();
  if (src.getScope() == MemoryScope::tmem) {
    if (OrReason<TmemLoadPlan> plan =
            planTmemLoad(src, dst, getSrcStaticOffsets());
        !plan)
      return emitOpError("cannot read the tensor-memory region with "
                         "tcgen05.ld 32x32b: ")
             << plan.reason();
    return success();
  }
  Type from = src.getElementType(), to = dst.getElementType();
  if (from != to && !(isa<FloatType>(from) && isa<FloatType>(to)))
    return emitOpError("loads ")
           << from << " elements into " << to
           << "; only a float source converts (to another float type)";
  if (from != to && narrowFloatConversion(from, to))
    return emitOpError("loads ")
           << from << " elements into " << to
           << "; floats of 8 bits or fewer are loaded as they are (no "
              "conversion to or from them)";
  if (OrReason<LocalAccessPlan> plan =
          planLocalAccess(dst, src, getSrcStaticOffsets());
      !plan)
    return emitOpError("cannot place each thread's elements at its base "
                       "address plus constants: ")
           << plan.reason();
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSrcMutable(),
                       resourceFor(getSrc().getType().getScope()));
  effects.emplace_back(MemoryEffects::Write::get(), &getDstMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// Synchronization ops
//===----------------------------------------------------------------------===//

/// Tensor-memory allocations are powers of two from 32 to 512 columns.
static LogicalResult verifyTmemColumns(Operation *op, int64_t columns) {
  if (columns < 32 || columns > 512 || !llvm::isPowerOf2_64(columns))
    return op->emitOpError("allocates ")
           << columns << " tensor-memory columns; tcgen05.alloc takes a "
           << "power of two from 32 to 512";
  return success();
}

LogicalResult TmemAllocOp::verify() {
  return verifyTmemColumns(*this, getColumns());
}

LogicalResult TmemDeallocOp::verify() {
  return verifyTmemColumns(*this, getColumns());
}

LogicalResult MmaCommitOp::verify() {
  if (getExec() != ExecScope::thread && getExec() != ExecScope::warp)
    return emitOpError("is issued by one thread: exec thread, or exec warp "
                       "for the lane elect.sync picks");
  return verifyBarrierOperand(*this, getMbar(), getMbarIndex());
}

LogicalResult WaitGroupOp::verify() {
  if (getRead() && getGroup() != AsyncGroup::bulk)
    return emitOpError("'read' waits for bulk copies to finish reading "
                       "shared memory; ")
           << stringifyAsyncGroup(getGroup()) << " groups have no such form";
  return success();
}

LogicalResult MBarrierArriveRemoteOp::verify() {
  if (std::optional<ExecScope> scope = getScope();
      scope && *scope != ExecScope::cta && *scope != ExecScope::cluster)
    return emitOpError("releases at cta or cluster scope, not ")
           << stringifyExecScope(*scope);
  return verifyBarrierOperand(*this, getMbar(), getMbarIndex());
}

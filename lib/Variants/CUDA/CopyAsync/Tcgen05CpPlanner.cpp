//===- Tcgen05CpPlanner.cpp - plan shared -> tensor memory copies -----------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Both layouts are sliced to the region and split into common *modes*: a
// mode is an extent with one stride on the shared side (bytes) and one on
// the tensor-memory side (lanes, or column bytes). Working in bytes (an
// element is a mode of elementBits/8 contiguous bytes on both sides) makes
// every element width the same problem. A form then takes the modes that
// make one row (rowBytes contiguous column bytes) and its rows (the form's
// lane pattern); the shared strides of exactly those modes must reproduce
// the descriptor's address walk, which is where LBO and SBO come from. The
// remaining modes each repeat the instruction.
//
//===----------------------------------------------------------------------===//

#include "tile/Variants/CUDA/CopyAsync/Tcgen05CpPlanner.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <string>

using namespace tile;
using namespace tile::tcgen05_cp;
using cuda::SmemSwizzle;

//===----------------------------------------------------------------------===//
// Forms
//===----------------------------------------------------------------------===//

unsigned Form::rows() const {
  switch (shape) {
  case Shape::S128x256b: case Shape::S128x128b: return 128;
  case Shape::S4x256b: return 4;
  case Shape::S64x128b: return 64;
  case Shape::S32x128b: return 32;
  }
  return 0;
}

unsigned Form::rowBytes() const {
  return shape == Shape::S128x256b || shape == Shape::S4x256b ? 32 : 16;
}

int64_t Form::lane(int64_t r) const {
  if (shape == Shape::S4x256b)
    return 32 * r;
  if (multicast == Multicast::Warpx2_01_23)
    return 64 * (r / 32) + r % 32;
  return r;
}

llvm::SmallVector<int64_t, 4> Form::replicaLanes() const {
  switch (multicast) {
  case Multicast::None: return {0};
  case Multicast::Warpx2_02_13: return {0, 64};
  case Multicast::Warpx2_01_23: return {0, 32};
  case Multicast::Warpx4: return {0, 32, 64, 96};
  }
  return {0};
}

std::string Form::name() const {
  std::string n = cuda::tcgen05CpShapeName(shape).str();
  if (multicast != Multicast::None)
    n += "." + cuda::tcgen05CpMulticastName(multicast).str();
  return n;
}

llvm::SmallVector<Form, 3> tcgen05_cp::formsFor(Multicast multicast) {
  switch (multicast) {
  case Multicast::None:
    return {{Shape::S128x256b, Multicast::None},
            {Shape::S128x128b, Multicast::None},
            {Shape::S4x256b, Multicast::None}};
  case Multicast::Warpx2_02_13:
  case Multicast::Warpx2_01_23:
    return {{Shape::S64x128b, multicast}};
  case Multicast::Warpx4:
    return {{Shape::S32x128b, multicast}};
  }
  return {};
}

namespace {

//===----------------------------------------------------------------------===//
// Modes
//===----------------------------------------------------------------------===//

/// An extent with its shared stride (bytes) and tensor-memory stride (lanes
/// for TLane, column bytes for TCol).
struct Mode {
  int64_t extent = 1;
  int64_t sharedStride = 0;
  Axis tmemAxis = Axis::TCol;
  int64_t tmemStride = 0;
};

/// The region's geometry in bytes, shared by every form.
struct Geometry {
  llvm::SmallVector<Mode, 8> modes; ///< innermost first
  int64_t sharedBase = 0;           ///< pre-swizzle byte of element 0
  int64_t laneBase = 0;
  int64_t columnByteBase = 0;
  SmemSwizzle swizzle = SmemSwizzle::None;
  Multicast multicast = Multicast::None;
};

std::string str(int64_t v) { return std::to_string(v); }

/// The multicast a canonical tensor-memory replica stands for.
std::optional<Multicast> multicastOf(llvm::ArrayRef<Iter> replica) {
  if (replica.empty())
    return Multicast::None;
  if (replica.size() != 1 || replica[0].axis != Axis::TLane)
    return std::nullopt;
  const Iter &r = replica[0];
  if (r.extent == 2 && r.stride == 64)
    return Multicast::Warpx2_02_13;
  if (r.extent == 2 && r.stride == 32)
    return Multicast::Warpx2_01_23;
  if (r.extent == 4 && r.stride == 32)
    return Multicast::Warpx4;
  return std::nullopt;
}

std::string multicastName(Multicast m) {
  return m == Multicast::None ? std::string("none")
                              : cuda::tcgen05CpMulticastName(m).str();
}

/// `R[e:s@ax]` or `R[(e0,e1):(s0@a0,s1@a1)]`.
std::string replicaString(llvm::ArrayRef<Iter> replica) {
  std::string extents, strides;
  for (const Iter &it : replica) {
    extents += (extents.empty() ? "" : ",") + std::to_string(it.extent);
    strides += (strides.empty() ? "" : ",") + std::to_string(it.stride) +
               "@" + axisName(it.axis).str();
  }
  if (replica.size() == 1)
    return "R[" + extents + ":" + strides + "]";
  return "R[(" + extents + "):(" + strides + ")]";
}

Status splitIntoModes(const TileLayout &shared, const TileLayout &tmem,
                      int64_t bytes, llvm::SmallVector<Mode, 8> &modes);

/// The region's geometry: both layouts sliced to the region and split into
/// common modes, the multicast the tensor-memory replica stands for and the
/// NVMMA swizzle of the shared side.
OrReason<Geometry> geometryOf(const Request &req) {
  using R = OrReason<Geometry>;
  if (req.elementBits < 8 || req.elementBits % 8 || req.elementBits > 64)
    return R::failure("element width " + str(req.elementBits) +
                      " bits: tcgen05.cp plans whole bytes (8/16/32/64-bit "
                      "elements; packed 4/6-bit data goes through src_format "
                      "with 8-bit containers)");
  if (req.sourceFormat != SourceFormat::None && req.elementBits != 8)
    return R::failure("src_format " +
                      cuda::tcgen05CpSourceFormatName(req.sourceFormat).str() +
                      " decompresses into 8-bit containers; the tiles have " +
                      str(req.elementBits) + "-bit elements");
  OrReason<SliceResult> s = req.shared.layout.slice(
      req.shared.shape, req.shared.offsets, req.sizes);
  if (!s)
    return R::failure("shared region: " + s.reason());
  OrReason<SliceResult> t =
      req.tmem.layout.slice(req.tmem.shape, req.tmem.offsets, req.sizes);
  if (!t)
    return R::failure("tensor-memory region: " + t.reason());
  TileLayout shared = s->residual.canonicalize();
  TileLayout tmem = t->residual.canonicalize();

  for (const Iter &it : shared.shard())
    if (it.axis != Axis::m)
      return R::failure("the shared layout addresses axis " +
                        axisName(it.axis).str() + "; a tcgen05.cp source is "
                        "one CTA's shared memory (axis m only)");
  for (const Iter &it : tmem.shard())
    if (!isTensorMemoryAxis(it.axis))
      return R::failure("the tensor-memory layout addresses axis " +
                        axisName(it.axis).str() + "; only TLane and TCol");

  Geometry g;
  std::optional<Multicast> multicast = multicastOf(tmem.replica());
  if (!multicast)
    return R::failure(
        "tensor-memory replica " + replicaString(tmem.replica()) +
        " matches no tcgen05.cp multicast (none; R[2:64@TLane] "
        "warpx2::02_13; R[2:32@TLane] warpx2::01_23; R[4:32@TLane] warpx4)");
  g.multicast = *multicast;

  int64_t bytes = req.elementBits / 8;
  if (!shared.swizzle().isIdentity()) {
    std::optional<SwizzleMode> mode =
        classifyNvmmaSwizzle(shared.swizzle(), req.elementBits);
    if (!mode)
      return R::failure("shared swizzle " + shared.swizzle().toString() +
                        " is not an NVMMA swizzle of " +
                        str(req.elementBits) + "-bit elements");
    g.swizzle = *cuda::smemSwizzleForBytes(swizzleBytes(*mode));
  }
  g.sharedBase = shared.offset(Axis::m) * bytes;
  g.laneBase = tmem.offset(Axis::TLane);
  g.columnByteBase = tmem.offset(Axis::TCol) * bytes;

  if (Status s = splitIntoModes(shared, tmem, bytes, g.modes); !s)
    return R::failure(s.reason());
  return g;
}

/// The common refinement of the shared and tensor-memory iter lists,
/// innermost first, in bytes (an element is a first mode of `bytes`
/// contiguous bytes on both sides).
Status splitIntoModes(const TileLayout &shared, const TileLayout &tmem,
                      int64_t bytes, llvm::SmallVector<Mode, 8> &modes) {
  using R = Status;
  llvm::SmallVector<Iter, 8> a(shared.shard().begin(), shared.shard().end());
  llvm::SmallVector<Iter, 8> b(tmem.shard().begin(), tmem.shard().end());
  if (bytes > 1)
    modes.push_back(Mode{bytes, 1, Axis::TCol, 1});
  while (!a.empty() && !b.empty()) {
    Iter &x = a.back(), &y = b.back();
    int64_t common = std::min(x.extent, y.extent);
    if (std::max(x.extent, y.extent) % common)
      return R::failure("the shared and tensor-memory layouts split the "
                        "region incompatibly (extents " + str(x.extent) +
                        " and " + str(y.extent) + ")");
    int64_t tStride = y.stride * (y.axis == Axis::TCol ? bytes : 1);
    if (tStride == 0)
      return R::failure("the tensor-memory layout puts " + str(common) +
                        " elements in one cell (stride 0)");
    modes.push_back(Mode{common, x.stride * bytes, y.axis, tStride});
    x.extent /= common;
    x.stride *= common;
    y.extent /= common;
    y.stride *= common;
    if (x.extent == 1)
      a.pop_back();
    if (y.extent == 1)
      b.pop_back();
  }
  if (!a.empty() || !b.empty())
    return R::failure("the sliced layouts cover different element counts");
  return Status::success();
}

/// Takes from `pool` the modes on `axis` that step `count` times by
/// `stride` (splitting a longer mode), innermost first.
std::optional<llvm::SmallVector<Mode, 4>>
take(llvm::SmallVector<Mode, 8> &pool, Axis axis, int64_t stride,
     int64_t count) {
  llvm::SmallVector<Mode, 4> taken;
  while (count > 1) {
    auto *it = llvm::find_if(pool, [&](const Mode &m) {
      return m.tmemAxis == axis && m.tmemStride == stride && m.extent > 1;
    });
    if (it == pool.end())
      return std::nullopt;
    if (it->extent <= count) {
      if (count % it->extent)
        return std::nullopt;
      taken.push_back(*it);
      count /= it->extent;
      stride *= it->extent;
      pool.erase(it);
      continue;
    }
    if (it->extent % count)
      return std::nullopt;
    taken.push_back(Mode{count, it->sharedStride, axis, stride});
    it->extent /= count;
    it->sharedStride *= count;
    it->tmemStride *= count;
    count = 1;
  }
  return taken;
}

/// Shared byte offset of index `i` in the mixed radix of `modes` (innermost
/// first).
int64_t sharedOffset(llvm::ArrayRef<Mode> modes, int64_t i) {
  int64_t off = 0;
  for (const Mode &m : modes) {
    off += (i % m.extent) * m.sharedStride;
    i /= m.extent;
  }
  return off;
}

/// The lanes a form's source rows land in (replicas aside).
std::string sourceLanes(const Form &form) {
  if (form.shape == Shape::S4x256b)
    return "0, 32, 64, 96";
  if (form.multicast == Multicast::Warpx2_01_23)
    return "0..31 and 64..95";
  return "0.." + str(form.rows() - 1);
}

std::string columnBytes(int64_t bytes) {
  return str(bytes) + " column bytes";
}

/// One form's plan in the making. Each phase takes modes from `pool` (the
/// modes of the region no phase has used yet) and fills in `plan`.
struct FormPlanner {
  const Geometry &g;
  Form form;
  llvm::SmallVector<Mode, 8> pool;
  Plan plan;
  int64_t rowBytes;
  bool swizzled;
  int64_t w; ///< bytes between rows 0..7 of the descriptor walk

  FormPlanner(const Request &req, const Geometry &g, Form form)
      : g(g), form(form), pool(g.modes), rowBytes(form.rowBytes()),
        swizzled(g.swizzle != SmemSwizzle::None),
        w(cuda::smemSwizzleRowBytes(g.swizzle)) {
    plan.form = form;
    plan.ctaGroup = req.ctaGroup;
    plan.sourceFormat = req.sourceFormat;
    plan.descriptor.swizzle = g.swizzle;
    plan.descriptor.leadingByteOffset = 16;
    plan.descriptor.strideByteOffset = 16;
  }

  Status takeRow();
  Status takeRows();
  Status listInstructions();
  Status checkFootprints() const;
};

/// One row: rowBytes contiguous column bytes, read as 16-byte shared
/// chunks. The second chunk of a 256-bit row follows at +16 in a swizzled
/// row, at +LBO otherwise (which is where LBO comes from).
Status FormPlanner::takeRow() {
  std::optional<llvm::SmallVector<Mode, 4>> rowModes =
      take(pool, Axis::TCol, 1, rowBytes);
  if (!rowModes)
    return Status::failure("the tensor-memory layout has no run of " +
                           columnBytes(rowBytes) + " (" + str(rowBytes / 4) +
                           " consecutive 32-bit columns) holding one row");
  for (int64_t chunk = 0; chunk < rowBytes; chunk += 16) {
    int64_t start = sharedOffset(*rowModes, chunk);
    for (int64_t byte = chunk; byte < chunk + 16; ++byte) {
      int64_t at = sharedOffset(*rowModes, byte);
      if (at != start + (byte - chunk))
        return Status::failure(
            "a row's 16 column bytes come from shared bytes that are not one "
            "contiguous chunk (column byte " +
            str(byte) + " reads shared byte +" + str(at) + ")");
    }
  }
  if (rowBytes != 32)
    return Status::success();
  int64_t chunk1 = sharedOffset(*rowModes, 16);
  if (swizzled && chunk1 != 16)
    return Status::failure("the second 16-byte chunk of a row is at shared "
                           "byte +" +
                           str(chunk1) + "; in a " +
                           cuda::smemSwizzleName(g.swizzle).str() +
                           "-swizzled row it follows at +16");
  if (!swizzled) {
    if (chunk1 % 16)
      return Status::failure("LBO = " + str(chunk1) +
                             " bytes is not 16-byte aligned");
    plan.usesLeadingByteOffset = true;
    plan.descriptor.leadingByteOffset = static_cast<uint32_t>(chunk1);
  }
  return Status::success();
}

/// The form's rows in its lane pattern; their shared strides must follow
/// the descriptor's walk, rows 0..7 `w` bytes apart and every 8 rows SBO
/// on (which is where SBO comes from).
Status FormPlanner::takeRows() {
  llvm::SmallVector<std::pair<int64_t, int64_t>, 2> lanePattern;
  switch (form.shape) {
  case Shape::S128x256b: case Shape::S128x128b:
    lanePattern = {{1, 128}}; break;
  case Shape::S4x256b: lanePattern = {{32, 4}}; break;
  case Shape::S64x128b:
    if (form.multicast == Multicast::Warpx2_01_23)
      lanePattern = {{1, 32}, {64, 2}};
    else
      lanePattern = {{1, 64}};
    break;
  case Shape::S32x128b: lanePattern = {{1, 32}}; break;
  }
  llvm::SmallVector<Mode, 4> laneModes;
  for (auto [stride, count] : lanePattern) {
    std::optional<llvm::SmallVector<Mode, 4>> got =
        take(pool, Axis::TLane, stride, count);
    if (!got)
      return Status::failure("the tensor-memory layout does not hold " +
                             str(form.rows()) + " rows in the lanes " +
                             form.name() + " writes (lanes " +
                             sourceLanes(form) + ")");
    laneModes.append(got->begin(), got->end());
  }
  int64_t rows = form.rows();
  if (rows > 8) {
    int64_t sbo = sharedOffset(laneModes, 8);
    if (sbo % 16)
      return Status::failure("SBO = " + str(sbo) +
                             " bytes (rows 0 -> 8) is "
                             "not 16-byte aligned");
    plan.descriptor.strideByteOffset = static_cast<uint32_t>(sbo);
  }
  int64_t sbo = plan.descriptor.strideByteOffset;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t want = (r % 8) * w + (r / 8) * sbo;
    int64_t at = sharedOffset(laneModes, r);
    if (at != want)
      return Status::failure(
          "row " + str(r) + " is at shared byte +" + str(at) +
          "; the descriptor walk (" +
          (swizzled ? cuda::smemSwizzleName(g.swizzle).str() + " swizzle"
                    : std::string("no swizzle")) +
          ": rows " + str(w) + " bytes apart, SBO " + str(sbo) +
          ") puts it at +" + str(want));
  }
  if (auto problems = plan.descriptor.problems(); !problems.empty())
    return Status::failure(problems.front());
  return Status::success();
}

/// Every mode left repeats the instruction; each instance must start on a
/// 128-bit column, inside tensor memory, 16-byte aligned in shared memory
/// and (swizzled) on an atom's first row without running past its row.
Status FormPlanner::listInstructions() {
  llvm::SmallVector<Mode, 8> repeat;
  int64_t count = 1;
  for (const Mode &m : pool)
    if (m.extent > 1) {
      repeat.push_back(m);
      count *= m.extent;
    }
  if (count > int64_t(kMaxInstructions))
    return Status::failure(str(count) + " instructions (more than " +
                           str(kMaxInstructions) + ")");
  int64_t lastLane = form.lane(form.rows() - 1) + form.replicaLanes().back();
  for (int64_t i = 0; i < count; ++i) {
    Instruction inst;
    int64_t lane = g.laneBase, colByte = g.columnByteBase;
    int64_t sharedByte = g.sharedBase;
    int64_t rest = i;
    for (const Mode &m : repeat) {
      int64_t d = rest % m.extent;
      rest /= m.extent;
      sharedByte += d * m.sharedStride;
      (m.tmemAxis == Axis::TLane ? lane : colByte) += d * m.tmemStride;
    }
    if (colByte % 16)
      return Status::failure("tensor-memory column offset " +
                             columnBytes(colByte) +
                             " is not 128-bit aligned "
                             "(a multiple of 4 columns)");
    inst.column = colByte / 4;
    if (inst.column + rowBytes / 4 > kTmemColumns)
      return Status::failure("columns " + str(inst.column) + ".." +
                             str(inst.column + rowBytes / 4 - 1) +
                             " pass tensor memory's 512 columns");
    if (lane < 0 || lane + lastLane >= kTmemLanes)
      return Status::failure("an instruction at lane " + str(lane) +
                             " writes lanes up to " + str(lane + lastLane) +
                             ": more than tensor memory's 128 lanes");
    inst.lane = lane;
    if (sharedByte % 16)
      return Status::failure("shared start byte " + str(sharedByte) +
                             " is not 16-byte aligned");
    if (swizzled) {
      int64_t phase = (sharedByte % (8 * w)) / w;
      if (phase)
        return Status::failure("shared start byte " + str(sharedByte) +
                               " is row " + str(phase) + " of a " + str(w) +
                               "-byte swizzle atom: a swizzled tile must "
                               "start at an atom's first row");
      if (sharedByte % w + rowBytes > w)
        return Status::failure("a " + str(rowBytes) + "-byte row starting " +
                               str(sharedByte % w) + " bytes into a " + str(w) +
                               "-byte swizzle row runs past it");
    }
    inst.sharedByte = sharedByte;
    plan.instructions.push_back(inst);
  }
  llvm::sort(plan.instructions, [](const Instruction &x, const Instruction &y) {
    return std::tie(x.column, x.lane, x.sharedByte) <
           std::tie(y.column, y.lane, y.sharedByte);
  });
  return Status::success();
}

/// Footprints must not overlap: two modes stepping onto the same cells
/// would make the copy ill-defined.
Status FormPlanner::checkFootprints() const {
  llvm::SmallVector<int64_t, 4> replicas = form.replicaLanes();
  std::vector<bool> written(kTmemLanes * kTmemColumns, false);
  for (const Instruction &inst : plan.instructions)
    for (int64_t r = 0; r < form.rows(); ++r)
      for (int64_t rep : replicas)
        for (int64_t c = 0; c < rowBytes / 4; ++c) {
          size_t cell = (inst.lane + form.lane(r) + rep) * kTmemColumns +
                        inst.column + c;
          if (written[cell])
            return Status::failure("two elements land in tensor-memory lane " +
                                   str(inst.lane + form.lane(r) + rep) +
                                   ", column " + str(inst.column + c));
          written[cell] = true;
        }
  return Status::success();
}

OrReason<Plan> planForm(const Request &req, const Geometry &g, Form form) {
  FormPlanner p(req, g, form);
  Status s = p.takeRow();
  if (s)
    s = p.takeRows();
  if (s)
    s = p.listInstructions();
  if (s)
    s = p.checkFootprints();
  if (!s)
    return OrReason<Plan>::failure(s.reason());
  return std::move(p.plan);
}

} // namespace

OrReason<Plan> tcgen05_cp::planSharedToTmemCopy(const Request &req) {
  using R = OrReason<Plan>;
  if (req.ctaGroup != 1 && req.ctaGroup != 2)
    return R::failure("cta_group " + str(req.ctaGroup) + " (1 or 2)");
  OrReason<Geometry> g = geometryOf(req);
  if (!g)
    return R::failure(g.reason());
  if (req.statedMulticast && *req.statedMulticast != g->multicast) {
    TileLayout canonical = req.tmem.layout.canonicalize();
    llvm::ArrayRef<Iter> replica = canonical.replica();
    return R::failure(
        "cp_multicast " + multicastName(*req.statedMulticast) +
        " disagrees with the destination: " +
        (replica.empty() ? std::string("it has no replica (no multicast)")
                         : "its replica " + replicaString(replica) +
                               " is multicast " +
                               multicastName(g->multicast)));
  }
  llvm::SmallVector<Form, 3> forms = formsFor(g->multicast);
  if (req.forcedShape) {
    llvm::erase_if(forms,
                   [&](const Form &f) { return f.shape != *req.forcedShape; });
    if (forms.empty())
      return R::failure(
          "cp_shape " + cuda::tcgen05CpShapeName(*req.forcedShape).str() +
          " does not fit the tensor-memory replica: the destination's "
          "multicast is " +
          (g->multicast == Multicast::None
               ? std::string("none (128x256b, 128x128b, 4x256b)")
               : formsFor(g->multicast).front().name()));
  }
  std::vector<std::string> rejected;
  for (const Form &form : forms) {
    OrReason<Plan> plan = planForm(req, *g, form);
    if (plan) {
      plan->rejectedForms = std::move(rejected);
      return plan;
    }
    rejected.push_back(form.name() + ": " + plan.reason());
  }
  if (rejected.size() == 1)
    return R::failure(rejected.front());
  Reasons why;
  why.add("no tcgen05.cp form fits");
  for (const std::string &r : rejected)
    why.add(r);
  return R::failure(why.str());
}

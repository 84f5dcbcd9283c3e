//===- LocalAccessCheck.cpp - translation validation of tile.store / load -===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Runs what the tile.store / tile.load emitters wrote once per thread of the
// group (tid.x bound to the thread, the memory buffer at byte 0, each
// runtime region offset bound to 1 where the region fits, else 0) and reads
// back, for every register of the local tile, the byte address it was
// stored to or loaded from: plain and vector accesses lane by lane,
// stmatrix by its warp-collective semantics (lane 8i + x supplies row x of
// matrix i; lane 4q + r's word i holds (q, 2r), (q, 2r + 1), transposed
// with .trans), tcgen05.ld 32x32b by lane (warp lane i reads tensor-memory
// lane base + i, register j column base + j). Each must be where the
// memory buffer's layout puts the element the local layout gives that
// register in that thread (placements from TileLayout::apply, not from the
// planners), every register exactly once, with at most one rounding.
//
//===----------------------------------------------------------------------===//

#include "../Local/LocalCommon.h"
#include "LocalPlacement.h"
#include "LoweringCheck.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <map>

using namespace mlir;
using namespace tile;
using namespace tile::lowering_check;

namespace {

SmallVector<int64_t, 4> coordOf(int64_t e, ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = e % shape[d];
    e /= shape[d];
  }
  return c;
}

/// A register of the local tile, after at most `roundings` float roundings.
struct RegisterValue {
  int64_t reg;
  int roundings = 0;
};

/// The per-thread interpreter: integers (and pointers, as byte offsets)
/// where they are known; register values where a value is a local
/// register, converted.
class Thread {
public:
  DenseMap<Value, int64_t> ints;
  DenseMap<Value, RegisterValue> regs;
  DenseMap<Value, SmallVector<std::optional<RegisterValue>, 8>> vectors;
  Value local; // the lowered local tile

  std::optional<int64_t> get(Value v) const {
    auto it = ints.find(v);
    return it == ints.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }

  /// The register `v` holds, if it is one (a scalar).
  std::optional<RegisterValue> reg(Value v) const {
    auto it = regs.find(v);
    return it == regs.end() ? std::nullopt
                            : std::optional<RegisterValue>(it->second);
  }

  void run(Operation *op, int64_t tid);
};

int64_t bytesOf(Type type) {
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * bytesOf(vector.getElementType());
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    return array.getNumElements() * bytesOf(array.getElementType());
  return 0;
}

void Thread::run(Operation *op, int64_t tid) {
  auto in = [&](unsigned i) { return get(op->getOperand(i)); };
  auto set = [&](int64_t v) { ints[op->getResult(0)] = v; };
  if (isa<NVVM::ThreadIdXOp>(op))
    return set(tid);
  if (auto c = dyn_cast<LLVM::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      set(i.getValue().getSExtValue());
    return;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      set(i.getValue().getSExtValue());
    return;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, LLVM::ZExtOp,
          LLVM::SExtOp, LLVM::TruncOp, LLVM::IntToPtrOp, LLVM::PtrToIntOp>(
          op)) {
    if (auto v = in(0))
      set(*v);
    return; // integer casts do not carry a register's value
  }
  if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
    if (gep.getBase() == local)
      return; // a register's address: read by loads and stores below
    auto base = get(gep.getBase());
    ArrayRef<int32_t> raw = gep.getRawConstantIndices();
    if (!base || raw.size() != 1)
      return;
    int64_t index;
    if (raw[0] == LLVM::GEPOp::kDynamicIndex) {
      auto dynamic = get(gep.getDynamicIndices()[0]);
      if (!dynamic)
        return;
      index = *dynamic;
    } else {
      index = raw[0];
    }
    ints[gep.getResult()] = *base + index * bytesOf(gep.getElemType());
    return;
  }
  if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
    if (auto gep = load.getAddr().getDefiningOp<LLVM::GEPOp>();
        gep && gep.getBase() == local) {
      ArrayRef<int32_t> raw = gep.getRawConstantIndices();
      if (raw.size() == 2 && raw[1] >= 0)
        regs[load.getResult()] = RegisterValue{raw[1], 0};
    }
    return;
  }
  if (isa<LLVM::FPExtOp, LLVM::BitcastOp>(op) && op->getNumResults() == 1) {
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    bool sameBits = !isa<LLVM::BitcastOp>(op) ||
                    (from.isIntOrFloat() && to.isIntOrFloat() &&
                     from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth());
    if (auto r = reg(op->getOperand(0)); r && sameBits)
      regs[op->getResult(0)] = *r;
    // A vector's lanes travel through casts (stmatrix takes a packed pair
    // as one 32-bit word).
    if (auto it = vectors.find(op->getOperand(0)); it != vectors.end()) {
      auto lanes = it->second; // a copy: inserting may rehash the map
      vectors[op->getResult(0)] = std::move(lanes);
    }
    return;
  }
  if (isa<LLVM::FPTruncOp>(op)) {
    if (auto r = reg(op->getOperand(0)))
      regs[op->getResult(0)] = RegisterValue{r->reg, r->roundings + 1};
    return;
  }
  if (auto undef = dyn_cast<LLVM::UndefOp>(op)) {
    if (auto vector = dyn_cast<VectorType>(undef.getType()))
      vectors[undef.getResult()].assign(vector.getNumElements(), std::nullopt);
    return;
  }
  if (auto insert = dyn_cast<LLVM::InsertElementOp>(op)) {
    auto it = vectors.find(insert.getVector());
    auto position = get(insert.getPosition());
    if (it == vectors.end() || !position || *position < 0 ||
        *position >= int64_t(it->second.size()))
      return;
    auto lanes = it->second;
    lanes[*position] = reg(insert.getValue());
    vectors[insert.getResult()] = lanes;
    return;
  }
  if (op->getNumResults() != 1 || op->getNumOperands() != 2)
    return;
  auto a = in(0), b = in(1);
  if (!a || !b)
    return;
  if (isa<LLVM::AddOp, arith::AddIOp>(op))
    return set(*a + *b);
  if (isa<LLVM::SubOp, arith::SubIOp>(op))
    return set(*a - *b);
  if (isa<LLVM::MulOp, arith::MulIOp>(op))
    return set(*a * *b);
  if (isa<LLVM::UDivOp, arith::DivUIOp>(op) && *b > 0)
    return set(*a / *b);
  if (isa<LLVM::URemOp, arith::RemUIOp>(op) && *b > 0)
    return set(*a % *b);
  if (isa<LLVM::AndOp, arith::AndIOp>(op))
    return set(*a & *b);
  if (isa<LLVM::OrOp, arith::OrIOp>(op))
    return set(*a | *b);
  if (isa<LLVM::XOrOp, arith::XOrIOp>(op))
    return set(*a ^ *b);
  if (isa<LLVM::LShrOp, arith::ShRUIOp>(op) && *b < 64)
    return set(*a >> *b);
  if (isa<LLVM::ShlOp, arith::ShLIOp>(op) && *b < 64)
    return set(*a << *b);
}

/// The values bound for the op's runtime region offsets: 1 where the
/// region still fits the buffer, else 0; and the region's full offsets.
struct Region {
  DenseMap<Value, int64_t> bound;
  SmallVector<int64_t, 4> offsets;
};

Region regionOf(BufferType memory, ArrayRef<int64_t> staticOffsets,
                ValueRange loweredDynamic, ArrayRef<int64_t> localShape) {
  Region region;
  const size_t lead = memory.getRank() - localShape.size();
  // One value per SSA value (it may index several dims): 1 where the
  // region fits every dim it indexes with it, else 0.
  size_t next = 0;
  for (auto [d, offset] : llvm::enumerate(staticOffsets)) {
    if (!ShapedType::isDynamic(offset))
      continue;
    int64_t size = d < lead ? 1 : localShape[d - lead];
    bool fits = memory.getShape()[d] - size >= 1;
    auto [it, inserted] = region.bound.insert({loweredDynamic[next++], 1});
    if (!fits)
      it->second = 0;
  }
  next = 0;
  for (int64_t offset : staticOffsets)
    region.offsets.push_back(ShapedType::isDynamic(offset)
                                 ? region.bound[loweredDynamic[next++]]
                                 : offset);
  return region;
}

/// Where `memory`'s layout puts element `e` of the local tile (its region
/// coordinate plus the offsets), in bytes (tensor memory: lane << 16 |
/// 32-bit column).
int64_t expectedAddress(BufferType memory, const TileLayout &layout,
                        ArrayRef<int64_t> localShape, const Region &region,
                        int64_t e) {
  SmallVector<int64_t, 4> coord(region.offsets);
  const size_t lead = memory.getRank() - localShape.size();
  SmallVector<int64_t, 4> c = coordOf(e, localShape);
  for (size_t d = 0; d < c.size(); ++d)
    coord[lead + d] += c[d];
  AxisAddress a = layout.apply(coord, memory.getShape());
  if (memory.getScope() == MemoryScope::tmem)
    return (tile::at(a, Axis::TLane) << 16) |
           (tile::at(a, Axis::TCol) * memory.getElementBits() / 32);
  return tile::at(a, Axis::m) * memory.getElementBits() / 8;
}

/// Compares what one thread's registers were read back at with where the
/// layouts put their elements.
Status compareThread(int64_t t, const Placement &local,
                     const std::map<int64_t, int64_t> &addressOf,
                     llvm::function_ref<int64_t(int64_t)> expected) {
  for (int64_t r = 0; r < local.registers; ++r) {
    int64_t e = local.at(t, r);
    auto it = addressOf.find(r);
    if (e < 0) {
      if (it != addressOf.end())
        return Status::failure("thread " + std::to_string(t) +
                               " accesses register " + std::to_string(r) +
                               ", which holds no element");
      continue;
    }
    if (it == addressOf.end())
      return Status::failure("thread " + std::to_string(t) + "'s register " +
                             std::to_string(r) + " is never accessed");
    if (it->second != expected(e))
      return Status::failure(
          "thread " + std::to_string(t) + "'s register " + std::to_string(r) +
          " is accessed at byte " + std::to_string(it->second) +
          "; its element is at byte " + std::to_string(expected(e)));
  }
  return Status::success();
}

Status record(std::map<int64_t, int64_t> &addressOf, RegisterValue value,
              int64_t address, int64_t t, int maxRoundings) {
  if (value.roundings != maxRoundings)
    return Status::failure("thread " + std::to_string(t) + "'s register " +
                           std::to_string(value.reg) + " is rounded " +
                           std::to_string(value.roundings) + " times, not " +
                           std::to_string(maxRoundings));
  if (!addressOf.emplace(value.reg, address).second)
    return Status::failure("thread " + std::to_string(t) + "'s register " +
                           std::to_string(value.reg) +
                           " is accessed twice");
  return Status::success();
}

/// The roundings a float conversion from `from` to `to` makes (the
/// emitters' convertFloat): none when equal or wider, one otherwise (bf16
/// <-> f16 through an exact widening to f32).
int roundingsAllowed(Type from, Type to) {
  if (from == to)
    return 0;
  return to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth() ? 0 : 1;
}

/// Why a stored or loaded memory access has the wrong element type, or "".
std::string accessTypeProblem(Type accessed, Type memoryElement) {
  Type element = accessed;
  if (auto vector = dyn_cast<VectorType>(accessed))
    element = vector.getElementType();
  Type want = registerStorageType(memoryElement);
  if (element == want)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "an access of " << accessed << " where the memory holds " << want;
  return text;
}

//===----------------------------------------------------------------------===//
// tile.store
//===----------------------------------------------------------------------===//

Status checkStore(StoreOp op, ValueRange lowered,
                  ArrayRef<Operation *> emitted) {
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  OrReason<Placement> local = placementOf(src);
  if (!local)
    return Status::failure(local.reason());
  TileLayout layout = *dst.getEffectiveLayout();
  Region region = regionOf(dst, op.getDstStaticOffsets(),
                           lowered.drop_front(2), src.getShape());
  const int maxRoundings =
      roundingsAllowed(src.getElementType(), dst.getElementType());
  const int64_t group = std::max<int64_t>(local->threads, 32);
  const int64_t bytes = std::max<int64_t>(1, dst.getElementBits() / 8);
  // Every thread of a warp at once: stmatrix is warp-collective.
  for (int64_t warp = 0; warp < group; warp += 32) {
    std::array<Thread, 32> lanes;
    std::array<std::map<int64_t, int64_t>, 32> addressOf;
    for (int64_t l = 0; l < 32; ++l) {
      lanes[l].local = lowered[0];
      lanes[l].ints[lowered[1]] = 0;
      for (auto [v, x] : region.bound)
        lanes[l].ints[v] = x;
    }
    for (Operation *op2 : emitted) {
      for (int64_t l = 0; l < 32; ++l)
        lanes[l].run(op2, warp + l);
      if (auto store = dyn_cast<LLVM::StoreOp>(op2)) {
        if (std::string why = accessTypeProblem(store.getValue().getType(),
                                                dst.getElementType());
            !why.empty())
          return Status::failure(why);
        for (int64_t l = 0; l < 32; ++l) {
          Thread &th = lanes[l];
          auto address = th.get(store.getAddr());
          if (!address)
            return Status::failure("a store's address is not read back");
          if (auto r = th.reg(store.getValue())) {
            if (Status s = record(addressOf[l], *r, *address, warp + l,
                                  maxRoundings);
                !s)
              return s;
            continue;
          }
          auto vec = th.vectors.find(store.getValue());
          if (vec == th.vectors.end())
            return Status::failure("a stored value is not read back as "
                                   "registers of the tile");
          for (auto [k, r] : llvm::enumerate(vec->second)) {
            if (!r)
              return Status::failure("a vector store writes an undefined "
                                     "lane");
            if (Status s = record(addressOf[l], *r, *address + k * bytes,
                                  warp + l, maxRoundings);
                !s)
              return s;
          }
        }
        continue;
      }
      if (auto st = dyn_cast<NVVM::StMatrixOp>(op2)) {
        bool trans = st.getLayout() == NVVM::MMALayout::col;
        int64_t count = st.getSources().size();
        std::array<int64_t, 32> rowAddress{};
        for (int64_t l = 0; l < 32; ++l) {
          auto a = lanes[l].get(st.getPtr());
          if (!a)
            return Status::failure("a stmatrix row address is not read back");
          rowAddress[l] = *a;
        }
        for (int64_t l = 0; l < 32; ++l)
          for (int64_t i = 0; i < count; ++i) {
            auto vec = lanes[l].vectors.find(st.getSources()[i]);
            if (vec == lanes[l].vectors.end() || vec->second.size() != 2)
              return Status::failure("a stmatrix source is not a pair of "
                                     "registers");
            for (int64_t h = 0; h < 2; ++h) {
              auto r = vec->second[h];
              if (!r)
                return Status::failure("a stmatrix source half is undefined");
              int64_t q = l / 4, c = 2 * (l % 4) + h;
              int64_t address =
                  trans ? rowAddress[8 * i + c] + q * 2
                        : rowAddress[8 * i + q] + c * 2;
              if (Status s =
                      record(addressOf[l], *r, address, warp + l, maxRoundings);
                  !s)
                return s;
            }
          }
        continue;
      }
    }
    for (int64_t l = 0; l < 32; ++l) {
      int64_t t = warp + l;
      if (t >= group)
        break;
      if (Status s = compareThread(t, *local, addressOf[l], [&](int64_t e) {
            return expectedAddress(dst, layout, src.getShape(), region, e);
          });
          !s)
        return s;
    }
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// tile.load
//===----------------------------------------------------------------------===//

/// Where each value a tile.load's emitted code read from memory came from:
/// a byte address (global, shared) or lane << 16 | column (tensor memory),
/// per vector lane for vector values.
struct Reads {
  DenseMap<Value, int64_t> at;
  DenseMap<Value, SmallVector<int64_t, 8>> lanes;
};

/// Records a memory load or a tcgen05.ld of thread `t`; `handled` is set
/// when `op` is one.
Status recordRead(Operation *op, const Thread &th, int64_t t, int64_t bytes,
                  Type memoryElement, Reads &reads, bool &handled) {
  handled = true;
  if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
    if (std::string why = accessTypeProblem(load.getType(), memoryElement);
        !why.empty())
      return Status::failure(why);
    auto address = th.get(load.getAddr());
    if (!address)
      return Status::failure("a load's address is not read back");
    if (auto vector = dyn_cast<VectorType>(load.getType())) {
      SmallVector<int64_t, 8> at;
      for (int64_t k = 0; k < vector.getNumElements(); ++k)
        at.push_back(*address + k * bytes);
      reads.lanes[load.getResult()] = at;
    } else {
      reads.at[load.getResult()] = *address;
    }
    return Status::success();
  }
  if (auto ld = dyn_cast<NVVM::Tcgen05LdOp>(op)) {
    auto address = th.get(ld.getTmemAddr());
    if (!address)
      return Status::failure("a tcgen05.ld address is not read back");
    // 32x32b: warp lane i reads lane base + i, element j column base + j.
    int64_t lane = (*address >> 16) + t % 32, column = *address & 0xffff;
    auto vector = dyn_cast<VectorType>(ld.getResult().getType());
    int64_t n = vector ? vector.getNumElements() : 1;
    SmallVector<int64_t, 8> at;
    for (int64_t j = 0; j < n; ++j)
      at.push_back((lane << 16) | (column + j));
    if (vector)
      reads.lanes[ld.getResult()] = at;
    else
      reads.at[ld.getResult()] = at.front();
    return Status::success();
  }
  handled = false;
  return Status::success();
}

/// What one lane of the warp knows while a tile.load's code runs.
struct LoadLane {
  Thread th;
  Reads reads;
  /// The byte addresses of the halves of an ldmatrix result's word i.
  DenseMap<std::pair<Value, int64_t>, SmallVector<int64_t, 8>> words;
  std::map<int64_t, int64_t> addressOf;
  bool loadsWaited = true;
};

/// One emitted op in one lane of a tile.load's code: memory reads
/// recorded, their values followed to the registers they are stored in.
Status stepLoadLane(Operation *op2, LoadLane &lane, int64_t t, int64_t bytes,
                    BufferType src, Value dstTile, bool tmem,
                    int maxRoundings) {
  Thread &th = lane.th;
  DenseMap<Value, int64_t> &loadedAt = lane.reads.at;
  DenseMap<Value, SmallVector<int64_t, 8>> &lanesAt = lane.reads.lanes;
  if (auto extract = dyn_cast<LLVM::ExtractValueOp>(op2)) {
    ArrayRef<int64_t> position = extract.getPosition();
    auto it = lane.words.find({extract.getContainer(),
                               position.size() == 1 ? position[0] : -1});
    if (it != lane.words.end()) {
      auto halves = it->second; // inserting may rehash the map
      lanesAt[extract.getResult()] = halves;
    }
    return Status::success();
  }
  if (auto extract = dyn_cast<LLVM::ExtractElementOp>(op2)) {
    auto it = lanesAt.find(extract.getVector());
    auto k = th.get(extract.getPosition());
    if (it != lanesAt.end() && k && *k >= 0 && *k < int64_t(it->second.size()))
      loadedAt[extract.getResult()] = it->second[*k];
    return Status::success();
  }
  if (auto wait = dyn_cast<NVVM::Tcgen05WaitOp>(op2)) {
    if (wait.getKind() == NVVM::Tcgen05WaitKind::LOAD)
      lane.loadsWaited = true;
    return Status::success();
  }
  bool handled = false;
  if (Status st = recordRead(op2, th, t, bytes, src.getElementType(),
                             lane.reads, handled);
      !st)
    return st;
  if (isa<NVVM::Tcgen05LdOp>(op2))
    lane.loadsWaited = false;
  if (handled)
    return Status::success();
  if (isa<LLVM::FPExtOp, LLVM::FPTruncOp, LLVM::BitcastOp>(op2)) {
    auto it = loadedAt.find(op2->getOperand(0));
    if (it != loadedAt.end()) {
      int64_t address = it->second; // inserting may rehash the map
      loadedAt[op2->getResult(0)] = address;
    }
    // A packed word's halves travel through the bitcast to a pair.
    auto pair = lanesAt.find(op2->getOperand(0));
    if (pair != lanesAt.end()) {
      auto halves = pair->second;
      lanesAt[op2->getResult(0)] = halves;
    }
    return Status::success();
  }
  auto store = dyn_cast<LLVM::StoreOp>(op2);
  if (!store)
    return Status::success();
  auto gep = store.getAddr().getDefiningOp<LLVM::GEPOp>();
  ArrayRef<int32_t> raw =
      gep ? gep.getRawConstantIndices() : ArrayRef<int32_t>();
  if (!gep || gep.getBase() != dstTile || raw.size() != 2 || raw[1] < 0)
    return Status::failure("the lowering stores somewhere other than a "
                           "register of the tile");
  if (tmem && !lane.loadsWaited)
    return Status::failure("a register is written from tensor memory "
                           "before tcgen05.wait::ld");
  auto it = loadedAt.find(store.getValue());
  if (it == loadedAt.end())
    return Status::failure("register " + std::to_string(raw[1]) +
                           " is not read back as a loaded element");
  // Roundings: fptrunc between the load and the store.
  int roundings = 0;
  for (Value v = store.getValue(); v.getDefiningOp();) {
    Operation *def = v.getDefiningOp();
    if (isa<LLVM::FPTruncOp>(def))
      ++roundings;
    if (!isa<LLVM::FPTruncOp, LLVM::FPExtOp, LLVM::BitcastOp>(def))
      break;
    v = def->getOperand(0);
  }
  return record(lane.addressOf, RegisterValue{raw[1], roundings}, it->second,
                t, maxRoundings);
}

/// ldmatrix (warp-collective, like stmatrix): lane l receives, in word i,
/// row l / 4 of matrix i, columns 2 (l % 4) and + 1 (transposed: the
/// roles swap), from the row addresses lanes 8i..8i+7 supply.
Status recordLdMatrix(NVVM::LdMatrixOp ld, std::array<LoadLane, 32> &lanes,
                      int64_t bytes) {
  if (bytes != 2)
    return Status::failure("ldmatrix of a source whose elements are not "
                           "16-bit");
  if (ld.getShape().getM() != 8 || ld.getShape().getN() != 8 ||
      ld.getEltType() != NVVM::LdStMatrixEltType::B16)
    return Status::failure("an ldmatrix that is not m8n8 b16");
  bool trans = ld.getLayout() == NVVM::MMALayout::col;
  int64_t count = ld.getNum();
  std::array<int64_t, 32> rowAddress{};
  for (int64_t l = 0; l < 32; ++l) {
    auto a = lanes[l].th.get(ld.getPtr());
    if (!a)
      return Status::failure("an ldmatrix row address is not read back");
    // Rows are 16 bytes; the buffer and the region's bound offsets are
    // placed at multiples of 16 here, so a misaligned row is the emitter's.
    if (*a % 16)
      return Status::failure("lane " + std::to_string(l) +
                             " supplies an ldmatrix row address that is not "
                             "16-byte aligned (byte " + std::to_string(*a) +
                             ")");
    rowAddress[l] = *a;
  }
  for (int64_t l = 0; l < 32; ++l)
    for (int64_t i = 0; i < count; ++i) {
      SmallVector<int64_t, 8> halves;
      for (int64_t h = 0; h < 2; ++h) {
        int64_t q = l / 4, c = 2 * (l % 4) + h;
        halves.push_back(trans ? rowAddress[8 * i + c] + q * 2
                               : rowAddress[8 * i + q] + c * 2);
      }
      // Word i: the result itself (one matrix) or its field i.
      if (count == 1)
        lanes[l].reads.lanes[ld.getResult()] = halves;
      else
        lanes[l].words[{ld.getResult(), i}] = halves;
    }
  return Status::success();
}

Status checkLoad(LoadOp op, ValueRange lowered,
                 ArrayRef<Operation *> emitted) {
  BufferType src = op.getSrc().getType(), dst = op.getDst().getType();
  OrReason<Placement> local = placementOf(dst);
  if (!local)
    return Status::failure(local.reason());
  TileLayout layout = *src.getEffectiveLayout();
  const size_t numOffsets = op.getSrcOffsets().size();
  const bool tmem = src.getScope() == MemoryScope::tmem;
  // tcgen05.ld's source was moved to its stage before the emitter ran; the
  // region's own offsets are static.
  Region region = regionOf(src, op.getSrcStaticOffsets(),
                           lowered.slice(1, numOffsets), dst.getShape());
  if (tmem)
    for (auto [d, offset] : llvm::enumerate(op.getSrcStaticOffsets()))
      if (ShapedType::isDynamic(offset))
        region.offsets[d] = 0;
  const int maxRoundings =
      roundingsAllowed(src.getElementType(), dst.getElementType());
  const int64_t group = std::max<int64_t>(local->threads, 32);
  const int64_t bytes = std::max<int64_t>(1, src.getElementBits() / 8);
  Value dstTile = lowered.back();
  // Every lane of a warp at once: ldmatrix is warp-collective.
  for (int64_t warp = 0; warp < group; warp += 32) {
    std::array<LoadLane, 32> lanes;
    for (LoadLane &lane : lanes) {
      lane.th.local = Value(); // loads here read memory; registers are written
      lane.th.ints[lowered[0]] = 0;
      for (auto [v, x] : region.bound)
        lane.th.ints[v] = x;
    }
    for (Operation *op2 : emitted) {
      for (int64_t l = 0; l < 32; ++l)
        lanes[l].th.run(op2, warp + l);
      if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op2)) {
        if (Status st = recordLdMatrix(ld, lanes, bytes); !st)
          return st;
        continue;
      }
      for (int64_t l = 0; l < 32; ++l)
        if (Status st = stepLoadLane(op2, lanes[l], warp + l, bytes, src,
                                     dstTile, tmem, maxRoundings);
            !st)
          return st;
    }
    for (int64_t l = 0; l < 32 && warp + l < group; ++l)
      if (Status s = compareThread(
              warp + l, *local, lanes[l].addressOf, [&](int64_t e) {
                return expectedAddress(src, layout, dst.getShape(), region, e);
              });
          !s)
        return s;
  }
  return Status::success();
}

} // namespace

void tile::local::registerLocalAccessChecks(
    dispatch::VariantRegistry &registry) {
  using dispatch::kCudaFamily;
  registry.setCheck("tile.store", kCudaFamily, "stmatrix",
                    checkOf<StoreOp>(checkStore, "stmatrix"));
  registry.setCheck("tile.store", kCudaFamily, "vector",
                    checkOf<StoreOp>(checkStore, "vector"));
  registry.setCheck("tile.load", kCudaFamily, "vector",
                    checkOf<LoadOp>(checkLoad, "vector"));
  registry.setCheck("tile.load", kCudaFamily, "ldmatrix",
                    checkOf<LoadOp>(checkLoad, "ldmatrix"));
  registry.setCheck("tile.load", kCudaFamily, "tcgen05_ld",
                    checkOf<LoadOp>(checkLoad, "tcgen05_ld"));
}

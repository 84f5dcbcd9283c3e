//===- Manifest.cpp - the launch manifest of compiled kernels ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Fills the manifest schema from a lowered module: the kernel's source
// signature (what the host passes), its lowered parameters (what the driver
// gets), launch bounds, shared memory, the tensor-map plans and the dispatch
// records. The JSON keys are the schema's (lib/Manifest), not spelled here.
//
//===----------------------------------------------------------------------===//

#include "tile/Pipeline/Manifest.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dispatch/KernelABI.h"
#include "tile/Manifest/SanitizeReport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/ScopedPrinter.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tile::manifest;
using tile::dispatch::kArgAlignmentAttr;
using tile::dispatch::kDispatchAttr;
using tile::dispatch::kDynamicSharedBytesAttr;
using tile::dispatch::kSourceSignatureAttr;
using tile::dispatch::kTensorMapsAttr;
using tile::dispatch::kVersionOfAttr;

namespace {

FunctionType sourceSignature(LLVM::LLVMFuncOp func) {
  auto signature = func->getAttrOfType<TypeAttr>(kSourceSignatureAttr);
  return signature ? dyn_cast<FunctionType>(signature.getValue())
                   : FunctionType();
}

SmallVector<int64_t, 5> staticOrMinusOne(ArrayRef<int64_t> values) {
  SmallVector<int64_t, 5> out;
  for (int64_t v : values)
    out.push_back(ShapedType::isDynamic(v) ? int64_t(-1) : v);
  return out;
}

/// The kernel's source arguments, what a host passes: each a memref
/// (element type and bits, static shape and strides), a scalar, or a
/// tensor map the host encodes from a plan.
std::vector<ArgSpec> sourceArguments(LLVM::LLVMFuncOp func,
                                     ArrayRef<TensorMapSpec> maps) {
  std::vector<ArgSpec> args;
  FunctionType type = sourceSignature(func);
  if (!type)
    return args;
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    ArgSpec arg;
    arg.index = index;
    arg.type = llvm::to_string(input);
    auto map = llvm::find_if(
        maps, [&](const TensorMapSpec &m) { return m.param == index; });
    if (map != maps.end()) {
      arg.kind = ArgSpec::Kind::TensorMap;
      arg.map = int(map - maps.begin());
    } else if (auto memref = dyn_cast<MemRefType>(input)) {
      arg.kind = ArgSpec::Kind::MemRef;
      Type element = memref.getElementType();
      arg.elementType = llvm::to_string(element);
      if (element.isIntOrFloat())
        arg.elementBits = element.getIntOrFloatBitWidth();
      arg.shape = staticOrMinusOne(memref.getShape());
      SmallVector<int64_t> strides;
      int64_t offset;
      if (succeeded(memref.getStridesAndOffset(strides, offset))) {
        arg.strides = staticOrMinusOne(strides);
        if (!ShapedType::isDynamic(offset) && offset >= 0)
          arg.offset = offset;
      }
    } else {
      arg.kind = ArgSpec::Kind::Scalar;
      if (input.isIntOrFloat())
        arg.scalarBits = input.getIntOrFloatBitWidth();
    }
    args.push_back(std::move(arg));
  }
  return args;
}

/// Each lowered parameter and the part of a source argument it holds
/// (dispatch::loweredParamParts); no sources when the signature is unknown
/// or does not match the parameters.
std::vector<ParamSpec> parameters(LLVM::LLVMFuncOp func,
                                  const DataLayout &layout) {
  std::vector<std::pair<int, std::string>> sources;
  if (FunctionType type = sourceSignature(func))
    for (auto [index, input] : llvm::enumerate(type.getInputs()))
      for (std::string &part : tile::dispatch::loweredParamParts(input))
        sources.emplace_back(int(index), std::move(part));
  if (sources.size() != func.getNumArguments())
    sources.clear();
  std::vector<ParamSpec> params;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Type type = func.getArgument(i).getType();
    ParamSpec p;
    p.index = i;
    p.type = llvm::to_string(type);
    p.bytes = layout.getTypeSize(type);
    // PTX kernel parameters of scalar and pointer type are naturally aligned.
    p.align = p.bytes;
    p.kind = isa<LLVM::LLVMPointerType>(type) ? ParamSpec::Kind::Pointer
             : isa<IntegerType>(type)        ? ParamSpec::Kind::Integer
             : isa<FloatType>(type)          ? ParamSpec::Kind::Float
                                             : ParamSpec::Kind::Other;
    // By-value parameters (tensor maps) pass their pointee's bytes.
    if (auto byval = func.getArgAttrOfType<TypeAttr>(
            i, LLVM::LLVMDialect::getByValAttrName())) {
      p.bytes = layout.getTypeSize(byval.getValue());
      p.kind = func.getArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName())
                   ? ParamSpec::Kind::GridConstant
                   : ParamSpec::Kind::ByVal;
    }
    if (auto a = func.getArgAttrOfType<IntegerAttr>(
            i, LLVM::LLVMDialect::getAlignAttrName()))
      p.align = a.getInt();
    if (!sources.empty())
      std::tie(p.sourceArg, p.part) = sources[i];
    params.push_back(std::move(p));
  }
  return params;
}

std::vector<TensorMapSpec> tensorMaps(LLVM::LLVMFuncOp func) {
  std::vector<TensorMapSpec> maps;
  auto records = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr);
  if (!records)
    return maps;
  for (auto plan : records.getAsRange<tile::TensorMapPlanAttr>()) {
    TensorMapSpec t;
    t.param = plan.getParam();
    t.globalArg = plan.getGlobalArg();
    t.loweredParam = plan.getLoweredParam().value_or(0);
    t.loweredGlobalParam = plan.getLoweredGlobalParam().value_or(0);
    // The variant wrote the name from the same table.
    t.dataType = *parseDataType(plan.getDataType());
    t.encode.assign(plan.getEncode().asArrayRef());
    t.dimSources.assign(plan.getDimSources().asArrayRef());
    t.strideSources.assign(plan.getStrideSources().asArrayRef());
    t.strideScales.assign(plan.getStrideScales().asArrayRef());
    t.bytesPerIssue = plan.getBytesPerIssue();
    t.issues = plan.getIssues();
    maps.push_back(std::move(t));
  }
  return maps;
}

std::optional<std::array<unsigned, 3>> dims(LLVM::LLVMFuncOp func,
                                            ArrayRef<StringRef> names) {
  for (StringRef name : names)
    if (auto attr = func->getAttrOfType<DenseI32ArrayAttr>(name)) {
      ArrayRef<int32_t> d = attr.asArrayRef();
      if (d.size() == 3)
        return std::array<unsigned, 3>{unsigned(d[0]), unsigned(d[1]),
                                       unsigned(d[2])};
    }
  return std::nullopt;
}

/// An `extern` global: storage the module does not define.
bool isDeclaration(LLVM::GlobalOp global) {
  return global.getLinkage() == LLVM::Linkage::External &&
         !global.getValueOrNull() && global.getInitializerRegion().empty();
}

/// Bytes of the shared-memory globals `func` uses, laid out in order.
uint64_t staticSharedBytes(LLVM::LLVMFuncOp func, const DataLayout &layout,
                           SymbolTable &symbols) {
  llvm::SetVector<LLVM::GlobalOp> shared;
  func.walk([&](LLVM::AddressOfOp address) {
    auto global = symbols.lookup<LLVM::GlobalOp>(address.getGlobalName());
    // The extern dynamic segment is sized at launch, not here.
    if (global && !isDeclaration(global) &&
        global.getAddrSpace() == unsigned(NVVM::NVVMMemorySpace::Shared))
      shared.insert(global);
  });
  uint64_t bytes = 0;
  for (LLVM::GlobalOp global : shared) {
    uint64_t align = std::max<uint64_t>(global.getAlignment().value_or(1), 1);
    bytes = llvm::alignTo(bytes, align) +
            layout.getTypeSize(global.getGlobalType());
  }
  return bytes;
}

KernelSpec describeKernel(LLVM::LLVMFuncOp func, const DataLayout &layout,
                          SymbolTable &symbols) {
  KernelSpec kernel;
  kernel.name = func.getName().str();
  kernel.tensorMaps = tensorMaps(func);
  kernel.args = sourceArguments(func, kernel.tensorMaps);
  if (auto needs = func->getAttrOfType<ArrayAttr>(kArgAlignmentAttr))
    for (Attribute element : needs) {
      auto need = dyn_cast<DictionaryAttr>(element);
      if (!need)
        continue;
      auto arg = need.getAs<IntegerAttr>("arg");
      auto bytes = need.getAs<IntegerAttr>("bytes");
      auto by = need.getAs<StringAttr>("by");
      auto dims = need.getAs<DenseI64ArrayAttr>("strides");
      if (arg && bytes && by && dims && arg.getInt() >= 0 &&
          arg.getInt() < int64_t(kernel.args.size()) &&
          kernel.args[arg.getInt()].kind == ArgSpec::Kind::MemRef &&
          llvm::all_of(dims.asArrayRef(), [&](int64_t d) {
            return d >= 0 &&
                   d < int64_t(kernel.args[arg.getInt()].shape.size());
          }))
        kernel.args[arg.getInt()].alignment.push_back(
            {uint64_t(bytes.getInt()), by.str(),
             llvm::SmallVector<int64_t, 4>(dims.asArrayRef())});
    }
  if (auto of = func->getAttrOfType<StringAttr>(kVersionOfAttr))
    kernel.versionOf = of.str();
  // A kernel that waits for the grids before it may start before they end.
  func.walk([&](NVVM::GriddepcontrolOp op) {
    if (op.getKind() == NVVM::GridDepActionKind::wait)
      kernel.programmaticLaunch = true;
  });
  kernel.params = parameters(func, layout);
  kernel.blockDims =
      dims(func, {"gpu.known_block_size", NVVM::NVVMDialect::getReqntidAttrName()});
  // A kernel compiled with .reqnctapercluster must be launched as a cluster.
  kernel.clusterDims = dims(func, {NVVM::NVVMDialect::getClusterDimAttrName()});
  kernel.staticSharedBytes = staticSharedBytes(func, layout, symbols);
  if (auto bytes = func->getAttrOfType<IntegerAttr>(kDynamicSharedBytesAttr))
    kernel.dynamicSharedBytes = uint64_t(bytes.getInt());
  if (auto records = func->getAttrOfType<ArrayAttr>(kDispatchAttr))
    for (auto record : records.getAsRange<tile::DispatchRecordAttr>())
      kernel.dispatch.push_back({record.getOp().str(),
                                 record.getVariant().str(),
                                 record.getLoc().str()});
  if (auto checks =
          func->getAttrOfType<ArrayAttr>(tile::sanitize::kSanitizeChecksAttr))
    for (auto check : checks.getAsRange<DictionaryAttr>()) {
      auto text = [&](StringRef key) {
        auto value = check.getAs<StringAttr>(key);
        return value ? value.str() : std::string();
      };
      kernel.sanitizeChecks.push_back(
          {text("kind"), text("loc"), text("what")});
    }
  return kernel;
}

} // namespace

LaunchManifest tile::buildLaunchManifest(ModuleOp lowered) {
  LaunchManifest manifest;
  lowered.walk([&](gpu::GPUModuleOp module) {
    ModuleSpec entry;
    entry.name = module.getName().str();
    if (ArrayAttr targets = module.getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
          entry.chip = nvvm.getChip().str();
    DataLayout layout(module);
    SymbolTable symbols(module);
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        entry.kernels.push_back(describeKernel(func, layout, symbols));
    manifest.modules.push_back(std::move(entry));
  });
  return manifest;
}

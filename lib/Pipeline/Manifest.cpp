//===- Manifest.cpp - the launch manifest of compiled kernels ---------------===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tile/Pipeline/Manifest.h"
#include "tile/Dispatch/KernelABI.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
namespace json = llvm::json;

namespace {

std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// Integers, strings, arrays and dictionaries as JSON (the plan attributes).
json::Value toJSON(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getInt();
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.getValue().str();
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    json::Array out;
    for (Attribute e : a)
      out.push_back(toJSON(e));
    return out;
  }
  if (auto d = dyn_cast<DictionaryAttr>(attr)) {
    json::Object out;
    for (NamedAttribute e : d)
      out[e.getName().str()] = toJSON(e.getValue());
    return out;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

json::Value dims(DenseI32ArrayAttr attr) {
  json::Array out;
  for (int32_t d : attr.asArrayRef())
    out.push_back(d);
  return out;
}

/// What each lowered parameter is, from the kernel's source signature
/// (dispatch::loweredParamParts). Empty when the signature is unknown or does
/// not match the parameters.
std::vector<json::Object> parameterSources(LLVM::LLVMFuncOp func) {
  std::vector<json::Object> sources;
  auto signature =
      func->getAttrOfType<TypeAttr>(tile::dispatch::kSourceSignatureAttr);
  auto type = signature ? dyn_cast<FunctionType>(signature.getValue())
                        : FunctionType();
  if (!type)
    return {};
  for (auto [index, input] : llvm::enumerate(type.getInputs()))
    for (std::string &part : tile::dispatch::loweredParamParts(input)) {
      json::Object source{{"arg", int64_t(index)}};
      if (!part.empty())
        source["part"] = std::move(part);
      sources.push_back(std::move(source));
    }
  if (sources.size() != func.getNumArguments())
    return {};
  return sources;
}

/// The kernel's source arguments, what a host passes (DESIGN.md §6): each a
/// memref (element type and bits, static shape and strides, -1 where
/// dynamic), a scalar, or a tensor map the host encodes from a plan.
json::Array sourceArguments(LLVM::LLVMFuncOp func) {
  json::Array args;
  auto signature =
      func->getAttrOfType<TypeAttr>(tile::dispatch::kSourceSignatureAttr);
  auto type = signature ? dyn_cast<FunctionType>(signature.getValue())
                        : FunctionType();
  if (!type)
    return args;
  llvm::DenseMap<int64_t, int64_t> mapOfArg;
  if (auto maps = func->getAttrOfType<ArrayAttr>(tile::dispatch::kTensorMapsAttr))
    for (auto [i, map] : llvm::enumerate(maps.getAsRange<DictionaryAttr>()))
      if (auto param = map.getAs<IntegerAttr>("param"))
        mapOfArg[param.getInt()] = int64_t(i);
  auto staticOrMinusOne = [](ArrayRef<int64_t> values) {
    json::Array out;
    for (int64_t v : values)
      out.push_back(ShapedType::isDynamic(v) ? int64_t(-1) : v);
    return out;
  };
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    json::Object arg{{"index", int64_t(index)}, {"type", printed(input)}};
    if (auto it = mapOfArg.find(index); it != mapOfArg.end()) {
      arg["kind"] = "tensor_map";
      arg["map"] = it->second;
    } else if (auto memref = dyn_cast<MemRefType>(input)) {
      arg["kind"] = "memref";
      arg["element_type"] = printed(memref.getElementType());
      if (memref.getElementType().isIntOrFloat())
        arg["element_bits"] =
            int64_t(memref.getElementType().getIntOrFloatBitWidth());
      arg["shape"] = staticOrMinusOne(memref.getShape());
      SmallVector<int64_t> strides;
      int64_t offset;
      if (succeeded(memref.getStridesAndOffset(strides, offset)))
        arg["strides"] = staticOrMinusOne(strides);
    } else {
      arg["kind"] = "scalar";
      if (input.isIntOrFloat())
        arg["bits"] = int64_t(input.getIntOrFloatBitWidth());
    }
    args.push_back(std::move(arg));
  }
  return args;
}

json::Object describeKernel(LLVM::LLVMFuncOp func, const DataLayout &layout,
                            SymbolTable &symbols) {
  json::Object kernel{{"name", func.getName().str()}};
  kernel["args"] = sourceArguments(func);

  std::vector<json::Object> sources = parameterSources(func);
  json::Array params;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    Type type = func.getArgument(i).getType();
    json::Object param{{"index", int64_t(i)}, {"type", printed(type)}};
    uint64_t bytes = layout.getTypeSize(type);
    // PTX kernel parameters of scalar and pointer type are naturally aligned.
    uint64_t align = bytes;
    std::string kind = isa<LLVM::LLVMPointerType>(type) ? "pointer"
                       : isa<IntegerType>(type)        ? "integer"
                       : isa<FloatType>(type)          ? "float"
                                                       : "other";
    // By-value parameters (tensor maps) pass their pointee's bytes.
    if (auto byval = func.getArgAttrOfType<TypeAttr>(
            i, LLVM::LLVMDialect::getByValAttrName())) {
      bytes = layout.getTypeSize(byval.getValue());
      kind = func.getArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName())
                 ? "grid_constant"
                 : "byval";
    }
    if (auto a = func.getArgAttrOfType<IntegerAttr>(
            i, LLVM::LLVMDialect::getAlignAttrName()))
      align = a.getInt();
    param["kind"] = kind;
    param["bytes"] = int64_t(bytes);
    param["align"] = int64_t(align);
    if (!sources.empty())
      param["source"] = std::move(sources[i]);
    params.push_back(std::move(param));
  }
  kernel["params"] = std::move(params);

  if (auto block = func->getAttrOfType<DenseI32ArrayAttr>("gpu.known_block_size"))
    kernel["block_dims"] = dims(block);
  else if (auto reqntid = func->getAttrOfType<DenseI32ArrayAttr>(
               NVVM::NVVMDialect::getReqntidAttrName()))
    kernel["block_dims"] = dims(reqntid);
  else
    kernel["block_dims"] = nullptr;
  // A kernel compiled with .reqnctapercluster must be launched as a cluster.
  if (auto cluster = func->getAttrOfType<DenseI32ArrayAttr>(
          NVVM::NVVMDialect::getClusterDimAttrName()))
    kernel["cluster_dims"] = dims(cluster);
  else
    kernel["cluster_dims"] = nullptr;

  llvm::SetVector<LLVM::GlobalOp> shared;
  func.walk([&](LLVM::AddressOfOp address) {
    auto global = symbols.lookup<LLVM::GlobalOp>(address.getGlobalName());
    if (global && global.getAddrSpace() == 3)
      shared.insert(global);
  });
  uint64_t sharedBytes = 0;
  for (LLVM::GlobalOp global : shared) {
    uint64_t align = std::max<uint64_t>(global.getAlignment().value_or(1), 1);
    sharedBytes = llvm::alignTo(sharedBytes, align) +
                  layout.getTypeSize(global.getGlobalType());
  }
  kernel["static_shared_bytes"] = int64_t(sharedBytes);
  kernel["dynamic_shared_bytes"] = 0;

  json::Array tensorMaps;
  if (auto maps = func->getAttrOfType<ArrayAttr>(tile::dispatch::kTensorMapsAttr))
    for (Attribute map : maps)
      tensorMaps.push_back(toJSON(map));
  kernel["tensor_maps"] = std::move(tensorMaps);

  json::Array dispatch;
  if (auto decisions = func->getAttrOfType<ArrayAttr>(tile::dispatch::kDispatchAttr))
    for (auto decision : decisions.getAsRange<DictionaryAttr>()) {
      json::Object entry;
      for (NamedAttribute field : decision)
        if (auto text = dyn_cast<StringAttr>(field.getValue()))
          entry[field.getName().str()] = text.getValue().str();
      dispatch.push_back(std::move(entry));
    }
  kernel["dispatch"] = std::move(dispatch);
  return kernel;
}

} // namespace

json::Object tile::buildLaunchManifest(ModuleOp lowered) {
  json::Array modules;
  lowered.walk([&](gpu::GPUModuleOp module) {
    json::Object entry{{"name", module.getName().str()}};
    if (ArrayAttr targets = module.getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
          entry["chip"] = nvvm.getChip().str();
    DataLayout layout(module);
    SymbolTable symbols(module);
    json::Array kernels;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        kernels.push_back(describeKernel(func, layout, symbols));
    entry["kernels"] = std::move(kernels);
    modules.push_back(std::move(entry));
  });
  return json::Object{{"version", kManifestVersion},
                      {"modules", std::move(modules)}};
}

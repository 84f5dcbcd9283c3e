//===- TileKernelABIAttrs.td - kernel metadata attributes --*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What lowering records on a kernel for its host: the tensor-map parameters
// a variant added and what dispatch chose. --tile-lower-variants writes
// them, --tile-finalize-kernel-abi completes them after the kernel signature
// is lowered, and tile::buildLaunchManifest turns them into the manifest
// schema (include/tile/Manifest/LaunchManifest.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_KERNELABI_ATTRS_TD
#define TILE_KERNELABI_ATTRS_TD

include "tile/Dialect/Tile/IR/TileBase.td"

def Tile_TensorMapPlanAttr : Tile_Attr<"TensorMapPlan", "tensor_map_plan"> {
  let summary = "a by-value tensor-map kernel parameter and how to encode it";
  let description = [{
    One `CUtensorMap` kernel parameter: the kernel argument it is passed in
    (`param`), the memref argument it describes (`global_arg`), the
    `cuTensorMapEncodeTiled` arguments (`encode`: rank, dims, byte strides,
    box, element strides, interleave, swizzle, L2 promotion, OOB fill; -1
    where a value is only known at run time), which memref dim gives each
    runtime dim and stride (`dim_sources`, `stride_sources` times
    `stride_scales`; -1 for static values) and the issue shape. After the
    kernel signature is lowered, `lowered_param` and `lowered_global_param`
    name the PTX parameters of the map and of the memref's aligned pointer.

    Example:

    ```mlir
    #map = #tile.tensor_map_plan<param = 2, global_arg = 0,
        data_type = "FLOAT16", encode = [2, 8192, 8192, 16384, 64, 128, 1, 1,
        0, 3, 2, 0], dim_sources = [-1, -1], stride_sources = [-1],
        stride_scales = [1], bytes_per_issue = 16384, issues = 1>
    ```
  }];
  let parameters = (ins
    "int64_t":$param,
    "int64_t":$global_arg,
    StringRefParameter<"CUtensorMapDataType name">:$data_type,
    "::mlir::DenseI64ArrayAttr":$encode,
    "::mlir::DenseI64ArrayAttr":$dim_sources,
    "::mlir::DenseI64ArrayAttr":$stride_sources,
    "::mlir::DenseI64ArrayAttr":$stride_scales,
    "int64_t":$bytes_per_issue,
    "int64_t":$issues,
    OptionalParameter<"std::optional<int64_t>">:$lowered_param,
    OptionalParameter<"std::optional<int64_t>">:$lowered_global_param
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The same plan passed in kernel argument `param`.
    TensorMapPlanAttr withParam(int64_t param) const;
    /// The same plan with its lowered parameter indices.
    TensorMapPlanAttr withLoweredParams(int64_t map, int64_t global) const;
  }];
}

def Tile_DispatchRecordAttr : Tile_Attr<"DispatchRecord", "dispatch_record"> {
  let summary = "the variant dispatch chose for one tile op";
  let description = [{
    Recorded on each function for the launch manifest: the op's name, the
    variant and the op's source location (`file:line:col`).

    Example:

    ```mlir
    #d = #tile.dispatch_record<op = "tile.copy_async", variant = "tma",
                               loc = "kernel.mlir:12:5">
    ```
  }];
  let parameters = (ins
    StringRefParameter<"op name">:$op,
    StringRefParameter<"variant name">:$variant,
    StringRefParameter<"file:line:col">:$loc
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // TILE_KERNELABI_ATTRS_TD

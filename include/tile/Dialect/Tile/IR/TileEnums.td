//===- TileEnums.td - tile dialect enums -------------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ENUMS_TD
#define TILE_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def Tile_MemoryScope : I32EnumAttr<"MemoryScope",
    "where the elements of a tile buffer live", [
      I32EnumAttrCase<"global", 0>,
      I32EnumAttrCase<"shared", 1>,
      I32EnumAttrCase<"tmem", 2>,
      I32EnumAttrCase<"local", 3>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_ExecScope : I32EnumAttr<"ExecScope",
    "which threads issue an operation", [
      I32EnumAttrCase<"thread", 0>,
      I32EnumAttrCase<"warp", 1>,
      I32EnumAttrCase<"warpgroup", 2>,
      I32EnumAttrCase<"cta", 3>,
      I32EnumAttrCase<"cluster", 4>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind",
    "element-wise reduction a shared->global copy applies at the destination", [
      I32EnumAttrCase<"add", 0>,
      I32EnumAttrCase<"min", 1>,
      I32EnumAttrCase<"max", 2>,
      I32EnumAttrCase<"inc", 3>,
      I32EnumAttrCase<"dec", 4>,
      I32EnumAttrCase<"and_", 5, "and">,
      I32EnumAttrCase<"or_", 6, "or">,
      I32EnumAttrCase<"xor_", 7, "xor">,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_OobFill : I32EnumAttr<"OobFill",
    "value a global->shared copy writes for out-of-bounds elements", [
      I32EnumAttrCase<"zero", 0>,
      I32EnumAttrCase<"nan", 1>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_CpShape : I32EnumAttr<"CpShape",
    "the tcgen05.cp shape a shared -> tmem copy_async is forced to", [
      I32EnumAttrCase<"shape_128x256b", 0>,
      I32EnumAttrCase<"shape_4x256b", 1>,
      I32EnumAttrCase<"shape_128x128b", 2>,
      I32EnumAttrCase<"shape_64x128b", 3>,
      I32EnumAttrCase<"shape_32x128b", 4>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_CpMulticast : I32EnumAttr<"CpMulticast",
    "the tcgen05.cp multicast a shared -> tmem copy_async asks for", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"warpx2_02_13", 1>,
      I32EnumAttrCase<"warpx2_01_23", 2>,
      I32EnumAttrCase<"warpx4", 3>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_CpSourceFormat : I32EnumAttr<"CpSourceFormat",
    "packed source format a shared -> tmem copy decompresses to 8-bit "
    "containers (tcgen05.cp .b8x16.b6x16_p32 / .b8x16.b4x16_p64)", [
      I32EnumAttrCase<"b6x16_p32", 0>,
      I32EnumAttrCase<"b4x16_p64", 1>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_MmaCollector : I32EnumAttr<"MmaCollector",
    "how a tcgen05.mma uses its collector buffer (A; B with .ws)", [
      I32EnumAttrCase<"discard", 0>,
      I32EnumAttrCase<"lastuse", 1>,
      I32EnumAttrCase<"fill", 2>,
      I32EnumAttrCase<"use", 3>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_FenceKind : I32EnumAttr<"FenceKind",
    "what a tile.fence orders", [
      // fence.proxy.async.shared::cta: shared memory written by threads
      // (generic proxy) becomes visible to TMA and the tensor core.
      I32EnumAttrCase<"proxy_async", 0>,
      // tcgen05.fence::before_thread_sync / ::after_thread_sync: order
      // tcgen05 operations across a thread synchronization.
      I32EnumAttrCase<"before_thread_sync", 1>,
      I32EnumAttrCase<"after_thread_sync", 2>,
      // fence.mbarrier_init.release.cluster: mbarrier initialisation visible
      // to the cluster (and the async proxy) before it is used.
      I32EnumAttrCase<"mbarrier_init", 3>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_AsyncGroup : I32EnumAttr<"AsyncGroup",
    "a per-thread group of asynchronous operations completed in order", [
      // cp.async.bulk groups: shared -> global tensor copies (TMA stores and
      // reductions).
      I32EnumAttrCase<"bulk", 0>,
      // wgmma groups: the warpgroup MMAs (gemm_async on sm_90a).
      I32EnumAttrCase<"wgmma", 1>,
      // cp.async groups: global -> shared copies of the ldgsts variant that
      // name no mbarrier (cp.async.commit_group / wait_group; sm_80 on).
      I32EnumAttrCase<"cp_async", 2>,
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

#endif // TILE_ENUMS_TD

//===- TileBase.td - tile dialect definition ---------------*- tablegen -*-===//
//
// Part of tile-mlir, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TILE_BASE_TD
#define TILE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tile";
  let summary = "Asynchronous tile data movement and tensor-core GEMM on NVIDIA GPUs";
  let description = [{
    The `tile` dialect describes whole tiles of data with explicit layouts
    (`#tile.layout`) living in a memory scope (`!tile.buffer`), and the
    asynchronous operations that move them (TMA, DSMEM bulk copies,
    `tcgen05.cp`) or multiply them on the tensor cores (`wgmma.mma_async`
    on sm_90a, accumulating in registers; `tcgen05.mma` on sm_100a,
    accumulating in tensor memory). Register-resident (`local`) tiles are
    filled, loaded, stored, mapped elementwise, reduced and converted
    between layouts. Lowering picks one hardware variant per op through a
    dispatch registry and emits NVVM dialect ops.

    mbarriers are upstream's (`nvgpu.mbarrier.*`); the tile dialect adds
    what upstream lacks around the async ops: tensor-memory allocation,
    tcgen05 commits, async-group commit/wait, the async-proxy and tcgen05
    fences and the cluster-remote arrive (`TileSyncOps.td`), checked
    kernel-wide by `--tile-verify-kernels`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // tile.tensor_maps, tile.dispatch, tile.source_signature,
  // tile.sample_grid, tile.sample_sizes on functions.
  let hasOperationAttrVerify = 1;
  // tile.sample_value on an integer kernel argument, tile.sample_contents
  // on a 1-D integer memref argument, tile.base_alignment on a global
  // memref argument.
  let hasRegionArgAttrVerify = 1;
  // mbarrier operands are !llvm.ptr<3> or !nvgpu.mbarrier.group values.
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

// Every tile op refuses an attribute that is neither its own nor a
// dialect-prefixed discardable one (a typo such as `mma_n` is an error,
// not silently ignored).
def Tile_KnownAttributesOnly : NativeOpTrait<"KnownAttributesOnly"> {
  let cppNamespace = "::tile::OpTrait";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_KnownAttributesOnly])>;

// Side-effect resources, so async copies and MMAs declare precisely what they
// touch and no canonicalization can delete them.
def Tile_SharedMemoryResource
    : Resource<"::tile::SharedMemoryResource">;
def Tile_TensorMemoryResource
    : Resource<"::tile::TensorMemoryResource">;
def Tile_GlobalMemoryResource
    : Resource<"::tile::GlobalMemoryResource">;

#endif // TILE_BASE_TD

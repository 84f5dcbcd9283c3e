// --tile-check-lowering selects and lowers every tile op with translation
// validation on: each example lowers, and its emitted NVVM is decoded by the
// PTX model and compared with the ops' layouts (an error on the op otherwise).
// RUN: tile-opt %tile_src_root/examples/gemm_async.mlir --tile-check-lowering | FileCheck %s --check-prefix=MMA
// RUN: tile-opt %tile_src_root/examples/tma_copy.mlir --tile-check-lowering | FileCheck %s --check-prefix=TMA
// RUN: tile-opt %tile_src_root/examples/dsmem_copy.mlir --tile-check-lowering | FileCheck %s --check-prefix=DSMEM
// RUN: tile-opt %tile_src_root/examples/smem_to_tmem.mlir --tile-check-lowering | FileCheck %s --check-prefix=CP
// RUN: tile-opt %s --tile-check-lowering | FileCheck %s --check-prefix=EMPTY

// MMA-COUNT-4: nvvm.tcgen05.mma
// MMA-NOT: tile.
// TMA: nvvm.cp.async.bulk.tensor.shared.cluster.global
// TMA-NOT: tile.copy_async
// DSMEM: nvvm.cp.async.bulk.shared.cluster.shared.cta
// CP: nvvm.tcgen05.cp
// EMPTY: module
module {}

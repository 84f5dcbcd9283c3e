// --tile-to-nvvm leaves only the NVVM and LLVM dialects inside the
// gpu.module (plus the module itself), ready for gpu-module-to-binary.
// RUN: tile-opt %tile_src_root/examples/dsmem_copy.mlir --tile-to-nvvm=check=1 | FileCheck %s
// RUN: tile-opt %tile_src_root/examples/dsmem_copy.mlir --tile-to-nvvm=check=1 | FileCheck %s --check-prefix=ONLY
// RUN: tile-opt %tile_src_root/examples/dsmem_copy.mlir --tile-to-nvvm=check=1 --gpu-module-to-binary="format=isa" | FileCheck %s --check-prefix=ISA

// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.func @dsmem_copy(
// CHECK-SAME: gpu.kernel
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: tile.dispatch = [#tile.dispatch_record<op = "tile.copy_async", variant = "dsmem", loc = "{{.*}}">]
// CHECK: nvvm.mapa
// CHECK: nvvm.mapa
// CHECK: nvvm.cp.async.bulk.shared.cluster.shared.cta

// Every op is llvm.* or nvvm.*, apart from the module and its terminator.
// ONLY-NOT: {{^ *(%[^ ]+ = )?"?(tile|arith|scf|cf|memref|func|gpu\.(func|return|barrier|thread_id)|index|affine|builtin\.unrealized_conversion_cast)[.a-z_]*}}

// ISA: gpu.binary @kernels
// ISA-SAME: .entry dsmem_copy
// ISA-SAME: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes

// The Blackwell GEMM family (bench/Kernels/gen_gemm_sm100_kernels.py):
// every kernel compiles for sm_100a with translation validation (--check:
// each tcgen05.mma's descriptors and instruction descriptor, each TMA copy),
// passes the kernel checks, and assembles. Per kernel: four tcgen05.mma of
// K 16 (f16/bf16) or 32 (e4m3) per stage into one of two accumulators, a
// commit per stage and per tile, the epilogue's 64-column tcgen05.ld
// 32x32b reads, each followed by its wait, and 16-byte swizzled stores of
// the converted slice.
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_sm100_kernels.py %t.mlir %t.json
// RUN: tile-compile --check %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_100a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: .entry gemm_sm100_bf16_tn_128x256x64_s4(
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: tcgen05.fence::after_thread_sync
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// Four 64-column slices of the 256-column accumulator.
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.wait::ld.sync.aligned
// CHECK-COUNT-8: st.shared.v4.b32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.fence::before_thread_sync
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// CHECK-LABEL: .entry gemm_sm100_e4m3_tn_128x256x128_s4(
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4

// PTXAS-NOT: error
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// D = alpha A B^T + beta C (the family's alpha_beta_c epilogue), one kernel
// compiled with translation validation and nothing left unproven: after
// the tile's first K step one thread waits for the previous TMA store to
// read the staging tile, announces and issues the source tile's three TMA
// loads into it; after the K loop the warpgroup waits for them, reads the
// tile by ldmatrix (12 per warp for 64x192 bf16), applies alpha and beta,
// and writes the result over it by stmatrix before the TMA store. The
// warpgroup index that picks the source barrier is broadcast from lane 0
// by a shuffle: derived from %tid.x alone, ptxas took the wait on it for
// divergent code and compiled the K loop without uniform registers (5-9 %
// slower). ptxas assembles it without a stack or spills.
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_kernels.py %t.mlir --kernels gemm_bf16_tn_128x192x64_s4_alpha_beta_c
// RUN: tile-compile %t.mlir --chip sm_90a --check --remarks -o %t.ptx 2> %t.diagnostics
// RUN: count 0 < %t.diagnostics
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: .entry gemm_bf16_tn_128x192x64_s4_alpha_beta_c(
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
// The first K step, then the source tile requested.
// CHECK: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK-NOT: wgmma.mma_async
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// The K loop, its last wait, then the epilogue.
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK-COUNT-12: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: fma.rn.f32
// CHECK: bar.sync
// CHECK-COUNT-12: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

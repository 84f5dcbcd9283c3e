// The persistent, warp-specialized GEMM family (bench/Kernels): every kernel
// compiles for sm_90a, each stage's gemm_async is one fence and four chained
// wgmmas (K = 64 of 16-bit types: k16 steps; e4m3: K = 128 in k32 steps),
// the producer and consumers move registers with setmaxnreg, the epilogue
// writes C by stmatrix (16 x4 per warp for 64x256); ptxas keeps the 128-register
// accumulator without a stack or spills and injects no warpgroup waits or
// arrives (the accumulator is never touched while a wgmma owns it).
// The sanitizer tree compiles one kernel of each form instead
// (kernel-families-sanitized.mlir).
// UNSUPPORTED: sanitizers
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_kernels.py %t.mlir %t.json
// The kernel checks prove every kernel (no "not proven" remark) and the
// pipeline simulation runs on each (no "not run" / "stopped" remark):
// RUN: tile-compile --remarks %t.mlir -o %t.ptx 2>&1 | count 0
// Without the consumers' proxy fence after each full-barrier wait, the
// cp.async versions' wgmmas read, through the async proxy, bytes cp.async
// wrote through the generic proxy: reported at both gemm_async of each of
// the four versions (and nothing else).
// RUN: sed '/try_wait.parity %%full\[/{n;/tile.fence proxy_async/d;}' %t.mlir > %t.no-cp-async-fence.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-cp-async-fence.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=CP-ASYNC-FENCE
// CP-ASYNC-FENCE-COUNT-8: error: reads a shared buffer through the async proxy that cp.async copies wrote (through the generic proxy) with no `tile.fence proxy_async` since their bytes landed
// CP-ASYNC-FENCE-NOT: error
// RUN: FileCheck %s < %t.ptx
// Tiles narrower than 256 move a last row tile that would run past M back
// inside A (producer and consumers alike); the 128 x 256 tiles and the
// alpha_beta_c kernels (D may be the source C) walk plain row origins.
// RUN: FileCheck %s --check-prefix=FIT < %t.mlir
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x256x64_s3(
// FIT-NOT: %m0_walk
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x256x32_s6(
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x64x64_s8(
// FIT: %m_fit_end = arith.maxui %M, %c_bm : index
// FIT-NEXT: %m_fit = arith.subi %m_fit_end, %c_bm : index
// FIT: %m0 = arith.minui %m0_walk, %m_fit : index
// FIT: tile.copy_async %ga[%m0, %k0]
// FIT: %m0 = arith.minui %m0_walk, %m_fit : index
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x192x64_s4_alpha_beta_c(
// FIT-NOT: %m0_walk
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x128x64_s4_pingpong(
// FIT: %m0 = arith.minui %m0_walk, %m_fit : index
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin > %t.ptxas 2>&1 %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTXAS < %t.ptxas %}
// No kernel of the family (fused epilogues included) has a stack or spills:
// RUN: %if ptxas %{ not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t.ptxas %}

// CHECK-LABEL: .entry gemm_bf16_tn_128x256x64_s3(
// CHECK: .maxnreg 168
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// The consumers' warpgroup index (which picks their A stage) broadcast
// from lane 0: warp-uniform for ptxas (docs/Design.md).
// CHECK: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-COUNT-16: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: fence.proxy.async.shared::cta;
// A 64x256 half of C in 128-byte swizzled atoms: one TMA store per atom.
// CHECK-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-LABEL: .entry gemm_e4m3_tn_128x256x128_s3(
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// B MN-major with a 64-wide N tile (one 128-byte swizzle atom per K row):
// m64n64 wgmmas reading B transposed (the last immediate), and per stage
// two TMA loads of A and one of B.
// CHECK-LABEL: .entry gemm_bf16_nn_128x64x64_s8(
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// B multicast in a cluster of 2: barriers initialised before a cluster
// sync; one thread per consumer warpgroup and CTA (two per warpgroup)
// releases a stage on that CTA's
// empty barrier (mapa + a CTA-scope release arrive: a cluster-scope one
// becomes a GPU-scope MEMBAR in every K step); the producer multicasts its
// half of B's rows (one copy per rank), then loads its rows of A; a cluster
// sync before exit.
// CHECK-LABEL: .entry gemm_bf16_tn_128x256x64_s3_multicast_b(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: mapa.shared::cluster.u64
// CHECK-NOT: release.cluster
// CHECK: mbarrier.arrive.shared::cluster.b64
// CHECK-NOT: release.cluster
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-LABEL: .entry gemm_e4m3_tn_128x256x128_s3_multicast_b(
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// The cp.async versions: each consumer step fences the proxies before its
// wgmmas read what cp.async wrote; the producer warpgroup's threads load
// by cp.async (no tensor loads), each tracking and completing its bytes,
// in the same 40 registers as the TMA producer.
// CHECK-LABEL: .entry gemm_bf16_tn_128x256x64_s3_ldgsts(
// CHECK: fence.proxy.async.shared::cta;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-NOT: cp.async.bulk.tensor.2d.shared
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-NOT: cp.async.bulk.tensor.2d.shared
// CHECK: cp.async.mbarrier.arrive.shared.b64
// CHECK: mbarrier.complete_tx
// CHECK-NOT: cp.async.bulk.tensor.2d.shared
// CHECK: cp.async.cg.shared.global
// CHECK-LABEL: .entry gemm_bf16_tn_128x128x64_s5_ldgsts(
// CHECK-LABEL: .entry gemm_f16_tn_128x128x64_s5_ldgsts(
// CHECK-LABEL: .entry gemm_e4m3_tn_128x128x128_s5_ldgsts(

// PTXAS-NOT: C7517
// PTXAS-NOT: C7519
// PTXAS-NOT: serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C7517
// PTXAS-NOT: C7519
// PTXAS-NOT: serialized

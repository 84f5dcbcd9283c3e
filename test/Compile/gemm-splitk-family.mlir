// The split-K GEMMs and their reductions
// (bench/Kernels/gen_gemm_splitk_kernels.py): every kernel compiles with
// translation validation, --tile-verify-kernels proves each one (no remark,
// no error), ptxas assembles them with no spills and no serialized wgmma.
// REQUIRES: ptxas
// The sanitizer tree compiles one kernel of each form instead
// (kernel-families-sanitized.mlir).
// UNSUPPORTED: sanitizers
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_splitk_kernels.py %t.mlir %t.cases.json
// The pipeline simulation runs on every kernel (the part count is the
// kernels' `tile.sample_value` argument): no kernel outside the model, so
// --remarks (the simulation's included) prints nothing.
// RUN: tile-compile --check --remarks %t.mlir -o %t.ptx --manifest %t.json 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=CASES < %t.cases.json
// RUN: FileCheck %s --check-prefix=CLUSTER < %t.ptx
// RUN: FileCheck %s --check-prefix=PROGRAMMATIC < %t.json
//
// QUIET-NOT: remark
// QUIET-NOT: error
// QUIET-NOT: warning
//
// Per type (bf16, f16, e4m3) a 128 x 128 GEMM, three swap-AB GEMMs (16,
// 32, 64 rows of A: M as the wgmma's N), a stream-K GEMM, eight cluster
// split-K GEMMs (128 x 128 in pairs; 16 rows in clusters of 2, 4, 8; 32
// and 64 rows in clusters of 2 and 4) and the three swap-AB heights in
// 64-column tiles, alone and in pairs; and eight reductions (split-K and
// stream-K; to bf16, to f16; 16- and 64-row blocks).
// PTXAS-NOT: C751
// PTXAS-COUNT-65: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C751
//
// A cluster split-K kernel takes A, B and C (no workspace, no part
// count), runs in clusters of its size and moves partials by DSMEM bulk
// copies completing on the owner CTA's barrier.
// CLUSTER-LABEL: .entry gemm_bf16_tn_128x128x64_s4_clusterk2(
// CLUSTER: .reqnctapercluster 2, 1, 1
// CLUSTER: barrier.cluster.arrive.aligned
// CLUSTER: mbarrier.arrive.shared::cluster.b64
// CLUSTER: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
// CLUSTER-LABEL: .entry gemm_bf16_tn_swapab_16x128x64_s8_clusterk8(
// CLUSTER: .reqnctapercluster 8, 1, 1
// A 64-column swap-AB tile: one consumer warpgroup, 256 threads.
// CLUSTER-LABEL: .entry gemm_bf16_tn_swapab_16x64x64_s16_clusterk2(
// CLUSTER: .maxntid 256, 1, 1
// CLUSTER: .reqnctapercluster 2, 1, 1
// CLUSTER: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
//
// Every kernel waits for the work before it on the stream
// (griddepcontrol.wait: the reductions for their GEMM, the GEMMs for
// whatever wrote A and B or reads C) and is launched programmatically.
// PROGRAMMATIC-COUNT-65: "programmatic_launch": true
// PROGRAMMATIC-NOT: "programmatic_launch"
// RUN: FileCheck %s --check-prefix=WAIT < %t.mlir
// The GEMMs' wait comes after the barrier initialisation and before the
// roles split (the producer's first load, the consumers' first store).
// WAIT-LABEL: gpu.func @gemm_bf16_tn_128x128x64_s5_splitk(
// WAIT: tile.fence mbarrier_init
// WAIT: gpu.barrier
// WAIT-NEXT: // Launched while
// WAIT: nvvm.griddepcontrol wait
// WAIT-NEXT: %first_unit = gpu.block_id x
// WAIT: %is_producer = arith.cmpi eq, %wg, %c0 : index
// WAIT-NOT: tile.copy_async
// WAIT: nvvm.setmaxregister decrease
// A last row tile past M starts at M - BM (when M >= BM), as in the
// family (gemm-kernels-ptxas.mlir); the stream-K walk keeps plain origins
// (its reduction recomputes them).
// RUN: FileCheck %s --check-prefix=FIT < %t.mlir
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x128x64_s5_splitk(
// FIT: %m_fit = arith.subi %m_fit_end, %c_bm : index
// FIT: %m0 = arith.minui %m0_walk, %m_fit : index
// FIT: %m0 = arith.minui %m0_walk, %m_fit : index
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x128x64_s5_streamk(
// FIT-NOT: %m0_walk
// FIT-LABEL: gpu.func @gemm_bf16_tn_128x128x64_s4_clusterk2(
// FIT: %m0 = arith.minui %m0_walk, %m_fit : index
//
// CASES: "kernel": "gemm_bf16_tn_128x128x64_s5_splitk"
// CASES: "kernel": "gemm_bf16_tn_swapab_16x128x64_s8_splitk"
// CASES: "swap_ab": true
// CASES: "kernel": "gemm_bf16_tn_swapab_32x128x64_s8_splitk"
// CASES: "kernel": "gemm_bf16_tn_swapab_64x128x64_s6_splitk"
// CASES: "kernel": "gemm_bf16_tn_128x128x64_s5_streamk"
// CASES: "stream_k": true
// CASES: "kernel": "gemm_bf16_tn_128x128x64_s4_clusterk2"
// CASES: "cluster": 2
// CASES: "kernel": "gemm_bf16_tn_swapab_16x128x64_s8_clusterk8"
// CASES: "cluster": 8
// CASES: "kernel": "gemm_bf16_tn_swapab_64x128x64_s6_clusterk4"
// CASES: "kernel": "gemm_bf16_tn_swapab_16x64x64_s16_splitk"
// CASES: "bn": 64
// CASES: "block": 256
// CASES: "kernel": "gemm_bf16_tn_swapab_16x64x64_s16_clusterk2"
// CASES: "kernel": "gemm_bf16_tn_swapab_32x64x64_s14_splitk"
// CASES: "kernel": "gemm_bf16_tn_swapab_64x64x64_s10_clusterk2"
// CASES: "kernel": "gemm_f16_tn_128x128x64_s5_splitk"
// CASES: "kernel": "gemm_e4m3_tn_128x128x128_s5_splitk"
// CASES: "kernel": "gemm_e4m3_tn_swapab_16x128x128_s8_splitk"
// CASES: "kernel": "gemm_e4m3_tn_swapab_16x64x128_s16_clusterk2"
// CASES: "reducers"
// CASES: "kernel": "gemm_splitk_reduce_bf16_16x128"
// CASES: "kernel": "gemm_splitk_reduce_bf16_64x128"
// CASES: "kernel": "gemm_splitk_reduce_f16_16x128"
// CASES: "kernel": "gemm_splitk_reduce_f16_64x128"
// CASES: "kernel": "gemm_streamk_reduce_f16_16x128"

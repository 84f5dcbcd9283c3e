// The pipeline simulation of --tile-verify-kernels on examples/hopper_gemm.mlir
// changed by one bug a kernel author makes (Inputs/pipeline_mutants.py): each
// is an error naming the threads, the barrier and the phase. Equivalent
// rewrites of the kernel pass, simulated (with `simulation-remarks` a
// kernel the simulation did not run would print a remark).
//
// RUN: tile-opt --tile-verify-kernels=simulation-remarks %tile_src_root/examples/hopper_gemm.mlir -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir stage-recomputed | tile-opt --tile-verify-kernels=simulation-remarks -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir guard-spelled-differently | tile-opt --tile-verify-kernels=simulation-remarks -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir parity-by-truncation | tile-opt --tile-verify-kernels=simulation-remarks -o /dev/null 2>&1 | count 0
// The static checks too read a folded, CSE'd view: an index recomputed in
// another statement, or a byte count spelled as a sum, is the same value.
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir copy-barrier-index-recomputed | tile-opt --tile-verify-kernels=simulation-remarks -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir expect-tx-bytes-as-a-sum | tile-opt --tile-verify-kernels=simulation-remarks -o /dev/null 2>&1 | count 0
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir stale-parity | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: :281:11: error: thread {{[0-9]+}} (warpgroup 1, warp {{[4-7]}}, lane 0) waits on mbarrier 0 of the mbarrier group on line 135 with parity 0 and passes on phase 0, which it already waited for: the parity did not flip
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir producer-skips-empty-wait | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOEMPTY
// NOEMPTY: error: thread 0 (warpgroup 0, warp 0, lane 0) arrives on mbarrier 0 of the mbarrier group on line 135 whose phase 0 has 1 of 1 arrivals and waits for 98304 more bytes: more arrivals than its init count
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir producer-parity-inverted | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=INVERTED
// INVERTED: error: the kernel deadlocks: every thread waits and no copy is in flight; thread 0 (warpgroup 0, warp 0, lane 0) waits for parity 0 on mbarrier 0 of the mbarrier group on line 136: phase 0 has 0 of 8 arrivals
// INVERTED: note: thread 128 (warpgroup 1, warp 4, lane 0) waits for parity 0 on mbarrier 0 of the mbarrier group on line 135: phase 0 has 0 of 1 arrivals
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir release-before-retire | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: thread 0 (warpgroup 0, warp 0, lane 0) copies into [0, 0..63, 0..63] of the shared buffer on line 127 while a wgmma issued by thread {{[0-9]+}} (warpgroup 1, warp {{[4-7]}}, lane 0) may still read [0, 0..63, 0..63] of the shared buffer on line 127
// EARLY: note: the reader
//
// The release moved above the wait_group that retires the stage's wgmma:
// every warp arrives before its own wait, so the phase the producer waits
// for orders nothing after the wgmma (in the K loop, and in the drain).
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir release-above-wait | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=ABOVE
// ABOVE: error: thread 0 (warpgroup 0, warp 0, lane 0) copies into [0, 0..63, 0..63] of the shared buffer on line 127 while a wgmma issued by thread {{[0-9]+}} (warpgroup 1, warp {{[4-7]}}, lane 0) may still read [0, 0..63, 0..63] of the shared buffer on line 127: thread {{[0-9]+}} (warpgroup {{[12]}}, warp {{[0-9]+}}, lane 0) released it on mbarrier 0 of the mbarrier group on line 136 before its tile.wait_group wgmma retired the wgmma
// ABOVE: note: the reader
// ABOVE: note: the early release
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir drain-release-above-wait | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=DRAIN
// DRAIN: error: {{.*}} while a wgmma issued by {{.*}} released it on mbarrier {{[0-2]}} of the mbarrier group on line 136 before its tile.wait_group wgmma retired the wgmma
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir commit-before-mma | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMMIT
// COMMIT: error: thread 0 (warpgroup 0, warp 0, lane 0) copies into [2, 0..63, 0..63] of the shared buffer on line 127 while a wgmma issued by thread {{[0-9]+}} (warpgroup 1, warp {{[4-7]}}, lane 0) may still read
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir init-count-too-high | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=INIT
// INIT: error: the kernel deadlocks: {{.*}} thread 0 (warpgroup 0, warp 0, lane 0) waits for parity 0 on mbarrier 0 of the mbarrier group on line 136: phase 0 has 8 of 9 arrivals
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir whole-warp-arrives | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARP
// WARP: error: the kernel deadlocks: {{.*}} phase 32 has 0 of 8 arrivals; 32 phases completed since this thread last waited on it (phase -1): more arrivals per phase than its init count?
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir wrong-stage | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: error: thread {{[0-9]+}} (warpgroup 1, warp {{[4-7]}}, lane 0) reads [4, 0..63, 0..63] of the shared buffer on line 127 while the copy into [4, 0..63, 0..63] of the shared buffer on line 127 (completing on mbarrier 2 of the mbarrier group on line 135) has not completed
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir no-fence-after-init | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=FENCE
// FENCE: error: thread 0 (warpgroup 0, warp 0, lane 0) issues a TMA copy completing on mbarrier 0 of the mbarrier group on line 135, whose initialization no `tile.fence mbarrier_init` made visible to the async proxy
// FENCE: note: initialized here
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir no-barrier-after-init | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=PUBLISH
// PUBLISH: error: thread 128 (warpgroup 1, warp 4, lane 0) waits on mbarrier 0 of the mbarrier group on line 135 before a barrier (gpu.barrier or a named barrier with the initializing thread) made its initialization visible
// PUBLISH: note: initialized here by thread 0
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir store-tile-rewritten-under-tma-store | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: error: thread {{[0-9]+}} (warpgroup 1, warp {{[0-9]}}, lane 0) writes [0, {{[0-9]+}}..{{[0-9]+}}, 0..255] of the shared buffer on line 129 while a TMA store issued by thread 128 (warpgroup 1, warp 4, lane 0) may still read [0, 0..63, 0..255] of the shared buffer on line 129
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir exit-with-tma-store-in-flight | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: thread 128 (warpgroup 1, warp 4, lane 0) exits while its TMA store may still read [0, 0..63, 0..255] of the shared buffer on line 129 (no tile.wait_group bulk retired it)
// EXIT: note: the store
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir stage-index-out-of-range | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: thread 0 (warpgroup 0, warp 0, lane 0) uses mbarrier 3 of a group of 3 (a stage index out of range)
//
// The producer gives back too few registers for both consumers' increase.
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir setmaxnreg-unpaid | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=REGS
// REGS: :231:7: error: the kernel deadlocks: every thread waits and no copy is in flight; thread {{[0-9]+}} (warpgroup {{[12]}}, warp {{[0-9]+}}, lane 0) waits at a setmaxnreg.inc for registers no setmaxnreg.dec of its CTA released (0 in the pool)
//
// The Blackwell family (tcgen05 MMAs into tensor memory, completed by
// tcgen05.commit; the cta_group 2 pairs too): every kernel of it, changed
// alike.
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_sm100_kernels.py %t.sm100.mlir
// RUN: tile-opt --tile-verify-kernels=simulation-remarks %t.sm100.mlir -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.sm100.mlir sm100-mma-skips-full | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=MMAFULL
// MMAFULL-COUNT-8: error: {{(CTA 0 )?}}thread 32 (warpgroup 0, warp 1, lane 0) reads [0, {{.*}}] of the shared buffer on line {{[0-9]+}}{{( of CTA 0)?}} while the copy into [0, {{.*}}] of the shared buffer on line {{[0-9]+}}{{( of CTA 0)?}} (completing on mbarrier 0 of the mbarrier group on line {{[0-9]+}}{{( of CTA 0)?}}) has not completed
// MMAFULL-NOT: error
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.sm100.mlir sm100-stage-never-released | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=RELEASE
// RELEASE-COUNT-6: error: the kernel deadlocks: every thread waits and no copy is in flight; thread 0 (warpgroup 0, warp 0, lane 0) waits for parity 0 on mbarrier 0 of the mbarrier group on line {{[0-9]+}}: phase 0 has 0 of 1 arrivals
//
// A consumer falling behind (the epilogue warpgroup as slow as it can be)
// exposes an MMA warp that reuses an accumulator without waiting for the
// epilogue to release it: its phases run ahead and the epilogue never sees
// the one it waits for.
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.sm100.mlir sm100-mma-skips-acc-empty | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=ACCEMPTY
// ACCEMPTY-COUNT-7: error: the kernel deadlocks: {{.*}}thread 128 (warpgroup 1, warp 4, lane 0) waits for parity {{[01]}} on mbarrier {{[01]}} of the mbarrier group on line {{[0-9]+}}{{( of CTA 0)?}}: phase {{[234]}} has 0 of 1 arrivals [pipeline simulation, sizes 330, warps 4..7 as slow as possible]
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.sm100.mlir sm100-epilogue-skips-acc-full | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=ACCFULL
// ACCFULL-COUNT-8: error: the kernel deadlocks
//
// The cta_group 2 pairs: both CTAs' loads complete on the leader's barrier,
// added up per CTA by the static expect-tx check.
// RUN: tile-opt --tile-verify-kernels %t.sm100.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVEN --allow-empty
// PROVEN-NOT: not proven
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.sm100.mlir sm100-pair-stage-bytes-short | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAIRBYTES
// PAIRBYTES: error: on CTA 0 of the cluster of 2, this mbarrier's phase announces 49152 bytes but the copies completing on it bring 65536 bytes: the phase can complete before all the data lands
// PAIRBYTES: note: completes 16384 bytes on CTA 0 when CTA 1 issues it
//
// Clusters: the Hopper family's multicast kernel (CTA pairs share B) and
// the DSMEM example, simulated CTA by CTA.
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_kernels.py --kernels gemm_bf16_tn_128x256x64_s3_multicast_b %t.mc.mlir
// RUN: tile-opt --tile-verify-kernels=simulation-remarks %t.mc.mlir -o /dev/null 2>&1 | count 0
// RUN: tile-opt --tile-verify-kernels=simulation-remarks %tile_src_root/examples/dsmem_copy.mlir -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.mc.mlir mc-release-to-one-cta | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONECTA
// ONECTA: error: CTA 0 thread 0 (warpgroup 0, warp 0, lane 0) copies into [0, 0..127, 0..63] of the shared buffer on line {{[0-9]+}} of CTA 1 while a wgmma issued by CTA 1 thread {{[0-9]+}} (warpgroup {{[12]}}, warp {{[0-9]+}}, lane 0) may still read [0, 0..255, 0..63] of the shared buffer on line {{[0-9]+}} of CTA 1
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.mc.mlir mc-mask-outside-cluster | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=MASK
// MASK: error: CTA 0 thread 0 (warpgroup 0, warp 0, lane 0) multicasts to CTA 2, outside the cluster of 2
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %t.mc.mlir mc-no-cluster-sync-after-init | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLUSTERINIT
// CLUSTERINIT: error: CTA 0 thread 0 (warpgroup 0, warp 0, lane 0) issues a copy completing on mbarrier 0 of the mbarrier group on line {{[0-9]+}} of CTA 1 before any thread initialized it
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/dsmem_copy.mlir dsmem-exit-before-peer-has-it | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=DSMEM
// DSMEM: error: CTA 0 thread 0 (warpgroup 0, warp 0, lane 0) exits while its DSMEM copy may still read [0..127, 0..63] of the shared buffer on line 28 of CTA 0
// DSMEM: note: the copy

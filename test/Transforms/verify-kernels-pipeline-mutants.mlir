// The pipeline simulation of --tile-verify-kernels on examples/hopper_gemm.mlir
// changed by one bug a kernel author makes (Inputs/pipeline_mutants.py): each
// is an error naming the threads, the barrier and the phase. Equivalent
// rewrites of the kernel pass.
//
// RUN: tile-opt --tile-verify-kernels %tile_src_root/examples/hopper_gemm.mlir -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir stage-recomputed | tile-opt --tile-verify-kernels -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir guard-spelled-differently | tile-opt --tile-verify-kernels -o /dev/null 2>&1 | count 0
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir parity-by-truncation | tile-opt --tile-verify-kernels -o /dev/null 2>&1 | count 0
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir stale-parity | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: :281:11: error: thread 128 (warpgroup 1, warp 4, lane 0) waits on mbarrier 0 of the mbarrier group created on line 135 with parity 0 and passes on phase 0, which it already waited for: the parity did not flip
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir producer-skips-empty-wait | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOEMPTY
// NOEMPTY: error: thread 0 (warpgroup 0, warp 0, lane 0) copies into shared [0, 0..63, 0..63] while an earlier copy into [0, 0..63, 0..63] has not completed
// NOEMPTY: note: the earlier copy, issued by thread 0
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir producer-parity-inverted | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=INVERTED
// INVERTED: error: the kernel deadlocks: every thread waits and no copy is in flight; thread 0 (warpgroup 0, warp 0, lane 0) waits for parity 0 on mbarrier 0 of the mbarrier group created on line 136: phase 0 has 0 of 8 arrivals
// INVERTED: note: thread 128 (warpgroup 1, warp 4, lane 0) waits for parity 0 on mbarrier 0 of the mbarrier group created on line 135: phase 0 has 0 of 1 arrivals
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir release-before-retire | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: thread 0 (warpgroup 0, warp 0, lane 0) copies into shared [0, 0..63, 0..63] while a wgmma issued by thread 128 (warpgroup 1, warp 4, lane 0) may still read [0, 0..63, 0..63]
// EARLY: note: the reader
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir commit-before-mma | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMMIT
// COMMIT: error: thread 0 (warpgroup 0, warp 0, lane 0) copies into shared [2, 0..63, 0..63] while a wgmma issued by thread 128 (warpgroup 1, warp 4, lane 0) may still read
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir init-count-too-high | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=INIT
// INIT: error: the kernel deadlocks: {{.*}} thread 0 (warpgroup 0, warp 0, lane 0) waits for parity 0 on mbarrier 0 of the mbarrier group created on line 136: phase 0 has 8 of 9 arrivals
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir whole-warp-arrives | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARP
// WARP: error: the kernel deadlocks: {{.*}} phase 32 has 0 of 8 arrivals; 32 phases completed since this thread last waited on it (phase -1): more arrivals per phase than its init count?
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir wrong-stage | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: error: thread 128 (warpgroup 1, warp 4, lane 0) reads shared [4, 0..63, 0..63] while the copy into [4, 0..63, 0..63] (completing on mbarrier 2 of the mbarrier group created on line 135) has not completed
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir no-fence-after-init | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=FENCE
// FENCE: error: thread 0 (warpgroup 0, warp 0, lane 0) issues a TMA copy completing on mbarrier 0 of the mbarrier group created on line 135, whose initialization no `tile.fence mbarrier_init` made visible to the async proxy
// FENCE: note: initialized here
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir no-barrier-after-init | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=PUBLISH
// PUBLISH: error: thread 128 (warpgroup 1, warp 4, lane 0) waits on mbarrier 0 of the mbarrier group created on line 135 before a barrier (gpu.barrier or a named barrier with the initializing thread) made its initialization visible
// PUBLISH: note: initialized here by thread 0
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir store-tile-rewritten-under-tma-store | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: error: thread {{[0-9]+}} (warpgroup 1, warp {{[0-9]}}, lane 0) writes shared [0, 0..63, 0..255] while a TMA store issued by thread 128 (warpgroup 1, warp 4, lane 0) may still read [0, 0..63, 0..255]
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir exit-with-tma-store-in-flight | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: thread 128 (warpgroup 1, warp 4, lane 0) exits while its TMA store may still read shared [0, 0..63, 0..255] (no tile.wait_group bulk retired it)
// EXIT: note: the store
//
// RUN: python3 %S/Inputs/pipeline_mutants.py %tile_src_root/examples/hopper_gemm.mlir stage-index-out-of-range | not tile-opt --tile-verify-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: thread 0 (warpgroup 0, warp 0, lane 0) uses mbarrier 3 of a group of 3 (a stage index out of range)

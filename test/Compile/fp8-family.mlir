// The block-scaled FP8 family (bench/Kernels/gen_fp8_kernels.py): every
// kernel compiles with translation validation, --tile-verify-kernels proves
// each one (no remark, no error), ptxas assembles them with no spills and no
// serialized wgmma; examples/fp8_blockscaled_gemm.mlir is the generator's
// commented output.
// REQUIRES: ptxas
// The sanitizer tree compiles one kernel of each form instead
// (kernel-families-sanitized.mlir).
// UNSUPPORTED: sanitizers
// RUN: %python %tile_src_root/bench/Kernels/gen_fp8_kernels.py %t.mlir %t.cases.json
// The pipeline simulation (its remarks come with --remarks) runs every
// kernel to the end: the split-K GEMM with its sample part count (2), the
// grouped GEMMs with the expert offsets and valid-row counts of their
// tile.sample_contents (the masked one in the grid of its
// tile.sample_grid).
// RUN: tile-compile --check --remarks %t.mlir -o %t.ptx --manifest %t.json 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=CASES < %t.cases.json
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// Without the consumers' stage releases every GEMM deadlocks, the grouped
// ones included: the simulation walks them.
// RUN: sed '/nvgpu.mbarrier.arrive %%empty\[/d' %t.mlir > %t.no-release.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-release.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK-COUNT-11: error: the kernel deadlocks
// DEADLOCK-NOT: error
// Without only the releases of a warpgroup with no rows (its drain), the
// dense and split-K GEMMs deadlock too: their tile.sample_sizes add 160,
// whose last row tile leaves the second consumer warpgroup no rows (at 200
// and 330 it has some, and the drain is never run).
// RUN: sed '/nvgpu.mbarrier.arrive %%empty\[%%si_d\]/d' %t.mlir > %t.no-drain-release.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-drain-release.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DRAIN
// DRAIN-COUNT-4: error: the kernel deadlocks
// DRAIN-NOT: error
// A drain that releases its stages without waiting for them to land runs
// ahead of the other warpgroup: the sample size 1088 gives a 64-row last
// row tile beside nine K blocks, more than the rings' stages.
// RUN: sed '/nvgpu.mbarrier.try_wait.parity %%full\[%%si_d\]/d' %t.mlir > %t.no-drain-wait.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-drain-wait.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DRAIN-WAIT
// DRAIN-WAIT-COUNT-4: error:
// DRAIN-WAIT-NOT: error
// Without only the K loop's release of the previous pair's stage (run from
// the loop's second trip: two pairs of K blocks per tile or part, which
// the sample size 1088 gives, split-K's two parts too), every GEMM
// deadlocks.
// RUN: sed '/nvgpu.mbarrier.arrive %%empty\[%%si_q\]/d' %t.mlir > %t.no-pair-release.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-pair-release.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAIR
// PAIR-COUNT-11: error: the kernel deadlocks
// PAIR-NOT: error
// RUN: %python %tile_src_root/bench/Kernels/gen_fp8_kernels.py --example dense > %t.example.mlir
// RUN: diff %t.example.mlir %tile_src_root/examples/fp8_blockscaled_gemm.mlir
// RUN: tile-compile --check --remarks %tile_src_root/examples/fp8_blockscaled_gemm.mlir -o %t.example.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
//
// QUIET-NOT: remark
// QUIET-NOT: error
// QUIET-NOT: warning
//
// Twelve kernels (dense, contiguous, masked and split-K in 128 x 128
// tiles; masked, dense and split-K in 128 x 64; dense and split-K in
// 64 x 128 and 64 x 64; the quantizer), none spilling, none with its wgmma
// serialized.
// PTXAS-NOT: C751
// PTXAS-COUNT-12: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C751
//
// Each GEMM's consumers take their warpgroup index from lane 0 (a
// shuffle: warp-uniform for ptxas, which otherwise compiles the tile loop
// as divergent code):
// PTX-LABEL: .entry fp8_blockscaled_dense_128x128x128_s5(
// PTX: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
// PTX-LABEL: .entry fp8_blockscaled_contiguous_128x128x128_s5(
// PTX: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
// PTX-LABEL: .entry fp8_blockscaled_masked_128x128x128_s5(
// PTX: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
// PTX-LABEL: .entry fp8_blockscaled_splitk_128x128x128_s4(
// PTX: shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
//
// In the dense and split-K walks a warpgroup whose rows all lie past M
// only drains the ring (waits for each stage, releases it); the grouped
// walks keep both warpgroups' MMAs.
// IR-LABEL: gpu.func @fp8_blockscaled_dense_128x128x128_s5(
// IR: %wg_has_rows = arith.cmpi ult, %wg_row, %M : index
// IR: scf.if %wg_has_rows
// IR: tile.gemm_async
// IR: // No rows: wait for each K block's stage and release it.
// IR-NOT: tile.gemm_async
// IR: nvgpu.mbarrier.try_wait.parity %full[%si_d]
// IR-NOT: tile.gemm_async
// IR: nvgpu.mbarrier.arrive %empty[%si_d]
// IR-LABEL: gpu.func @fp8_blockscaled_contiguous_128x128x128_s5(
// IR-NOT: %wg_has_rows
// IR-LABEL: gpu.func @fp8_blockscaled_masked_128x128x128_s5(
// IR-NOT: %wg_has_rows
// IR-LABEL: gpu.func @fp8_blockscaled_splitk_128x128x128_s4(
// IR: scf.if %wg_has_rows
// The masked walk in 128 x 64 tiles: the expert's B scale row n0 / 128.
// IR-LABEL: gpu.func @fp8_blockscaled_masked_128x64x128_s8(
// IR: %sfb_row = arith.divui %n0, %c128 : index
// IR-NOT: %wg_has_rows
// IR: %sfb_e = memref.load %sfb[%g, %sfb_row, %kt0] : memref<?x?x?xf32, 1>
// IR-LABEL: gpu.func @fp8_blockscaled_dense_128x64x128_s8(
// A 64-wide tile's B scale row is its first column / 128.
// IR: %sfb_row = arith.divui %n0, %c128 : index
// IR: tile.copy_async %gb[%b_row, %k0] to %sb[%s, 0, 0] sizes [64, 128]
// IR: scf.if %wg_has_rows
// IR: %a_stage_e = arith.addi %pair_e, %half : index
// IR: %b_stage_e = arith.addi %si_e, %c0 : index
// IR-LABEL: gpu.func @fp8_blockscaled_splitk_128x64x128_s7(
// IR: scf.if %wg_has_rows
//
// In 64-row tiles the two warpgroups share the rows and split the columns:
// one A box per stage, B's two halves into slots 2 s and 2 s + 1, each
// warpgroup's wgmma reading its own half, its C columns stored at
// n0 + 64 half (32 half at 64 wide); no warpgroup drains.
// IR-LABEL: gpu.func @fp8_blockscaled_dense_64x128x128_s8(
// IR: %sfb_row = arith.addi %pn, %c0 : index
// IR: tile.copy_async %ga[%m0, %k0] to %sa[%s, 0, 0] sizes [64, 128]
// IR-NOT: tile.copy_async %ga
// IR: tile.copy_async %gb[%b_row, %k0] to %sb[%b_slot0, 0, 0] sizes [64, 128]
// IR: tile.copy_async %gb[%b_row1, %k0] to %sb[%b_slot1, 0, 0] sizes [64, 128]
// IR: tile.copy_async %gsfa[%sfa_row, %m0, 0] to %ssfa[%s, 0, 0, 0] sizes [1, 64, 1]
// IR: %c_wn = arith.constant 64 : index
// IR: %col0 = arith.muli %half, %c_wn : index
// IR: %a_stage_e = arith.addi %si_e, %c0 : index
// IR: %b_stage_e = arith.addi %pair_e, %half : index
// IR: tile.gemm_async %p0[0, 0], %sa[%a_stage_e, 0, 0], %sb[%b_stage_e, 0, 0] sizes [64, 64, 128]
// IR: %n_half = arith.addi %n0, %col0 : index
// IR: tile.copy_async %sc[%half, 0, 0] to %gd[%m_half, %n_half] sizes [64, 64]
// IR-NOT: %wg_has_rows
// IR-LABEL: gpu.func @fp8_blockscaled_splitk_64x128x128_s7(
// IR-NOT: %wg_has_rows
// IR-LABEL: gpu.func @fp8_blockscaled_dense_64x64x128_s13(
// IR: %sfb_row = arith.divui %n0, %c128 : index
// IR: tile.gemm_async %p0[0, 0], %sa[%a_stage_e, 0, 0], %sb[%b_stage_e, 0, 0] sizes [64, 32, 128]
// IR: tile.copy_async %sc[%half, 0, 0] to %gd[%m_half, %n_half] sizes [64, 32]
// IR-NOT: %wg_has_rows
// IR-LABEL: gpu.func @fp8_blockscaled_splitk_64x64x128_s12(
// IR-NOT: %wg_has_rows
//
// CASES: "kernel": "fp8_blockscaled_dense_128x128x128_s5"
// CASES: "walk": "dense"
// CASES: "kernel": "fp8_blockscaled_contiguous_128x128x128_s5"
// CASES: "walk": "contiguous"
// CASES: "kernel": "fp8_blockscaled_masked_128x128x128_s5"
// CASES: "walk": "masked"
// CASES: "kernel": "fp8_blockscaled_splitk_128x128x128_s4"
// CASES: "walk": "splitk"
// CASES: "stages": 4
// CASES: "kernel": "fp8_blockscaled_masked_128x64x128_s8"
// CASES: "kernel": "fp8_blockscaled_dense_128x64x128_s8"
// CASES-NEXT: "walk": "dense"
// CASES-NEXT: "bm": 128
// CASES-NEXT: "bn": 64
// CASES: "kernel": "fp8_blockscaled_splitk_128x64x128_s7"
// CASES: "kernel": "fp8_blockscaled_dense_64x128x128_s8"
// CASES-NEXT: "walk": "dense"
// CASES-NEXT: "bm": 64
// CASES-NEXT: "bn": 128
// CASES: "kernel": "fp8_blockscaled_splitk_64x128x128_s7"
// CASES: "kernel": "fp8_blockscaled_dense_64x64x128_s13"
// CASES: "kernel": "fp8_blockscaled_splitk_64x64x128_s12"
// CASES: "quantizer": {
// CASES-NEXT: "kernel": "fp8_quantize_rows_64x128"
//
// The scale tiles come in by TMA beside the operands: 4 tensor maps per
// GEMM (A, B, SFA, and D or split-K's workspace), 3 for the quantizer (X,
// Q, SFA).
// MANIFEST-COUNT-47: "kind": "tensor_map"
// MANIFEST-NOT: "kind": "tensor_map"

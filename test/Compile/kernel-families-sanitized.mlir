// The kernel families under AddressSanitizer + UndefinedBehaviorSanitizer:
// one kernel of each form of each generator, compiled with translation
// validation and the simulation's remarks (no remark, no error, no
// sanitizer report). The whole families (gemm-kernels-ptxas.mlir,
// gemm-splitk-family.mlir, fp8-family.mlir, attention-family.mlir) run in
// the ordinary tree; instrumented, they take minutes each.
// REQUIRES: sanitizers
//
// The GEMM family: plain, ping-pong and epilogue kernels, and a kernel with
// its cp.async version.
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_kernels.py %t.gemm.mlir --kernels gemm_e4m3_tn_128x64x128_s8,gemm_bf16_tn_128x128x64_s4_pingpong_bias_gelu,gemm_bf16_tn_128x192x64_s4_alpha_beta_c,gemm_f16_tn_128x128x64_s5,gemm_f16_tn_128x128x64_s5_ldgsts
// RUN: tile-compile --check --remarks %t.gemm.mlir -o %t.gemm.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// Split-K, swap-AB, stream-K and cluster split-K GEMMs, and both reductions.
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_splitk_kernels.py %t.splitk.mlir --kernels gemm_bf16_tn_128x128x64_s5_splitk,gemm_e4m3_tn_swapab_64x64x128_s10_splitk,gemm_f16_tn_128x128x64_s5_streamk,gemm_bf16_tn_swapab_16x128x64_s8_clusterk8,gemm_e4m3_tn_128x128x128_s4_clusterk2,gemm_splitk_reduce_bf16_64x128,gemm_streamk_reduce_f16_16x128
// RUN: tile-compile --check --remarks %t.splitk.mlir -o %t.splitk.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// Block-scaled FP8: the four walks.
// RUN: %python %tile_src_root/bench/Kernels/gen_fp8_kernels.py --example contiguous > %t.fp8-contiguous.mlir
// RUN: tile-compile --check --remarks %t.fp8-contiguous.mlir -o %t.fp8-contiguous.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: %python %tile_src_root/bench/Kernels/gen_fp8_kernels.py --example masked > %t.fp8-masked.mlir
// RUN: tile-compile --check --remarks %t.fp8-masked.mlir -o %t.fp8-masked.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: %python %tile_src_root/bench/Kernels/gen_fp8_kernels.py --example splitk > %t.fp8-splitk.mlir
// RUN: tile-compile --check --remarks %t.fp8-splitk.mlir -o %t.fp8-splitk.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: tile-compile --check --remarks %tile_src_root/examples/fp8_blockscaled_gemm.mlir -o %t.fp8-dense.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// Attention: the example (d = 128, causal), and d = 64 and d = 256 forms.
// RUN: tile-compile --check --remarks %tile_src_root/examples/flash_attention.mlir -o %t.attention.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: %python %tile_src_root/bench/Kernels/gen_attention_kernels.py %t.attention-64.mlir %t.attention-64.json --example 64 none f16
// RUN: tile-compile --check --remarks %t.attention-64.mlir -o %t.attention-64.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: %python %tile_src_root/bench/Kernels/gen_attention_kernels.py %t.attention-256.mlir %t.attention-256.json --example 256 causal bf16
// RUN: tile-compile --check --remarks %t.attention-256.mlir -o %t.attention-256.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
//
// QUIET-NOT: remark
// QUIET-NOT: error
// QUIET-NOT: warning

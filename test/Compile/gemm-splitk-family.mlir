// The split-K GEMMs and their reductions
// (bench/Kernels/gen_gemm_splitk_kernels.py): every kernel compiles with
// translation validation, --tile-verify-kernels proves each one (no remark,
// no error), ptxas assembles them with no spills and no serialized wgmma.
// REQUIRES: ptxas
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_splitk_kernels.py %t.mlir %t.cases.json
// RUN: tile-compile --check --remarks %t.mlir -o %t.ptx --manifest %t.json 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=CASES < %t.cases.json
//
// QUIET-NOT: remark
// QUIET-NOT: error
// QUIET-NOT: warning
//
// Three GEMMs (bf16, f16, e4m3) and two reductions (to bf16, to f16).
// PTXAS-NOT: C751
// PTXAS-COUNT-5: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C751
//
// CASES: "kernel": "gemm_bf16_tn_128x128x64_s4_splitk"
// CASES: "kernel": "gemm_f16_tn_128x128x64_s4_splitk"
// CASES: "kernel": "gemm_e4m3_tn_128x128x128_s4_splitk"
// CASES: "reducers"
// CASES: "kernel": "gemm_splitk_reduce_bf16"
// CASES: "kernel": "gemm_splitk_reduce_f16"

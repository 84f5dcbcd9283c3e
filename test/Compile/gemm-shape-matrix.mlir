// The gemm_async shape matrix (5 element types x cta_group 1/2 x 6 M x 10 N x
// 3 K, K-major core-matrix operands): the 608 configurations the PTX ISA's
// tcgen05.mma shape rules allow, as decided by the generator apart from the
// planner, all lower to tcgen05.mma (2810 MMAs, 760 of them cta_group::2; the
// cta_group 2 M 128 accumulators on the folded data path B) and assemble for
// sm_100a. The 1192 the rules refuse are declined with the rule named in unit
// test Tcgen05MmaPlanner.ShapeMatrix (600 on M, 198 on N, 334 on K, 60 on
// tensor-memory columns).
// RUN: %python %tile_src_root/test/Compile/Inputs/gen_gemm_shape_matrix.py > %t.mlir
// RUN: tile-compile --check %t.mlir -o %t.ptx
// RUN: grep -c '^.visible .func' %t.ptx | FileCheck %s --check-prefix=FUNCS
// RUN: grep -c 'tcgen05.mma.cta_group' %t.ptx | FileCheck %s --check-prefix=MMAS
// RUN: grep -c 'tcgen05.mma.cta_group::2' %t.ptx | FileCheck %s --check-prefix=PAIR
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}
// RUN: %python %tile_src_root/test/Compile/Inputs/gen_gemm_shape_matrix.py --count | FileCheck %s --check-prefix=RULES

// FUNCS: 608
// MMAS: 2810
// PAIR: 760
// RULES: configurations 608 mmas 2810

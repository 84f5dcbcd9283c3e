// The tcgen05.cp configuration matrix of the Gluon tcgen05_copy tutorial:
// every configuration the tutorial runs (130: fp32, swizzle 32/64/128, M in
// {128, 256}, N in {16..256}, TensorMemoryLayout block (128, bn) for bn in
// {1..256}) lowers to tcgen05.cp and assembles for sm_100a; so do the 21 it
// skips for Triton's codegen although a 128-bit column run exists (--beyond).
// The 22 it skips with tensor-memory blocks narrower than 128 bits are
// declined (the Tcgen05CpPlanner unit test of the tutorial matrix, which also
// simulates every plan byte by byte).
// RUN: %python %tile_src_root/test/Compile/Inputs/gen_tcgen05_cp_config_matrix.py > %t.mlir
// RUN: tile-compile --check %t.mlir -o %t.ptx
// RUN: grep -c '^.visible .func' %t.ptx | FileCheck %s --check-prefix=FUNCS
// RUN: grep -c 'tcgen05.cp.cta_group::1' %t.ptx | FileCheck %s --check-prefix=COPIES
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}
// RUN: %python %tile_src_root/test/Compile/Inputs/gen_tcgen05_cp_config_matrix.py --beyond > %t.beyond.mlir
// RUN: tile-compile --check %t.beyond.mlir -o %t.beyond.ptx
// RUN: grep -c '^.visible .func' %t.beyond.ptx | FileCheck %s --check-prefix=BEYOND
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.beyond.ptx -o %t.beyond.cubin %}

// FUNCS: 130
// COPIES: 2096
// BEYOND: 21

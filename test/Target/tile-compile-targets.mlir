// tile-compile on the chip / PTX-version / type combinations that used to
// end in an LLVM fatal error: each compiles at a chosen version, or is an
// error on the op, the module or the kernel.
// REQUIRES: ptxas
//
// Block scaling needs PTX 8.8: asked for 8.6 or 8.7 it is refused at
// selection; with no version, or no #nvvm.target at all, 8.8 is chosen.
// RUN: sed 's/+ptx88/+ptx86/' %tile_src_root/examples/gemm_block_scaled.mlir > %t.86.mlir
// RUN: not tile-compile --check %t.86.mlir -o %t.86.ptx 2>&1 | FileCheck %s --check-prefix=PTX86
// RUN: sed 's/+ptx88/+ptx87/' %tile_src_root/examples/gemm_block_scaled.mlir > %t.87.mlir
// RUN: not tile-compile --check %t.87.mlir -o %t.87.ptx 2>&1 | FileCheck %s --check-prefix=PTX87
// RUN: sed 's/, features = "+ptx88"//' %tile_src_root/examples/gemm_block_scaled.mlir > %t.none.mlir
// RUN: tile-compile --check %t.none.mlir -o %t.none.ptx
// RUN: FileCheck %s --check-prefix=V88 < %t.none.ptx
// RUN: ptxas -arch=sm_100a %t.none.ptx -o %t.none.cubin
// RUN: sed 's/ \[#nvvm.target<chip = "sm_100a", features = "+ptx88">\]//' %tile_src_root/examples/gemm_block_scaled.mlir > %t.notarget.mlir
// RUN: tile-compile --check %t.notarget.mlir -o %t.notarget.ptx
// RUN: FileCheck %s --check-prefix=V88 < %t.notarget.ptx
//
// DSMEM and TMA copies on sm_90a without a PTX feature: 8.0 is chosen.
// RUN: tile-compile --check %tile_src_root/examples/dsmem_copy.mlir --chip sm_90a -o %t.dsmem.ptx
// RUN: FileCheck %s --check-prefix=V80 < %t.dsmem.ptx
// RUN: ptxas -arch=sm_90a %t.dsmem.ptx -o %t.dsmem.cubin
// RUN: tile-compile --check %tile_src_root/examples/tma_tile_copy.mlir --chip sm_90a -o %t.tma.ptx
// RUN: ptxas -arch=sm_90a %t.tma.ptx -o %t.tma.cubin
//
// Unknown chips and types NVPTX cannot lower.
// RUN: not tile-compile --check %tile_src_root/examples/tma_copy.mlir --chip sm_1000a -o %t.x.ptx 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-compile --check %S/Inputs/f80-store.mlir -o %t.f80.ptx 2>&1 | FileCheck %s --check-prefix=F80
// RUN: not tile-compile --check %S/Inputs/f8-gep.mlir -o %t.f8.ptx 2>&1 | FileCheck %s --check-prefix=F8
// RUN: not tile-compile --check %S/Inputs/f80-argument.mlir -o %t.f80a.ptx 2>&1 | FileCheck %s --check-prefix=F80ARG
// Any type without an LLVM IR counterpart, by one rule (not a list): a GEP
// over complex<f32> crashed LLVM's IR translation ("GEP into unsized type").
// RUN: not tile-compile --check %S/Inputs/complex-gep.mlir -o %t.cx.ptx 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: not tile-compile --check %S/Inputs/struct-of-tuple.mlir -o %t.tu.ptx 2>&1 | FileCheck %s --check-prefix=TUPLE
//
// What no check foresees (an intrinsic called by name, for a chip without
// it) still ends in an error naming the kernel, not an abort.
// RUN: not tile-compile --check %S/Inputs/backend-failure.mlir -o %t.bf.ptx 2>&1 | FileCheck %s --check-prefix=BACKEND

// PTX86: error: no variant of tile.gemm_async can implement this op on sm_100a
// PTX86: note: tcgen05 (priority 10): rejected: tcgen05_target — tcgen05.mma.block_scale needs PTX ISA 8.8 to 9.0 on sm_100a; the #nvvm.target asks for 8.6
// PTX87: tcgen05.mma.block_scale needs PTX ISA 8.8 to 9.0 on sm_100a; the #nvvm.target asks for 8.7
// V88: .version 8.8
// V80: .version 8.0
// CHIP: error: unknown chip 'sm_1000a'; known chips: sm_80,
// F80: f80-store.mlir:3:5: error: the NVPTX backend cannot lower values of type 'f80'; use an integer type of the same width
// F8: f8-gep.mlir:3:10: error: the NVPTX backend cannot lower values of type 'f8E4M3FN'; use an integer type of the same width
// F80ARG: error: the NVPTX backend cannot lower values of type 'f80'; use an integer type of the same width
// COMPLEX: complex-gep.mlir:3:10: error: LLVM IR has no type for 'complex<f32>'
// COMPLEX-NOT: Stack dump
// TUPLE: struct-of-tuple.mlir:3:10: error: LLVM IR has no type for 'tuple<i32>'
// TUPLE-NOT: Stack dump
// BACKEND: tile-compile: error: the NVPTX backend failed on kernel alloc: Cannot select: intrinsic %llvm.nvvm.tcgen05.alloc.shared.cg1
// BACKEND-NOT: Stack dump

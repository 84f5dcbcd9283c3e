// The LLVM IR pipeline before NVPTX code generation. A module of kernels
// alone gets the short kernel pipeline: a constant-trip loop over four
// stores is unrolled (loop-unroll-full) and no branch is left. A module
// with a device function gets LLVM's default<O2> either way, so the helper
// is inlined and no call remains. --llvm-pipeline=default runs default<O2>
// on the kernel-only module too; bad values are refused. Both resolve
// __nvvm_reflect("__CUDA_ARCH") to the chip's 900, and they are told apart
// by a loop of stores to one address: default<O2> folds it to its last
// store, the kernel pipeline (no loop deletion) keeps the loop.
// RUN: tile-compile %s --chip sm_90a -o - | FileCheck %s
// RUN: tile-compile %s --chip sm_90a --llvm-pipeline=default -o - | FileCheck %s
// RUN: tile-compile %S/Inputs/device-function.mlir -o - | FileCheck %s --check-prefix=HELPER
// RUN: tile-compile %S/Inputs/reflect-and-loop.mlir -o - | FileCheck %s --check-prefixes=REFLECT,KERNEL
// RUN: tile-compile %S/Inputs/reflect-and-loop.mlir --llvm-pipeline=default -o - | FileCheck %s --check-prefixes=REFLECT,DEFAULT
// RUN: not tile-compile %s --llvm-pipeline=fast -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: .entry four_stores(
// CHECK-NOT: bra
// CHECK-COUNT-4: st.global.b32
// CHECK-NOT: bra
// CHECK: ret;

// HELPER-LABEL: .entry calls_a_helper(
// HELPER-NOT: {{^[[:space:]]*call}}
// HELPER: shl.b32 {{.*}}, 3;
// HELPER-NEXT: st.global.b32
// HELPER-NOT: {{^[[:space:]]*call}}
// HELPER: ret;

// REFLECT-LABEL: .entry reads_the_arch(
// KERNEL: st.global.b32 [%rd{{[0-9]+}}], 900;
// KERNEL: bra.uni
// DEFAULT: selp.b32 {{.*}}, 900,
// DEFAULT-NOT: bra
// REFLECT: ret;

// BAD: Cannot find option named 'fast'

gpu.module @kernels_only [#nvvm.target<chip = "sm_90a">] {
  gpu.func @four_stores(%out: memref<4xi32, 1>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i32
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %t, %ii : i32
      memref.store %v, %out[%i] : memref<4xi32, 1>
    }
    gpu.return
  }
}

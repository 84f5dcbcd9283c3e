// A kernel reading __nvvm_reflect("__CUDA_ARCH") and storing a loop's
// counter (llvm-pipeline.mlir).
gpu.module @reflects [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global private constant @arch("__CUDA_ARCH\00") {addr_space = 0 : i32} : !llvm.array<12 x i8>
  llvm.func @__nvvm_reflect(!llvm.ptr) -> i32
  gpu.func @reads_the_arch(%out: memref<1xi32, 1>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %name = llvm.mlir.addressof @arch : !llvm.ptr
    %arch = llvm.call @__nvvm_reflect(%name) : (!llvm.ptr) -> i32
    memref.store %arch, %out[%c0] : memref<1xi32, 1>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      memref.store %ii, %out[%c0] : memref<1xi32, 1>
    }
    gpu.return
  }
}

gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  llvm.func @gep(%p: !llvm.ptr, %v: i8) attributes {nvvm.kernel} {
    %q = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, f8E4M3FN
    llvm.store %v, %q : i8, !llvm.ptr
    llvm.return
  }
}

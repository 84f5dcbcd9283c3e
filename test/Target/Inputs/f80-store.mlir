gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  llvm.func @store(%p: !llvm.ptr, %v: f80) attributes {nvvm.kernel} {
    llvm.store %v, %p : f80, !llvm.ptr
    llvm.return
  }
}

gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  llvm.func @gep(%p: !llvm.ptr, %v: i32) attributes {nvvm.kernel} {
    %q = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, tuple<i32>)>
    llvm.store %v, %q : i32, !llvm.ptr
    llvm.return
  }
}

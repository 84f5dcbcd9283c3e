gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  llvm.func @alloc(%slot: !llvm.ptr<3>, %n: i32) attributes {nvvm.kernel} {
    llvm.call_intrinsic "llvm.nvvm.tcgen05.alloc.shared.cg1"(%slot, %n) : (!llvm.ptr<3>, i32) -> ()
    llvm.return
  }
}

gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  gpu.func @k() kernel {
    gpu.return
  }
}

gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  gpu.func @unused(%v: f80) kernel {
    gpu.return
  }
}

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%peer: i32) kernel {
    %s = tile.alloc_shared : !tile.buffer<64xf16, shared>
    tile.copy_async %s[0] to %s[0] sizes [64] exec warp remote_cta(%peer) : !tile.buffer<64xf16, shared> to !tile.buffer<64xf16, shared>
    gpu.return
  }
}

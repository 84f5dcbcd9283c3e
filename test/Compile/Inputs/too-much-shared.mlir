// 240 KiB of shared buffers in one kernel: over sm_90a's 227 KiB per block.
gpu.module @too_much [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k() kernel {
    %a = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<128x512xf16, shared>
    %b = tile.alloc_shared {alignment = 16 : i64} : !tile.buffer<112x512xf16, shared>
    gpu.return
  }
}

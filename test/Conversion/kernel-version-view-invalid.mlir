// A kernel version's cp.async copy reading a view of an argument: the
// runtime chooses versions by what they need of their arguments, and a
// view's alignment is not its argument's, so the lowering refuses it.
// RUN: tile-opt %s --tile-select-variants --tile-assign-shared-offsets --tile-lower-variants --verify-diagnostics -o /dev/null

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @copy(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    gpu.return
  }
  gpu.func @copy_ldgsts(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>,
                  tile.version_of = "copy"} {
    %c0 = arith.constant 0 : index
    %view = memref.cast %in : memref<?x?xf16, 1> to memref<?x64xf16, 1>
    %g = tile.from_memref %view : memref<?x64xf16, 1> -> !tile.buffer<?x64xf16, global>
    %s = tile.alloc_shared : !tile.buffer<64x64xf16, shared>
    %bar = nvgpu.mbarrier.create -> !bars
    // expected-error @+1 {{in a kernel version (tile.version_of), ldgsts copies read a kernel argument, not a view of one}}
    tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec warpgroup
        mbar(%bar[%c0] : !bars) : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    gpu.return
  }
}

// A target without a PTX feature gets the lowest version that covers what
// its ops emit; the remark says which op decided it.
// RUN: tile-opt %s --tile-to-nvvm="explain=1 check=1" -split-input-file 2>&1 | FileCheck %s

// Bulk copies between CTAs need PTX 8.0 (LLVM's default for sm_90 is 7.8,
// where they cannot be selected).
// CHECK: remark: PTX ISA 8.0 for sm_90: cp.async.bulk.shared::cluster and mapa needs it
// CHECK: gpu.module @dsmem_sm90 [#nvvm.target<chip = "sm_90", features = "+ptx80">]
!sw = !tile.buffer<8x64xf16, shared>
gpu.module @dsmem_sm90 [#nvvm.target<chip = "sm_90">] {
  gpu.func @k(%bar: !llvm.ptr<3>, %peer: i32) kernel {
    %s = tile.alloc_shared : !sw
    %d = tile.alloc_shared : !sw
    tile.copy_async %s[0, 0] to %d[0, 0] sizes [8, 64] exec thread mbar(%bar) remote_cta(%peer) : !sw to !sw
    gpu.return
  }
}

// -----

// Nothing needs more than the chip's first version; existing features stay.
// CHECK: remark: PTX ISA 8.6 for sm_100a: the lowest version that supports sm_100a (no op here needs a later one)
// CHECK: gpu.module @plain_sm100a [#nvvm.target<chip = "sm_100a", features = "+ptx86,+fast">]
gpu.module @plain_sm100a [#nvvm.target<chip = "sm_100a", features = "+fast">] {
  gpu.func @k() kernel {
    gpu.return
  }
}

// -----

// An explicit version is kept as written.
// CHECK-NOT: remark: PTX ISA
// CHECK: gpu.module @explicit [#nvvm.target<chip = "sm_100a", features = "+ptx88">]
gpu.module @explicit [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  gpu.func @k() kernel {
    gpu.return
  }
}

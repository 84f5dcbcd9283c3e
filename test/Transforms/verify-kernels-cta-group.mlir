// RUN: tile-opt %s --tile-verify-kernels -split-input-file -verify-diagnostics

!a16 = !tile.buffer<128x64xf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>

// cta_group 2 MMAs after a cta_group 1 tensor-memory allocation.
gpu.module @k [#nvvm.target<chip = "sm_100a">] {
  gpu.func @mixed(%a: !a16, %slot: !llvm.ptr<3>, %taddr: i32) kernel {
    // expected-note @+1 {{first tcgen05 operation (cta_group::1)}}
    nvvm.tcgen05.alloc %slot, %taddr : !llvm.ptr<3>, i32
    %c = tile.tmem_buffer %taddr : !acc
    // expected-error @+1 {{uses cta_group::2 but this function's first tcgen05 operation uses cta_group::1; ptxas rejects a function that mixes them (one cta_group per kernel)}}
    tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [256, 128, 64] exec thread {cta_group = 2 : i32, transpose_b} : !acc, !a16, !a16
    gpu.return
  }
}

// -----

!a16 = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x128xf32, tmem, #tile.layout<S[(64,128):(1@TLane,1@TCol)]>>

// A commit of the other group after cta_group 2 MMAs.
gpu.module @k [#nvvm.target<chip = "sm_100a">] {
  gpu.func @commit(%a: !a16, %bar: !llvm.ptr<3>, %taddr: i32) kernel {
    %c = tile.tmem_buffer %taddr : !acc
    // expected-note @+1 {{first tcgen05 operation (cta_group::2)}}
    tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {cta_group = 2 : i32, transpose_b} : !acc, !a16, !a16
    // expected-error @+1 {{tcgen05.commit uses cta_group::1 but the tcgen05 operations it would track use cta_group::2; a commit tracks the operations of its own cta_group}}
    nvvm.tcgen05.commit %bar : !llvm.ptr<3>
    gpu.return
  }
}

// -----

// One group throughout (alloc, copy, mma, commit, dealloc at cta_group 2),
// and a second function free to use cta_group 1: no diagnostics.
!a16 = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x128xf32, tmem, #tile.layout<S[(64,128):(1@TLane,1@TCol)]>>
gpu.module @k [#nvvm.target<chip = "sm_100a">] {
  gpu.func @consistent(%a: !a16, %slot: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %taddr: i32, %tptr: !llvm.ptr<6>) kernel {
    nvvm.tcgen05.alloc %slot, %taddr {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
    %c = tile.tmem_buffer %taddr : !acc
    tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [128, 128, 64] exec thread {cta_group = 2 : i32, transpose_b} : !acc, !a16, !a16
    nvvm.tcgen05.commit %bar {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>
    nvvm.tcgen05.dealloc %tptr, %taddr {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
    gpu.return
  }
  gpu.func @other(%bar: !llvm.ptr<3>) kernel {
    nvvm.tcgen05.commit %bar : !llvm.ptr<3>
    gpu.return
  }
}

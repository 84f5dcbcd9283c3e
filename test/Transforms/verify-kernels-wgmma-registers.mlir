// --tile-verify-kernels refuses a use of a wgmma's register accumulator, or
// a write of its register A, before the wait_group that retires its group.
// RUN: tile-opt %s --tile-verify-kernels -split-input-file -verify-diagnostics

!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
// The softmax of S read while the MMA producing it may still run.
func.func @reduce_before_wait(%a: !sh, %b: !sh, %flag: i1) {
  %s = tile.alloc_local : !acc
  %m = tile.alloc_local : !rows
  // expected-note @+1 {{the gemm_async in flight}}
  tile.gemm_async %s[0, 0], %a[0, 0], %b[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
  tile.commit_group wgmma
  // expected-error @+1 {{uses the register accumulator of a wgmma that may still be writing it}}
  tile.reduce <max> %s dims [1] into %m : !acc into !rows
  tile.wait_group wgmma, 0
  return
}

// -----

!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rows = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
// Two groups, one kept in flight: the older accumulator is retired, the
// newer is not (FlashAttention's overlap: the next S = Q Kᵀ issued before
// this block's softmax).
func.func @overlap(%a: !sh, %b: !sh, %flag: i1) {
  %s0 = tile.alloc_local : !acc
  %s1 = tile.alloc_local : !acc
  %m = tile.alloc_local : !rows
  tile.gemm_async %s0[0, 0], %a[0, 0], %b[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
  tile.commit_group wgmma
  // expected-note @+1 {{the gemm_async in flight}}
  tile.gemm_async %s1[0, 0], %a[0, 0], %b[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
  tile.commit_group wgmma
  tile.wait_group wgmma, 1
  tile.reduce <max> %s0 dims [1] into %m : !acc into !rows
  // expected-error @+1 {{uses the register accumulator of a wgmma that may still be writing it}}
  tile.reduce <max> %s1 dims [1] into %m : !acc into !rows
  tile.wait_group wgmma, 0
  tile.reduce <max> %s1 dims [1] into %m : !acc into !rows
  return
}

// -----

!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!p = !tile.buffer<64x16xbf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!v = !tile.buffer<16x16xbf16, shared, #tile.layout<S[(16,16):(16,1)], swizzle<1,3,3>>>
// P rewritten (the next block's convert) while O += P V still reads it; an
// uncommitted MMA is in flight too.
func.func @register_a_rewritten(%v: !v, %flag: i1) {
  %s = tile.alloc_local : !acc
  %o = tile.alloc_local : !acc
  %p = tile.alloc_local : !p
  tile.convert %s to %p : !acc to !p
  // expected-note @+1 {{the gemm_async in flight (its group is not committed)}}
  tile.gemm_async %o[0, 0], %p[0, 0], %v[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) : !acc, !p, !v
  // expected-error @+1 {{writes the register A of a wgmma that may still be reading it}}
  tile.convert %s to %p : !acc to !p
  tile.commit_group wgmma
  tile.wait_group wgmma, 0
  return
}

// -----

!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// A loop keeping one group in flight: the accumulator read at the top of
// the next trip is still being written.
func.func @loop(%a: !sh, %b: !sh, %flag: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_local : !acc
  %t = tile.alloc_local : !acc
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{uses the register accumulator of a wgmma that may still be writing it}}
    tile.convert %s to %t : !acc to !acc
    // expected-note @+1 {{the gemm_async in flight}}
    tile.gemm_async %s[0, 0], %a[0, 0], %b[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
    tile.commit_group wgmma
    tile.wait_group wgmma, 1
  }
  tile.wait_group wgmma, 0
  return
}

// -----

!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// The MMA issued again by each trip is the newest group after the loop:
// wait_group 1 does not retire it.
func.func @reissued(%a: !sh, %b: !sh, %flag: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_local : !acc
  %t = tile.alloc_local : !acc
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @+1 {{the gemm_async in flight}}
    tile.gemm_async %s[0, 0], %a[0, 0], %b[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
    tile.commit_group wgmma
  }
  tile.wait_group wgmma, 1
  // expected-error @+1 {{uses the register accumulator of a wgmma that may still be writing it}}
  tile.convert %s to %t : !acc to !acc
  tile.wait_group wgmma, 0
  return
}

// -----

!sh = !tile.buffer<64x16xbf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf32, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// The overlap inside an inner loop of a persistent kernel's tile loop.
func.func @nested(%a: !sh, %b: !sh, %flag: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_local : !acc
  %t = tile.alloc_local : !acc
  scf.for %o = %c0 to %n step %c1 {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{uses the register accumulator of a wgmma that may still be writing it}}
      tile.convert %s to %t : !acc to !acc
      // expected-note @+1 {{the gemm_async in flight}}
      tile.gemm_async %s[0, 0], %a[0, 0], %b[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
      tile.commit_group wgmma
      tile.wait_group wgmma, 1
    }
    tile.wait_group wgmma, 0
  }
  return
}

// -----

!sh = !tile.buffer<64x16xf16, shared, #tile.layout<S[(64,16):(16,1)], swizzle<1,3,3>>>
!v = !tile.buffer<16x16xf16, shared, #tile.layout<S[(16,16):(16,1)], swizzle<1,3,3>>>
!acc = !tile.buffer<64x16xf16, local, #tile.layout<S[(4,2,8,2,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// An MMA accumulating into another in-flight MMA's register A.
func.func @a_overwritten_by_mma(%a: !sh, %b: !sh, %w: !v, %flag: i1) {
  %o = tile.alloc_local : !acc
  %p = tile.alloc_local : !acc
  // expected-note @+1 {{the gemm_async in flight (its group is not committed)}}
  tile.gemm_async %o[0, 0], %p[0, 0], %w[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) : !acc, !acc, !v
  // expected-error @+1 {{writes the register A of a wgmma that may still be reading it}}
  tile.gemm_async %p[0, 0], %a[0, 0], %b[0, 0] sizes [64, 16, 16] exec warpgroup accumulate(%flag) {transpose_b} : !acc, !sh, !sh
  tile.commit_group wgmma
  tile.wait_group wgmma, 0
  return
}

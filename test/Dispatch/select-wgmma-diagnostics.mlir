// Every wgmma (gemm_async) refusal names its rule: the predicates, then the
// planner's declines.
// RUN: tile-opt %s --tile-select-variants -split-input-file -verify-diagnostics

// A single thread cannot issue a warpgroup MMA.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: issuer — issued by a thread; wgmma.mma_async is issued by all 128 threads of a warpgroup together (exec warpgroup)}}
    tile.gemm_async %acc[0, 0], %a[0, 0], %a[0, 0] sizes [64, 64, 64] exec thread {transpose_b} : !acc, !a, !a
    gpu.return
  }
}

// -----

// C in tensor memory is tcgen05's; wgmma accumulates in registers.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!tm = !tile.buffer<64x64xf32, tmem, #tile.layout<S[(64,64):(1@TLane,1@TCol)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a, %t: i32) kernel {
    %c = tile.tmem_buffer %t : !tm
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: issuer}}
    // expected-note @+1 {{wgmma (priority 10): rejected: operand_scopes — C is in tmem; wgmma accumulates in registers (a local tile)}}
    tile.gemm_async %c[0, 0], %a[0, 0], %a[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !tm, !a, !a
    gpu.return
  }
}

// -----

// A in registers must hold the wgmma A fragment: here each thread's two
// adjacent columns are swapped with the next thread's.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!ra = !tile.buffer<64x64xf16, local, #tile.layout<S[(4,2,8,8,2,4):(32@tid_in_wg,2,4@tid_in_wg,4,1,1@tid_in_wg)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc
    %ra = tile.alloc_local : !ra
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: a_fragment — A element (0, 1) is in thread 1; the wgmma A fragment puts it in thread 0 (thread t = 32w + 4q + r of the warpgroup holds row 16w + 8h + q, column 8j + 2r + e of each 16-column K step in 32-bit register 2j + h (element e of its 2))}}
    tile.gemm_async %acc[0, 0], %ra[0, 0], %a[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !acc, !ra, !a
    gpu.return
  }
}

// -----

// The register-A form has no imm-trans-a.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!ra = !tile.buffer<64x64xf16, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc
    %ra = tile.alloc_local : !ra
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: a_fragment — transpose_a with A in registers: the register-A form of wgmma.mma_async has no imm-trans-a (its fragment is K-major by definition); load A into the fragment transposed instead}}
    tile.gemm_async %acc[0, 0], %ra[0, 0], %a[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_a, transpose_b} : !acc, !ra, !a
    gpu.return
  }
}

// -----

// An fp8 register A with the 16-bit fragment's layout (two columns a
// thread where the fp8 fragment holds four).
!b8 = !tile.buffer<64x64xf8E4M3FN, shared, #tile.layout<S[(64,64):(64,1)], swizzle<2,4,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!ra8 = !tile.buffer<64x32xf8E4M3FN, local, #tile.layout<S[(4,2,8,4,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%b: !b8) kernel {
    %acc = tile.alloc_local : !acc
    %ra = tile.alloc_local : !ra8
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: a_fragment — A element (0, 2) is in thread 1; the wgmma A fragment puts it in thread 0 (thread t = 32w + 4q + r of the warpgroup holds row 16w + 8h + q, column 16j + 4r + e of each 32-column K step in 32-bit register 2j + h (element e of its 4))}}
    tile.gemm_async %acc[0, 0], %ra[0, 0], %b[0, 0] sizes [64, 64, 32] exec warpgroup {transpose_b} : !acc, !ra8, !b8
    gpu.return
  }
}

// -----

// A transposed fp8 register A: no imm-trans-a (and fp8 is K-major only).
!b8 = !tile.buffer<64x64xf8E4M3FN, shared, #tile.layout<S[(64,64):(64,1)], swizzle<2,4,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!ra8 = !tile.buffer<32x64xf8E4M3FN, local, #tile.layout<S[(32,4,16):(4@tid_in_wg,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%b: !b8) kernel {
    %acc = tile.alloc_local : !acc
    %ra = tile.alloc_local : !ra8
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: majorness — A is MN-major with 8-bit elements; wgmma transposes only 16-bit (f16, bf16) operands: drop transpose_a}}
    tile.gemm_async %acc[0, 0], %ra[0, 0], %b[0, 0] sizes [64, 64, 32] exec warpgroup {transpose_a, transpose_b} : !acc, !ra8, !b8
    gpu.return
  }
}

// -----

// A register A of one warp.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!rw = !tile.buffer<64x16xf16, local, #tile.layout<S[(8,8,4,4):(4@laneid,4,1@laneid,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc
    %ra = tile.alloc_local : !rw
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: a_fragment — A is a register tile of 32 thread(s); a wgmma register A spans the 128 threads of a warpgroup}}
    tile.gemm_async %acc[0, 0], %ra[0, 0], %a[0, 0] sizes [64, 64, 16] exec warpgroup {transpose_b} : !acc, !rw, !a
    gpu.return
  }
}

// -----

// bf16 does not accumulate into f16.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!abf = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acch = !tile.buffer<64x64xf16, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%abf: !abf) kernel {
    %acc = tile.alloc_local : !acc
    %acch = tile.alloc_local : !acch
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: element_types — bf16 x bf16 -> f16; wgmma takes f16 (into f16 or f32), bf16 (into f32), tf32 (into f32) and e4m3/e5m2 in any mix (into f16 or f32)}}
    tile.gemm_async %acch[0, 0], %abf[0, 0], %abf[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !acch, !abf, !abf
    gpu.return
  }
}

// -----

// Integer operands are tcgen05's only.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!i8 = !tile.buffer<64x64xi8, shared>
!acci = !tile.buffer<64x64xi32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%i: !i8) kernel {
    %acci = tile.alloc_local : !acci
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: element_types — A elements are i8; wgmma takes f16, bf16, tf32 (f32) and fp8 (e4m3, e5m2)}}
    tile.gemm_async %acci[0, 0], %i[0, 0], %i[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !acci, !i8, !i8
    gpu.return
  }
}

// -----

// tf32 operands are K-major only: B as K x N is refused.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!t32 = !tile.buffer<64x32xf32, shared, #tile.layout<S[(64,32):(32,1)], swizzle<3,2,3>>>
!t32b = !tile.buffer<32x64xf32, shared, #tile.layout<S[(32,2,32):(32,1024,1)], swizzle<3,2,3>>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%t: !t32, %tb: !t32b) kernel {
    %acc = tile.alloc_local : !acc
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: majorness — B is MN-major with 32-bit elements; wgmma transposes only 16-bit (f16, bf16) operands: store B as N x K and set transpose_b}}
    tile.gemm_async %acc[0, 0], %t[0, 0], %tb[0, 0] sizes [64, 64, 32] exec warpgroup : !acc, !t32, !t32b
    gpu.return
  }
}

// -----

// A register tile spread by rows is not the accumulator fragment.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!lanes = !tile.buffer<64x64xf32, local, #tile.layout<S[(64,2,32):(1@tid_in_wg,64@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc
    %lanes = tile.alloc_local : !lanes
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: accumulator_layout — C element (8, 0) is in thread 8; the wgmma accumulator fragment puts it in thread 0 (thread t = 32w + 4q + r of the warpgroup holds row 16w + 8h + q, column 8j + 2r + e in register 4j + 2h + e)}}
    tile.gemm_async %lanes[0, 0], %a[0, 0], %a[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !lanes, !a, !a
    gpu.return
  }
}

// -----

// wgmma is sm_90a's.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_100a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: wgmma_target — wgmma.mma_async needs one of sm_90a, not sm_100a}}
    tile.gemm_async %acc[0, 0], %a[0, 0], %a[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !acc, !a, !a
    gpu.return
  }
}

// -----

// Plain row-major A is no canonical layout (core matrices are dense 8 x 16 B).
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!plain = !tile.buffer<64x64xf16, shared>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%p: !plain, %a: !a) kernel {
    %acc = tile.alloc_local : !acc
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): declined — A element (1, 0) is at element 64; the descriptor (K-major, no swizzle, LBO 16 B, SBO 1024 B) reads element 8 there}}
    tile.gemm_async %acc[0, 0], %p[0, 0], %a[0, 0] sizes [64, 64, 64] exec warpgroup {transpose_b} : !acc, !plain, !a
    gpu.return
  }
}

// -----

// K must be a multiple of the instruction's.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): declined — K = 56 is not a multiple of f16 wgmma's K = 16 (256 bits of a row)}}
    tile.gemm_async %acc[0, 0], %a[0, 0], %a[0, 0] sizes [64, 64, 56] exec warpgroup {transpose_b} : !acc, !a, !a
    gpu.return
  }
}

// -----

// M is 64 rows per instruction; an M of 32 is possible only as swap-AB
// (C^T = B A^T), whose accumulator is the fragment transposed.
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc32 = !tile.buffer<32x64xf32, local, #tile.layout<S[(32,4,16):(1@tid_in_wg,32@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a) kernel {
    %acc = tile.alloc_local : !acc32
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: accumulator_layout — M = 32 is not a multiple of 64 (wgmma's M); swap-AB (C^T = B A^T; in its terms A, B, M and N are the op's B, A, N and M, and C element (i, j) is the op's C(j, i)): C element (0, 1) is in thread 1; the wgmma accumulator fragment puts it in thread 0}}
    tile.gemm_async %acc[0, 0], %a[0, 0], %a[0, 0] sizes [32, 64, 64] exec warpgroup {transpose_b} : !acc32, !a, !a
    gpu.return
  }
}

// -----

// A register A indexed at run time (a stage of a register ring).
!a = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!acc = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!ring = !tile.buffer<2x64x16xf16, local, #tile.layout<S[(2,4,2,8,2,4,2):(8,32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !a, %i: index) kernel {
    %acc = tile.alloc_local : !acc
    %ra = tile.alloc_local : !ring
    // expected-error @+3 {{no variant of tile.gemm_async can implement this op on sm_90a}}
    // expected-note @+2 {{tcgen05 (priority 10): rejected: }}
    // expected-note @+1 {{wgmma (priority 10): rejected: a_fragment — A has a runtime offset; a register tile is indexed by constants only (its registers are named at compile time)}}
    tile.gemm_async %acc[0, 0], %ra[%i, 0, 0], %a[0, 0] sizes [64, 64, 16] exec warpgroup {transpose_b} : !acc, !ring, !a
    gpu.return
  }
}

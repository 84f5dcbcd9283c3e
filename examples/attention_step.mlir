// One FlashAttention step, in registers between two wgmma (sm_90a).
//
// For a 64-row tile of queries Q and one 64-key block of K and V (64-wide
// heads, bf16), one warpgroup computes
//
//   S   = Q Kᵀ                                (wgmma, f32 accumulator)
//   m   = rowmax S                            (tile.reduce: a butterfly over
//                                              each row's quad of lanes)
//   P   = exp2((S - m) · scale · log2 e)      (tile.map: ex2.approx)
//   l   = rowsum P                            (tile.reduce)
//   O   = bf16(P) V                           (tile.convert: packed cvt, no
//                                              data movement; P is the
//                                              register-A operand of wgmma)
//   LSE = m · scale + ln l,  O ·= 1 / l       (tile.map, broadcasting l)
//
// The full forward kernel repeats the middle steps over K/V blocks with an
// online rescaling of O; this file is the piece that has to be right in
// registers. The layouts say everything: S's is the wgmma m64n64
// accumulator fragment (thread 32w + 4q + r holds rows 16w + q and
// 16w + 8 + q, columns 8j + 2r and 8j + 2r + 1), and a row statistic (m,
// l) is a 64x1 tile held by the four threads of its row's quad (`R[4:1@tid_in_wg]`:
// replicated over the low two thread bits). That is what lets the dispatch
// prove a map may read m in every thread that holds a row of S.
//
// The device suite runs this kernel against a double-precision reference
// (RegisterComputeTests.cpp, AttentionStep); `scripts/demo` compiles it with
// --check. gen_register_compute_kernels.py generates the same step for one
// and two warpgroups.

!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Q, K, V in shared memory: 64 rows of 128 bytes, 128-byte swizzled (the
// layout TMA writes and wgmma reads).
!tileQKV = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!gQKV = !tile.buffer<64x64xbf16, global>

// The m64n64 accumulator fragment, for S (f32), P (bf16: the same places
// are wgmma's register-A fragment) and O (f32).
!S = !tile.buffer<64x64xf32, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!P = !tile.buffer<64x64xbf16, local, #tile.layout<S[(4,2,8,8,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

// A row statistic: row 16w + 8h + q in register h of each thread of quad q.
!Row = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>

gpu.module @attention_step [#nvvm.target<chip = "sm_90a">] {
  gpu.func @attention_step(%q: memref<64x64xbf16, 1>, %k: memref<64x64xbf16, 1>,
                           %v: memref<64x64xbf16, 1>, %o_out: memref<64x64xf32, 1>,
                           %lse_out: memref<64x1xf32, 1>, %scale: f32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %false = arith.constant false
    %ticks = arith.constant 1000000 : index
    %bytes = arith.constant 24576 : index   // three 64x64 bf16 tiles
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index

    // Q, K and V by TMA, completing on one mbarrier.
    %gq = tile.from_memref %q : memref<64x64xbf16, 1> -> !gQKV
    %gk = tile.from_memref %k : memref<64x64xbf16, 1> -> !gQKV
    %gv = tile.from_memref %v : memref<64x64xbf16, 1> -> !gQKV
    %sq = tile.alloc_shared {alignment = 1024 : i64} : !tileQKV
    %sk = tile.alloc_shared {alignment = 1024 : i64} : !tileQKV
    %sv = tile.alloc_shared {alignment = 1024 : i64} : !tileQKV
    %bar = nvgpu.mbarrier.create -> !bar
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bar
      tile.copy_async %gq[0, 0] to %sq[0, 0] sizes [64, 64] exec thread
          mbar(%bar[%c0] : !bar) : !gQKV to !tileQKV
      tile.copy_async %gk[0, 0] to %sk[0, 0] sizes [64, 64] exec thread
          mbar(%bar[%c0] : !bar) : !gQKV to !tileQKV
      tile.copy_async %gv[0, 0] to %sv[0, 0] sizes [64, 64] exec thread
          mbar(%bar[%c0] : !bar) : !gQKV to !tileQKV
    }
    gpu.barrier
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar

    // S = Q Kᵀ: K is stored keys x head-dim, i.e. B transposed.
    %s = tile.alloc_local : !S
    tile.gemm_async %s[0, 0], %sq[0, 0], %sk[0, 0] sizes [64, 64, 64]
        exec warpgroup accumulate(%false) {transpose_b} : !S, !tileQKV, !tileQKV
    tile.commit_group wgmma
    tile.wait_group wgmma, 0

    // The softmax numerator, with the scale folded into the exponent.
    %log2e = arith.constant 1.44269504 : f32
    %c = arith.mulf %scale, %log2e : f32
    %m = tile.alloc_local : !Row
    tile.reduce <max> %s dims [1] into %m : !S into !Row
    tile.map ins(%s, %m : !S, !Row) outs(%s : !S) {
    ^bb0(%x: f32, %max: f32, %i: index, %j: index):
      %shifted = arith.subf %x, %max : f32
      %e = arith.mulf %shifted, %c : f32
      %p = math.exp2 %e : f32
      tile.yield %p : f32
    }
    %l = tile.alloc_local : !Row
    tile.reduce <add> %s dims [1] into %l : !S into !Row

    // P in bf16 where S was: the register-A operand of the next wgmma.
    %p = tile.alloc_local : !P
    tile.convert %s to %p : !S to !P

    // O = P V (V stored keys x head-dim: B as it is).
    %o = tile.alloc_local : !S
    tile.gemm_async %o[0, 0], %p[0, 0], %sv[0, 0] sizes [64, 64, 64]
        exec warpgroup accumulate(%false) : !S, !P, !tileQKV
    tile.commit_group wgmma
    tile.wait_group wgmma, 0

    // The log-sum-exp the backward pass needs, then O / l: one division
    // per row (two registers a thread), a multiplication per element.
    tile.map ins(%m, %l : !Row, !Row) outs(%m : !Row) {
    ^bb0(%max: f32, %sum: f32, %i: index, %j: index):
      %scaled = arith.mulf %max, %scale : f32
      %logl = math.log %sum : f32
      %lse = arith.addf %scaled, %logl : f32
      tile.yield %lse : f32
    }
    tile.map ins(%l : !Row) outs(%l : !Row) {
    ^bb0(%sum: f32, %i: index, %j: index):
      %one = arith.constant 1.0 : f32
      %inv = arith.divf %one, %sum : f32
      tile.yield %inv : f32
    }
    tile.map ins(%o, %l : !S, !Row) outs(%o : !S) {
    ^bb0(%x: f32, %inv: f32, %i: index, %j: index):
      %r = arith.mulf %x, %inv : f32
      tile.yield %r : f32
    }
    %go = tile.from_memref %o_out : memref<64x64xf32, 1> -> !tile.buffer<64x64xf32, global>
    tile.store %o to %go[0, 0] : !S to !tile.buffer<64x64xf32, global>
    %gl = tile.from_memref %lse_out : memref<64x1xf32, 1> -> !tile.buffer<64x1xf32, global>
    tile.store %m to %gl[0, 0] : !Row to !tile.buffer<64x1xf32, global>
    gpu.return
  }
}

// Protocol bugs the pipeline simulation reports, each in a small kernel: a
// loop-carried phase that does not flip when the stage wraps, a wait on
// another stage's barrier, a remote arrival on a CTA outside the cluster,
// and tensor memory released under an MMA that may still write it.
// RUN: tile-opt --tile-verify-kernels --split-input-file --verify-diagnostics %s -o /dev/null

!gmem = !tile.buffer<?x?xf16, global>
!ring = !tile.buffer<2x64x64xf16, shared, #tile.layout<S[(2,64,64):(4096,64,1)], swizzle<3,3,3>>>
!frag = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,2,32):(1@tid_in_wg,64@tid_in_wg,1)]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// The stage and the phase are carried by the loop; on the wrap the phase
// should flip (`%flipped`) but the old one is yielded.
gpu.module @phase_not_flipped [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c6 = arith.constant 6 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %true = arith.constant true
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !ring
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      nvgpu.mbarrier.init %b[%c1], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    %f = tile.alloc_local : !frag
    %r:2 = scf.for %k = %c0 to %c6 step %c1 iter_args(%st = %c0, %ph = %false) -> (index, i1) {
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %b[%st], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[%st, 0, 0] sizes [64, 64] exec thread
            mbar(%b[%st] : !bar) : !gmem to !ring
      }
      // expected-error @+1 {{passes on phase 0, which it already waited for: the parity did not flip (or the stage is wrong)}}
      nvgpu.mbarrier.try_wait.parity %b[%st], %ph, %ticks : !bar
      tile.load %s[%st, 0, 0] to %f : !ring to !frag
      gpu.barrier
      %n = arith.addi %st, %c1 : index
      %wrap = arith.cmpi eq, %n, %c2 : index
      %next = arith.select %wrap, %c0, %n : index
      %flipped = arith.xori %ph, %true : i1
      %nph = arith.select %wrap, %ph, %ph : i1
      scf.yield %next, %nph : index, i1
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!ring = !tile.buffer<2x64x64xf16, shared, #tile.layout<S[(2,64,64):(4096,64,1)], swizzle<3,3,3>>>
!frag = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,2,32):(1@tid_in_wg,64@tid_in_wg,1)]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// The copy into stage s completes on barrier s, but the consumer waits on
// the other stage's barrier before reading stage s.
gpu.module @wait_on_the_other_stage [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !ring
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      nvgpu.mbarrier.init %b[%c1], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    %f = tile.alloc_local : !frag
    scf.for %k = %c0 to %c4 step %c1 {
      %st = arith.remui %k, %c2 : index
      %other = arith.subi %c1, %st : index
      %round = arith.divui %k, %c2 : index
      %bit = arith.remui %round, %c2 : index
      %ph = arith.cmpi ne, %bit, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %b[%st], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[%st, 0, 0] sizes [64, 64] exec thread
            mbar(%b[%st] : !bar) : !gmem to !ring
      }
      // expected-error @+1 {{the kernel deadlocks: every thread waits and no copy is in flight; thread 0 (warpgroup 0, warp 0, lane 0) waits for parity 0 on mbarrier 1}}
      nvgpu.mbarrier.try_wait.parity %b[%other], %ph, %ticks : !bar
      tile.load %s[%st, 0, 0] to %f : !ring to !frag
      gpu.barrier
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// A cluster of 2 CTAs; after its load, each CTA's leader releases a
// barrier of CTA rank + 2.
gpu.module @remote_arrival_outside_the_cluster [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>, known_cluster_size = array<i32: 2, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant 2 : i32
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      nvgpu.mbarrier.init %b[%c1], %c1 : !bar
      tile.fence mbarrier_init
    }
    nvvm.cluster.arrive {aligned}
    nvvm.cluster.wait {aligned}
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %b[%c1], %bytes : !bar
      tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%b[%c1] : !bar) : !gmem to !smem
      nvgpu.mbarrier.try_wait.parity %b[%c1], %false, %ticks : !bar
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %peer = arith.addi %rank, %two : i32
      // expected-error-re @+1 {{arrives on the mbarrier of CTA {{[23]}}, outside the cluster of 2}}
      tile.mbarrier_arrive_remote %b[%c0] : !bar, cta %peer
    }
    gpu.return
  }
}

// -----

// The columns are released before the wait on the MMA's commit: the MMA may
// still write them.
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!g = !tile.buffer<128x64xf16, global>
!s = !tile.buffer<128x64xf16, shared>
!acc = !tile.buffer<128x128xf32, tmem, #tile.layout<S[(128,128):(1@TLane,1@TCol)]>>
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @dealloc_under_mma(%a: !g, %b: !g) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 32768 : index
    %ticks = arith.constant 1000000 : index
    %false = arith.constant false
    %bars = nvgpu.mbarrier.create -> !bars
    %sa = tile.alloc_shared : !s
    %sb = tile.alloc_shared : !s
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
      tile.fence mbarrier_init
    }
    gpu.barrier
    %taddr = tile.tmem_alloc 128 columns
    %acc = tile.tmem_buffer %taddr : !acc
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %bytes : !bars
      tile.copy_async %a[0, 0] to %sa[0, 0] sizes [128, 64] exec thread
          mbar(%bars[%c0] : !bars) : !g to !s
      tile.copy_async %b[0, 0] to %sb[0, 0] sizes [128, 64] exec thread
          mbar(%bars[%c0] : !bars) : !g to !s
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
      // expected-note @+1 {{the writer}}
      tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [128, 128, 64]
          exec thread {transpose_b} : !acc, !s, !s
      tile.mma_commit mbar(%bars[%c1] : !bars) exec thread
    }
    // expected-error @+1 {{releases tensor memory while a tcgen05 MMA or copy may still write [0..127, 0..127] of the tensor memory on line}}
    tile.tmem_dealloc %taddr, 128 columns
    scf.if %leader {
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %ticks : !bars
    }
    gpu.return
  }
}

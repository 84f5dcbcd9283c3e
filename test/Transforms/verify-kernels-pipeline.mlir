// The pipeline simulation of --tile-verify-kernels on small kernels: what it
// accepts (one thread waits, a CTA barrier tells the others) and what it
// reports, with the threads, barriers and phases involved.
// RUN: tile-opt --tile-verify-kernels --split-input-file --verify-diagnostics %s -o /dev/null

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!frag = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,2,32):(1@tid_in_wg,64@tid_in_wg,1)]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Thread 0 waits for the copy; the CTA barrier after its wait orders every
// thread's read after the data landed.
gpu.module @waited_through_a_barrier [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
      tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%b[%c0] : !bar) : !gmem to !smem
      nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
    }
    gpu.barrier
    %f = tile.alloc_local : !frag
    tile.load %s[0, 0] to %f : !smem to !frag
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!frag = !tile.buffer<64x64xf16, local, #tile.layout<S[(64,2,32):(1@tid_in_wg,64@tid_in_wg,1)]>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Without the barrier after the wait, the other threads read as the copy
// lands.
gpu.module @not_waited [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
      // expected-note @below {{the copy, issued by thread 0 (warpgroup 0, warp 0, lane 0)}}
      tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
          mbar(%b[%c0] : !bar) : !gmem to !smem
      nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
    }
    %f = tile.alloc_local : !frag
    // expected-error @below {{thread 32 (warpgroup 0, warp 1, lane 0) reads [32..63, 0..31] of the shared buffer on line 59 while the copy into [0..63, 0..63] of the shared buffer on line 59 (completing on mbarrier 0 of the mbarrier group on line 60) has not completed}}
    tile.load %s[0, 0] to %f : !smem to !frag
    gpu.return
  }
}

// -----

!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<2x64x64xf16, shared, #tile.layout<S[(2,64,64):(4096,64,1)], swizzle<3,3,3>>>

// Two warps meet at named barrier 1 but disagree on its thread count.
gpu.module @named_barrier_counts [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %id = arith.constant 1 : i32
    %n64 = arith.constant 64 : i32
    %n96 = arith.constant 96 : i32
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %first_warp = arith.cmpi ult, %tid, %c32 : index
    scf.if %first_warp {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      // expected-note @below {{the first arrival of this generation}}
      // expected-note @below {{the use with 64 threads}}
      nvvm.barrier id = %id number_of_threads = %n64
    } else {
      // expected-error @below {{thread 32 (warpgroup 0, warp 1, lane 0) arrives at named barrier 1 expecting 96 threads, where others expect 64}}
      // expected-error @below {{named barrier 1 with 96 threads, where another use has 64}}
      nvvm.barrier id = %id number_of_threads = %n96
    }
    scf.if %first_warp {
      %bytes = arith.constant 8192 : index
      nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
      tile.copy_async %g[0, 0] to %s[0, 0, 0] sizes [64, 64] exec thread
          mbar(%b[%c0] : !bar) : !gmem to !smem
    }
    gpu.return
  }
}

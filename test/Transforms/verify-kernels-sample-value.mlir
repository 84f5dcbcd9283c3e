// `tile.sample_value` on an integer kernel argument: the pipeline simulation
// gives it that value (a split-K part count bounding a loop), so the kernel
// is simulated and a protocol bug behind the loop is found; without it the
// loop's bound is unknown and the simulation says it stopped.
// RUN: tile-opt --tile-verify-kernels=simulation-remarks --split-input-file --verify-diagnostics %s -o /dev/null

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

// Each trip loads the tile and waits for it, but the wait's parity never
// flips: the second trip's wait passes on the first trip's phase while its
// copy is in flight, and the next copy overwrites the tile under it.
gpu.module @sampled [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>, %parts_i32: i32 {tile.sample_value = 2 : i64}) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %parts = arith.index_cast %parts_i32 : i32 to index
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      scf.for %p = %c0 to %parts step %c1 {
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
        // expected-error @+1 {{passes on phase 0, which it already waited for: the parity did not flip}}
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
      }
    }
    gpu.return
  }
}

// -----

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @unsampled [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>, %parts_i32: i32) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %parts = arith.index_cast %parts_i32 : i32 to index
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      // expected-remark @+1 {{pipeline simulation of @k stopped here: a loop whose bounds are not integer functions of thread ids, loop counters and sizes}}
      scf.for %p = %c0 to %parts step %c1 {
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
      }
    }
    gpu.return
  }
}

// -----

// The attribute names an integer.
gpu.module @bad [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{'tile.sample_value' on argument 0 must be an integer attribute on an integer or index argument (signless, 64 bits at most)}}
  gpu.func @k(%in: memref<?xf16, 1> {tile.sample_value = 2 : i64}) kernel {
    gpu.return
  }
}

// -----

// A gpu.func's workgroup attributions follow its arguments in the entry
// block: only the signature's arguments are sampled (the simulation runs and
// finds the same unflipped parity). A declaration's argument may carry the
// attribute too.
func.func private @declared(%parts: i32 {tile.sample_value = 2 : i64})

!gmem = !tile.buffer<?x?xf16, global>
!smem = !tile.buffer<64x64xf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @attributions [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%in: memref<?x?xf16, 1>, %parts_i32: i32 {tile.sample_value = 2 : i64}, %q: i32)
      workgroup(%w : memref<4xf32, #gpu.address_space<workgroup>>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %parts = arith.index_cast %parts_i32 : i32 to index
    %g = tile.from_memref %in : memref<?x?xf16, 1> -> !gmem
    %s = tile.alloc_shared : !smem
    %b = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %b[%c0], %c1 : !bar
      tile.fence mbarrier_init
      scf.for %p = %c0 to %parts step %c1 {
        nvgpu.mbarrier.arrive.expect_tx %b[%c0], %bytes : !bar
        tile.copy_async %g[0, 0] to %s[0, 0] sizes [64, 64] exec thread
            mbar(%b[%c0] : !bar) : !gmem to !smem
        // expected-error @+1 {{the parity did not flip}}
        nvgpu.mbarrier.try_wait.parity %b[%c0], %phase0, %ticks : !bar
      }
    }
    gpu.return
  }
}

// -----

gpu.module @unsigned [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{'tile.sample_value' on argument 0 must be an integer attribute on an integer or index argument (signless, 64 bits at most)}}
  gpu.func @k(%p: i32 {tile.sample_value = 2 : ui32}) kernel {
    gpu.return
  }
}

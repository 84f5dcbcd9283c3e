// An mbarrier group of more barriers than any chip's shared memory holds
// (2^31 - 1 of 8 bytes): the pipeline simulation is not run (modelling the
// barriers would exhaust the compiler's memory), and lowering stops at the
// shared-memory budget with an error, not a crash.
// RUN: tile-opt --tile-verify-kernels=simulation-remarks --verify-diagnostics %s -o /dev/null
// RUN: not tile-opt --tile-to-nvvm %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not tile-compile --chip sm_90a %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
//
// BUDGET: error: kernel @huge_barrier_group needs {{[0-9]+}} bytes of shared memory
// BUDGET-SAME: (2147483647 mbarriers)

!tile_t = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2147483647>

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @below {{pipeline simulation of @huge_barrier_group not run: mbarrier groups of 2147483647 barriers, more than shared memory holds}}
  gpu.func @huge_barrier_group(%in: memref<8x256xf16, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tile_bytes = arith.constant 4096 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g_in = tile.from_memref %in : memref<8x256xf16, 1> -> !tile.buffer<8x256xf16, global>
    %tile = tile.alloc_shared : !tile_t
    %bars = nvgpu.mbarrier.create -> !bars
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      tile.fence mbarrier_init
    }
    gpu.barrier
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tile_bytes : !bars
      tile.copy_async %g_in[0, 0] to %tile[0, 0] sizes [8, 256] exec thread
          mbar(%bars[%c0] : !bars) : !tile.buffer<8x256xf16, global> to !tile_t
    }
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %phase0, %ticks : !bars
    gpu.return
  }
}

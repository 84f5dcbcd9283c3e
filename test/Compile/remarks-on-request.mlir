// tile-compile prints errors and warnings; remarks (the kernel checks'
// "not proven" notes, the pipeline simulation's, the dispatch decisions)
// only when asked for.
// RUN: tile-compile %s --chip sm_90a -o %t.ptx 2> %t.quiet
// RUN: count 0 < %t.quiet
// RUN: tile-compile %s --chip sm_90a -o %t.ptx --remarks 2>&1 | FileCheck %s --check-prefix=REMARKS
// RUN: tile-compile %s --chip sm_90a -o %t.ptx --explain 2>&1 | FileCheck %s --check-prefixes=REMARKS,EXPLAIN

!g = !tile.buffer<8x256xf16, global>
!s = !tile.buffer<8x256xf16, shared, #tile.layout<S[(8,4,64):(64,512,1)], swizzle<3,3,3>>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @runtime_byte_count(%in: memref<8x256xf16, 1>, %bytes: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false
    %g = tile.from_memref %in : memref<8x256xf16, 1> -> !g
    %s = tile.alloc_shared : !s
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      tile.fence mbarrier_init
    }
    gpu.barrier
    scf.if %leader {
      // REMARKS: remark: expect-tx accounting of this mbarrier not proven: its byte count is not a constant
      // REMARKS: remark: pipeline simulation of @runtime_byte_count stopped here: a transaction byte count that is not known
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bar
      // EXPLAIN: remark: selected tma
      tile.copy_async %g[0, 0] to %s[0, 0] sizes [8, 256] exec thread
          mbar(%bar[%c0] : !bar) : !g to !s
    }
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar
    gpu.return
  }
}

// Tutorial step 04: one wgmma (docs/tutorials/04-one-wgmma.md).
//
// C = A Bᵀ for one tile: A is 64 x 64 bf16, B is 128 x 64 bf16 (both
// K-major, the layout of nn.Linear's weights), C is 64 x 128 f32. TMA
// brings A and B into 128-byte swizzled shared tiles; one warpgroup
// multiplies them into a register accumulator with one tile.gemm_async
// (four m64n128k16 wgmma instructions) and stores C. Launch: 1 CTA of 128
// threads.
//
// RUN: tile-opt %s --tile-select-variants | FileCheck %s --check-prefix=SELECTED
// RUN: tile-compile --check %s --chip sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// The same op cannot be a wgmma on Blackwell (tcgen05 accumulates in
// tensor memory, not registers):
// RUN: not tile-compile %s --chip sm_100a -o %t.sm100.ptx 2>&1 | FileCheck %s --check-prefix=SM100

// SELECTED: tile.gemm_async {{.*}} exec warpgroup {transpose_b, variant = "wgmma"}

// PTX-LABEL: .entry one_wgmma(
// PTX: wgmma.fence.sync.aligned;
// The first K step ignores the old accumulator (scale-d = 0), the next
// three add to it.
// PTX: setp.ne.b32 p, 0, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;
// PTX: st.global.b32

// The 64-register accumulator stays in registers.
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// SM100: error: no variant of tile.gemm_async can implement this op on sm_100a
// SM100: note: tcgen05 (priority 10): rejected: issuer {{.*}} rejected: operand_scopes — C is a register tile (local); tcgen05.mma accumulates in tensor memory
// SM100: note: wgmma (priority 10): rejected: wgmma_target — wgmma.mma_async needs one of sm_90a, not sm_100a

!ga_t = !tile.buffer<64x64xbf16, global>
!gb_t = !tile.buffer<128x64xbf16, global>
!gc_t = !tile.buffer<64x128xf32, global>
// K-major operands: each row is 64 bf16 = 128 bytes, one swizzle span.
!a_t = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!b_t = !tile.buffer<128x64xbf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
// The m64n128 f32 accumulator fragment: thread 32w + 4q + r holds row
// 16w + 8h + q, column 8j + 2r + e in register 4j + 2h + e.
!acc_t = !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bar_t = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @tutorial [#nvvm.target<chip = "sm_90a">] {
  gpu.func @one_wgmma(%a: memref<64x64xbf16, 1>, %b: memref<128x64xbf16, 1>,
                      %c: memref<64x128xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 24576 : index   // A (8192) and B (16384)
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %ga = tile.from_memref %a : memref<64x64xbf16, 1> -> !ga_t
    %gb = tile.from_memref %b : memref<128x64xbf16, 1> -> !gb_t
    %gc = tile.from_memref %c : memref<64x128xf32, 1> -> !gc_t
    %sa = tile.alloc_shared : !a_t
    %sb = tile.alloc_shared : !b_t
    %bar = nvgpu.mbarrier.create -> !bar_t

    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar_t
      tile.fence mbarrier_init
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bar_t
      tile.copy_async %ga[0, 0] to %sa[0, 0] sizes [64, 64] exec thread
          mbar(%bar[%c0] : !bar_t) : !ga_t to !a_t
      tile.copy_async %gb[0, 0] to %sb[0, 0] sizes [128, 64] exec thread
          mbar(%bar[%c0] : !bar_t) : !gb_t to !b_t
    }
    // Every thread waits: the initialised barrier must be visible first.
    gpu.barrier
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar_t

    // sizes [M, N, K]; transpose_b: B's region is stored N x K.
    // No accumulate(...): C = A Bᵀ, the old registers are ignored.
    %acc = tile.alloc_local : !acc_t
    tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [64, 128, 64]
        exec warpgroup {transpose_b} : !acc_t, !a_t, !b_t
    tile.commit_group wgmma
    tile.wait_group wgmma, 0
    // Only now may the accumulator registers be read.
    tile.store %acc to %gc[0, 0] : !acc_t to !gc_t
    gpu.return
  }
}

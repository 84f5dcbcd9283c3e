// Tutorial step 06: register compute and a fused epilogue
// (docs/tutorials/06-register-compute-epilogue.md).
//
// D = bf16(relu(A Bᵀ + bias)) for one 64 x 128 tile, and the largest
// element of each row of relu(A Bᵀ + bias) in f32: step 04's wgmma, then
// the epilogue computed in the accumulator's registers with tile.map,
// tile.reduce and tile.convert, and D stored by stmatrix and one TMA
// store. Launch: 1 CTA of 128 threads.
//
// RUN: tile-compile --check --explain %s --chip sm_90a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=DISPATCH
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The map needs no data movement: each thread holds the bias of every
// column it holds.
// DISPATCH: remark: selected registers (priority 10) on sm_90a
// DISPATCH-NEXT: tile.map ins(%acc, %cols
// A row lives in the four lanes of a quad: two butterfly shuffles.
// DISPATCH: remark: selected warp_shuffle (priority 20) on sm_90a
// DISPATCH-NEXT: tile.reduce <max>
// DISPATCH: note: in_thread (priority 30): declined — output element (0,0) (register 0) in thread 0: its row is spread over threads (xor 1, 2); in one thread's registers only
// DISPATCH: note: shared_memory (priority 10): declined — every row stays within a warp: no shared memory needed
// bf16 lands in the same places: a renaming plus packed conversions.
// DISPATCH: remark: selected registers (priority 30) on sm_90a
// DISPATCH-NEXT: tile.convert %acc to %out
// DISPATCH: remark: selected stmatrix (priority 20) on sm_90a
// DISPATCH-NEXT: tile.store %out to %sd

// PTX-LABEL: .entry gemm_bias_relu(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: add.rn.f32 [[Y:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// PTX-NEXT: max.f32 {{%r[0-9]+}}, [[Y]], 0f00000000;
// PTX: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 31, -1;
// PTX: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 2, 31, -1;
// PTX: cvt.rn.bf16x2.f32
// PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: fence.proxy.async.shared::cta;
// D's shape is static: its two swizzle atoms are one 3-D box, one store.
// PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group
// PTX-NOT: cp.async.bulk.tensor

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

!ga_t = !tile.buffer<64x64xbf16, global>
!gb_t = !tile.buffer<128x64xbf16, global>
!gbias_t = !tile.buffer<1x128xf32, global>
!gd_t = !tile.buffer<64x128xbf16, global>
!gmax_t = !tile.buffer<64x1xf32, global>
!a_t = !tile.buffer<64x64xbf16, shared, #tile.layout<S[(64,64):(64,1)], swizzle<3,3,3>>>
!b_t = !tile.buffer<128x64xbf16, shared, #tile.layout<S[(128,64):(64,1)], swizzle<3,3,3>>>
// D staged in shared memory: two 64-column atoms of the 128-byte swizzle.
!d_t = !tile.buffer<64x128xbf16, shared, #tile.layout<S[(64,2,64):(64,4096,1)], swizzle<3,3,3>>>
// The accumulator fragment (step 04) in f32, and the same places in bf16.
!acc_t = !tile.buffer<64x128xf32, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!out_t = !tile.buffer<64x128xbf16, local, #tile.layout<S[(4,2,8,16,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
// The bias row as each thread needs it: thread 32w + 4q + r holds columns
// 8j + 2r + e (register 2j + e), the same in every q and w (the replica).
!cols_t = !tile.buffer<1x128xf32, local, #tile.layout<S[(1,16,4,2):(0,2,1@tid_in_wg,1)] + R[(8,4):(4@tid_in_wg,32@tid_in_wg)]>>
// A row statistic: row 16w + 8h + q in register h of the four threads
// 32w + 4q + r of its quad.
!row_t = !tile.buffer<64x1xf32, local, #tile.layout<S[(4,2,8,1):(32@tid_in_wg,1,4@tid_in_wg,0)] + R[4:1@tid_in_wg]>>
!bar_t = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

gpu.module @tutorial [#nvvm.target<chip = "sm_90a">] {
  gpu.func @gemm_bias_relu(%a: memref<64x64xbf16, 1>, %b: memref<128x64xbf16, 1>,
                           %bias: memref<1x128xf32, 1>, %d: memref<64x128xbf16, 1>,
                           %row_max: memref<64x1xf32, 1>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 24576 : index
    %ticks = arith.constant 1000000 : index
    %phase0 = arith.constant false

    %ga = tile.from_memref %a : memref<64x64xbf16, 1> -> !ga_t
    %gb = tile.from_memref %b : memref<128x64xbf16, 1> -> !gb_t
    %gbias = tile.from_memref %bias : memref<1x128xf32, 1> -> !gbias_t
    %gd = tile.from_memref %d : memref<64x128xbf16, 1> -> !gd_t
    %gmax = tile.from_memref %row_max : memref<64x1xf32, 1> -> !gmax_t
    %sa = tile.alloc_shared : !a_t
    %sb = tile.alloc_shared : !b_t
    %sd = tile.alloc_shared : !d_t
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
    gpu.barrier

    // The bias columns this thread's accumulator registers need, loaded
    // while the operands are in flight.
    %cols = tile.alloc_local : !cols_t
    tile.load %gbias[0, 0] to %cols : !gbias_t to !cols_t

    nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase0, %ticks : !bar_t
    %acc = tile.alloc_local : !acc_t
    tile.gemm_async %acc[0, 0], %sa[0, 0], %sb[0, 0] sizes [64, 128, 64]
        exec warpgroup {transpose_b} : !acc_t, !a_t, !b_t
    tile.commit_group wgmma
    tile.wait_group wgmma, 0

    // acc = relu(acc + bias), the bias row broadcast down the columns.
    tile.map ins(%acc, %cols : !acc_t, !cols_t) outs(%acc : !acc_t) {
    ^bb0(%x: f32, %bcol: f32, %i: index, %j: index):
      %zero = arith.constant 0.0 : f32
      %y = arith.addf %x, %bcol : f32
      %r = arith.maxnumf %y, %zero : f32
      tile.yield %r : f32
    }

    // The largest element of each row, held by the row's four threads.
    %max = tile.alloc_local : !row_t
    tile.reduce <max> %acc dims [1] into %max : !acc_t into !row_t
    tile.store %max to %gmax[0, 0] : !row_t to !gmax_t

    // bf16 in the same registers, then shared memory and one TMA store.
    %out = tile.alloc_local : !out_t
    tile.convert %acc to %out : !acc_t to !out_t
    tile.store %out to %sd[0, 0] : !out_t to !d_t
    tile.fence proxy_async
    gpu.barrier
    scf.if %leader {
      tile.copy_async %sd[0, 0] to %gd[0, 0] sizes [64, 128] exec thread : !d_t to !gd_t
      tile.commit_group bulk
      tile.wait_group bulk, 0 {read}
    }
    gpu.return
  }
}

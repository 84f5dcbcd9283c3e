// Tutorial step 05: a persistent, warp-specialized GEMM
// (docs/tutorials/05-persistent-gemm.md).
//
// C = A Bᵀ in bf16 with f32 accumulation; A is M x K, B is N x K (both
// K-major), C is M x N; M, N, K are runtime sizes (K a multiple of 8, N a
// multiple of 8: 16-byte rows for TMA). A trimmed form of the
// gemm_bf16_tn_128x256x64_s3 kernel that bench/Kernels/gen_gemm_kernels.py
// generates: 128 x 256 output tiles, K in steps of 64, a three-stage ring.
// Warpgroup 0 produces (one thread issues TMA loads), warpgroups 1 and 2
// consume (one wgmma each per stage, rows 0-63 and 64-127 of the tile)
// and store C through shared memory. Every CTA walks tiles
// blockIdx.x, blockIdx.x + gridDim.x, ... in row-major order.
// Launch: grid (min(tiles, SMs)), 384 threads, the manifest's dynamic
// shared memory.
//
// RUN: tile-compile --check %s --chip sm_90a -o %t.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PRODUCER < %t.ptx
// RUN: FileCheck %s --check-prefix=CONSUMER < %t.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: %if ptxas %{ ptxas -arch=sm_90a -v --warn-on-spills %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The producer warpgroup: registers given away, then per stage a wait
// for the free slot, the byte count and three tensor loads.
// PRODUCER-LABEL: .entry gemm_bf16_tn(
// PRODUCER: .maxnreg 168
// PRODUCER: setmaxnreg.dec.sync.aligned.u32 40;
// PRODUCER: mbarrier.arrive.expect_tx
// PRODUCER-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// The consumer warpgroups: registers taken, one fence and four chained
// m64n256k16 wgmmas per stage, one group left in flight.
// CONSUMER-LABEL: .entry gemm_bf16_tn(
// CONSUMER: setmaxnreg.inc.sync.aligned.u32 232;
// CONSUMER: wgmma.fence.sync.aligned;
// CONSUMER-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CONSUMER: wgmma.commit_group.sync.aligned;
// CONSUMER-NEXT: wgmma.wait_group.sync.aligned 1;
// CONSUMER: wgmma.wait_group.sync.aligned 0;
// The accumulator goes to shared memory as 16 stmatrix.x4 a warp (each
// four 8 x 8 blocks of halves), then out by TMA, one box per 64-column
// swizzle atom.
// CONSUMER-COUNT-16: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CONSUMER: fence.proxy.async.shared::cta;
// CONSUMER-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// 48 KiB of A (6 tiles of 64 x 64), 96 KiB of B (3 of 256 x 64), 64 KiB
// of C staging: 208 KiB + 1008 bytes of base alignment.
// MANIFEST: "dynamic_shared_bytes": 214000,

// No stack, no spills, and no "wgmma serialized" warning: the
// accumulator is never touched while a wgmma owns it.
// PTXAS-NOT: serialized
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: serialized

// A: two 64 x 64 tiles per stage (one per consumer); B: one 256 x 64 tile
// per stage; both K-major with 128-byte rows.
!g_t = !tile.buffer<?x?xbf16, global>
!a_ring_t = !tile.buffer<6x64x64xbf16, shared, #tile.layout<S[(6,64,64):(4096,64,1)], swizzle<3,3,3>>>
!b_ring_t = !tile.buffer<3x256x64xbf16, shared, #tile.layout<S[(3,256,64):(16384,64,1)], swizzle<3,3,3>>>
// Each consumer's 64 x 256 half of C, four 64-column swizzle atoms.
!c_t = !tile.buffer<2x64x256xbf16, shared, #tile.layout<S[(2,64,4,64):(16384,64,4096,1)], swizzle<3,3,3>>>
// The m64n256 f32 accumulator fragment: 128 registers a thread.
!acc_t = !tile.buffer<64x256xf32, local, #tile.layout<S[(4,2,8,32,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>
!bars_t = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>

gpu.module @tutorial [#nvvm.target<chip = "sm_90a">] {
  gpu.func @gemm_bf16_tn(%a: memref<?x?xbf16, 1>, %b: memref<?x?xbf16, 1>,
                         %c: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %stages = arith.constant 3 : index
    %stage_bytes = arith.constant 49152 : index
    %releasers = arith.constant 8 : index
    %ticks = arith.constant 1000000 : index
    %i32_128 = arith.constant 128 : i32

    %M = memref.dim %a, %c0 : memref<?x?xbf16, 1>
    %K = memref.dim %a, %c1 : memref<?x?xbf16, 1>
    %N = memref.dim %b, %c0 : memref<?x?xbf16, 1>
    %tiles_m = arith.ceildivui %M, %c128 : index
    %tiles_n = arith.ceildivui %N, %c256 : index
    %k_tiles = arith.ceildivui %K, %c64 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %ga = tile.from_memref %a : memref<?x?xbf16, 1> -> !g_t
    %gb = tile.from_memref %b : memref<?x?xbf16, 1> -> !g_t
    %gc = tile.from_memref %c : memref<?x?xbf16, 1> -> !g_t

    %sa = tile.alloc_shared : !a_ring_t
    %sb = tile.alloc_shared : !b_ring_t
    %sc = tile.alloc_shared : !c_t
    %full = nvgpu.mbarrier.create -> !bars_t
    %empty = nvgpu.mbarrier.create -> !bars_t

    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %tid_in_wg = arith.remui %tid, %c128 : index
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      scf.for %s = %c0 to %stages step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars_t
        nvgpu.mbarrier.init %empty[%s], %releasers : !bars_t
      }
      tile.fence mbarrier_init
    }
    gpu.barrier

    %first_tile = gpu.block_id x
    %ctas = gpu.grid_dim x
    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {
      // Producer warpgroup: gives registers away, one thread issues loads.
      nvvm.setmaxregister decrease 40
      scf.if %leader {
        %n = scf.for %t = %first_tile to %tiles step %ctas iter_args(%it0 = %c0) -> (index) {
          %pm = arith.divui %t, %tiles_n : index
          %pn = arith.remui %t, %tiles_n : index
          %m0 = arith.muli %pm, %c128 : index
          %n0 = arith.muli %pn, %c256 : index
          %m1 = arith.addi %m0, %c64 : index
          %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {
            %s = arith.remui %i, %stages : index
            %round = arith.divui %i, %stages : index
            %round_bit = arith.andi %round, %c1 : index
            %free_parity = arith.cmpi eq, %round_bit, %c0 : index
            nvgpu.mbarrier.try_wait.parity %empty[%s], %free_parity, %ticks : !bars_t
            nvgpu.mbarrier.arrive.expect_tx %full[%s], %stage_bytes : !bars_t
            %k0 = arith.muli %kt, %c64 : index
            %a0 = arith.muli %s, %c2 : index
            %a1 = arith.addi %a0, %c1 : index
            tile.copy_async %ga[%m0, %k0] to %sa[%a0, 0, 0] sizes [64, 64] exec thread
                mbar(%full[%s] : !bars_t) : !g_t to !a_ring_t
            tile.copy_async %ga[%m1, %k0] to %sa[%a1, 0, 0] sizes [64, 64] exec thread
                mbar(%full[%s] : !bars_t) : !g_t to !a_ring_t
            tile.copy_async %gb[%n0, %k0] to %sb[%s, 0, 0] sizes [256, 64] exec thread
                mbar(%full[%s] : !bars_t) : !g_t to !b_ring_t
            %next = arith.addi %i, %c1 : index
            scf.yield %next : index
          }
          scf.yield %it1 : index
        }
      }
    } else {
      // Consumer warpgroups 1 and 2: rows 0..63 and 64..127 of each tile.
      nvvm.setmaxregister increase 232
      %half = arith.subi %wg, %c1 : index
      %bar_id = arith.index_cast %wg : index to i32
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
      %releaser = arith.cmpi eq, %lane, %c0 : index
      %acc = tile.alloc_local : !acc_t
      %n = scf.for %t = %first_tile to %tiles step %ctas iter_args(%it0 = %c0) -> (index) {
        %pm = arith.divui %t, %tiles_n : index
        %pn = arith.remui %t, %tiles_n : index
        %m0 = arith.muli %pm, %c128 : index
        %n0 = arith.muli %pn, %c256 : index

        // K step 0 overwrites the accumulator.
        %s_0 = arith.remui %it0, %stages : index
        %round_0 = arith.divui %it0, %stages : index
        %round_bit_0 = arith.andi %round_0, %c1 : index
        %parity_0 = arith.cmpi ne, %round_bit_0, %c0 : index
        nvgpu.mbarrier.try_wait.parity %full[%s_0], %parity_0, %ticks : !bars_t
        %a_pair_0 = arith.muli %s_0, %c2 : index
        %a_stage_0 = arith.addi %a_pair_0, %half : index
        %overwrite = arith.constant false
        tile.gemm_async %acc[0, 0], %sa[%a_stage_0, 0, 0], %sb[%s_0, 0, 0] sizes [64, 256, 64]
            exec warpgroup accumulate(%overwrite) {transpose_b} : !acc_t, !a_ring_t, !b_ring_t
        tile.commit_group wgmma
        tile.wait_group wgmma, 1
        %it_1 = arith.addi %it0, %c1 : index

        // K steps 1.. accumulate; one wgmma group stays in flight.
        %it1 = scf.for %kt = %c1 to %k_tiles step %c1 iter_args(%i = %it_1) -> (index) {
          %s = arith.remui %i, %stages : index
          %round = arith.divui %i, %stages : index
          %round_bit = arith.andi %round, %c1 : index
          %parity = arith.cmpi ne, %round_bit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %full[%s], %parity, %ticks : !bars_t
          %a_pair = arith.muli %s, %c2 : index
          %a_stage = arith.addi %a_pair, %half : index
          %accumulate = arith.constant true
          tile.gemm_async %acc[0, 0], %sa[%a_stage, 0, 0], %sb[%s, 0, 0] sizes [64, 256, 64]
              exec warpgroup accumulate(%accumulate) {transpose_b} : !acc_t, !a_ring_t, !b_ring_t
          tile.commit_group wgmma
          tile.wait_group wgmma, 1
          // The previous step's group has retired: release its stage.
          scf.if %releaser {
            %prev_i = arith.addi %i, %stages : index
            %prev_j = arith.subi %prev_i, %c1 : index
            %prev = arith.remui %prev_j, %stages : index
            %token = nvgpu.mbarrier.arrive %empty[%prev] : !bars_t -> !nvgpu.mbarrier.token
          }
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }
        tile.wait_group wgmma, 0
        scf.if %releaser {
          %last_i = arith.addi %it1, %stages : index
          %last_j = arith.subi %last_i, %c1 : index
          %last = arith.remui %last_j, %stages : index
          %token = nvgpu.mbarrier.arrive %empty[%last] : !bars_t -> !nvgpu.mbarrier.token
        }

        // Epilogue: registers -> this warpgroup's half of C (bf16) -> TMA.
        scf.if %wg_leader {
          tile.wait_group bulk, 0 {read}
        }
        nvvm.barrier id = %bar_id number_of_threads = %i32_128
        tile.store %acc to %sc[%half, 0, 0] : !acc_t to !c_t
        tile.fence proxy_async
        nvvm.barrier id = %bar_id number_of_threads = %i32_128
        scf.if %wg_leader {
          %row = arith.muli %half, %c64 : index
          %m_half = arith.addi %m0, %row : index
          tile.copy_async %sc[%half, 0, 0] to %gc[%m_half, %n0] sizes [64, 256] exec thread
              : !c_t to !g_t
          tile.commit_group bulk
        }
        scf.yield %it1 : index
      }
      scf.if %wg_leader {
        tile.wait_group bulk, 0
      }
    }
    gpu.return
  }
}

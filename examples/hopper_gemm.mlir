// A Hopper GEMM written out by hand: persistent, warp-specialized, bf16.
//
//   C = A · Bᵀ    A: M x K bf16, rows contiguous in K
//                 B: N x K bf16, rows contiguous in K ("TN": both K-major)
//                 C: M x N bf16, accumulated in f32
//
// M, N and K are runtime sizes (read off the memrefs), not multiples of
// anything: TMA fills loads past the matrix edge with zeros and clips
// stores, so edge tiles need no code of their own. K must be at least 1:
// the first K step is peeled (it overwrites the accumulator).
//
// This is gemm_bf16_tn_128x256x64_s3 of the GEMM family
// (bench/Kernels/gen_gemm_kernels.py) laid out for a reader: the same
// arguments, tile, ring and grid rule, so the family's host code
// (test/Device/HopperGemm.h) launches it unchanged.
//
// The CTA: 384 threads, three warpgroups, one 128 x 256 output tile at a
// time, K walked 64 at a time.
//
//   warpgroup 0  producer   setmaxnreg down to 40 registers; thread 0
//                           issues every TMA load into a 3-stage ring
//   warpgroup 1  consumer   setmaxnreg up to 232; rows  0..63 of the tile
//   warpgroup 2  consumer   setmaxnreg up to 232; rows 64..127 of the tile
//
//   producer --- full[s]:  stage s holds its 48 KiB -------> consumers
//   producer <-- empty[s]: all 8 consumer warps are done --- consumers
//
// Shared memory (one CTA per SM):
//   A ring  3 stages x 2 halves x 64 x 64 bf16     48 KiB
//   B ring  3 stages x 256 x 64 bf16               96 KiB
//   C tile  2 halves x 64 x 256 bf16 (epilogue)    64 KiB
//   2 x 3 mbarriers                                48 B
// 208 KiB of tiles (the manifest asks for 214000 dynamic bytes, with room
// to align the start to 1 KiB) of the 227 KiB a CTA may have.
//
// Registers: a consumer thread holds a 64 x 256 f32 accumulator slice, 128
// registers. The kernel is compiled for 168 registers a thread (384 x 168 =
// 64512 of the SM's 65536); setmaxnreg then moves them from the producer,
// which needs few, to the consumers: 128 x 40 + 256 x 232 = 64512 again.
//
// Launch: block 384 x 1 x 1; grid min(#SMs, tiles) x 1 x 1 with tiles =
// ceil(M / 128) * ceil(N / 256); arguments A, B, C as above with
// 16-byte-aligned row strides (TMA's rule). Each CTA walks tiles blockIdx.x,
// blockIdx.x + gridDim.x, ...
//
// Compile and check (no GPU needed):
//
//   build/bin/tile-compile examples/hopper_gemm.mlir --chip sm_90a \
//       -o /tmp/h.ptx --cubin /tmp/h.cubin --manifest /tmp/h.json --check --explain
//   build/bin/tile-opt --tile-verify-kernels examples/hopper_gemm.mlir -o /dev/null
//
// Run on a GPU (an H100 or another sm_90 part): `ninja -C build tile-device`
// compiles this file into build/device/kernels/hopper_gemm.sm_90a.{cubin,json}
// beside TileDeviceTests. Copy the repository with build/device/ to the GPU
// machine and run `scripts/device-run tests` from its root, or only this
// kernel's tests (GemmTests.cpp: exact comparison with the host reference on
// tile-multiple and ragged shapes):
//
//   build/device/TileDeviceTests --gtest_filter='*hopper_gemm*'

// The mbarrier ring: one barrier per stage.
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>

// Operands in global memory; sizes known at run time.
!gmem = !tile.buffer<?x?xbf16, global>

// The A ring: stage s holds A's 128 x 64 tile as two 64-row halves, 2s
// (consumer 0's rows) and 2s + 1 (consumer 1's). Each 64-element row is one
// 128-byte span, its 16-byte chunks XOR-swizzled by the row index mod 8
// (swizzle<3,3,3>): the layout TMA writes and wgmma reads without bank
// conflicts.
!a_ring = !tile.buffer<6x64x64xbf16, shared, #tile.layout<S[(6,64,64):(4096,64,1)], swizzle<3,3,3>>>
// The B ring: stage s holds B's 256 x 64 tile, rows swizzled the same way.
!b_ring = !tile.buffer<3x256x64xbf16, shared, #tile.layout<S[(3,256,64):(16384,64,1)], swizzle<3,3,3>>>
// The C staging tile, one 64 x 256 half per consumer, its 256 columns kept
// as four 64-column (128-byte) swizzled blocks: the 8 rows a stmatrix
// writes at once fall into 8 different 16-byte chunks, and the TMA store
// undoes the swizzle on the way out.
!c_tile = !tile.buffer<2x64x256xbf16, shared, #tile.layout<S[(2,64,4,64):(16384,64,4096,1)], swizzle<3,3,3>>>
// A consumer's accumulator: the wgmma m64n256 f32 fragment. Thread
// 32w + 4q + r of the warpgroup holds row 16w + 8h + q, column 8j + 2r + e
// in its register 4j + 2h + e (128 registers).
!acc = !tile.buffer<64x256xf32, local, #tile.layout<S[(4,2,8,32,4,2):(32@tid_in_wg,2,4@tid_in_wg,4,1@tid_in_wg,1)]>>

gpu.module @hopper_gemm [#nvvm.target<chip = "sm_90a">] {
  gpu.func @hopper_gemm(%a: memref<?x?xbf16, 1>, %b: memref<?x?xbf16, 1>,
                        %c: memref<?x?xbf16, 1>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32} {
    // ---- Constants ------------------------------------------------------
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %false = arith.constant false
    %true = arith.constant true
    %wg_threads = arith.constant 128 : i32       // a named barrier's count
    %ticks = arith.constant 1000000 : index      // try_wait's suspend hint
    // The tile and the ring.
    %tile_m = arith.constant 128 : index         // BM: C rows per tile
    %tile_n = arith.constant 256 : index         // BN: C columns per tile
    %tile_k = arith.constant 64 : index          // BK: K per stage
    %half_m = arith.constant 64 : index          // rows per consumer
    %stages = arith.constant 3 : index
    %group_m = arith.constant 8 : index          // tile rows per raster group
    // Bytes TMA delivers per stage: (128 + 256) rows x 64 x 2 bytes.
    %stage_bytes = arith.constant 49152 : index
    // Arrivals that free a stage: lane 0 of each of the 8 consumer warps.
    %consumer_warps = arith.constant 8 : index

    // ---- The problem ----------------------------------------------------
    %M = memref.dim %a, %c0 : memref<?x?xbf16, 1>
    %K = memref.dim %a, %c1 : memref<?x?xbf16, 1>
    %N = memref.dim %b, %c0 : memref<?x?xbf16, 1>
    %tiles_m = arith.ceildivui %M, %tile_m : index
    %tiles_n = arith.ceildivui %N, %tile_n : index
    %k_steps = arith.ceildivui %K, %tile_k : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %group_tiles = arith.muli %group_m, %tiles_n : index
    %a_global = tile.from_memref %a : memref<?x?xbf16, 1> -> !gmem
    %b_global = tile.from_memref %b : memref<?x?xbf16, 1> -> !gmem
    %c_global = tile.from_memref %c : memref<?x?xbf16, 1> -> !gmem

    // ---- Shared memory --------------------------------------------------
    // 1024-byte alignment: the 128-byte swizzle repeats every 8 rows (1 KiB)
    // and both TMA and the wgmma descriptors assume a tile starts on it.
    %a_ring = tile.alloc_shared {alignment = 1024 : i64} : !a_ring
    %b_ring = tile.alloc_shared {alignment = 1024 : i64} : !b_ring
    %c_tile = tile.alloc_shared {alignment = 1024 : i64} : !c_tile
    // full[s]:  "stage s is loaded". One arrival (the producer's
    //           arrive.expect_tx, announcing 48 KiB) plus the bytes: the
    //           phase completes when all three TMA loads have landed.
    // empty[s]: "stage s may be overwritten". 8 arrivals, one per consumer
    //           warp, each after the wgmma that read the stage retired.
    %full_barrier = nvgpu.mbarrier.create -> !ring
    %empty_barrier = nvgpu.mbarrier.create -> !ring

    // ---- Who is who -----------------------------------------------------
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index          // warpgroup 0, 1, 2
    %tid_in_wg = arith.remui %tid, %c128 : index
    %lane = arith.remui %tid, %c32 : index
    %cta_leader = arith.cmpi eq, %tid, %c0 : index

    // One thread initialises the barriers; the fence makes the
    // initialisation visible to the async proxy (TMA's complete_tx), and
    // the CTA barrier to every thread, before anyone uses them.
    scf.if %cta_leader {
      scf.for %s = %c0 to %stages step %c1 {
        nvgpu.mbarrier.init %full_barrier[%s], %c1 : !ring
        nvgpu.mbarrier.init %empty_barrier[%s], %consumer_warps : !ring
      }
      tile.fence mbarrier_init
    }
    gpu.barrier

    // ---- The persistent tile loop, and ring positions -------------------
    // Every CTA walks tiles t = blockIdx.x, + gridDim.x, ... < %tiles; the
    // producer and both consumers walk the same sequence.
    //
    // Tile t -> (row %pm, column %pn) in grouped order: groups of 8 tile
    // rows, column by column inside a group, so the CTAs running at the
    // same time share A rows and B columns in L2.
    //
    // Ring positions: each role counts the K steps it has handled since
    // the kernel started (%pos, carried across tiles, never reset: the
    // barriers' phases are not reset either). Position i uses stage
    // s = i mod 3 in round r = i / 3; each barrier completes one phase per
    // round. try_wait.parity(p) returns once the most recent phase of
    // parity p has completed, and a fresh barrier counts as having just
    // completed a phase of parity 1. Hence:
    //   consumer, round r: full[s] with parity r & 1 (round 0 waits for
    //     the first load);
    //   producer, round r: empty[s] with parity !(r & 1): round 0 passes at
    //     once (the ring starts empty), round r > 0 waits for the release
    //     that ended round r - 1.
    // Neither side can get a whole phase ahead of the other, so one parity
    // bit is enough.
    %first_tile = gpu.block_id x
    %ctas = gpu.grid_dim x
    %is_producer = arith.cmpi eq, %wg, %c0 : index
    scf.if %is_producer {
      // ---- Producer warpgroup -------------------------------------------
      // It only computes addresses: give registers back (setmaxnreg is
      // warpgroup-wide, so all 128 threads execute it).
      nvvm.setmaxregister decrease 40
      scf.if %cta_leader {
        scf.for %t = %first_tile to %tiles step %ctas
            iter_args(%tile_pos = %c0) -> (index) {
          %group = arith.divui %t, %group_tiles : index
          %first_m = arith.muli %group, %group_m : index
          %rows_left = arith.subi %tiles_m, %first_m : index
          %rows_in_group = arith.minui %rows_left, %group_m : index
          %in_group = arith.remui %t, %group_tiles : index
          %row_in_group = arith.remui %in_group, %rows_in_group : index
          %pm = arith.addi %first_m, %row_in_group : index
          %pn = arith.divui %in_group, %rows_in_group : index
          %m0 = arith.muli %pm, %tile_m : index
          %n0 = arith.muli %pn, %tile_n : index
          %m1 = arith.addi %m0, %half_m : index
          %next_tile_pos = scf.for %kt = %c0 to %k_steps step %c1
              iter_args(%pos = %tile_pos) -> (index) {
            %s = arith.remui %pos, %stages : index
            %round = arith.divui %pos, %stages : index
            %round_bit = arith.andi %round, %c1 : index
            %free_parity = arith.cmpi eq, %round_bit, %c0 : index
            // Wait until the consumers are done with stage s ...
            nvgpu.mbarrier.try_wait.parity %empty_barrier[%s], %free_parity, %ticks : !ring
            // ... announce the bytes its three loads will bring ...
            nvgpu.mbarrier.arrive.expect_tx %full_barrier[%s], %stage_bytes : !ring
            // ... and issue them: A's two halves, then B.
            %k0 = arith.muli %kt, %tile_k : index
            %a_top = arith.muli %s, %c2 : index
            %a_bottom = arith.addi %a_top, %c1 : index
            tile.copy_async %a_global[%m0, %k0] to %a_ring[%a_top, 0, 0] sizes [64, 64]
                exec thread mbar(%full_barrier[%s] : !ring) : !gmem to !a_ring
            tile.copy_async %a_global[%m1, %k0] to %a_ring[%a_bottom, 0, 0] sizes [64, 64]
                exec thread mbar(%full_barrier[%s] : !ring) : !gmem to !a_ring
            tile.copy_async %b_global[%n0, %k0] to %b_ring[%s, 0, 0] sizes [256, 64]
                exec thread mbar(%full_barrier[%s] : !ring) : !gmem to !b_ring
            %next_pos = arith.addi %pos, %c1 : index
            scf.yield %next_pos : index
          }
          scf.yield %next_tile_pos : index
        }
      }
    } else {
      // ---- Consumer warpgroups ------------------------------------------
      // The accumulator (128 registers) and the wgmma pipeline want the
      // registers the producer gave back.
      nvvm.setmaxregister increase 232
      %half = arith.subi %wg, %c1 : index               // 0: rows 0..63, 1: 64..127
      // Named barrier 1 or 2 (0 is the CTA's): syncs this warpgroup only.
      %wg_barrier = arith.index_cast %wg : index to i32
      %wg_leader = arith.cmpi eq, %tid_in_wg, %c0 : index
      %releaser = arith.cmpi eq, %lane, %c0 : index      // lane 0 of each warp
      %acc = tile.alloc_local : !acc
      scf.for %t = %first_tile to %tiles step %ctas
          iter_args(%tile_pos = %c0) -> (index) {
        %group = arith.divui %t, %group_tiles : index
        %first_m = arith.muli %group, %group_m : index
        %rows_left = arith.subi %tiles_m, %first_m : index
        %rows_in_group = arith.minui %rows_left, %group_m : index
        %in_group = arith.remui %t, %group_tiles : index
        %row_in_group = arith.remui %in_group, %rows_in_group : index
        %pm = arith.addi %first_m, %row_in_group : index
        %pn = arith.divui %in_group, %rows_in_group : index
        %m0 = arith.muli %pm, %tile_m : index
        %n0 = arith.muli %pn, %tile_n : index

        // -- The K loop. Each step: wait for the stage, issue one wgmma
        // (64 x 256 x 64, B read transposed), commit it as a group, and
        // wait until at most one group is in flight: the previous step's
        // wgmma has then retired, and its stage goes back to the producer.
        // The tensor cores work on step i while the warp releases i - 1.
        //
        // The first step is peeled: it overwrites the accumulator with a
        // constant accumulate(false). A runtime flag would have the
        // registers of a wgmma in flight selected against zero, and ptxas
        // would serialize the pipeline to keep that correct.
        %s_first = arith.remui %tile_pos, %stages : index
        %round_first = arith.divui %tile_pos, %stages : index
        %round_bit_first = arith.andi %round_first, %c1 : index
        %loaded_parity_first = arith.cmpi ne, %round_bit_first, %c0 : index
        nvgpu.mbarrier.try_wait.parity %full_barrier[%s_first], %loaded_parity_first, %ticks : !ring
        %a_pair_first = arith.muli %s_first, %c2 : index
        %a_tile_first = arith.addi %a_pair_first, %half : index
        tile.gemm_async %acc[0, 0], %a_ring[%a_tile_first, 0, 0], %b_ring[%s_first, 0, 0]
            sizes [64, 256, 64] exec warpgroup accumulate(%false) {transpose_b}
            : !acc, !a_ring, !b_ring
        tile.commit_group wgmma
        tile.wait_group wgmma, 1
        %second_pos = arith.addi %tile_pos, %c1 : index

        %end_pos = scf.for %kt = %c1 to %k_steps step %c1
            iter_args(%pos = %second_pos) -> (index) {
          %s = arith.remui %pos, %stages : index
          %round = arith.divui %pos, %stages : index
          %round_bit = arith.andi %round, %c1 : index
          %loaded_parity = arith.cmpi ne, %round_bit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %full_barrier[%s], %loaded_parity, %ticks : !ring
          %a_pair = arith.muli %s, %c2 : index
          %a_tile = arith.addi %a_pair, %half : index
          tile.gemm_async %acc[0, 0], %a_ring[%a_tile, 0, 0], %b_ring[%s, 0, 0]
              sizes [64, 256, 64] exec warpgroup accumulate(%true) {transpose_b}
              : !acc, !a_ring, !b_ring
          tile.commit_group wgmma
          tile.wait_group wgmma, 1
          // Step pos - 1 has retired: its stage, (pos + 2) mod 3, is free.
          scf.if %releaser {
            %prev = arith.addi %pos, %stages : index
            %prev_pos = arith.subi %prev, %c1 : index
            %prev_s = arith.remui %prev_pos, %stages : index
            nvgpu.mbarrier.arrive %empty_barrier[%prev_s] : !ring -> !nvgpu.mbarrier.token
          }
          %next_pos = arith.addi %pos, %c1 : index
          scf.yield %next_pos : index
        }
        // Drain: the last wgmma retires, and its stage is released before
        // the epilogue, so the producer can load the next tile meanwhile.
        tile.wait_group wgmma, 0
        scf.if %releaser {
          %last = arith.addi %end_pos, %stages : index
          %last_pos = arith.subi %last, %c1 : index
          %last_s = arith.remui %last_pos, %stages : index
          nvgpu.mbarrier.arrive %empty_barrier[%last_s] : !ring -> !nvgpu.mbarrier.token
        }

        // -- Epilogue: registers -> shared (stmatrix) -> global (TMA).
        // 1. This warpgroup's half of the C tile may still be read by the
        //    TMA store of its previous tile. Bulk groups belong to the
        //    thread that committed them, so the warpgroup leader waits
        //    (for the read only, not the global write), and the named
        //    barrier tells the other 127 threads.
        scf.if %wg_leader {
          tile.wait_group bulk, 0 {read}
        }
        nvvm.barrier id = %wg_barrier number_of_threads = %wg_threads
        // 2. f32 -> bf16, written with stmatrix into the swizzled half.
        tile.store %acc to %c_tile[%half, 0, 0] : !acc to !c_tile
        // 3. Those were generic-proxy writes and TMA reads through the
        //    async proxy: fence, then make sure all 128 threads have
        //    written and fenced before the leader issues the store.
        tile.fence proxy_async
        nvvm.barrier id = %wg_barrier number_of_threads = %wg_threads
        // 4. One TMA store of 64 x 256 (clipped at the matrix edge). Not
        //    waited for here: it overlaps the next tile's K loop.
        scf.if %wg_leader {
          %row = arith.muli %half, %half_m : index
          %m_half = arith.addi %m0, %row : index
          tile.copy_async %c_tile[%half, 0, 0] to %c_global[%m_half, %n0] sizes [64, 256]
              exec thread : !c_tile to !gmem
          tile.commit_group bulk
        }
        scf.yield %end_pos : index
      }
      // The last store must finish reading shared memory before the CTA
      // exits. Its writes to C complete with the grid (a later kernel sees
      // them): waiting for them as well would only hold the CTA.
      scf.if %wg_leader {
        tile.wait_group bulk, 0 {read}
      }
    }
    gpu.return
  }
}

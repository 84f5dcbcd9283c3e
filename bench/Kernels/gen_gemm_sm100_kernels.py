#!/usr/bin/env python3
"""Writes the Blackwell GEMM kernels (tile IR, one sm_100a gpu.module):

  gen_gemm_sm100_kernels.py OUT.mlir [OUT.json]

gemm_sm100_<type>_tn_<BM>x<BN>x<BK>_s<stages>: C = A * B^T (A is M x K, B
is N x K, both K-major), f32 accumulation in tensor memory, C (M x N)
stored in the output type; M, N and K are runtime sizes (TMA fills zeros
past the edges on loads and clips stores).

Persistent and warp-specialized, 256 threads, one CTA per SM walking the
tiles in grouped order like the Hopper family:
  warp 0 (one thread)  TMA loads of a `stages`-deep ring (full/empty
                       barriers);
  warp 1 (one thread)  the MMAs: one tile.gemm_async (dispatch: tcgen05)
                       per stage into one of two tensor-memory accumulators
                       (columns 0..BN-1 and 256..256+BN-1), each stage
                       released by a tcgen05.commit to its empty barrier,
                       each finished accumulator announced by a commit to
                       its `acc_full` barrier;
  warps 4-7            the epilogue: wait for an accumulator, read it back
                       in 64-column slices (tile.load from tensor memory:
                       tcgen05.ld 32x32b, thread = row), release it to the
                       MMA warp (acc_empty), store each slice converted into
                       a 128-byte swizzled shared tile (two, alternating) and
                       TMA-store it; the MMAs of the next tile run meanwhile
                       into the other accumulator.
Compiled and assembled for sm_100a and checked by the lowering checker;
never run here (no sm_100 GPU).
"""
import json
import sys

from gen_gemm_kernels import (BYTES, GROUP_M, SHORT, layout, problem, raster,
                              ring_k_major)

ACC_COLUMNS = 256  # tensor-memory columns between the two accumulators
SLICE = 64         # epilogue columns per tcgen05.ld / TMA store


def gemm_sm100_kernel(ty, out_ty, bn, bk, stages):
    bm = 128
    name = f"gemm_sm100_{SHORT[ty]}_tn_{bm}x{bn}x{bk}_s{stages}"
    eb = BYTES[ty]
    a_t = f"!tile.buffer<{stages}x{bm}x{bk}x{ty}, shared, {ring_k_major(ty, stages, bm, bk)}>"
    b_t = f"!tile.buffer<{stages}x{bn}x{bk}x{ty}, shared, {ring_k_major(ty, stages, bn, bk)}>"
    inner = 128 // BYTES[out_ty]
    c_t = (f"!tile.buffer<{bm}x{SLICE}x{out_ty}, shared, "
           f"{layout((bm, SLICE // inner, inner), (inner, bm * inner, 1), 'swizzle<3,3,3>')}>")
    # Two accumulators, ACC_COLUMNS apart: index 0 or 1 (a runtime index
    # moves the tensor-memory address by whole columns).
    acc_t = (f"!tile.buffer<2x128x{bn}xf32, tmem, "
             f"{layout((2, 128, bn), (f'{ACC_COLUMNS}@TCol', '1@TLane', '1@TCol'))}>")
    # Thread t of the epilogue warpgroup holds row t (tensor-memory lane t:
    # warp w reads lanes 32(w % 4)..), one register per column.
    frag_t = (f"!tile.buffer<{bm}x{SLICE}xf32, local, "
              f"{layout((bm, SLICE), ('1@tid_in_wg', 1))}>")
    g_in = f"!tile.buffer<?x?x{ty}, global>"
    g_out = f"!tile.buffer<?x?x{out_ty}, global>"
    m_in = f"memref<?x?x{ty}, 1>"
    m_out = f"memref<?x?x{out_ty}, 1>"
    stage_bytes = (bm + bn) * bk * eb
    slices = bn // SLICE
    epilogue = []
    for j in range(slices):
        buf = j % 2
        release = ""
        if j == slices - 1:
            release = """
          // Every slice is in registers: the MMA warp may reuse the
          // accumulator.
          tile.fence before_thread_sync
          nvgpu.mbarrier.arrive %acc_empty[%buf] : !acc_bars -> !nvgpu.mbarrier.token"""
        epilogue.append(f"""
          %col{j} = arith.constant {j * SLICE} : index
          %frag{j} = tile.alloc_local : {frag_t}
          tile.load %acc[%buf, 0, {j * SLICE}] to %frag{j} : {acc_t} to {frag_t}{release}
          // The TMA store that last read staging tile {buf} (two groups
          // ago) must be done. Bulk groups are per thread: the other
          // threads have none, and their wait returns at once.
          tile.wait_group bulk, 1 {{read}}
          nvvm.barrier id = %i1_1 number_of_threads = %i32_128
          tile.store %frag{j} to %sc{buf}[0, 0] : {frag_t} to {c_t}
          tile.fence proxy_async
          nvvm.barrier id = %i1_1 number_of_threads = %i32_128
          scf.if %epi_leader {{
            %n_slice{j} = arith.addi %n0, %col{j} : index
            tile.copy_async %sc{buf}[0, 0] to %gc[%m0, %n_slice{j}] sizes [{bm}, {SLICE}] exec thread
                : {c_t} to {g_out}
          }}
          tile.commit_group bulk""")
    text = f"""
  // {bm}x{bn}x{bk} tiles, {stages}-stage ring, {SHORT[ty]} -> {out_ty}, tcgen05
  gpu.func @{name}(%a: {m_in}, %b: {m_in}, %c: {m_out}) kernel
      attributes {{known_block_size = array<i32: 256, 1, 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c_stages = arith.constant {stages} : index
    %c_bm = arith.constant {bm} : index
    %c_bn = arith.constant {bn} : index
    %c_bk = arith.constant {bk} : index
    %c_group = arith.constant {GROUP_M} : index
    %stage_bytes = arith.constant {stage_bytes} : index
    %epilogue_threads = arith.constant 128 : index
    %ticks = arith.constant 1000000 : index
    %i1_1 = arith.constant 1 : i32
    %i32_128 = arith.constant 128 : i32
{problem(m_in, m_out, g_in, g_out, 0)}    %sa = tile.alloc_shared {{alignment = 1024 : i64}} : {a_t}
    %sb = tile.alloc_shared {{alignment = 1024 : i64}} : {b_t}
    %sc0 = tile.alloc_shared {{alignment = 1024 : i64}} : {c_t}
    %sc1 = tile.alloc_shared {{alignment = 1024 : i64}} : {c_t}
    %full = nvgpu.mbarrier.create -> !ring
    %empty = nvgpu.mbarrier.create -> !ring
    %acc_full = nvgpu.mbarrier.create -> !acc_bars
    %acc_empty = nvgpu.mbarrier.create -> !acc_bars
    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {{
      scf.for %s = %c0 to %c_stages step %c1 {{
        nvgpu.mbarrier.init %full[%s], %c1 : !ring
        nvgpu.mbarrier.init %empty[%s], %c1 : !ring
      }}
      scf.for %s = %c0 to %c2 step %c1 {{
        nvgpu.mbarrier.init %acc_full[%s], %c1 : !acc_bars
        nvgpu.mbarrier.init %acc_empty[%s], %epilogue_threads : !acc_bars
      }}
      tile.fence mbarrier_init
    }}
    // Warp 0 allocates both accumulators; the op syncs the CTA, so the
    // barriers are initialised for everyone.
    %taddr = tile.tmem_alloc 512 columns
    %acc = tile.tmem_buffer %taddr : {acc_t}
    %first_tile = gpu.block_id x
    %ctas = gpu.grid_dim x
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %in_warp0 = arith.cmpi eq, %warp, %c0 : index
    %in_warp1 = arith.cmpi eq, %warp, %c1 : index
    %producer = arith.andi %in_warp0, %lane0 : i1
    %mma = arith.andi %in_warp1, %lane0 : i1
    %epilogue = arith.cmpi uge, %warp, %c4 : index
    scf.if %producer {{
      scf.for %t = %first_tile to %tiles step %ctas iter_args(%it0 = %c0) -> (index) {{
{raster("        ")}
        %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {{
          %s = arith.remui %i, %c_stages : index
          %round = arith.divui %i, %c_stages : index
          %round_bit = arith.andi %round, %c1 : index
          %free_parity = arith.cmpi eq, %round_bit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %empty[%s], %free_parity, %ticks : !ring
          nvgpu.mbarrier.arrive.expect_tx %full[%s], %stage_bytes : !ring
          %k0 = arith.muli %kt, %c_bk : index
          tile.copy_async %ga[%m0, %k0] to %sa[%s, 0, 0] sizes [{bm}, {bk}] exec thread
              mbar(%full[%s] : !ring) : {g_in} to {a_t}
          tile.copy_async %gb[%n0, %k0] to %sb[%s, 0, 0] sizes [{bn}, {bk}] exec thread
              mbar(%full[%s] : !ring) : {g_in} to {b_t}
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }}
        scf.yield %it1 : index
      }}
    }}
    scf.if %mma {{
      %last:2 = scf.for %t = %first_tile to %tiles step %ctas iter_args(%it0 = %c0, %j = %c0) -> (index, index) {{
        // Accumulator j % 2, free once the epilogue has read its previous
        // tile (the first two tiles find them free).
        %buf = arith.remui %j, %c2 : index
        %use = arith.divui %j, %c2 : index
        %use_bit = arith.andi %use, %c1 : index
        %acc_free = arith.cmpi eq, %use_bit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %acc_empty[%buf], %acc_free, %ticks : !acc_bars
        tile.fence after_thread_sync
        %it1 = scf.for %kt = %c0 to %k_tiles step %c1 iter_args(%i = %it0) -> (index) {{
          %s = arith.remui %i, %c_stages : index
          %round = arith.divui %i, %c_stages : index
          %round_bit = arith.andi %round, %c1 : index
          %parity = arith.cmpi ne, %round_bit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %full[%s], %parity, %ticks : !ring
          tile.fence after_thread_sync
          %accumulate = arith.cmpi ne, %kt, %c0 : index
          tile.gemm_async %acc[%buf, 0, 0], %sa[%s, 0, 0], %sb[%s, 0, 0] sizes [{bm}, {bn}, {bk}]
              exec thread accumulate(%accumulate) {{transpose_b}} : {acc_t}, {a_t}, {b_t}
          // The stage is free once these MMAs have read it.
          tile.mma_commit mbar(%empty[%s] : !ring) exec thread
          %next = arith.addi %i, %c1 : index
          scf.yield %next : index
        }}
        tile.mma_commit mbar(%acc_full[%buf] : !acc_bars) exec thread
        %j1 = arith.addi %j, %c1 : index
        scf.yield %it1, %j1 : index, index
      }}
    }}
    scf.if %epilogue {{
      %epi_tid = arith.subi %tid, %c128 : index
      %epi_leader = arith.cmpi eq, %epi_tid, %c0 : index
      %done = scf.for %t = %first_tile to %tiles step %ctas iter_args(%j = %c0) -> (index) {{
{raster("        ")}
        %buf = arith.remui %j, %c2 : index
        %use = arith.divui %j, %c2 : index
        %use_bit = arith.andi %use, %c1 : index
        %ready = arith.cmpi ne, %use_bit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %acc_full[%buf], %ready, %ticks : !acc_bars
        tile.fence after_thread_sync
{"".join(epilogue)}
        %j1 = arith.addi %j, %c1 : index
        scf.yield %j1 : index
      }}
      scf.if %epi_leader {{
        tile.wait_group bulk, 0
      }}
    }}
    // Every MMA was waited for by the epilogue; release the columns.
    gpu.barrier
    tile.tmem_dealloc %taddr, 512 columns
    gpu.return
  }}
"""
    case = dict(kernel=name, dtype=ty, out=out_ty, b_mn=False, bm=bm, bn=bn,
                bk=bk, stages=stages, block=256, chip="sm_100a")
    return text, case


CONFIGS = [
    # (type, output type, BN, BK, stages)
    ("bf16", "bf16", 256, 64, 4),
    ("f16", "f16", 256, 64, 4),
    ("f8E4M3FN", "bf16", 256, 128, 4),
    ("bf16", "bf16", 128, 64, 6),
]


def main():
    kernels, cases = [], []
    for config in CONFIGS:
        text, case = gemm_sm100_kernel(*config)
        kernels.append(text)
        cases.append(case)
    header = f"""// Generated by bench/Kernels/gen_gemm_sm100_kernels.py: persistent,
// warp-specialized tcgen05 GEMMs in tile IR. Do not edit.
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {max(c[-1] for c in CONFIGS)}>
!acc_bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
gpu.module @gemm_sm100 [#nvvm.target<chip = "sm_100a">] {{
"""
    with open(sys.argv[1], "w") as f:
        f.write(header + "".join(kernels) + "}\n")
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            json.dump({"kernels": cases}, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Prints a kernel file with one named change: a pipeline bug a kernel
author makes (the simulation in --tile-verify-kernels must report it) or an
equivalent rewrite (it must not). Hopper changes apply to
examples/hopper_gemm.mlir, `sm100-` ones to every kernel of the Blackwell
family (bench/Kernels/gen_gemm_sm100_kernels.py). Each change must apply
exactly as many times as listed (None: at least once), so a test notices
when the kernels move on."""
import sys



def swapped(first, second):
    """`first` (a wait and its comment) and the block after it, `second`,
    in the other order: the block runs before the wait."""
    return [(first + second, second + first.splitlines(True)[0], 1)]


# name: [(old, new, times)]
MUTANTS = {
    # -- bugs --
    "stale-parity": [(
        "%loaded_parity = arith.cmpi ne, %round_bit, %c0 : index",
        "%loaded_parity = arith.cmpi ne, %c0, %c0 : index", 1)],
    "producer-skips-empty-wait": [(
        "nvgpu.mbarrier.try_wait.parity %empty_barrier[%s], %free_parity, %ticks : !ring",
        "", 1)],
    "producer-parity-inverted": [(
        "%free_parity = arith.cmpi eq, %round_bit, %c0 : index",
        "%free_parity = arith.cmpi ne, %round_bit, %c0 : index", 1)],
    "release-before-retire": [(
        "tile.wait_group wgmma, 1\n", "tile.wait_group wgmma, 2\n", 2)],
    # Each warp releases the stage before its own wait_group retires the
    # wgmma reading it (every arrival of the phase early).
    "release-above-wait": swapped(
        "          tile.wait_group wgmma, 1\n"
        "          // Step pos - 1 has retired: its stage, (pos + 2) mod 3, is free.\n",
        """          scf.if %releaser {
            %prev = arith.addi %pos, %stages : index
            %prev_pos = arith.subi %prev, %c1 : index
            %prev_s = arith.remui %prev_pos, %stages : index
            nvgpu.mbarrier.arrive %empty_barrier[%prev_s] : !ring -> !nvgpu.mbarrier.token
          }
"""),
    "drain-release-above-wait": swapped(
        "        tile.wait_group wgmma, 0\n",
        """        scf.if %releaser {
          %last = arith.addi %end_pos, %stages : index
          %last_pos = arith.subi %last, %c1 : index
          %last_s = arith.remui %last_pos, %stages : index
          nvgpu.mbarrier.arrive %empty_barrier[%last_s] : !ring -> !nvgpu.mbarrier.token
        }
"""),
    "commit-before-mma": [(
        """          tile.gemm_async %acc[0, 0], %a_ring[%a_tile, 0, 0], %b_ring[%s, 0, 0]
              sizes [64, 256, 64] exec warpgroup accumulate(%true) {transpose_b}
              : !acc, !a_ring, !b_ring
          tile.commit_group wgmma
""", """          tile.commit_group wgmma
          tile.gemm_async %acc[0, 0], %a_ring[%a_tile, 0, 0], %b_ring[%s, 0, 0]
              sizes [64, 256, 64] exec warpgroup accumulate(%true) {transpose_b}
              : !acc, !a_ring, !b_ring
""", 1)],
    "init-count-too-high": [(
        "%consumer_warps = arith.constant 8 : index",
        "%consumer_warps = arith.constant 9 : index", 1)],
    "whole-warp-arrives": [(
        "%releaser = arith.cmpi eq, %lane, %c0 : index",
        "%releaser = arith.cmpi ult, %lane, %c32 : index", 1)],
    "wrong-stage": [(
        "%a_pair = arith.muli %s, %c2 : index",
        "%s_next = arith.addi %s, %c1 : index\n"
        "          %s_wrong = arith.remui %s_next, %stages : index\n"
        "          %a_pair = arith.muli %s_wrong, %c2 : index", 1)],
    "no-fence-after-init": [("      tile.fence mbarrier_init\n", "", 1)],
    "no-barrier-after-init": [(
        "      tile.fence mbarrier_init\n    }\n    gpu.barrier\n",
        "      tile.fence mbarrier_init\n    }\n", 1)],
    "store-tile-rewritten-under-tma-store": [(
        "          tile.wait_group bulk, 0 {read}\n", "", 1)],
    "exit-with-tma-store-in-flight": [(
        "      scf.if %wg_leader {\n        tile.wait_group bulk, 0 {read}\n"
        "      }\n    }\n    gpu.return",
        "      scf.if %wg_leader {\n      }\n    }\n    gpu.return", 1)],
    "setmaxnreg-unpaid": [(
        "nvvm.setmaxregister decrease 40", "nvvm.setmaxregister decrease 56", 1)],
    "stage-index-out-of-range": [(
        "%s = arith.remui %pos, %stages : index\n            %round",
        "%s = arith.remui %pos, %c4 : index\n            %round", 1),
        ("%c32 = arith.constant 32 : index",
         "%c32 = arith.constant 32 : index\n    %c4 = arith.constant 4 : index", 1)],
    # -- Blackwell family bugs (tcgen05, tensor memory) --
    "sm100-epilogue-skips-acc-full": [(
        "nvgpu.mbarrier.try_wait.parity %acc_full[%buf], %parity_acc, %ticks : !acc_bars\n",
        "", None)],
    "sm100-mma-skips-acc-empty": [(
        "nvgpu.mbarrier.try_wait.parity %acc_empty[%buf], %parity_acc, %ticks : !acc_bars\n",
        "", None)],
    "sm100-mma-skips-full": [(
        "nvgpu.mbarrier.try_wait.parity %full[%s], %parity, %ticks : !ring\n"
        "          tile.fence after_thread_sync\n",
        "tile.fence after_thread_sync\n", None)],
    "sm100-stage-never-released": [(
        "tile.mma_commit mbar(%empty[%s] : !ring) exec thread\n", "", None)],
    "sm100-pair-stage-bytes-short": [(
        "%stage_bytes = arith.constant 65536 : index",
        "%stage_bytes = arith.constant 49152 : index", None)],
    # -- Hopper cluster (a B tile multicast to both CTAs of a pair) --
    "mc-release-to-one-cta": [(
        "%release_cta = arith.index_cast %warp_in_wg : index to i32",
        "%release_cta = arith.constant 0 : i32", 1)],
    "mc-mask-outside-cluster": [(
        "%both = arith.constant 3 : i16", "%both = arith.constant 7 : i16", 1)],
    "mc-no-cluster-sync-after-init": [(
        "    nvvm.cluster.arrive {aligned}\n    nvvm.cluster.wait {aligned}\n"
        "    %rank_i32",
        "    %rank_i32", 1)],
    # -- DSMEM (examples/dsmem_copy.mlir) --
    "dsmem-exit-before-peer-has-it": [(
        "    nvvm.cluster.arrive {aligned}\n    nvvm.cluster.wait {aligned}\n"
        "    gpu.return",
        "    gpu.return", 1)],
    # -- equivalent rewrites --
    "stage-recomputed": [(
        "%s = arith.remui %pos, %stages : index\n          %round = arith.divui %pos, %stages : index",
        "%round = arith.divui %pos, %stages : index\n"
        "          %whole = arith.muli %round, %stages : index\n"
        "          %s = arith.subi %pos, %whole : index", 1)],
    "guard-spelled-differently": [(
        "%releaser = arith.cmpi eq, %lane, %c0 : index",
        "%releaser = arith.cmpi ult, %lane, %c1 : index", 1),
        ("%cta_leader = arith.cmpi eq, %tid, %c0 : index",
         "%cta_leader = arith.cmpi sle, %tid, %c0 : index", 1)],
    "copy-barrier-index-recomputed": [(
        """            tile.copy_async %a_global[%m0, %k0] to %a_ring[%a_top, 0, 0] sizes [64, 64]
                exec thread mbar(%full_barrier[%s] : !ring) : !gmem to !a_ring""",
        """            %s_again = arith.remui %pos, %stages : index
            tile.copy_async %a_global[%m0, %k0] to %a_ring[%a_top, 0, 0] sizes [64, 64]
                exec thread mbar(%full_barrier[%s_again] : !ring) : !gmem to !a_ring""",
        1)],
    "expect-tx-bytes-as-a-sum": [(
        "nvgpu.mbarrier.arrive.expect_tx %full_barrier[%s], %stage_bytes : !ring",
        "%half_bytes = arith.constant 24576 : index\n"
        "            %bytes_again = arith.addi %half_bytes, %half_bytes : index\n"
        "            nvgpu.mbarrier.arrive.expect_tx %full_barrier[%s], %bytes_again : !ring",
        1)],
    "parity-by-truncation": [(
        "%loaded_parity = arith.cmpi ne, %round_bit, %c0 : index",
        "%loaded_parity = arith.index_castui %round_bit : index to i1", 1)],
}


def main():
    path, name = sys.argv[1], sys.argv[2]
    text = open(path).read()
    for old, new, times in MUTANTS[name]:
        found = text.count(old)
        if found != times and not (times is None and found):
            sys.exit(f"{name}: {old!r} occurs {found} times, expected {times}")
        text = text.replace(old, new)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()

// Realistic bugs in the persistent attention kernels' protocol, each made
// by editing the generated family, each caught by --tile-verify-kernels
// (the simulation walks several tiles per CTA: tile.sample_grid).
// RUN: %python %tile_src_root/bench/Kernels/gen_attention_kernels.py %t.mlir %t.cases.json
//
// The producer loads the next tile's Q without waiting until the consumers
// freed it: a consumer reads Q while it is being overwritten.
// RUN: sed '/try_wait.parity %%bars\[%%q_free\]/d' %t.mlir > %t.no-q-free-wait.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-q-free-wait.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=Q-OVERWRITTEN
// Q-OVERWRITTEN: error: thread {{[0-9]+}} (warpgroup 1, {{.*}}) reads {{.*}} while the copy into {{.*}} has not completed
//
// The consumers never say Q is free: the producer waits forever.
// RUN: sed '/arrive %%bars\[%%q_free\]/d' %t.mlir > %t.no-q-free-arrival.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-q-free-arrival.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: error: the kernel deadlocks: {{.*}} waits for parity 0 on mbarrier 9 {{.*}} phase 0 has 0 of 8 arrivals
//
// The O and LSE halves rewritten for the next tile while the previous
// tile's TMA stores may still read them.
// RUN: sed '/tile.wait_group bulk, 0 {read}/d' %t.mlir > %t.no-store-wait.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-store-wait.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=STORE-READING
// STORE-READING: error: thread {{[0-9]+}} ({{.*}}) writes {{.*}} while a TMA store issued by thread {{[0-9]+}} {{.*}} may still read
//
// The K/V ring restarted at stage 0, phase 0 with each tile instead of
// carried across tiles.
// RUN: sed 's/%%g_next = arith.addi %%g, %%k_blocks : index/%%g_next = arith.addi %%c0, %%c0 : index/' %t.mlir > %t.ring-reset.mlir
// RUN: not tile-opt --tile-verify-kernels %t.ring-reset.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=RING-RESET
// RING-RESET: error: thread 0 (warpgroup 0, {{.*}}) waits on mbarrier {{[0-9]+}} {{.*}} passes on phase {{.*}}, which it already waited for
//
// The consumers wait on Q's barrier with the parity of the wrong tile.
// RUN: sed 's/%%q_parity = arith.cmpi ne, %%q_round_bit/%%q_parity = arith.cmpi eq, %%q_round_bit/' %t.mlir > %t.q-parity.mlir
// RUN: not tile-opt --tile-verify-kernels %t.q-parity.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=Q-PARITY
// Q-PARITY: error: thread {{[0-9]+}} ({{.*}}) reads {{.*}} while the copy into {{.*}} has not completed

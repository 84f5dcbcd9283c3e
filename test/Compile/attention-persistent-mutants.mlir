// Realistic bugs in the persistent attention kernels' protocol, each made
// by editing the generated family, each caught by --tile-verify-kernels
// (the simulation walks several tiles per CTA: tile.sample_grid).
// RUN: %python %tile_src_root/bench/Kernels/gen_attention_kernels.py %t.mlir %t.cases.json
//
// The producer loads the next tile's Q without waiting until the consumers
// freed it: a consumer reads Q while it is being overwritten (at d = 256,
// one Q buffer; with two, the ring's K/V waits happen to order the reuse).
// RUN: sed '/try_wait.parity %%bars\[%%q_free_bar\]/d' %t.mlir > %t.no-q-free-wait.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-q-free-wait.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=Q-OVERWRITTEN
// Q-OVERWRITTEN: error: thread {{[0-9]+}} (warpgroup 1, {{.*}}) reads {{.*}} while the copy into {{.*}} has not completed
//
// The consumers never say Q is free: the producer waits forever.
// RUN: sed '/arrive %%bars\[%%q_free_bar\]/d' %t.mlir > %t.no-q-free-arrival.mlir
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
// Two Q buffers (d <= 128): the producer copies every tile's Q into
// buffer 0 while the consumers of odd tiles wait on buffer 1's barrier
// and read buffer 1 ...
// RUN: sed 's/%%q_slot_base = arith.muli %%q_buf, %%consumer_wgs/%%q_slot_base = arith.muli %%c0, %%consumer_wgs/' %t.mlir > %t.q-one-buffer.mlir
// RUN: not tile-opt --tile-verify-kernels %t.q-one-buffer.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=Q-ONE-BUFFER
// Q-ONE-BUFFER: error: thread {{[0-9]+}} (warpgroup 1, {{.*}}) reads {{.*}} while the copy into {{.*}} (completing on mbarrier 10 {{.*}}) has not completed
// ... and both buffers freed through buffer 0's barrier: the producer's
// wait on it for buffer 0's second use passes on a phase it already saw.
// RUN: sed 's/%%q_free_bar = arith.addi %%q_free, %%q_free_step : index/%%q_free_bar = arith.addi %%q_free, %%c0 : index/' %t.mlir > %t.q-one-free.mlir
// RUN: not tile-opt --tile-verify-kernels %t.q-one-free.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=Q-ONE-FREE
// Q-ONE-FREE: error: thread 0 (warpgroup 0, {{.*}}) waits on mbarrier 9 {{.*}} which it already waited for
//
// The consumers wait on Q's barrier with the parity of the wrong tile.
// RUN: sed 's/%%q_parity = arith.cmpi ne, %%q_round_bit/%%q_parity = arith.cmpi eq, %%q_round_bit/' %t.mlir > %t.q-parity.mlir
// RUN: not tile-opt --tile-verify-kernels %t.q-parity.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=Q-PARITY
// Q-PARITY: error: thread {{[0-9]+}} ({{.*}}) reads {{.*}} while the copy into {{.*}} has not completed

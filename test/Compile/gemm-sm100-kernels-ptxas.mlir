// The Blackwell GEMM family (bench/Kernels/gen_gemm_sm100_kernels.py):
// every kernel compiles for sm_100a with translation validation (--check:
// each tcgen05.mma's descriptors and instruction descriptor, each
// tcgen05.cp, each TMA copy), passes the kernel checks, and assembles with
// no stack and no spills. Dense kernels: four tcgen05.mma of K 16
// (f16/bf16) or 32 (e4m3) per stage into one of two accumulators, a
// commit per stage and per tile, the epilogue's 64-column tcgen05.ld
// 32x32b reads, each followed by its wait, and 16-byte swizzled stores of
// the converted slice. The block-scaled, D = A B^T + C0 and cta_group::2
// pair kernels are pinned by their exact instruction counts below.
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_sm100_kernels.py %t.mlir %t.json
// RUN: tile-compile --check %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: tile-opt %t.mlir --tile-verify-kernels -o /dev/null
// RUN: %python %tile_src_root/test/Compile/Inputs/ptx_instruction_counts.py %t.ptx | FileCheck %s --check-prefix=COUNTS
// RUN: %if ptxas %{ ptxas -arch=sm_100a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: .entry gemm_sm100_bf16_tn_128x256x64_s4(
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: tcgen05.fence::after_thread_sync
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// The stage's commit follows its MMAs; the tile's commit (counted below)
// sits wherever LLVM places the K loop's exit block.
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// Four 64-column slices of the 256-column accumulator.
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.wait::ld.sync.aligned
// CHECK-COUNT-8: st.shared.v4.b32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.fence::before_thread_sync
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// CHECK-LABEL: .entry gemm_sm100_e4m3_tn_128x256x128_s4(
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4

// The block-scaled MMAs: scale ids 0-3 (bits 29-30 for A, 4-5 for B) in
// the instruction descriptors of the stage's four MMAs.
// CHECK-LABEL: .entry gemm_sm100_mxe4m3_tn_128x128x128_s4(
// CHECK: mov.b32 {{.*}}, 144703488;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK: mov.b32 {{.*}}, 681574416;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK: mov.b32 {{.*}}, 1218445344;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// CHECK: mov.b32 {{.*}}, 1755316272;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32

// Every asynchronous-unit instruction of the other forms, counted per
// kernel (ptx_instruction_counts.py), so a changed count fails.
// Block-scaled e4m3: per stage A and B (2-D maps) and their scale atoms
// (4-D [K tile][block][32][16] maps), the atoms copied into tensor memory
// (2 x tcgen05.cp 32x128b.warpx4, every partition), 4 block-scaled MMAs.
// Dense bf16: a commit per stage and one per tile.
// COUNTS: gemm_sm100_bf16_tn_128x256x64_s4 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_128x256x64_s4 tcgen05.dealloc
// COUNTS-LABEL: gemm_sm100_mxe4m3_tn_128x128x128_s4 cp.async.bulk.commit_group 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 cp.async.bulk.wait_group 1{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 cp.async.bulk.wait_group.read 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.cp.cta_group::1.32x128b.warpx4 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.dealloc.cta_group::1.sync.aligned.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.fence::after_thread_sync 4{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.fence::before_thread_sync 3{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.ld.sync.aligned.32x32b.x64.b32 2{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard 4{{$}}
// COUNTS-NEXT: gemm_sm100_mxe4m3_tn_128x128x128_s4 tcgen05.wait::ld.sync.aligned 2{{$}}
// COUNTS-NOT: gemm_sm100_mxe4m3_tn_128x128x128_s4 

// D = A B^T + C0: A, B and four 128x32 f32 slices of C0 loaded by TMA;
// each slice copied into the accumulator (4 x tcgen05.cp 128x256b) and its
// slot released by a commit (4 commits), then 4 MMAs per stage.
// COUNTS-LABEL: gemm_sm100_bf16_tn_addc_128x128x64_s4 cp.async.bulk.commit_group 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 6{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 cp.async.bulk.wait_group 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 cp.async.bulk.wait_group.read 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 6{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.cp.cta_group::1.128x256b 16{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.dealloc.cta_group::1.sync.aligned.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.fence::after_thread_sync 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.fence::before_thread_sync 3{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.ld.sync.aligned.32x32b.x64.b32 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.mma.cta_group::1.kind::f16.collector::a::discard 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_addc_128x128x64_s4 tcgen05.wait::ld.sync.aligned 2{{$}}
// COUNTS-NOT: gemm_sm100_bf16_tn_addc_128x128x64_s4 

// The pair (cluster of 2): cta_group 2 allocation, both CTAs' loads
// completing on the leader's barrier (one mapa, hoisted; a second for the
// epilogue's release on the leader's acc_empty), 4 x M 256 MMAs per stage,
// the stage release and the finished accumulator multicast, the cluster
// barriers after the set-up and before the release.
// COUNTS-LABEL: gemm_sm100_bf16_tn_256x256x64_s4_pair barrier.cluster.arrive.aligned 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair barrier.cluster.wait.aligned 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair cp.async.bulk.commit_group 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair cp.async.bulk.wait_group 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair cp.async.bulk.wait_group.read 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair mapa.shared::cluster.u64 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair mbarrier.arrive.release.cluster.shared::cluster.b64 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.dealloc.cta_group::2.sync.aligned.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.fence::after_thread_sync 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.fence::before_thread_sync 3{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.ld.sync.aligned.32x32b.x64.b32 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.mma.cta_group::2.kind::f16.collector::a::discard 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair tcgen05.wait::ld.sync.aligned 4{{$}}
// COUNTS-NOT: gemm_sm100_bf16_tn_256x256x64_s4_pair 

// Two pairs sharing A: each CTA multicasts half of its rows of A (one
// load per branch on the pair index) and loads its half of B unicast.
// COUNTS-LABEL: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 barrier.cluster.arrive.aligned 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 barrier.cluster.wait.aligned 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 cp.async.bulk.commit_group 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 cp.async.bulk.wait_group 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 cp.async.bulk.wait_group.read 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 mapa.shared::cluster.u64 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 mbarrier.arrive.release.cluster.shared::cluster.b64 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 2{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.dealloc.cta_group::2.sync.aligned.b32 1{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.fence::after_thread_sync 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.fence::before_thread_sync 3{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.ld.sync.aligned.32x32b.x64.b32 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.mma.cta_group::2.kind::f16.collector::a::discard 4{{$}}
// COUNTS-NEXT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 tcgen05.wait::ld.sync.aligned 4{{$}}
// COUNTS-NOT: gemm_sm100_bf16_tn_256x256x64_s4_pair_mc2 

// Eight kernels, none with a stack frame or a spill.
// PTXAS-NOT: error
// PTXAS-COUNT-8: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: bytes stack frame

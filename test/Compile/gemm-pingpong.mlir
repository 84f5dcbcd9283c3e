// The ping-pong GEMMs (bench/Kernels/gen_gemm_kernels.py, pingpong_kernel:
// each consumer warpgroup owns whole 128 x 128 tiles, the tiles alternate
// between them): proven by --tile-verify-kernels, assembled with no spills
// and no serialized wgmma. Without the hand-over of the ring between the
// warpgroups (named barriers 3 and 4) the second warpgroup waits for its
// first stage a whole tile of phases ahead, takes an old phase of the full
// barrier for its own and reads a stage still loading: the pipeline
// simulation reports it.
// REQUIRES: ptxas
// RUN: %python %tile_src_root/bench/Kernels/gen_gemm_kernels.py %t.mlir --kernels gemm_bf16_tn_128x128x64_s4_pingpong,gemm_bf16_tn_128x128x64_s4_pingpong_bias_gelu
// RUN: tile-compile --check --remarks %t.mlir -o %t.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: sed -e '/_turn_id) threads/d' %t.mlir > %t.no-handover.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-handover.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=HANDOVER
//
// QUIET-NOT: remark
// QUIET-NOT: error
// QUIET-NOT: warning
//
// PTXAS-NOT: C751
// PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C751
//
// A warpgroup's 128 x 128 tile is two m64n128 wgmmas per K16 step; the
// turns pass through bar.sync / bar.arrive of 256 threads.
// PTX-LABEL: .entry gemm_bf16_tn_128x128x64_s4_pingpong(
// The warpgroup index, which picks the ring slots a consumer waits on,
// broadcast from lane 0 (warp-uniform for ptxas; gen_gemm_kernels.py,
// warpgroup_index).
// PTX:       setmaxnreg.inc.sync.aligned.u32
// PTX:       shfl.sync.idx.b32 {{.*}}, 0, 31, -1;
// PTX:       bar.sync {{.*}}, 256;
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX:       bar.arrive {{.*}}, 256;
//
// HANDOVER: error: thread {{[0-9]+}} (warpgroup 2, warp {{[0-9]+}}, lane 0) reads [0, 0..127, 0..63] of the shared buffer on line {{[0-9]+}} while the copy into [0, 0..127, 0..63] of the shared buffer on line {{[0-9]+}} (completing on mbarrier 0 of the mbarrier group on line {{[0-9]+}}) has not completed

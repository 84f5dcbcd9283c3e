// examples/cp_async_pipeline.mlir: an sm_80 kernel whose cp.async copies
// complete through cp.async groups. It passes the lowering checks and the
// pipeline simulation with no remark, needs no mbarrier (PTX ISA 7.0 is
// enough), and assembles for sm_80 and, compiled again, for sm_90a.
// RUN: tile-compile --check %tile_src_root/examples/cp_async_pipeline.mlir --chip sm_80 -o %t.sm_80.ptx
// RUN: FileCheck %s < %t.sm_80.ptx
// RUN: tile-compile --check %tile_src_root/examples/cp_async_pipeline.mlir --chip sm_90a -o %t.sm_90a.ptx
// RUN: FileCheck %s < %t.sm_90a.ptx
// RUN: tile-opt --tile-verify-kernels=simulation-remarks %tile_src_root/examples/cp_async_pipeline.mlir -o /dev/null 2>&1 | count 0
// RUN: %if ptxas %{ ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}

// RUN: not grep mbarrier %t.sm_80.ptx %t.sm_90a.ptx

// Without the barrier after the read, the first warp to loop issues the
// next tile's copy into the stage the other warps still read. Each thread's
// vectors are spread over the stage's rows (not the rows it reads), so the
// refill meets the others' reads: reported.
// RUN: sed '/tile.load %%ring\[%%stage, 0, 0\]/{n;/gpu.barrier/d;}' %tile_src_root/examples/cp_async_pipeline.mlir > %t.no-read-barrier.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-read-barrier.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=REFILL
// REFILL: error: thread {{[0-9]+}} ({{.*}}) reads [0, {{[0-9.]+}}, 0..63] of the shared buffer on line {{[0-9]+}}, which a cp.async copy into [0, 0..31, 0..63] of the shared buffer on line {{[0-9]+}} fills, but only 32 of its 128 threads issued their share

// The 16-byte vectors (the emitted code also has the 8- and 4-byte paths a
// less aligned tensor would take); one group per tile, waited for with
// the next tile's in flight; the barrier; 16-byte shared loads.
// CHECK: .entry scale_rows(
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.commit_group;
// CHECK-DAG: cp.async.wait_group {{[[:space:]]*}}1;
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: bar.sync {{[[:space:]]*}}0;

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

// The 16-byte vectors (the emitted code also has the 8- and 4-byte paths a
// less aligned tensor would take); one group per tile, waited for with
// the next tile's in flight; the barrier; 16-byte shared loads.
// CHECK: .entry scale_rows(
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.commit_group;
// CHECK-DAG: cp.async.wait_group {{[[:space:]]*}}1;
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: bar.sync {{[[:space:]]*}}0;

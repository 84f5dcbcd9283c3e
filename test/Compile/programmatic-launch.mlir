// A kernel that runs `nvvm.griddepcontrol wait` before it reads what the
// kernel before it wrote is marked `programmatic_launch` in the manifest
// (TileRuntime launches it with programmatic stream serialization); one
// that only lets its dependents launch early, or neither, is not.
// RUN: tile-compile %s --chip sm_90a -o %t.ptx --manifest %t.json
// RUN: FileCheck %s < %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK:      "name": "consumer",
// CHECK-NEXT: "params":
// CHECK:      "programmatic_launch": true,
// CHECK:      "name": "producer",
// CHECK-NOT:  "programmatic_launch"
// CHECK:      "name": "plain",
// CHECK-NOT:  "programmatic_launch"

// PTX-LABEL: .entry consumer(
// PTX:       griddepcontrol.wait;
// PTX-LABEL: .entry producer(
// PTX:       griddepcontrol.launch_dependents;

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @consumer(%out: memref<?xf32, 1>, %in: memref<?xf32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %tid = gpu.thread_id x
      nvvm.griddepcontrol wait
      %v = memref.load %in[%tid] : memref<?xf32, 1>
      memref.store %v, %out[%tid] : memref<?xf32, 1>
      gpu.return
    }
    gpu.func @producer(%out: memref<?xf32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      nvvm.griddepcontrol launch_dependents
      %tid = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%tid] : memref<?xf32, 1>
      gpu.return
    }
    gpu.func @plain(%out: memref<?xf32, 1>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %tid = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%tid] : memref<?xf32, 1>
      gpu.return
    }
  }
}

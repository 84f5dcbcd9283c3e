// examples/kernel_versions.mlir: two versions of one kernel. The manifest
// says what each version's copies need of each tensor (tma: 16 bytes,
// ldgsts: 4) and that the second is a version of the first; both pass the
// kernel checks (the cooperative cp.async copy included in the pipeline
// simulation) and assemble.
// RUN: tile-compile --check %tile_src_root/examples/kernel_versions.mlir --chip sm_90a -o %t.ptx --manifest %t.json
// RUN: FileCheck %s < %t.json
// RUN: tile-opt --tile-verify-kernels=simulation-remarks %tile_src_root/examples/kernel_versions.mlir -o /dev/null 2>&1 | count 0
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK:      "args": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "alignment": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "by": "tma",
// CHECK-NEXT:         "bytes": 16,
// CHECK-NEXT:         "strides": [
// CHECK-NEXT:           0
// CHECK-NEXT:         ]
// CHECK:          "index": 0,
// CHECK:          "alignment": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "by": "tma",
// CHECK-NEXT:         "bytes": 16,
// CHECK:          "index": 1,
// CHECK:      "name": "tile_copy"
// CHECK-NOT:  "version_of"
// CHECK:      "args": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "alignment": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "by": "ldgsts",
// CHECK-NEXT:         "bytes": 4,
// CHECK-NEXT:         "strides": [
// CHECK-NEXT:           0
// CHECK-NEXT:         ]
// CHECK:          "index": 0,
// CHECK:          "alignment": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "by": "tma",
// CHECK-NEXT:         "bytes": 16,
// CHECK:          "index": 1,
// CHECK:      "name": "tile_copy_ldgsts",
// CHECK:      "version_of": "tile_copy"

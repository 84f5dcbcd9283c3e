// The README's hello kernel, as written there: its IR block is the
// examples/hello.mlir file (less the file's two-line header), verifies with
// no remark, compiles with the lowering checked, and the README's
// tile-compile command runs as written (tools from this build, outputs in
// the test's directory) and assembles.
// RUN: python3 %S/readme_blocks.py %tile_src_root/README.md mlir 0 > %t.readme.mlir
// RUN: tail -n +3 %tile_src_root/examples/hello.mlir | diff - %t.readme.mlir
// RUN: tile-opt --tile-verify-kernels %t.readme.mlir -o /dev/null 2>&1 | count 0
// RUN: tile-compile %t.readme.mlir --chip sm_90a --check -o - | FileCheck %s
// RUN: python3 %S/readme_blocks.py %tile_src_root/README.md sh 1 | sed -e 's|build/bin/||' -e 's|/tmp/hello|%t.hello|g' -e 's|examples/|%tile_src_root/examples/|' > %t.compile.sh
// RUN: grep -q -e '--check' %t.compile.sh
// RUN: %if ptxas %{ sh %t.compile.sh && FileCheck %s < %t.hello.ptx && test -s %t.hello.cubin %}

// CHECK: .target sm_90a
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

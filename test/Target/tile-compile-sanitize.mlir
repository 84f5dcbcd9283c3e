// tile-compile --sanitize: the checked kernel assembles (ptxas, no spills),
// exports the report slot the runtime fills, and the manifest lists the
// checks the runtime names in its errors. Without --sanitize none of it.
// REQUIRES: ptxas
// RUN: tile-compile --sanitize --sanitize-timeout-ms 50 %tile_src_root/examples/hopper_gemm.mlir -o %t.ptx --cubin %t.cubin --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: tile-compile %tile_src_root/examples/hopper_gemm.mlir -o %t.plain.ptx --manifest %t.plain.json
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.ptx
// RUN: FileCheck %s --check-prefix=PLAIN-MANIFEST < %t.plain.json
// RUN: not tile-compile --sanitize --sanitize-timeout-ms 0 %tile_src_root/examples/hello.mlir -o %t.zero.ptx 2>&1 | FileCheck %s --check-prefix=ZERO
//
// PTX: .visible .global .align 8 .u64 __tile_sanitize_report;
// PTX: .global .align 4 .u32 __tile_sanitize_claim;
// PTX: .func __tile_sanitize_fail(
// PTX: atom{{.*}}.global.cas.b32 {{.*}}[__tile_sanitize_claim], 0, 1;
// PTX: membar.sys;
// PTX: trap;
// PTX: .entry hopper_gemm(
// PTX: mov.u64 {{.*}}%globaltimer;
// PTX: mbarrier.try_wait.parity.shared{{.*}}.b64 {{.*}};
// The 50 ms timeout, in nanoseconds.
// PTX: 50000000
// PTX: call.uni __tile_sanitize_fail,
//
// MANIFEST: "sanitize_checks": [
// MANIFEST: "kind": "mbarrier-wait-timeout",
// MANIFEST-NEXT: "loc": "{{.*}}hopper_gemm.mlir:{{[0-9]+}}:{{[0-9]+}}",
// MANIFEST-NEXT: "what": "nvgpu.mbarrier.try_wait.parity of the mbarrier group (3) at {{.*}}"
// MANIFEST: "kind": "shared-region",
//
// PTXAS: Compiling entry function 'hopper_gemm' for 'sm_90a'
// PTXAS-NOT: spill stores
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
//
// PLAIN-NOT: __tile_sanitize
// PLAIN-NOT: globaltimer
// PLAIN-MANIFEST: "sanitize_checks": []
//
// ZERO: --tile-sanitize: timeout-ms must be at least 1

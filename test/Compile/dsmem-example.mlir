// examples/dsmem_copy.mlir through tile-compile for both chips: the PTX
// holds the mapa'd bulk copy and the cluster launch shape, ptxas accepts it,
// and the manifest records the kernel's parameters, cluster dims, shared
// bytes and the dispatch decision.
// RUN: tile-compile --check %tile_src_root/examples/dsmem_copy.mlir --chip sm_90a -o %t.90.ptx --manifest %t.90.json --explain 2> %t.90.remarks
// RUN: FileCheck %s --check-prefixes=PTX,PTX90 < %t.90.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.90.json
// RUN: FileCheck %s --check-prefix=EXPLAIN < %t.90.remarks
// RUN: tile-compile --check %tile_src_root/examples/dsmem_copy.mlir -o %t.100.ptx
// RUN: FileCheck %s --check-prefixes=PTX,PTX100 < %t.100.ptx
// RUN: %if ptxas %{ ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin %}
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.100.ptx -o %t.100.cubin %}
// RUN: %if ptxas %{ tile-compile --check %tile_src_root/examples/dsmem_copy.mlir --chip sm_90a -o %t.c.ptx --cubin %t.c.cubin --manifest %t.c.json %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=CUBIN < %t.c.json %}

// PTX90: .version 8.0
// PTX90: .target sm_90a
// PTX100: .version 8.6
// PTX100: .target sm_100a
// The tile is the whole dynamic segment (16-byte aligned, no rounding).
// PTX: .extern .shared .align 16 .b8 __tile_dynamic_shared[];
// PTX-LABEL: .entry dsmem_copy(
// PTX: .maxntid 128, 1, 1
// PTX: .reqnctapercluster 2, 1, 1
// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init.release.cluster;
// PTX: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [__mbarrier], {{%r[0-9]+}};
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: fence.proxy.async.shared::cta;
// PTX: mapa.shared::cluster.u64 {{.*}}, 1;
// PTX: mapa.shared::cluster.u64 {{.*}}, 1;
// PTX: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [{{%rd[0-9]+}}], {{%r[0-9]+}}, [{{%rd[0-9]+}}];
// PTX-NOT: cp.async.bulk
// PTX: barrier.cluster.wait.aligned;

// MANIFEST: "chip": "sm_90a"
// The source arguments a host passes: two static 128x64 f16 memrefs.
// MANIFEST: "args": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "element_bits": 16,
// MANIFEST-NEXT: "element_type": "f16",
// MANIFEST-NEXT: "index": 0,
// MANIFEST-NEXT: "kind": "memref",
// MANIFEST-NEXT: "offset": 0,
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "strides": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 1
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "type": "memref<128x64xf16, 1>"
// MANIFEST: "index": 1,
// MANIFEST-NEXT: "kind": "memref",
// MANIFEST: "block_dims": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// MANIFEST: "cluster_dims": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// MANIFEST: "dispatch": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "loc": "{{.*}}dsmem_copy.mlir:{{[0-9]+}}:{{[0-9]+}}",
// MANIFEST-NEXT: "op": "tile.copy_async",
// MANIFEST-NEXT: "variant": "dsmem"
// MANIFEST: "dynamic_shared_bytes": 16496,
// MANIFEST: "name": "dsmem_copy",
// The two memrefs expand into 7 parameters each.
// MANIFEST: "index": 1,
// MANIFEST-NEXT: "kind": "pointer",
// MANIFEST-NEXT: "source": {
// MANIFEST-NEXT: "arg": 0,
// MANIFEST-NEXT: "part": "aligned"
// MANIFEST: "index": 8,
// MANIFEST-NEXT: "kind": "pointer",
// MANIFEST-NEXT: "source": {
// MANIFEST-NEXT: "arg": 1,
// MANIFEST-NEXT: "part": "aligned"
// MANIFEST: "index": 13,
// MANIFEST-NOT: "index": 14,
// 16 KiB tile + the 8-byte mbarrier, as ptxas reports it.
// MANIFEST: "static_shared_bytes": 8,
// MANIFEST-NEXT: "tensor_maps": []
// MANIFEST: "ptx": "{{.*}}.90.ptx",
// MANIFEST-NEXT: "version": 4

// EXPLAIN: dsmem_copy.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: selected dsmem (priority 10) on sm_90a
// EXPLAIN-NOT: see current operation

// CUBIN: "cubin": "{{.*}}.c.cubin"

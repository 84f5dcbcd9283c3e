// The forward-attention family (bench/Kernels/gen_attention_kernels.py):
// every kernel compiles with translation validation, --tile-verify-kernels
// proves each one (no remark, no error), ptxas assembles them with no
// spills; examples/flash_attention.mlir is the generator's commented output.
// REQUIRES: ptxas
// The sanitizer tree compiles one kernel of each form instead
// (kernel-families-sanitized.mlir).
// UNSUPPORTED: sanitizers
// RUN: %python %tile_src_root/bench/Kernels/gen_attention_kernels.py %t.mlir %t.cases.json
// Every kernel is simulated to the end (the persistent ones in the grid of
// their tile.sample_grid, each CTA walking several tiles; the varlen ones
// with the sequence offsets of their tile.sample_contents): --remarks
// prints the simulation's "not run" and "stopped" remarks too.
// RUN: tile-compile --check --remarks %t.mlir -o %t.ptx --manifest %t.json 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// The kernels' own K/V blocks at d = 256 (the case list says the same,
// below): 80 keys in the overlap form, 64 in the plain one.
// RUN: FileCheck %s --check-prefix=BN < %t.mlir
// BN-LABEL: gpu.func @attention_d256_full_bf16(
// BN:       %bn = arith.constant 80 : index
// BN-LABEL: gpu.func @attention_d256_causal_bf16(
// BN:       %bn = arith.constant 64 : index
// BN-LABEL: gpu.func @attention_varlen_d256_full_bf16(
// BN:       %bn = arith.constant 80 : index
// BN-LABEL: gpu.func @attention_varlen_d256_causal_bf16(
// BN:       %bn = arith.constant 64 : index
// BN-LABEL: gpu.func @attention_d256_causal_bf16_overlap(
// BN:       %bn = arith.constant 80 : index
// Without the warpgroup's barrier between its warps' O and LSE stores and
// its leader's TMA store, the store reads rows that other warps stored
// unordered: reported in every kernel, the ones with one CTA per tile
// (no next tile's write to race with) included.
// RUN: sed '/tile.named_barrier id(%%wg_barrier) threads(%%wg_threads)/d' %t.mlir > %t.no-epilogue-barrier.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-epilogue-barrier.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNORDERED
// UNORDERED-COUNT-28: error: thread {{[0-9]+}} (warpgroup 1, warp 4, lane 0) reads {{.*}}, which thread {{[0-9]+}} ({{.*}}) stored without synchronizing with it after the store
// UNORDERED-NOT: error
// Without the K/V loop's release of block j + 1's K (the 24 kernels of the
// overlap forms), the producer's next load into that stage never starts:
// each of them deadlocks, the varlen ones too (their CTA 0 runs the last
// query block of a sequence of 530 queries against 570 keys: five to
// nine blocks, the last a tail).
// RUN: sed '/nvgpu.mbarrier.arrive %%bars\[%%eb_n\]/d' %t.mlir > %t.no-k-release.mlir
// RUN: not tile-opt --tile-verify-kernels %t.no-k-release.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=K-RELEASE
// K-RELEASE-COUNT-24: error: the kernel deadlocks
// K-RELEASE-NOT: error
// RUN: ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=CASES < %t.cases.json
// The LSE column (memref<?x1xf32>, rows 4 bytes apart) is stored by TMA
// through a map with no global stride: the manifest's need covers its
// address only, so TileRuntime does not refuse the column.
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// MANIFEST:      "bytes": 16,
// MANIFEST-NEXT: "strides": [
// MANIFEST-NEXT: 0,
// MANIFEST:      "strides": []
// MANIFEST-NEXT: }
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "element_bits": 32,
// MANIFEST:      "type": "memref<?x1xf32, 1>"
// RUN: %python %tile_src_root/bench/Kernels/gen_attention_kernels.py %t.example.mlir %t.example.json --example 128 causal bf16
// RUN: diff %t.example.mlir %tile_src_root/examples/flash_attention.mlir
// RUN: tile-compile --check --remarks %tile_src_root/examples/flash_attention.mlir -o %t.example.ptx 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
//
// QUIET-NOT: remark
// QUIET-NOT: error
// QUIET-NOT: warning
//
// Twelve dense kernels, twelve varlen ones and the four long-sequence ones,
// none spilling, none with wgmma serialized.
// PTXAS-NOT: C751
// PTXAS-COUNT-28: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C751
//
// CASES-COUNT-12: "kernel": "attention_d
// CASES-COUNT-12: "kernel": "attention_varlen_d
// The long-sequence kernels: 192-row tiles, three consumer warpgroups
// (512 threads), chosen from Sq = 2048.
// CASES:      "kernel": "attention_d64_full_bf16_m192"
// CASES:      "block_m": 192,
// CASES:      "threads": 512,
// CASES:      "persistent": true,
// CASES:      "min_seq_q": 2048
// CASES:      "kernel": "attention_d64_full_f16_m192"
// d = 256 causal from Sq = 2048: one CTA per tile, the overlap form in
// 80-key blocks.
// CASES:      "kernel": "attention_d256_causal_bf16_overlap"
// CASES:      "form": "ws-overlap",
// CASES-NEXT: "block_m": 128,
// CASES-NEXT: "block_n": 80,
// CASES:      "persistent": false,
// CASES:      "min_seq_q": 2048
//
// The varlen kernels read packed sequences through ragged tensor maps:
// rank 5 (a wrapping dim, the end offset, heads, the sequence's rows, the
// head dim), as many issues per tile as the dense kernels' rank-4 maps.
// RUN: FileCheck %s --check-prefix=RAGGED < %t.ptx
// RAGGED-LABEL: .entry attention_varlen_d64_full_bf16(
// RAGGED-COUNT-7: cp.async.bulk.tensor.5d
// RAGGED-NOT: cp.async.bulk.tensor.{{[2-5]}}d
// RAGGED: .entry
// RUN: FileCheck %s --check-prefix=VARLEN < %t.cases.json
// VARLEN:      "kernel": "attention_varlen_d128_causal_bf16"
// VARLEN:      "persistent": false,
// VARLEN-NEXT: "tiles_per_unit": 2,
// VARLEN-NEXT: "varlen": true
// The causal varlen kernel at d = 256 is the plain form: 64-key blocks.
// VARLEN:      "kernel": "attention_varlen_d256_causal_bf16"
// VARLEN:      "form": "ws",
// VARLEN-NEXT: "block_m": 128,
// VARLEN-NEXT: "block_n": 64,
//
// The persistent kernels say so (the launcher's grid depends on it):
// RUN: FileCheck %s --check-prefix=PERSISTENT < %t.cases.json
// PERSISTENT:      "kernel": "attention_d64_full_bf16"
// PERSISTENT:      "form": "ws-pingpong",
// PERSISTENT:      "persistent": true,
// PERSISTENT:      "kernel": "attention_d128_full_bf16"
// PERSISTENT:      "persistent": true,
// PERSISTENT-NEXT: "tiles_per_unit": 1
// PERSISTENT:      "kernel": "attention_d128_causal_bf16"
// PERSISTENT:      "form": "ws-pingpong",
// PERSISTENT:      "persistent": true,
// PERSISTENT-NEXT: "tiles_per_unit": 2
// PERSISTENT:      "kernel": "attention_d256_full_bf16"
// PERSISTENT:      "form": "ws-overlap",
// PERSISTENT-NEXT: "block_m": 128,
// PERSISTENT-NEXT: "block_n": 80,
// PERSISTENT:      "persistent": false,
// PERSISTENT:      "kernel": "attention_d256_causal_bf16"
// PERSISTENT:      "form": "ws",
// PERSISTENT-NEXT: "block_m": 128,
// PERSISTENT-NEXT: "block_n": 64,
// PERSISTENT:      "persistent": true,

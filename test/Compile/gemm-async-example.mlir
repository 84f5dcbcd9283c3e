// examples/gemm_async.mlir (128x128x64 f16 GEMM): TMA loads A (K-major) and B
// (K x N, MN-major) into 128B-swizzled tiles; one thread issues 4 x
// tcgen05.mma.kind::f16 of K 16 into tensor-memory columns 256..383, each with
// its instruction descriptor 0x08210010 (f16 -> f32, M 128, N 128, B MN-major)
// and descriptors advanced by 32 B (A) and 2048 B (B) per K step.
// RUN: tile-compile --check %tile_src_root/examples/gemm_async.mlir -o %t.ptx --manifest %t.json
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s < %t.json
// RUN: %if ptxas %{ ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

// PTX-COUNT-2: cp.async.bulk.tensor
// PTX: mov.b32 [[IDESC:%r[0-9]+]], 136380432;
// PTX: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D:%r[0-9]+]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
// PTX-COUNT-3: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[IDESC]], {{%p[0-9]+}};
// PTX-NOT: tcgen05.mma
// PTX: tcgen05.commit.cta_group::1

// CHECK: "variant": "tma"
// CHECK: "variant": "tma"
// CHECK: "variant": "tcgen05"
// CHECK: "tensor_maps": [

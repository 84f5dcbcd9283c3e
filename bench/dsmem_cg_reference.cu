// The reference for the DSMEM benchmark, in CUDA C++ with cooperative
// groups: clusters of 2; every iteration each CTA (128 threads) stores its
// BYTES-byte source tile into the peer CTA's destination tile through
// map_shared_rank (16-byte st.shared::cluster per thread), with one
// cluster.sync() per iteration -- the work dsmem_ping_<BYTES> does with one
// bulk copy. Compiled by nvcc to a cubin (no runtime library); launched
// through TileRuntime::launchRaw.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <int BYTES>
__device__ void pingPong(long long iterations) {
  __shared__ int4 src[BYTES / 16];
  __shared__ int4 dst[BYTES / 16];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < BYTES / 16; i += blockDim.x)
    src[i] = make_int4(i, i + 1, i + 2, int(cluster.block_rank()));
  int4 *peer = cluster.map_shared_rank(dst, cluster.block_rank() ^ 1);
  for (long long it = 0; it < iterations; ++it) {
    cluster.sync();
    for (int i = threadIdx.x; i < BYTES / 16; i += blockDim.x)
      peer[i] = src[i];
  }
  cluster.sync();
  // Keep the copies observable.
  if (threadIdx.x == 0 && dst[0].w == 12345)
    src[0].x = 0;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    dsmem_cg_ping_8192(long long iterations) {
  pingPong<8192>(iterations);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    dsmem_cg_ping_16384(long long iterations) {
  pingPong<16384>(iterations);
}

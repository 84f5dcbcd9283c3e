// wgmma anchors of the PTX-semantics model (issue: "anchored to real H100
// behaviour"). One warpgroup copies two shared-memory images in verbatim,
// builds the A and B matrix descriptors the way the tcgen05 emitters do
// (descriptor template from the host's encoder OR the start-address field,
// plus the issue's byte offset >> 4) and runs ONE wgmma.mma_async
// m64n128k16 (f16, either major) or m64n128k8 (tf32, K-major) with D
// overwritten; D (64 x 128 f32) goes to global in row-major order.
//
// CUDA C++ because the device image has no MLIR; inline PTX because nvcc has
// no wgmma intrinsic. Compiled by nvcc -arch=sm_90a -cubin at build time
// and launched with tile::runtime::launchRaw by TileModelAnchorTests.
#include <cstdint>

namespace {

constexpr int kN = 128;

__device__ uint32_t sharedAddress(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ uint64_t descriptor(uint64_t descriptorTemplate, const void *base,
                               uint32_t byteOffset) {
  uint64_t start = (sharedAddress(base) & 0x3FFFF) >> 4;
  return (descriptorTemplate | start) + (byteOffset >> 4);
}

/// Copies both images in, fences them into the async proxy.
__device__ void stage(uint8_t *sA, const uint8_t *gA, uint32_t aBytes,
                      uint8_t *sB, const uint8_t *gB, uint32_t bBytes) {
  for (uint32_t i = threadIdx.x * 16; i < aBytes; i += blockDim.x * 16)
    *reinterpret_cast<uint4 *>(sA + i) = *reinterpret_cast<const uint4 *>(gA + i);
  for (uint32_t i = threadIdx.x * 16; i < bBytes; i += blockDim.x * 16)
    *reinterpret_cast<uint4 *>(sB + i) = *reinterpret_cast<const uint4 *>(gB + i);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}

/// D fragment of m64nNk*: register i of thread t holds row
/// 16 warp + lane/4 + 8 ((i/2)%2), column 8 (i/4) + 2 (lane%4) + i%2.
__device__ void storeD(const float (&d)[64], float *out) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = 0; i < 64; ++i) {
    int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    int col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    out[row * kN + col] = d[i];
  }
}

template <int TransposeA, int TransposeB>
__device__ void f16Anchor(const uint8_t *gA, uint32_t aBytes,
                          const uint8_t *gB, uint32_t bBytes,
                          uint64_t aTemplate, uint32_t aOffset,
                          uint64_t bTemplate, uint32_t bOffset, float *out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t *sA = smem, *sB = smem + ((aBytes + 1023) / 1024) * 1024;
  stage(sA, gA, aBytes, sB, gB, bBytes);
  uint64_t da = descriptor(aTemplate, sA, aOffset);
  uint64_t db = descriptor(bTemplate, sB, bOffset);
  float d[64];
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, %67, %68;\n}\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]),
      "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]),
      "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]),
      "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]),
      "=f"(d[32]), "=f"(d[33]), "=f"(d[34]), "=f"(d[35]), "=f"(d[36]), "=f"(d[37]), "=f"(d[38]), "=f"(d[39]),
      "=f"(d[40]), "=f"(d[41]), "=f"(d[42]), "=f"(d[43]), "=f"(d[44]), "=f"(d[45]), "=f"(d[46]), "=f"(d[47]),
      "=f"(d[48]), "=f"(d[49]), "=f"(d[50]), "=f"(d[51]), "=f"(d[52]), "=f"(d[53]), "=f"(d[54]), "=f"(d[55]),
      "=f"(d[56]), "=f"(d[57]), "=f"(d[58]), "=f"(d[59]), "=f"(d[60]), "=f"(d[61]), "=f"(d[62]), "=f"(d[63])
      : "l"(da), "l"(db), "r"(0), "n"(TransposeA), "n"(TransposeB));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  storeD(d, out);
}

__device__ void tf32Anchor(const uint8_t *gA, uint32_t aBytes,
                           const uint8_t *gB, uint32_t bBytes,
                           uint64_t aTemplate, uint32_t aOffset,
                           uint64_t bTemplate, uint32_t bOffset, float *out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t *sA = smem, *sB = smem + ((aBytes + 1023) / 1024) * 1024;
  stage(sA, gA, aBytes, sB, gB, bBytes);
  uint64_t da = descriptor(aTemplate, sA, aOffset);
  uint64_t db = descriptor(bTemplate, sB, bOffset);
  float d[64];
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7]),
      "=f"(d[8]), "=f"(d[9]), "=f"(d[10]), "=f"(d[11]), "=f"(d[12]), "=f"(d[13]), "=f"(d[14]), "=f"(d[15]),
      "=f"(d[16]), "=f"(d[17]), "=f"(d[18]), "=f"(d[19]), "=f"(d[20]), "=f"(d[21]), "=f"(d[22]), "=f"(d[23]),
      "=f"(d[24]), "=f"(d[25]), "=f"(d[26]), "=f"(d[27]), "=f"(d[28]), "=f"(d[29]), "=f"(d[30]), "=f"(d[31]),
      "=f"(d[32]), "=f"(d[33]), "=f"(d[34]), "=f"(d[35]), "=f"(d[36]), "=f"(d[37]), "=f"(d[38]), "=f"(d[39]),
      "=f"(d[40]), "=f"(d[41]), "=f"(d[42]), "=f"(d[43]), "=f"(d[44]), "=f"(d[45]), "=f"(d[46]), "=f"(d[47]),
      "=f"(d[48]), "=f"(d[49]), "=f"(d[50]), "=f"(d[51]), "=f"(d[52]), "=f"(d[53]), "=f"(d[54]), "=f"(d[55]),
      "=f"(d[56]), "=f"(d[57]), "=f"(d[58]), "=f"(d[59]), "=f"(d[60]), "=f"(d[61]), "=f"(d[62]), "=f"(d[63])
      : "l"(da), "l"(db), "r"(0));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  storeD(d, out);
}

} // namespace

#define ANCHOR_PARAMS                                                          \
  const uint8_t *a, uint32_t aBytes, const uint8_t *b, uint32_t bBytes,        \
      uint64_t aTemplate, uint32_t aOffset, uint64_t bTemplate,                \
      uint32_t bOffset, float *out
#define ANCHOR_ARGS a, aBytes, b, bBytes, aTemplate, aOffset, bTemplate, bOffset, out

extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_kk(ANCHOR_PARAMS) { f16Anchor<0, 0>(ANCHOR_ARGS); }
extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_kmn(ANCHOR_PARAMS) { f16Anchor<0, 1>(ANCHOR_ARGS); }
extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_mnk(ANCHOR_PARAMS) { f16Anchor<1, 0>(ANCHOR_ARGS); }
extern "C" __global__ void __launch_bounds__(128)
    wgmma_f16_mnmn(ANCHOR_PARAMS) { f16Anchor<1, 1>(ANCHOR_ARGS); }
extern "C" __global__ void __launch_bounds__(128)
    wgmma_tf32_kk(ANCHOR_PARAMS) { tf32Anchor(ANCHOR_ARGS); }

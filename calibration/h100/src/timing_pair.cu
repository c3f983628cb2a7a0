// What slows a warp of timing.cu's throughput loop when a second warp shares its sub-partition?
// Warp `lw` (0, or 4 to swap the two warps' ages) runs the loop (512 independent LDS.32 loads of one
// conflict degree, as timing_warps.cu); one companion warp (`partner`: 4 or 0, the same sub-partition;
// 1, another) runs something else from the same start, long enough to outlast it: nothing, the same loop, dependent FFMA or IADD3 chains (1, 2 or 4
// of them: a quarter, half or all of the issue port, the FP or the integer pipe), or a dependent
// LDS.32 chain. Each warp records clock64() before its work and after it (its stores need the loads).
#include "timing_common.cuh"
#define CITERS 2048

template <int MODE>
__device__ __forceinline__ unsigned companion(unsigned a, unsigned seed) {
  float f0 = seed, f1 = seed + 1, f2 = seed + 2, f3 = seed + 3, m = 1.0001f, c = 0.5f;
  unsigned u0 = seed, u1 = seed + 1, u2 = seed + 2, u3 = seed + 3, v = 0;
#pragma unroll 16
  for (int i = 0; i < CITERS; i++) {
    if (MODE == 2 || MODE == 3 || MODE == 4) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f0) : "f"(m), "f"(c));
    if (MODE == 3 || MODE == 4) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f1) : "f"(m), "f"(c));
    if (MODE == 4) {
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f2) : "f"(m), "f"(c));
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f3) : "f"(m), "f"(c));
    }
    if (MODE == 5 || MODE == 6 || MODE == 7) asm volatile("add.u32 %0, %0, %1;" : "+r"(u0) : "r"(seed));
    if (MODE == 6 || MODE == 7) asm volatile("add.u32 %0, %0, %1;" : "+r"(u1) : "r"(seed));
    if (MODE == 7) {
      asm volatile("add.u32 %0, %0, %1;" : "+r"(u2) : "r"(seed));
      asm volatile("add.u32 %0, %0, %1;" : "+r"(u3) : "r"(seed));
    }
  }
  if (MODE == 8)
    for (int i = 0; i < CITERS / 8; i++) v = load<0>(a + v);
  if (MODE == 9) {  // FFMA x4 in a loop of one iteration's body: little code to fetch, a branch every 4
#pragma unroll 1
    for (int i = 0; i < CITERS; i++) {
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f0) : "f"(m), "f"(c));
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f1) : "f"(m), "f"(c));
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f2) : "f"(m), "f"(c));
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f3) : "f"(m), "f"(c));
    }
  }
  return (unsigned)(f0 + f1 + f2 + f3) + u0 + u1 + u2 + u3 + v;
}

template <int MODE>
__global__ void pair(int deg, long long* cyc, unsigned* sink, int zmask, unsigned lw, unsigned partner) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned w = threadIdx.x / 32, v = 0;
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_for(0, deg, threadIdx.x % 32);
  __syncthreads();
  long long t0 = clock64();
  if (w == lw || (MODE == 1 && w == partner)) {
#pragma unroll 16
    for (int i = 0; i < ITERS; i++) v += load<0>(a + ((i & zmask) << 12));
  } else if (w == partner && MODE) {
    v = companion<MODE>((unsigned)__cvta_generic_to_shared(smem), threadIdx.x);
  }
  sink[threadIdx.x] = v;
  long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x % 32 == 0) { cyc[2 * w] = t0; cyc[2 * w + 1] = t1; }
}

template <int MODE>
int run(int deg, unsigned lw, unsigned partner, long long* cyc, unsigned* sink) {
  long long c[16];
  for (int rep = 0; rep < 4; rep++) {  // rep 0 warms the instruction cache; printed too
    pair<MODE><<<1, 256>>>(deg, cyc, sink, 0, lw, partner);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c, cyc, 16 * 8, cudaMemcpyDeviceToHost));
    printf("P deg=%d mode=%d loop=%u partner=%u rep=%d loop=%lld,%lld partner=%lld,%lld\n", deg, MODE, lw, partner, rep, c[2 * lw],
           c[2 * lw + 1] - c[2 * lw], c[2 * partner] - c[2 * lw], c[2 * partner + 1] - c[2 * partner]);
  }
  return 0;
}

// `spread`: the loop on the warps of `loops`, companion MODE on the warps of `comps` (8 warps launched):
// do busy sub-partitions slow each other? Prints every warp's start (relative to the earliest) and cycles.
template <int MODE>
__global__ void spread(long long* cyc, unsigned* sink, int zmask, unsigned loops, unsigned comps) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned w = threadIdx.x / 32, v = 0;
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_for(0, 1, threadIdx.x % 32);
  __syncthreads();
  long long t0 = clock64();
  if (loops >> w & 1) {
#pragma unroll 16
    for (int i = 0; i < ITERS; i++) v += load<0>(a + ((i & zmask) << 12));
  } else if (comps >> w & 1) {
    v = companion<MODE>((unsigned)__cvta_generic_to_shared(smem), threadIdx.x);
  }
  sink[threadIdx.x] = v;
  long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x % 32 == 0) { cyc[2 * w] = t0; cyc[2 * w + 1] = t1; }
}

template <int MODE>
int run_spread(unsigned loops, unsigned comps, long long* cyc, unsigned* sink) {
  long long c[16];
  for (int rep = 0; rep < 4; rep++) {  // rep 0 warms the instruction cache; printed too
    spread<MODE><<<1, 256>>>(cyc, sink, 0, loops, comps);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c, cyc, 16 * 8, cudaMemcpyDeviceToHost));
    long long base = c[0];
    for (int w = 0; w < 8; w++) base = c[2 * w] < base ? c[2 * w] : base;
    printf("S mode=%d loops=0x%x comps=0x%x rep=%d", MODE, loops, comps, rep);
    for (int w = 0; w < 8; w++) printf(" %lld,%lld", c[2 * w] - base, c[2 * w + 1] - c[2 * w]);
    printf("\n");
  }
  return 0;
}

int main(int argc, char** argv) {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 16 * 8)); CK(cudaMalloc(&sink, 4096 * 4));
  if (argc > 1) {  // "spread"
    unsigned loops_alone[] = {0x1, 0xf, 0x11, 0x33, 0x77, 0xff};
    for (unsigned l : loops_alone)
      if (run_spread<0>(l, 0, cyc, sink)) return 1;
    unsigned comps[] = {0x1, 0x3, 0xf, 0x2, 0x4, 0x8, 0x6, 0xa, 0xc, 0xe};
    for (unsigned cm : comps) {
      if (run_spread<4>(cm & 1 ? 0 : 1, cm, cyc, sink) || run_spread<9>(cm & 1 ? 0 : 1, cm, cyc, sink)) return 1;
      if (!(cm & 1) && (run_spread<4>(0, cm, cyc, sink) || run_spread<9>(0, cm, cyc, sink))) return 1;
    }
    if (run_spread<4>(0x11, 0xee, cyc, sink) || run_spread<7>(0x1, 0xe, cyc, sink) || run_spread<7>(0x11, 0xee, cyc, sink)) return 1;
    return 0;
  }
  unsigned pairs[][2] = {{0, 4}, {0, 1}, {4, 0}};  // (loop warp, companion)
  for (int deg : {1, 2})
    for (auto& p : pairs)
      if (run<0>(deg, p[0], p[1], cyc, sink) || run<1>(deg, p[0], p[1], cyc, sink) || run<2>(deg, p[0], p[1], cyc, sink) ||
          run<3>(deg, p[0], p[1], cyc, sink) || run<4>(deg, p[0], p[1], cyc, sink) || run<5>(deg, p[0], p[1], cyc, sink) ||
          run<6>(deg, p[0], p[1], cyc, sink) || run<7>(deg, p[0], p[1], cyc, sink) || run<8>(deg, p[0], p[1], cyc, sink))
        return 1;
  return 0;
}

// Where do two loading warps on each of three or four sub-partitions lose their time (runs/2026-11-25-pair,
// `spread`: +7.3% and +13.2% over one sub-partition's pair)? timing.cu's throughput loop (16 independent
// LDS.32 a round, summed after the 16th), written as rounds, on the warps of `loops` (16 launched, warp w on
// sub-partition w % 4). CLK = 0: no clocks in the loop (the reference); CLK = 1: each round reads clock64()
// before its first load and after its 16th has issued, so `issue` sums the cycles the rounds take to issue
// their loads and the rest of the warp's cycles is waiting for the data (and the sums after it).
// Prints per warp `start,cycles,issue` (start relative to the earliest), 4 repetitions (rep 0 warms the
// instruction cache).
#include "timing_common.cuh"

template <int CLK>
__global__ void burst(int deg, long long* out, unsigned* sink, int zmask, unsigned loops) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned w = threadIdx.x / 32, v = 0;
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_for(0, deg, threadIdx.x % 32);
  long long issue = 0;
  __syncthreads();
  long long t0 = clock64();
  if (loops >> w & 1) {
#pragma unroll 1
    for (int i = 0; i < ITERS; i += 16) {
      unsigned x[16];
      long long s = CLK ? clock64() : 0;
#pragma unroll
      for (int k = 0; k < 16; k++) x[k] = load<0>(a + (((i + k) & zmask) << 12));
      if (CLK) issue += clock64() - s;
#pragma unroll
      for (int k = 0; k < 16; k++) v += x[k];
    }
  }
  sink[threadIdx.x] = v;
  long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x % 32 == 0) { out[3 * w] = t0; out[3 * w + 1] = t1; out[3 * w + 2] = issue; }
}

template <int CLK>
int run(int deg, unsigned loops, long long* out, unsigned* sink) {
  long long c[48];
  for (int rep = 0; rep < 4; rep++) {
    burst<CLK><<<1, 512>>>(deg, out, sink, 0, loops);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c, out, 48 * 8, cudaMemcpyDeviceToHost));
    long long base = c[0];
    for (int w = 0; w < 16; w++) base = c[3 * w] < base ? c[3 * w] : base;
    printf("B clk=%d deg=%d loops=0x%x rep=%d", CLK, deg, loops, rep);
    for (int w = 0; w < 16; w++)
      if (loops >> w & 1) printf(" %d:%lld,%lld,%lld", w, c[3 * w] - base, c[3 * w + 1] - c[3 * w], c[3 * w + 2]);
    printf("\n");
  }
  return 0;
}

int main() {
  long long* out; unsigned* sink; CK(cudaMalloc(&out, 48 * 8)); CK(cudaMalloc(&sink, 4096 * 4));
  unsigned masks[] = {0x1, 0x3, 0xf, 0x11, 0x33, 0x77, 0xff, 0x1f, 0x3f, 0x7f, 0x111, 0x777, 0xfff, 0x1111, 0xffff, 0x101, 0x303, 0x707, 0xf0f};
  for (int deg : {1, 2})
    for (unsigned m : masks)
      if (run<0>(deg, m, out, sink) || run<1>(deg, m, out, sink)) return 1;
  return 0;
}

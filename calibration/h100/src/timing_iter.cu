// The throughput loop of timing.cu with a clock64 stamp per warp before each block of 16 loads (32
// blocks of 16 = 512 loads), stored by lane 0 to global memory: where each warp is, block by block.
// Asks whether warps on different sub-partitions stay in lockstep through the loop (the timing model's
// warps do, for LDS.64 1-way at 4 warps, and collide) or drift apart.
#include "timing_common.cuh"

template <int OP>
__global__ void thri(int deg, long long* cyc, unsigned* sink, int zmask) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_for(OP, deg, threadIdx.x % 32);
  unsigned v = 0, w = threadIdx.x / 32;
  __syncthreads();
  for (int o = 0; o < ITERS / 16; o++) {
    long long t = clock64();
    if (threadIdx.x % 32 == 0) cyc[33 * w + o] = t;
#pragma unroll
    for (int i = 0; i < 16; i++) v += load<OP>(a + (((o * 16 + i) & zmask) << 12));
  }
  sink[threadIdx.x] = v;
  long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cyc[33 * w + 32] = t1;
  __syncthreads();
  sink[threadIdx.x] = v;
}

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 33 * 32 * 8)); CK(cudaMalloc(&sink, 4096 * 4));
  const char* names[] = {"LDS32", "LDS64", "LDS128", "LDSM4"};
  int runs[][3] = {{1, 1, 4}, {1, 1, 1}, {0, 2, 4}, {0, 2, 1}, {0, 1, 8}, {0, 1, 1}, {3, 1, 4}, {1, 1, 8}, {0, 4, 4}};  // op, ways, warps
  long long c[33 * 32];
  for (auto& r : runs)
    for (int rep = 0; rep < 3; rep++) {  // rep 0 warms the instruction cache
      int op = r[0], deg = r[1], warps = r[2];
      if (op == 0) thri<0><<<1, 32 * warps>>>(deg, cyc, sink, 0);
      if (op == 1) thri<1><<<1, 32 * warps>>>(deg, cyc, sink, 0);
      if (op == 3) thri<3><<<1, 32 * warps>>>(deg, cyc, sink, 0);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(c, cyc, 33 * warps * 8, cudaMemcpyDeviceToHost));
      long long base = c[0];
      for (int w = 0; w < warps; w++) base = c[33 * w] < base ? c[33 * w] : base;
      for (int w = 0; w < warps; w++) {
        printf("I op=%s deg=%d warps=%d rep=%d warp=%d", names[op], deg, warps, rep, w);
        for (int o = 0; o < 33; o++) printf(" %lld", c[33 * w + o] - base);
        printf("\n");
      }
    }
  return 0;
}

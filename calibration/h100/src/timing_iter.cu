// The throughput loop of timing.cu with a clock64 stamp per warp before each block of 16 loads (32
// blocks of 16 = 512 loads), stored by lane 0 to global memory: where each warp is, block by block.
// Asks whether warps on different sub-partitions stay in lockstep through the loop (the timing model's
// warps do, for LDS.64 1-way at 4 warps, and collide) or drift apart.
#include <cstdio>
#include <cstdint>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
#define SB 49152
#define ITERS 512

__device__ unsigned offset_for(int op, int deg, unsigned lane) {
  if (op == 0) { unsigned g = 32 / deg; return (lane % g) * 4 + (lane / g) * 128; }
  if (op == 1) { unsigned j = lane % 16, g = 16 / deg; return (lane / 16) * 4096 + (j % g) * 8 + (j / g) * 128; }
  if (op == 2) { unsigned j = lane % 8, g = 8 / deg; return (lane / 8) * 4096 + (j % g) * 16 + (j / g) * 128; }
  { unsigned r = lane % 8, g = 8 / deg; return (lane / 8) * 4096 + (r % g) * 16 + (r / g) * 128; }
}

template <int OP>
__device__ __forceinline__ unsigned load(unsigned a) {
  unsigned r0, r1, r2, r3;
  if (OP == 0) { asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r0) : "r"(a)); return r0; }
  if (OP == 1) { asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a)); return r0 | r1; }
  if (OP == 2) { asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a)); return r0 | r1 | r2 | r3; }
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  return r0 | r1 | r2 | r3;
}

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

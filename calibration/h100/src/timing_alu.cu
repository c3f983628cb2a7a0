// Issue rate of one sub-partition with 1 to 4 warps, no shared memory: each active warp runs 1024 x 16
// LOP3 in C independent dependent chains (C = 1, 2, 4, 8); clock64() per warp around its loop. 16 warps
// are launched; the warps of a mask run the loop (warp w is on sub-partition w % 4), the others wait.
#include "timing_common.cuh"

template <int C>
__global__ void alu(unsigned mask, long long* cyc, unsigned* sink) {
  unsigned x[C];
  for (int c = 0; c < C; c++) x[c] = threadIdx.x + c;
  unsigned y = threadIdx.x * 7u, z = threadIdx.x * 13u;
  int w = threadIdx.x / 32;
  __syncthreads();
  long long t0 = clock64();
  if (mask >> w & 1) {
    for (int i = 0; i < 1024; i++) {
#pragma unroll
      for (int u = 0; u < 16; u++) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x[u % C]) : "r"(y), "r"(z));
    }
  }
  long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x % 32 == 0) cyc[w] = t1 - t0;
  unsigned s = 0;
  for (int c = 0; c < C; c++) s ^= x[c];
  sink[threadIdx.x] = s;
}

template <int C>
int row(long long* cyc, unsigned* sink) {
  const unsigned masks[] = {0x1, 0x11, 0x111, 0x1111, 0x3, 0xf};
  long long c[16];
  for (unsigned m : masks)
    for (int rep = 0; rep < 3; rep++) {
      alu<C><<<1, 512>>>(m, cyc, sink);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(c, cyc, sizeof c, cudaMemcpyDeviceToHost));
      long long worst = 0;
      for (int w = 0; w < 16; w++) if (m >> w & 1 && c[w] > worst) worst = c[w];
      printf("ALU chains=%d mask=0x%x rep=%d cycles=%lld\n", C, m, rep, worst);
    }
  return 0;
}

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 16 * 8)); CK(cudaMalloc(&sink, 512 * 4));
  if (row<1>(cyc, sink) || row<2>(cyc, sink) || row<4>(cyc, sink) || row<8>(cyc, sink)) return 1;
  return 0;
}

// Which issue pipe the timing loops' other instructions use, and at what rate: each active warp (16
// launched; warp w on sub-partition w % 4) runs 256 x 16 steps of one kind in 8 independent chains;
// clock64() per warp around its loop; each line every active warp's start and end (relative to the
// earliest start), 3 repetitions.
// Kinds (the SASS each compiles to is in the run's cuobjdump; the README of the run says what came out):
//   0 lop3            1 add reg (IADD3)      2 mad reg (IMAD)        3 add imm, xor'd (VIADD + LOP3)
//   4 lop3 + mad      5 add imm + mad        6 mad + shl-add (LEA)   7 lop3, mad, add imm in turn
//   8 lop3 + add reg  9 add reg + mad
#include "timing_common.cuh"

template <int K>
__device__ __forceinline__ void step(unsigned& x, unsigned y, unsigned z, int v) {
  int u = v >> 3;  // the kind's first or second step of chain v % 8 (kind 7: step v of three)
  if (K == 0) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(z));
  if (K == 1) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
  if (K == 2) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
  if (K == 3) {
    if (u & 1) asm volatile("add.u32 %0, %0, 0x1234;" : "+r"(x));
    else asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(z));
  }
  if (K == 4) {
    if (u & 1) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
    else asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(z));
  }
  if (K == 5) {
    if (u & 1) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
    else asm volatile("add.u32 %0, %0, 0x1234;" : "+r"(x));
  }
  if (K == 6) {
    if (u & 1) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
    else asm volatile("{.reg .u32 t; shl.b32 t, %0, 12; add.u32 %0, t, %1;}" : "+r"(x) : "r"(z));
  }
  if (K == 7) {
    if (v % 3 == 0) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(z));
    if (v % 3 == 1) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
    if (v % 3 == 2) asm volatile("add.u32 %0, %0, 0x1234;" : "+r"(x));
  }
  if (K == 8) {
    if (u & 1) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
    else asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(y), "r"(z));
  }
  if (K == 9) {
    if (u & 1) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
    else asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
  }
}

template <int K>
__global__ void pipes(unsigned mask, long long* cyc, unsigned* sink) {
  unsigned x[8];
  for (int c = 0; c < 8; c++) x[c] = threadIdx.x + c;
  unsigned y = threadIdx.x * 7u + 1, z = threadIdx.x * 13u;
  int w = threadIdx.x / 32;
  __syncthreads();
  long long t0 = clock64();
  if (mask >> w & 1) {
    for (int i = 0; i < 256; i++) {
#pragma unroll
      for (int u = 0; u < 16; u++) step<K>(x[u % 8], y, z, u);
    }
  }
  long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x % 32 == 0) { cyc[2 * w] = t0; cyc[2 * w + 1] = t1; }
  unsigned s = 0;
  for (int c = 0; c < 8; c++) s ^= x[c];
  sink[threadIdx.x] = s;
}

template <int K>
int row(long long* cyc, unsigned* sink) {
  const unsigned masks[] = {0x1, 0x11, 0x111, 0x1111, 0xf};
  long long c[32];
  for (unsigned m : masks)
    for (int rep = 0; rep < 3; rep++) {
      pipes<K><<<1, 512>>>(m, cyc, sink);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(c, cyc, sizeof c, cudaMemcpyDeviceToHost));
      long long base = -1;
      for (int w = 0; w < 16; w++) if (m >> w & 1 && (base < 0 || c[2 * w] < base)) base = c[2 * w];
      printf("P kind=%d mask=0x%x rep=%d", K, m, rep);
      for (int w = 0; w < 16; w++) if (m >> w & 1) printf(" %d:%lld:%lld", w, c[2 * w] - base, c[2 * w + 1] - base);
      printf("\n");
    }
  return 0;
}

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 32 * 8)); CK(cudaMalloc(&sink, 512 * 4));
  if (row<0>(cyc, sink) || row<1>(cyc, sink) || row<2>(cyc, sink) || row<3>(cyc, sink) || row<4>(cyc, sink) ||
      row<5>(cyc, sink) || row<6>(cyc, sink) || row<7>(cyc, sink) || row<8>(cyc, sink) || row<9>(cyc, sink)) return 1;
  return 0;
}

// timing.cu's two loops for the forms it left out: LDS.U8, LDS.U16, LDSM.x1, LDSM.x2, LDSM.x4.trans and
// ATOMS.ADD (latency and throughput), STS.32, STS.64, STS.128 and STSM.x4 (throughput: independent
// stores, clock64() after the closing barrier). Same buffer, loop length and clocking as timing.cu;
// each form uses the offsets of timing.cu's op of its shape: LDS.32's (one word per lane, `deg` words
// per bank) for the byte loads, STS.32 and ATOMS.ADD, LDS.64's and LDS.128's for STS.64 and STS.128,
// LDSM.x4's for the matrix forms (LDSM.x1/.x2: only lanes 0-7 / 0-15 count).
#include "timing_common.cuh"

__device__ unsigned offset_form(int op, int deg, unsigned lane) {
  const int shape[] = {0, 0, 3, 3, 0, 1, 2, 3, 3, 0};
  return offset_for(shape[op], deg, lane);
}

// 0 LDS.U8, 1 LDS.U16, 2 LDSM.x1, 3 LDSM.x2, 8 LDSM.x4.trans, 9 ATOMS.ADD (return a value);
// 4 STS.32, 5 STS.64, 6 STS.128, 7 STSM.x4 (stores, return 0)
constexpr bool is_store(int op) { return op >= 4 && op <= 7; }

template <int OP>
__device__ __forceinline__ unsigned access(unsigned a, unsigned v) {
  unsigned r0, r1, r2, r3;
  if (OP == 0) { asm volatile("ld.shared.u8 %0, [%1];" : "=r"(r0) : "r"(a)); return r0; }
  if (OP == 1) { asm volatile("ld.shared.u16 %0, [%1];" : "=r"(r0) : "r"(a)); return r0; }
  if (OP == 2) { asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a)); return r0; }
  if (OP == 3) { asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a)); return r0 | r1; }
  if (OP == 8) { asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a)); return r0 | r1 | r2 | r3; }
  if (OP == 9) { asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(r0) : "r"(a), "r"(v) : "memory"); return r0; }
  if (OP == 4) asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory");
  if (OP == 5) asm volatile("st.shared.v2.u32 [%0], {%1,%2};" :: "r"(a), "r"(v), "r"(v) : "memory");
  if (OP == 6) asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(v), "r"(v), "r"(v), "r"(v) : "memory");
  if (OP == 7) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(v), "r"(v), "r"(v), "r"(v) : "memory");
  return 0;
}

template <int OP>
__global__ void latf(int deg, long long* cyc, unsigned* sink) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_form(OP, deg, threadIdx.x % 32);
  unsigned v = 0;
  for (int i = 0; i < 16; i++) v = access<OP>(a + v, 0);  // warm
  __syncwarp();
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < ITERS; i++) v = access<OP>(a + v, 0);
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
  sink[threadIdx.x] = v;
}

template <int OP>
__global__ void thrf(int deg, long long* cyc, unsigned* sink, int zmask) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_form(OP, deg, threadIdx.x % 32);
  unsigned v = 0;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < ITERS; i++) v += access<OP>(a + ((i & zmask) << 12), i);
  sink[threadIdx.x] = v;  // waits for every load of this warp
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
  sink[threadIdx.x] = v;
}

template <int OP>
int row(const char* name, int maxdeg, long long* cyc, unsigned* sink) {
  const int warps[] = {1, 2, 4, 8, 16, 32};
  long long c;
  for (int deg = 1; deg <= maxdeg; deg *= 2) {
    if (!is_store(OP)) {
      latf<OP><<<1, 32>>>(deg, cyc, sink);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
      printf("LAT op=%s deg=%d cyc_per_dependent_load=%.2f\n", name, deg, c / (double)ITERS);
    }
    for (int w = 0; w < 6; w++) {
      thrf<OP><<<1, 32 * warps[w]>>>(deg, cyc, sink, 0);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
      printf("THR op=%s deg=%d warps=%d cyc_per_warp_inst=%.3f\n", name, deg, warps[w], c / (double)(ITERS * warps[w]));
    }
  }
  return 0;
}

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 8)); CK(cudaMalloc(&sink, 4096 * 4));
  if (row<0>("LDS8", 32, cyc, sink) || row<1>("LDS16", 32, cyc, sink) || row<2>("LDSM1", 8, cyc, sink) ||
      row<3>("LDSM2", 8, cyc, sink) || row<4>("STS32", 32, cyc, sink) || row<5>("STS64", 16, cyc, sink) ||
      row<6>("STS128", 8, cyc, sink) || row<7>("STSM4", 8, cyc, sink) || row<8>("LDSM4T", 8, cyc, sink) ||
      row<9>("ATOMS32", 32, cyc, sink)) return 1;
  return 0;
}

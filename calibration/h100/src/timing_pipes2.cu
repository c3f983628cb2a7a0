// Issue rate of IMAD, VIADD, IADD3, LOP3 and FFMA per sub-partition: 1, 2 or 4 warps on sub-partition 0
// (warps 0, 4, 8, 12 of a 16-warp CTA; the others exit at once), each running 8 independent dependent chains
// of one instruction, 256 rounds unrolled 4 (so 8 x 1024 instructions a warp). Prints
// `P op= warps= cycles= per_instruction=` (cycles: warp 0's clock64() around its chains; per_instruction:
// cycles / (8 x 1024 x warps), the sub-partition's cycles per instruction of that op).
#include <cstdio>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
#define ROUNDS 256

template <int OP>
__device__ __forceinline__ unsigned step(unsigned x, unsigned k) {
  unsigned r;
  if (OP == 0) asm volatile("mad.lo.u32 %0, %1, %2, %1;" : "=r"(r) : "r"(x), "r"(k));         // IMAD
  if (OP == 1) asm volatile("add.u32 %0, %1, 12345;" : "=r"(r) : "r"(x));                       // VIADD or IADD3
  if (OP == 2) asm volatile("add.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(k));                  // IADD3
  if (OP == 3) asm volatile("lop3.b32 %0, %1, %2, 0x55, 0x96;" : "=r"(r) : "r"(x), "r"(k));     // LOP3
  if (OP == 4) { float f; asm volatile("fma.rn.f32 %0, %1, %2, %1;" : "=f"(f) : "f"(__uint_as_float(x)), "f"(__uint_as_float(k))); r = __float_as_uint(f); }  // FFMA
  return r;
}

template <int OP>
__global__ void pipe(unsigned k, unsigned mask, long long* cyc, unsigned* sink) {
  unsigned w = threadIdx.x / 32;
  if (!(mask >> w & 1)) return;
  unsigned a[8];
  for (int j = 0; j < 8; j++) a[j] = threadIdx.x + j;
  __syncwarp();
  long long t0 = clock64();
#pragma unroll 4
  for (int i = 0; i < ROUNDS * 4; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] = step<OP>(a[j], k);
  unsigned s = 0;
  for (int j = 0; j < 8; j++) s ^= a[j];
  sink[threadIdx.x] = s;
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 8)); CK(cudaMalloc(&sink, 512 * 4));
  const char* names[] = {"IMAD", "VIADD", "IADD3", "LOP3", "FFMA"};
  unsigned masks[] = {0x1, 0x11, 0x1111};
  for (int op = 0; op < 5; op++)
    for (int m = 0; m < 3; m++)
      for (int rep = 0; rep < 3; rep++) {
        if (op == 0) pipe<0><<<1, 512>>>(3, masks[m], cyc, sink); if (op == 1) pipe<1><<<1, 512>>>(3, masks[m], cyc, sink);
        if (op == 2) pipe<2><<<1, 512>>>(3, masks[m], cyc, sink); if (op == 3) pipe<3><<<1, 512>>>(3, masks[m], cyc, sink);
        if (op == 4) pipe<4><<<1, 512>>>(3, masks[m], cyc, sink);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        long long c; CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        int warps = m == 0 ? 1 : (m == 1 ? 2 : 4);
        if (rep) printf("P op=%s warps=%d cycles=%lld per_instruction=%.3f\n", names[op], warps, c, c / (8.0 * ROUNDS * 4 * warps));
      }
  return 0;
}

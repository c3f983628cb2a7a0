// What timing_warps.cu, timing_skew.cu and timing_iter.cu share with timing.cu (whose copy of it stays
// as measured): the error check, the shared buffer, the loop length, each pattern's per-lane offsets
// and the one load each op is.
#pragma once
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

// Per-warp view of the throughput microbenchmark of timing.cu: the same loop (512 independent loads
// of one pattern), run by the warps of `active` only (the others skip it), each warp recording its own
// clock64() at the start (after the barrier), once its loads completed (after the store that needs
// them) and after the closing barrier. Asks: do warps on different sub-partitions start together, in
// what order do they finish, and do warps w and w+2 share anything that w and w+1 do not.
#include "timing_common.cuh"

template <int OP>
__global__ void thrw(int deg, long long* cyc, unsigned* sink, int zmask, unsigned active) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_for(OP, deg, threadIdx.x % 32);
  unsigned v = 0, w = threadIdx.x / 32;
  __syncthreads();
  long long t0 = clock64();
  if (active >> w & 1) {
#pragma unroll 16
    for (int i = 0; i < ITERS; i++) v += load<OP>(a + ((i & zmask) << 12));
  }
  sink[threadIdx.x] = v;
  long long t1 = clock64();
  __syncthreads();
  long long t2 = clock64();
  if (threadIdx.x % 32 == 0) { cyc[3 * w] = t0; cyc[3 * w + 1] = t1; cyc[3 * w + 2] = t2; }
  sink[threadIdx.x] = v;
}

int launch(int op, int deg, int warps, unsigned active, long long* cyc, unsigned* sink) {
  if (op == 0) thrw<0><<<1, 32 * warps>>>(deg, cyc, sink, 0, active);
  if (op == 1) thrw<1><<<1, 32 * warps>>>(deg, cyc, sink, 0, active);
  if (op == 2) thrw<2><<<1, 32 * warps>>>(deg, cyc, sink, 0, active);
  if (op == 3) thrw<3><<<1, 32 * warps>>>(deg, cyc, sink, 0, active);
  return 0;
}

int run(int op, int deg, int warps, unsigned active, long long* cyc, unsigned* sink, const char* name) {
  long long c[96];
  for (int rep = 0; rep < 4; rep++) {  // rep 0 warms the instruction cache; printed too
    launch(op, deg, warps, active, cyc, sink);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c, cyc, 3 * warps * 8, cudaMemcpyDeviceToHost));
    long long base = c[0];
    for (int w = 0; w < warps; w++) base = c[3 * w] < base ? c[3 * w] : base;
    printf("W op=%s deg=%d warps=%d active=0x%x rep=%d", name, deg, warps, active, rep);
    for (int w = 0; w < warps; w++) printf(" %lld,%lld,%lld", c[3 * w] - base, c[3 * w + 1] - base, c[3 * w + 2] - base);
    printf("\n");
  }
  return 0;
}

int main(int argc, char** argv) {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 96 * 8)); CK(cudaMalloc(&sink, 4096 * 4));
  const char* names[] = {"LDS32", "LDS64", "LDS128", "LDSM4"};
  int maxdeg[] = {32, 16, 8, 8};
  if (argc > 1) {  // "same": up to four warps on one sub-partition (16 launched), every op and degree
    unsigned masks[] = {0x1, 0x11, 0x111, 0x1111, 0x3, 0x13, 0x33, 0x133, 0x1133, 0x7, 0x17, 0x117};
    for (int op = 0; op < 4; op++)
      for (int deg = 1; deg <= maxdeg[op]; deg *= 2)
        for (unsigned m : masks)
          if (run(op, deg, 16, m, cyc, sink, names[op])) return 1;
    return 0;
  }
  int warps[] = {1, 2, 4, 8};
  // every (op, ways) at 1, 2, 4, 8 warps, all active
  for (int op = 0; op < 4; op++)
    for (int deg = 1; deg <= maxdeg[op]; deg *= 2)
      for (int k = 0; k < 4; k++)
        if (run(op, deg, warps[k], (1u << warps[k]) - 1, cyc, sink, names[op])) return 1;
  // pairs and quads of active warps among 8 launched: same or different sub-partitions (w % 4)
  unsigned masks[] = {0x3, 0x5, 0x9, 0x11, 0xF, 0x33, 0x55, 0x0F0, 0x1E, 0x3C};
  int ops[][2] = {{0, 32}, {0, 2}, {0, 1}, {1, 1}, {1, 2}, {3, 1}, {0, 8}};
  for (auto& o : ops)
    for (unsigned m : masks)
      if (run(o[0], o[1], 8, m, cyc, sink, names[o[0]])) return 1;
  return 0;
}

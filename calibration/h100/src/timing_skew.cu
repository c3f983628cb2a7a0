// timing_warps.cu with a start skew: warp w spins w * skew cycles (clock64) after the barrier before
// its loop. Asks how the 4- and 8-warp throughput rows that the timing model misses depend on where the
// warps start relative to each other (the model's own results move by up to 18% over 0-8 cycles of skew).
// `./timing_skew` prints the same lines as timing_warps (plus skew=K), per-warp start, loads done and
// after-barrier clocks relative to the earliest start (before the spin).
#include "timing_common.cuh"

template <int OP>
__global__ void thrw(int deg, long long* cyc, unsigned* sink, int zmask, unsigned active, int skew) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offset_for(OP, deg, threadIdx.x % 32);
  unsigned v = 0, w = threadIdx.x / 32;
  __syncthreads();
  long long t0 = clock64();
  while (clock64() - t0 < (long long)w * skew) {}  // skew > 0: warp w starts its loop w * skew cycles late
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

int launch(int op, int deg, int warps, unsigned active, long long* cyc, unsigned* sink, int skew) {
  if (op == 0) thrw<0><<<1, 32 * warps>>>(deg, cyc, sink, 0, active, skew);
  if (op == 1) thrw<1><<<1, 32 * warps>>>(deg, cyc, sink, 0, active, skew);
  if (op == 2) thrw<2><<<1, 32 * warps>>>(deg, cyc, sink, 0, active, skew);
  if (op == 3) thrw<3><<<1, 32 * warps>>>(deg, cyc, sink, 0, active, skew);
  return 0;
}

int run(int op, int deg, int warps, unsigned active, long long* cyc, unsigned* sink, const char* name, int skew = 0) {
  long long c[96];
  for (int rep = 0; rep < 4; rep++) {  // rep 0 warms the instruction cache; printed too
    launch(op, deg, warps, active, cyc, sink, skew);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c, cyc, 3 * warps * 8, cudaMemcpyDeviceToHost));
    long long base = c[0];
    for (int w = 0; w < warps; w++) base = c[3 * w] < base ? c[3 * w] : base;
    printf("W op=%s deg=%d warps=%d active=0x%x rep=%d", name, deg, warps, active, rep);
    if (skew) printf(" skew=%d", skew);
    for (int w = 0; w < warps; w++) printf(" %lld,%lld,%lld", c[3 * w] - base, c[3 * w + 1] - base, c[3 * w + 2] - base);
    printf("\n");
  }
  return 0;
}

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 96 * 8)); CK(cudaMalloc(&sink, 4096 * 4));
  const char* names[] = {"LDS32", "LDS64", "LDS128", "LDSM4"};
  int ops[][3] = {{0, 2, 4}, {1, 1, 4}, {3, 1, 4}, {0, 1, 8}, {1, 1, 2}, {0, 4, 4}};  // op, ways, warps
  int skews[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48};
  for (auto& o : ops)
    for (int k : skews)
      if (run(o[0], o[1], o[2], (1u << o[2]) - 1, cyc, sink, names[o[0]], k)) return 1;
  return 0;
}

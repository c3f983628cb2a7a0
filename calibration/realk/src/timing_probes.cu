// timing_probes.cu -- microbenchmarks for the cycle-level timing model (written here, 2026-11-29).
// Each kernel isolates one cost; calibration/realk/manifest_timing.json launches them (launch.cu) with the sizes
// that make the differences readable (see runs/2026-11-29-timing-probes/PREDICTED.txt for the expected numbers).
//   nvcc -arch=sm_90 -ptx src/timing_probes.cu -o ptx/timing_probes.ptx
#include <cstdint>

// (1) launch overhead: a CTA that only exits.
extern "C" __global__ void tp_empty() {}

// (2) dependent-load chain ("pointer chase") of one warp. Every lane loads the same 8-byte word (one request, one
// sector), and the next address is this one + 128 + the loaded value, so each load waits for the previous one.
// Over a zero-filled buffer every load is a new 128-byte line (cold: DRAM after ncu's cache flush). Over a ring whose
// last line holds -4096 (data/tp_ring4k.npy, 32 lines) the chain re-walks 4 KiB: the first lap misses, later laps
// hit (L1 for tp_chase, L2 for tp_chase_cg, whose loads are ld.global.cg: cached in L2 only).
extern "C" __global__ void tp_chase(const unsigned long long *buf, unsigned n, unsigned *out) {
  const char *p = reinterpret_cast<const char *>(buf);
  for (unsigned i = 0; i < n; i++) {
    unsigned long long v = *reinterpret_cast<const unsigned long long *>(p);
    p += 128 + v;
  }
  out[threadIdx.x] = (unsigned)(uintptr_t)p;
}
extern "C" __global__ void tp_chase_cg(const unsigned long long *buf, unsigned n, unsigned *out) {
  const char *p = reinterpret_cast<const char *>(buf);
  for (unsigned i = 0; i < n; i++) {
    unsigned long long v = __ldcg(reinterpret_cast<const unsigned long long *>(p));
    p += 128 + v;
  }
  out[threadIdx.x] = (unsigned)(uintptr_t)p;
}

// (3) one warp writes 64 (or 1) full 128-byte lines, then exits; or reads 64 lines (independent loads, all in
// flight) and exits without storing (the input is zero, so the guarded store never happens).
extern "C" __global__ void tp_stg64(unsigned *out) {
#pragma unroll
  for (int i = 0; i < 64; i++) out[i * 32 + threadIdx.x] = i + threadIdx.x;
}
extern "C" __global__ void tp_stg1(unsigned *out) { out[threadIdx.x] = threadIdx.x; }
extern "C" __global__ void tp_ldg64(const unsigned *in, unsigned *out) {
  unsigned s = 0;
#pragma unroll
  for (int i = 0; i < 64; i++) s += in[i * 32 + threadIdx.x];
  if (s == 0xdeadbeefu) out[threadIdx.x] = s;
}

// (4) barrier cost: iters x (BAR.SYNC + three dependent integer ops); tp_nobar is the same loop without the barrier.
// Not unrolled: unrolled by 4, ptxas moves the four BAR.SYNC together ahead of the arithmetic.
extern "C" __global__ void tp_bar(unsigned *out, unsigned iters, unsigned a) {
  unsigned x = threadIdx.x;
#pragma unroll 1
  for (unsigned i = 0; i < iters; i++) {
    __syncthreads();
    x = x * a + i;
    x ^= x >> 3;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
extern "C" __global__ void tp_nobar(unsigned *out, unsigned iters, unsigned a) {
  unsigned x = threadIdx.x;
#pragma unroll 1
  for (unsigned i = 0; i < iters; i++) {
    x = x * a + i;
    x ^= x >> 3;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

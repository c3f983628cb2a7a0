// Why do two loading warps on each of three or four sub-partitions run timing.cu's loop slower than
// two on one (runs/2026-11-25-pair, `spread`), though the data path is far from full?
// One CTA of 16 warps (512 threads) each launch; the warps of `loops` generate loads, warp `probe` (if
// < 16) runs a dependent chain of 256 LDS.32 (unrolled 16: a loop branch every 16 links; its cycles per
// link: the latency a load sees under that load), the others wait at the barriers. Generators (MODE):
//   0: timing.cu's throughput loop (512 independent LDS.32 of conflict degree `deg`, address arithmetic
//      per load, as timing_pair.cu's `spread`);
//   1: a burst loop: 32 blocks of 16 LDS.32 with immediate offsets 2 KiB apart (no address arithmetic),
//      then their sum (the loads of a block issue back to back; the sum waits for all of them).
// Each warp records clock64() before its work and after it (its store needs the loads).
// Prints per launch: `L mode= deg= loops=0x.. probe= rep=` then start,cycles of the 16 warps (start
// relative to the earliest); 6 repetitions, rep 0 warming the instruction cache.
#include "timing_common.cuh"
#define CHAIN 256

__device__ __forceinline__ unsigned burst16(unsigned a) {
  unsigned r[16];
  asm volatile(
      "ld.shared.u32 %0, [%16];\n\t ld.shared.u32 %1, [%16+2048];\n\t ld.shared.u32 %2, [%16+4096];\n\t"
      "ld.shared.u32 %3, [%16+6144];\n\t ld.shared.u32 %4, [%16+8192];\n\t ld.shared.u32 %5, [%16+10240];\n\t"
      "ld.shared.u32 %6, [%16+12288];\n\t ld.shared.u32 %7, [%16+14336];\n\t ld.shared.u32 %8, [%16+16384];\n\t"
      "ld.shared.u32 %9, [%16+18432];\n\t ld.shared.u32 %10, [%16+20480];\n\t ld.shared.u32 %11, [%16+22528];\n\t"
      "ld.shared.u32 %12, [%16+24576];\n\t ld.shared.u32 %13, [%16+26624];\n\t ld.shared.u32 %14, [%16+28672];\n\t"
      "ld.shared.u32 %15, [%16+30720];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
        "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
      : "r"(a));
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < 16; k++) s += r[k];
  return s;
}

template <int MODE>
__global__ void mix(int deg, long long* cyc, unsigned* sink, int zmask, unsigned loops, unsigned probe) {
  __shared__ __align__(16) unsigned char smem[SB];
  for (int i = threadIdx.x; i < SB / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  __syncthreads();
  unsigned w = threadIdx.x / 32, v = 0;
  unsigned base = (unsigned)__cvta_generic_to_shared(smem);
  unsigned a = base + offset_for(0, deg, threadIdx.x % 32);
  __syncthreads();
  long long t0 = clock64();
  if (loops >> w & 1) {
    if (MODE == 0) {
#pragma unroll 16
      for (int i = 0; i < ITERS; i++) v += load<0>(a + ((i & zmask) << 12));
    } else {
#pragma unroll 1
      for (int o = 0; o < ITERS / 16; o++) v += burst16(a + ((o & zmask) << 2));
    }
  } else if (w == probe) {
    unsigned p = base + (threadIdx.x % 32) * 4;
#pragma unroll 16
    for (int i = 0; i < CHAIN; i++) v = load<0>(p + v);
  }
  sink[threadIdx.x] = v;
  long long t1 = clock64();
  __syncthreads();
  if (threadIdx.x % 32 == 0) { cyc[2 * w] = t0; cyc[2 * w + 1] = t1; }
}

template <int MODE>
int run(int deg, unsigned loops, unsigned probe, long long* cyc, unsigned* sink) {
  long long c[32];
  for (int rep = 0; rep < 6; rep++) {
    mix<MODE><<<1, 512>>>(deg, cyc, sink, 0, loops, probe);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c, cyc, 32 * 8, cudaMemcpyDeviceToHost));
    long long first = c[0];
    for (int w = 0; w < 16; w++) first = c[2 * w] < first ? c[2 * w] : first;
    printf("L mode=%d deg=%d loops=0x%x probe=%u rep=%d", MODE, deg, loops, probe, rep);
    for (int w = 0; w < 16; w++) printf(" %lld,%lld", c[2 * w] - first, c[2 * w + 1] - c[2 * w]);
    printf("\n");
  }
  return 0;
}

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 32 * 8)); CK(cudaMalloc(&sink, 4096 * 4));
  // A: the probe on warp 3 (sub-partition 3) beside loads from other warps (0x80: its own sub-partition)
  unsigned with_probe[] = {0x0, 0x1, 0x7, 0x11, 0x33, 0x77, 0x80, 0xf7, 0x7777};
  // B: loads alone
  unsigned alone[] = {0x1, 0x11, 0x111, 0x1111, 0x3, 0xf, 0x33, 0x77, 0xff, 0x3333, 0x7777, 0xffff};
  for (int deg : {1, 2}) {
    for (unsigned m : with_probe)
      if (run<0>(deg, m, 3, cyc, sink) || run<1>(deg, m, 3, cyc, sink)) return 1;
    for (unsigned m : alone)
      if (run<0>(deg, m, 99, cyc, sink) || run<1>(deg, m, 99, cyc, sink)) return 1;
  }
  return 0;
}

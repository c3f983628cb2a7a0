// timing.cu's kernels, unchanged (its device code compiles to the same SASS), launched with every warp
// count from 1 to 16: 5 to 7 warps put a second warp on one to three sub-partitions (warp w on w % 4),
// between timing.json's 4 (one on each) and 8 (two on each). Prints `THR op= deg= warps= rep=
// cyc_per_warp_inst=` as timing.cu does, 4 repetitions (rep 0 warms the instruction cache).
#define main timing_main
#include "timing.cu"
#undef main

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 8)); CK(cudaMalloc(&sink, 4096 * 4));
  const char* names[] = {"LDS32", "LDS64", "LDS128", "LDSM4"};
  int runs[][2] = {{0, 1}, {0, 2}, {0, 4}, {1, 1}, {1, 2}, {2, 1}, {3, 1}};  // op, ways
  for (auto& r : runs)
    for (int warps = 1; warps <= 16; warps++)
      for (int rep = 0; rep < 4; rep++) {
        int op = r[0], deg = r[1], threads = 32 * warps;
        if (op == 0) thr<0><<<1, threads>>>(deg, cyc, sink, 0); if (op == 1) thr<1><<<1, threads>>>(deg, cyc, sink, 0);
        if (op == 2) thr<2><<<1, threads>>>(deg, cyc, sink, 0); if (op == 3) thr<3><<<1, threads>>>(deg, cyc, sink, 0);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        long long c; CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        printf("THR op=%s deg=%d warps=%d rep=%d cyc_per_warp_inst=%.3f\n", names[op], deg, warps, rep, c / (double)(ITERS * warps));
      }
  return 0;
}

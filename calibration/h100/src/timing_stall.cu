// Why two warps of timing.cu's loop on each of four sub-partitions run slower than two on one: timing.cu's
// kernels, unchanged (the same SASS), launched for Nsight Compute's warp-state counters and samples.
// Usage: timing_stall OP DEG GRID WARPS... ; one launch per WARPS (after one unprofiled warm-up each),
// printing `THR op= deg= grid= warps= cyc_per_warp_inst=` as timing.cu does (block 0's thread 0).
#define main timing_main
#include "timing.cu"
#undef main
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 5) { printf("usage: timing_stall OP DEG GRID WARPS...\n"); return 2; }
  int op = atoi(argv[1]), deg = atoi(argv[2]), grid = atoi(argv[3]);
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 8)); CK(cudaMalloc(&sink, 4096 * 4));
  const char* names[] = {"LDS32", "LDS64", "LDS128", "LDSM4"};
  for (int a = 4; a < argc; a++) {
    int warps = atoi(argv[a]), threads = 32 * warps;
    for (int rep = 0; rep < 2; rep++) {  // rep 0 warms the instruction cache (ncu: --launch-skip-before-match none; filter by rep)
      if (op == 0) thr<0><<<grid, threads>>>(deg, cyc, sink, 0); if (op == 1) thr<1><<<grid, threads>>>(deg, cyc, sink, 0);
      if (op == 2) thr<2><<<grid, threads>>>(deg, cyc, sink, 0); if (op == 3) thr<3><<<grid, threads>>>(deg, cyc, sink, 0);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      long long c; CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
      printf("THR op=%s deg=%d grid=%d warps=%d rep=%d cyc_per_warp_inst=%.3f\n", names[op], deg, grid, warps, rep, c / (double)(ITERS * warps));
    }
  }
  return 0;
}

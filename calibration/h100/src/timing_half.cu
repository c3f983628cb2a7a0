// Which sub-partitions slow each other's pairs? timing_pair.cu's `spread` kernel, unchanged (the same SASS),
// with two warps of timing.cu's LDS.32 1-way loop on each sub-partition of every non-empty set (warps s and
// s + 4 on sub-partition s; 8 warps launched). Prints `S mode= loops= comps= rep=` and every warp's start
// and cycles as timing_pair.cu does; every set three times over, in turn, 4 repetitions each.
#define main timing_pair_main
#include "timing_pair.cu"
#undef main

int main() {
  long long* cyc; unsigned* sink; CK(cudaMalloc(&cyc, 16 * 8)); CK(cudaMalloc(&sink, 4096 * 4));
  for (int round = 0; round < 3; round++)
    for (unsigned set = 1; set < 16; set++)
      if (run_spread<0>(set | set << 4, 0, cyc, sink)) return 1;
  return 0;
}

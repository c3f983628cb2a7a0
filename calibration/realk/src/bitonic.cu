// bitonic.cu -- each block sorts 1024 unsigned keys ascending in shared memory (bitonic sorting network).
// Written here (calibration/realk) from Batcher's bitonic merge sort.
//   bitonic_sort_1024   256 threads, 4 keys per thread loaded/stored; each of the 55 stages is 512 compare-exchange
//                       pairs (i, i + j) with bit j of i clear, two per thread; a pair is written back only when
//                       it is out of order (data-dependent, divergent STS), __syncthreads between stages.
// Launch: grid = n / 1024 blocks of 256 threads, n = 1024 * gridDim.x keys in and out.
constexpr int NKEYS = 1024;

extern "C" __global__ void __launch_bounds__(256)
bitonic_sort_1024(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
    __shared__ unsigned s[NKEYS];
    const unsigned tid = threadIdx.x;
    const unsigned* src = in + blockIdx.x * NKEYS;
#pragma unroll
    for (int r = 0; r < 4; r++) s[tid + 256 * r] = src[tid + 256 * r];
    __syncthreads();
    for (unsigned k = 2; k <= NKEYS; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const unsigned p = tid + 256 * h;                  // pair index 0..511
                const unsigned i = 2 * j * (p / j) + (p % j);      // bit j of i is clear
                const unsigned ixj = i + j;
                const bool up = (i & k) == 0;
                const unsigned a = s[i], b = s[ixj];
                if ((a > b) == up) {
                    s[i] = b;
                    s[ixj] = a;
                }
            }
            __syncthreads();
        }
    }
    unsigned* dst = out + blockIdx.x * NKEYS;
#pragma unroll
    for (int r = 0; r < 4; r++) dst[tid + 256 * r] = s[tid + 256 * r];
}

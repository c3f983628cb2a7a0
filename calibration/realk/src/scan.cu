// scan.cu -- work-efficient (Blelloch) exclusive prefix sum of 512 ints per block in shared memory.
// Written here (calibration/realk) from the up-sweep / down-sweep algorithm (Blelloch 1990), 256 threads,
// 2 elements per thread. Each block scans its own 512 elements (out) and writes its total (sums[blockIdx.x]).
//   scan_blelloch       plain indices: at tree level d the active threads touch words offset*(2*tid+1)-1
//                       and offset*(2*tid+2)-1, a stride of 2*offset words: 2-, 4-, ... 32-way bank conflicts
//   scan_blelloch_cfo   the same with the conflict-free offset: word w is stored at w + (w >> 5) (one
//                       padding word per 32), which spreads the strided accesses over the banks
constexpr int N = 512;

template <bool CFO>
__device__ __forceinline__ int pad(int w)
{
    return CFO ? w + (w >> 5) : w;
}

template <bool CFO>
__device__ __forceinline__ void scan_block(int* __restrict__ out, int* __restrict__ sums, const int* __restrict__ in)
{
    __shared__ int temp[N + N / 32];
    const int tid = threadIdx.x;
    const int base = blockIdx.x * N;
    const int ai = tid, bi = tid + N / 2;
    temp[pad<CFO>(ai)] = in[base + ai];
    temp[pad<CFO>(bi)] = in[base + bi];
    int offset = 1;
    for (int d = N >> 1; d > 0; d >>= 1) {  // up-sweep: build partial sums in place
        __syncthreads();
        if (tid < d) {
            const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
            temp[pad<CFO>(b)] += temp[pad<CFO>(a)];
        }
        offset *= 2;
    }
    if (tid == 0) {
        sums[blockIdx.x] = temp[pad<CFO>(N - 1)];
        temp[pad<CFO>(N - 1)] = 0;
    }
    for (int d = 1; d < N; d *= 2) {  // down-sweep
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
            const int t = temp[pad<CFO>(a)];
            temp[pad<CFO>(a)] = temp[pad<CFO>(b)];
            temp[pad<CFO>(b)] += t;
        }
    }
    __syncthreads();
    out[base + ai] = temp[pad<CFO>(ai)];
    out[base + bi] = temp[pad<CFO>(bi)];
}

extern "C" __global__ void __launch_bounds__(256)
scan_blelloch(int* __restrict__ out, int* __restrict__ sums, const int* __restrict__ in)
{
    scan_block<false>(out, sums, in);
}
extern "C" __global__ void __launch_bounds__(256)
scan_blelloch_cfo(int* __restrict__ out, int* __restrict__ sums, const int* __restrict__ in)
{
    scan_block<true>(out, sums, in);
}

// histogram.cu -- 256-bin byte histograms built with shared-memory atomics, then merged into global counts.
// Written here (calibration/realk) from the standard privatized-histogram scheme.
//   hist256_smem          one 256-bin shared histogram per block; each thread reads 32-bit words in a
//                         grid-stride loop and does atomicAdd(&bins[byte], 1) for each of the word's 4 bytes
//                         (ATOMS.POPC.INC: lanes hitting the same bin serialize, so the data's skew matters);
//                         the block then adds its bins to the global histogram (global RED)
//   hist256_warp_private  one 256-bin sub-histogram per warp (8 x 256 words), so only lanes of one warp
//                         collide; the merge sums the 8 sub-histograms per bin
//   hist256_atomic_misc   the other shared atomics on per-bin slots (max, min, or, and, xor, exch, cas, sub, inc,
//                         dec), each used so that the outputs do not depend on the order in which lanes arrive
//   smem_atomic_cas_loops f32 and u64 atomicAdd on shared memory, which compile to compare-and-swap loops
// Launch: 256 threads per block, n_words 32-bit words of input (4 bytes each).
extern "C" __global__ void __launch_bounds__(256)
hist256_smem(unsigned* __restrict__ hist, const unsigned* __restrict__ data, unsigned n_words)
{
    __shared__ unsigned bins[256];
    const unsigned tid = threadIdx.x;
    bins[tid] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + tid; i < n_words; i += gridDim.x * blockDim.x) {
        const unsigned w = data[i];
        atomicAdd(&bins[w & 0xff], 1u);
        atomicAdd(&bins[(w >> 8) & 0xff], 1u);
        atomicAdd(&bins[(w >> 16) & 0xff], 1u);
        atomicAdd(&bins[w >> 24], 1u);
    }
    __syncthreads();
    const unsigned c = bins[tid];
    if (c) atomicAdd(&hist[tid], c);
}

extern "C" __global__ void __launch_bounds__(256)
hist256_warp_private(unsigned* __restrict__ hist, const unsigned* __restrict__ data, unsigned n_words)
{
    __shared__ unsigned bins[8][256];
    const unsigned tid = threadIdx.x, warp = tid >> 5;
#pragma unroll
    for (int w = 0; w < 8; w++) bins[w][tid] = 0;
    __syncthreads();
    unsigned* mine = bins[warp];
    for (unsigned i = blockIdx.x * blockDim.x + tid; i < n_words; i += gridDim.x * blockDim.x) {
        const unsigned w = data[i];
        atomicAdd(&mine[w & 0xff], 1u);
        atomicAdd(&mine[(w >> 8) & 0xff], 1u);
        atomicAdd(&mine[(w >> 16) & 0xff], 1u);
        atomicAdd(&mine[w >> 24], 1u);
    }
    __syncthreads();
    unsigned c = 0;
#pragma unroll
    for (int w = 0; w < 8; w++) c += bins[w][tid];
    if (c) atomicAdd(&hist[tid], c);
}

// out layout (unsigned words, per block b at out + b * 2560), each a 256-entry array indexed by byte value:
//   0 max index  1 min index  2 OR of 1 << (index & 31)  3 AND of ~(1 << (index % 29))  4 XOR of index
//   5 first arrivals by atomicExch (0 -> 1)  6 sum of atomicExch's old values  7 atomicCAS winners
//   8 atomicInc(.., 6) and 9 atomicDec(.., 4) counters (count mod 7, (-count) mod 5: order-independent)
extern "C" __global__ void __launch_bounds__(256)
hist256_atomic_misc(unsigned* __restrict__ out, const unsigned char* __restrict__ data, unsigned n)
{
    __shared__ unsigned s[10][256];
    __shared__ unsigned cas[256];
    const unsigned tid = threadIdx.x;
    s[0][tid] = 0; s[1][tid] = 0xffffffffu; s[2][tid] = 0; s[3][tid] = 0xffffffffu; s[4][tid] = 0;
    s[5][tid] = 0; s[6][tid] = 0; s[7][tid] = 0; s[8][tid] = 0; s[9][tid] = 0;
    cas[tid] = 0xffffffffu;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
        const unsigned v = data[i];
        atomicMax(&s[0][v], i);
        atomicMin(&s[1][v], i);
        atomicOr(&s[2][v], 1u << (i & 31));
        atomicAnd(&s[3][v], ~(1u << (i % 29)));
        atomicXor(&s[4][v], i);
        const unsigned old = atomicExch(&s[5][v], 1u);   // s[5] ends as 1 where any hit; counted apart below
        if (old == 0) atomicAdd(&s[6][v], 0x10000u);    // one first arrival per bin
        atomicAdd(&s[6][v], old);                         // + (hits - 1)
        if (atomicCAS(&cas[v], 0xffffffffu, i) == 0xffffffffu) atomicSub(&s[7][v], 1u);
        atomicInc(&s[8][v], 6u);
        atomicDec(&s[9][v], 4u);
    }
    __syncthreads();
    unsigned* o = out + blockIdx.x * 2560;
#pragma unroll
    for (int k = 0; k < 10; k++) o[k * 256 + tid] = s[k][tid];
}

// Shared-memory atomics that ptxas turns into compare-and-swap loops (LDS + ATOMS.CAST.SPIN, retried while another
// lane changed the word): f32 atomicAdd and u64 atomicAdd. Each warp owns its own 32 slots of each array, so only
// lanes of one warp can collide: lane l adds to slot l % spread (spread 32: no collision; spread 4: 8 lanes per
// slot, the loop runs until each of them has succeeded). out: per block 256 f32 sums then 256 u64 sums.
extern "C" __global__ void __launch_bounds__(256)
smem_atomic_cas_loops(unsigned* __restrict__ out, const float* __restrict__ x, unsigned iters, unsigned spread)
{
    __shared__ float fs[256];
    __shared__ unsigned long long us[256];
    const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    fs[tid] = 0.f;
    us[tid] = 0;
    __syncthreads();
    const unsigned slot = warp * 32 + lane % spread;
    for (unsigned it = 0; it < iters; it++) {
        const unsigned g = (blockIdx.x * iters + it) * blockDim.x + tid;
        atomicAdd(&fs[slot], x[g]);
        atomicAdd(&us[slot], (unsigned long long)(g + 1) * 0x100000001ull);
    }
    __syncthreads();
    float* of = reinterpret_cast<float*>(out + blockIdx.x * 768);
    of[tid] = fs[tid];
    reinterpret_cast<unsigned long long*>(out + blockIdx.x * 768 + 256)[tid] = us[tid];
}

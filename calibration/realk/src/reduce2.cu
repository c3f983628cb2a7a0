// reduce2.cu -- more per-block sum reductions (see reduce.cu for the first four), one partial per block in out[].
// Written here (calibration/realk) from the well-known sequence of tree-reduction refinements.
//   reduce4_warpsync    two elements per thread added during the load, sequential addressing down to 64
//                       partials with __syncthreads, then the last warp finishes on a volatile shared array
//                       with no barrier at all (the pre-Volta warp-synchronous idiom: six LDS/LDS/STS steps,
//                       every lane of warp 0 active, the upper lanes computing values nobody reads)
//   reduce5_gridstride  each thread first sums a grid-stride loop over the whole array (n / (grid*block)
//                       elements), then the block reduces its 256 sums with sequential addressing
//   reduce6_gridstride_f4   the same with float4 loads (n a multiple of 4) and the tree unrolled to the last
//                       warp, which uses volatile smem and no barrier
// Launch: blockDim.x = 256 (a power of two >= 64), dynamic shared memory = blockDim.x * sizeof(float).
extern "C" __global__ void reduce4_warpsync(const float* __restrict__ in, float* __restrict__ out, unsigned n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * blockDim.x) + tid;
    float sum = (i < n) ? in[i] : 0.0f;
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile float* v = sdata;
        v[tid] = sum = sum + v[tid + 32];
        v[tid] = sum = sum + v[tid + 16];
        v[tid] = sum = sum + v[tid + 8];
        v[tid] = sum = sum + v[tid + 4];
        v[tid] = sum = sum + v[tid + 2];
        v[tid] = sum = sum + v[tid + 1];
        if (tid == 0) out[blockIdx.x] = v[0];
    }
}

extern "C" __global__ void reduce5_gridstride(const float* __restrict__ in, float* __restrict__ out, unsigned n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    float sum = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) sum += in[i];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

extern "C" __global__ void reduce6_gridstride_f4(const float4* __restrict__ in, float* __restrict__ out, unsigned n4)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    float sum = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + tid; i < n4; i += gridDim.x * blockDim.x) {
        const float4 v = in[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    sdata[tid] = sum;
    __syncthreads();
    if (blockDim.x >= 256) { if (tid < 128) sdata[tid] = sum = sum + sdata[tid + 128]; __syncthreads(); }
    if (blockDim.x >= 128) { if (tid < 64) sdata[tid] = sum = sum + sdata[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        volatile float* v = sdata;
        v[tid] = sum = sum + v[tid + 32];
        v[tid] = sum = sum + v[tid + 16];
        v[tid] = sum = sum + v[tid + 8];
        v[tid] = sum = sum + v[tid + 4];
        v[tid] = sum = sum + v[tid + 2];
        v[tid] = sum = sum + v[tid + 1];
        if (tid == 0) out[blockIdx.x] = sum;
    }
}

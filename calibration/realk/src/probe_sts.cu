// probe_sts.cu -- why do conflicting stores' wavefront counts vary between ncu runs of one kernel?
// Written here for the store-variance question of the real-kernel corpus: every warp of the CTA stores ITERS
// times with lane stride STRIDE words (STRIDE 32: every lane on one bank, 32 wavefronts an STS), through a
// volatile pointer so that ptxas keeps each store. Launched with one warp, many warps, one CTA, a CTA per SM,
// and with a global load feeding every store (MIX), the counts say whether the variation needs several warps,
// several CTAs, or global traffic in the L1 beside the stores. lds_conflict is the same with loads (a control:
// load counts never varied).
extern "C" __global__ void sts_conflict(float* out, const float* in, int stride, int iters, int mix)
{
    extern __shared__ float s[];
    volatile float* vs = s;
    const int t = threadIdx.x, lane = t & 31;
    float v = (float)t;
    for (int i = 0; i < iters; i++) {
        if (mix) v += in[(blockIdx.x * blockDim.x + t + 64 * i) & 4095];
        vs[lane * stride + (i & 7)] = v;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = vs[lane * stride];
}

extern "C" __global__ void lds_conflict(float* out, const float* in, int stride, int iters, int mix)
{
    extern __shared__ float s[];
    volatile float* vs = s;
    const int t = threadIdx.x, lane = t & 31;
    for (int k = t; k < 32 * stride + 8; k += blockDim.x) vs[k] = (float)k;
    __syncthreads();
    float v = 0.0f;
    for (int i = 0; i < iters; i++) {
        if (mix) v += in[(blockIdx.x * blockDim.x + t + 64 * i) & 4095];
        v += vs[lane * stride + (i & 7)];
    }
    out[blockIdx.x * blockDim.x + t] = v;
}

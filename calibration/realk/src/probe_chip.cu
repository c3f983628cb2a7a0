// probe_chip.cu -- what a launch over many SMs costs that one over a few does not (issue 33: public kernels' full grids
// run 15-35% longer on the H200 than the timed SM gives, where this corpus's 4-CTA launches are within a few percent).
// Written here. One CTA an SM unless a manifest entry says otherwise (make_probe_chip.py).
//   pc_copy   each thread copies `per` floats (in to out, rows of blockDim.x apart): the prologue of a copy kernel
//             (S2R, LDC of the pointers), its loads and stores, nothing else
//   pc_s2r8   each thread reads eight special registers (S2R), adds them and stores the sum: the MIO's S2R
//   pc_ldc8   each thread adds one float of each of eight buffers (eight pointer parameters, LDC.64 each) and stores it
//   pc_alu    each thread runs `iters` rounds of dependent FMAs and stores the result: no memory but the store
extern "C" __global__ void pc_copy(float* __restrict__ out, const float* __restrict__ in, int per)
{
    int base = blockIdx.x * blockDim.x * per + threadIdx.x;
    for (int i = 0; i < per; ++i)
        out[base + i * blockDim.x] = in[base + i * blockDim.x];
}

extern "C" __global__ void pc_s2r8(unsigned* __restrict__ out)
{
    unsigned lane, lt;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    unsigned v = threadIdx.x + threadIdx.y * 3 + threadIdx.z * 5 + blockIdx.x * 7 + blockIdx.y * 11 + blockIdx.z * 13 + lane * 17 + lt;
    out[(blockIdx.x * blockDim.x + threadIdx.x)] = v;
}

extern "C" __global__ void pc_ldc8(float* __restrict__ out, const float* __restrict__ a, const float* __restrict__ b,
                                   const float* __restrict__ c, const float* __restrict__ d, const float* __restrict__ e,
                                   const float* __restrict__ f, const float* __restrict__ g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i] + b[i] + c[i] + d[i] + e[i] + f[i] + g[i];
}

extern "C" __global__ void pc_alu(float* __restrict__ out, int iters)
{
    float x = threadIdx.x * 0.5f, y = 1.0001f;
    for (int i = 0; i < iters; ++i)
        x = fmaf(x, y, 0.25f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Round 2: which SM ends last, and is it the same one every run? Each warp's lane 0 records its SM (%smid) and its
// clock64 before its loads and after their sum is stored (rec: 4 words a warp: smid, start, end, 0); `per` loads a thread
// (0: none, the ALU loop's `iters` rounds instead).
extern "C" __global__ void pc_clock(float* __restrict__ out, const float* __restrict__ in, unsigned long long* __restrict__ rec,
                                    int per, int iters)
{
    unsigned long long t0 = clock64();
    int base = blockIdx.x * blockDim.x * per + threadIdx.x;
    float acc = threadIdx.x * 0.5f;
    for (int i = 0; i < per; ++i)
        acc += in[base + i * blockDim.x];
    for (int i = 0; i < iters; ++i)
        acc = fmaf(acc, 1.0001f, 0.25f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    __threadfence_block();
    unsigned long long t1 = clock64();
    if ((threadIdx.x & 31) == 0) {
        unsigned smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
        rec[4 * w] = smid;
        rec[4 * w + 1] = t0;
        rec[4 * w + 2] = t1;
        rec[4 * w + 3] = 0;
    }
}

// Round 3: stores that scatter (the naive transpose's). Each thread loads one float, then makes `n` stores, lane l of
// warp w at out[(w * 32 + l) * stride + i]... so that one STG touches 32 / (32 / stride) lines: 1 (stride 1), 4 (4), 32
// (32 and up); a 4-byte word of each line for stride >= 32.
extern "C" __global__ void pc_scatter(float* __restrict__ out, const float* __restrict__ in, int stride, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[t];
    for (int i = 0; i < n; ++i)
        out[(size_t)t * stride + i] = v + i;
}

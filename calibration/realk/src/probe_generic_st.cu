// probe_generic_st.cu -- which generic stores to shared memory add store wavefronts beyond the shared-store rule
// (calibration/realk, written here; the open corpus rows generic_smem_axpy, generic_mixed, rule_generic_st128_contig):
//   gsp(out, in, mode, wmask, n): one CTA of 8 warps; each warp in wmask makes n rounds on a 256-float shared tile y
//   (and x), lane t of warp w at index i = (33 (32 w + t) + round) & 255 (a permutation: conflict-free), through
//   generic pointers (chosen at run time between the tile and out, so ptxas keeps ST.E / LD.E) unless said:
//     0 generic store y[i] = v
//     1 generic load y[i], then generic store y[i] (read-modify-write of the same word)
//     2 generic loads x[i] and y[i], then generic store y[i] (generic_smem_axpy's function)
//     3 the same as 2 through the shared window (LDS, STS): the control
//     4 generic 16-byte store of lane t's float4 at 16 (i & 63) bytes
//   __syncthreads() after each round, then the tile goes out.
__device__ __noinline__ void put(float* p, int i, float v) { p[i] = v; }
__device__ __noinline__ float get(const float* p, int i) { return p[i]; }
__device__ __noinline__ void axpy(float* y, const float* x, float a, int i) { y[i] = a * x[i] + y[i]; }
__device__ __noinline__ void put4(float4* p, int i, float4 v) { p[i] = v; }

extern "C" __global__ void gsp(float* out, const float* in, int mode, unsigned wmask, int n)
{
    __shared__ __align__(16) float xs[256], ys[256];
    const int t = threadIdx.x, w = t >> 5;
    xs[t] = in[t];
    ys[t] = in[256 + t];
    __syncthreads();
    const bool on = wmask >> w & 1;
    float* y = n >= 0 ? ys : out;  // always the tile; a generic pointer to ptxas
    const float* x = n >= 0 ? xs : in;
    for (int r = 0; r < n; r++) {
        const int i = (33 * t + r) & 255;
        if (on) {
            if (mode == 0) put(y, i, (float)r);
            else if (mode == 1) put(y, i, get(y, i) + 1.0f);
            else if (mode == 2) axpy(y, x, 1.5f, i);
            else if (mode == 3) ys[i] = 1.5f * xs[i] + ys[i];
            else put4(reinterpret_cast<float4*>(y), i & 63, make_float4((float)r, 1.0f, 2.0f, 3.0f));
        }
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = ys[t];
}

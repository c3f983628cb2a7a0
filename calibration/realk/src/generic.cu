// generic.cu -- shared memory reached through generic addresses (LD.E / ST.E that land in shared memory).
// Written here (calibration/realk). A __noinline__ device function taking a plain float* cannot know the state
// space of its argument, so ptxas emits generic loads and stores in it; called with a pointer into a __shared__
// array they are shared-memory accesses seen through the generic window.
//   generic_smem_axpy   every lane calls the function on the shared tile: y[i] = a * x[i] + y[i] with x, y generic
//                       pointers into shared memory (generic LD/ST, all shared), then the tile is written out
//   generic_mixed       the pointer handed to the function is chosen per lane at run time from an npy flag:
//                       the shared tile or the global output buffer, so one generic instruction of a warp
//                       touches both shared and global memory; a second pass over a float4 (128-bit) generic
//                       access; finally the shared tile is written out too
// Launch: 256 threads per block.
__device__ __noinline__ void axpy_generic(float* y, const float* x, float a, int i)
{
    y[i] = a * x[i] + y[i];
}

__device__ __noinline__ void scale4_generic(float4* p, float s, int i)
{
    float4 v = p[i];
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    p[i] = v;
}

extern "C" __global__ void __launch_bounds__(256)
generic_smem_axpy(float* __restrict__ out, const float* __restrict__ in, float a)
{
    __shared__ float xs[256], ys[256];
    const int tid = threadIdx.x;
    const int g = blockIdx.x * 256 + tid;
    xs[tid] = in[g];
    ys[tid] = in[g + gridDim.x * 256];
    __syncthreads();
    axpy_generic(ys, xs, a, (tid * 33) & 255);  // a permutation of the tile (odd multiplier)
    __syncthreads();
    out[g] = ys[tid];
}

extern "C" __global__ void __launch_bounds__(256)
generic_mixed(float* __restrict__ out, const float* __restrict__ in, const int* __restrict__ sel, float a)
{
    __shared__ __align__(16) float xs[256], ys[256];
    const int tid = threadIdx.x;
    const int g = blockIdx.x * 256 + tid;
    float* og = out + blockIdx.x * 512;  // this block's global copy: 256 floats, then its 256-float shared dump
    xs[tid] = in[g];
    ys[tid] = 1.0f;
    og[tid] = 2.0f;
    __syncthreads();
    const int s = sel[g];
    float* y = (s & 1) ? ys : og;               // shared or global, per lane
    const float* x = (s & 2) ? xs : in + blockIdx.x * 256;
    axpy_generic(y, x, a, tid);
    __syncthreads();
    float4* p = (s & 4) ? reinterpret_cast<float4*>(ys) : reinterpret_cast<float4*>(og);
    if (tid < 64) scale4_generic(p, 0.5f, tid);  // lanes of warps 0 and 1, each its own 16 bytes
    __syncthreads();
    og[256 + tid] = ys[tid];
}

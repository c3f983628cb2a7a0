// ldsm_pad.cu -- a 64x64 half tile read with ldmatrix.x4, its rows padded by PAD halves (written here for the
// fixes' tests: simsmem's "natural fix" of a padding that keeps 2-way conflicts).
// With PAD = 16 (32 bytes) a row is 160 bytes: the 8 row addresses of one 8x8 matrix fall on 16-byte bank groups
// 0, 2, 4, 6, 0, 2, 4, 6 (2-way conflicts); PAD = 8 (144-byte rows) puts them on all 8 groups.
// Launch: grid 1, block 128 (4 warps, 16 rows each); in: 64*64 halves, out: 128 floats.
#include <cuda_fp16.h>

extern "C" __global__ void ldsm_pad(const __half* __restrict__ in, float* __restrict__ out)
{
    __shared__ __align__(16) __half tile[64][64 + 16];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (int c = tid; c < 64 * 8; c += 128) {  // 16-byte chunks: row c / 8, columns (c % 8) * 8 ..
        const int r = c >> 3, k = (c & 7) * 8;
        *reinterpret_cast<uint4*>(&tile[r][k]) = *reinterpret_cast<const uint4*>(&in[r * 64 + k]);
    }
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int kk = 0; kk < 64; kk += 16) {
        unsigned a0, a1, a2, a3;
        const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(&tile[warp * 16 + (lane & 15)][kk + (lane >> 4) * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(at));
        const __half2 h = *reinterpret_cast<const __half2*>(&a0);
        acc += __low2float(h) + __high2float(h) + static_cast<float>((a1 ^ a2 ^ a3) & 1);
    }
    out[tid] = acc;
}

// hgemm.cu -- C = A * B on the tensor cores: A (M x K) and B (K x N) row-major half, f32 accumulation.
// Written here (calibration/realk) from the PTX ISA's descriptions of cp.async, ldmatrix, mma.m16n8k16 and
// stmatrix (the usual Ampere/Hopper "mma.sync" GEMM structure, no wgmma).
//
// CTA tile 64x64, BK = 64, 128 threads = 4 warps in 2x2, each warp 32x32 of C (2 m16 x 4 n8 mma tiles).
// Double buffering: tile kt+1 is copied with cp.async (A: .cg 16 B, B: .ca 16 B), commit_group, then
// wait_group 1 waits for tile kt only. Per 16-wide k step a warp issues 2 ldmatrix.x4 for A (non-transposed) and
// 2 ldmatrix.x4.trans for B (B is k-major in shared memory, the mma wants it n-major) and 8 mma.
// Shared layouts (each tile row = 64 halves = 128 bytes = eight 16-byte chunks):
//   plain     chunk c of row r at c: the 8 row addresses of one 8x8 ldmatrix are 128 bytes apart (all in the
//             same 4 banks): 8-way conflicts on every ldmatrix
//   swizzled  chunk c of row r at c ^ (r % 8): the 8 rows of an 8x8 matrix hit 8 different chunks: conflict-free
// Kernels:
//   hgemm_cpasync_plain   plain layout, f32 C written from the registers
//   hgemm_cpasync_swz     swizzled layout, f32 C written from the registers
//   hgemm_stsm_plain      swizzled operands; epilogue converts to half and stores the 64x64 C tile with
//                         stmatrix.x4 into a plain shared tile (8-way conflicts), then 16-byte copies to global
//   hgemm_stsm_swz        the same with a swizzled C tile (conflict-free stmatrix)
// Requirements (not checked): M, N multiples of 64, K a multiple of 64.
#include <cuda_fp16.h>

constexpr int BM = 64, BN = 64, BK = 64;

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// element offset (in halves) of (row, col) in a 64-half-wide tile; col a multiple of 8 for chunk accesses
template <bool SWZ>
__device__ __forceinline__ int toff(int row, int col)
{
    return row * 64 + (SWZ ? ((((col >> 3) ^ (row & 7)) << 3) | (col & 7)) : col);
}

template <bool SWZ>
__device__ __forceinline__ void load_tiles(__half* As, __half* Bs, const __half* __restrict__ A,
                                           const __half* __restrict__ B, int N, int K, int row0, int col0, int k0)
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int c = tid + 128 * i;  // chunk 0..511 of a 64x64 tile
        const int r = c >> 3, cc = (c & 7) * 8;
        const __half* ga = A + (size_t)(row0 + r) * K + k0 + cc;
        const __half* gb = B + (size_t)(k0 + r) * N + col0 + cc;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(As + toff<SWZ>(r, cc))), "l"(ga));
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(Bs + toff<SWZ>(r, cc))), "l"(gb));
    }
}

// EPI 0: f32 C from registers; 1: stmatrix into a plain C tile; 2: stmatrix into a swizzled C tile (half C)
template <bool SWZ, int EPI>
__device__ __forceinline__ void hgemm(void* __restrict__ Cout, const __half* __restrict__ A,
                                      const __half* __restrict__ B, int M, int N, int K)
{
    __shared__ __align__(128) __half As[2][BM * BK];
    __shared__ __align__(128) __half Bs[2][BK * BN];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;  // warp's 32x32 sub-tile
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[2][4][4] = {};
    const int KT = K / BK;

    load_tiles<SWZ>(As[0], Bs[0], A, B, N, K, row0, col0, 0);
    asm volatile("cp.async.commit_group;\n" ::);
    for (int kt = 0; kt < KT; kt++) {
        if (kt + 1 < KT) {
            load_tiles<SWZ>(As[(kt + 1) & 1], Bs[(kt + 1) & 1], A, B, N, K, row0, col0, (kt + 1) * BK);
            asm volatile("cp.async.commit_group;\n" ::);
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else {
            asm volatile("cp.async.wait_group 0;\n" ::);
        }
        __syncthreads();
        const __half* as = As[kt & 1];
        const __half* bs = Bs[kt & 1];
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned a[2][4], b[4][2];
#pragma unroll
            for (int mi = 0; mi < 2; mi++) {
                const int r = wm + mi * 16 + (lane & 15), c = kk + (lane >> 4) * 8;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(a[mi][0]), "=r"(a[mi][1]), "=r"(a[mi][2]), "=r"(a[mi][3])
                             : "r"(smem_u32(as + toff<SWZ>(r, c))));
            }
#pragma unroll
            for (int nj = 0; nj < 2; nj++) {
                const int r = kk + (lane & 15), c = wn + nj * 16 + (lane >> 4) * 8;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(b[2 * nj][0]), "=r"(b[2 * nj][1]), "=r"(b[2 * nj + 1][0]), "=r"(b[2 * nj + 1][1])
                             : "r"(smem_u32(bs + toff<SWZ>(r, c))));
            }
#pragma unroll
            for (int mi = 0; mi < 2; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++)
                    asm volatile(
                        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                        "{%0,%1,%2,%3};\n"
                        : "+f"(acc[mi][ni][0]), "+f"(acc[mi][ni][1]), "+f"(acc[mi][ni][2]), "+f"(acc[mi][ni][3])
                        : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]), "r"(b[ni][0]), "r"(b[ni][1]));
        }
        __syncthreads();
    }

    const int g = lane >> 2, t = lane & 3;
    if (EPI == 0) {
        float* C = static_cast<float*>(Cout);
#pragma unroll
        for (int mi = 0; mi < 2; mi++)
#pragma unroll
            for (int ni = 0; ni < 4; ni++) {
                const int r = row0 + wm + mi * 16 + g, c = col0 + wn + ni * 8 + 2 * t;
                *reinterpret_cast<float2*>(&C[(size_t)r * N + c]) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
                *reinterpret_cast<float2*>(&C[(size_t)(r + 8) * N + c]) = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
            }
    } else {
        constexpr bool CSWZ = EPI == 2;
        __half* Cs = As[0];  // 64x64 halves; every warp is past the last __syncthreads, operands are dead
#pragma unroll
        for (int mi = 0; mi < 2; mi++)
#pragma unroll
            for (int nj = 0; nj < 2; nj++) {
                unsigned p[4];
#pragma unroll
                for (int q = 0; q < 2; q++) {  // n8 tile 2*nj+q: rows 0-7 then rows 8-15 of the m16 tile
                    const __half2 lo = __floats2half2_rn(acc[mi][2 * nj + q][0], acc[mi][2 * nj + q][1]);
                    const __half2 hi = __floats2half2_rn(acc[mi][2 * nj + q][2], acc[mi][2 * nj + q][3]);
                    p[2 * q] = *reinterpret_cast<const unsigned*>(&lo);
                    p[2 * q + 1] = *reinterpret_cast<const unsigned*>(&hi);
                }
                const int r = wm + mi * 16 + (lane & 15), c = wn + nj * 16 + (lane >> 4) * 8;
                asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(
                                 smem_u32(Cs + toff<CSWZ>(r, c))),
                             "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]));
            }
        __syncthreads();
        __half* C = static_cast<__half*>(Cout);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int c = tid + 128 * i;
            const int r = c >> 3, cc = (c & 7) * 8;
            const uint4 v = *reinterpret_cast<const uint4*>(Cs + toff<CSWZ>(r, cc));
            *reinterpret_cast<uint4*>(&C[(size_t)(row0 + r) * N + col0 + cc]) = v;
        }
    }
}

extern "C" __global__ void __launch_bounds__(128)
hgemm_cpasync_plain(float* __restrict__ C, const __half* __restrict__ A, const __half* __restrict__ B, int M, int N, int K)
{
    hgemm<false, 0>(C, A, B, M, N, K);
}
extern "C" __global__ void __launch_bounds__(128)
hgemm_cpasync_swz(float* __restrict__ C, const __half* __restrict__ A, const __half* __restrict__ B, int M, int N, int K)
{
    hgemm<true, 0>(C, A, B, M, N, K);
}
extern "C" __global__ void __launch_bounds__(128)
hgemm_stsm_plain(__half* __restrict__ C, const __half* __restrict__ A, const __half* __restrict__ B, int M, int N, int K)
{
    hgemm<true, 1>(C, A, B, M, N, K);
}
extern "C" __global__ void __launch_bounds__(128)
hgemm_stsm_swz(__half* __restrict__ C, const __half* __restrict__ A, const __half* __restrict__ B, int M, int N, int K)
{
    hgemm<true, 2>(C, A, B, M, N, K);
}

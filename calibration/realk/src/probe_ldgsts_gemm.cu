// probe_ldgsts_gemm.cu -- which part of a cp.async GEMM adds L1-level LDGSTS bank conflicts (calibration/realk,
// written here: the loop of src/hgemm.cu's hgemm_cpasync_plain with switches, no mma):
//   lg(out, A, B, N, K, opa, opb, ldsm, wait0): a CTA of 4 warps walks K in 64-wide k-tiles of a 64x64 A tile and a
//   64x64 B tile (row-major halves, plain layout: 128-byte tile rows), double-buffered: tile kt+1 is copied (16 B a lane,
//   A by cp.async.ca if opa else .cg, B likewise by opb), commit_group, wait_group 1 (wait_group 0 if wait0), barrier;
//   then, if ldsm, each warp reads the tile with hgemm's ldmatrix.x4 (A) and ldmatrix.x4.trans (B), folding the
//   registers into one word; barrier. The words go out.
//   lgz(..., zf): the same, the copies of A (zf bit 0) and of B (bit 1) in cp.async's src-size form (src-size 16, all
//   in bounds: Triton's form, LDGSTS with a zero-fill size register).
#include <cuda_fp16.h>

constexpr int BM = 64, BN = 64, BK = 64;

__device__ __forceinline__ unsigned sh(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void copy16(unsigned d, const void* g, int ca, int zf, int size)
{
    if (zf && ca) asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(g), "r"(size) : "memory");
    else if (zf) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(g), "r"(size) : "memory");
    else if (ca) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g) : "memory");
    else asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g) : "memory");
}

__device__ __forceinline__ void tiles(__half* As, __half* Bs, const __half* A, const __half* B, int N, int K, int row0, int col0,
                                      int k0, int opa, int opb, int zf)
{
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int c = threadIdx.x + 128 * i, r = c >> 3, cc = (c & 7) * 8;
        const int size = 16 - (zf >> 2);  // 16 (zf < 4), from a kernel argument: ptxas keeps the src-size form
        copy16(sh(As + r * 64 + cc), A + (size_t)(row0 + r) * K + k0 + cc, opa, zf & 1, size);
        copy16(sh(Bs + r * 64 + cc), B + (size_t)(k0 + r) * N + col0 + cc, opb, zf >> 1 & 1, size);
    }
}

__device__ __forceinline__ void loop(unsigned* out, const __half* A, const __half* B, int N, int K, int opa, int opb, int ldsm, int wait0,
                                     int zf)
{
    __shared__ __align__(128) __half As[2][BM * BK];
    __shared__ __align__(128) __half Bs[2][BK * BN];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32, row0 = blockIdx.y * BM, col0 = blockIdx.x * BN, KT = K / BK;
    unsigned fold = 0;
    tiles(As[0], Bs[0], A, B, N, K, row0, col0, 0, opa, opb, zf);
    asm volatile("cp.async.commit_group;" ::: "memory");
    for (int kt = 0; kt < KT; kt++) {
        if (kt + 1 < KT) {
            tiles(As[(kt + 1) & 1], Bs[(kt + 1) & 1], A, B, N, K, row0, col0, (kt + 1) * BK, opa, opb, zf);
            asm volatile("cp.async.commit_group;" ::: "memory");
            if (wait0) asm volatile("cp.async.wait_group 0;" ::: "memory");
            else asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        if (ldsm) {
            const __half* as = As[kt & 1];
            const __half* bs = Bs[kt & 1];
#pragma unroll
            for (int kk = 0; kk < BK; kk += 16) {
                unsigned r0, r1, r2, r3;
#pragma unroll
                for (int mi = 0; mi < 2; mi++) {
                    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                                 : "r"(sh(as + (wm + mi * 16 + (lane & 15)) * 64 + kk + (lane >> 4) * 8)));
                    fold ^= r0 ^ r1 ^ r2 ^ r3;
                }
#pragma unroll
                for (int nj = 0; nj < 2; nj++) {
                    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                                 : "r"(sh(bs + (kk + (lane & 15)) * 64 + wn + nj * 16 + (lane >> 4) * 8)));
                    fold ^= r0 ^ r1 ^ r2 ^ r3;
                }
            }
        }
        __syncthreads();
    }
    out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = fold;
}

extern "C" __global__ void lg(unsigned* out, const __half* A, const __half* B, int N, int K, int opa, int opb, int ldsm, int wait0)
{
    loop(out, A, B, N, K, opa, opb, ldsm, wait0, 0);
}

extern "C" __global__ void lgz(unsigned* out, const __half* A, const __half* B, int N, int K, int opa, int opb, int ldsm, int wait0, int zf)
{
    loop(out, A, B, N, K, opa, opb, ldsm, wait0, zf);
}

// An int8 tensor-core GEMM (written here, for benchmarks/bench_trace_mma.py): C(M x N) = A(M x K) B(K x N) in s32, A
// row-major and B column-major unsigned bytes (B's column j is K contiguous bytes), M and N multiples of 32 and K of
// 32. A CTA of 4 warps computes a 32x32 tile of C, one 16x16 wmma u8 fragment a warp (IMMA.16816.U8.U8, as the CUDA
// samples' int8 GEMM makes); each K step of 32 stages A's 32x32 and B's 32x32 bytes in shared memory, rows padded by
// 16 bytes, copied as 16-byte words.
#include <mma.h>
using namespace nvcuda;

#define TILE 32
#define KSTEP 32
#define LD (KSTEP + 16)

extern "C" __global__ void __launch_bounds__(128) igemm_wmma(int* C, const unsigned char* A, const unsigned char* B, int M, int N, int K)
{
    __shared__ __align__(16) unsigned char As[TILE][LD];
    __shared__ __align__(16) unsigned char Bs[TILE][LD];
    const int tid = threadIdx.x, warp = tid / 32, wy = warp / 2, wx = warp % 2;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    for (int k0 = 0; k0 < K; k0 += KSTEP) {
        // 128 threads, 2 x 32 rows of 32 bytes: each thread one 16-byte word of A's tile and one of B's
        const int r = tid / 2, half = tid % 2;
        if (r < TILE) {
            *(uint4*)&As[r][16 * half] = *(const uint4*)&A[(size_t)(row0 + r) * K + k0 + 16 * half];
        } else {
            *(uint4*)&Bs[r - TILE][16 * half] = *(const uint4*)&B[(size_t)(col0 + r - TILE) * K + k0 + 16 * half];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < KSTEP; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> a;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> b;
            wmma::load_matrix_sync(a, &As[wy * 16][kk], LD);
            wmma::load_matrix_sync(b, &Bs[wx * 16][kk], LD);
            wmma::mma_sync(acc, a, b, acc);
        }
        __syncthreads();
    }
    wmma::store_matrix_sync(&C[(row0 + wy * 16) * N + col0 + wx * 16], acc, N, wmma::mem_row_major);
}

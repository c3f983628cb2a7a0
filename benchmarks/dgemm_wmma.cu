// An f64 tensor-core GEMM (written here, for benchmarks/bench_trace_mma.py): C(M x N) = A(M x K) B(K x N), all
// row-major doubles, M and N multiples of 32 and K of 16. A CTA of 4 warps computes a 32x32 tile of C; each K step
// of 16 stages A's 32x16 and B's 16x32 tiles in shared memory (rows padded by 4 doubles), and each warp's 16x16
// quarter is 2x2 wmma 8x8x4 f64 fragments (DMMA.8x8x4), fed by load_matrix_sync from shared memory.
#include <mma.h>
using namespace nvcuda;

#define TILE 32
#define KSTEP 16
#define PAD 4

extern "C" __global__ void __launch_bounds__(128) dgemm_wmma(double* C, const double* A, const double* B, int M, int N, int K)
{
    __shared__ double As[TILE][KSTEP + PAD];
    __shared__ double Bs[KSTEP][TILE + PAD];
    const int tid = threadIdx.x, warp = tid / 32, wy = warp / 2, wx = warp % 2;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0);
    for (int k0 = 0; k0 < K; k0 += KSTEP) {
        for (int i = tid; i < TILE * KSTEP; i += blockDim.x) As[i / KSTEP][i % KSTEP] = A[(row0 + i / KSTEP) * K + k0 + i % KSTEP];
        for (int i = tid; i < KSTEP * TILE; i += blockDim.x) Bs[i / TILE][i % TILE] = B[(k0 + i / TILE) * N + col0 + i % TILE];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < KSTEP; kk += 4) {
            wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> b[2];
            for (int i = 0; i < 2; i++) wmma::load_matrix_sync(a[i], &As[wy * 16 + i * 8][kk], KSTEP + PAD);
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], &Bs[kk][wx * 16 + j * 8], TILE + PAD);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&C[(row0 + wy * 16 + i * 8) * N + col0 + wx * 16 + j * 8], acc[i][j], N, wmma::mem_row_major);
}

// sgemm.cu -- C = A * B for row-major float matrices (A: M x K, B: K x N, C: M x N; lda = K, ldb = ldc = N).
// Written here (calibration/realk) from the textbook sequence of shared-memory SGEMM tilings.
//
//   sgemm_tile32          32x32 tile of A and of B in shared memory, 32x8 threads, 4 outputs per thread
//                         (rows ty, ty+8, ty+16, ty+24); scalar reads As[r][k] (warp-uniform: broadcast) and
//                         Bs[k][tx] (one row: conflict-free).
//   sgemm_at32_naive      the same, but the A tile is stored transposed (AsT[k][m]) as it is read from global
//                         memory: each warp's 32 stores land 32 words apart, in one bank (32-way conflicts).
//   sgemm_at32_pad1       AsT[32][33]: one padding column, conflict-free stores.
//   sgemm_at32_swz        AsT[32][32] with element (k, m) stored at column m ^ k: conflict-free, no padding.
//   sgemm_rb64_naive      register blocking: 64x64 CTA tile, BK = 16, 16x16 threads, 4x4 outputs per thread,
//                         float4 (LDS.128) reads of a transposed A tile As[16][64] and of Bs[16][64]; the A tile
//                         is stored transposed with scalar stores (4-way conflicts).
//   sgemm_rb64_pad4       As[16][68]: the +4 padding keeps float4 alignment, stores 2-way.
//   sgemm_rb64_swz        As[16][64], row k's 8-float groups XOR-ed with (k/4)&3: conflict-free stores.
//   sgemm_rb128_8x8       128x128 CTA tile, BK = 8, 256 threads, 8x8 outputs per thread (two float4 of A and two
//                         of B per k, 64 apart), A stored transposed (2-way store conflicts).
// Requirements (not checked): M, N multiples of the CTA tile, K a multiple of the k tile.

// ------------------------------------------------------------------------------------------------- 32x32 tiles
extern "C" __global__ void __launch_bounds__(256)
sgemm_tile32(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * 32, col = blockIdx.x * 32 + tx;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 32) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            As[ty + 8 * j][tx] = A[(size_t)(row0 + ty + 8 * j) * K + k0 + tx];
            Bs[ty + 8 * j][tx] = B[(size_t)(k0 + ty + 8 * j) * N + col];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; k++) {
            const float b = Bs[k][tx];
#pragma unroll
            for (int j = 0; j < 4; j++) acc[j] += As[ty + 8 * j][k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < 4; j++) C[(size_t)(row0 + ty + 8 * j) * N + col] = acc[j];
}

// MODE 0: AsT[32][32] (32-way store conflicts), 1: AsT[32][33], 2: AsT[32][32] with column m ^ k.
template <int MODE>
__device__ __forceinline__ void sgemm_at32(float* __restrict__ C, const float* __restrict__ A,
                                           const float* __restrict__ B, int M, int N, int K)
{
    constexpr int LD = MODE == 1 ? 33 : 32;
    __shared__ float AsT[32 * LD];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * 32, col = blockIdx.x * 32 + tx;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 32) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int m = ty + 8 * j;  // row of the A tile; tx is its k
            const float a = A[(size_t)(row0 + m) * K + k0 + tx];
            AsT[tx * LD + (MODE == 2 ? (m ^ tx) : m)] = a;
            Bs[m][tx] = B[(size_t)(k0 + m) * N + col];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; k++) {
            const float b = Bs[k][tx];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int m = ty + 8 * j;
                acc[j] += AsT[k * LD + (MODE == 2 ? (m ^ k) : m)] * b;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < 4; j++) C[(size_t)(row0 + ty + 8 * j) * N + col] = acc[j];
}

extern "C" __global__ void __launch_bounds__(256)
sgemm_at32_naive(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    sgemm_at32<0>(C, A, B, M, N, K);
}
extern "C" __global__ void __launch_bounds__(256)
sgemm_at32_pad1(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    sgemm_at32<1>(C, A, B, M, N, K);
}
extern "C" __global__ void __launch_bounds__(256)
sgemm_at32_swz(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    sgemm_at32<2>(C, A, B, M, N, K);
}

// ------------------------------------------------------------------------------------ register blocked, 64x64
// MODE 0: As[16][64], 1: As[16][68], 2: As[16][64] with float index m ^ (((k >> 2) & 3) << 3).
template <int MODE>
__device__ __forceinline__ int rb64_col(int k, int m)
{
    return MODE == 2 ? (m ^ (((k >> 2) & 3) << 3)) : m;
}

template <int MODE>
__device__ __forceinline__ void sgemm_rb64(float* __restrict__ C, const float* __restrict__ A,
                                           const float* __restrict__ B, int M, int N, int K)
{
    constexpr int BM = 64, BN = 64, BK = 16;
    constexpr int LDA = MODE == 1 ? BM + 4 : BM;
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * BN];
    const int tx = threadIdx.x, ty = threadIdx.y;  // 16 x 16
    const int tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    // loaders: A tile 64 x 16 -> one float4 per thread (row tid/4, k (tid%4)*4); B tile 16 x 64 likewise.
    const int am = tid >> 2, ak = (tid & 3) * 4;
    const int bk = tid >> 4, bn = (tid & 15) * 4;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a = *reinterpret_cast<const float4*>(&A[(size_t)(row0 + am) * K + k0 + ak]);
        const float4 b = *reinterpret_cast<const float4*>(&B[(size_t)(k0 + bk) * N + col0 + bn]);
        As[(ak + 0) * LDA + rb64_col<MODE>(ak + 0, am)] = a.x;
        As[(ak + 1) * LDA + rb64_col<MODE>(ak + 1, am)] = a.y;
        As[(ak + 2) * LDA + rb64_col<MODE>(ak + 2, am)] = a.z;
        As[(ak + 3) * LDA + rb64_col<MODE>(ak + 3, am)] = a.w;
        *reinterpret_cast<float4*>(&Bs[bk * BN + bn]) = b;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            const float4 av = *reinterpret_cast<const float4*>(&As[k * LDA + rb64_col<MODE>(k, ty * 4)]);
            const float4 bv = *reinterpret_cast<const float4*>(&Bs[k * BN + tx * 4]);
            const float ar[4] = {av.x, av.y, av.z, av.w}, br[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] += ar[i] * br[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        *reinterpret_cast<float4*>(&C[(size_t)(row0 + ty * 4 + i) * N + col0 + tx * 4]) =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
}

extern "C" __global__ void __launch_bounds__(256)
sgemm_rb64_naive(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    sgemm_rb64<0>(C, A, B, M, N, K);
}
extern "C" __global__ void __launch_bounds__(256)
sgemm_rb64_pad4(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    sgemm_rb64<1>(C, A, B, M, N, K);
}
extern "C" __global__ void __launch_bounds__(256)
sgemm_rb64_swz(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    sgemm_rb64<2>(C, A, B, M, N, K);
}

// ---------------------------------------------------------------------------------- register blocked, 128x128
extern "C" __global__ void __launch_bounds__(256)
sgemm_rb128_8x8(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K)
{
    constexpr int BM = 128, BN = 128, BK = 8;
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;  // 256 threads, viewed as 16 x 16
    const int tx = tid & 15, ty = tid >> 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int am = tid >> 1, ak = (tid & 1) * 4;    // A tile 128 x 8: one float4 per thread
    const int bk = tid >> 5, bn = (tid & 31) * 4;   // B tile 8 x 128: one float4 per thread
    float acc[8][8] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a = *reinterpret_cast<const float4*>(&A[(size_t)(row0 + am) * K + k0 + ak]);
        const float4 b = *reinterpret_cast<const float4*>(&B[(size_t)(k0 + bk) * N + col0 + bn]);
        As[ak + 0][am] = a.x;
        As[ak + 1][am] = a.y;
        As[ak + 2][am] = a.z;
        As[ak + 3][am] = a.w;
        *reinterpret_cast<float4*>(&Bs[bk][bn]) = b;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[k][ty * 4 + 64]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][tx * 4 + 64]);
            const float ar[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float br[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] += ar[i] * br[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        *reinterpret_cast<float4*>(&C[(size_t)r * N + col0 + tx * 4]) =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(&C[(size_t)r * N + col0 + 64 + tx * 4]) =
            make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

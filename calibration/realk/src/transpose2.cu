// transpose2.cu -- out = in^T through a 32x32 shared tile, for 8-, 16- and 64-bit elements.
// Written here (calibration/realk) from the classic tiled transpose (see transpose.cu for the float version):
// a 32x8 thread block moves a 32x32 tile, 4 elements per thread, coalesced global reads and writes.
//   transpose_f64_naive    double tile[32][32]: the column read tile[tx][ty+j] has a 256-byte lane stride
//                          (every lane in the same two banks: LDS.64 with 32-way conflicts)
//   transpose_f64_padded   double tile[32][33]: lane stride 264 bytes (66 words) -> 2 words apart mod 32
//   transpose_u8_naive     unsigned char tile[32][32]: STS.U8 row writes (4 lanes per word), LDS.U8 column reads
//                          32 bytes apart (lanes 4 words apart: 8 banks used, 4-way conflicts)
//   transpose_u8_padded    unsigned char tile[32][33]
//   transpose_u16_padded   unsigned short tile[32][34]: STS.U16 / LDS.U16, 68-byte lane stride
// Requirements (not checked): width and height multiples of 32.
constexpr int TILE = 32;
constexpr int ROWS = 8;

template <typename T, int LD>
__device__ __forceinline__ void transpose_tile(T* __restrict__ out, const T* __restrict__ in, int width, int height)
{
    __shared__ T tile[TILE * LD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        tile[(threadIdx.y + j) * LD + threadIdx.x] = in[(size_t)(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * height + x] = tile[threadIdx.x * LD + threadIdx.y + j];
}

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_f64_naive(double* __restrict__ out, const double* __restrict__ in, int width, int height)
{
    transpose_tile<double, TILE>(out, in, width, height);
}
extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_f64_padded(double* __restrict__ out, const double* __restrict__ in, int width, int height)
{
    transpose_tile<double, TILE + 1>(out, in, width, height);
}
extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_u8_naive(unsigned char* __restrict__ out, const unsigned char* __restrict__ in, int width, int height)
{
    transpose_tile<unsigned char, TILE>(out, in, width, height);
}
extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_u8_padded(unsigned char* __restrict__ out, const unsigned char* __restrict__ in, int width, int height)
{
    transpose_tile<unsigned char, TILE + 1>(out, in, width, height);
}
extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose_u16_padded(unsigned short* __restrict__ out, const unsigned short* __restrict__ in, int width, int height)
{
    transpose_tile<unsigned short, TILE + 2>(out, in, width, height);
}

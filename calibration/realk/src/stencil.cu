// stencil.cu -- stencils through a shared tile with a halo; values outside the domain read as 0.
// Written here (calibration/realk) from the standard halo-tiling scheme.
//   stencil1d_r3      out[i] = sum_{k=-3..3} w[k] * in[i+k]; 256 threads load 256 centre elements and the first
//                     3 threads also the 3 left and 3 right halo elements (divergent loads), then 7 LDS each
//   stencil2d_5pt     out = 0.5*c + 0.125*(n + s + e + w) on a row-major width x height float grid; a 16x16 block
//                     loads an (16+2)x(16+2) tile: its interior, then the 4 edges by the threads of the tile's
//                     border rows/columns (if tx == 0 / tx == 15 / ty == 0 / ty == 15); a warp spans two tile
//                     rows 18 words apart (2-way conflicts on 2 banks)
constexpr int R = 3;
constexpr int B1 = 256;

extern "C" __global__ void __launch_bounds__(B1)
stencil1d_r3(float* __restrict__ out, const float* __restrict__ in, int n)
{
    __shared__ float s[B1 + 2 * R];
    const int tid = threadIdx.x;
    const int g = blockIdx.x * B1 + tid;
    s[tid + R] = g < n ? in[g] : 0.f;
    if (tid < R) {
        const int l = g - R, r = g + B1;
        s[tid] = l >= 0 ? in[l] : 0.f;
        s[tid + B1 + R] = r < n ? in[r] : 0.f;
    }
    __syncthreads();
    const float w[2 * R + 1] = {0.03125f, 0.09375f, 0.21875f, 0.3125f, 0.21875f, 0.09375f, 0.03125f};
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k <= 2 * R; k++) acc += w[k] * s[tid + k];
    if (g < n) out[g] = acc;
}

constexpr int T2 = 16;

extern "C" __global__ void __launch_bounds__(T2 * T2)
stencil2d_5pt(float* __restrict__ out, const float* __restrict__ in, int width, int height)
{
    __shared__ float t[T2 + 2][T2 + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = blockIdx.x * T2 + tx, y = blockIdx.y * T2 + ty;
    auto at = [&](int xx, int yy) -> float {
        return (xx >= 0 && xx < width && yy >= 0 && yy < height) ? in[(size_t)yy * width + xx] : 0.f;
    };
    t[ty + 1][tx + 1] = at(x, y);
    if (tx == 0) t[ty + 1][0] = at(x - 1, y);
    if (tx == T2 - 1) t[ty + 1][T2 + 1] = at(x + 1, y);
    if (ty == 0) t[0][tx + 1] = at(x, y - 1);
    if (ty == T2 - 1) t[T2 + 1][tx + 1] = at(x, y + 1);
    __syncthreads();
    const float c = t[ty + 1][tx + 1];
    const float nsew = (t[ty][tx + 1] + t[ty + 2][tx + 1]) + (t[ty + 1][tx + 2] + t[ty + 1][tx]);
    if (x < width && y < height) out[(size_t)y * width + x] = 0.5f * c + 0.125f * nsew;
}

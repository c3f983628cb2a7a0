// cpasync.cu -- the cp.async (LDGSTS) operand forms: zero fill, ignore-src and predicated copies.
// Written here (calibration/realk) from the PTX ISA's description of cp.async.
//   cpasync_zfill   a block stages 512 floats of a ragged array (n not a multiple of the tile) three ways into
//                   shared memory and writes the three staged copies out unchanged (the zero fill is visible):
//                     region 0: cp.async.cg 16 B per thread with src-size = the bytes left (16, 12, 8, 4 or 0)
//                     region 1: cp.async.ca 8 B, two per thread, src-size 8, 4 or 0
//                     region 2: cp.async.ca 4 B, four per thread, with the ignore-src predicate (past the end)
//                   sources past the end are clamped to the array's start (never read: src-size 0 / ignored)
//   cpasync_pred    shared memory first filled with a sentinel by plain stores; then each lane copies 4 bytes
//                   (cp.async.ca 4) and 16 bytes (cp.async.cg 16) only where its flag (an npy input) is set,
//                   by a guarded `@p cp.async` in inline PTX: predicated LDGSTS in SASS; lanes whose flag is
//                   clear keep the sentinel
//   cpasync_forms   the plain (full-size, unpredicated) forms, each with its own destination pattern:
//                     .ca 4 B  lane l -> word l (contiguous);  .ca 8 B  lane l -> bytes 16 l (every other 8 B)
//                     .ca 16 B lane l -> chunk (l % 4) * 8 + l / 4 (lanes 4 apart share a 128-byte line: the
//                     eight chunks of lanes 0, 4, .., 28 are one bank group each, conflicting);
//                     .cg 16 B lane l -> chunk l (contiguous); then every region is read back with LDS.128
// Launch: 128 threads per block, grid = ceil(n / 512) (cpasync_forms: grid = n / 128, 16 floats per thread).
constexpr int TB = 128;

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void __launch_bounds__(TB)
cpasync_zfill(float* __restrict__ out, const float* __restrict__ in, int n)
{
    __shared__ __align__(16) float s[3][4 * TB];
    const int tid = threadIdx.x;
    const int base = blockIdx.x * 4 * TB;
    {   // region 0: one 16-byte chunk per thread
        const int e = base + 4 * tid;
        const int left = n - e;
        const int bytes = left >= 4 ? 16 : (left > 0 ? 4 * left : 0);
        const float* src = bytes ? in + e : in;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(&s[0][4 * tid])), "l"(src),
                     "r"(bytes));
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {  // region 1: two 8-byte pieces per thread, 8-byte lane stride
        const int idx = 2 * (tid + TB * h);
        const int left = n - (base + idx);
        const int bytes = left >= 2 ? 8 : (left > 0 ? 4 : 0);
        const float* src = bytes ? in + base + idx : in;
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_u32(&s[1][idx])), "l"(src),
                     "r"(bytes));
    }
#pragma unroll
    for (int q = 0; q < 4; q++) {  // region 2: four 4-byte pieces per thread, consecutive lanes consecutive words
        const int idx = tid + TB * q;
        const int past = base + idx >= n;
        const float* src = past ? in : in + base + idx;
        asm volatile(
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\tcp.async.ca.shared.global [%0], [%1], 4, p;\n}\n" ::"r"(
                smem_u32(&s[2][idx])),
            "l"(src), "r"(past));
    }
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    float* o = out + blockIdx.x * 3 * 4 * TB;
#pragma unroll
    for (int r = 0; r < 3; r++)
#pragma unroll
        for (int q = 0; q < 4; q++) o[r * 4 * TB + tid + TB * q] = s[r][tid + TB * q];
}

extern "C" __global__ void __launch_bounds__(TB)
cpasync_pred(float* __restrict__ out, const float* __restrict__ in, const int* __restrict__ flags, int n)
{
    __shared__ __align__(16) float s4[TB];
    __shared__ __align__(16) float s16[4 * TB];
    const int tid = threadIdx.x;
    const int g = blockIdx.x * TB + tid;
    s4[tid] = -1.0f;
#pragma unroll
    for (int q = 0; q < 4; q++) s16[tid + TB * q] = -2.0f;
    __syncthreads();
    const int f = flags[g];
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t@p cp.async.ca.shared.global [%0], [%1], 4;\n}\n" ::"r"(
                     smem_u32(&s4[tid])),
                 "l"(in + g), "r"(f & 1));
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t@p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(
                     smem_u32(&s16[4 * tid])),
                 "l"(in + 4 * g), "r"(f & 2));
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    float* o = out + blockIdx.x * 5 * TB;
    o[tid] = s4[tid];
#pragma unroll
    for (int q = 0; q < 4; q++) o[TB + tid + TB * q] = s16[tid + TB * q];
}

extern "C" __global__ void __launch_bounds__(TB)
cpasync_forms(float* __restrict__ out, const float* __restrict__ in)
{
    __shared__ __align__(16) float s4[TB], s8[4 * TB], s16a[4 * TB], s16b[4 * TB];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = blockIdx.x * TB + tid;
    const float* src = in + blockIdx.x * 16 * TB;  // this block's 16 * 128 floats
    s8[4 * tid + 2] = 0.f;   // the gaps the 8-byte copies leave
    s8[4 * tid + 3] = 0.f;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_u32(&s4[tid])), "l"(src + tid));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(smem_u32(&s8[4 * tid])),
                 "l"(src + TB + 2 * tid));
    const int chunk = warp * 32 + (lane % 4) * 8 + lane / 4;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(&s16a[4 * chunk])),
                 "l"(src + 4 * TB + 4 * tid));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(&s16b[4 * tid])),
                 "l"(src + 8 * TB + 4 * tid));
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();
    float4* o = reinterpret_cast<float4*>(out + blockIdx.x * 13 * TB);
    o[tid] = reinterpret_cast<const float4*>(s8)[tid];
    o[TB + tid] = reinterpret_cast<const float4*>(s16a)[tid];
    o[2 * TB + tid] = reinterpret_cast<const float4*>(s16b)[tid];
    out[blockIdx.x * 13 * TB + 12 * TB + tid] = s4[tid];
    (void)g;
}

// probe_cpasync_counters.cu -- what ncu's LDGSTS counters do beyond one copy in one warp (calibration/realk, written
// here from the PTX ISA's cp.async):
//   cpc_loop(out, in, mode, n): every warp of the CTA makes n copies, lane l 4 bytes (or 16) of global line
//     L(i) into its own 128-byte (512-byte) row of a 16 KiB tile; then the tile goes out. mode:
//       0 cp.async.ca 4 B, a fresh line each copy (L = warp * n + i), one commit and wait at the end
//       1 cp.async.ca 4 B, the warp's same line every copy (L1 hits after the first)
//       2 cp.async.ca 4 B, fresh lines, commit + wait_group 0 after every copy
//       3 cp.async.cg 16 B, four fresh lines a copy
//       4 cp.async.ca 16 B, four fresh lines a copy
//       5 cp.async.ca 4 B, fresh lines that the warp loaded (ld.global.ca) just before: L1 hits
//   cpb_*(out, in, flags): one warp, k = 0..K-1 copies of 16 bytes a lane (.cg unless said), copy k from in + 512 k + 16 l
//     to byte 512 k + 16 l of the tile, src-size flags[l] bit k ? 16 : 0 (the predicate form), except:
//       cpb_plain4   no src-size (the plain form)          cpb_zfill4  src-size (flags[l] >> 4k) & 31 (.ZFILL form)
//       cpb_pred4_wait  commit + wait_all after each copy  cpb_pred4_bar  __syncthreads() after each copy
//       cpb_pred4_spin  ~2000 cycles of clock64 spin after each copy
//       cpb_ca4_pred4   cp.async.ca 4 B with the ignore-src predicate (flags[l] bit k clear: zeros)
//   cpb_pred2_idx(out, in, flags, src, dst): second batch, see below
constexpr int TILE = 4096;  // words: 16 KiB

__device__ __forceinline__ unsigned sh(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void commit_wait() { asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void ca4(unsigned d, const void* g) { asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(g) : "memory"); }

extern "C" __global__ void cpc_loop(float* out, const float* in, int mode, int n)
{
    __shared__ __align__(128) float s[TILE];
    const int t = threadIdx.x, w = t >> 5, l = t & 31, nw = blockDim.x >> 5;
    for (int k = t; k < TILE; k += blockDim.x) s[k] = -1.0f;
    __syncthreads();
    const float* base = in + (size_t)blockIdx.x * nw * n * 128;  // 128 floats (4 lines) per copy and warp at most
    float acc = 0.f;
    for (int i = 0; i < n; i++) {
        const int line = mode == 1 ? w : w * n + i;
        if (mode == 3 || mode == 4) {
            const float* g = base + (size_t)line * 128 + 4 * l;
            const unsigned d = sh(s + (w % 8) * 128 + 4 * l);
            if (mode == 3) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g) : "memory");
            else asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g) : "memory");
        } else {
            const float* g = base + (size_t)line * 32 + l;
            if (mode == 5) { float v; asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(g)); acc += v; }
            ca4(sh(s + w * 32 + l), g);
            if (mode == 2) commit_wait();
        }
    }
    commit_wait();
    __syncthreads();
    for (int k = t; k < TILE; k += blockDim.x) out[(size_t)blockIdx.x * TILE + k] = s[k] + acc;
}

__device__ __forceinline__ void cg16_pred(unsigned d, const void* g, int on)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(g), "r"(on ? 16 : 0) : "memory");
}
__device__ __forceinline__ void spin()
{
    const long long t0 = clock64();
    while (clock64() - t0 < 2000) {}
}

#define CPB(name, K, between)                                                                                        \
extern "C" __global__ void name(float* out, const char* in, const int* flags)                                      \
{                                                                                                                  \
    __shared__ __align__(128) float s[TILE];                                                                       \
    const int l = threadIdx.x;                                                                                     \
    for (int k = l; k < TILE; k += 32) s[k] = -1.0f;                                                               \
    __syncwarp();                                                                                                  \
    const int f = flags[l];                                                                                        \
    _Pragma("unroll") for (int k = 0; k < K; k++) {                                                                \
        cg16_pred(sh((char*)s + 512 * k + 16 * l), in + 512 * k + 16 * l, f >> k & 1);                            \
        between;                                                                                                   \
    }                                                                                                              \
    commit_wait();                                                                                                 \
    __syncwarp();                                                                                                  \
    for (int k = l; k < TILE; k += 32) out[k] = s[k];                                                              \
}
CPB(cpb_pred1, 1, )
CPB(cpb_pred2, 2, )
CPB(cpb_pred4, 4, )
CPB(cpb_pred8, 8, )
CPB(cpb_pred4_wait, 4, commit_wait())
CPB(cpb_pred4_bar, 4, __syncthreads())
CPB(cpb_pred4_spin, 4, spin())

extern "C" __global__ void cpb_plain4(float* out, const char* in, const int* flags)
{
    __shared__ __align__(128) float s[TILE];
    const int l = threadIdx.x;
    for (int k = l; k < TILE; k += 32) s[k] = -1.0f;
    __syncwarp();
#pragma unroll
    for (int k = 0; k < 4; k++)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sh((char*)s + 512 * k + 16 * l)), "l"(in + 512 * k + 16 * l) : "memory");
    commit_wait();
    __syncwarp();
    for (int k = l; k < TILE; k += 32) out[k] = s[k];
}

extern "C" __global__ void cpb_zfill4(float* out, const char* in, const int* flags)
{
    __shared__ __align__(128) float s[TILE];
    const int l = threadIdx.x;
    for (int k = l; k < TILE; k += 32) s[k] = -1.0f;
    __syncwarp();
    const int f = flags[l];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int n = (f >> (5 * k)) & 31;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(sh((char*)s + 512 * k + 16 * l)), "l"(in + 512 * k + 16 * l),
                     "r"(n > 16 ? 16 : n) : "memory");
    }
    commit_wait();
    __syncwarp();
    for (int k = l; k < TILE; k += 32) out[k] = s[k];
}

extern "C" __global__ void cpb_ca4_pred4(float* out, const char* in, const int* flags)
{
    __shared__ __align__(128) float s[TILE];
    const int l = threadIdx.x;
    for (int k = l; k < TILE; k += 32) s[k] = -1.0f;
    __syncwarp();
    const int f = flags[l];
#pragma unroll
    for (int k = 0; k < 4; k++)
        asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.b32 p, %2, 0;\n\tcp.async.ca.shared.global [%0], [%1], 4, p;\n}\n" ::"r"(
                         sh((char*)s + 128 * k + 4 * l)), "l"(in + 128 * k + 4 * l), "r"(f >> k & 1) : "memory");
    commit_wait();
    __syncwarp();
    for (int k = l; k < TILE; k += 32) out[k] = s[k];
}

// cpb_pred2_idx: two predicate-form copies as cpb_pred2, their source and destination offsets loaded from src[l] and
// dst[l] just before (as the ho5 probes of probe_ldgsts_pred2.cu, whose second copy counted 16 bytes); blockDim.x lanes
extern "C" __global__ void cpb_pred2_idx(float* out, const char* in, const int* flags, const int* src, const int* dst)
{
    __shared__ __align__(128) float s[TILE];
    const int t = threadIdx.x, l = t & 31, w = t >> 5;
    for (int k = t; k < TILE; k += blockDim.x) s[k] = -1.0f;
    __syncthreads();
    const int f = flags[l], so = src[l] + 1024 * w, d = dst[l] + 1024 * w;
    cg16_pred(sh((char*)s + d), in + so, f & 1);
    cg16_pred(sh((char*)s + d + 512), in + so + 512, f >> 1 & 1);
    commit_wait();
    __syncthreads();
    for (int k = t; k < TILE; k += blockDim.x) out[k] = s[k];
}

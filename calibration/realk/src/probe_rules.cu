// probe_rules.cu -- one warp, one shared-memory instruction form, lanes driven by data: the rules the corpus
// could not pin down from whole-kernel totals. Written here (calibration/realk).
//   generic_st / generic_ld   a generic 32-bit ST.E / LD.E into shared memory: lane l at word idx[l] of a 2 KiB tile
//   generic_st64/st128        the same, 8 and 16 bytes a lane
//   cpa_cg16 / cpa_ca4 / cpa_ca8 / cpa_ca16   one cp.async (.cg 16 B, .ca 4/8/16 B) per lane from byte src[l] of the
//                             input to byte dst[l] of a 8 KiB tile with src-size size[l] (0: zero fill)
//   cpa_cg16_pred             the same .cg copy with src-size flag[l] ? 16 : 0 (ptxas makes a predicate of it)
//   cas_spin32 / cas_spin64   atomicAdd of a float / a double to shared word idx[l] (the compiler's ATOMS.CAST.SPIN loop)
//   sts_ldg / sts_ldg_div / sts_alu_div   store-variance probes: 64 rounds of a global load stored to shared by the
//                             whole warp, by the lanes of one side of a divergent branch, or an ALU value by one side
#include <cuda_fp16.h>

__device__ __noinline__ void gput(float* p, int i, float v) { p[i] = v; }
__device__ __noinline__ float gget(const float* p, int i) { return p[i]; }
__device__ __noinline__ void gput2(float2* p, int i, float2 v) { p[i] = v; }
__device__ __noinline__ void gput4(float4* p, int i, float4 v) { p[i] = v; }

extern "C" __global__ void generic_st(float* out, const int* idx, const int* sel)
{
    __shared__ float s[512];
    const int l = threadIdx.x;
    for (int k = l; k < 512; k += 32) s[k] = 0.0f;
    __syncwarp();
    gput(sel[l] ? s : out, idx[l], (float)l);
    __syncwarp();
    for (int k = l; k < 512; k += 32) out[k] = s[k];
}

extern "C" __global__ void generic_ld(float* out, const int* idx, const int* sel)
{
    __shared__ float s[512];
    const int l = threadIdx.x;
    for (int k = l; k < 512; k += 32) s[k] = (float)k;
    __syncwarp();
    out[512 + l] = gget(sel[l] ? s : out, idx[l]);
}

extern "C" __global__ void generic_st64(float2* out, const int* idx, const int* sel)
{
    __shared__ float2 s[256];
    const int l = threadIdx.x;
    for (int k = l; k < 256; k += 32) s[k] = make_float2(0.f, 0.f);
    __syncwarp();
    gput2(sel[l] ? s : out + 256, idx[l], make_float2((float)l, 1.0f));
    __syncwarp();
    for (int k = l; k < 256; k += 32) out[k] = s[k];
}

extern "C" __global__ void generic_st128(float4* out, const int* idx, const int* sel)
{
    __shared__ float4 s[128];
    const int l = threadIdx.x;
    for (int k = l; k < 128; k += 32) s[k] = make_float4(0.f, 0.f, 0.f, 0.f);
    __syncwarp();
    gput4(sel[l] ? s : out + 128, idx[l], make_float4((float)l, 1.0f, 2.0f, 3.0f));
    __syncwarp();
    for (int k = l; k < 128; k += 32) out[k] = s[k];
}

#define CPA(name, qual, bytes)                                                                                     \
extern "C" __global__ void name(float* out, const char* in, const int* src, const int* dst, const int* size)      \
{                                                                                                                  \
    __shared__ __align__(128) float s[2048];                                                                      \
    const int l = threadIdx.x;                                                                                     \
    for (int k = l; k < 2048; k += 32) s[k] = -1.0f;                                                               \
    __syncwarp();                                                                                                  \
    const unsigned d = (unsigned)__cvta_generic_to_shared((char*)s + dst[l]);                                     \
    asm volatile("cp.async." qual ".shared.global [%0], [%1], " #bytes ", %2;" :: "r"(d), "l"(in + src[l]), "r"(size[l]));  \
    asm volatile("cp.async.wait_all;" ::: "memory");                                                               \
    __syncwarp();                                                                                                  \
    for (int k = l; k < 2048; k += 32) out[k] = s[k];                                                              \
}
CPA(cpa_cg16, "cg", 16)
CPA(cpa_ca4, "ca", 4)
CPA(cpa_ca8, "ca", 8)
CPA(cpa_ca16, "ca", 16)

extern "C" __global__ void cpa_cg16_pred(float* out, const char* in, const int* src, const int* dst, const int* size)
{
    __shared__ __align__(128) float s[2048];
    const int l = threadIdx.x;
    for (int k = l; k < 2048; k += 32) s[k] = -1.0f;
    __syncwarp();
    const unsigned d = (unsigned)__cvta_generic_to_shared((char*)s + dst[l]);
    const int n = size[l] ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(d), "l"(in + src[l]), "r"(n));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncwarp();
    for (int k = l; k < 2048; k += 32) out[k] = s[k];
}

extern "C" __global__ void cas_spin32(float* out, const int* idx)
{
    __shared__ float s[256];
    const int l = threadIdx.x;
    for (int k = l; k < 256; k += 32) s[k] = 0.0f;
    __syncwarp();
    atomicAdd(&s[idx[l]], 1.0f + l);
    __syncwarp();
    for (int k = l; k < 256; k += 32) out[k] = s[k];
}

extern "C" __global__ void cas_spin64(double* out, const int* idx)
{
    __shared__ double s[128];
    const int l = threadIdx.x;
    for (int k = l; k < 128; k += 32) s[k] = 0.0;
    __syncwarp();
    atomicAdd(&s[idx[l]], 1.0 + l);
    __syncwarp();
    for (int k = l; k < 128; k += 32) out[k] = s[k];
}

// store variance: ROUNDS stores a thread, each of a value just loaded from global memory (LDG then STS), by the whole
// warp or by the lanes whose flag bit is set (a branch ptxas keeps: the other side loads instead)
#define ROUNDS 64
extern "C" __global__ void sts_ldg(float* out, const float* in, const int* flag)
{
    __shared__ float s[1024];
    const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    volatile float* vs = s;
    float acc = 0.f;
    for (int r = 0; r < ROUNDS; r++) {
        vs[(t * 33 + r) & 1023] = in[(g + 97 * r) & 4095];
        acc += vs[(t + r) & 1023];
    }
    out[g] = acc;
}

extern "C" __global__ void sts_ldg_div(float* out, const float* in, const int* flag)
{
    __shared__ float s[1024];
    const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    volatile float* vs = s;
    const int f = flag[g & 1023];
    float acc = 0.f;
    for (int r = 0; r < ROUNDS; r++) {
        if ((f >> (r & 7)) & 1) {
            vs[(t * 33 + r) & 1023] = in[(g + 97 * r) & 4095];
            for (int k = 0; k < (f >> 8); k++) acc += vs[(t + k) & 1023];
        } else {
            acc *= vs[(t ^ 1) & 1023];
            for (int k = 0; k < (f >> 10); k++) acc -= vs[(t + 3 * k) & 1023];
        }
    }
    out[g] = acc;
}

extern "C" __global__ void sts_alu_div(float* out, const float* in, const int* flag)
{
    __shared__ float s[1024];
    const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    volatile float* vs = s;
    const int f = flag[g & 1023];
    float acc = in[g & 4095];
    for (int r = 0; r < ROUNDS; r++) {
        if ((f >> (r & 7)) & 1) {
            vs[(t * 33 + r) & 1023] = acc * 1.5f + (float)r;
            for (int k = 0; k < (f >> 8); k++) acc += vs[(t + k) & 1023];
        } else {
            acc *= vs[(t ^ 1) & 1023];
            for (int k = 0; k < (f >> 10); k++) acc -= vs[(t + 3 * k) & 1023];
        }
    }
    out[g] = acc;
}

// cp.async .cg without src-size (plain LDGSTS.E.BYPASS.128), to set beside the src-size forms above
extern "C" __global__ void cpa_cg16_plain(float* out, const char* in, const int* src, const int* dst, const int* size)
{
    __shared__ __align__(128) float s[2048];
    const int l = threadIdx.x;
    for (int k = l; k < 2048; k += 32) s[k] = -1.0f;
    __syncwarp();
    const unsigned d = (unsigned)__cvta_generic_to_shared((char*)s + dst[l]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(in + src[l]));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncwarp();
    for (int k = l; k < 2048; k += 32) out[k] = s[k];
}

// store variance with predication instead of a branch: every lane runs the loop, the store is predicated off in some
extern "C" __global__ void sts_pred(float* out, const float* in, const int* flag)
{
    __shared__ float s[1024];
    const int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    volatile float* vs = s;
    const int f = flag[g & 1023];
    float acc = in[g & 4095];
    for (int r = 0; r < ROUNDS; r++) {
        if ((f >> (r & 7)) & 1) vs[(t * 33 + r) & 1023] = acc + (float)r;
        acc += vs[(t + r) & 1023];
    }
    out[g] = acc;
}

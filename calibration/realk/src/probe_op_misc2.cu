// probe_op_misc2.cu -- op_misc wavefronts of what runs/2026-11-29-op-misc left unmeasured (calibration/realk, written here):
// fences (the SASS each PTX fence becomes: MEMBAR, ERRBAR, CGAERRBAR, CCTL.IVALL), local memory (LDL/STL), and the
// per-warp special registers %smid and %warpid (S2UR SR_VIRTUALSMID, S2R SR_VIRTID). Each thread stores one word before
// and one after what is probed, to out[global thread] and out[4096 + global thread].
__device__ __forceinline__ unsigned gid() { return threadIdx.x + blockDim.x * blockIdx.x; }

extern "C" __global__ void om2_fence_gpu(unsigned* out) { out[gid()] = 1u; __threadfence(); out[4096 + gid()] = 2u; }
extern "C" __global__ void om2_fence_sys(unsigned* out) { out[gid()] = 1u; __threadfence_system(); out[4096 + gid()] = 2u; }
extern "C" __global__ void om2_fence_cta(unsigned* out) { out[gid()] = 1u; __threadfence_block(); out[4096 + gid()] = 2u; }

extern "C" __global__ void om2_local(unsigned* out, int n)
{
    volatile unsigned a[32];
    for (int i = 0; i < 32; i++) a[(i * n) & 31] = gid() + i;
    unsigned v = 0;
    for (int i = 0; i < 32; i++) v += a[(i * 5 * n) & 31];
    out[gid()] = v;
    out[4096 + gid()] = 2u;
}

extern "C" __global__ void om2_sreg(unsigned* out)
{
    unsigned r, s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(s));
    out[gid()] = r > 100000u;
    out[4096 + gid()] = s > 100000u;
}

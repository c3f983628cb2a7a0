// variance_probes.cu -- which concurrent traffic adds shared-memory wavefronts to conflict-free full-warp STS/LDS?
// One kernel, vp(out, gin, gout, smode, nmode, ns, nn), 8 warps a CTA (block 256):
//   warps 0-3 (subject): ns conflict-free full-warp shared accesses each (lane l -> bank l, warp w -> word w*32+l):
//     smode 0 = STS.32 (volatile store), smode 1 = LDS.32 (volatile load, summed into out)
//   warps 4-7 (neighbour), concurrently (one __syncthreads first), nmode:
//     0 nothing (exit)                       1 LDG of fresh 128-byte lines (L1 fills), 16 independent loads a batch
//     2 cp.async.ca 4 B/lane (LDGSTS, one fresh line an instr)  3 cp.async.cg 16 B/lane (LDGSTS.BYPASS, 4 fresh lines)
//     4 conflict-free LDS.32                 5 32-way conflicting LDS.32 (stride 32 words: 32 wavefronts each)
//     6 STG of fresh lines                   7 LDG of the same 4 lines (L1 hits after the first touch)
//     8 conflict-free STS.32 (own region)
//   nn instructions per neighbour warp. Global ops are asm volatile so that none is merged, hoisted or dropped.
// Build: nvcc -arch=sm_90 -ptx -o ptx/variance_probes.ptx src/variance_probes.cu
__device__ __forceinline__ float ldg_ca(const float* p) {
    float v;
    asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ void stg(float* p, float v) { asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory"); }

extern "C" __global__ void vp(float* out, const float* gin, float* gout, int smode, int nmode, int ns, int nn)
{
    __shared__ __align__(128) float subj[4 * 32];
    __shared__ __align__(128) float nbr[4 * 32 * 32];      // 16 KiB: LDS / STS / LDGSTS destinations of warps 4-7
    volatile float* vsubj = subj;
    volatile float* vnbr = nbr;
    const int t = threadIdx.x, w = t >> 5, l = t & 31;
    const int cta = blockIdx.x;
    if (t < 128) subj[t] = (float)t;
    for (int k = t; k < 4 * 32 * 32; k += 256) nbr[k] = (float)k;
    __syncthreads();
    float acc = 0.f;
    if (w < 4) {
        if (smode == 0) {
            for (int i = 0; i < ns; i++) vsubj[w * 32 + l] = (float)i;
        } else {
            for (int i = 0; i < ns; i++) acc += vsubj[w * 32 + l];
        }
        out[cta * 256 + t] = acc;
        return;
    }
    const int nw = w - 4;
    // fresh lines of this warp: line index (cta*4 + nw) * nn + i, 32 floats a line
    const float* gbase = gin + (size_t)(cta * 4 + nw) * nn * 32 + l;
    if (nmode == 0) return;
    if (nmode == 1) {
        for (int i = 0; i < nn; i += 16) {
            float v[16];
#pragma unroll
            for (int j = 0; j < 16; j++) v[j] = ldg_ca(gbase + (size_t)(i + j) * 32);
#pragma unroll
            for (int j = 0; j < 16; j++) acc += v[j];
        }
    } else if (nmode == 2) {
        for (int i = 0; i < nn; i++) {
            unsigned d = (unsigned)__cvta_generic_to_shared(&nbr[nw * 1024 + (i & 31) * 32 + l]);
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(gbase + (size_t)i * 32) : "memory");
            if ((i & 15) == 15) asm volatile("cp.async.commit_group;" ::: "memory");
        }
        asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    } else if (nmode == 3) {
        const float* gb = gin + (size_t)(cta * 4 + nw) * nn * 128 + 4 * l;
        for (int i = 0; i < nn; i++) {
            unsigned d = (unsigned)__cvta_generic_to_shared(&nbr[nw * 1024 + (i & 7) * 128 + 4 * l]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(gb + (size_t)i * 128) : "memory");
            if ((i & 3) == 3) asm volatile("cp.async.commit_group;" ::: "memory");
        }
        asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    } else if (nmode == 4) {
        for (int i = 0; i < nn; i++) acc += vnbr[nw * 1024 + (i & 31) * 32 + l];
    } else if (nmode == 5) {
        for (int i = 0; i < nn; i++) acc += vnbr[nw * 1024 + l * 32 + (i & 31)];
    } else if (nmode == 6) {
        float* gb = gout + (size_t)(cta * 4 + nw) * nn * 32 + l;
        for (int i = 0; i < nn; i++) stg(gb + (size_t)i * 32, (float)i);
    } else if (nmode == 7) {
        for (int i = 0; i < nn; i += 16) {
            float v[16];
#pragma unroll
            for (int j = 0; j < 16; j++) v[j] = ldg_ca(gin + ((i + j) & 3) * 32 + l);
#pragma unroll
            for (int j = 0; j < 16; j++) acc += v[j];
        }
    } else if (nmode == 8) {
        for (int i = 0; i < nn; i++) vnbr[nw * 1024 + (i & 31) * 32 + l] = (float)i;
    }
    out[cta * 256 + t] = acc;
}

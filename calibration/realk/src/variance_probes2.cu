// variance_probes2.cu -- second round: which concurrent traffic adds wavefronts or bank conflicts to conflict-free
// shared accesses of the forms real kernels use (partial and divergent stores, 128-bit stores and loads, ldmatrix,
// cp.async.cg)? One kernel, vp2(out, gin, gin2, gout, smode, nmode, ns, nn), 8 warps a CTA (block 256):
//   warps 0-3 (subject), ns instructions each, every one conflict-free (lane l -> its own banks):
//     smode 1 STS.32 of the odd lanes only (a predicated store, no branch)
//     smode 2 a branch per lane and round (a table of random bits) that ptxas if-converts: the lanes of one side store
//             (@P STS.32), the others load twice (@!P LDS.32) from another region; both sides conflict-free
//     smode 7 the same, but divergent: the loading side loops (1 or 2 loads a lane), so the warp branches
//     smode 3 STS.128 (4 wavefronts)      smode 4 LDS.128 (4 wavefronts)      smode 5 LDSM.x4 (4 wavefronts;
//             the rows rotate by the round so that ptxas keeps every one)
//     smode 6 cp.async.cg 16 B a lane (LDGSTS.E.BYPASS.128, 4 wavefronts, 4 fresh global lines an instruction)
//   warps 4-7 (neighbour), concurrently (one __syncthreads first), nn instructions each, nmode: 0 nothing,
//     1 LDG of fresh lines (L1 fills), 3 cp.async.cg 16 B (4 fresh lines), 4 conflict-free LDS.32,
//     8 conflict-free STS.32, 9 conflict-free LDS.128, 10 conflict-free LDSM.x4 (the modes of variance_probes.cu keep
//     their numbers)
// Build: nvcc -arch=sm_90 -ptx -o ptx/variance_probes2.ptx src/variance_probes2.cu
__device__ __forceinline__ float ldg_ca(const float* p) {
    float v;
    asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ void cp_cg16(unsigned d, const void* s) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(s) : "memory");
}
__device__ __forceinline__ void sts128(unsigned a, float x) {
    asm volatile("st.volatile.shared.v4.f32 [%0], {%1, %1, %1, %1};" ::"r"(a), "f"(x) : "memory");
}
__device__ __forceinline__ float lds128(unsigned a) {
    float x, y, z, u;
    asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(u) : "r"(a) : "memory");
    return x + y + z + u;
}
__device__ __forceinline__ unsigned ldsm4(unsigned a) {
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
    return r0 ^ r1 ^ r2 ^ r3;
}

extern "C" __global__ void vp2(float* out, const float* gin, const float* gin2, const unsigned* bits, int smode, int nmode,
                               int ns, int nn)
{
    __shared__ __align__(128) float subj[4 * 128];     // 2 KiB: 512 B a subject warp
    __shared__ __align__(128) float other[4 * 128];    // the divergent loads' region
    __shared__ __align__(128) float nbr[4 * 32 * 32];  // 16 KiB: 4 KiB a neighbour warp
    volatile float* vsubj = subj;
    volatile float* vother = other;
    volatile float* vnbr = nbr;
    const int t = threadIdx.x, w = t >> 5, l = t & 31;
    const int cta = blockIdx.x;
    for (int k = t; k < 4 * 128; k += 256) subj[k] = other[k] = (float)k;
    for (int k = t; k < 4 * 32 * 32; k += 256) nbr[k] = (float)k;
    __syncthreads();
    float acc = 0.f;
    unsigned x = 0;
    if (w < 4) {
        const unsigned mine = (unsigned)__cvta_generic_to_shared(&subj[w * 128 + 4 * l]);
        if (smode == 1) {
            for (int i = 0; i < ns; i++)
                asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %2, 0;\n@p st.volatile.shared.f32 [%0], %1;\n}"
                             ::"r"((unsigned)__cvta_generic_to_shared(&subj[w * 32 + l])), "f"((float)i), "r"(l & 1) : "memory");
        } else if (smode == 2) {
            const unsigned b = bits[(cta * 4 + w) * 32 + l];
            for (int i = 0; i < ns; i++) {
                if ((b >> (i & 31)) & 1) {
                    vsubj[w * 32 + l] = acc + (float)i;
                } else {
                    acc += vother[w * 32 + l];
                    acc *= vother[128 + w * 32 + l];
                }
            }
        } else if (smode == 7) {
            const unsigned b = bits[(cta * 4 + w) * 32 + l];
            const int n2 = 1 + (int)(b >> 31);
            for (int i = 0; i < ns; i++) {
                if ((b >> (i & 31)) & 1) {
                    vsubj[w * 32 + l] = acc + (float)i;
                } else {
                    for (int k = 0; k < n2; k++) acc = acc * 0.5f + vother[(k & 1) * 128 + w * 32 + l];
                }
            }
        } else if (smode == 3) {
            for (int i = 0; i < ns; i++) sts128(mine, (float)i);
        } else if (smode == 4) {
            for (int i = 0; i < ns; i++) acc += lds128(mine);
        } else if (smode == 5) {
            for (int i = 0; i < ns; i++) x += ldsm4(mine - 16 * l + 16 * ((l + i) & 31));
        } else if (smode == 6) {
            const float* gb = gin2 + (size_t)(cta * 4 + w) * ns * 128 + 4 * l;
            for (int i = 0; i < ns; i++) {
                cp_cg16(mine, gb + (size_t)i * 128);
                if ((i & 3) == 3) asm volatile("cp.async.commit_group;" ::: "memory");
                if ((i & 15) == 15) asm volatile("cp.async.wait_group 2;" ::: "memory");
            }
            asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
        }
        out[cta * 256 + t] = acc + (float)x;
        return;
    }
    const int nw = w - 4;
    const float* gbase = gin + (size_t)(cta * 4 + nw) * nn * 32 + l;
    const unsigned nmine = (unsigned)__cvta_generic_to_shared(&nbr[nw * 1024 + 4 * l]);
    if (nmode == 0) return;
    if (nmode == 1) {
        for (int i = 0; i < nn; i += 16) {
            float v[16];
#pragma unroll
            for (int j = 0; j < 16; j++) v[j] = ldg_ca(gbase + (size_t)(i + j) * 32);
#pragma unroll
            for (int j = 0; j < 16; j++) acc += v[j];
        }
    } else if (nmode == 3) {
        const float* gb = gin + (size_t)(cta * 4 + nw) * nn * 128 + 4 * l;
        for (int i = 0; i < nn; i++) {
            cp_cg16((unsigned)__cvta_generic_to_shared(&nbr[nw * 1024 + (i & 7) * 128 + 4 * l]), gb + (size_t)i * 128);
            if ((i & 3) == 3) asm volatile("cp.async.commit_group;" ::: "memory");
            if ((i & 15) == 15) asm volatile("cp.async.wait_group 2;" ::: "memory");
        }
        asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    } else if (nmode == 4) {
        for (int i = 0; i < nn; i++) acc += vnbr[nw * 1024 + (i & 31) * 32 + l];
    } else if (nmode == 8) {
        for (int i = 0; i < nn; i++) vnbr[nw * 1024 + (i & 31) * 32 + l] = (float)i;
    } else if (nmode == 9) {
        for (int i = 0; i < nn; i++) acc += lds128(nmine + (i & 7) * 512);
    } else if (nmode == 10) {
        for (int i = 0; i < nn; i++) x += ldsm4(nmine + (i & 7) * 512);
    }
    out[cta * 256 + t] = acc + (float)x;
}

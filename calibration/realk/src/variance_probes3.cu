// variance_probes3.cu -- round 3: is it the store's registers being overwritten soon after (a write-after-read hazard
// the read scoreboard guards) that adds store wavefronts? Round 2's divergent probe (vp2_sb) and the corpus's
// rule_sts_*_div both overwrite the STS's data register two instructions later; the if-converted twin (vp2_sd, no extra)
// does not. One kernel, vp3(out, gin, gin2, smode, nmode, ns, nn, wmask), 8 warps a CTA (block 256):
//   warps 0-3 whose bit is set in wmask (subject), ns conflict-free full-warp instructions each (lane l -> bank l):
//     0 STS.32 of a register never overwritten (x stays), then an FADD to another register   (control)
//     1 STS.32 x, then FADD x = x + 1 (the data register overwritten by the next instruction)
//     2 STS.32 x, then LDS.32 x from another region          3 STS.32 x, then LDG.32 x (32 lines, L1 hits)
//     4 STS.32 x to [a], then a = a + zero (the address register overwritten; zero = wmask >> 16, 0)
//     5 STS.128 {x,y,z,u}, then FADD on all four             6 mode 1 by the odd lanes only (@P STS, @P FADD)
//     7 a divergent branch per lane and round (random bits): one side STS.32 of a constant register, the other a loop
//       of 1-2 LDS.32 into another (round 2's vp2_sb without the overwritten data register)
//     8 cp.async.cg 16 B a lane whose 8-lane quarters each hit every bank twice (a 2-way conflicting copy, 32 B a lane
//       apart), 4 fresh lines an instruction
//   warps 4-7 (neighbour), after one __syncthreads, nn instructions each, nmode: 0 nothing, 3 cp.async.cg 16 B with at
//     most 3 groups of 4 in flight (round 2's), 10 LDSM.x4, 11 cp.async.cg 16 B all in flight (round 1's),
//     12 the subject's own code (smode, on the neighbour's region)
// Build: nvcc -arch=sm_90 -ptx -o ptx/variance_probes3.ptx src/variance_probes3.cu
__device__ __forceinline__ void cp_cg16(unsigned d, const void* s) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(s) : "memory");
}
__device__ __forceinline__ unsigned ldsm4(unsigned a) {
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
    return r0 ^ r1 ^ r2 ^ r3;
}

// ns stores of form smode (loops not unrolled, so that ptxas keeps one register for x across them) by one warp, lane l: `base` its 1 KiB region, `away` another word of the lane's bank
__device__ __forceinline__ float subject(int smode, int ns, unsigned base, unsigned away, const float* g, const unsigned* bits,
                                         const float* gin2, int l, float c, unsigned zero)
{
    float x = c, y = 0.f, z = c, u = c;
    const unsigned a32 = base + 4 * l;
    if (smode == 0) {
#pragma unroll 1
        for (int i = 0; i < ns; i++) asm volatile("st.volatile.shared.f32 [%2], %1;\n\tadd.f32 %0, %0, 0f3F800000;" : "+f"(y) : "f"(x), "r"(a32) : "memory");
    } else if (smode == 1) {
#pragma unroll 1
        for (int i = 0; i < ns; i++) asm volatile("st.volatile.shared.f32 [%1], %0;\n\tadd.f32 %0, %0, 0f3F800000;" : "+f"(x) : "r"(a32) : "memory");
    } else if (smode == 2) {
#pragma unroll 1
        for (int i = 0; i < ns; i++) asm volatile("st.volatile.shared.f32 [%1], %0;\n\tld.volatile.shared.f32 %0, [%2];" : "+f"(x) : "r"(a32), "r"(away) : "memory");
    } else if (smode == 3) {
#pragma unroll 1
        for (int i = 0; i < ns; i++) asm volatile("st.volatile.shared.f32 [%1], %0;\n\tld.global.ca.f32 %0, [%2];" : "+f"(x) : "r"(a32), "l"(g + 32 * (i & 31)) : "memory");
    } else if (smode == 4) {
        unsigned a = a32;
#pragma unroll 1
        for (int i = 0; i < ns; i++) asm volatile("st.volatile.shared.f32 [%0], %1;\n\tadd.u32 %0, %0, %2;" : "+r"(a) : "f"(x), "r"(zero) : "memory");
    } else if (smode == 5) {
        const unsigned a = base + 16 * l;
#pragma unroll 1
        for (int i = 0; i < ns; i++)
            asm volatile("st.volatile.shared.v4.f32 [%4], {%0, %1, %2, %3};\n\tadd.f32 %0, %0, 0f3F800000;\n\tadd.f32 %1, %1, 0f3F800000;\n\t"
                         "add.f32 %2, %2, 0f3F800000;\n\tadd.f32 %3, %3, 0f3F800000;" : "+f"(x), "+f"(y), "+f"(z), "+f"(u) : "r"(a) : "memory");
    } else if (smode == 6) {
#pragma unroll 1
        for (int i = 0; i < ns; i++)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %2, 0;\n\t@p st.volatile.shared.f32 [%1], %0;\n\t@p add.f32 %0, %0, 0f3F800000;\n\t}"
                         : "+f"(x) : "r"(a32), "r"(l & 1) : "memory");
    } else if (smode == 7) {
        const unsigned b = bits[l];
        const int n2 = 1 + (int)(b >> 31);
        for (int i = 0; i < ns; i++) {
            if ((b >> (i & 31)) & 1) {
                asm volatile("st.volatile.shared.f32 [%0], %1;" ::"r"(a32), "f"(c) : "memory");
            } else {
                for (int k = 0; k < n2; k++) {
                    float v;
                    asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(away + 128 * (k & 1)) : "memory");
                    y = y * 0.5f + v;
                }
            }
        }
    } else if (smode == 8) {
        const unsigned d = base + 32 * (l & 7) + 16 * (l >> 3) % 32 + 256 * (l >> 4);
        for (int i = 0; i < ns; i++) {
            cp_cg16(d, gin2 + (size_t)i * 128 + 4 * l);
            if ((i & 3) == 3) asm volatile("cp.async.commit_group;" ::: "memory");
            if ((i & 15) == 15) asm volatile("cp.async.wait_group 2;" ::: "memory");
        }
        asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    }
    return x + y + z + u;
}

extern "C" __global__ void vp3(float* out, const float* gin, const float* gin2, const unsigned* bits, int smode, int nmode,
                               int ns, int nn, int wmask)
{
    __shared__ __align__(128) float subj[4 * 256];     // 4 KiB: 1 KiB a subject warp
    __shared__ __align__(128) float other[4 * 128];    // the loads' other region
    __shared__ __align__(128) float nbr[4 * 32 * 32];  // 16 KiB: 4 KiB a neighbour warp
    const int t = threadIdx.x, w = t >> 5, l = t & 31;
    for (int k = t; k < 4 * 256; k += 256) subj[k] = (float)k;
    for (int k = t; k < 4 * 128; k += 256) other[k] = (float)k;
    for (int k = t; k < 4 * 32 * 32; k += 256) nbr[k] = (float)k;
    __syncthreads();
    const unsigned away = (unsigned)__cvta_generic_to_shared(&other[(w & 3) * 32 + l]);
    if (w < 4) {
        if (!((wmask >> w) & 1)) return;
        const unsigned base = (unsigned)__cvta_generic_to_shared(&subj[w * 256]);
        out[t] = subject(smode, ns, base, away, gin + l, bits + 32 * w, gin2 + (size_t)w * ns * 128, l, (float)t, (unsigned)wmask >> 16);
        return;
    }
    const int nw = w - 4;
    const unsigned nmine = (unsigned)__cvta_generic_to_shared(&nbr[nw * 1024 + 4 * l]);
    float acc = 0.f;
    unsigned x = 0;
    if (nmode == 0) return;
    if (nmode == 3 || nmode == 11) {
        const float* gb = gin + (size_t)nw * nn * 128 + 4 * l;
        for (int i = 0; i < nn; i++) {
            cp_cg16((unsigned)__cvta_generic_to_shared(&nbr[nw * 1024 + (i & 7) * 128 + 4 * l]), gb + (size_t)i * 128);
            if ((i & 3) == 3) asm volatile("cp.async.commit_group;" ::: "memory");
            if (nmode == 3 && (i & 15) == 15) asm volatile("cp.async.wait_group 2;" ::: "memory");
        }
        asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    } else if (nmode == 10) {
        for (int i = 0; i < nn; i++) x += ldsm4(nmine + (i & 7) * 512);
    } else if (nmode == 12) {
        const unsigned base = (unsigned)__cvta_generic_to_shared(&nbr[nw * 1024]);
        acc = subject(smode, nn, base, away, gin + 32 + l, bits + 32 * nw, gin2 + (size_t)(4 + nw) * nn * 128, l, (float)t, (unsigned)wmask >> 16);
    }
    out[t] = acc + (float)x;
}

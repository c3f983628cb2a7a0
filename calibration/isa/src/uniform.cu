// uniform.cu -- the uniform datapath (UR registers): values that depend only on kernel parameters and the CTA index,
// used as addresses, are computed by ptxas with U* instructions (UIADD3, UIMAD, ULEA, USHF, ULOP3, UISETP, USEL,
// UPRMT, UPOPC, UFLO, UBREV, ...). Every thread stores each value v at out[256 * i + (v & 0xff)] (the same word from
// every thread: the address is uniform, so is the value), so both the value and the address path are checked.
// Launch: 1 CTA of 64 threads; parameters: four u32, two s32, two u64 (several entries, edge values).
#include "isa.h"

#define N 28
extern "C" __global__ void isa_uniform(unsigned* __restrict__ out, unsigned p0, unsigned p1, unsigned p2, unsigned p3, int s0, int s1,
                                       unsigned long long q0, unsigned long long q1)
{
    unsigned v[N];
    int k = 0;
    v[k++] = p0 + p1 + p2;
    v[k++] = p0 * p1 + p2;
    v[k++] = __umulhi(p0, p1);
    v[k++] = (p0 << 3) + p1;
    v[k++] = (p0 & p1) | (~p2 ^ p3);
    v[k++] = __funnelshift_l(p0, p1, p2);
    v[k++] = __funnelshift_rc(p0, p3, p2);
    v[k++] = p0 >> (p1 & 31);
    v[k++] = s0 >> (p1 & 31);
    v[k++] = __popc(p0);
    v[k++] = __clz(p1);
    v[k++] = __brev(p2);
    v[k++] = __byte_perm(p0, p1, p2);
    v[k++] = min(s0, s1);
    v[k++] = max(p0, p1);
    v[k++] = p0 < p1 ? p2 : p3;
    v[k++] = (s0 << 8) >> 8;
    v[k++] = (unsigned)(q0 >> (p0 & 63));
    v[k++] = (unsigned)((q0 * q1) >> 32);
    v[k++] = (unsigned)(q0 + q1);
    v[k++] = (unsigned)((long long)q1 >> (p3 & 63));
    v[k++] = p0 & ((1u << (p1 & 31)) - 1);
    v[k++] = (unsigned)__ffs(p3);
    v[k++] = (unsigned)__ffsll((long long)q0);
    v[k++] = (p0 > p1) + (s0 < s1) * 2 + (q0 <= q1) * 4 + (p2 == p3) * 8;
    v[k++] = (unsigned)((q0 << 2) + q1);
    v[k++] = blockIdx.x * p0 + p1;
    v[k++] = (unsigned)(((unsigned long long)p0 * p1 + q0) >> 16);
#pragma unroll
    for (int i = 0; i < N; i++) out[256 * i + (v[i] & 0xff)] = v[i];
}

// mma_int.cu -- the tensor cores' integer forms that ptxas 13.0 emits for mma.sync on sm_90:
//   IMMA.8816 / .16816 / .16832 with .S8.S8, .S8.U8, .U8.S8, .U8.U8, each with and without .SAT (mma .satfinite);
//   accumulators near INT_MIN / INT_MAX in some trials, so that wrapping and saturation show
//   BMMA.88128 / .168128 / .168256 .AND.POPC (mma .b1 .and.popc; .xor.popc, which ptxas builds from two AND.POPC)
//   mma.m16n8k64 .s4.s4 and .u4.u4 (no 4-bit tensor cores on sm_90: ptxas unpacks to 8 bits and adds two IMMA.16832)
// Launch: 1 CTA of 128 threads (4 warps); input: data/mma_int.npy (make_data.py: one row a word, in the order below).
#include "isa.h"

#define R4(x) "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3])
#define R2(x) "r"(x[0]), "r"(x[1])
#define W4(x) "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
#define W2(x) "=r"(x[0]), "=r"(x[1])
#define LOAD(x, k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) x[i_] = IN(w++)
#define STORE(x, k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) PUT(x[i_])
#define TRIALS 2
#define FORM(na, nb, nc, body)                 \
    for (int s = 0; s < TRIALS; s++) {         \
        LOAD(a, na); LOAD(b, nb); LOAD(c, nc); \
        body;                                  \
        STORE(d, nc);                          \
    }
#define M8816(ta, tb, sat) FORM(1, 1, 2, asm volatile("mma.sync.aligned.m8n8k16.row.col" sat ".s32." ta "." tb ".s32 {%0,%1}, {%2}, {%3}, {%4,%5};" : W2(d) : "r"(a[0]), "r"(b[0]), R2(c)))
#define M16816(ta, tb, sat) FORM(2, 1, 4, asm volatile("mma.sync.aligned.m16n8k16.row.col" sat ".s32." ta "." tb ".s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : W4(d) : R2(a), "r"(b[0]), R4(c)))
#define M16832(ta, tb, sat) FORM(4, 2, 4, asm volatile("mma.sync.aligned.m16n8k32.row.col" sat ".s32." ta "." tb ".s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
#define SIGNS(M, sat) M("s8", "s8", sat) M("s8", "u8", sat) M("u8", "s8", sat) M("u8", "u8", sat)

extern "C" __global__ void __launch_bounds__(128) isa_mma_int(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
    HEAD();
    unsigned a[4], b[2], c[4], d[4];
    SIGNS(M8816, "") SIGNS(M8816, ".satfinite")
    SIGNS(M16816, "") SIGNS(M16816, ".satfinite")
    SIGNS(M16832, "") SIGNS(M16832, ".satfinite")
    FORM(1, 1, 2, asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%0,%1}, {%2}, {%3}, {%4,%5};" : W2(d) : "r"(a[0]), "r"(b[0]), R2(c)))
    FORM(2, 1, 4, asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : W4(d) : R2(a), "r"(b[0]), R4(c)))
    FORM(4, 2, 4, asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    FORM(4, 2, 4, asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    FORM(4, 2, 4, asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    FORM(4, 2, 4, asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
}

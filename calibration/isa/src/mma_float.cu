// mma_float.cu -- the tensor cores' floating-point forms that ptxas 13.0 emits for mma.sync on sm_90, with inputs
// spread over many exponents (the rounding of the sums is what is measured), special values in the last trial:
//   HMMA.16816.F32 / .F16 / .F32.BF16   mma.m16n8k16 f16 (f32 and f16 accumulators), bf16
//   HMMA.1688.F32 / .F16 / .F32.BF16     mma.m16n8k8 f16, bf16
//   HMMA.1688.F32.TF32, HMMA.1684.F32.TF32  mma.m16n8k8 and m16n8k4 tf32 (raw f32 bits in: the low 13 bits ignored?)
//   F2FP.F16.E4M3.UNPACK_B + HMMA       mma.m16n8k32 e4m3 / e5m2 (ptxas unpacks fp8 to f16 and adds two HMMA)
//   MOVM.16.MT88                        movmatrix.m8n8.trans.b16
// Launch: 1 CTA of 128 threads (4 warps); input: data/mma_float.npy (make_data.py: one row a word, in the order below).
#include "isa.h"

#define R4(x) "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3])
#define R2(x) "r"(x[0]), "r"(x[1])
#define W4(x) "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
#define W2(x) "=r"(x[0]), "=r"(x[1])
#define LOAD(x, k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) x[i_] = IN(w++)
#define STORE(x, k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) PUT(x[i_])
#define TRIALS 4

extern "C" __global__ void __launch_bounds__(128) isa_mma_float(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
    HEAD();
    unsigned a[4], b[2], c[4], d[4];
#define FORM(na, nb, nc, nd, body)            \
    for (int s = 0; s < TRIALS; s++) {        \
        LOAD(a, na); LOAD(b, nb); LOAD(c, nc); \
        body;                                 \
        STORE(d, nd);                         \
    }
    // m16n8k16
    FORM(4, 2, 4, 4, asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    FORM(4, 2, 2, 2, asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};" : W2(d) : R4(a), R2(b), R2(c)))
    FORM(4, 2, 4, 4, asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    // m16n8k8
    FORM(2, 1, 4, 4, asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : W4(d) : R2(a), "r"(b[0]), R4(c)))
    FORM(2, 1, 2, 2, asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};" : W2(d) : R2(a), "r"(b[0]), R2(c)))
    FORM(2, 1, 4, 4, asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : W4(d) : R2(a), "r"(b[0]), R4(c)))
    // tf32
    FORM(4, 2, 4, 4, asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    FORM(2, 1, 4, 4, asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : W4(d) : R2(a), "r"(b[0]), R4(c)))
    // fp8 (unpacked to f16 by ptxas)
    FORM(4, 2, 4, 4, asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    FORM(4, 2, 4, 4, asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : W4(d) : R4(a), R2(b), R4(c)))
    // movmatrix
    FORM(1, 0, 0, 1, asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d[0]) : "r"(a[0])))
}

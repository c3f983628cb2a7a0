// mma_f64.cu -- the f64 tensor-core forms ptxas 13.0 emits on sm_90: DMMA.8x8x4, DMMA.16x8x4, DMMA.16x8x8 and
// DMMA.16x8x16 (mma.sync .f64 m8n8k4, m16n8k4, m16n8k8, m16n8k16), with inputs spread over many exponents, sums
// that cancel, and special values in the last trial: how the hardware rounds the sum is what is measured.
// Launch: 1 CTA of 128 threads (4 warps); input: data/mma_f64.npy (make_data.py: one row a 32-bit word, a double's
// low word first, in the order below).
#include "isa.h"

#define LOAD(x, k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) { x[i_] = IN(w); x[i_] |= (unsigned long long)IN(w + 1) << 32; w += 2; }
#define STORE(x, k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) PUT64(x[i_])
#define TRIALS 4
#define FORM(na, nb, nc, body)                 \
    for (int s = 0; s < TRIALS; s++) {         \
        LOAD(a, na); LOAD(b, nb); LOAD(c, nc); \
        body;                                  \
        STORE(d, nc);                          \
    }
#define L2(x) "l"(x[0]), "l"(x[1])
#define L4(x) "l"(x[0]), "l"(x[1]), "l"(x[2]), "l"(x[3])
#define L8(x) L4(x), "l"(x[4]), "l"(x[5]), "l"(x[6]), "l"(x[7])
#define D2(x) "=l"(x[0]), "=l"(x[1])
#define D4(x) "=l"(x[0]), "=l"(x[1]), "=l"(x[2]), "=l"(x[3])

extern "C" __global__ void __launch_bounds__(128) isa_mma_f64(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
    HEAD();
    unsigned long long a[8], b[4], c[4], d[4];
    FORM(1, 1, 2, asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};" : D2(d) : "l"(a[0]), "l"(b[0]), L2(c)))
    FORM(2, 1, 4, asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : D4(d) : L2(a), "l"(b[0]), L4(c)))
    FORM(4, 2, 4, asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : D4(d) : L4(a), L2(b), L4(c)))
    FORM(8, 4, 4, asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};" : D4(d) : L8(a), L4(b), L4(c)))
}

// atomics_packed.cu -- the packed and vector float atomics ptxas 13.0 emits for sm_90: ATOMG/REDG .ADD.F16x2/.BF16x2
// (atom/red.global.add.noftz.f16x2, .bf16x2), .MIN/.MAX.F16x4/.BF16x4 (.v2 .min/.max), .ADD.F32x2/.F32x4 (.v2/.v4
// .f32), .ADD.BF16x8 (.v4 .bf16x2), and the generic ATOM.E.ADD.F16x2/.BF16x2 on global and on shared words (ptxas's
// QSPC + ATOMS.CAST.SPIN fallback after it). Operands are bit patterns hashed from the thread index (any half:
// subnormals, infinities, NaN; the f32 ones normal, since simsmem does not flush subnormals as .FTZ does); each word
// is hit by one thread, but for the last form, where the 128 threads add 1.0 to both halves of 4 shared words (sums
// exact in any order). Launch: 1 CTA of 128 threads; no input (the second argument unused); out: 27 rows of a word a
// thread (memory words after their atomic: a form on k words a thread, k rows with thread t's words at k t .. k t + k - 1;
// old values returned, a row each), then the 4 shared words.
#include <cuda_fp16.h>
#include "isa.h"

__device__ __forceinline__ unsigned hash(unsigned x)
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

extern "C" __global__ void __launch_bounds__(128) isa_atomics_packed(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
    HEAD();
    __shared__ unsigned sh[4];
    if (t < 4) sh[t] = 0;
    __syncthreads();
    unsigned v[8], r[8];
#pragma unroll
    for (int i = 0; i < 8; i++) v[i] = hash(t * 8 + i + 1);
    // an atomic on k words a thread takes k rows: thread t's words at out[j * n + k * t + i], i < k, first hashed too
#define WORD(k, i) (j * n + (k) * t + (i))
#define SEED(k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) out[WORD(k, i_)] = hash(0x10000 + WORD(k, i_))
#define SEEDF(k) _Pragma("unroll") for (int i_ = 0; i_ < k; i_++) out[WORD(k, i_)] = hash(0x10000 + WORD(k, i_)) & 0x807fffffu | 0x3f800000u
#define AT(k) (out + WORD(k, 0))
    SEED(1); asm volatile("atom.global.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r[0]) : "l"(AT(1)), "r"(v[0]) : "memory"); j += 1; PUT(r[0]);
    SEED(1); asm volatile("atom.global.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r[0]) : "l"(AT(1)), "r"(v[1]) : "memory"); j += 1; PUT(r[0]);
    SEED(1); asm volatile("red.global.add.noftz.f16x2 [%0], %1;" :: "l"(AT(1)), "r"(v[2]) : "memory"); j += 1;
    SEED(1); asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" :: "l"(AT(1)), "r"(v[3]) : "memory"); j += 1;
    SEED(2); asm volatile("atom.global.v2.f16x2.min.noftz {%0, %1}, [%2], {%3, %4};" : "=r"(r[0]), "=r"(r[1]) : "l"(AT(2)), "r"(v[4]), "r"(v[5]) : "memory"); j += 2; PUT(r[0]); PUT(r[1]);
    SEED(2); asm volatile("red.global.v2.bf16x2.max.noftz [%0], {%1, %2};" :: "l"(AT(2)), "r"(v[6]), "r"(v[7]) : "memory"); j += 2;
    SEEDF(2); asm volatile("atom.global.v2.f32.add {%0, %1}, [%2], {%3, %4};" : "=r"(r[0]), "=r"(r[1]) : "l"(AT(2)), "r"(v[0] & 0x807fffffu | 0x3f000000u), "r"(v[1] & 0x807fffffu | 0x40000000u) : "memory"); j += 2; PUT(r[0]); PUT(r[1]);
    SEED(4); asm volatile("atom.global.v4.bf16x2.add.noftz {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "l"(AT(4)), "r"(v[4]), "r"(v[5]), "r"(v[6]), "r"(v[7]) : "memory"); j += 4; PUT(r[0]); PUT(r[1]); PUT(r[2]); PUT(r[3]);
    // generic: a global word, then a shared one
    SEED(1);
    __half2 one = __floats2half2_rn(1.0f, 1.0f);
    __half2 g = atomicAdd((__half2*)AT(1), *(__half2*)&v[2]); j += 1; PUT(*(unsigned*)&g);
    __half2 s = atomicAdd((__half2*)&sh[t % 4], one); PUT(*(unsigned*)&s);
    __syncthreads();
    if (t < 4) out[j * n + t] = sh[t];
}

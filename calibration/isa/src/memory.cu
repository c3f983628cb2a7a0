// memory.cu -- shared, global, generic and local memory instructions and their orderings, with results that do not
// depend on the order in which warps run:
//   STS/LDS of 1, 2, 4, 8 and 16 bytes (signed and unsigned sub-word loads), ATOMS (add, min/max signed and unsigned,
//   inc/dec, and/or/xor, exch, cas 32/64, f32 add as a CAS loop) on per-thread or commutative slots, LDSM (x1, x2, x4,
//   .trans) and STSM, LDGSTS (cp.async 4, 8, 16 bytes, .cg, zero fill) with LDGDEPBAR/DEPBAR, LDG/STG of 1-16 bytes,
//   ATOMG with returned values on per-thread words, REDG on shared counters, generic LD/ST/ATOM/RED through a
//   __noinline__ function (global and shared pointers), LDL/STL (a dynamically indexed local array), BAR with
//   reductions (B2R), MEMBAR/FENCE (fence.proxy.async)/ERRBAR/CCTL.
// Launch: 1 CTA of 128 threads; input: data/memory.npy (32 words a thread); out: 128 * 128 words; scratch: a
// 16384-byte global buffer (the atomics' words). Results 3-6 race (the byte stores at 1024 + t and the 8-byte stores
// at 1024 + 8t overlap across warps; found after the H200 run, kept as measured: runs/2026-11-29/README.md).
#include "isa.h"
#include <cuda_pipeline_primitives.h>

// generic LD/ST through p (shared or global), generic ATOM/RED through g (global: a generic atomic that lands in shared
// memory is another issue's)
__device__ __noinline__ void generic_ops(unsigned* p, unsigned* g, unsigned v, unsigned* r)
{
    r[0] = p[0];                                                     // LD
    p[0] = v ^ 0x5a5a5a5au;                                          // ST
    r[1] = atomicAdd(g, v);                                          // ATOM
    asm volatile("red.xor.b32 [%0], %1;" :: "l"(g + 1), "r"(v) : "memory");   // RED
}

extern "C" __global__ void __launch_bounds__(128) isa_memory(unsigned* __restrict__ out, const unsigned* __restrict__ in,
                                                              unsigned* __restrict__ scratch)
{
    HEAD();
    __shared__ __align__(16) unsigned sw[128 * 8];   // per-thread words
    __shared__ __align__(16) unsigned short tile[16 * 16 * 4];
    __shared__ __align__(16) unsigned cp[128 * 4 * 3];
    __shared__ unsigned slots[64];
    __shared__ unsigned long long s64[128];
    __shared__ float sf[8];
    const unsigned a = IN(0), b = IN(1), c = IN(2), d = IN(3);
    // ---- plain shared stores and loads of every width
    unsigned char* sb = (unsigned char*)sw;
    sw[t] = a;
    ((unsigned short*)sw)[256 + t] = (unsigned short)b;
    sb[1024 + t] = (unsigned char)c;
    ((unsigned long long*)sw)[128 + t] = ((unsigned long long)b << 32) | c;
    ((uint4*)sw)[128 + t] = make_uint4(a, b, c, d);   // words 512.. (16 bytes each)
    if (t < 64) slots[t] = 0;
    if (t < 8) sf[t] = 0.0f;
    s64[t] = 0;
    __syncthreads();
    const int u = (t * 37 + 5) & 127;   // another thread's data
    PUT(sw[u]);
    PUT((int)((short*)sw)[256 + u]);
    PUT(((unsigned short*)sw)[256 + u]);
    PUT((int)((signed char*)sb)[1024 + u]);
    PUT(sb[1024 + u]);
    PUT64(((unsigned long long*)sw)[128 + u]);
    {
        uint4 q = ((uint4*)sw)[128 + (u ^ 3)];
        PUT(q.x); PUT(q.y); PUT(q.z); PUT(q.w);
    }
    __syncthreads();
    // ---- shared atomics: returned values only where each thread owns its slot; shared slots get commutative ops only
    PUT(atomicAdd(&sw[t], b));
    PUT(atomicMin((int*)&sw[t], (int)c));
    PUT(atomicMax(&sw[t], d));
    PUT(atomicInc(&sw[t], a | 1));
    PUT(atomicDec(&sw[t], b | 1));
    PUT(atomicAnd(&sw[t], c | 0x0f0f0f0fu));
    PUT(atomicOr(&sw[t], d & 0x30303030u));
    PUT(atomicXor(&sw[t], a));
    PUT(atomicExch(&sw[t], b));
    PUT(atomicCAS(&sw[t], b, c));        // succeeds
    PUT(atomicCAS(&sw[t], a ^ 1, d));    // fails unless a^1 == c
    PUT64(atomicCAS(&s64[t], 0ull, ((unsigned long long)a << 32) | b));
    PUT64(atomicAdd(&s64[t], (unsigned long long)c));
    atomicAdd(&slots[a & 63], 1u);
    atomicMax(&slots[(b & 31) + 32], c);
    atomicAdd(&sf[t & 7], (float)(int)(a & 0xff) * 0.25f);   // exact in any order
    __syncthreads();
    PUT(sw[t]);
    if (t < 64) PUT(slots[t]); else PUT(__float_as_uint(sf[t & 7]));
    // ---- ldmatrix / stmatrix over a 16x16 b16 tile (and a second one)
    for (int i = t; i < 16 * 16 * 4; i += n) tile[i] = (unsigned short)(in[(4 + (i >> 7)) * n + (i & 127)] >> (i & 8));
    __syncthreads();
    {
        const int lane = t & 31, warp = t >> 5;
        unsigned short* base = tile + warp * 256;
        const unsigned row = (unsigned)__cvta_generic_to_shared(base + (lane & 15) * 16 + (lane >> 4) * 8);
        unsigned r0, r1, r2, r3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(row));
        PUT(r0);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(row));
        PUT(r0); PUT(r1);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(row));
        PUT(r0); PUT(r1); PUT(r2); PUT(r3);
        __syncwarp();
        const unsigned dst = (unsigned)__cvta_generic_to_shared(base + (lane & 15) * 16 + ((lane >> 4) ^ 1) * 8);
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(dst), "r"(r3), "r"(r2), "r"(r1), "r"(r0));
        __syncwarp();
        PUT(((unsigned*)base)[lane]);
        PUT(((unsigned*)base)[lane + 32]);
        PUT(((unsigned*)base)[lane + 64]);
        PUT(((unsigned*)base)[lane + 96]);
    }
    // ---- cp.async (LDGSTS) from the input: 4, 8, 16 bytes (.ca), 16 bytes (.cg), a partial copy with zero fill
    {
        const unsigned* src = in + 8 * n;   // input words 8..
        __pipeline_memcpy_async(&cp[t], src + t, 4);
        __pipeline_memcpy_async(&cp[128 + 2 * (t & 63)], src + n + 2 * (t & 63), 8);
        __pipeline_commit();
        __pipeline_memcpy_async(&cp[256 + 4 * (t & 31)], src + 2 * n + 4 * (t & 31), 16);
        __pipeline_memcpy_async(&cp[384 + 4 * (t & 31)], src + 3 * n + 4 * (t & 31), 16, 16 - 4 * (t & 3));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        PUT(cp[t]);
        __pipeline_wait_prior(0);
        __syncthreads();
        PUT(cp[128 + t]);
        PUT(cp[256 + t]);
        PUT(cp[384 + t]);
    }
    // ---- global loads and stores of every width, through scratch
    {
        unsigned* g = scratch + 4 * t;
        ((uint4*)scratch)[t] = make_uint4(d, c, b, a);
        __syncthreads();
        const unsigned char* gb = (const unsigned char*)scratch;
        PUT(((volatile unsigned*)scratch)[(u * 4 + 1)]);
        PUT((int)((volatile short*)scratch)[u * 8 + 3]);
        PUT(((volatile unsigned short*)scratch)[u * 8 + 3]);
        PUT((int)((volatile signed char*)gb)[u * 16 + 5]);
        PUT(((volatile unsigned char*)gb)[u * 16 + 5]);
        PUT64(((volatile unsigned long long*)scratch)[u * 2 + 1]);
        __syncthreads();
        // ---- global atomics with returned values on each thread's own words
        PUT(atomicAdd(g, a));
        PUT(atomicMin((int*)g + 1, (int)b));
        PUT(atomicMax(g + 2, c));
        PUT(atomicInc(g + 3, d | 1));
        PUT(atomicExch(g, b));
        PUT(__float_as_uint(atomicAdd((float*)g + 2, __uint_as_float(d & 0x3fffffffu))));
        PUT64(atomicAdd((unsigned long long*)g + 1, ((unsigned long long)a << 20) | b));
        // ---- commutative reductions on shared counters (no returned value: REDG)
        asm volatile("red.global.add.u32 [%0], %1;" :: "l"(scratch + 512 + (a & 15)), "r"(b & 0xffff) : "memory");
        asm volatile("red.global.or.b32 [%0], %1;" :: "l"(scratch + 528 + (b & 15)), "r"(1u << (t & 31)) : "memory");
        asm volatile("red.global.min.s32 [%0], %1;" :: "l"(scratch + 544 + (c & 15)), "r"(d) : "memory");
        __syncthreads();
        __threadfence();
        PUT(scratch[4 * t]); PUT(scratch[4 * t + 1]); PUT(scratch[4 * t + 2]); PUT(scratch[4 * t + 3]);
        PUT(((volatile unsigned*)scratch)[512 + (t & 63)]);
    }
    // ---- generic accesses: a shared pointer for odd warps, a global one for even warps
    {
        __shared__ unsigned gen[128 * 3];
        gen[3 * t] = a; gen[3 * t + 1] = b; gen[3 * t + 2] = c;
        scratch[1024 + 3 * t] = d; scratch[1024 + 3 * t + 1] = a; scratch[1024 + 3 * t + 2] = b;
        __syncthreads();
        unsigned r[2];
        generic_ops(((t >> 5) & 1) ? gen + 3 * t : scratch + 1024 + 3 * t, scratch + 1536 + 2 * t, c, r);
        __syncthreads();
        PUT(r[0]); PUT(r[1]);
        PUT(((t >> 5) & 1) ? gen[3 * t] : scratch[1024 + 3 * t]);
        PUT(scratch[1536 + 2 * t]); PUT(scratch[1536 + 2 * t + 1]);
    }
    // ---- local memory: an array indexed at run time
    {
        unsigned loc[24];
#pragma unroll
        for (int i = 0; i < 24; i++) loc[i] = a * (i + 1) + IN(12 + (i & 7));
        PUT(loc[b % 24]);
        loc[c % 24] = d;
        PUT(loc[(a ^ c) % 24]);
    }
    // ---- barriers with reductions, fences
    PUT(__syncthreads_count(a & 1));
    PUT(__syncthreads_and(b != 7));
    PUT(__syncthreads_or(c == d));
    __threadfence_block();
    __threadfence_system();
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("prefetch.global.L2 [%0];" :: "l"(scratch + 4 * t));
    PUT(scratch[4 * t + 1]);
}

// atomicCAS on global memory (ATOMG.E.CAS, whose 64-bit address nvdisasm prints without .64), alone: each thread its
// own word, one compare that succeeds and one that fails
extern "C" __global__ void isa_atomg_cas(unsigned* __restrict__ out, const unsigned* __restrict__ in, unsigned* __restrict__ scratch)
{
    HEAD();
    scratch[t] = IN(0);
    PUT(atomicCAS(scratch + t, IN(0), IN(1)));
    PUT(atomicCAS(scratch + t, IN(0) ^ 1, IN(2)));
    PUT64(atomicCAS((unsigned long long*)scratch + 64 + t, 0ull, ((unsigned long long)IN(3) << 32) | IN(1)));
    PUT(scratch[t]);
}

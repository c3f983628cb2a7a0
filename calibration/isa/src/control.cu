// control.cu -- control flow and warp-level instructions beyond what the realk isa_* kernels execute, with outputs
// that record the path each thread took: BRX (a switch on a parameter, which ptxas makes a jump table in constant
// bank 2; one manifest entry per `mode`), a __noinline__ call inside divergent code (BSSY, BSYNC, CALL, RET),
// predicates kept across a loop (P2R), a register's bits tested as predicates (R2P), collectives with run-time masks
// under divergence (WARPSYNC, VOTE, MATCH, REDUX), VOTEU, ELECT (elect.sync), NANOSLEEP, a wait that spins on a flag
// (YIELD), FSET (set.f32.f32), I2IP (cvt.pack.sat), PMTRIG (pmevent), PREEXIT and ACQBULK (griddepcontrol);
// isa_trap: BPT.TRAP.
// Launch: 1 CTA of 128 threads; input: data/control.npy (16 words a thread); out: 64 * 128 words; flag: 4 bytes.
#include "isa.h"

__device__ __noinline__ unsigned nested(unsigned x, unsigned y)
{
    unsigned r = 0;
    for (unsigned k = 0; k < (x & 7); k++) {   // trip count differs per lane
        if ((y >> k) & 1) r += (x + k) * (y | 1);
        else r ^= x * k;
    }
    return r;
}

extern "C" __global__ void __launch_bounds__(128) isa_control(unsigned* __restrict__ out, const unsigned* __restrict__ in,
                                                               unsigned* __restrict__ flag, int mode)
{
    HEAD();
    const unsigned a = IN(0), b = IN(1), c = IN(2), d = IN(3);
    // ---- a switch on a uniform value whose cases hold loops: ptxas makes it a jump table (BRX)
    unsigned r = 0;
    const int trips = b & 7;
    switch (mode) {
    case 0: for (int i = 0; i < trips; i++) r += IN(4 + i); break;
    case 1: for (int i = 0; i < trips; i++) r ^= IN(4 + i) * 3; break;
    case 2: for (int i = 0; i < trips; i++) r = r * 5 + IN(4 + i); break;
    case 3: for (int i = 0; i < trips; i++) r -= IN(4 + i) >> 2; break;
    case 4: for (int i = 0; i < trips; i++) r |= IN(4 + i) << i; break;
    case 5: for (int i = 0; i < trips; i++) r += __popc(IN(4 + i)); break;
    case 6: for (int i = 0; i < trips; i++) r = max(r, IN(4 + i)); break;
    default: r = 77; break;
    }
    PUT(r);
    // ---- a __noinline__ call inside divergent code, itself divergent
    if (b & 1) r = nested(a, c) + 1;
    else if (b & 2) r = nested(c, a) + 2;
    else r = 3;
    PUT(r);
    // ---- predicates live across a loop
    {
        const bool p0 = a > b, p1 = c > d, p2 = (int)a < (int)c, p3 = b == (d & 0xff), p4 = (a & 16) != 0, p5 = (c & 32) != 0,
                   p6 = (int)d < 0, p7 = (b ^ d) > 1000u;
        unsigned acc = 0;
        for (int k = 0; k < 8 + (int)(d & 3); k++) {
            const unsigned x = IN(4 + (k & 7));
            acc = p0 ? acc + x : acc ^ x;
            acc = p1 ? acc * 3 : acc + 1;
            acc = p2 ? acc - x : acc;
            acc = p3 ? acc : acc ^ 0x55;
            acc = p4 ? acc + 7 : acc;
            acc = p5 ? acc : acc * 5;
            acc = p6 ? acc ^ x : acc;
            acc = p7 ? acc + k : acc;
        }
        PUT(acc);
    }
    // ---- a register's bits as predicates (R2P)
    {
        unsigned x = d;
#pragma unroll
        for (int i = 0; i < 7; i++) x = (c & (1u << i)) ? x * 3 : x ^ i;
        PUT(x);
    }
    // ---- collectives with run-time masks under divergence
    {
        const unsigned lane = t & 31;
        if (a & 1) {
            const unsigned m = __activemask();
            PUT(__shfl_sync(m, b, (c & 31)) & ((m >> (c & 31)) & 1 ? ~0u : 0u));
            PUT(__ballot_sync(m, c & 2));
            PUT(__reduce_add_sync(m, d));
        } else {
            const unsigned m = __activemask();
            PUT(m);
            PUT(__match_any_sync(m, b & 3));
            PUT(__reduce_or_sync(m, c));
        }
        PUT(__activemask() + (unsigned)lane);
    }
    // ---- elect.sync: the leader of each warp, and only it
    {
        unsigned leader, is;
        asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n}" : "=r"(leader), "=r"(is));
        PUT(leader);
        PUT(is);
    }
    // ---- a wait that spins on a flag (YIELD in the loop): set before the barrier, so the first look finds it (a warp
    // spinning on another warp's later store is a question of scheduling, which the executor does not model)
    __nanosleep(200);
    if (t == 96) atomicExch(flag, 1u);
    __syncthreads();
    if (t < 32) {
        unsigned spins = 0;
        while (atomicAdd(flag, 0u) == 0) spins++;
        PUT(spins);
    }
    PUT(*(volatile unsigned*)flag);
    // ---- set.f32 (FSET), cvt.pack.sat (I2IP), pmevent (PMTRIG), griddepcontrol (PREEXIT, ACQBULK)
    {
        unsigned f, g;
        asm volatile("set.gtu.f32.f32 %0, %1, %2;" : "=r"(f) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b)));
        PUT(f);
        asm volatile("set.le.ftz.f32.f32 %0, %1, %2;" : "=r"(f) : "f"(__uint_as_float(c)), "f"(__uint_as_float(d)));
        PUT(f);
        asm volatile("set.ne.u32.f32 %0, %1, %2;" : "=r"(f) : "f"(__uint_as_float(a)), "f"(__uint_as_float(d)));
        PUT(f);
        asm volatile("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(g) : "r"(a), "r"(b), "r"(c));
        PUT(g);
        asm volatile("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(g) : "r"(c), "r"(d), "r"(a));
        PUT(g);
        asm volatile("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(g) : "r"(b), "r"(d));
        PUT(g);
        asm volatile("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(g) : "r"(a), "r"(c));
        PUT(g);
        asm volatile("pmevent 3;");
        asm volatile("griddepcontrol.launch_dependents;");
        asm volatile("griddepcontrol.wait;" ::: "memory");
    }
}

// __trap() executed: the GPU stops the launch (the launcher exits with an error), simsmem stops the trace
extern "C" __global__ void isa_trap(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
    HEAD();
    PUT(IN(0));
    if (IN(0) != 0x12345678u) __trap();
    PUT(1);
}

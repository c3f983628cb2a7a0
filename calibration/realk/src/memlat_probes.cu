// memlat_probes.cu -- global-memory round trips against the lines in flight (issue 33: the timed SM's DRAM and L2
// waits). Two kernels, ml and ml8 (out, buf, n, wide, hot, rounds, bar), blocks of W warps (W = blockDim.x / 32); ml8 is
// ml for n 1 and 4 in 32 registers a thread (8 CTAs of 8 warps fit an SM), ml has registers for 64 loads in flight:
//   each warp does `rounds` dependent round trips; in each it issues n loads, all before any of their data is used, then
//   adds what they loaded (zeros) into the next round's address, so that round r + 1 cannot start before round r's data
//   is back. A load covers whole 128-byte lines: wide 0, ld.global.u32 (LDG.E, 1 line an instruction); wide 1,
//   ld.global.v4.u32 (LDG.E.128, 4 lines an instruction). Lines in flight per warp: n x (wide ? 4 : 1).
//   hot 0 (cold): every round of every warp loads lines no warp loaded before (DRAM after ncu's cache flush), with
//     default loads (cached in L1, as the corpus's are);
//   hot 1 (L2): every round of a warp loads the same lines, with ld.global.cg (L2 only): round 0 from DRAM, rounds 1..
//     from L2.
//   bar 1: a barrier ends each round (all warps of the CTA wait for the CTA's slowest round trip): __syncthreads_or of
//     a test of the loaded data (BAR.RED), which ptxas cannot put before the data is used.
// Output: the records of the warps of the CTAs b with b % 132 < 8 (every CTA of a grid of at most 8; of a grid of 132 k,
// the CTAs of 8 SMs if CTAs go to the 132 SMs round robin, the first SM's among them), CTA b's at slot
// (b / 132) * 8 + b % 132, each warp rounds + 2 words of 32 bits: [0] the SM it ran on (%smid) << 16 | its CTA
// (blockIdx.x, mod 65536); [1 + r] the low word of clock64 at the start of round r (before its first load); [1 + rounds]
// the same after the last round's data is used. Lane 0 stores each word (a predicated 4-byte STG).
// buf: zeros, rounds x G x lines-per-warp x 128 bytes cold, G x lines-per-warp x 128 hot (G = gridDim.x x W).
// Build: nvcc -arch=sm_90 -ptx -o ptx/memlat_probes.ptx src/memlat_probes.cu
#include <cstdint>

constexpr unsigned SMS = 132;  // the H200's SMs: a grid of 132 k puts k CTAs on each
constexpr unsigned KEPT = 8;   // the CTAs b with b % SMS < KEPT keep their warps' records

__device__ __forceinline__ unsigned smid()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ __forceinline__ unsigned long long clk()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

template <bool CG>
__device__ __forceinline__ unsigned ld1(const unsigned* p)
{
    unsigned v;
    if (CG)
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    else
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

template <bool CG>
__device__ __forceinline__ unsigned ld4(const unsigned* p)
{
    unsigned a, b, c, d;
    if (CG)
        asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");
    else
        asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");
    return (a ^ b) + (c ^ d);
}

// One warp's rounds: N loads a round, each WIDE ? 4 : 1 lines. `chunk`: the warp's first line of round 0 (in words),
// `step`: words from one round's lines to the next's (0 when hot).
template <int N, bool WIDE, bool CG, bool BAR>
__device__ __forceinline__ void rounds_of(unsigned* rec, const unsigned* chunk, size_t step, int rounds, int lane)
{
    constexpr int WORDS = WIDE ? 128 : 32;  // words an instruction covers
    const unsigned* p = chunk + (WIDE ? 4 : 1) * lane;
    unsigned s = 0;
#pragma unroll 1
    for (int r = 0; r < rounds; r++) {
        const unsigned long long t = clk();
        if (lane == 0 && rec) rec[1 + r] = (unsigned)t;
        const unsigned* q = p + (size_t)r * step + s;  // s is 0: the address waits for the last round's data
        unsigned v[N];
#pragma unroll
        for (int j = 0; j < N; j++) v[j] = WIDE ? ld4<CG>(q + j * WORDS) : ld1<CG>(q + j * WORDS);
#pragma unroll
        for (int j = 0; j < N; j++) s += v[j];
        if (BAR) s += __syncthreads_or(s == 0xdeadbeefu);  // BAR.RED: the barrier waits for this warp's data (a plain
                                                            // __syncthreads ptxas moves above the adds)
    }
    const unsigned long long t = clk() + s;
    if (lane == 0 && rec) rec[1 + rounds] = (unsigned)t;
}

#define CASE(NN, W, C, B)                                                                \
    if (n == NN && wide == W && hot == C && bar == B) {                                  \
        rounds_of<NN, W, C, B>(rec, chunk, step, rounds, lane);                          \
        return;                                                                          \
    }
#define CASES(NN, W, B) CASE(NN, W, 0, B) CASE(NN, W, 1, B)
#define PROLOGUE                                                                                                 \
    const int W = blockDim.x >> 5, w = threadIdx.x >> 5, lane = threadIdx.x & 31;                              \
    const size_t G = (size_t)gridDim.x * W, g = (size_t)blockIdx.x * W + w;                                     \
    const size_t words = (size_t)n * (wide ? 128 : 32); /* a warp's lines of one round, in words */             \
    const unsigned slot = blockIdx.x / SMS * KEPT + blockIdx.x % SMS;                                           \
    unsigned* rec = blockIdx.x % SMS < KEPT ? out + ((size_t)slot * W + w) * (rounds + 2) : nullptr;             \
    if (lane == 0 && rec) rec[0] = smid() << 16 | (blockIdx.x & 0xFFFF);                                         \
    const unsigned* chunk = buf + g * words;                                                                     \
    const size_t step = hot ? 0 : G * words;

// up to 64 loads a warp (256 lines wide): registers for all of them (one CTA of 8 warps an SM needs 76 a thread)
extern "C" __global__ void __launch_bounds__(256, 1) ml(unsigned* out, const unsigned* buf, int n, int wide, int hot, int rounds, int bar)
{
    PROLOGUE
    CASES(1, 0, 0) CASES(2, 0, 0) CASES(4, 0, 0) CASES(6, 0, 0) CASES(8, 0, 0) CASES(16, 0, 0) CASES(32, 0, 0) CASES(64, 0, 0)
    CASES(2, 1, 0) CASES(8, 1, 0)
    CASES(8, 0, 1) CASES(32, 0, 1)
}

// the same with at most 4 loads a warp, in 32 registers a thread: 8 CTAs of 8 warps fit an SM
extern "C" __global__ void __launch_bounds__(256, 8) ml8(unsigned* out, const unsigned* buf, int n, int wide, int hot, int rounds, int bar)
{
    PROLOGUE
    CASES(1, 0, 0) CASES(4, 0, 0)
}

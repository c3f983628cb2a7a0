// pipe_probes.cu -- written here: the latency and issue interval of the timed SM's unmeasured pipes (issue 33).
//
// Each kernel runs one CTA of one warp (or 4 warps, one per sub-partition) doing `iters` iterations of UNROLL
// instructions of one kind, then writes its result so nothing is dead:
//   pp_lat_OP   one chain: each instruction takes the previous one's result (the latency, per instruction)
//   pp_tp_OP    eight independent chains, interleaved (the issue interval of the pipe, where it is above latency / 8)
// The cycles of one instruction are the slope of sm__cycles_elapsed.max between two iteration counts (the launch and
// the loop's few instructions per iteration cancel or are small: UNROLL = 16 instructions per loop branch).
//
// OPs (the PTX, and the SASS ptxas 13.0 makes of it):
//   ex2    ex2.approx.ftz.f32                     MUFU.EX2
//   shfl   shfl.sync.bfly.b32 (lane ^ 1)           SHFL.BFLY
//   dfma   fma.rn.f64                              DFMA
//   f2f    cvt.f64.f32 then cvt.rn.f32.f64         F2F.F64.F32, F2F.F32.F64 (two a step)
//   hmma   mma.sync m16n8k16 f16 -> f32            HMMA.16816.F32
//   popc   popc.b32                                POPC

#define UNROLL 16

#define CHAIN1(STEP) _Pragma("unroll") for (int u = 0; u < UNROLL; ++u) { STEP(x0); }
#define CHAIN8(STEP) _Pragma("unroll") for (int u = 0; u < UNROLL / 8; ++u) { STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5); STEP(x6); STEP(x7); }

#define EX2(x) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x))
#define SHFL(x) asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, -1;" : "+r"(x))
#define DFMA(x) asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(a), "d"(b))
#define F2F(x) asm volatile("{ .reg .f64 t; cvt.f64.f32 t, %0; cvt.rn.f32.f64 %0, t; }" : "+f"(x))
#define POPC(x) asm volatile("popc.b32 %0, %0;" : "+r"(x))

#define FLOAT_PROBE(NAME, STEP, CHAIN)                                                   \
  extern "C" __global__ void NAME(float *out, int iters, float seed) {                    \
    float x0 = seed + threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4,    \
          x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;                                          \
    for (int i = 0; i < iters; ++i) { CHAIN(STEP) }                                       \
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;   \
  }
#define INT_PROBE(NAME, STEP, CHAIN)                                                     \
  extern "C" __global__ void NAME(unsigned *out, int iters, unsigned seed) {              \
    unsigned x0 = seed + threadIdx.x, x1 = x0 * 3, x2 = x0 * 5, x3 = x0 * 7, x4 = x0 * 9, \
             x5 = x0 * 11, x6 = x0 * 13, x7 = x0 * 15;                                   \
    for (int i = 0; i < iters; ++i) { CHAIN(STEP) }                                       \
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7;            \
  }

FLOAT_PROBE(pp_lat_ex2, EX2, CHAIN1)
FLOAT_PROBE(pp_tp_ex2, EX2, CHAIN8)
INT_PROBE(pp_lat_shfl, SHFL, CHAIN1)
INT_PROBE(pp_tp_shfl, SHFL, CHAIN8)
FLOAT_PROBE(pp_lat_f2f, F2F, CHAIN1)
FLOAT_PROBE(pp_tp_f2f, F2F, CHAIN8)
INT_PROBE(pp_lat_popc, POPC, CHAIN1)
INT_PROBE(pp_tp_popc, POPC, CHAIN8)

#define DOUBLE_PROBE(NAME, CHAIN)                                                          \
  extern "C" __global__ void NAME(double *out, int iters, double seed) {                   \
    double a = 0.999, b = seed * 1e-3;                                                     \
    double x0 = seed + threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4,    \
           x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;                                          \
    for (int i = 0; i < iters; ++i) { CHAIN(DFMA) }                                        \
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;    \
  }
DOUBLE_PROBE(pp_lat_dfma, CHAIN1)
DOUBLE_PROBE(pp_tp_dfma, CHAIN8)

// HMMA: the accumulator chains through d; a and b stay (registers of f16 pairs).
#define HMMA(d)                                                                                          \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))

#define HMMA_PROBE(NAME, CHAINS)                                                               \
  extern "C" __global__ void NAME(float *out, int iters, unsigned seed) {                      \
    unsigned a0 = seed, a1 = seed + 1, a2 = seed + 2, a3 = seed + 3, b0 = seed + 4, b1 = seed + 5; \
    float d[8][4] = {};                                                                        \
    for (int i = 0; i < iters; ++i) {                                                          \
      _Pragma("unroll") for (int u = 0; u < UNROLL / CHAINS; ++u) {                            \
        _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) { HMMA(d[c]); }                     \
      }                                                                                        \
    }                                                                                          \
    float s = 0;                                                                               \
    _Pragma("unroll") for (int c = 0; c < 8; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];  \
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;                                            \
  }
HMMA_PROBE(pp_lat_hmma, 1)
HMMA_PROBE(pp_tp_hmma, 8)

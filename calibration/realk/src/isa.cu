// isa.cu -- instruction-semantics checks: no shared memory, only outputs. Each thread reads its inputs from npy
// arrays and writes many 32-bit results to one output buffer, result j of thread g at out[j * n + g] (n threads in
// all). A CPU emulator of the SASS must reproduce every output word bit for bit; the inputs mix random values with
// the edge cases (0, 1, -1, INT_MIN, INT_MAX, powers of two, NaN, infinities, signed zeros, denormals, ...).
// Written here (calibration/realk) from the PTX ISA's instruction list; PTX-only forms are inline PTX.
//   isa_int32     mul.hi/mul.wide/mad(.hi), mul24, u32/s32 division and remainder by run-time divisors
//                 (0, 1, -1, INT_MIN / -1 included), bfe/bfi, prmt (all modes), popc/clz/brev/bfind/ffs,
//                 funnel shifts (wrap and clamp), shifts by unclamped amounts, min/max/abs, selp, add.sat,
//                 add.cc/addc, sad, dp4a/dp2a, SIMD byte ops, sign extension, every s32/u32 setp comparison
//   isa_int64     64-bit add/sub/mul/mul.hi, shifts, u64/s64 division and remainder, min/max/abs, popc/clz/brev,
//                 every s64/u64 comparison
//   isa_float32   add/mul/fma/div in all four rounding modes, fast and IEEE division, rcp/sqrt/rsqrt (IEEE and
//                 approx), ex2/lg2/sin/cos (approx and library), tanh.approx, min/max (NaN), floor/ceil/trunc/rint/
//                 round, saturate, copysign, ftz forms, every f32 setp comparison incl. unordered ones
//   isa_float64   f64 add/mul/fma/div/sqrt/rcp and rounding modes, every f64 comparison
//   isa_convert   f32 <-> s32/u32/s64/u64 in all rounding modes (and saturation: out-of-range, NaN), f32 <-> f16,
//                 bf16, tf32, f64, e4m3/e5m2 pairs, s8/u8/s16 saturating conversions, f16x2/bf16x2 packing
//   isa_half      half2 and bfloat162 arithmetic (add/sub/mul/fma/fma.sat/min/max/neg/abs, comparisons, ex2)
//   isa_warp      __shfl_sync idx/up/down/xor with widths and partial masks, shfl's valid predicate, ballot/any/
//                 all (also inside a divergent branch), activemask, match.any/match.all, redux add/min/max/and/or/xor
// Launch: 128 threads per block, 2 blocks (n = 256 threads); inputs are n-element npy arrays.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#define PUT(v) (out[(j++) * n + g] = (unsigned)(v))
#define PUTF(v) (out[(j++) * n + g] = __float_as_uint(v))
#define PUT64(v)                                                       \
    do {                                                               \
        const unsigned long long t_ = (unsigned long long)(v);         \
        out[(j++) * n + g] = (unsigned)t_;                             \
        out[(j++) * n + g] = (unsigned)(t_ >> 32);                     \
    } while (0)

// one PTX predicate-producing comparison -> 0/1
#define SETP(type, cmp, x, y, r, cons)                                                                   \
    asm("{\n\t.reg .pred p;\n\tsetp." cmp "." type " p, %1, %2;\n\tselp.u32 %0, 1, 0, p;\n}\n"          \
        : "=r"(r)                                                                                        \
        : cons(x), cons(y))

// ------------------------------------------------------------------------------------------------- int32
extern "C" __global__ void __launch_bounds__(128)
isa_int32(unsigned* __restrict__ out, const unsigned* __restrict__ A, const unsigned* __restrict__ B,
          const unsigned* __restrict__ C, const unsigned* __restrict__ D, int n)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    const unsigned a = A[g], b = B[g], c = C[g], d = D[g];  // d: divisors (0, 1, -1, small, large)
    const int sa = (int)a, sb = (int)b, sd = (int)d;
    int j = 0;
    unsigned r;
    PUT(__umulhi(a, b));
    PUT(__mulhi(sa, sb));
    PUT64((unsigned long long)a * b);
    PUT64((long long)sa * sb);
    PUT(a * b + c);
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("mad.hi.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("mad.hi.sat.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    PUT(__umul24(a, b));
    PUT(__mul24(sa, sb));
    asm("mul24.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); PUT(r);
    // division: PTX leaves x / 0 and INT_MIN / -1 unspecified; ptxas's sequence defines what the GPU returns
    asm("div.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(d)); PUT(r);
    asm("rem.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(d)); PUT(r);
    asm("div.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(d)); PUT(r);
    asm("rem.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(d)); PUT(r);
    PUT(d ? a / d : 0u);
    PUT((sd && !(sa == (int)0x80000000 && sd == -1)) ? sa % sd : 0);
    PUT(a / ((d & 0xff) | 1u));                              // small divisors
    PUT(sa / (int)((d & 0x1f) - 16 | 1));                    // small signed odd divisors, negative too
    // bit fields
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(c & 0xff), "r"((c >> 8) & 0xff)); PUT(r);
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(c & 31), "r"((c >> 5) & 31)); PUT(r);
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(c & 31), "r"((c >> 5) & 31)); PUT(r);
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(c & 0xff), "r"((c >> 8) & 0xff)); PUT(r);
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(c & 31), "r"((c >> 5) & 31)); PUT(r);
    // prmt, every mode
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); PUT(r);
    PUT(__byte_perm(a, b, 0x3715));
    // bit counts
    PUT(__popc(a));
    PUT(__clz(sa));
    PUT(__brev(a));
    PUT(__ffs(sa));
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(a)); PUT(r);
    asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(a)); PUT(r);
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(a)); PUT(r);
    // shifts
    PUT(__funnelshift_l(a, b, c));
    PUT(__funnelshift_r(a, b, c));
    PUT(__funnelshift_lc(a, b, c));
    PUT(__funnelshift_rc(a, b, c));
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(c & 63)); PUT(r);
    asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(c & 63)); PUT(r);
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(c & 63)); PUT(r);
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(c)); PUT(r);
    // min/max/abs/select/saturation/carry
    PUT(min(a, b)); PUT(max(a, b)); PUT(min(sa, sb)); PUT(max(sa, sb));
    PUT(abs(sa));
    PUT(sa > sb ? c : a);
    asm("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); PUT(r);
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); PUT(r);
    {
        unsigned lo, hi, lo2, hi2;
        asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %4, %5;" : "=r"(lo), "=r"(hi) : "r"(a), "r"(b), "r"(c), "r"(d));
        PUT(lo); PUT(hi);
        asm("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %4, %5;" : "=r"(lo2), "=r"(hi2) : "r"(a), "r"(b), "r"(c), "r"(d));
        PUT(lo2); PUT(hi2);
    }
    PUT(__sad(sa, sb, c));
    PUT(__usad(a, b, c));
    PUT(__dp4a(sa, sb, (int)c));
    PUT(__dp4a(a, b, c));
    PUT(__dp2a_lo(sa, sb, (int)c));
    PUT(__dp2a_hi(a, b, c));
    PUT(__vadd4(a, b)); PUT(__vsub4(a, b)); PUT(__vabsdiffu4(a, b)); PUT(__vcmpgeu4(a, b)); PUT(__vmaxs4(a, b));
    PUT(__vadd2(a, b)); PUT(__vabsss2(a)); PUT(__vminu2(a, b)); PUT(__vhaddu4(a, b)); PUT(__vsads2(a, b));
    PUT((int)(signed char)a); PUT((int)(short)b); PUT((unsigned)(unsigned char)c);
    // every comparison, one bit each
    unsigned bits = 0, t;
    SETP("s32", "eq", a, b, t, "r"); bits |= t << 0;
    SETP("s32", "ne", a, b, t, "r"); bits |= t << 1;
    SETP("s32", "lt", a, b, t, "r"); bits |= t << 2;
    SETP("s32", "le", a, b, t, "r"); bits |= t << 3;
    SETP("s32", "gt", a, b, t, "r"); bits |= t << 4;
    SETP("s32", "ge", a, b, t, "r"); bits |= t << 5;
    SETP("u32", "lo", a, b, t, "r"); bits |= t << 6;
    SETP("u32", "ls", a, b, t, "r"); bits |= t << 7;
    SETP("u32", "hi", a, b, t, "r"); bits |= t << 8;
    SETP("u32", "hs", a, b, t, "r"); bits |= t << 9;
    SETP("s32", "lt", a, c, t, "r"); bits |= t << 10;
    SETP("u32", "lt", a, c, t, "r"); bits |= t << 11;
    SETP("b32", "eq", a & 0xff, c & 0xff, t, "r"); bits |= t << 12;
    PUT(bits);
}

// ------------------------------------------------------------------------------------------------- int64
extern "C" __global__ void __launch_bounds__(128)
isa_int64(unsigned* __restrict__ out, const unsigned long long* __restrict__ A, const unsigned long long* __restrict__ B,
          const unsigned* __restrict__ C, const unsigned long long* __restrict__ D, int n)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    const unsigned long long a = A[g], b = B[g], d = D[g];
    const unsigned c = C[g];
    const long long sa = (long long)a, sb = (long long)b, sd = (long long)d;
    int j = 0;
    unsigned long long r;
    PUT64(a + b); PUT64(a - b); PUT64(a * b);
    PUT64(__umul64hi(a, b)); PUT64(__mul64hi(sa, sb));
    PUT64(a * (unsigned long long)c + b);
    PUT64(a << (c & 63)); PUT64(a >> (c & 63)); PUT64(sa >> (c & 63));
    asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(c & 127)); PUT64(r);
    asm("shr.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(c & 127)); PUT64(r);
    asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(c & 127)); PUT64(r);
    asm("div.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(d)); PUT64(r);
    asm("rem.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(d)); PUT64(r);
    asm("div.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(d)); PUT64(r);
    asm("rem.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(d)); PUT64(r);
    PUT64(a / ((d & 0xffff) | 1));
    PUT64(sa / (long long)(((d & 0x3f) - 32) | 1));
    PUT64(sd ? (unsigned long long)(sa == (long long)0x8000000000000000ll && sd == -1 ? 0 : sa % sd) : 0);
    PUT64(min(a, b)); PUT64(max(a, b)); PUT64(min(sa, sb)); PUT64(max(sa, sb)); PUT64(llabs(sa));
    PUT(__popcll(a)); PUT(__clzll(sa)); PUT64(__brevll(a)); PUT(__ffsll(sa));
    {
        unsigned t32;
        asm("bfind.u64 %0, %1;" : "=r"(t32) : "l"(a)); PUT(t32);
        asm("bfind.s64 %0, %1;" : "=r"(t32) : "l"(a)); PUT(t32);
        asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "r"(c & 0xff), "r"((c >> 8) & 0xff)); PUT64(r);
        asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "r"(c & 63), "r"((c >> 6) & 63)); PUT64(r);
    }
    unsigned bits = 0, t;
    SETP("s64", "eq", a, b, t, "l"); bits |= t << 0;
    SETP("s64", "ne", a, b, t, "l"); bits |= t << 1;
    SETP("s64", "lt", a, b, t, "l"); bits |= t << 2;
    SETP("s64", "le", a, b, t, "l"); bits |= t << 3;
    SETP("s64", "gt", a, b, t, "l"); bits |= t << 4;
    SETP("s64", "ge", a, b, t, "l"); bits |= t << 5;
    SETP("u64", "lo", a, b, t, "l"); bits |= t << 6;
    SETP("u64", "ls", a, b, t, "l"); bits |= t << 7;
    SETP("u64", "hi", a, b, t, "l"); bits |= t << 8;
    SETP("u64", "hs", a, b, t, "l"); bits |= t << 9;
    SETP("s64", "lt", a, d, t, "l"); bits |= t << 10;
    SETP("u64", "lt", a, d, t, "l"); bits |= t << 11;
    PUT(bits);
}

// ------------------------------------------------------------------------------------------------- float32
extern "C" __global__ void __launch_bounds__(128)
isa_float32(unsigned* __restrict__ out, const float* __restrict__ X, const float* __restrict__ Y,
            const float* __restrict__ Z, const float* __restrict__ W, int n)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    const float x = X[g], y = Y[g], z = Z[g], w = W[g];  // w: angles, |w| < 100 (plus NaN, zeros, denormals)
    int j = 0;
    float r;
    PUTF(x + y); PUTF(x - y); PUTF(x * y); PUTF(fmaf(x, y, z));
    PUTF(__fadd_rz(x, y)); PUTF(__fadd_rd(x, y)); PUTF(__fadd_ru(x, y));
    PUTF(__fmul_rz(x, y)); PUTF(__fmul_rd(x, y)); PUTF(__fmul_ru(x, y));
    PUTF(__fmaf_rz(x, y, z)); PUTF(__fmaf_rd(x, y, z)); PUTF(__fmaf_ru(x, y, z));
    PUTF(x / y); PUTF(__fdiv_rz(x, y)); PUTF(__fdiv_rd(x, y)); PUTF(__fdiv_ru(x, y)); PUTF(__fdividef(x, y));
    PUTF(1.0f / y); PUTF(__frcp_rz(y)); PUTF(__frcp_rd(y));
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(y)); PUTF(r);
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y)); PUTF(r);
    PUTF(sqrtf(x)); PUTF(__fsqrt_rz(x)); PUTF(__fsqrt_ru(x)); PUTF(rsqrtf(x));
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); PUTF(r);
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); PUTF(r);
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(w)); PUTF(r);
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(w)); PUTF(r);
    asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); PUTF(r);
    asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(w)); PUTF(r);
    asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(w)); PUTF(r);
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(w)); PUTF(r);
    PUTF(exp2f(w)); PUTF(log2f(x)); PUTF(__expf(w)); PUTF(__logf(x)); PUTF(__sinf(w)); PUTF(__cosf(w));
    PUTF(sinf(w)); PUTF(cosf(w));
    PUTF(fminf(x, y)); PUTF(fmaxf(x, y));
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); PUTF(r);
    asm("max.xorsign.abs.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); PUTF(r);
    PUTF(fabsf(x)); PUTF(-y); PUTF(copysignf(x, y));
    PUTF(floorf(w)); PUTF(ceilf(w)); PUTF(truncf(w)); PUTF(rintf(w)); PUTF(roundf(w));
    PUTF(__saturatef(x));
    asm("add.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); PUTF(r);
    asm("mul.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); PUTF(r);
    asm("fma.rn.ftz.sat.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); PUTF(r);
    asm("fma.rz.sat.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); PUTF(r);
    unsigned bits = 0, t;
#define TESTP(op, x, r) asm("{\n\t.reg .pred p;\n\ttestp." op ".f32 p, %1;\n\tselp.u32 %0, 1, 0, p;\n}\n" : "=r"(r) : "f"(x))
    TESTP("finite", x, t); bits |= t << 20;
    TESTP("infinite", x, t); bits |= t << 21;
    TESTP("number", x, t); bits |= t << 22;
    TESTP("notanumber", x, t); bits |= t << 23;
    TESTP("normal", x, t); bits |= t << 24;
    TESTP("subnormal", x, t); bits |= t << 25;
    SETP("f32", "eq", x, y, t, "f"); bits |= t << 0;
    SETP("f32", "ne", x, y, t, "f"); bits |= t << 1;
    SETP("f32", "lt", x, y, t, "f"); bits |= t << 2;
    SETP("f32", "le", x, y, t, "f"); bits |= t << 3;
    SETP("f32", "gt", x, y, t, "f"); bits |= t << 4;
    SETP("f32", "ge", x, y, t, "f"); bits |= t << 5;
    SETP("f32", "equ", x, y, t, "f"); bits |= t << 6;
    SETP("f32", "neu", x, y, t, "f"); bits |= t << 7;
    SETP("f32", "ltu", x, y, t, "f"); bits |= t << 8;
    SETP("f32", "leu", x, y, t, "f"); bits |= t << 9;
    SETP("f32", "gtu", x, y, t, "f"); bits |= t << 10;
    SETP("f32", "geu", x, y, t, "f"); bits |= t << 11;
    SETP("f32", "num", x, y, t, "f"); bits |= t << 12;
    SETP("f32", "nan", x, y, t, "f"); bits |= t << 13;
    SETP("ftz.f32", "lt", x, y, t, "f"); bits |= t << 14;
    bits |= (unsigned)isnan(x) << 16 | (unsigned)isinf(x) << 17 | (unsigned)isfinite(x) << 18 |
            (unsigned)signbit(x) << 19;
    PUT(bits);
}

// ------------------------------------------------------------------------------------------------- float64
extern "C" __global__ void __launch_bounds__(128)
isa_float64(unsigned* __restrict__ out, const double* __restrict__ X, const double* __restrict__ Y,
            const double* __restrict__ Z, int n)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    const double x = X[g], y = Y[g], z = Z[g];
    int j = 0;
    double r;
#define PUTD(v) PUT64(__double_as_longlong(v))
    PUTD(x + y); PUTD(x - y); PUTD(x * y); PUTD(fma(x, y, z));
    PUTD(__dadd_rz(x, y)); PUTD(__dadd_rd(x, y)); PUTD(__dadd_ru(x, y));
    PUTD(__dmul_rz(x, y)); PUTD(__dmul_ru(x, y)); PUTD(__fma_rd(x, y, z)); PUTD(__fma_rz(x, y, z));
    PUTD(x / y); PUTD(__ddiv_rz(x, y)); PUTD(__ddiv_ru(x, y));
    PUTD(1.0 / y); PUTD(__drcp_rd(y));
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(y)); PUTD(r);
    PUTD(sqrt(x)); PUTD(__dsqrt_rz(x)); PUTD(rsqrt(x));
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(x)); PUTD(r);
    PUTD(fmin(x, y)); PUTD(fmax(x, y)); PUTD(fabs(x)); PUTD(-y); PUTD(copysign(x, y));
    PUTD(floor(z)); PUTD(ceil(z)); PUTD(trunc(z)); PUTD(rint(z));
    unsigned bits = 0, t;
    SETP("f64", "eq", x, y, t, "d"); bits |= t << 0;
    SETP("f64", "ne", x, y, t, "d"); bits |= t << 1;
    SETP("f64", "lt", x, y, t, "d"); bits |= t << 2;
    SETP("f64", "le", x, y, t, "d"); bits |= t << 3;
    SETP("f64", "gt", x, y, t, "d"); bits |= t << 4;
    SETP("f64", "ge", x, y, t, "d"); bits |= t << 5;
    SETP("f64", "equ", x, y, t, "d"); bits |= t << 6;
    SETP("f64", "neu", x, y, t, "d"); bits |= t << 7;
    SETP("f64", "ltu", x, y, t, "d"); bits |= t << 8;
    SETP("f64", "leu", x, y, t, "d"); bits |= t << 9;
    SETP("f64", "gtu", x, y, t, "d"); bits |= t << 10;
    SETP("f64", "geu", x, y, t, "d"); bits |= t << 11;
    SETP("f64", "num", x, y, t, "d"); bits |= t << 12;
    SETP("f64", "nan", x, y, t, "d"); bits |= t << 13;
    PUT(bits);
}

// ------------------------------------------------------------------------------------------------- conversions
extern "C" __global__ void __launch_bounds__(128)
isa_convert(unsigned* __restrict__ out, const float* __restrict__ X, const unsigned* __restrict__ U,
            const double* __restrict__ Dd, int n)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    const float x = X[g];     // wide range: out-of-range for int32, halves, NaN, infinities, .5 ties
    const unsigned u = U[g];
    const double dd = Dd[g];
    int j = 0;
    unsigned r;
    unsigned short h;
    PUT(__float2int_rn(x)); PUT(__float2int_rz(x)); PUT(__float2int_rd(x)); PUT(__float2int_ru(x));
    PUT(__float2uint_rn(x)); PUT(__float2uint_rz(x)); PUT(__float2uint_rd(x)); PUT(__float2uint_ru(x));
    PUT64(__float2ll_rn(x)); PUT64(__float2ll_rz(x)); PUT64(__float2ull_rd(x)); PUT64(__float2ull_ru(x));
    asm("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(r) : "f"(x)); PUT(r);
    asm("cvt.rzi.sat.u8.f32 %0, %1;" : "=r"(r) : "f"(x)); PUT(r);
    asm("cvt.rmi.sat.s16.f32 %0, %1;" : "=h"(h) : "f"(x)); PUT(h);
    asm("cvt.rpi.sat.u16.f32 %0, %1;" : "=h"(h) : "f"(x)); PUT(h);
    asm("cvt.sat.s8.s32 %0, %1;" : "=r"(r) : "r"(u)); PUT(r);
    asm("cvt.sat.u16.s32 %0, %1;" : "=h"(h) : "r"(u)); PUT(h);
    asm("cvt.sat.u32.s32 %0, %1;" : "=r"(r) : "r"(u)); PUT(r);
    asm("cvt.sat.s32.u64 %0, %1;" : "=r"(r) : "l"((unsigned long long)u << 1)); PUT(r);
    PUTF(__int2float_rn((int)u)); PUTF(__int2float_rz((int)u)); PUTF(__int2float_rd((int)u));
    PUTF(__uint2float_ru(u)); PUTF(__uint2float_rn(u));
    PUTF(__ll2float_rn((long long)u << 20)); PUTF(__ull2float_rz((unsigned long long)u << 33));
    PUTF(rintf(x)); PUTF(nearbyintf(x));
    asm("cvt.rni.f32.f32 %0, %1;" : "=f"(*reinterpret_cast<float*>(&r)) : "f"(x)); PUT(r);
    asm("cvt.rmi.ftz.f32.f32 %0, %1;" : "=f"(*reinterpret_cast<float*>(&r)) : "f"(x)); PUT(r);
    asm("cvt.sat.f32.f32 %0, %1;" : "=f"(*reinterpret_cast<float*>(&r)) : "f"(x)); PUT(r);
    // half / bfloat16 / tf32 / fp8
    PUT(__half_as_ushort(__float2half_rn(x))); PUT(__half_as_ushort(__float2half_rz(x)));
    PUT(__half_as_ushort(__float2half_rd(x))); PUT(__half_as_ushort(__float2half_ru(x)));
    PUTF(__half2float(__ushort_as_half((unsigned short)u)));
    PUT(__bfloat16_as_ushort(__float2bfloat16_rn(x))); PUT(__bfloat16_as_ushort(__float2bfloat16_rz(x)));
    PUT(__bfloat16_as_ushort(__float2bfloat16_rd(x))); PUT(__bfloat16_as_ushort(__float2bfloat16_ru(x)));
    PUTF(__bfloat162float(__ushort_as_bfloat16((unsigned short)(u >> 16))));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); PUT(r);
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(__uint_as_float(u))); PUT(r);
    asm("cvt.rz.relu.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(-x)); PUT(r);
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(x * 0.03125f)); PUT(h);
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(x * 64.0f)); PUT(h);
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"((unsigned short)u)); PUT(r);
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"((unsigned short)(u >> 16))); PUT(r);
    // f64
    PUT64(__double_as_longlong((double)x));
    PUTF(__double2float_rn(dd)); PUTF(__double2float_rz(dd)); PUTF(__double2float_rd(dd)); PUTF(__double2float_ru(dd));
    PUT(__double2int_rn(dd)); PUT(__double2int_rz(dd)); PUT(__double2uint_ru(dd)); PUT64(__double2ll_rd(dd));
    PUT64(__double_as_longlong(__ll2double_rn((long long)u * 0x10001ll))); PUT64(__double_as_longlong(__uint2double_rn(u)));
    PUT64(__double_as_longlong(__ull2double_rz(((unsigned long long)u << 32) | (u ^ 0x5a5a5a5a))));
    PUT(__double2hiint(dd)); PUT(__double2loint(dd));
}

// ------------------------------------------------------------------------------------------------- half2 / bf16x2
extern "C" __global__ void __launch_bounds__(128)
isa_half(unsigned* __restrict__ out, const unsigned* __restrict__ P, const unsigned* __restrict__ Q,
         const unsigned* __restrict__ R, int n)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    const unsigned p = P[g], q = Q[g], s = R[g];  // each word two f16 (or two bf16) values
    int j = 0;
    auto H = [](unsigned v) { return *reinterpret_cast<const __half2*>(&v); };
    auto B = [](unsigned v) { return *reinterpret_cast<const __nv_bfloat162*>(&v); };
    auto UH = [](__half2 v) { return *reinterpret_cast<const unsigned*>(&v); };
    auto UB = [](__nv_bfloat162 v) { return *reinterpret_cast<const unsigned*>(&v); };
    const __half2 a = H(p), b = H(q), c = H(s);
    PUT(UH(__hadd2(a, b))); PUT(UH(__hsub2(a, b))); PUT(UH(__hmul2(a, b))); PUT(UH(__hfma2(a, b, c)));
    PUT(UH(__hfma2_sat(a, b, c))); PUT(UH(__hadd2_sat(a, b))); PUT(UH(__hmin2(a, b))); PUT(UH(__hmax2(a, b)));
    PUT(UH(__hmin2_nan(a, b))); PUT(UH(__hneg2(a))); PUT(UH(__habs2(a)));
    PUT(UH(__hgt2(a, b))); PUT(UH(__hequ2(a, b))); PUT(UH(__hltu2(a, b)));
    PUT(__hbgt2(a, b)); PUT(__hble2(a, b));
    PUT(UH(__h2div(a, b))); PUT(UH(h2rcp(b))); PUT(UH(h2sqrt(a))); PUT(UH(h2exp2(a)));
    unsigned r;
    asm("fma.rn.relu.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(p), "r"(q), "r"(s)); PUT(r);
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(r) : "r"(p)); PUT(r);
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(r) : "r"(p)); PUT(r);
    const __nv_bfloat162 x = B(p), y = B(q), z = B(s);
    PUT(UB(__hadd2(x, y))); PUT(UB(__hmul2(x, y))); PUT(UB(__hfma2(x, y, z))); PUT(UB(__hmax2(x, y)));
    PUT(UB(__hneg2(x))); PUT(UB(__hgt2(x, y)));
    asm("fma.rn.relu.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(p), "r"(q), "r"(s)); PUT(r);
    asm("min.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(p), "r"(q)); PUT(r);
    PUTF(__low2float(a)); PUTF(__high2float(a)); PUTF(__low2float(x)); PUTF(__high2float(x));
}

// ------------------------------------------------------------------------------------------------- warp-level
extern "C" __global__ void __launch_bounds__(128)
isa_warp(unsigned* __restrict__ out, const unsigned* __restrict__ V, const unsigned* __restrict__ S, int n)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const unsigned v = V[g], s = S[g];  // s: per-lane control bits (source lanes, predicates, keys)
    const unsigned FULL = 0xffffffffu;
    int j = 0;
    PUT(__shfl_sync(FULL, v, s & 31));
    PUT(__shfl_sync(FULL, v, s & 63));          // source lane >= 32: taken modulo the width
    PUT(__shfl_sync(FULL, v, s & 7, 8));
    PUT(__shfl_up_sync(FULL, v, 1 + (s >> 8 & 3)));   // per-lane delta
    PUT(__shfl_up_sync(FULL, v, 3, 16));
    PUT(__shfl_down_sync(FULL, v, 5));
    PUT(__shfl_down_sync(FULL, v, 2, 8));
    PUT(__shfl_xor_sync(FULL, v, 1 << (s >> 10 & 3)));
    PUT(__shfl_xor_sync(FULL, v, 6, 16));
    {
        const double dv = __longlong_as_double(((unsigned long long)v << 32) | s);
        const double t = __shfl_xor_sync(FULL, dv, 17);
        PUT64(__double_as_longlong(t));
    }
    unsigned r, pv;
    asm volatile("{\n\t.reg .pred p;\n\tshfl.sync.down.b32 %0|p, %2, 5, 0x1f, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n}\n"
                 : "=r"(r), "=r"(pv) : "r"(v));
    PUT(r); PUT(pv);
    asm volatile("{\n\t.reg .pred p;\n\tshfl.sync.idx.b32 %0|p, %2, %3, 0x181f, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n}\n"
                 : "=r"(r), "=r"(pv) : "r"(v), "r"(s & 31));   // segments of 8 lanes (c = 0x18 << 8 | 0x1f)
    PUT(r); PUT(pv);
    // partial masks: only the lanes named in the mask execute the shuffle, sources inside the mask
    unsigned pm = 0xdeadbeefu;
    if (lane < 16) pm = __shfl_sync(0x0000ffffu, v, (s >> 4) & 15);
    PUT(pm);
    pm = 0xdeadbeefu;
    if (lane & 1) pm = __shfl_xor_sync(0xaaaaaaaau, v, 2);
    PUT(pm);
    pm = 0xdeadbeefu;
    if (lane >= 8) pm = __shfl_down_sync(0xffffff00u, v, 4);  // lanes 28..31 keep their own value
    PUT(pm);
    // votes
    const bool pr = (s >> 12) & 1;
    PUT(__ballot_sync(FULL, pr)); PUT(__any_sync(FULL, pr)); PUT(__all_sync(FULL, pr));
    PUT(__all_sync(FULL, v != 0x12345678u)); PUT(__any_sync(FULL, v == 0x12345678u));
    PUT(__popc(__ballot_sync(FULL, v & 1)));
    unsigned bm = 0xdeadbeefu, am = 0xdeadbeefu;
    if (s & 0x2000) {   // divergent: the lanes of the branch vote among themselves
        const unsigned m = __activemask();
        am = m;
        bm = __ballot_sync(m, v & 2);
    }
    PUT(bm); PUT(am);
    // match
    const unsigned key = (s >> 16) & 3;  // few distinct keys
    PUT(__match_any_sync(FULL, key));
    PUT(__match_any_sync(FULL, v & 0x80000001u));
    {
        int pred;
        const unsigned m = __match_all_sync(FULL, key >> 2 == 0 ? 7u : v, &pred);  // every lane equal -> all
        PUT(m); PUT(pred);
        const unsigned m2 = __match_all_sync(FULL, key, &pred);
        PUT(m2); PUT(pred);
        const unsigned long long k64 = ((unsigned long long)key << 40) | (v & 1);
        PUT(__match_any_sync(FULL, k64));
    }
    // redux
    PUT(__reduce_add_sync(FULL, v));
    PUT(__reduce_min_sync(FULL, v)); PUT(__reduce_max_sync(FULL, v));
    PUT(__reduce_min_sync(FULL, (int)v)); PUT(__reduce_max_sync(FULL, (int)v));
    PUT(__reduce_and_sync(FULL, v | 0x0f0f0000u)); PUT(__reduce_or_sync(FULL, v & 0x00ff00ffu));
    PUT(__reduce_xor_sync(FULL, v));
    unsigned ra = 0xdeadbeefu;
    if (lane < 20) ra = __reduce_add_sync(0x000fffffu, s);
    PUT(ra);
}

// probe_generic_atom.cu -- generic (not .shared) atomics, reductions, loads and stores whose addresses land in shared
// memory, as a cuda::pipeline's shared state makes ptxas emit them (ATOM.E.ADD.STRONG.SM on a __shared__ word).
// Written here (calibration/realk) from the PTX ISA's atom/red/ld/st: the generic forms are written in inline PTX on
// a 64-bit generic pointer, so that ptxas cannot turn them into ATOMS/LDS/STS.
// One warp. The shared tile s (4 KiB, word k = k) is filled by 32 conflict-free STS first and copied out by 32
// conflict-free LDS at the end (out[0..1024)); in between one generic instruction, lane l on word (or 8-byte unit)
// idx[l] of s where sel[l] != 0 and of the global buffer out + 8 KiB otherwise; its returned value goes to
// out[1024 + l] (8-byte ops: out[1024 + 2l, +1]).
//   gatom_add gatom_exch gatom_cas gatom_max gatom_inc gatom_and gatom_addf   32-bit atom.{add,exch,cas,max,inc,and,add.f32}
//   gatom_add_cta                                     atom.add.acq_rel.cta.u32 (the pipeline's scope and order)
//   gatom_add64 gatom_exch64 gatom_cas64              64-bit atom.{add.u64,exch.b64,cas.b64}
//   gatom_min64 gatom_addf64                          64-bit atom.{min.u64,add.f64} (second batch)
//   gred_add gred_addf                                red.add.{u32,f32} (no returned value)
//   gld8 gld16 gld64 gld128 gst8 gst16 gst32          ld/st.{u8,u16,v2.u32,v4.u32,u32} (1-16 bytes; byte or unit idx[l])
constexpr int WORDS = 1024;

__device__ __forceinline__ void fill(unsigned* s, int l)
{
    for (int k = l; k < WORDS; k += 32) s[k] = k;
    __syncwarp();
}
__device__ __forceinline__ void drain(unsigned* out, const unsigned* s, int l)
{
    __syncwarp();
    for (int k = l; k < WORDS; k += 32) out[k] = s[k];
}
// the generic address of byte `off` of s (sel) or of the global scratch (otherwise)
__device__ __forceinline__ unsigned long long gaddr(unsigned* s, unsigned* out, int sel, int off)
{
    char* base = sel ? (char*)s : (char*)(out + 2 * WORDS);
    return (unsigned long long)(base + off);
}

#define ATOM32(name, op, arg)                                                                                        \
extern "C" __global__ void name(unsigned* out, const int* idx, const int* sel)                                     \
{                                                                                                                  \
    __shared__ __align__(16) unsigned s[WORDS];                                                                    \
    const int l = threadIdx.x;                                                                                     \
    fill(s, l);                                                                                                    \
    const unsigned long long p = gaddr(s, out, sel[l], 4 * idx[l]);                                                \
    unsigned old;                                                                                                  \
    asm volatile(op " %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(arg) : "memory");                                   \
    out[WORDS + l] = old;                                                                                          \
    drain(out, s, l);                                                                                              \
}
ATOM32(gatom_add, "atom.add.u32", l + 1)
ATOM32(gatom_exch, "atom.exch.b32", l + 1)
ATOM32(gatom_max, "atom.max.s32", l + 1)
ATOM32(gatom_inc, "atom.inc.u32", 100u)
ATOM32(gatom_and, "atom.and.b32", 0xFFFFFFF0u | l)
ATOM32(gatom_add_cta, "atom.add.acq_rel.cta.u32", l + 1)
ATOM32(gatom_addf, "atom.add.f32", __float_as_uint(0.5f))

extern "C" __global__ void gatom_cas(unsigned* out, const int* idx, const int* sel)
{
    __shared__ __align__(16) unsigned s[WORDS];
    const int l = threadIdx.x;
    fill(s, l);
    const unsigned long long p = gaddr(s, out, sel[l], 4 * idx[l]);
    unsigned old;  // compare with the word's initial value k: the first lane on each word swaps
    asm volatile("atom.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(p), "r"((unsigned)idx[l]), "r"(5000u + l) : "memory");
    out[WORDS + l] = old;
    drain(out, s, l);
}

#define ATOM64(name, op, arg)                                                                                        \
extern "C" __global__ void name(unsigned* out, const int* idx, const int* sel)                                     \
{                                                                                                                  \
    __shared__ __align__(16) unsigned s[WORDS];                                                                    \
    const int l = threadIdx.x;                                                                                     \
    fill(s, l);                                                                                                    \
    const unsigned long long p = gaddr(s, out, sel[l], 8 * idx[l]);                                                \
    unsigned long long old;                                                                                        \
    asm volatile(op " %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(arg) : "memory");                                  \
    ((unsigned long long*)(out + WORDS))[l] = old;                                                                 \
    drain(out, s, l);                                                                                              \
}
ATOM64(gatom_add64, "atom.add.u64", (unsigned long long)(l + 1) << 32 | 7u)
ATOM64(gatom_exch64, "atom.exch.b64", (unsigned long long)(l + 1) << 32 | 7u)
ATOM64(gatom_min64, "atom.min.u64", (unsigned long long)(l + 1) << 32 | 7u)
ATOM64(gatom_addf64, "atom.add.f64", 0x3FE0000000000000ull)

extern "C" __global__ void gatom_cas64(unsigned* out, const int* idx, const int* sel)
{
    __shared__ __align__(16) unsigned s[WORDS];
    const int l = threadIdx.x;
    fill(s, l);
    const unsigned long long p = gaddr(s, out, sel[l], 8 * idx[l]);
    const unsigned long long expect = (unsigned long long)(2 * idx[l] + 1) << 32 | (unsigned)(2 * idx[l]);
    unsigned long long old;
    asm volatile("atom.cas.b64 %0, [%1], %2, %3;" : "=l"(old) : "l"(p), "l"(expect), "l"(5000ull + l) : "memory");
    ((unsigned long long*)(out + WORDS))[l] = old;
    drain(out, s, l);
}

#define RED32(name, op, arg)                                                                                         \
extern "C" __global__ void name(unsigned* out, const int* idx, const int* sel)                                     \
{                                                                                                                  \
    __shared__ __align__(16) unsigned s[WORDS];                                                                    \
    const int l = threadIdx.x;                                                                                     \
    fill(s, l);                                                                                                    \
    const unsigned long long p = gaddr(s, out, sel[l], 4 * idx[l]);                                                \
    asm volatile(op " [%0], %1;" ::"l"(p), "r"(arg) : "memory");                                                   \
    drain(out, s, l);                                                                                              \
}
RED32(gred_add, "red.add.u32", l + 1)
RED32(gred_addf, "red.add.f32", __float_as_uint(0.5f))

// loads: lane l reads unit idx[l] (units of the access size) and writes it to out[1024 + 4l ...]
#define LD(name, op, T, n, cvt)                                                                                      \
extern "C" __global__ void name(unsigned* out, const int* idx, const int* sel)                                     \
{                                                                                                                  \
    __shared__ __align__(16) unsigned s[WORDS];                                                                    \
    const int l = threadIdx.x;                                                                                     \
    fill(s, l);                                                                                                    \
    const unsigned long long p = gaddr(s, out, sel[l], sizeof(T) * n * idx[l]);                                   \
    unsigned v[4] = {0, 0, 0, 0};                                                                                  \
    cvt;                                                                                                           \
    for (int j = 0; j < 4; j++) out[WORDS + 4 * l + j] = v[j];                                                     \
    drain(out, s, l);                                                                                              \
}
LD(gld8, "ld.u8", unsigned char, 1, { unsigned short x; asm volatile("ld.u8 %0, [%1];" : "=h"(x) : "l"(p)); v[0] = x; })
LD(gld16, "ld.u16", unsigned short, 1, { unsigned short x; asm volatile("ld.u16 %0, [%1];" : "=h"(x) : "l"(p)); v[0] = x; })
LD(gld64, "ld.v2.u32", unsigned, 2, asm volatile("ld.v2.u32 {%0, %1}, [%2];" : "=r"(v[0]), "=r"(v[1]) : "l"(p)))
LD(gld128, "ld.v4.u32", unsigned, 4,
   asm volatile("ld.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "l"(p)))

#define ST(name, T, asmline)                                                                                         \
extern "C" __global__ void name(unsigned* out, const int* idx, const int* sel)                                     \
{                                                                                                                  \
    __shared__ __align__(16) unsigned s[WORDS];                                                                    \
    const int l = threadIdx.x;                                                                                     \
    fill(s, l);                                                                                                    \
    const unsigned long long p = gaddr(s, out, sel[l], sizeof(T) * idx[l]);                                        \
    const unsigned short h = (unsigned short)(0xA000 + l);                                                         \
    asmline;                                                                                                       \
    drain(out, s, l);                                                                                              \
}
ST(gst8, unsigned char, asm volatile("st.u8 [%0], %1;" ::"l"(p), "h"(h) : "memory"))
ST(gst16, unsigned short, asm volatile("st.u16 [%0], %1;" ::"l"(p), "h"(h) : "memory"))
ST(gst32, unsigned, asm volatile("st.u32 [%0], %1;" ::"l"(p), "r"((unsigned)h) : "memory"))

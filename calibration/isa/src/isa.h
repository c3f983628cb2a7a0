// isa.h -- what the calibration/isa kernels share. One CTA each; every thread reads its input words from one npy
// array and writes its results to one output buffer: input word w of thread t at in[w * n + t], result j of thread t
// at out[j * n + t] (n threads in the CTA). The CPU executor must reproduce every output word bit for bit.
#pragma once
#define IN(w) (in[(w) * n + t])
#define PUT(v) (out[(j++) * n + t] = (unsigned)(v))
#define PUTF(v) (out[(j++) * n + t] = __float_as_uint(v))
#define PUT64(v)                                               \
    do {                                                       \
        const unsigned long long v_ = (unsigned long long)(v); \
        PUT(v_);                                               \
        PUT(v_ >> 32);                                         \
    } while (0)
#define HEAD()                                                                   \
    const int n = blockDim.x, t = threadIdx.x;                                   \
    int j = 0, w = 0;                                                            \
    (void)w;                                                                     \
    (void)j

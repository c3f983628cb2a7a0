// probe_ldgsts_ca_pred.cu -- one warp, one cp.async.ca of 4 B a lane in the predicate form (src-size 4 or 0), under P0
// and with the predicate negated (!P0): lane l copies 4 bytes from byte src[l] of the input to byte dst[l] of an
// 8 KiB tile where size[l] is nonzero (cpa_ca4_pred) or zero (cpa_ca4_pred_neg), else zero-fills.
#define CPA4_PRED(NAME, SIZE_EXPR)                                                                                 \
    extern "C" __global__ void NAME(float* out, const char* in, const int* src, const int* dst, const int* size) \
    {                                                                                                            \
        __shared__ __align__(128) float s[2048];                                                                 \
        const int l = threadIdx.x;                                                                               \
        for (int k = l; k < 2048; k += 32) s[k] = -1.0f;                                                         \
        __syncwarp();                                                                                            \
        const unsigned d = (unsigned)__cvta_generic_to_shared((char*)s + dst[l]);                                \
        const int n = SIZE_EXPR;                                                                                 \
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(in + src[l]), "r"(n));        \
        asm volatile("cp.async.wait_all;" ::: "memory");                                                         \
        __syncwarp();                                                                                            \
        for (int k = l; k < 2048; k += 32) out[k] = s[k];                                                        \
    }

CPA4_PRED(cpa_ca4_pred, size[l] ? 4 : 0)
CPA4_PRED(cpa_ca4_pred_neg, size[l] == 0 ? 4 : 0)

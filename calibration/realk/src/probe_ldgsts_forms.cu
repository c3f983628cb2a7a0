// probe_ldgsts_forms.cu -- one warp, one cp.async.cg of 16 B a lane in the predicate form (src-size 16 or 0), in the
// two SASS variants the Triton matmuls show and the probes of probe_rules.cu do not:
//   cpa_cg16_pred_neg   the predicate operand negated (LDGSTS ..., !P0): lane l copies where size[l] == 0
//   cpa_cg16_pred_off   the source address with an immediate offset (desc[..][R.64+0x40], P0): from byte src[l] + 64
// Lane l copies 16 bytes from byte src[l] of the input to byte dst[l] of an 8 KiB tile, then the tile is written out.
#define CPA_PRED(NAME, SIZE_EXPR, SRC_EXPR)                                                                        \
    extern "C" __global__ void NAME(float* out, const char* in, const int* src, const int* dst, const int* size) \
    {                                                                                                            \
        __shared__ __align__(128) float s[2048];                                                                 \
        const int l = threadIdx.x;                                                                               \
        for (int k = l; k < 2048; k += 32) s[k] = -1.0f;                                                         \
        __syncwarp();                                                                                            \
        const unsigned d = (unsigned)__cvta_generic_to_shared((char*)s + dst[l]);                                \
        const int n = SIZE_EXPR;                                                                                 \
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(SRC_EXPR), "r"(n));          \
        asm volatile("cp.async.wait_all;" ::: "memory");                                                         \
        __syncwarp();                                                                                            \
        for (int k = l; k < 2048; k += 32) out[k] = s[k];                                                        \
    }

CPA_PRED(cpa_cg16_pred_neg, size[l] == 0 ? 16 : 0, in + src[l])
CPA_PRED(cpa_cg16_pred_off, size[l] ? 16 : 0, in + src[l] + 64)

// probe_ldgsts_zfill2.cu -- one warp, two cp.async.cg of 16 B a lane with src-size in a register (the .ZFILL form), ptxas
// giving them different predicate registers (LDGSTS.E.BYPASS.128.ZFILL ..., P2 then ..., P0): lane l copies src-size
// bits 0-4 of size[l] from byte src[l] of the input to byte dst[l] of an 8 KiB tile, then bits 5-9 of it from
// src[l] + 4096 to dst[l] + 4096.
extern "C" __global__ void cpa_cg16_zfill_two(float* out, const char* in, const int* src, const int* dst, const int* size)
{
    __shared__ __align__(128) float s[2048];
    const int l = threadIdx.x;
    for (int k = l; k < 2048; k += 32) s[k] = -1.0f;
    __syncwarp();
    const unsigned d = (unsigned)__cvta_generic_to_shared((char*)s + dst[l]);
    const int n0 = size[l] & 31, n1 = (size[l] >> 5) & 31;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(in + src[l]), "r"(n0));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d + 4096), "l"(in + src[l] + 4096), "r"(n1));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncwarp();
    for (int k = l; k < 2048; k += 32) out[k] = s[k];
}

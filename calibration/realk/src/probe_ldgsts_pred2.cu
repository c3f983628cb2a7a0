// probe_ldgsts_pred2.cu -- one warp, two cp.async.cg of 16 B a lane in the predicate form, ptxas giving them different
// predicate registers (LDGSTS ..., P2 then LDGSTS ..., P0): lane l copies 16 bytes from byte src[l] of the input to byte
// dst[l] of an 8 KiB tile where bit 0 of size[l] is set, and from src[l] + 4096 to dst[l] + 4096 where bit 1 is.
extern "C" __global__ void cpa_cg16_pred_two(float* out, const char* in, const int* src, const int* dst, const int* size)
{
    __shared__ __align__(128) float s[2048];
    const int l = threadIdx.x;
    for (int k = l; k < 2048; k += 32) s[k] = -1.0f;
    __syncwarp();
    const unsigned d = (unsigned)__cvta_generic_to_shared((char*)s + dst[l]);
    const int n0 = size[l] & 1 ? 16 : 0, n1 = size[l] & 2 ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(in + src[l]), "r"(n0));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d + 4096), "l"(in + src[l] + 4096), "r"(n1));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncwarp();
    for (int k = l; k < 2048; k += 32) out[k] = s[k];
}

// probe_inval_stsm.cu -- do an mbarrier's invalidation or its wait loop add store wavefronts to the stores after them?
// (calibration/realk, written here from the PTX ISA; triton_tma_attention's stmatrix epilogue counts 7-8 more store
// wavefronts and conflicts than its instructions make, one a CTA, after mbarrier.inval: runs/2026-11-29-triton-tma)
//   ist(out, mode, n): one CTA of 4 warps. Thread 0 initialises an mbarrier (count 1) and arrives on it; every thread
//   waits on its phase with a try_wait loop; a barrier; then
//     mode bit 0: thread 0 invalidates the mbarrier (mbarrier.inval: SYNCS.CCTL.IV)
//     mode bit 1: a barrier after the invalidation
//     mode bit 2: the stores are STS.128 (st.shared.v4) instead of stmatrix.x4
//   and each warp makes n conflict-free stores (stmatrix.x4: lane l's row address at its own 16-byte chunk of a 512-byte
//   block of the warp; STS.128: lane l at 16 l of the block), block (warp, store) of a 16 KiB tile. The tile goes out.
__device__ __forceinline__ unsigned sh(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void ist(unsigned* out, int mode, int n)
{
    __shared__ __align__(128) unsigned tile[4096];
    __shared__ __align__(8) unsigned long long bar;
    const int t = threadIdx.x, w = t >> 5, l = t & 31;
    for (int k = t; k < 4096; k += 128) tile[k] = 0u;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sh(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sh(&bar)) : "memory");
    asm volatile("{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra WAIT_%=;\n}" ::"r"(sh(&bar))
                 : "memory");
    __syncthreads();
    if ((mode & 1) && t == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(sh(&bar)) : "memory");
    if (mode & 2) __syncthreads();
    for (int i = 0; i < n; i++) {
        const unsigned block = sh(tile) + 512 * ((w * n + i) % 32);
        if (mode & 4)
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(block + 16 * l), "r"(i), "r"(l), "r"(w), "r"(t) : "memory");
        else
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(block + 16 * l), "r"(i), "r"(l), "r"(w),
                         "r"(t) : "memory");
    }
    __syncthreads();
    for (int k = t; k < 4096; k += 128) out[blockIdx.x * 4096 + k] = tile[k];
}

// probe_op_misc.cu -- what makes l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc beyond a warp's EXIT (calibration/realk,
// written here). The corpus's one-wave kernels fit "a warp's EXIT 1, each SHFL 1, each predicated-off shared instruction 1,
// a CTA's barriers 1 a run (barriers with no memory instruction between count once)" except for 1 or 3 more a warp in
// some (the transposes, the SGEMMs, hgemm, isa_int64...), whose warps read more special registers (runs/2026-11-29-op-misc).
// Each kernel stores one word a thread to out[global thread]; the global thread is tid.x + blockDim.x * ctaid.x.
//   om_srK (K = 2..8): the word sums K special registers, each its own S2R: %tid.x, %ctaid.x, then %tid.y, %ctaid.y,
//     %tid.z, %ctaid.z, %laneid, %nsmid in that order
//   om_clk: %tid.x and %ctaid.x, then four reads of %clock
//   om_again: %tid.x and %ctaid.x, n dependent multiply-adds, then %tid.x and %ctaid.x again (asm volatile)
//   om_barM (M = 0..3): a shared store, a barrier, then 0 integer ALU only, 1 a shared load, 2 a global store, 3 a global
//     load, a barrier, a shared load
__device__ __forceinline__ unsigned sreg_tid_x() { unsigned r; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_ctaid_x() { unsigned r; asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(r)); return r; }

template <int K>
__device__ __forceinline__ void sregs(unsigned* out)
{
    const unsigned t = sreg_tid_x(), c = sreg_ctaid_x();
    unsigned v = t + 3 * c, r;
    if (K >= 3) { asm volatile("mov.u32 %0, %%tid.y;" : "=r"(r)); v += 5 * r; }
    if (K >= 4) { asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(r)); v += 7 * r; }
    if (K >= 5) { asm volatile("mov.u32 %0, %%tid.z;" : "=r"(r)); v += 11 * r; }
    if (K >= 6) { asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(r)); v += 13 * r; }
    if (K >= 7) { asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); v += 17 * r; }
    if (K >= 8) { asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r)); v += 19 * r; }
    out[t + blockDim.x * c] = v;
}

extern "C" __global__ void om_sr2(unsigned* out) { sregs<2>(out); }
extern "C" __global__ void om_sr3(unsigned* out) { sregs<3>(out); }
extern "C" __global__ void om_sr4(unsigned* out) { sregs<4>(out); }
extern "C" __global__ void om_sr6(unsigned* out) { sregs<6>(out); }
extern "C" __global__ void om_sr8(unsigned* out) { sregs<8>(out); }

extern "C" __global__ void om_clk(unsigned* out)
{
    const unsigned t = sreg_tid_x(), c = sreg_ctaid_x();
    unsigned v = t + 3 * c, r;
    for (int i = 0; i < 4; i++) { asm volatile("mov.u32 %0, %%clock;" : "=r"(r)); v += r & 1u; }
    out[t + blockDim.x * c] = v;
}

extern "C" __global__ void om_again(unsigned* out, int n)
{
    unsigned v = sreg_tid_x() + 3 * sreg_ctaid_x();
    for (int i = 0; i < n; i++) v = v * 2654435761u + 12345u;
    const unsigned t = sreg_tid_x(), c = sreg_ctaid_x();
    out[t + blockDim.x * c] = v;
}

template <int M>
__device__ __forceinline__ void bars(unsigned* out)
{
    __shared__ unsigned s[1024];
    const unsigned t = threadIdx.x, g = t + blockDim.x * blockIdx.x;
    unsigned v = 0;
    s[t & 1023] = t;
    __syncthreads();
    if (M == 0) v = v * 3u + g;
    if (M == 1) v += s[(t + 1) & 1023];
    if (M == 2) out[g + (1u << 20)] = t;
    if (M == 3) v += out[g + (1u << 21)];
    __syncthreads();
    out[g] = v + s[(t + 7) & 1023];
}

extern "C" __global__ void om_bar0(unsigned* out) { bars<0>(out); }
extern "C" __global__ void om_bar1(unsigned* out) { bars<1>(out); }
extern "C" __global__ void om_bar2(unsigned* out) { bars<2>(out); }
extern "C" __global__ void om_bar3(unsigned* out) { bars<3>(out); }

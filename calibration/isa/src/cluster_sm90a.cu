// cluster_sm90a.cu -- sm_90a-only instructions that need no tensor map or wgmma (those are the Hopper probes' of
// ../realk/hopper.json): a cluster barrier (barrier.cluster.arrive/wait: UCGABAR_ARV, UCGABAR_WAIT, with the
// release/acquire fences MEMBAR, ERRBAR, CGAERRBAR, CCTL.IVALL) in a cluster of one CTA, %cluster_ctarank
// (S2UR SR_CgaCtaId), and setmaxnreg (USETMAXREG.DEALLOC, and .TRY_ALLOC in its retry loop).
// Build: nvcc -gencode=arch=compute_90a,code=compute_90a -ptx; ptxas -arch=sm_90a. Launch: 1 CTA of 128 threads
// (one warpgroup, as setmaxnreg needs); input: data/control.npy.
#include "isa.h"

extern "C" __global__ void __cluster_dims__(1, 1, 1) __launch_bounds__(128, 1) isa_cluster(unsigned* __restrict__ out, const unsigned* __restrict__ in)
{
    HEAD();
    const unsigned a = IN(0);
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned rank;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    PUT(a + rank);
    asm volatile("setmaxnreg.dec.sync.aligned.u32 56;");
    PUT(a * 3);
    asm volatile("setmaxnreg.inc.sync.aligned.u32 96;");
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    PUT(a ^ 5);
}

// Hopper forms for tests/test_hopper_kernels.py: the mbarrier operations ptxas 13.0 compiles to each SYNCS.ARRIVE form
// and to ARRIVES (mbar_forms), an invalidated mbarrier used again (mbar_inval), and a shared::cluster load of this
// CTA's or the other CTA's word in a cluster of 2 (dsm_pair), and prefetches into the L2 (l2_prefetch).
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ uint32_t saddr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ unsigned test_parity(uint64_t *bar, unsigned parity) {
  unsigned done;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(done) : "r"(saddr(bar)), "r"(parity) : "memory");
  return done;
}

// One warp. out[0..6]: which phases have completed after each step (1: the phase of that parity has); out[32..63]:
// the words 32 cp.async copies brought, waited for through cp.async.mbarrier.arrive.noinc.
extern "C" __global__ void mbar_forms(const unsigned *in, unsigned *out) {
  __shared__ __align__(8) uint64_t bars[4];
  __shared__ unsigned words[32];
  const unsigned lane = threadIdx.x;
  if (lane == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(saddr(&bars[0])));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&bars[1])));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(saddr(&bars[2])));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 3;" ::"r"(saddr(&bars[3])));
  }
  __syncwarp();
  if (lane == 0) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(saddr(&bars[0])) : "memory");  // 1 of 2
    out[0] = test_parity(&bars[0], 0);                                                               // 0
    asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" ::"r"(saddr(&bars[0])) : "memory");  // 2 of 2, then 1 a phase
    out[1] = test_parity(&bars[0], 0);                                                               // 1
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(saddr(&bars[0])) : "memory");  // 1 of 1
    out[2] = test_parity(&bars[0], 1);                                                               // 1
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 64;" ::"r"(saddr(&bars[1])) : "memory");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(saddr(&bars[1])) : "memory");  // 64 bytes still to come
    out[3] = test_parity(&bars[1], 0);                                                               // 0
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 64;" ::"r"(saddr(&bars[1])) : "memory");
    out[4] = test_parity(&bars[1], 0);                                                               // 1
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], 2;" ::"r"(saddr(&bars[3])) : "memory");  // 2 of 3
    out[5] = test_parity(&bars[3], 0);                                                               // 0
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], 1;" ::"r"(saddr(&bars[3])) : "memory");  // 3 of 3
    out[6] = test_parity(&bars[3], 0);                                                               // 1
  }
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(saddr(&words[lane])), "l"(in + lane) : "memory");
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(saddr(&bars[2])) : "memory");
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" ::"r"(saddr(&bars[2])) : "memory");
  out[32 + lane] = words[31 - lane];
}

extern "C" __global__ void mbar_inval(unsigned *out) {
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&bar)));
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(saddr(&bar)) : "memory");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(saddr(&bar)) : "memory");
  }
  out[threadIdx.x] = 1;
}

// One warp a CTA: lane l loads word l of CTA (rank ^ peer)'s array, which holds 100 * rank + l.
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_pair(unsigned *out, int peer) {
  __shared__ unsigned words[32];
  unsigned rank, remote, v;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  words[threadIdx.x] = 100 * rank + threadIdx.x;
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(saddr(&words[threadIdx.x])), "r"(rank ^ peer));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  out[rank * 32 + threadIdx.x] = v;
}

// Prefetches into the L2: of a tensor map's box (UTMAPF) and of 256 bytes (UBLKPF); then every thread writes 1.
extern "C" __global__ void l2_prefetch(const __grid_constant__ CUtensorMap map, const unsigned *in, unsigned *out) {
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global [%0, {%1, %2}];" ::"l"(&map), "r"(0), "r"(0) : "memory");
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 256;" ::"l"(in) : "memory");
  }
  out[threadIdx.x] = 1;
}

// Spin-loop probes (written here): how long a Hopper try_wait suspends before it gives up, and how many trips
// setmaxnreg's TRY_ALLOC loop runs while the registers it asks for are not in its CTA's pool.
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -ptx src/spin_probes.cu -o ptx/spin_probes.ptx   (make_spin_probes.py)
//
// Every delay is a fixed number of trips of a dependent integer chain, each trip with a __nanosleep of `ns` (0: none)
// for the long ones (`delay`), so that each warp's instruction count is the same on every run and on simsmem's trace:
// what varies from run to run is only the spin loops' trips, which smsp__inst_executed.sum then shows whole. Each kernel
// also writes what clock64 saw, so the run's own dump gives the cycles each wait took and, for the stamped try_wait
// loop, the cycle each of its trips returned.

#include <cstdint>

#define DEV __device__ __forceinline__

DEV uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
DEV uint64_t clock64_now() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
// `n` trips of a dependent multiply-add chain (the result is stored, so the compiler keeps it; unroll 1 keeps it a loop),
// each trip sleeping `ns` nanoseconds first where ns > 0 (nanosleep sleeps up to 2 ns, at most 1 ms: clock64 says how long)
DEV uint32_t delay(uint32_t x, int n, unsigned ns) {
#pragma unroll 1
  for (int i = 0; i < n; i++) {
    if (ns) __nanosleep(ns);
    x = x * 2654435761u + 12345u;
  }
  return x;
}

// ---------------------------------------------------------------------------------------------------------- try_wait
// One CTA of 5 warps. Warp 0's lane 0 arrives on an mbarrier (count `count`) after `n` delay trips of `ns` (and, with
// count 2, once before that, after n / 2 trips: an arrive that does not complete the phase). The 4 other warps wait for
// the phase with every lane:
// - tw_stamp: a try_wait loop written here (`hint` > 0: with that suspendTimeHint in ns, which ptxas makes a TRYWAIT, then
//   NANOSLEEP.SYNCS and a plain PHASECHK), counting its trips and keeping the clock at each return (the first 32);
// - tw_plain: the loop every kernel of the corpus has (`WAIT: mbarrier.try_wait ... p; @!p bra WAIT;`, which ptxas makes
//   a TRYWAIT with an out-of-line retry: 3 instructions more at the first time-out, 2 at each after), and nothing else.
// out, per waiting warp k (its lane 0 writes), 40 words of 8 bytes: [0] trips (tw_stamp), [1] clock at the loop's start,
// [2..33] clock at each trip's return (tw_stamp; [2] the loop's end in tw_plain), [34] clock at the arrive (warp 0), [35]
// clock when warp 0 started its delay, [36] the chain's value (kept alive).
template <bool HINT>
DEV uint32_t wait_loop(uint32_t bar, uint32_t hint, uint64_t *stamps, uint64_t *start) {
  uint32_t trips = 0, done = 0;
  *start = clock64_now();
  while (!done) {
    if (HINT)
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0, %2;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done) : "r"(bar), "r"(hint) : "memory");
    else
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done) : "r"(bar) : "memory");
    if (trips < 32) stamps[trips] = clock64_now();
    trips++;
  }
  return trips;
}

DEV void plain_wait(uint32_t bar) {
  asm volatile("{\n .reg .pred p;\nWAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra WAIT_%=;\n}" ::"r"(bar)
               : "memory");
}

template <bool PLAIN>
DEV void tw(int n, unsigned ns, unsigned count, unsigned hint, unsigned long long *out) {
  __shared__ __align__(8) uint64_t bar;
  __shared__ uint64_t stamps[4][32];
  __shared__ uint64_t start[4];
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  const uint32_t b = smem_addr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(count));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (w == 0) {
    if (l == 0) {
      const uint64_t t0 = clock64_now();
      uint32_t x = t0 == 0xffffffffffffffffull ? 1u : 7u;  // never 1: a value the compiler cannot fold
      if (count > 1) {
        x = delay(x, n / 2, ns);
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
        x = delay(x, n - n / 2, ns);
      } else {
        x = delay(x, n, ns);
      }
      const uint64_t t1 = clock64_now();
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
      for (int k = 0; k < 4; k++) {
        out[k * 40 + 34] = t1;
        out[k * 40 + 35] = t0;
        out[k * 40 + 36] = x;
      }
    }
  } else if (PLAIN) {
    const int k = w - 1;
    const uint64_t t0 = clock64_now();
    plain_wait(b);
    const uint64_t t1 = clock64_now();
    if (l == 0) {
      out[k * 40 + 1] = t0;
      out[k * 40 + 2] = t1;
    }
  } else {
    const int k = w - 1;
    const uint32_t trips = hint ? wait_loop<true>(b, hint, stamps[k], &start[k]) : wait_loop<false>(b, 0, stamps[k], &start[k]);
    if (l == 0) {
      out[k * 40 + 0] = trips;
      out[k * 40 + 1] = start[k];
      for (int i = 0; i < 32; i++) out[k * 40 + 2 + i] = i < (int)trips ? stamps[k][i] : 0;
    }
  }
}

extern "C" __global__ void __launch_bounds__(160) tw_stamp(int n, unsigned ns, unsigned count, unsigned hint, unsigned long long *out) {
  tw<false>(n, ns, count, hint, out);
}
extern "C" __global__ void __launch_bounds__(160) tw_plain(int n, unsigned ns, unsigned count, unsigned long long *out) {
  tw<true>(n, ns, count, 0, out);
}

// -------------------------------------------------------------------------------------------------------- setmaxnreg
// One CTA of 384 threads, as the warp-specialised GEMMs have it (launch_bounds(384, 1): ptxas gives 168 registers a
// thread): warpgroup 0 runs `n` delay trips, then setmaxnreg.dec to 40; warpgroups 1 and 2 run `m` delay trips, then
// setmaxnreg.inc to 232 (ptxas's TRY_ALLOC loop, which runs until the pool holds 2,048 registers for the warp). out, per
// warp (lane 0 writes), 4 words of 8 bytes: [0] clock before its setmaxnreg, [1] clock after it, [2] the chain's value.
extern "C" __global__ void __launch_bounds__(384, 1) sr_delay(int n, int m, unsigned long long *out) {
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  __syncthreads();
  const uint64_t t0 = clock64_now();
  uint32_t x = t0 == 0xffffffffffffffffull ? 1u : 7u;
  uint64_t a, b;
  if (w < 4) {
    x = delay(x, n, 0);
    a = clock64_now();
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    b = clock64_now();
  } else {
    x = delay(x, m, 0);
    a = clock64_now();
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    b = clock64_now();
  }
  if (l == 0) {
    out[w * 4 + 0] = a;
    out[w * 4 + 1] = b;
    out[w * 4 + 2] = x;
  }
}

// Latency and throughput of Hopper's wgmma (shared-memory operands) and TMA / bulk copies, from clock64()
// (issue 29, part 4 "Timing"). One row per kernel launch: `timing_hopper list` names the rows,
// `timing_hopper ROW` runs one and prints
//   row name=ROW cycles_min=.. cycles_median=.. cycles_max=.. reps=.. [derived fields]
// Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o timing_hopper timing_hopper.cu
//
// Rows:
//  lat_nN[_rs]        one warpgroup, one wgmma m64nNk16 f32.f16.f16 (A and B K-major, 128B swizzle, from shared
//                     memory; _rs: A from registers): cycles from just after wgmma.fence to just after
//                     commit_group + wait_group 0 (thread 0's clock64).
//  chainC_nN          the same with C dependent wgmmas (one accumulator, k-slices 0..3 of the tile in turn) in one
//                     commit group; per_wgmma = cycles / C.
//  chain16x2_n128     16 wgmmas alternating between two accumulators (two 8-long chains) in one group.
//  thr_nN_wgW         W warpgroups in one CTA (one CTA on the GPU), each its own accumulator, 8 commit groups of
//                     16 wgmmas (wait_group 1 between groups, 0 at the end); cycles between two __syncthreads;
//                     cyc_per_wgmma_sm = cycles / (W * 128).
//  intf_OP_wL_nN[rs]_M  warpgroup 0 issues wgmma m64nNk16 (8 per commit group, wait_group 1; rs: A from registers) until warps 4..4+L-1 have
//                     done ITERS conflict-free shared loads OP each (ld.shared.u32 / .v4.u32, every lane its own
//                     word(s), independent loads as in timing.cu's throughput rows). M = lds (no wgmma), both, mma
//                     (the L warps only wait 60000 cycles). cycles = the L warps' span; wf_per_cycle = L * ITERS *
//                     wavefronts per load / cycles; mma_cyc_per_wgmma = the wgmma warpgroup's span / its wgmmas.
//  intf_OP_w4_bulk_M  the same LDS loop against thread 0 keeping 2 stages x 4 cp.async.bulk loads of 8 KiB (global,
//                     L2-resident, to shared) in flight; M = lds, both, bulk; bulk_bytes_per_cycle = its bytes / span.
//  tma_*              thread 0 of one warp, data in L2 (4 untimed warm-up repetitions first):
//    tma_ld_BxB_fF    F cp.async.bulk.tensor.2d loads of a BxB f16 box (128B swizzle) to shared memory, one
//                     mbarrier (expect_tx F * bytes): clock64 before the first copy to after the try_wait loop.
//    bulk_ld_8k_fF    F cp.async.bulk.shared::cluster.global of 8 KiB each, the same way.
//    tma_st_BxB_fF_read / _full   F cp.async.bulk.tensor.2d.global.shared::cta stores, commit_group,
//                     wait_group.read 0 (source read) / wait_group 0 (done).
//    bulk_st_8k_fF_read           F cp.async.bulk.global.shared::cta of 8 KiB, commit_group, wait_group.read 0.
//    mbar_floor       mbarrier.arrive + try_wait with no copy (the measuring floor); clock_floor: two clock64 reads.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
#include <string>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("row name=%s error=\"%s\" line=%d\n", g_row, cudaGetErrorString(e), __LINE__); exit(1); } } while (0)
static const char *g_row = "?";

#define WARM 4
#define REPS 32

__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
// The first 1024-byte-aligned byte of dynamic shared memory (the launch asks for 1 KiB more than it uses).
__device__ __forceinline__ unsigned char *aligned_smem(unsigned char *raw) {
  uint32_t a = smem_addr(raw);
  return raw + (((a + 1023u) & ~1023u) - a);
}
// Nonzero f16 values of magnitude 1/128..1/64, either sign.
__device__ __forceinline__ uint32_t hval(uint32_t i) {
  uint32_t h = i * 2654435761u; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
  uint32_t lo = 0x2000u | (h & 0x3ffu) | ((h >> 10) & 1u) << 15;
  uint32_t hi = 0x2000u | ((h >> 11) & 0x3ffu) | ((h >> 21) & 1u) << 15;
  return lo | hi << 16;
}
__device__ __forceinline__ void fill(unsigned char *s, unsigned bytes) {
  for (unsigned i = threadIdx.x; i < bytes / 4; i += blockDim.x) ((uint32_t *)s)[i] = hval(i);
}
// K-major, 128B swizzle: 128-byte rows, 8-row atoms 1024 bytes apart (SBO), LBO unused (1); the k-th 16-wide step
// starts 32 bytes further (descriptor + 2).
__device__ __forceinline__ uint64_t desc_sw128(const void *p) {
  return ((uint64_t)(smem_addr(p) & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int K> __device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(K) : "memory"); }

#define R8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
__device__ __forceinline__ void wg_ss_n64(float *d, uint64_t da, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, 1, 1, 1, 0, 0;"
               : R8(0), R8(8), R8(16), R8(24)
               : "l"(da), "l"(db));
}
__device__ __forceinline__ void wg_rs_n64(float *d, const uint32_t *a, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, 1, 1, 1, 0;"
               : R8(0), R8(8), R8(16), R8(24)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}
__device__ __forceinline__ void wg_ss_n128(float *d, uint64_t da, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, 1, 1, 1, 0, 0;"
               : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56)
               : "l"(da), "l"(db));
}
__device__ __forceinline__ void wg_rs_n128(float *d, const uint32_t *a, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, 1, 1, 1, 0;"
               : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}
__device__ __forceinline__ void wg_ss_n256(float *d, uint64_t da, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, 1, 1, 1, 0, 0;"
               : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56), R8(64), R8(72), R8(80), R8(88), R8(96), R8(104), R8(112), R8(120)
               : "l"(da), "l"(db));
}
__device__ __forceinline__ void wg_rs_n256(float *d, const uint32_t *a, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, 1, 1, 1, 0;"
               : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56), R8(64), R8(72), R8(80), R8(88), R8(96), R8(104), R8(112), R8(120)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

template <int N> __device__ __forceinline__ void wg_ss(float *d, uint64_t da, uint64_t db) {
  if constexpr (N == 64) wg_ss_n64(d, da, db);
  else if constexpr (N == 128) wg_ss_n128(d, da, db);
  else wg_ss_n256(d, da, db);
}
template <int N> __device__ __forceinline__ void wg_rs(float *d, const uint32_t *a, uint64_t db) {
  if constexpr (N == 64) wg_rs_n64(d, a, db);
  else if constexpr (N == 128) wg_rs_n128(d, a, db);
  else wg_rs_n256(d, a, db);
}

#define A_BYTES 8192  // 64 rows x 64 f16 (four k16 slices), 128B swizzle
template <int N> __host__ __device__ constexpr unsigned ab_bytes() { return A_BYTES + N * 128; }

// ---------------------------------------------------------------- wgmma latency / one-warpgroup chains
// NACC = 1: CHAIN dependent wgmmas on one accumulator; NACC = 2: alternating between two.
template <int N, int CHAIN, bool RS, int NACC>
__global__ void __launch_bounds__(128, 1) k_lat(long long *cyc, float *sink) {
  extern __shared__ unsigned char raw[];
  unsigned char *sm = aligned_smem(raw);
  fill(sm, ab_bytes<N>());
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const uint64_t da = desc_sw128(sm), db = desc_sw128(sm + A_BYTES);
  uint32_t a[4];
#pragma unroll
  for (int i = 0; i < 4; i++) a[i] = hval(threadIdx.x * 4 + i);
  float d[NACC][N / 2];
#pragma unroll
  for (int j = 0; j < NACC; j++)
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[j][i] = 0.f;
  for (int r = 0; r < WARM + REPS; r++) {
    __syncthreads();
    wg_fence();
    long long t0 = clock64();
#pragma unroll
    for (int c = 0; c < CHAIN; c++) {
      if constexpr (RS) wg_rs<N>(d[c % NACC], a, db + 2 * ((c / NACC) % 4));
      else wg_ss<N>(d[c % NACC], da + 2 * ((c / NACC) % 4), db + 2 * ((c / NACC) % 4));
    }
    wg_commit();
    wg_wait<0>();
    long long t1 = clock64();
    if (threadIdx.x == 0 && r >= WARM) cyc[r - WARM] = t1 - t0;
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < NACC; j++)
#pragma unroll
    for (int i = 0; i < N / 2; i++) s += d[j][i];
  sink[threadIdx.x] = s;
}

// ---------------------------------------------------------------- wgmma throughput, W warpgroups in one CTA
#define THR_GROUPS 8
#define THR_PER_GROUP 16
template <int N, int W>
__global__ void __launch_bounds__(128 * W, 1) k_thr(long long *cyc, float *sink) {
  extern __shared__ unsigned char raw[];
  unsigned char *sm = aligned_smem(raw);
  fill(sm, ab_bytes<N>());
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const uint64_t da = desc_sw128(sm), db = desc_sw128(sm + A_BYTES);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; i++) d[i] = 0.f;
  for (int r = 0; r < WARM + REPS; r++) {
    __syncthreads();
    long long t0 = clock64();
    for (int g = 0; g < THR_GROUPS; g++) {
      wg_fence();
#pragma unroll
      for (int c = 0; c < THR_PER_GROUP; c++) wg_ss<N>(d, da + 2 * (c % 4), db + 2 * (c % 4));
      wg_commit();
      wg_wait<1>();
    }
    wg_wait<0>();
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0 && r >= WARM) cyc[r - WARM] = t1 - t0;
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < N / 2; i++) s += d[i];
  sink[threadIdx.x] = s;
}

// ---------------------------------------------------------------- interference: LDS loop vs. wgmma
#define LDS_OFF 65536   // the LDS region (16 KiB) after the A/B tiles (at most 40 KiB)
#define FLAG_OFF (65536 + 16384)
#define INTF_SMEM (FLAG_OFF + 1024)
#define SPIN_CYCLES 60000
template <int OP>
__device__ __forceinline__ uint32_t lds(uint32_t a) {
  uint32_t r0, r1, r2, r3;
  if (OP == 0) { asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r0) : "r"(a)); return r0; }
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  return r0 | r1 | r2 | r3;
}
// The LDS side (warps 4..4+LW-1): ITERS loads each (mode != 2) or a wait of SPIN_CYCLES (mode 2); then the first
// of them writes its span to out[0] and raises the flag that stops the other side.
template <int OP, int LW, int ITERS>
__device__ __forceinline__ void lds_side(unsigned char *sm, int mode, int zmask, long long *out, uint32_t *sink,
                                         volatile uint32_t *flag) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t a = smem_addr(sm + LDS_OFF) + (OP == 0 ? lane * 4 : lane * 16) + (warp - 4) * 512 % 8192;
  uint32_t v = 0;
  long long t0 = clock64();
  if (mode != 2) {
#pragma unroll 16
    for (int i = 0; i < ITERS; i++) v += lds<OP>(a + ((i & zmask) << 12));  // zmask = 0: as timing.cu
  } else {
    while (clock64() - t0 < SPIN_CYCLES) {}
  }
  sink[threadIdx.x] = v;  // waits for this warp's loads
  asm volatile("bar.sync 2, %0;" ::"n"(32 * LW) : "memory");
  long long t1 = clock64();
  if (threadIdx.x == 128) { out[0] = t1 - t0; *flag = 1; }
}

// mode 0: LDS warps only; 1: both; 2: wgmma only (the LDS warps wait SPIN_CYCLES). RS: A from registers.
// out[0] = LDS warps' span, out[1] = wgmma warpgroup's span, out[2] = wgmmas it issued.
template <int N, int OP, int LW, int ITERS, bool RS>
__global__ void __launch_bounds__(128 + 32 * LW, 1) k_intf(int mode, int zmask, long long *out, uint32_t *sink) {
  extern __shared__ unsigned char raw[];
  unsigned char *sm = aligned_smem(raw);
  fill(sm, FLAG_OFF);
  volatile uint32_t *flag = (volatile uint32_t *)(sm + FLAG_OFF);
  if (threadIdx.x == 0) *flag = 0;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int warp = threadIdx.x / 32;
  if (warp < 4) {
    if (mode == 0) return;
    const uint64_t da = desc_sw128(sm), db = desc_sw128(sm + A_BYTES);
    uint32_t a[4];
#pragma unroll
    for (int i = 0; i < 4; i++) a[i] = hval(threadIdx.x * 4 + i);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++) d[i] = 0.f;
    long long t0 = clock64(), n = 0;
    while (true) {
      wg_fence();
#pragma unroll
      for (int c = 0; c < 8; c++) {
        if constexpr (RS) wg_rs<N>(d, a, db + 2 * (c % 4));
        else wg_ss<N>(d, da + 2 * (c % 4), db + 2 * (c % 4));
      }
      wg_commit();
      wg_wait<1>();
      n += 8;
      uint32_t f = *flag, stop;
      asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 q, %1, 0;\n bar.red.or.pred p, 1, 128, q;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(stop) : "r"(f) : "memory");
      if (stop) break;
    }
    wg_wait<0>();
    long long t1 = clock64();
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < N / 2; i++) s += d[i];
    sink[threadIdx.x] = __float_as_uint(s);
    if (threadIdx.x == 0) { out[1] = t1 - t0; out[2] = n; }
  } else {
    lds_side<OP, LW, ITERS>(sm, mode, zmask, out, sink, flag);
  }
}

// ---------------------------------------------------------------- TMA and bulk copies
__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, unsigned phase) {
  asm volatile("{\n .reg .pred p;\nWAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}"
               ::"r"(bar), "r"(phase) : "memory");
}
// Interference of cp.async.bulk loads (global -> shared, from the L2-resident 2 MiB buffer) with the LDS loop:
// thread 0 keeps 2 stages x 4 copies of 8 KiB in flight (one mbarrier per stage, shared bytes 0..64 KiB) until the
// LDS warps are done. mode as k_intf (2: copies only). out[1] = thread 0's span, out[2] = bytes it copied.
__device__ __forceinline__ void bulk_stage(uint32_t dst, const unsigned char *src, uint32_t bar) {
  mbar_expect_tx(bar, 4 * 8192);
#pragma unroll
  for (int i = 0; i < 4; i++)
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst + i * 8192), "l"(src + i * 8192), "r"(8192), "r"(bar) : "memory");
}
template <int OP, int LW, int ITERS>
__global__ void __launch_bounds__(128 + 32 * LW, 1) k_intf_bulk(int mode, int zmask, const unsigned char *gsrc,
                                                                 long long *out, uint32_t *sink) {
  extern __shared__ unsigned char raw[];
  __shared__ __align__(8) unsigned long long bars[2];
  unsigned char *sm = aligned_smem(raw);
  fill(sm + LDS_OFF, FLAG_OFF - LDS_OFF);
  volatile uint32_t *flag = (volatile uint32_t *)(sm + FLAG_OFF);
  const uint32_t b0 = smem_addr(&bars[0]), b1 = smem_addr(&bars[1]), s0 = smem_addr(sm);
  if (threadIdx.x == 0) {
    *flag = 0;
    mbar_init(b0, 1);
    mbar_init(b1, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x / 32 < 4) {
    if (mode == 0 || threadIdx.x != 0) return;
    long long t0 = clock64(), n = 0;
    unsigned ph = 0;
    bulk_stage(s0, gsrc, b0);
    bulk_stage(s0 + 32768, gsrc + 32768, b1);
    while (true) {
      mbar_wait(b0, ph); n += 32768;
      if (*flag) { mbar_wait(b1, ph); n += 32768; break; }
      bulk_stage(s0, gsrc + 65536 * (1 + (n >> 16) % 31), b0);
      mbar_wait(b1, ph); n += 32768;
      if (*flag) { mbar_wait(b0, ph ^ 1); n += 32768; break; }
      bulk_stage(s0 + 32768, gsrc + 65536 * (1 + (n >> 16) % 31) + 32768, b1);
      ph ^= 1;
    }
    long long t1 = clock64();
    out[1] = t1 - t0; out[2] = n;
  } else {
    lds_side<OP, LW, ITERS>(sm, mode, zmask, out, sink, flag);
  }
}

enum { TMA_LD = 0, BULK_LD, TMA_ST_READ, TMA_ST_FULL, BULK_ST_READ, MBAR_FLOOR, CLOCK_FLOOR };
#define TMA_SMEM (4 * 8192 + 1024)
// box: the box side in elements (rows of the 2D f16 tensor, 1024 x 1024, are 2048 bytes); bytes: one copy's bytes.
template <int KIND, int NFL>
__global__ void k_tma(const __grid_constant__ CUtensorMap map, unsigned char *gsrc, unsigned char *gdst, int box,
                      unsigned bytes, long long *cyc) {
  extern __shared__ unsigned char raw[];
  __shared__ __align__(8) unsigned long long barw;
  unsigned char *sm = aligned_smem(raw);
  fill(sm, 4 * 8192);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const uint32_t bar = smem_addr(&barw), s0 = smem_addr(sm);
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned phase = 0;
  for (int r = 0; r < WARM + REPS; r++) {
    long long t0, t1;
    if constexpr (KIND == TMA_LD || KIND == BULK_LD) {
      mbar_expect_tx(bar, NFL * bytes);
      t0 = clock64();
#pragma unroll
      for (int i = 0; i < NFL; i++) {
        if constexpr (KIND == TMA_LD)
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                       ::"r"(s0 + i * 8192), "l"(&map), "r"(bar), "r"(0), "r"(i * box) : "memory");
        else
          asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                       ::"r"(s0 + i * 8192), "l"(gsrc + i * 8192), "r"(bytes), "r"(bar) : "memory");
      }
      mbar_wait(bar, phase);
      t1 = clock64();
      phase ^= 1;
    } else if constexpr (KIND == MBAR_FLOOR) {
      t0 = clock64();
      mbar_arrive(bar);
      mbar_wait(bar, phase);
      t1 = clock64();
      phase ^= 1;
    } else if constexpr (KIND == CLOCK_FLOOR) {
      t0 = clock64();
      t1 = clock64();
    } else {
      t0 = clock64();
#pragma unroll
      for (int i = 0; i < NFL; i++) {
        if constexpr (KIND == BULK_ST_READ)
          asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                       ::"l"(gdst + i * 8192), "r"(s0 + i * 8192), "r"(bytes) : "memory");
        else
          asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                       ::"l"(&map), "r"(s0 + i * 8192), "r"(0), "r"(i * box) : "memory");
      }
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      if constexpr (KIND == TMA_ST_FULL) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
      else asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      t1 = clock64();
    }
    if (r >= WARM) cyc[r - WARM] = t1 - t0;
  }
}

// ---------------------------------------------------------------- host
static long long *d_cyc;
static float *d_sink;
static unsigned char *d_g1, *d_g2;

struct Stats { long long mn, med, mx; int n; };
static Stats stats(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back(), (int)v.size()};
}
static std::vector<long long> fetch(int n) {
  std::vector<long long> h(n);
  CK(cudaMemcpy(h.data(), d_cyc, n * sizeof(long long), cudaMemcpyDeviceToHost));
  return h;
}
template <typename K> static void prep(K k, int smem) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
}

template <int N, int CHAIN, bool RS, int NACC> static void lat() {
  auto k = k_lat<N, CHAIN, RS, NACC>;
  int smem = ab_bytes<N>() + 1024;
  prep(k, smem);
  k<<<1, 128, smem>>>(d_cyc, d_sink);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  Stats s = stats(fetch(REPS));
  printf("row name=%s cycles_min=%lld cycles_median=%lld cycles_max=%lld reps=%d wgmmas=%d per_wgmma_min=%.2f per_wgmma_median=%.2f\n",
         g_row, s.mn, s.med, s.mx, s.n, CHAIN, s.mn / (double)CHAIN, s.med / (double)CHAIN);
}
template <int N, int W> static void thr() {
  auto k = k_thr<N, W>;
  int smem = ab_bytes<N>() + 1024;
  prep(k, smem);
  k<<<1, 128 * W, smem>>>(d_cyc, d_sink);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  Stats s = stats(fetch(REPS));
  double per = W * THR_GROUPS * THR_PER_GROUP;
  double flop = 2.0 * 64 * N * 16;
  printf("row name=%s cycles_min=%lld cycles_median=%lld cycles_max=%lld reps=%d wgmmas=%d cyc_per_wgmma_sm_min=%.2f cyc_per_wgmma_sm_median=%.2f flop_per_cyc_sm=%.0f\n",
         g_row, s.mn, s.med, s.mx, s.n, (int)per, s.mn / per, s.med / per, flop * per / s.med);
}
// SRC: 0 wgmma (A from shared), 1 wgmma (A from registers), 2 bulk copies (N unused).
template <int N, int OP, int LW, int ITERS, int SRC> static void intf(int mode) {
  void (*kw)(int, int, long long *, uint32_t *) = k_intf<(N ? N : 64), OP, LW, ITERS, SRC == 1>;
  void (*kb)(int, int, const unsigned char *, long long *, uint32_t *) = k_intf_bulk<OP, LW, ITERS>;
  if (SRC == 2) prep(kb, INTF_SMEM + 1024); else prep(kw, INTF_SMEM + 1024);
  std::vector<long long> lds, mma, cnt;
  for (int rep = 0; rep < 1 + 9; rep++) {
    CK(cudaMemset(d_cyc, 0, 64));
    if (SRC == 2) kb<<<1, 128 + 32 * LW, INTF_SMEM + 1024>>>(mode, 0, d_g1, d_cyc, (uint32_t *)d_sink);
    else kw<<<1, 128 + 32 * LW, INTF_SMEM + 1024>>>(mode, 0, d_cyc, (uint32_t *)d_sink);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<long long> h = fetch(3);
    if (rep == 0) continue;  // warm-up launch
    lds.push_back(h[0]); mma.push_back(h[1]); cnt.push_back(h[2]);
  }
  Stats s = stats(lds);
  double wf = (double)LW * ITERS * (OP == 0 ? 1 : 4);
  printf("row name=%s cycles_min=%lld cycles_median=%lld cycles_max=%lld reps=%d", g_row, s.mn, s.med, s.mx, s.n);
  if (mode != 2) printf(" lds_wavefronts=%.0f wf_per_cycle_median=%.4f wf_per_cycle_best=%.4f", wf, wf / s.med, wf / s.mn);
  if (mode != 0) {
    std::vector<double> per;
    for (size_t i = 0; i < mma.size(); i++) per.push_back(SRC == 2 ? cnt[i] / (double)mma[i] : mma[i] / (double)cnt[i]);
    std::sort(per.begin(), per.end());
    std::vector<long long> c2 = cnt; std::sort(c2.begin(), c2.end());
    if (SRC == 2)
      printf(" bulk_bytes_median=%lld bulk_bytes_per_cycle_min=%.2f bulk_bytes_per_cycle_median=%.2f", c2[c2.size() / 2], per.front(), per[per.size() / 2]);
    else
      printf(" mma_wgmmas_median=%lld mma_cyc_per_wgmma_min=%.2f mma_cyc_per_wgmma_median=%.2f", c2[c2.size() / 2], per.front(), per[per.size() / 2]);
  }
  printf("\n");
}

typedef CUresult (*EncodeFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,
                             const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static CUtensorMap make_map(void *base, int box) {
  static EncodeFn enc = nullptr;
  if (!enc) {
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&enc, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !enc) { printf("row name=%s error=\"no cuTensorMapEncodeTiled\"\n", g_row); exit(1); }
  }
  CUtensorMap m;
  cuuint64_t dims[2] = {1024, 1024}, strides[1] = {2048};
  cuuint32_t bx[2] = {(cuuint32_t)box, (cuuint32_t)box}, es[2] = {1, 1};
  CUresult r = enc(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, bx, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) { printf("row name=%s error=\"cuTensorMapEncodeTiled %d\"\n", g_row, (int)r); exit(1); }
  return m;
}
template <int KIND, int NFL> static void tma(int box) {
  auto k = k_tma<KIND, NFL>;
  prep(k, TMA_SMEM);
  // loads read d_g1 (the tensor / the bulk source); stores write d_g2
  CUtensorMap m = make_map((KIND == TMA_ST_READ || KIND == TMA_ST_FULL) ? d_g2 : d_g1, box);
  unsigned bytes = (KIND == BULK_LD || KIND == BULK_ST_READ) ? 8192u : (unsigned)(box * box * 2);
  k<<<1, 32, TMA_SMEM>>>(m, d_g1, d_g2, box, bytes, d_cyc);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  Stats s = stats(fetch(REPS));
  printf("row name=%s cycles_min=%lld cycles_median=%lld cycles_max=%lld reps=%d copies=%d bytes_per_copy=%u bytes_per_cycle_median=%.2f\n",
         g_row, s.mn, s.med, s.mx, s.n, NFL, bytes, NFL * bytes / (double)s.med);
}

struct Row { const char *name; void (*fn)(); };
#define L(nm, ...) {nm, [] { __VA_ARGS__; }}
static const Row rows[] = {
    L("lat_n64", lat<64, 1, false, 1>()),
    L("lat_n128", lat<128, 1, false, 1>()),
    L("lat_n256", lat<256, 1, false, 1>()),
    L("lat_n128_rs", lat<128, 1, true, 1>()),
    L("lat_n64_rs", lat<64, 1, true, 1>()),
    L("chain4_n64", lat<64, 4, false, 1>()),
    L("chain4_n128", lat<128, 4, false, 1>()),
    L("chain4_n256", lat<256, 4, false, 1>()),
    L("chain16_n64", lat<64, 16, false, 1>()),
    L("chain16_n128", lat<128, 16, false, 1>()),
    L("chain16_n256", lat<256, 16, false, 1>()),
    L("chain16_n128_rs", lat<128, 16, true, 1>()),
    L("chain16x2_n128", lat<128, 16, false, 2>()),
    L("thr_n64_wg1", thr<64, 1>()),
    L("thr_n64_wg2", thr<64, 2>()),
    L("thr_n64_wg4", thr<64, 4>()),
    L("thr_n128_wg1", thr<128, 1>()),
    L("thr_n128_wg2", thr<128, 2>()),
    L("thr_n128_wg4", thr<128, 4>()),
    L("thr_n256_wg1", thr<256, 1>()),
    L("thr_n256_wg2", thr<256, 2>()),
    L("intf_lds32_w4_n256_lds", (intf<256, 0, 4, 4096, 0>(0))),
    L("intf_lds32_w4_n256_both", (intf<256, 0, 4, 4096, 0>(1))),
    L("intf_lds32_w4_n256_mma", (intf<256, 0, 4, 4096, 0>(2))),
    L("intf_lds32_w8_n128_lds", (intf<128, 0, 8, 4096, 0>(0))),
    L("intf_lds32_w8_n128_both", (intf<128, 0, 8, 4096, 0>(1))),
    L("intf_lds32_w8_n128_mma", (intf<128, 0, 8, 4096, 0>(2))),
    L("intf_lds128_w4_n256_lds", (intf<256, 2, 4, 2048, 0>(0))),
    L("intf_lds128_w4_n256_both", (intf<256, 2, 4, 2048, 0>(1))),
    L("intf_lds128_w4_n256_mma", (intf<256, 2, 4, 2048, 0>(2))),
    L("intf_lds128_w4_n64_lds", (intf<64, 2, 4, 2048, 0>(0))),
    L("intf_lds128_w4_n64_both", (intf<64, 2, 4, 2048, 0>(1))),
    L("intf_lds128_w4_n64_mma", (intf<64, 2, 4, 2048, 0>(2))),
    L("intf_lds128_w4_n128_lds", (intf<128, 2, 4, 2048, 0>(0))),
    L("intf_lds128_w4_n128_both", (intf<128, 2, 4, 2048, 0>(1))),
    L("intf_lds128_w4_n128_mma", (intf<128, 2, 4, 2048, 0>(2))),
    L("intf_lds128_w4_n256rs_both", (intf<256, 2, 4, 2048, 1>(1))),
    L("intf_lds128_w4_n256rs_mma", (intf<256, 2, 4, 2048, 1>(2))),
    L("intf_lds128_w4_n128rs_both", (intf<128, 2, 4, 2048, 1>(1))),
    L("intf_lds128_w4_n128rs_mma", (intf<128, 2, 4, 2048, 1>(2))),
    L("intf_lds128_w4_bulk_lds", (intf<0, 2, 4, 2048, 2>(0))),
    L("intf_lds128_w4_bulk_both", (intf<0, 2, 4, 2048, 2>(1))),
    L("intf_lds128_w4_bulk_bulk", (intf<0, 2, 4, 2048, 2>(2))),
    L("intf_lds32_w4_bulk_lds", (intf<0, 0, 4, 4096, 2>(0))),
    L("intf_lds32_w4_bulk_both", (intf<0, 0, 4, 4096, 2>(1))),
    L("clock_floor", (tma<CLOCK_FLOOR, 1>(64))),
    L("mbar_floor", (tma<MBAR_FLOOR, 1>(64))),
    L("tma_ld_64x64_f1", (tma<TMA_LD, 1>(64))),
    L("tma_ld_64x64_f4", (tma<TMA_LD, 4>(64))),
    L("tma_ld_32x32_f1", (tma<TMA_LD, 1>(32))),
    L("tma_ld_32x32_f4", (tma<TMA_LD, 4>(32))),
    L("bulk_ld_8k_f1", (tma<BULK_LD, 1>(64))),
    L("bulk_ld_8k_f4", (tma<BULK_LD, 4>(64))),
    L("tma_st_64x64_f1_read", (tma<TMA_ST_READ, 1>(64))),
    L("tma_st_64x64_f4_read", (tma<TMA_ST_READ, 4>(64))),
    L("tma_st_64x64_f1_full", (tma<TMA_ST_FULL, 1>(64))),
    L("tma_st_64x64_f4_full", (tma<TMA_ST_FULL, 4>(64))),
    L("tma_st_32x32_f1_read", (tma<TMA_ST_READ, 1>(32))),
    L("tma_st_32x32_f4_read", (tma<TMA_ST_READ, 4>(32))),
    L("bulk_st_8k_f1_read", (tma<BULK_ST_READ, 1>(64))),
    L("bulk_st_8k_f4_read", (tma<BULK_ST_READ, 4>(64))),
};

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "list")) {
    for (const Row &r : rows) printf("%s\n", r.name);
    return 0;
  }
  g_row = argv[1];
  const Row *row = nullptr;
  for (const Row &r : rows) if (!strcmp(r.name, argv[1])) row = &r;
  if (!row) { printf("row name=%s error=\"unknown row\"\n", g_row); return 2; }
  CK(cudaMalloc(&d_cyc, 4096 * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 4096 * sizeof(float)));
  size_t gb = 1024 * 1024 * 2;  // the 1024 x 1024 f16 tensor
  CK(cudaMalloc(&d_g1, gb)); CK(cudaMalloc(&d_g2, gb));
  std::vector<uint16_t> h(gb / 2);
  uint32_t x = 12345;
  for (auto &v : h) { x = x * 1664525u + 1013904223u; v = 0x2000u | ((x >> 16) & 0x3ffu) | ((x >> 8) & 0x8000u); }
  CK(cudaMemcpy(d_g1, h.data(), gb, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_g2, h.data(), gb, cudaMemcpyHostToDevice));
  row->fn();
  fflush(stdout);
  return 0;
}

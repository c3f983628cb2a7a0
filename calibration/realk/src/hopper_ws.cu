// Hopper kernels as their authors write them (issue 37), written here for the real-kernel corpus: warp-specialised
// TMA + wgmma GEMMs (a producer warpgroup and setmaxnreg; the same in a 2x1 cluster with multicast TMA and remote
// mbarrier arrives), stmatrix epilogues of every shape into plain and swizzled tiles with TMA stores overlapping the
// next tile's stmatrix, distributed shared memory (a halo exchange, and one-instruction probes of remote loads, stores
// and atomics), the cluster special registers, and tensor maps passed by pointer or built by the kernel itself.
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -ptx src/hopper_ws.cu -o ptx/hopper_ws.ptx   (make_hopper_ws.py)
//
// GEMMs: C[M][N] (f16, row-major) = A[M][K] (f16, row-major) * B[N][K]^T (f16, row-major), f32 accumulation. A CTA
// of 384 threads computes a 128 x 128 tile: warpgroup 0 produces (setmaxnreg.dec to 40 registers; thread 0 loads
// the A and B tiles of each 64-wide slice of K with TMA into one of 3 stages, each guarded by a "full" mbarrier
// that its expect_tx arms and the copies complete, after waiting on the stage's "empty" mbarrier), warpgroups 1 and 2
// consume (setmaxnreg.inc to 232; each waits on "full", runs 4 wgmma m64n128k16 on its 64 rows, waits for them, and
// arrives on "empty"), then convert their accumulators to f16, stmatrix.x4 them into a 128B-swizzled C tile and
// store it with TMA. In the cluster GEMM (__cluster_dims__(2,1,1): two CTAs with the same columns of C) each CTA
// loads its own A tile and half of the B tile, multicast into both CTAs; a consumer releases a stage by arriving on
// the "empty" mbarrier of both CTAs (one of them remote), and a producer refills it once both CTAs' consumers have.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdint>

#define DEV __device__ __forceinline__

DEV uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
DEV uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
DEV uint32_t mapa(uint32_t addr, uint32_t rank) {  // the shared::cluster address of addr in CTA rank's shared memory
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
DEV void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
DEV void mbar_init(uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
DEV void mbar_expect_tx(uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
DEV void mbar_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
DEV void mbar_arrive_cluster(uint64_t *bar, uint32_t rank) {  // arrive on the mbarrier at bar's offset in CTA rank
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(mapa(smem_addr(bar), rank)) : "memory");
}
DEV void mbar_wait(uint64_t *bar, unsigned phase) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}" ::"r"(smem_addr(bar)),
      "r"(phase)
      : "memory");
}
DEV void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(x), "r"(y)
      : "memory");
}
DEV void tma_load_2d_multicast(void *dst, const CUtensorMap *map, uint64_t *bar, int x, int y, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], "
      "[%2], %5;" ::"r"(smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(x), "r"(y), "h"(mask)
      : "memory");
}
DEV void tma_store_2d(const CUtensorMap *map, const void *src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map), "r"(smem_addr(src)),
               "r"(x), "r"(y)
               : "memory");
}
DEV void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
DEV void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
DEV void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
DEV void fence_async_smem() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
DEV void warpgroup_sync(int wg) {  // named barrier 1 + wg: the 128 threads of consumer warpgroup wg (1 or 2)
  if (wg == 1) asm volatile("bar.sync 2, 128;" ::: "memory");
  else asm volatile("bar.sync 3, 128;" ::: "memory");
}

// 128B swizzle of a tile with 128-byte rows (a 1024-byte aligned base): the 16-byte chunk of a row XOR the row mod 8
DEV uint32_t swz128(int row, int byte) { return row * 128 + ((((byte >> 4) ^ row) & 7) << 4) + (byte & 15); }

// ------------------------------------------------------------------------------------------------ the GEMMs

#define BM 128
#define BN 128
#define BK 64
#define STAGES 3
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BN * BK * 2)

// K-major operand in the 128B swizzle mode: 128-byte rows, 8-row atoms 1024 bytes apart
DEV uint64_t desc_sw128(const void *p) {
  return ((uint64_t)(smem_addr(p) & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

#define R8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
DEV void wgmma_n128(float *d, uint64_t da, uint64_t db) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, 1, 1, 1, 0, 0;"
      : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56)
      : "l"(da), "l"(db));
}

DEV uint32_t pack_half2(float a, float b) {
  __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<uint32_t *>(&h);
}

// stmatrix.x4 of a consumer's 64 x 128 accumulator (f16) into its half of the 128B-swizzled C tile, laid out as TMA
// stores it: two 64-column boxes of 128 rows x 128 bytes each. Warp w of the warpgroup holds rows 16w..16w+15; per
// 16 x 16 block the four 8 x 8 matrices are (rows +0, cols +0), (+8, +0), (+0, +8), (+8, +8).
DEV void epilogue_stsm(const float *d, unsigned char *sC, int wg_row) {
  const int w = (threadIdx.x / 32) % 4, l = threadIdx.x % 32, q = l / 8, r = l % 8;
#pragma unroll
  for (int j = 0; j < BN / 8; j += 2) {
    const int row = wg_row + 16 * w + 8 * (q % 2) + r, col = 8 * (j + q / 2);  // this lane's matrix row
    const uint32_t a = smem_addr(sC + (col / 64) * (BM * 128)) + swz128(row, (col % 64) * 2);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(a),
                 "r"(pack_half2(d[4 * j], d[4 * j + 1])), "r"(pack_half2(d[4 * j + 2], d[4 * j + 3])),
                 "r"(pack_half2(d[4 * j + 4], d[4 * j + 5])), "r"(pack_half2(d[4 * j + 6], d[4 * j + 7]))
                 : "memory");
  }
}

template <bool CLUSTER>
DEV void ws_gemm(const CUtensorMap *tA, const CUtensorMap *tB, const CUtensorMap *tC, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
  unsigned char *sA = smem, *sB = smem + STAGES * A_BYTES, *sC = smem + STAGES * (A_BYTES + B_BYTES);
  const int wg = threadIdx.x / 128, nk = K / BK, m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const uint32_t rank = CLUSTER ? cluster_rank() : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], CLUSTER ? 4 : 2);  // one arrival per consumer warpgroup (of both CTAs)
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (CLUSTER) cluster_sync();  // the peer's barriers exist before anything reaches them
  else __syncthreads();
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < nk; kt++) {
        const int s = kt % STAGES;
        if (kt >= STAGES) mbar_wait(&empty[s], (kt / STAGES - 1) & 1);
        mbar_expect_tx(&full[s], A_BYTES + B_BYTES);
        tma_load_2d(sA + s * A_BYTES, tA, &full[s], kt * BK, m0);
        if (CLUSTER)  // this CTA's half of B, into both CTAs
          tma_load_2d_multicast(sB + s * B_BYTES + rank * (B_BYTES / 2), tB, &full[s], kt * BK, n0 + rank * (BN / 2), 0x3);
        else
          tma_load_2d(sB + s * B_BYTES, tB, &full[s], kt * BK, n0);
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float d[64];
#pragma unroll
    for (int i = 0; i < 64; i++) d[i] = 0.f;
    const int row0 = (wg - 1) * 64;
    for (int kt = 0; kt < nk; kt++) {
      const int s = kt % STAGES;
      mbar_wait(&full[s], (kt / STAGES) & 1);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < BK / 16; kk++)
        wgmma_n128(d, desc_sw128(sA + s * A_BYTES + row0 * 128 + kk * 32), desc_sw128(sB + s * B_BYTES + kk * 32));
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (threadIdx.x % 128 == 0) {
        if (CLUSTER) {
          mbar_arrive_cluster(&empty[s], 0);
          mbar_arrive_cluster(&empty[s], 1);
        } else {
          mbar_arrive(&empty[s]);
        }
      }
    }
    epilogue_stsm(d, sC, row0);
    fence_async_smem();
    warpgroup_sync(wg);  // this warpgroup's rows of the C tile are written
    if (threadIdx.x % 128 == 0) {
      tma_store_2d(tC, sC + row0 * 128, n0, m0 + row0);
      tma_store_2d(tC, sC + BM * 128 + row0 * 128, n0 + 64, m0 + row0);
      bulk_commit();
      bulk_wait_read();
    }
  }
  if (CLUSTER) cluster_sync();  // no CTA leaves while its peer may still write its shared memory or arrive on its barriers
}

extern "C" __global__ void __launch_bounds__(384, 1) ws_gemm_tma(const __grid_constant__ CUtensorMap tA,
                                                                 const __grid_constant__ CUtensorMap tB,
                                                                 const __grid_constant__ CUtensorMap tC, int K) {
  ws_gemm<false>(&tA, &tB, &tC, K);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
    ws_gemm_multicast(const __grid_constant__ CUtensorMap tA, const __grid_constant__ CUtensorMap tB,
                      const __grid_constant__ CUtensorMap tC, int K) {
  ws_gemm<true>(&tA, &tB, &tC, K);
}

// ------------------------------------------------------------------------------------------------ stmatrix epilogues
// One warpgroup per CTA stores two 64 x 64 f16 tiles (rows 128*blockIdx.x + 64t of in, 64 f16 a row) as a wgmma
// accumulator holds them: thread l of warp w has rows 16w + l/4 (+8), columns 8j + 2(l%4), +1. It writes each tile
// with stmatrix.xNUM (.trans: transposed) into shared buffer t % 2 (128-byte rows, 128B-swizzled or plain), then
// thread 0 stores the buffer with TMA; the second tile's stmatrix overlaps the first tile's store.
template <int NUM, bool TRANS>
DEV void stsm(uint32_t a, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  if constexpr (NUM == 4 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  else if constexpr (NUM == 4)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  else if constexpr (NUM == 2 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(a), "r"(r0), "r"(r1) : "memory");
  else if constexpr (NUM == 2)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(a), "r"(r0), "r"(r1) : "memory");
  else if constexpr (TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(a), "r"(r0) : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(a), "r"(r0) : "memory");
}

template <int NUM, bool TRANS, bool SWZ>
DEV void stsm_tiles(const uint32_t *in, const CUtensorMap *tOut) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int w = threadIdx.x / 32, l = threadIdx.x % 32, q = (l / 8) % NUM, r = l % 8;
  for (int t = 0; t < 2; t++) {
    const int base = 128 * blockIdx.x + 64 * t;
    uint32_t v[8][2];  // v[j][h]: rows 16w + l/4 + 8h, columns 8j + 2(l%4), +1
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) v[j][h] = in[(base + 16 * w + l / 4 + 8 * h) * 32 + 4 * j + l % 4];
    unsigned char *buf = smem + (t % 2) * 8192;
#pragma unroll
    for (int k = 0; k < 16; k += NUM) {  // matrices k..k+NUM-1, matrix m = (h = m % 2, j = m / 2)
      const int m = k + q, h = m % 2, j = m / 2;
      const int row = TRANS ? 8 * j + r : 16 * w + 8 * h + r, col = TRANS ? 16 * w + 8 * h : 8 * j;
      const uint32_t a = smem_addr(buf) + (SWZ ? swz128(row, col * 2) : row * 128 + col * 2);
      if constexpr (NUM == 4) stsm<4, TRANS>(a, v[k / 2][0], v[k / 2][1], v[k / 2 + 1][0], v[k / 2 + 1][1]);
      else if constexpr (NUM == 2) stsm<2, TRANS>(a, v[k / 2][0], v[k / 2][1], 0, 0);
      else stsm<1, TRANS>(a, v[k / 2][k % 2], 0, 0, 0);
    }
    fence_async_smem();
    __syncthreads();
    if (threadIdx.x == 0) {
      tma_store_2d(tOut, buf, 0, base);
      bulk_commit();
    }
  }
  if (threadIdx.x == 0) bulk_wait();
}

#define STSM_KERNEL(NAME, NUM, TRANS, SWZ)                                                                          \
  extern "C" __global__ void __launch_bounds__(128) NAME(const uint32_t *in, const __grid_constant__ CUtensorMap tOut) { \
    stsm_tiles<NUM, TRANS, SWZ>(in, &tOut);                                                                          \
  }
STSM_KERNEL(stsm_x1, 1, false, false)
STSM_KERNEL(stsm_x2, 2, false, false)
STSM_KERNEL(stsm_x4, 4, false, false)
STSM_KERNEL(stsm_x1_swz, 1, false, true)
STSM_KERNEL(stsm_x2_swz, 2, false, true)
STSM_KERNEL(stsm_x4_swz, 4, false, true)
STSM_KERNEL(stsm_x2_trans, 2, true, false)
STSM_KERNEL(stsm_x4_trans_swz, 4, true, true)

// ------------------------------------------------------------------------------------------------ distributed shared memory
// A 1D 3-point stencil over clusters of 4 CTAs: each CTA holds 256 floats of x, and reads its neighbours' edge
// values from their shared memory (ld.shared::cluster) instead of global memory; the cluster's ends use zeros.
extern "C" __global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(256) dsmem_halo(const float *x, float *y) {
  __shared__ float tile[256];
  const int i = threadIdx.x;
  const uint32_t rank = cluster_rank();
  tile[i] = x[blockIdx.x * 256 + i];
  cluster_sync();
  float left = i > 0 ? tile[i - 1] : 0.f, right = i < 255 ? tile[i + 1] : 0.f;
  if (i == 0 && rank > 0) asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(left) : "r"(mapa(smem_addr(&tile[255]), rank - 1)));
  if (i == 255 && rank < 3) asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(right) : "r"(mapa(smem_addr(&tile[0]), rank + 1)));
  cluster_sync();  // the neighbours have read this CTA's edges before it exits
  y[blockIdx.x * 256 + i] = 0.25f * left + 0.5f * tile[i] + 0.25f * right;
}

// A histogram of 256 bins over a cluster of 2 CTAs: each thread adds its bytes into the bin's owner (bins 0..127 live
// in CTA 0, 128..255 in CTA 1) with red.shared::cluster.add; the owners then write their bins.
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256) dsmem_histogram(const uint8_t *data, unsigned *hist) {
  __shared__ unsigned bins[128];
  const uint32_t rank = cluster_rank();
  if (threadIdx.x < 128) bins[threadIdx.x] = 0;
  cluster_sync();
  for (int k = 0; k < 4; k++) {
    const unsigned b = data[(blockIdx.x * 4 + k) * 256 + threadIdx.x];
    asm volatile("red.shared::cluster.add.u32 [%0], 1;" ::"r"(mapa(smem_addr(&bins[b % 128]), b / 128)) : "memory");
  }
  cluster_sync();
  if (threadIdx.x < 128) atomicAdd(&hist[rank * 128 + threadIdx.x], bins[threadIdx.x]);
}

// Probes: one warp per CTA, a cluster of 2. After a cluster barrier, each lane makes one access of OP to word
// lane * stride of the buffer of CTA (rank ^ peer) (peer 0: its own, through a shared::cluster address); a second
// cluster barrier keeps every buffer alive until all accesses are done. The buffer starts as rank * 65536 + index;
// out[0..63] get what the accesses return, out[64..127] each CTA's words afterwards (read back with LDS).
#define PROBE_BEGIN                                                             \
  __shared__ __align__(16) unsigned buf[1024];                                  \
  const int l = threadIdx.x;                                                    \
  const uint32_t rank = cluster_rank();                                         \
  for (int k = l; k < 1024; k += 32) buf[k] = rank * 65536 + k;                 \
  cluster_sync();                                                               \
  const uint32_t a = mapa(smem_addr(&buf[(l * stride) % 1024]), rank ^ peer);
#define PROBE_END                                                               \
  cluster_sync();                                                               \
  out[64 + rank * 32 + l] = buf[(l * stride) % 1024];

extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_ld(unsigned *out, int peer, int stride) {
  PROBE_BEGIN
  unsigned v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  out[rank * 32 + l] = v;
  PROBE_END
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_st(unsigned *out, int peer, int stride) {
  PROBE_BEGIN
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(a), "r"(0xA0000 + rank * 32 + l) : "memory");
  PROBE_END
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_atom(unsigned *out, int peer, int stride) {
  PROBE_BEGIN
  unsigned old;
  asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(a), "r"(1u << (rank * 8)) : "memory");
  out[rank * 32 + l] = old;
  PROBE_END
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_red(unsigned *out, int peer, int stride) {
  PROBE_BEGIN
  asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(a), "r"(1u << (rank * 8)) : "memory");
  PROBE_END
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_ld128(unsigned *out, int peer, int stride) {
  __shared__ __align__(16) unsigned buf[4096];
  const int l = threadIdx.x;
  const uint32_t rank = cluster_rank();
  for (int k = l; k < 4096; k += 32) buf[k] = rank * 65536 + k;
  cluster_sync();
  const uint32_t a = mapa(smem_addr(&buf[(l * stride * 4) % 4096]), rank ^ peer);
  uint4 v;
  asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a) : "memory");
  cluster_sync();
  reinterpret_cast<uint4 *>(out)[rank * 32 + l] = v;
}
// A remote mbarrier arrive: lane 0 of each CTA arrives on the other CTA's mbarrier (count 1), then waits on its own.
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsm_mbar_remote(unsigned *out) {
  __shared__ __align__(8) uint64_t bar;
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  if (threadIdx.x == 0) mbar_arrive_cluster(&bar, rank ^ 1);
  mbar_wait(&bar, 0);
  cluster_sync();
  out[rank * 32 + threadIdx.x] = rank + 1;
}

// ------------------------------------------------------------------------------------------------ cluster special registers
// Every thread writes the cluster registers (16 words): ctarank, nctarank, ctaid.xyz, nctaid.xyz, clusterid.xyz,
// nclusterid.xyz, is_explicit_cluster.
DEV void sregs(unsigned *out) {
  unsigned v[16];
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v[0]));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v[1]));
  asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v[2]));
  asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v[3]));
  asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(v[4]));
  asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v[5]));
  asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v[6]));
  asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(v[7]));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v[8]));
  asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v[9]));
  asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(v[10]));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v[11]));
  asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v[12]));
  asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(v[13]));
  asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(v[14]));
  v[15] = 0xC1;
  const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
#pragma unroll
  for (int k = 0; k < 16; k++) out[(cta * blockDim.x + threadIdx.x) * 16 + k] = v[k];
}
extern "C" __global__ void cluster_sregs(unsigned *out) { sregs(out); }
extern "C" __global__ void __cluster_dims__(2, 2, 1) cluster_sregs_2x2(unsigned *out) { sregs(out); }

// ------------------------------------------------------------------------------------------------ tensor maps in memory
// TMA loads of an f32 tensor through a tensor map in global memory: given by pointer (tmap_by_pointer), or built by the
// kernel (tmap_built: thread 0 copies the template map into shared memory, replaces its global address, the outer
// dimension's size and stride and the box, one warp copies it to global memory with a proxy fence, and the warp then
// acquires it), as Triton's device-side descriptors do. Each CTA loads box rows [32 * blockIdx.x, +32) of 32 floats
// and writes them to out.
DEV void load_and_write(const CUtensorMap *map, float *out, int boxes) {
  __shared__ __align__(1024) float tile[32 * 32];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (int b = 0; b < boxes; b++) {
    if (threadIdx.x == 0) {
      mbar_expect_tx(&bar, 32 * 32 * 4);
      tma_load_2d(tile, map, &bar, 0, 32 * (blockIdx.x * boxes + b));
    }
    mbar_wait(&bar, b & 1);
    for (int k = threadIdx.x; k < 32 * 32; k += blockDim.x) out[(blockIdx.x * boxes + b) * 1024 + k] = tile[k];
    __syncthreads();
  }
}
extern "C" __global__ void tmap_by_pointer(const CUtensorMap *map, float *out) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
  load_and_write(map, out, 2);
}
extern "C" __global__ void tmap_built(const __grid_constant__ CUtensorMap tmpl, CUtensorMap *maps, const float *x, int rows,
                                      float *out) {
  __shared__ __align__(128) CUtensorMap m;
  CUtensorMap *g = maps + blockIdx.x;
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      m = tmpl;
      const uint32_t s = smem_addr(&m);
      asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(s), "l"(x) : "memory");
      asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(s), "r"(rows) : "memory");
      asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(s), "l"(32ull * 4) : "memory");
      asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, 32;" ::"r"(s) : "memory");
    }
    __syncwarp();
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;" ::"l"(g),
                 "r"(smem_addr(&m))
                 : "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(g) : "memory");
  }
  __syncthreads();
  load_and_write(g, out, 2);
}

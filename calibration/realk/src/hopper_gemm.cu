// Hopper GEMMs fed by TMA and computed by wgmma, written here for the real-kernel corpus (issue 29).
//
// C[M][N] (f32, row-major) = A[M][K] (f16, row-major) * B[N][K]^T (f16, row-major: both operands K-major).
// One warpgroup (128 threads) per CTA computes a BM x BN tile of C. Thread 0 loads the A and B tiles of each
// BK-wide slice of K with TMA (cp.async.bulk.tensor.2d, 128-byte swizzle) into STAGES shared buffers, each guarded by
// an mbarrier (expect_tx of the tile bytes); the warpgroup waits on the barrier's phase, runs BK / 16
// wgmma.mma_async.m64nBNk16 on shared-memory descriptors (K-major, 128B swizzle: the descriptor of the k-th 16-wide
// step starts 32 bytes further into the swizzle atom), then refills the buffer. The epilogue writes the accumulator
// fragments to a shared C tile (row-major, STS.64) and stores it with one TMA tensor store (or, in the _stg variant,
// writes the fragments straight to global memory).
//
//   nvcc -arch=sm_90a -ptx src/hopper_gemm.cu -o ptx/hopper_gemm.ptx
//
// Parameters: the tensor maps of A (box BK x BM, 128B swizzle), B (box BK x BN, 128B swizzle) and C (box BN x BM,
// no swizzle), passed as __grid_constant__ CUtensorMap (a 128-byte .param), then K (a multiple of BK).
#include <cuda.h>
#include <cstdint>

#define BK 64
#define STAGES 2

__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned phase) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}" ::"r"(smem_addr(bar)),
      "r"(phase)
      : "memory");
}
__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_addr(dst)),
      "l"(map), "r"(smem_addr(bar)), "r"(x), "r"(y)
      : "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map),
               "r"(smem_addr(src)), "r"(x), "r"(y)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

// Shared-memory matrix descriptor of a K-major tile in the 128-byte swizzle mode: rows of 128 bytes, 8-row atoms
// 1024 bytes apart (stride byte offset), leading byte offset unused (1).
__device__ __forceinline__ uint64_t desc_sw128(const void *p) {
  return ((uint64_t)(smem_addr(p) & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

#define R8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])

__device__ __forceinline__ void wgmma_n64(float *d, uint64_t da, uint64_t db) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, 1, 1, 1, 0, 0;"
      : R8(0), R8(8), R8(16), R8(24)
      : "l"(da), "l"(db));
}
__device__ __forceinline__ void wgmma_n128(float *d, uint64_t da, uint64_t db) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, 1, 1, 1, 0, 0;"
      : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56)
      : "l"(da), "l"(db));
}

template <int BN>
__device__ __forceinline__ void wgmma(float *d, uint64_t da, uint64_t db) {
  if constexpr (BN == 64) wgmma_n64(d, da, db);
  else wgmma_n128(d, da, db);
}

// The main loop: d (BN / 2 floats per thread) accumulates this CTA's BM x BN tile (BM = 64).
template <int BN>
__device__ __forceinline__ void mainloop(float *d, unsigned char *smem, uint64_t *bars, const CUtensorMap *tA,
                                         const CUtensorMap *tB, int K) {
  constexpr int BM = 64, A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, nk = K / BK;
  unsigned char *sA = smem, *sB = smem + STAGES * A_BYTES;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++) mbar_init(&bars[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < STAGES && s < nk; s++) {
      mbar_expect_tx(&bars[s], A_BYTES + B_BYTES);
      tma_load_2d(sA + s * A_BYTES, tA, &bars[s], s * BK, m0);
      tma_load_2d(sB + s * B_BYTES, tB, &bars[s], s * BK, n0);
    }
  for (int kt = 0; kt < nk; kt++) {
    const int s = kt % STAGES;
    mbar_wait(&bars[s], (kt / STAGES) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++)
      wgmma<BN>(d, desc_sw128(sA + s * A_BYTES + kk * 32), desc_sw128(sB + s * B_BYTES + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();  // every warp has read buffer s before it is refilled
    if (threadIdx.x == 0 && kt + STAGES < nk) {
      mbar_expect_tx(&bars[s], A_BYTES + B_BYTES);
      tma_load_2d(sA + s * A_BYTES, tA, &bars[s], (kt + STAGES) * BK, m0);
      tma_load_2d(sB + s * B_BYTES, tB, &bars[s], (kt + STAGES) * BK, n0);
    }
  }
}

// The accumulator fragment of m64nNk16 (f32): d[i] of thread t is row 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2),
// column 8 * (i / 4) + 2 * (t % 4) + i % 2.
template <int BN>
__device__ __forceinline__ void epilogue_tma(const float *d, float *sC, const CUtensorMap *tC) {
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
#pragma unroll
  for (int j = 0; j < BN / 8; j++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int row = 16 * w + l / 4 + 8 * h, col = 8 * j + 2 * (l % 4);
      *reinterpret_cast<float2 *>(&sC[row * BN + col]) = make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
    }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) tma_store_2d(tC, sC, blockIdx.x * BN, blockIdx.y * 64);
}

template <int BN>
__device__ __forceinline__ void gemm_tma(const CUtensorMap *tA, const CUtensorMap *tB, const CUtensorMap *tC, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ uint64_t bars[STAGES];
  float d[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; i++) d[i] = 0.f;
  mainloop<BN>(d, smem, bars, tA, tB, K);
  epilogue_tma<BN>(d, reinterpret_cast<float *>(smem + STAGES * (64 + BN) * BK * 2), tC);
}

extern "C" __global__ void __launch_bounds__(128) hopper_gemm_n64(const __grid_constant__ CUtensorMap tA,
                                                                  const __grid_constant__ CUtensorMap tB,
                                                                  const __grid_constant__ CUtensorMap tC, int K) {
  gemm_tma<64>(&tA, &tB, &tC, K);
}

extern "C" __global__ void __launch_bounds__(128) hopper_gemm_n128(const __grid_constant__ CUtensorMap tA,
                                                                   const __grid_constant__ CUtensorMap tB,
                                                                   const __grid_constant__ CUtensorMap tC, int K) {
  gemm_tma<128>(&tA, &tB, &tC, K);
}

// The accumulators straight to global memory (no C tile in shared memory, no TMA store).
extern "C" __global__ void __launch_bounds__(128) hopper_gemm_n128_stg(const __grid_constant__ CUtensorMap tA,
                                                                       const __grid_constant__ CUtensorMap tB,
                                                                       float *C, int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem_stg[];
  __shared__ uint64_t bars[STAGES];
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; i++) d[i] = 0.f;
  mainloop<128>(d, smem_stg, bars, &tA, &tB, K);
  const int w = threadIdx.x / 32, l = threadIdx.x % 32, m0 = blockIdx.y * 64, n0 = blockIdx.x * 128;
#pragma unroll
  for (int j = 0; j < 16; j++)
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int row = m0 + 16 * w + l / 4 + 8 * h, col = n0 + 8 * j + 2 * (l % 4);
      *reinterpret_cast<float2 *>(&C[(size_t)row * N + col]) = make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
    }
}

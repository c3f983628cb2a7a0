// A Hopper GEMM in CuTe's own idiom (issue 37), written here against CUTLASS 4.2.0's headers (pip nvidia-cutlass):
// the TMA atoms (make_tma_atom, SM90_TMA_LOAD) and the problem's shape and C's stride passed by value, a TiledMMA of
// two SM90 GMMA m64n128k16 atoms (f32 += f16 * f16, both operands K-major in 128B-swizzled shared memory), and a
// 3-stage pipeline of cutlass::arch::ClusterTransactionBarrier "full" and ClusterBarrier "empty" mbarriers.
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 --expt-relaxed-constexpr -I CUTLASS/include
//        -ptx src/cute_gemm.cu -o ptx/cute_gemm.ptx            (make_cute.py)
//
// C[M][N] (f32, row-major) = A[M][K] (f16, row-major) * B[N][K]^T (f16, row-major). A CTA of 256 threads (two
// warpgroups, 64 rows each) computes a 128 x 128 tile of C over 64-wide K slices: thread 0 arms a stage's "full"
// mbarrier with the bytes of both tiles and issues their TMA loads; every thread waits on it, issues its 4 wgmma,
// waits for them and arrives on the stage's "empty" mbarrier, which thread 0 waits on before reloading the stage
// with the slice 3 ahead. The accumulators go straight to global memory.
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>

using namespace cute;

namespace cute_gemm {

constexpr int kStages = 3;
using TileM = Int<128>;
using TileN = Int<128>;
using TileK = Int<64>;
using SmemLayoutA = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(TileM{}, TileK{}, Int<kStages>{})));
using SmemLayoutB = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(TileN{}, TileK{}, Int<kStages>{})));
using Mma = decltype(make_tiled_mma(SM90_64x128x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>{}, Layout<Shape<_2, _1, _1>>{}));

struct SharedStorage {
  alignas(1024) ArrayEngine<half_t, cosize_v<SmemLayoutA>> a;
  alignas(1024) ArrayEngine<half_t, cosize_v<SmemLayoutB>> b;
  uint64_t full[kStages];
  uint64_t empty[kStages];
};

template <class Shape3, class StrideC, class TmaA, class TmaB>
__global__ void __launch_bounds__(256) gemm_tn(Shape3 shape_mnk, CUTE_GRID_CONSTANT TmaA const tma_a, CUTE_GRID_CONSTANT TmaB const tma_b,
                                               float *c, StrideC stride_c) {
  using Full = cutlass::arch::ClusterTransactionBarrier;
  using Empty = cutlass::arch::ClusterBarrier;
  extern __shared__ char raw[];
  SharedStorage &smem = *reinterpret_cast<SharedStorage *>(raw);
  auto [m, n, k] = shape_mnk;

  // The global tensors as TMA coordinates (A, B) and as C's elements, and this CTA's tiles of them.
  auto tiler = make_shape(TileM{}, TileN{}, TileK{});
  auto coord = make_coord(blockIdx.x, blockIdx.y, _);
  Tensor g_a = local_tile(tma_a.get_tma_tensor(make_shape(m, k)), tiler, coord, Step<_1, X, _1>{});  // (128, 64, k/64)
  Tensor g_b = local_tile(tma_b.get_tma_tensor(make_shape(n, k)), tiler, coord, Step<X, _1, _1>{});
  Tensor g_c = local_tile(make_tensor(make_gmem_ptr(c), make_shape(m, n), stride_c), tiler, coord, Step<_1, _1, X>{});
  Tensor s_a = make_tensor(make_smem_ptr(smem.a.begin()), SmemLayoutA{});  // (128, 64, stage)
  Tensor s_b = make_tensor(make_smem_ptr(smem.b.begin()), SmemLayoutB{});
  auto ld_a = tma_partition(tma_a, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(s_a), group_modes<0, 2>(g_a));  // (global, shared)
  auto ld_b = tma_partition(tma_b, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(s_b), group_modes<0, 2>(g_b));
  constexpr uint32_t stage_bytes = sizeof(half_t) * size(take<0, 2>(SmemLayoutA{})) + sizeof(half_t) * size(take<0, 2>(SmemLayoutB{}));
  int slices = size<2>(g_a);

  auto load = [&](int slice, int stage) {
    Full::arrive_and_expect_tx(&smem.full[stage], stage_bytes);
    copy(tma_a.with(smem.full[stage]), get<0>(ld_a)(_, slice), get<1>(ld_a)(_, stage));
    copy(tma_b.with(smem.full[stage]), get<0>(ld_b)(_, slice), get<1>(ld_b)(_, stage));
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      Full::init(&smem.full[s], 1);
      Empty::init(&smem.empty[s], blockDim.x);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages && s < slices; ++s) load(s, s);

  Mma mma;
  ThrMMA thr = mma.get_thread_slice(threadIdx.x);
  Tensor frag_a = thr.make_fragment_A(thr.partition_A(s_a));  // GMMA descriptors, (mma, m, k, stage)
  Tensor frag_b = thr.make_fragment_B(thr.partition_B(s_b));
  Tensor part_c = thr.partition_C(g_c);
  Tensor acc = thr.make_fragment_C(part_c);
  clear(acc);
  mma.accumulate_ = GMMA::ScaleOut::One;

  for (int slice = 0; slice < slices; ++slice) {
    int stage = slice % kStages;
    uint32_t phase = (slice / kStages) & 1;
    Full::wait(&smem.full[stage], phase);
    warpgroup_fence_operand(acc);
    warpgroup_arrive();
    gemm(mma, frag_a(_, _, _, stage), frag_b(_, _, _, stage), acc);
    warpgroup_commit_batch();
    warpgroup_wait<0>();
    warpgroup_fence_operand(acc);
    Empty::arrive(&smem.empty[stage]);
    if (threadIdx.x == 0 && slice + kStages < slices) {
      Empty::wait(&smem.empty[stage], phase);
      load(slice + kStages, stage);
    }
  }
  copy(acc, part_c);
}

// The host side, as a CuTe user launches it: A, B and C in device memory, M and N multiples of 128, K of 64.
void run(int m, int n, int k, half_t const *a, half_t const *b, float *c, cudaStream_t stream) {
  auto shape_mnk = make_shape(m, n, k);
  Tensor t_a = make_tensor(make_gmem_ptr(a), make_shape(m, k), make_stride(k, Int<1>{}));
  Tensor t_b = make_tensor(make_gmem_ptr(b), make_shape(n, k), make_stride(k, Int<1>{}));
  auto tma_a = make_tma_atom(SM90_TMA_LOAD{}, t_a, SmemLayoutA{}(_, _, 0), make_shape(TileM{}, TileK{}));
  auto tma_b = make_tma_atom(SM90_TMA_LOAD{}, t_b, SmemLayoutB{}(_, _, 0), make_shape(TileN{}, TileK{}));
  auto stride_c = make_stride(int64_t(n), Int<1>{});
  auto kernel = gemm_tn<decltype(shape_mnk), decltype(stride_c), decltype(tma_a), decltype(tma_b)>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sizeof(SharedStorage)));
  kernel<<<dim3(m / 128, n / 128), 256, sizeof(SharedStorage), stream>>>(shape_mnk, tma_a, tma_b, c, stride_c);
}

}  // namespace cute_gemm

// The bytes cute_gemm.cu's host code passes its kernel, made on the CPU (no GPU, no driver): its run()'s shape, TMA
// atoms and C stride, built as run() builds them, printed as launch.cu's PARAM lines would print them, and the
// arguments make_tma_atom gives cuTensorMapEncodeTiled (a stub here, which fills the map with 0xab bytes). What
// manifest_cute.json's struct: arguments were read off (docs/hopper.md, "Your Hopper kernel").
//
//   nvcc -std=c++17 --expt-relaxed-constexpr -arch=sm_90a -I CUTLASS/include -L CUDA/lib src/cute_host_params.cu -o params
//   ./params
#define CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL 1  // CuTe calls cuTensorMapEncodeTiled itself: the stub below
#include <cuda.h>
#include <cstdio>

extern "C" CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
                                           const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                           const cuuint32_t *element_strides, CUtensorMapInterleave interleave,
                                           CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  printf("ENCODE type=%d rank=%u address=%p dims", type, rank, address);
  for (cuuint32_t k = 0; k < rank; k++) printf(" %llu", (unsigned long long)dims[k]);
  printf(" strides");
  for (cuuint32_t k = 0; k + 1 < rank; k++) printf(" %llu", (unsigned long long)strides[k]);
  printf(" box");
  for (cuuint32_t k = 0; k < rank; k++) printf(" %u", box[k]);
  printf(" element_strides");
  for (cuuint32_t k = 0; k < rank; k++) printf(" %u", element_strides[k]);
  printf(" interleave=%d swizzle=%d l2=%d fill=%d\n", interleave, swizzle, l2, fill);
  memset(map, 0xab, sizeof *map);
  return CUDA_SUCCESS;
}

#include "cute_gemm.cu"

template <class T>
static void param(int ordinal, const T &value) {
  printf("PARAM arg%d (%zu bytes, alignof %zu) ", ordinal, sizeof value, alignof(T));
  for (size_t k = 0; k < sizeof value; k++) printf("%02x", reinterpret_cast<const unsigned char *>(&value)[k]);
  printf("\n");
}

int main() {
  using namespace cute_gemm;
  int m = 256, n = 256, k = 256;
  auto a = reinterpret_cast<half_t const *>(0x100000), b = reinterpret_cast<half_t const *>(0x200000);
  auto shape_mnk = make_shape(m, n, k);
  auto tma_a = make_tma_atom(SM90_TMA_LOAD{}, make_tensor(make_gmem_ptr(a), make_shape(m, k), make_stride(k, Int<1>{})),
                             SmemLayoutA{}(_, _, 0), make_shape(TileM{}, TileK{}));
  auto tma_b = make_tma_atom(SM90_TMA_LOAD{}, make_tensor(make_gmem_ptr(b), make_shape(n, k), make_stride(k, Int<1>{})),
                             SmemLayoutB{}(_, _, 0), make_shape(TileN{}, TileK{}));
  auto stride_c = make_stride(int64_t(n), Int<1>{});
  param(0, shape_mnk);
  param(1, tma_a);
  param(2, tma_b);
  param(4, stride_c);
  printf("SMEM %zu\n", sizeof(SharedStorage));
}

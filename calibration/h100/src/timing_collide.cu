// Who gets the data path when the wavefronts of several warps meet, and how one instruction's
// wavefronts are spaced: each warp of a launch (16 launched, warp w on sub-partition w % 4) is given
// a form, its 32 lanes' byte offsets and a start skew; it spins until the CTA's common start plus its
// skew, reads clock64, issues NL independent loads (LDS.32/.64/.128 or LDSM.x4, only the first
// register of each used), stores their sum (which waits for all of them) and reads clock64 again.
// Warps with form -1 stay idle. Lines of the spec file (stdin):
//   nl  w:form:skew:o0,o1,...,o31  w:form:skew:...
// one launch each; every launch is made 3 times (rep 0 warms the instruction cache). Output lines:
//   C <spec line number> nl=<nl> rep=<r> w:start:end ...   (clocks relative to the common start)
#include "timing_common.cuh"
#include <cstdlib>
#include <cstring>

template <int OP>
__device__ __forceinline__ unsigned first(unsigned a) {
  unsigned r0, r1, r2, r3;
  if (OP == 0) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(r0) : "r"(a));
  if (OP == 1) asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
  if (OP == 2) asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  if (OP == 3) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  return r0;
}

template <int OP, int NL>
__device__ __forceinline__ void burst(unsigned a, unsigned zero, unsigned* sink, long long& s, long long& e) {
  unsigned v = 0, b[NL];
#pragma unroll
  for (int i = 0; i < NL; i++) b[i] = OP == 3 ? a + i * zero : a;  // LDSM: the same address, which ptxas cannot tell (ldmatrix is not volatile)
  s = clock64();
#pragma unroll
  for (int i = 0; i < NL; i++) v += first<OP>(b[i]);
  sink[threadIdx.x] = v;
  e = clock64();
}

template <int NL>
__global__ void collide(const int* form, const int* skew, const unsigned* offs, unsigned zero, long long* cyc, unsigned* sink) {
  __shared__ __align__(16) unsigned char smem[SB / 2];  // offsets below 24 KiB
  __shared__ long long start;
  for (int i = threadIdx.x; i < SB / 8; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  int w = threadIdx.x / 32, f = form[w], k = skew[w];
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offs[threadIdx.x];
  if ((unsigned)(f ^ k) == a) sink[threadIdx.x] = 1;  // waits for the three global loads before the barrier
  __syncthreads();
  if (threadIdx.x == 0) start = clock64() + 200;
  __syncthreads();
  long long s = 0, e = 0, t = start + k;
  if (f >= 0) {
    while (clock64() < t) {}
    if (f == 0) burst<0, NL>(a, zero, sink, s, e);
    if (f == 1) burst<1, NL>(a, zero, sink, s, e);
    if (f == 2) burst<2, NL>(a, zero, sink, s, e);
    if (f == 3) burst<3, NL>(a, zero, sink, s, e);
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) { cyc[2 * w] = s - start; cyc[2 * w + 1] = e - start; }
}

int launch(int nl, const int* form, const int* skew, const unsigned* offs, long long* cyc, unsigned* sink) {
  if (nl == 1) collide<1><<<1, 512>>>(form, skew, offs, 0, cyc, sink);
  else if (nl == 4) collide<4><<<1, 512>>>(form, skew, offs, 0, cyc, sink);
  else if (nl == 16) collide<16><<<1, 512>>>(form, skew, offs, 0, cyc, sink);
  else { printf("bad nl %d\n", nl); return 1; }
  return 0;
}

int main() {
  int *form, *skew; unsigned *offs, *sink; long long* cyc;
  CK(cudaMalloc(&form, 16 * 4)); CK(cudaMalloc(&skew, 16 * 4)); CK(cudaMalloc(&offs, 512 * 4));
  CK(cudaMalloc(&cyc, 32 * 8)); CK(cudaMalloc(&sink, 512 * 4));
  static char line[1 << 16];
  int number = 0;
  while (fgets(line, sizeof line, stdin)) {
    number++;
    int hform[16], hskew[16]; unsigned hoffs[512] = {0};
    for (int w = 0; w < 16; w++) { hform[w] = -1; hskew[w] = 0; }
    char* save = nullptr;
    char* tok = strtok_r(line, " \n", &save);
    if (!tok) continue;
    int nl = atoi(tok);
    while ((tok = strtok_r(nullptr, " \n", &save))) {
      int w = atoi(strtok(tok, ":")), f = atoi(strtok(nullptr, ":")), k = atoi(strtok(nullptr, ":"));
      char* lanes = strtok(nullptr, ":");
      if (w < 0 || w >= 16 || !lanes) { printf("bad spec line %d\n", number); return 1; }
      hform[w] = f; hskew[w] = k;
      char* p = lanes;
      for (int l = 0; l < 32; l++) { hoffs[32 * w + l] = (unsigned)strtoul(p, &p, 10); if (*p == ',') p++; }
    }
    CK(cudaMemcpy(form, hform, sizeof hform, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(skew, hskew, sizeof hskew, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(offs, hoffs, sizeof hoffs, cudaMemcpyHostToDevice));
    for (int rep = 0; rep < 3; rep++) {
      if (launch(nl, form, skew, offs, cyc, sink)) return 1;
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      long long c[32];
      CK(cudaMemcpy(c, cyc, sizeof c, cudaMemcpyDeviceToHost));
      printf("C %d nl=%d rep=%d", number, nl, rep);
      for (int w = 0; w < 16; w++) if (hform[w] >= 0) printf(" %d:%lld:%lld", w, c[2 * w], c[2 * w + 1]);
      printf("\n");
    }
  }
  return 0;
}

// Who gets the data path when the wavefronts of several warps meet, and how one instruction's
// wavefronts are spaced: each warp of a launch (16 launched, warp w on sub-partition w % 4) is given
// a form, its 32 lanes' byte offsets, a start skew and a pad; it spins until the CTA's common start
// plus its skew (the spin's period is about 33 cycles), runs `pad` more FADDs (0-31: finer starts),
// reads clock64 (start), issues NL independent loads (LDS.32/.64/.128 or LDSM.x4), reads clock64 again (mid: once the last load has issued; the loads stay
// before it), stores the sum of the loads' first registers (K = -1) or load K's first register alone
// (the store waits for that load only), and reads clock64 a third time (end; then stores what all
// registers of all loads add up to, so that each keeps its own, and nothing waits for the mid clock
// before the end).
// Warps with form -1 stay idle. Lines of the spec file (stdin):
//   nl k  w:form:skew:pad:o0,o1,...,o31  w:form:skew:pad:...
// one launch each; every launch is made 3 times (rep 0 warms the instruction cache). Output lines:
//   C <spec line number> nl=<nl> k=<k> rep=<r> w:start:mid:end ...   (clocks relative to the common start)
#include "timing_common.cuh"
#include <cstdlib>
#include <cstring>

template <int OP>
__device__ __forceinline__ uint4 volatile_load(unsigned a) {
  uint4 r = {0, 0, 0, 0};
  if (OP == 0) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(r.x) : "r"(a));
  if (OP == 1) asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2];" : "=r"(r.x), "=r"(r.y) : "r"(a));
  if (OP == 2) asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "r"(a));
  if (OP == 3) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "r"(a));
  return r;
}

template <int OP, int NL, int K>
__device__ __forceinline__ void burst(unsigned a, unsigned zero, unsigned* sink, long long& s, long long& m, long long& e) {
  unsigned v = 0, b[NL];
  uint4 r[NL];
#pragma unroll
  for (int i = 0; i < NL; i++) b[i] = OP == 3 ? a + i * zero : a;  // LDSM: the same address, which ptxas cannot tell (ldmatrix is not volatile)
  s = clock64();
#pragma unroll
  for (int i = 0; i < NL; i++) r[i] = volatile_load<OP>(b[i]);
  m = clock64();  // the loads issue before this clock read (when the last has issued); nothing waits for its value before the end clock
#pragma unroll
  for (int i = 0; i < NL; i++) v += K < 0 || i == K ? r[i].x : 0;
  sink[threadIdx.x] = v;
  e = clock64();
  unsigned rest = 0;  // every register of every load stays live (its own) until after the end clock
#pragma unroll
  for (int i = 0; i < NL; i++) rest += r[i].x ^ r[i].y ^ r[i].z ^ r[i].w;
  sink[threadIdx.x + 512] = rest;
}

// Delays a warp by `pad` issue slots (0-31) of a run of FADDs entered by a jump table.
__device__ __forceinline__ float sled(int pad, float y) {
  float x0 = y, x1 = y, x2 = y, x3 = y;
  switch (pad) {
#define F(n, x) case n: x += y; [[fallthrough]];
    F(31, x0) F(30, x1) F(29, x2) F(28, x3) F(27, x0) F(26, x1) F(25, x2) F(24, x3)
    F(23, x0) F(22, x1) F(21, x2) F(20, x3) F(19, x0) F(18, x1) F(17, x2) F(16, x3)
    F(15, x0) F(14, x1) F(13, x2) F(12, x3) F(11, x0) F(10, x1) F(9, x2) F(8, x3)
    F(7, x0) F(6, x1) F(5, x2) F(4, x3) F(3, x0) F(2, x1) F(1, x2)
#undef F
    default: break;
  }
  return x0 + x1 + x2 + x3;
}

template <int NL, int K>
__global__ void collide(const int* form, const int* skew, const int* pad, const unsigned* offs, unsigned zero, long long* cyc, unsigned* sink) {
  __shared__ __align__(16) unsigned char smem[SB / 2];  // offsets below 24 KiB
  __shared__ long long start;
  for (int i = threadIdx.x; i < SB / 8; i += blockDim.x) ((unsigned*)smem)[i] = 0;
  int w = threadIdx.x / 32, f = form[w], k = skew[w], p = pad[w];
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + offs[threadIdx.x];
  if ((unsigned)(f ^ k ^ p) == a) sink[threadIdx.x] = 1;  // waits for the global loads before the barrier
  __syncthreads();
  if (threadIdx.x == 0) start = clock64() + 200;
  __syncthreads();
  long long s = 0, m = 0, e = 0, t = start + k;
  if (f >= 0) {
    while (clock64() < t) {}
    if (sled(p, (float)zero) != 0.0f) sink[threadIdx.x] = 2;
    if (f == 0) burst<0, NL, K>(a, zero, sink, s, m, e);
    if (f == 1) burst<1, NL, K>(a, zero, sink, s, m, e);
    if (f == 2) burst<2, NL, K>(a, zero, sink, s, m, e);
    if (f == 3) burst<3, NL, K>(a, zero, sink, s, m, e);
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) { cyc[3 * w] = s - start; cyc[3 * w + 1] = m - start; cyc[3 * w + 2] = e - start; }
}

using Kernel = void (*)(const int*, const int*, const int*, const unsigned*, unsigned, long long*, unsigned*);
template <int K>
struct Probes { static void fill(Kernel* t) { t[K] = collide<16, K>; Probes<K - 1>::fill(t); } };
template <>
struct Probes<-1> { static void fill(Kernel* t) {} };

Kernel kernel(int nl, int k) {
  static Kernel probes[16];
  if (!probes[0]) Probes<15>::fill(probes);
  if (k < 0) return nl == 1 ? collide<1, -1> : nl == 4 ? collide<4, -1> : nl == 16 ? collide<16, -1> : nullptr;
  return nl == 16 && k < 16 ? probes[k] : nullptr;
}

int main() {
  int *form, *skew, *pad; unsigned *offs, *sink; long long* cyc;
  CK(cudaMalloc(&form, 16 * 4)); CK(cudaMalloc(&skew, 16 * 4)); CK(cudaMalloc(&pad, 16 * 4)); CK(cudaMalloc(&offs, 512 * 4));
  CK(cudaMalloc(&cyc, 48 * 8)); CK(cudaMalloc(&sink, 1024 * 4));
  static char line[1 << 16];
  int number = 0;
  while (fgets(line, sizeof line, stdin)) {
    number++;
    int hform[16], hskew[16], hpad[16]; unsigned hoffs[512] = {0};
    for (int w = 0; w < 16; w++) { hform[w] = -1; hskew[w] = 0; hpad[w] = 0; }
    char* save = nullptr;
    char* tok = strtok_r(line, " \n", &save);
    if (!tok) continue;
    int nl = atoi(tok), k = atoi(strtok_r(nullptr, " \n", &save));
    Kernel run = kernel(nl, k);
    if (!run) { printf("bad nl %d k %d on line %d\n", nl, k, number); return 1; }
    while ((tok = strtok_r(nullptr, " \n", &save))) {
      int w = atoi(strtok(tok, ":")), f = atoi(strtok(nullptr, ":")), sk = atoi(strtok(nullptr, ":")), pd = atoi(strtok(nullptr, ":"));
      char* lanes = strtok(nullptr, ":");
      if (w < 0 || w >= 16 || pd < 0 || pd > 31 || !lanes) { printf("bad spec line %d\n", number); return 1; }
      hform[w] = f; hskew[w] = sk; hpad[w] = pd;
      char* q = lanes;
      for (int l = 0; l < 32; l++) { hoffs[32 * w + l] = (unsigned)strtoul(q, &q, 10); if (*q == ',') q++; }
    }
    CK(cudaMemcpy(form, hform, sizeof hform, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(skew, hskew, sizeof hskew, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(pad, hpad, sizeof hpad, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(offs, hoffs, sizeof hoffs, cudaMemcpyHostToDevice));
    for (int rep = 0; rep < 3; rep++) {
      run<<<1, 512>>>(form, skew, pad, offs, 0, cyc, sink);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      long long c[48];
      CK(cudaMemcpy(c, cyc, sizeof c, cudaMemcpyDeviceToHost));
      printf("C %d nl=%d k=%d rep=%d", number, nl, k, rep);
      for (int w = 0; w < 16; w++) if (hform[w] >= 0) printf(" %d:%lld:%lld:%lld", w, c[3 * w], c[3 * w + 1], c[3 * w + 2]);
      printf("\n");
    }
  }
  return 0;
}

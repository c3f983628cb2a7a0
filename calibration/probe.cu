// Single-instruction probes of the shared-memory path (sm_90): one kernel per instruction form.
//
// Each probe runs as one CTA of `threads` threads. Lane l (threadIdx.x % 32) reads its byte offset
// offs[l] into a 48 KiB static __shared__ array and, if bit l of `mask` is set, executes exactly one
// shared-memory instruction (inline PTX) on it; LDSM/STSM run on all 32 lanes (.sync.aligned), and
// LDGSTS (cp.async) copies from global byte offset srcoffs[l] of a 4 KiB-aligned buffer. The misc_*
// probes execute no shared-memory instruction: they hold one barrier, shuffle, vote, ... for the
// op_misc wavefront counter (offs[l] feeds their operand). Every result goes to out[], so nothing is
// optimised away. harness/sass.py checks with cuobjdump that each probe holds only its instruction.
//
// usage: probe PATTERNS [INDEX]
//   PATTERNS: text, one launch per line: name kernel threads mask(hex) 32 offsets 32 source offsets
//   INDEX: launch only that line (0-based), e.g. a pattern expected to fault
// Prints one line per failed launch and exits 1 on the first CUDA error.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define SMEM_BYTES 49152
#define MAX_THREADS 1024
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s (%s) at line %d\n", cudaGetErrorName(e_), cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

#define PARAMS const unsigned* __restrict__ offs, unsigned mask, const unsigned char* __restrict__ gsrc, \
               const unsigned* __restrict__ srcoffs, unsigned* __restrict__ out
typedef void (*Kernel)(PARAMS);

struct Entry { const char* name; Kernel fn; };
static std::vector<Entry>& registry() { static std::vector<Entry> r; return r; }
struct Registered { Registered(const char* n, Kernel k) { registry().push_back({n, k}); } };

// PROBE(name) { ... } defines kernel probe_<name> and registers it under <name>.
#define PROBE(NAME) extern "C" __global__ void probe_##NAME(PARAMS); \
  static const Registered reg_##NAME(#NAME, probe_##NAME); \
  extern "C" __global__ void __launch_bounds__(MAX_THREADS) probe_##NAME(PARAMS)

__shared__ __align__(128) unsigned char smem[SMEM_BYTES];

// Lane setup shared by all probes: `a` is the lane's shared address, `r` its result.
#define SETUP const unsigned lane = threadIdx.x % 32; const unsigned off = offs[lane]; \
  const unsigned a = (unsigned)__cvta_generic_to_shared(smem) + off; unsigned r = 0; (void)a
#define ACTIVE ((mask >> lane) & 1u)
#define FINISH out[threadIdx.x] = r

// ---- loads and stores: ld.shared / st.shared ----
#define LOAD1(NAME, PTX) PROBE(NAME) { SETUP; if (ACTIVE) asm volatile(PTX " %0, [%1];" : "=r"(r) : "r"(a)); FINISH; }
LOAD1(lds8, "ld.shared.u8")
LOAD1(lds8s, "ld.shared.s8")
LOAD1(lds16, "ld.shared.u16")
LOAD1(lds16s, "ld.shared.s16")
LOAD1(lds32, "ld.shared.u32")
PROBE(lds64) { SETUP; if (ACTIVE) { unsigned x, y;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a)); r = x ^ y; } FINISH; }
PROBE(lds128) { SETUP; if (ACTIVE) { unsigned x, y, z, w;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a)); r = x ^ y ^ z ^ w; } FINISH; }

#define STORE1(NAME, PTX) PROBE(NAME) { SETUP; if (ACTIVE) asm volatile(PTX " [%0], %1;" :: "r"(a), "r"(lane + 1) : "memory"); FINISH; }
STORE1(sts8, "st.shared.u8")
STORE1(sts16, "st.shared.u16")
STORE1(sts32, "st.shared.u32")
PROBE(sts64) { SETUP; if (ACTIVE) asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "r"(a), "r"(lane), "r"(~lane) : "memory"); FINISH; }
PROBE(sts128) { SETUP; if (ACTIVE)
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(lane), "r"(~lane), "r"(mask), "r"(off) : "memory"); FINISH; }

// ---- matrices: ldmatrix / stmatrix, all 32 lanes (lanes 0..8*num-1 give row addresses) ----
#define LDSM(NAME, SHAPE) PROBE(NAME) { SETUP; unsigned x, y, z, w; \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4" SHAPE ".shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a)); \
  r = x ^ y ^ z ^ w; FINISH; }
#define LDSM2(NAME, SHAPE) PROBE(NAME) { SETUP; unsigned x, y; \
  asm volatile("ldmatrix.sync.aligned.m8n8.x2" SHAPE ".shared.b16 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a)); r = x ^ y; FINISH; }
#define LDSM1(NAME, SHAPE) PROBE(NAME) { SETUP; \
  asm volatile("ldmatrix.sync.aligned.m8n8.x1" SHAPE ".shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a)); FINISH; }
LDSM1(ldsm1, "") LDSM2(ldsm2, "") LDSM(ldsm4, "")
LDSM1(ldsm1t, ".trans") LDSM2(ldsm2t, ".trans") LDSM(ldsm4t, ".trans")
#define STSM(NAME, SHAPE) PROBE(NAME) { SETUP; \
  asm volatile("stmatrix.sync.aligned.m8n8.x4" SHAPE ".shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(lane), "r"(~lane), "r"(mask), "r"(off) : "memory"); FINISH; }
#define STSM2(NAME, SHAPE) PROBE(NAME) { SETUP; \
  asm volatile("stmatrix.sync.aligned.m8n8.x2" SHAPE ".shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(lane), "r"(~lane) : "memory"); FINISH; }
#define STSM1(NAME, SHAPE) PROBE(NAME) { SETUP; \
  asm volatile("stmatrix.sync.aligned.m8n8.x1" SHAPE ".shared.b16 [%0], {%1};" :: "r"(a), "r"(lane) : "memory"); FINISH; }
STSM1(stsm1, "") STSM2(stsm2, "") STSM(stsm4, "")
STSM1(stsm1t, ".trans") STSM2(stsm2t, ".trans") STSM(stsm4t, ".trans")

// ---- atomics: atom.shared (result used) and red.shared (no result) ----
#define ATOM(NAME, PTX) PROBE(NAME) { SETUP; if (ACTIVE) asm volatile(PTX " %0, [%1], %2;" : "=r"(r) : "r"(a), "r"(lane + 1) : "memory"); FINISH; }
#define RED(NAME, PTX) PROBE(NAME) { SETUP; if (ACTIVE) asm volatile(PTX " [%0], %1;" :: "r"(a), "r"(lane + 1) : "memory"); FINISH; }
ATOM(atom_add, "atom.shared.add.u32")
ATOM(atom_exch, "atom.shared.exch.b32")
ATOM(atom_min, "atom.shared.min.u32")
ATOM(atom_min_s, "atom.shared.min.s32")
ATOM(atom_max, "atom.shared.max.u32")
ATOM(atom_max_s, "atom.shared.max.s32")
ATOM(atom_inc, "atom.shared.inc.u32")
ATOM(atom_dec, "atom.shared.dec.u32")
ATOM(atom_and, "atom.shared.and.b32")
ATOM(atom_or, "atom.shared.or.b32")
ATOM(atom_xor, "atom.shared.xor.b32")
PROBE(atom_cas) { SETUP; if (ACTIVE) asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "r"(a), "r"(lane), "r"(~lane) : "memory"); FINISH; }
PROBE(atom_exch64) { SETUP; if (ACTIVE) { uint64_t d;
  asm volatile("atom.shared.exch.b64 %0, [%1], %2;" : "=l"(d) : "r"(a), "l"((uint64_t)lane << 32 | off) : "memory"); r = (unsigned)(d ^ d >> 32); } FINISH; }
PROBE(atom_cas64) { SETUP; if (ACTIVE) { uint64_t d;
  asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;" : "=l"(d) : "r"(a), "l"((uint64_t)lane), "l"((uint64_t)off << 32 | lane) : "memory");
  r = (unsigned)(d ^ d >> 32); } FINISH; }
RED(red_add, "red.shared.add.u32")
RED(red_min, "red.shared.min.u32")
RED(red_max, "red.shared.max.u32")
RED(red_inc, "red.shared.inc.u32")
RED(red_and, "red.shared.and.b32")
RED(red_or, "red.shared.or.b32")
RED(red_xor, "red.shared.xor.b32")
// red.shared.add of the constant 1 becomes ATOMS.POPC.INC.32 (atom.shared.add of 1, result used, stays ATOMS.ADD).
PROBE(red_add1) { SETUP; if (ACTIVE) asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(a) : "memory"); FINISH; }

// ---- cp.async (LDGSTS): global -> shared, then wait for it ----
#define CPASYNC(NAME, PTX, BYTES) PROBE(NAME) { SETUP; \
  if (ACTIVE) asm volatile(PTX " [%0], [%1], " #BYTES ";" :: "r"(a), "l"(__cvta_generic_to_global(gsrc + srcoffs[lane])) : "memory"); \
  asm volatile("cp.async.wait_all;" ::: "memory"); FINISH; }
CPASYNC(ldgsts_ca4, "cp.async.ca.shared.global", 4)
CPASYNC(ldgsts_ca8, "cp.async.ca.shared.global", 8)
CPASYNC(ldgsts_ca16, "cp.async.ca.shared.global", 16)
CPASYNC(ldgsts_cg16, "cp.async.cg.shared.global", 16)

// ---- forms the compiler turns into a loop (LDS + ATOMS.CAST.SPIN); compiled for the SASS record only ----
PROBE(loop_atom_add64) { SETUP; if (ACTIVE) { uint64_t d;
  asm volatile("atom.shared.add.u64 %0, [%1], %2;" : "=l"(d) : "r"(a), "l"((uint64_t)lane) : "memory"); r = (unsigned)d; } FINISH; }
PROBE(loop_atom_min64) { SETUP; if (ACTIVE) { uint64_t d;
  asm volatile("atom.shared.min.u64 %0, [%1], %2;" : "=l"(d) : "r"(a), "l"((uint64_t)lane) : "memory"); r = (unsigned)d; } FINISH; }
PROBE(loop_atom_and64) { SETUP; if (ACTIVE) { uint64_t d;
  asm volatile("atom.shared.and.b64 %0, [%1], %2;" : "=l"(d) : "r"(a), "l"((uint64_t)lane) : "memory"); r = (unsigned)d; } FINISH; }
PROBE(loop_red_add64) { SETUP; if (ACTIVE) asm volatile("red.shared.add.u64 [%0], %1;" :: "r"(a), "l"((uint64_t)lane) : "memory"); FINISH; }
PROBE(loop_atom_addf32) { SETUP; if (ACTIVE) asm volatile("atom.shared.add.f32 %0, [%1], 1.0;" : "=r"(r) : "r"(a) : "memory"); FINISH; }

// ---- op_misc: no shared-memory instruction; one barrier / shuffle / vote / ... (or none: exit only) ----
PROBE(misc_exit) { SETUP; r = off; FINISH; }
PROBE(misc_bar) { SETUP; asm volatile("bar.sync 0;" ::: "memory"); r = off; FINISH; }
PROBE(misc_bar2) { SETUP; asm volatile("bar.sync 0;" ::: "memory"); r = off; asm volatile("bar.sync 0;" ::: "memory"); FINISH; }
PROBE(misc_bar_red) { SETUP; r = __syncthreads_count(off & 1); FINISH; }
PROBE(misc_bar_named) { SETUP; asm volatile("bar.sync 1, 32;" ::: "memory"); r = off; FINISH; }
PROBE(misc_shfl_idx) { SETUP; r = __shfl_sync(0xffffffffu, lane * 7 + 1, off & 31); FINISH; }
PROBE(misc_shfl_idx2) { SETUP; r = __shfl_sync(0xffffffffu, lane * 7 + 1, off & 31); r = __shfl_sync(0xffffffffu, r, off & 31); FINISH; }
PROBE(misc_shfl_bfly) { SETUP; r = __shfl_xor_sync(0xffffffffu, lane * 7 + 1, off & 31); FINISH; }
PROBE(misc_shfl_up) { SETUP; r = __shfl_up_sync(0xffffffffu, lane * 7 + 1, off & 31); FINISH; }
PROBE(misc_shfl_down) { SETUP; r = __shfl_down_sync(0xffffffffu, lane * 7 + 1, off & 31); FINISH; }
PROBE(misc_shfl_masked) { SETUP; if (ACTIVE) r = __shfl_sync(mask, lane * 7 + 1, off & 31); FINISH; }
PROBE(misc_vote_ballot) { SETUP; r = __ballot_sync(0xffffffffu, off & 1); FINISH; }
PROBE(misc_vote_all) { SETUP; r = __all_sync(0xffffffffu, off & 1); FINISH; }
PROBE(misc_match_any) { SETUP; r = __match_any_sync(0xffffffffu, off); FINISH; }
PROBE(misc_redux_add) { SETUP; r = __reduce_add_sync(0xffffffffu, off); FINISH; }
PROBE(misc_fence_cta) { SETUP; __threadfence_block(); r = off; FINISH; }
PROBE(misc_fence_gpu) { SETUP; __threadfence(); r = off; FINISH; }
PROBE(misc_nanosleep) { SETUP; __nanosleep(64); r = off; FINISH; }
// Which instruction makes the op_misc wavefronts of LDGSTS probes and of stores before a barrier?
PROBE(misc_ldgdepbar) { SETUP; asm volatile("cp.async.commit_group;" ::: "memory"); r = off; FINISH; }
PROBE(misc_depbar) { SETUP; asm volatile("cp.async.wait_all;" ::: "memory"); r = off; FINISH; }
PROBE(misc_sts_bar) { SETUP; if (ACTIVE) asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(lane) : "memory");
  asm volatile("bar.sync 0;" ::: "memory"); r = off; FINISH; }
PROBE(misc_sts128_bar) { SETUP; if (ACTIVE) asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" :: "r"(a), "r"(lane) : "memory");
  asm volatile("bar.sync 0;" ::: "memory"); r = off; FINISH; }
PROBE(misc_lds_bar) { SETUP; if (ACTIVE) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(a) : "memory");
  asm volatile("bar.sync 0;" ::: "memory"); FINISH; }

// ---- a load the compiler predicates instead of branching around (mask 0: predicated off in every lane) ----
PROBE(lds32_pred) { SETUP; asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p ld.shared.u32 %0, [%1]; }" : "+r"(r) : "r"(a), "r"(ACTIVE)); FINISH; }

// ---- host: read the pattern file, launch each line once, check every launch ----
struct Pattern { std::string name, kernel; unsigned threads, mask; unsigned offs[32], src[32]; };

static std::vector<Pattern> read_patterns(const char* path) {
  FILE* f = fopen(path, "r");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  std::vector<Pattern> ps;
  char name[256], kernel[64];
  Pattern p;
  while (fscanf(f, "%255s %63s %u %x", name, kernel, &p.threads, &p.mask) == 4) {
    for (int i = 0; i < 32; i++) if (fscanf(f, "%u", &p.offs[i]) != 1) { fprintf(stderr, "%s: bad offsets\n", name); exit(2); }
    for (int i = 0; i < 32; i++) if (fscanf(f, "%u", &p.src[i]) != 1) { fprintf(stderr, "%s: bad sources\n", name); exit(2); }
    if (p.threads < 32 || p.threads > MAX_THREADS || p.threads % 32) { fprintf(stderr, "%s: bad thread count\n", name); exit(2); }
    p.name = name; p.kernel = kernel;
    ps.push_back(p);
  }
  if (!feof(f)) { fprintf(stderr, "%s: unreadable line after %zu patterns\n", path, ps.size()); exit(2); }
  fclose(f);
  return ps;
}

static Kernel find_kernel(const std::string& name) {
  for (const Entry& e : registry()) if (name == e.name) return e.fn;
  fprintf(stderr, "no probe named %s\n", name.c_str());
  exit(2);
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) { fprintf(stderr, "usage: %s PATTERNS [INDEX]\n", argv[0]); return 2; }
  std::vector<Pattern> ps = read_patterns(argv[1]);
  size_t first = 0, last = ps.size();
  if (argc == 3) { first = strtoul(argv[2], nullptr, 10); last = first + 1; if (last > ps.size()) { fprintf(stderr, "no pattern %zu\n", first); return 2; } }
  std::vector<unsigned> offs, src;
  unsigned max_src = 0;
  for (const Pattern& p : ps) for (int i = 0; i < 32; i++) {
    offs.push_back(p.offs[i]); src.push_back(p.src[i]); if (p.src[i] > max_src) max_src = p.src[i];
  }
  unsigned *d_offs, *d_src, *d_out; unsigned char* d_global;
  CK(cudaMalloc(&d_offs, offs.size() * 4)); CK(cudaMalloc(&d_src, src.size() * 4));
  CK(cudaMalloc(&d_out, MAX_THREADS * 4)); CK(cudaMalloc(&d_global, max_src + 16 + 4096));
  CK(cudaMemcpy(d_offs, offs.data(), offs.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_src, src.data(), src.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_global, 0x5a, max_src + 16 + 4096));
  const unsigned char* base = (const unsigned char*)(((uintptr_t)d_global + 4095) & ~(uintptr_t)4095);  // sources: offsets from a 4 KiB boundary
  for (size_t i = first; i < last; i++) {
    const Pattern& p = ps[i];
    find_kernel(p.kernel)<<<1, p.threads>>>(d_offs + 32 * i, p.mask, base, d_src + 32 * i, d_out);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      printf("FAULT %zu %s %s: %s: %s\n", i, p.name.c_str(), p.kernel.c_str(), cudaGetErrorName(e), cudaGetErrorString(e));
      return 1;
    }
  }
  printf("probe: %zu launches ok\n", last - first);
  return 0;
}

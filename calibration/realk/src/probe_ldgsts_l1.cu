// probe_ldgsts_l1.cu -- what adds L1-level LDGSTS bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts)
// beyond one warp's copies (calibration/realk, written here from the PTX ISA's cp.async):
//   l1c(out, in, op, src, dst, wait, n, wmask): the warps set in wmask (of 32) make n copies each; lane l copies
//   W bytes (op 0 cp.async.ca 16 B, 1 .cg 16 B, 2 .ca 8 B, 3 .ca 4 B) at byte l*W of a W*32-byte run
//     src 0: a fresh run each copy (copy i of warp w of CTA b: run (32 b + w) n + i of in), 1: every copy of every warp
//         the same run (run 0), 2: src 0's run, which the warp loaded with ld.global.cg just before (an L2 hit, no L1 line),
//         3 (16 B only): a fresh 1 KiB run r, lane l at r*1024 + 128 (l / 4) + 16 (l % 4): 64 bytes of each of 8 lines,
//         4 (16 B only): a fresh 4 KiB run r, lane l at r*4096 + 128 l: 16 bytes of each of 32 lines
//     dst 0: the warp's own 512-byte row of the 16 KiB tile (row w), 1: row w % 8 (four warps a row, as cpc_loop)
//     wait 0: one commit and wait after the n copies, 1: commit + wait_group 0 after every copy
//   then the tile goes out (so nothing is dead).
constexpr int TILE = 4096;  // words: 16 KiB

__device__ __forceinline__ unsigned sh(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void commit_wait() { asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory"); }

extern "C" __global__ void l1c(float* out, const char* in, int op, int src, int dst, int wait, int n, unsigned wmask)
{
    __shared__ __align__(128) float s[TILE];
    const int t = threadIdx.x, w = t >> 5, l = t & 31;
    for (int k = t; k < TILE; k += blockDim.x) s[k] = -1.0f;
    __syncthreads();
    float acc = 0.f;
    if (wmask >> w & 1) {
        const int width = op == 3 ? 4 : op == 2 ? 8 : 16;
        const unsigned d = sh((char*)s + (dst ? w % 8 : w) * 512 + width * l);
        for (int i = 0; i < n; i++) {
            const size_t r = src == 1 ? 0 : (size_t)(blockIdx.x * 32 + w) * n + i;
            const char* g = src == 3 ? in + r * 1024 + 128 * (l / 4) + 16 * (l % 4) : src == 4 ? in + r * 4096 + 128 * l : in + r * 512 + width * l;
            if (src == 2) { float v; asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(g)); acc += v; }
            if (op == 0) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g) : "memory");
            else if (op == 1) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g) : "memory");
            else if (op == 2) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(d), "l"(g) : "memory");
            else asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(g) : "memory");
            if (wait) commit_wait();
        }
        commit_wait();
    }
    __syncthreads();
    for (int k = t; k < TILE; k += blockDim.x) out[(size_t)blockIdx.x * TILE + k] = s[k] + acc;
}

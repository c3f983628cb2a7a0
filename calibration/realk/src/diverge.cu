// diverge.cu -- probes of how a warp diverges and reconverges around shared-memory accesses.
// Written here (calibration/realk). Every branch condition and trip count comes from an npy input, per lane, so
// the per-warp instruction counts (smsp__inst_executed, the shared ld/st instruction counts, thread_inst_executed)
// tell how often each instruction ran as a warp instruction, i.e. where the hardware reconverged the warp.
// All outputs are per-thread results that do not depend on scheduling, except div_ifelse_order (see there).
//   div_while_then_smem   a while loop with a per-lane trip count (0..40), then straight into a shared store and
//                         a shared load (no __syncthreads, no __syncwarp in between); each lane touches its own
//                         word (a permutation of the tile), so the values do not depend on the order
//   div_ifelse_order      if/else on a per-lane flag, both arms access shared memory: the if arm stores to its
//                         own word, the else arm loads its neighbour lane's word (tid ^ 1) through a volatile
//                         pointer, each arm then loops 0-3 times (flag bits 1-2) over more volatile loads; a lane
//                         whose neighbour took the other arm sees the neighbour's store only if the if arm ran
//                         first, so the output records the order in which the hardware ran the two arms
//   div_early_return      lanes with a negative input return at once; the rest store to and reload (volatile)
//                         their own shared word, then write their result
//   div_loop_break        a loop over a shared row with a data-dependent break (the lane's threshold reached),
//                         so the loop's LDS runs with fewer and fewer lanes
//   div_fdiv_slowpath     x = a / b (IEEE division, -prec-div=true) only on lanes whose flag is set; ptxas's
//                         fast path checks its operands (FCHK) and calls its slow-path subroutine for denormal,
//                         huge or special operands, which some lanes' inputs are: the call sits inside BSSY/BSYNC
// Launch: 256 threads per block; inputs are per-thread npy arrays of grid * 256 elements.
extern "C" __global__ void __launch_bounds__(256)
div_while_then_smem(float* __restrict__ out, const int* __restrict__ trips, const float* __restrict__ x)
{
    __shared__ float s[256];
    const int tid = threadIdx.x;
    const int g = blockIdx.x * 256 + tid;
    s[tid] = (float)tid;
    __syncthreads();
    int n = trips[g];
    float acc = x[g];
    while (n > 0) {
        acc = acc * 0.75f + 1.0f;
        n--;
    }
    const int p = (tid * 37) & 255;  // this lane's own word
    s[p] += acc;
    out[g] = s[p] * 2.0f;
}

extern "C" __global__ void __launch_bounds__(256)
div_ifelse_order(float* __restrict__ out, const int* __restrict__ flag, const float* __restrict__ x)
{
    __shared__ float s[256];
    volatile float* vs = s;
    const int tid = threadIdx.x;
    const int g = blockIdx.x * 256 + tid;
    s[tid] = -1.0f;
    __syncthreads();
    const int f = flag[g];
    const int reps = (f >> 1) & 3;  // 0..3 more rounds in the arm: loops keep ptxas from predicating the arms
    float r;
    if (f & 1) {
        vs[tid] = x[g];
        r = x[g];
        for (int k = 0; k < reps; k++) r = r * 0.5f + vs[tid];
    } else {
        r = vs[tid ^ 1];
        for (int k = 0; k < reps; k++) r = r * 0.25f - vs[tid ^ 1];
    }
    out[g] = r;
}

extern "C" __global__ void __launch_bounds__(256)
div_early_return(float* __restrict__ out, const float* __restrict__ x)
{
    __shared__ float s[512];
    volatile float* vs = s;
    const int tid = threadIdx.x;
    const int g = blockIdx.x * 256 + tid;
    const float v = x[g];
    if (v < 0.f) return;
    vs[2 * tid] = v;  // 2-word lane stride: 2-way conflicts for the lanes left
    const float w = vs[2 * tid] + vs[2 * tid];
    out[g] = w;
}

extern "C" __global__ void __launch_bounds__(256)
div_loop_break(float* __restrict__ out, const float* __restrict__ row, const float* __restrict__ thr)
{
    __shared__ float s[256];
    const int tid = threadIdx.x;
    const int g = blockIdx.x * 256 + tid;
    s[tid] = row[blockIdx.x * 256 + tid];
    __syncthreads();
    const float t = thr[g];
    float acc = 0.f;
    int i;
    for (i = 0; i < 64; i++) {
        const float v = s[(tid + 3 * i) & 255];
        acc += v;
        if (acc > t) break;
    }
    out[2 * g] = acc;
    out[2 * g + 1] = (float)i;
}

extern "C" __global__ void __launch_bounds__(256)
div_fdiv_slowpath(float* __restrict__ out, const float* __restrict__ a, const float* __restrict__ b,
                  const int* __restrict__ flag)
{
    __shared__ float s[256];
    const int tid = threadIdx.x;
    const int g = blockIdx.x * 256 + tid;
    s[tid] = a[g];
    __syncthreads();
    float r = s[255 - tid];
    __syncthreads();  // every read of the mirrored word is done before any lane overwrites its own
    if (flag[g] & 1) {
        r = s[tid] / b[g];
        s[tid] = r;
    }
    out[g] = r + s[tid];
}

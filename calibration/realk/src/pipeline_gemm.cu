#include <cooperative_groups.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;
constexpr int BS = 32, STAGES = 4;
// C = A B, block-scope pipeline
extern "C" __global__ void mm_pipe_block(float* C, const float* A, const float* B, int wA, int wB)
{
    __shared__ alignas(16) float As[STAGES][BS][BS];
    __shared__ alignas(16) float Bs[STAGES][BS][BS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    int tx = threadIdx.x, ty = threadIdx.y;   // block 8 x 32 ... (BS/4) x BS
    int aBegin = wA * BS * blockIdx.y, bBegin = BS * blockIdx.x;
    int steps = wA / BS;
    float acc[4] = {0, 0, 0, 0};
    int fetch = 0;
    for (int step = 0; step < steps; step++) {
        for (; fetch < steps && fetch < step + STAGES; fetch++) {
            pipe.producer_acquire();
            int s = fetch % STAGES;
            const float* a = A + aBegin + fetch * BS + wA * ty + 4 * tx;
            const float* b = B + bBegin + fetch * BS * wB + wB * ty + 4 * tx;
            cuda::memcpy_async(&As[s][ty][4 * tx], a, cuda::aligned_size_t<16>(sizeof(float4)), pipe);
            cuda::memcpy_async(&Bs[s][ty][4 * tx], b, cuda::aligned_size_t<16>(sizeof(float4)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        int s = step % STAGES;
        for (int k = 0; k < BS; k++)
            for (int j = 0; j < 4; j++) acc[j] += As[s][ty][k] * Bs[s][k][4 * tx + j];
        pipe.consumer_release();
    }
    for (int j = 0; j < 4; j++) C[(BS * blockIdx.y + ty) * wB + BS * blockIdx.x + 4 * tx + j] = acc[j];
}
// element-wise copies (sizeof(float)), thread-scope pipeline
extern "C" __global__ void mm_pipe_thread(float* C, const float* A, const float* B, int wA, int wB)
{
    __shared__ float As[STAGES][BS][BS];
    __shared__ float Bs[STAGES][BS][BS];
    auto pipe = cuda::make_pipeline();
    int tx = threadIdx.x, ty = threadIdx.y;   // block 32 x 32
    int aBegin = wA * BS * blockIdx.y, bBegin = BS * blockIdx.x;
    int steps = wA / BS;
    float acc = 0;
    int fetch = 0;
    for (int step = 0; step < steps; step++) {
        for (; fetch < steps && fetch < step + STAGES; fetch++) {
            pipe.producer_acquire();
            int s = fetch % STAGES;
            cuda::memcpy_async(&As[s][ty][tx], A + aBegin + fetch * BS + wA * ty + tx, sizeof(float), pipe);
            cuda::memcpy_async(&Bs[s][ty][tx], B + bBegin + fetch * BS * wB + wB * ty + tx, sizeof(float), pipe);
            pipe.producer_commit();
        }
        cuda::pipeline_consumer_wait_prior<STAGES - 1>(pipe);
        __syncthreads();
        int s = step % STAGES;
        for (int k = 0; k < BS; k++) acc += As[s][ty][k] * Bs[s][k][tx];
        __syncthreads();
        pipe.consumer_release();
    }
    C[(BS * blockIdx.y + ty) * wB + BS * blockIdx.x + tx] = acc;
}

// 16x16 tiles, 4-byte copies (two half-warp rows per warp-level copy: lanes 0-15 one row, 16-31 the next), thread
// scope: the CUDA samples' multistage form. Block 16 x 16.
constexpr int HS = 16;
extern "C" __global__ void mm16_pipe_thread(float* C, const float* A, const float* B, int wA, int wB)
{
    __shared__ float As[STAGES][HS][HS];
    __shared__ float Bs[STAGES][HS][HS];
    auto pipe = cuda::make_pipeline();
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int aBegin = wA * HS * blockIdx.y, bBegin = HS * blockIdx.x, steps = wA / HS;
    float acc = 0;
    int fetch = 0;
    for (int step = 0; step < steps; step++) {
        for (; fetch < steps && fetch < step + STAGES; fetch++) {
            pipe.producer_acquire();
            const int s = fetch % STAGES;
            cuda::memcpy_async(&As[s][ty][tx], A + aBegin + fetch * HS + wA * ty + tx, cuda::aligned_size_t<4>(4), pipe);
            cuda::memcpy_async(&Bs[s][ty][tx], B + bBegin + fetch * HS * wB + wB * ty + tx, cuda::aligned_size_t<4>(4), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        __syncthreads();
        const int s = step % STAGES;
        for (int k = 0; k < HS; k++) acc += As[s][ty][k] * Bs[s][k][tx];
        __syncthreads();
        pipe.consumer_release();
    }
    C[(HS * blockIdx.y + ty) * wB + HS * blockIdx.x + tx] = acc;
}

// The same with a block-scope pipeline whose one producer warp (threadIdx.y 16, 17) copies every tile while the
// 8 consumer warps compute: block 16 x 18, the shared state's producer count found by an atomic (ptxas: ATOM.E.ADD on
// the shared state, the waterfall R2UR loops).
extern "C" __global__ void mm16_pipe_producer(float* C, const float* A, const float* B, int wA, int wB)
{
    __shared__ float As[STAGES][HS][HS];
    __shared__ float Bs[STAGES][HS][HS];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    const bool producer = threadIdx.y >= HS;
    auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int aBegin = wA * HS * blockIdx.y, bBegin = HS * blockIdx.x, steps = wA / HS;
    float acc = 0;
    int fetch = 0;
    for (int step = 0; step < steps; step++) {
        if (producer) {
            for (; fetch < steps && fetch < step + STAGES; fetch++) {
                const int s = fetch % STAGES;
                pipe.producer_acquire();
                for (int r = ty - HS; r < HS; r += 2) {
                    cuda::memcpy_async(&As[s][r][tx], A + aBegin + fetch * HS + wA * r + tx, cuda::aligned_size_t<4>(4), pipe);
                    cuda::memcpy_async(&Bs[s][r][tx], B + bBegin + fetch * HS * wB + wB * r + tx, cuda::aligned_size_t<4>(4), pipe);
                }
                pipe.producer_commit();
            }
        } else {
            pipe.consumer_wait();
            const int s = step % STAGES;
            for (int k = 0; k < HS; k++) acc += As[s][ty][k] * Bs[s][k][tx];
            pipe.consumer_release();
        }
    }
    if (!producer) C[(HS * blockIdx.y + ty) * wB + HS * blockIdx.x + tx] = acc;
}

// A loop that never ends (written here): every lane spins on a flag nobody sets, through shared memory.
__global__ void spin(volatile int *flag, int *out) {
    __shared__ int s[256];
    int i = 0;
    while (flag[0] == 0) { s[threadIdx.x % 256] = i; i += s[(threadIdx.x * 3) % 256]; }
    out[threadIdx.x] = i;
}

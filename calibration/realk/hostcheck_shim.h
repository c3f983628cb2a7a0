// hostcheck_shim.h -- CPU shim for hostcheck.py: runs CUDA C++ kernels (no inline PTX, no warp intrinsics) with one
// ucontext fiber per thread, blocks one after another; __syncthreads switches fibers; atomics are plain (fibers
// never preempt). Warp-synchronous code (no barrier) is NOT emulated in lockstep: threads run one by one.
#pragma once
#include <ucontext.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <functional>
#include <vector>
#include <algorithm>
#include <string>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
static dim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
static inline float2 make_float2(float a, float b) { return {a, b}; }
template <class T> T atomicAdd(T* p, T v) { T o = *p; *p = o + v; return o; }
template <class T> T atomicSub(T* p, T v) { T o = *p; *p = o - v; return o; }
template <class T> T atomicMax(T* p, T v) { T o = *p; *p = std::max(o, v); return o; }
template <class T> T atomicMin(T* p, T v) { T o = *p; *p = std::min(o, v); return o; }
template <class T> T atomicOr(T* p, T v) { T o = *p; *p = o | v; return o; }
template <class T> T atomicAnd(T* p, T v) { T o = *p; *p = o & v; return o; }
template <class T> T atomicXor(T* p, T v) { T o = *p; *p = o ^ v; return o; }
template <class T> T atomicExch(T* p, T v) { T o = *p; *p = v; return o; }
template <class T> T atomicCAS(T* p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }
static unsigned atomicInc(unsigned* p, unsigned m) { unsigned o = *p; *p = o >= m ? 0 : o + 1; return o; }
static unsigned atomicDec(unsigned* p, unsigned m) { unsigned o = *p; *p = (o == 0 || o > m) ? m : o - 1; return o; }

// ---- fibers
struct Fiber { ucontext_t ctx; bool done = false, waiting = false; dim3 tid; std::vector<char> stack; };
static std::vector<Fiber> g_f;
static ucontext_t g_main;
static int g_cur;
static std::function<void()> g_body;
static void __syncthreads() {
  g_f[g_cur].waiting = true;
  swapcontext(&g_f[g_cur].ctx, &g_main);
  threadIdx = g_f[g_cur].tid;
}
static void fiber_entry() { g_body(); g_f[g_cur].done = true; swapcontext(&g_f[g_cur].ctx, &g_main); }
static void launch(dim3 grid, dim3 block, std::function<void()> body) {
  gridDim = grid; blockDim = block; g_body = body;
  int n = block.x * block.y * block.z;
  for (unsigned bz = 0; bz < grid.z; bz++) for (unsigned by = 0; by < grid.y; by++) for (unsigned bx = 0; bx < grid.x; bx++) {
    blockIdx = {bx, by, bz};
    g_f.assign(n, Fiber());
    for (int t = 0; t < n; t++) {
      Fiber& f = g_f[t];
      f.tid = {(unsigned)(t % block.x), (unsigned)((t / block.x) % block.y), (unsigned)(t / (block.x * block.y))};
      f.stack.resize(1 << 17);
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack.data(); f.ctx.uc_stack.ss_size = f.stack.size(); f.ctx.uc_link = nullptr;
      makecontext(&f.ctx, fiber_entry, 0);
    }
    for (;;) {
      bool any = false;
      for (int t = 0; t < n; t++) {
        if (g_f[t].done || g_f[t].waiting) continue;
        any = true; g_cur = t; threadIdx = g_f[t].tid;
        swapcontext(&g_main, &g_f[t].ctx);
      }
      bool alive = false;
      for (auto& f : g_f) if (!f.done) alive = true;
      if (!alive) break;
      if (!any) for (auto& f : g_f) f.waiting = false;  // every live thread at the barrier: release
    }
  }
}
struct Arg {
  void* p = nullptr; long long i = 0; double f = 0;
  template <class T> operator T*() const { return (T*)p; }
  operator int() const { return (int)i; }
  operator unsigned() const { return (unsigned)i; }
  operator float() const { return (float)f; }
};

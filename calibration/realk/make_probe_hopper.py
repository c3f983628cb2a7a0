"""Write the Hopper probes (issue 29): src/probe_hopper.cu (generated), its PTX (nvcc -arch=sm_90a), their inputs in
data/, and manifest_hopper.json (the probes, the TMA-fed GEMMs of src/hopper_gemm.cu, and the sm_90 Triton matmuls of
manifest_triton.json, which src/triton_kernels.py writes). Run from calibration/realk:

    python make_probe_hopper.py [--nvcc PATH]

wgmma probes: one CTA of one warpgroup (128 threads) copies a 48 KiB image of random small values (exact products and
sums in every accumulator type) into shared memory, runs ONE wgmma.mma_async whose two matrix descriptors are kernel
arguments (their start addresses relative to the dynamic shared memory, which the kernel adds), and writes the
accumulator registers (and nothing else) to out[thread][register]. A kernel per shape, types, transposes and operand
source; a launch per descriptor layout (swizzle mode, leading and stride byte offsets, start offset, base offset).

TMA probes: one thread loads one box with cp.async.bulk.tensor (1 to 5 dimensions, every swizzle mode, boxes partly
outside the tensor) under an mbarrier, and the CTA copies the first READBACK bytes of shared memory out (0: none, so the
copy's own counters stand alone); stores fill shared memory from global memory, then one thread stores one box; bulk
copies (cp.async.bulk, no tensor map) both ways; one probe dumps the mbarrier's 64-bit word after each step.
"""
from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(29)
IMAGE = 48 * 1024

# ----------------------------------------------------------------------------------------------- wgmma kernels

#: types: (PTX A/B type, bytes per element, K of one wgmma, image dtype name)
TYPES = {"f16": ("f16", 2, 16), "bf16": ("bf16", 2, 16), "tf32": ("tf32", 4, 8), "e4m3": ("e4m3", 1, 32),
         "e5m2": ("e5m2", 1, 32), "s8": ("s8", 1, 32)}


def wgmma_kernel(name: str, ab: str, n: int, acc: str, trans_a: int = 0, trans_b: int = 0, a_regs: bool = False,
                 sparse: bool = False) -> str:
    """One wgmma probe kernel (CUDA source)."""
    ptype, _, k = TYPES[ab]
    if sparse:
        k *= 2
    nd = n // 2 if acc in ("f32", "s32") else n // 4
    cons = "f" if acc == "f32" else "r"
    ctype = "float" if acc == "f32" else "unsigned"
    regs = ", ".join(f"%{i}" for i in range(nd))
    ops = [f'"+{cons}"(d[{i}])' for i in range(nd)]
    nin = nd
    if a_regs:
        a_op = "{" + ", ".join(f"%{nin + i}" for i in range(4)) + "}"
        ins = [f'"r"(ar[{i}])' for i in range(4)]
    else:
        a_op = f"%{nin}"
        ins = ['"l"(da)']
    b_op = f"%{nin + len(ins)}"
    ins.append('"l"(db)')
    tail = []
    if sparse:
        tail.append(f"%{nin + len(ins)}, 0")
        ins.append('"r"(meta)')
    tail.append("1")  # scale-d: accumulate into d (zeroed)
    if ab != "s8":
        tail += ["1", "1"]  # imm-scale-a, imm-scale-b
    if ab in ("f16", "bf16"):
        tail += ([] if a_regs else [str(trans_a)]) + [str(trans_b)]
    shape = f"m64n{n}k{k}"
    types = f"{acc}.{ptype}.{ptype}"
    op = f"wgmma.mma_async{'.sp' if sparse else ''}.sync.aligned.{shape}.{types}"
    asm = f'"{op} {{{regs}}}, {a_op}, {b_op}, {", ".join(tail)};"'
    return f"""
extern "C" __global__ void __launch_bounds__(128) {name}(WG_PARAMS) {{
  WG_SETUP;
  {ctype} d[{nd}];
  for (int i = 0; i < {nd}; i++) d[i] = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile({asm}
               : {", ".join(ops)}
               : {", ".join(ins)});
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < {nd}; i++) out[threadIdx.x * {nd} + i] = *reinterpret_cast<unsigned *>(&d[i]);
}}
"""


WG_HEAD = r"""
#define WG_PARAMS const uint4 *__restrict__ img, int n16, unsigned long long da, unsigned long long db, \
                  const unsigned *__restrict__ aregs, unsigned meta, unsigned *__restrict__ out
// The image into shared memory, then the descriptors' start addresses made absolute (the 14-bit field holds
// address / 16; the image stays below 16 KiB * 16 = 256 KiB) and A's register fragment read.
#define WG_SETUP                                                                                          \
  extern __shared__ __align__(1024) uint4 sm[];                                                          \
  for (int i = threadIdx.x; i < n16; i += blockDim.x) sm[i] = img[i];                                    \
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                                          \
  __syncthreads();                                                                                      \
  const unsigned long long base = smem_addr(sm) >> 4;                                                   \
  da += base;                                                                                           \
  db += base;                                                                                           \
  unsigned ar[4];                                                                                       \
  for (int i = 0; i < 4; i++) ar[i] = aregs ? aregs[threadIdx.x * 4 + i] : 0;                          \
  (void)ar; (void)meta; (void)da
"""

WG_KERNELS = {
    # name: (ab, n, acc, trans_a, trans_b, a_regs, sparse)
    "wg_f16_n64": ("f16", 64, "f32", 0, 0, False, False),
    "wg_f16_n64_ta": ("f16", 64, "f32", 1, 0, False, False),
    "wg_f16_n64_tb": ("f16", 64, "f32", 0, 1, False, False),
    "wg_f16_n64_tab": ("f16", 64, "f32", 1, 1, False, False),
    "wg_f16_n8": ("f16", 8, "f32", 0, 0, False, False),
    "wg_f16_n24": ("f16", 24, "f32", 0, 0, False, False),
    "wg_f16_n128": ("f16", 128, "f32", 0, 0, False, False),
    "wg_f16_n256": ("f16", 256, "f32", 0, 0, False, False),
    "wg_f16_n64_f16acc": ("f16", 64, "f16", 0, 0, False, False),
    "wg_bf16_n128_tb": ("bf16", 128, "f32", 0, 1, False, False),
    "wg_tf32_n64": ("tf32", 64, "f32", 0, 0, False, False),
    "wg_e4m3_n64": ("e4m3", 64, "f32", 0, 0, False, False),
    "wg_e5m2_n128_f16acc": ("e5m2", 128, "f16", 0, 0, False, False),
    "wg_s8_n64": ("s8", 64, "s32", 0, 0, False, False),
    "wg_rs_f16_n64": ("f16", 64, "f32", 0, 0, True, False),
    "wg_rs_f16_n128_tb": ("f16", 128, "f32", 0, 1, True, False),
    "wg_rs_e4m3_n64": ("e4m3", 64, "f32", 0, 0, True, False),
    "wg_sp_f16_n64": ("f16", 64, "f32", 0, 0, False, True),
}

# ------------------------------------------------------------------------------------------------- TMA kernels

TMA_SRC = r"""
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned phase) {
  asm volatile("{\n .reg .pred p;\nWAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}"
               ::"r"(bar), "r"(phase) : "memory");
}
// The first n16 16-byte units of shared memory to out.
__device__ __forceinline__ void readback(const uint4 *sm, uint4 *out, int n16) {
  for (int i = threadIdx.x; i < n16; i += blockDim.x) out[i] = sm[i];
}

#define TMA_LOAD(RANK, COORDS, ...)                                                                               \
  extern "C" __global__ void tma_load_##RANK##d(const __grid_constant__ CUtensorMap map, int c0, int c1, int c2,   \
                                                int c3, int c4, unsigned bytes, uint4 *out, int n16) {           \
    extern __shared__ __align__(1024) uint4 sm[];                                                                \
    __shared__ __align__(8) unsigned long long bar;                                                               \
    const unsigned b = smem_addr(&bar);                                                                          \
    if (threadIdx.x == 0) {                                                                                      \
      mbar_init(b, 1);                                                                                           \
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");                                       \
    }                                                                                                            \
    __syncthreads();                                                                                             \
    if (threadIdx.x == 0) {                                                                                      \
      mbar_expect_tx(b, bytes);                                                                                  \
      asm volatile("cp.async.bulk.tensor." #RANK "d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, " \
                   COORDS "], [%2];" ::"r"(smem_addr(sm)), "l"(&map), "r"(b), __VA_ARGS__ : "memory");            \
    }                                                                                                            \
    mbar_wait(b, 0);                                                                                             \
    readback(sm, out, n16);                                                                                      \
  }
TMA_LOAD(1, "{%3}", "r"(c0))
TMA_LOAD(2, "{%3, %4}", "r"(c0), "r"(c1))
TMA_LOAD(3, "{%3, %4, %5}", "r"(c0), "r"(c1), "r"(c2))
TMA_LOAD(5, "{%3, %4, %5, %6, %7}", "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4))

#define TMA_STORE(RANK, COORDS, ...)                                                                              \
  extern "C" __global__ void tma_store_##RANK##d(const __grid_constant__ CUtensorMap map, int c0, int c1, int c2,  \
                                                 const uint4 *img, int n16) {                                    \
    extern __shared__ __align__(1024) uint4 sm[];                                                                \
    for (int i = threadIdx.x; i < n16; i += blockDim.x) sm[i] = img[i];                                          \
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                                                \
    __syncthreads();                                                                                             \
    if (threadIdx.x == 0) {                                                                                      \
      asm volatile("cp.async.bulk.tensor." #RANK "d.global.shared::cta.bulk_group [%0, " COORDS "], [%1];"       \
                   ::"l"(&map), "r"(smem_addr(sm)), __VA_ARGS__ : "memory");                                     \
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");                                                  \
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");                                                  \
    }                                                                                                            \
  }
TMA_STORE(1, "{%2}", "r"(c0))
TMA_STORE(2, "{%2, %3}", "r"(c0), "r"(c1))
TMA_STORE(3, "{%2, %3, %4}", "r"(c0), "r"(c1), "r"(c2))

// cp.async.bulk (no tensor map): `bytes` from src + src_off to shared memory at dst_off, then read back.
extern "C" __global__ void bulk_load(const unsigned char *src, unsigned src_off, unsigned dst_off, unsigned bytes,
                                     uint4 *out, int n16) {
  extern __shared__ __align__(1024) uint4 sm[];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar);
  if (threadIdx.x == 0) {
    mbar_init(b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect_tx(b, bytes);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem_addr(sm) + dst_off), "l"(src + src_off), "r"(bytes), "r"(b) : "memory");
  }
  mbar_wait(b, 0);
  readback(sm, out, n16);
}

// cp.async.bulk from shared memory at src_off to dst + dst_off, after filling shared memory from img.
extern "C" __global__ void bulk_store(unsigned char *dst, unsigned dst_off, unsigned src_off, unsigned bytes,
                                      const uint4 *img, int n16) {
  extern __shared__ __align__(1024) uint4 sm[];
  for (int i = threadIdx.x; i < n16; i += blockDim.x) sm[i] = img[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 ::"l"(dst + dst_off), "r"(smem_addr(sm) + src_off), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// The mbarrier's 64-bit word after init(count), arrive, expect_tx(tx), a bulk copy of `bytes` completing, ...
extern "C" __global__ void mbar_states(const unsigned char *src, unsigned count, unsigned tx, unsigned bytes,
                                       unsigned long long *out) {
  extern __shared__ __align__(1024) uint4 sm[];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar);
  if (threadIdx.x != 0) return;
  volatile unsigned long long *v = &bar;
  int k = 0;
  mbar_init(b, count);
  out[k++] = *v;
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
  out[k++] = *v;
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(tx) : "memory");
  out[k++] = *v;
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(smem_addr(sm)), "l"(src), "r"(bytes), "r"(b) : "memory");
  for (int spin = 0; spin < 100000 && *v == out[k - 1]; spin++) {}
  out[k++] = *v;
  for (unsigned i = 1; i < count; i++) {
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
    out[k++] = state;
    out[k++] = *v;
  }
  unsigned ok;
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
               : "=r"(ok) : "r"(b) : "memory");
  out[k++] = ok;
  out[k++] = *v;
}
"""


def write_source() -> str:
    parts = ["// Generated by make_probe_hopper.py: the Hopper probes (wgmma, TMA, bulk copies, mbarrier). Do not edit.",
             "#include <cuda.h>", "#include <cstdint>", "",
             "__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }",
             WG_HEAD]
    for name, spec in WG_KERNELS.items():
        parts.append(wgmma_kernel(name, *spec))
    parts.append(TMA_SRC)
    return "\n".join(parts)


# ------------------------------------------------------------------------------------------------- the inputs

def save(name: str, data: np.ndarray) -> str:
    path = f"data/hopper_{name}.npy"
    np.save(HERE / path, data)
    return f"npy:{path}"


def image(ab: str) -> str:
    """48 KiB of random values whose products and sums over any wgmma are exact in every accumulator."""
    n = IMAGE // TYPES[ab][1]
    halves = RNG.integers(-4, 5, n) / 2  # -2 .. 2 in steps of 0.5
    if ab == "f16":
        data = halves.astype(np.float16)
    elif ab == "bf16":
        data = (halves.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    elif ab == "tf32":
        data = halves.astype(np.float32)
    elif ab == "s8":
        data = RNG.integers(-8, 9, n).astype(np.int8)
    else:  # fp8: the e4m3 / e5m2 codes of -2 .. 2 in steps of 0.5 (all exact in both)
        codes = {"e4m3": {0.5: 0x30, 1.0: 0x38, 1.5: 0x3C, 2.0: 0x40}, "e5m2": {0.5: 0x38, 1.0: 0x3C, 1.5: 0x3E, 2.0: 0x40}}[ab]
        data = np.array([0 if v == 0 else codes[abs(v)] | (0x80 if v < 0 else 0) for v in halves], dtype=np.uint8)
    return save(f"img_{ab}", data)


def desc(offset: int, lbo: int, sbo: int, mode: int, base_offset: int = 0) -> str:
    """A matrix descriptor, its start address relative to the dynamic shared memory (the kernel adds its base)."""
    assert offset % 16 == 0 and lbo % 16 == 0 and sbo % 16 == 0
    v = (offset >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (base_offset << 49) | (mode << 62)
    return hex(v)


#: swizzle mode field: none 0, 128B 1, 64B 2, 32B 3; the width of a row of the atom in bytes
MODES = {"none": (0, 16), "128B": (1, 128), "64B": (2, 64), "32B": (3, 32)}


def k_major(mode: str, offset: int = 0, pad: int = 0, base_offset: int = 0) -> str:
    """A K-major operand: rows of the atom's width, 8-row groups (SBO) packed (+ pad bytes); interleaved (no
    swizzle): 8x16-byte core matrices, the two K halves LBO = 128 B apart and 8-row groups SBO = 256 B apart."""
    field, width = MODES[mode]
    if mode == "none":
        return desc(offset, 128 + pad, 256 + 2 * pad, 0, base_offset)
    return desc(offset, 16, 8 * width + pad, field, base_offset)


def mn_major(mode: str, n_extent: int, elem: int, offset: int = 0) -> str:
    """An MN-major operand of n_extent elements along M/N: swizzled: the atom's width of M/N contiguous, 8 K rows of
    it, atoms along M/N LBO apart and 8-row K groups SBO apart; interleaved: 8x16-byte core matrices along K
    (128 B apart... LBO for the next 8 K) and along M/N (SBO)."""
    field, width = MODES[mode]
    row = n_extent * elem  # bytes of M/N
    if mode == "none":
        return desc(offset, 128 * (row // 16), 128, 0)  # core matrices along M/N 128 B apart, K groups after them all
    return desc(offset, 8 * width, 8 * width * max(row // width, 1), field)


#: TMA swizzle modes: the span in bytes (0: none)
SWIZZLES = {"none": 0, "32B": 32, "64B": 64, "128B": 128}
A_OFF, B_OFF = 0, 16384  # A in the first 16 KiB of the image, B after it


def wgmma_entries() -> list[dict]:
    out = []

    def add(kernel: str, tag: str, da: str, db: str, what: str, aregs: str = "zeros:0", meta: str = "0"):
        ab, n, acc, *_ = WG_KERNELS[kernel]
        nd = n // 2 if acc in ("f32", "s32") else n // 4
        out.append({"name": f"hop_{kernel}_{tag}", "origin": f"written here: wgmma probe ({what})", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": kernel, "grid": [1, 1, 1], "block": [128, 1, 1], "smem": IMAGE,
                    "args": [IMAGES[ab], str(IMAGE // 16), da, db, aregs, meta, f"zeros:{128 * nd * 4}"],
                    "problem": f"one wgmma {kernel[3:]}: {what}"})

    IMAGES.update({ab: image(ab) for ab in TYPES})
    for mode in ("none", "32B", "64B", "128B"):
        add("wg_f16_n64", f"k_{mode}", k_major(mode, A_OFF), k_major(mode, B_OFF), f"A and B K-major, {mode} swizzle, packed")
    add("wg_f16_n64", "k_none_pad", k_major("none", A_OFF, pad=16), k_major("none", B_OFF, pad=48), "K-major, no swizzle, LBO/SBO padded")
    add("wg_f16_n64", "k_128B_sbo_pad", k_major("128B", A_OFF, pad=128), k_major("128B", B_OFF, pad=1024), "K-major 128B, SBO padded")
    for kk in (1, 2, 3):
        add("wg_f16_n64", f"k_128B_kstep{kk}", k_major("128B", A_OFF + 32 * kk), k_major("128B", B_OFF + 32 * kk),
            f"K-major 128B, start {32 * kk} B into the atom (k-step {kk})")
    add("wg_f16_n64", "k_64B_kstep1", k_major("64B", A_OFF + 32), k_major("64B", B_OFF + 32), "K-major 64B, start 32 B into the atom")
    add("wg_f16_n64", "k_128B_row1", k_major("128B", A_OFF + 128), k_major("128B", B_OFF + 384), "K-major 128B, start 1 and 3 rows into the atom")
    add("wg_f16_n64", "k_128B_row1_base", k_major("128B", A_OFF + 128, base_offset=1), k_major("128B", B_OFF + 384, base_offset=3),
        "K-major 128B, start 1 and 3 rows into the atom, base offset 1 and 3")
    add("wg_f16_n64", "k_mixed", k_major("none", A_OFF), k_major("128B", B_OFF), "A K-major no swizzle, B K-major 128B")
    add("wg_f16_n64", "k_same", k_major("128B", A_OFF), k_major("128B", A_OFF), "A and B the same 128B tile")
    for mode in ("none", "64B", "128B"):
        add("wg_f16_n64_ta", f"mn_{mode}", mn_major(mode, 64, 2, A_OFF), k_major(mode, B_OFF), f"A M-major, B K-major, {mode}")
        add("wg_f16_n64_tb", f"mn_{mode}", k_major(mode, A_OFF), mn_major(mode, 64, 2, B_OFF), f"A K-major, B N-major, {mode}")
        add("wg_f16_n64_tab", f"mn_{mode}", mn_major(mode, 64, 2, A_OFF), mn_major(mode, 64, 2, B_OFF), f"A M-major, B N-major, {mode}")
    add("wg_f16_n64_tb", "mn_32B", k_major("32B", A_OFF), mn_major("32B", 64, 2, B_OFF), "A K-major, B N-major, 32B")
    for kernel, n in (("wg_f16_n8", 8), ("wg_f16_n24", 24), ("wg_f16_n128", 128), ("wg_f16_n256", 256)):
        for mode in ("none", "128B"):
            add(kernel, f"k_{mode}", k_major(mode, A_OFF), k_major(mode, B_OFF), f"N={n}, K-major {mode}")
    add("wg_f16_n64_f16acc", "k_128B", k_major("128B", A_OFF), k_major("128B", B_OFF), "f16 accumulators, K-major 128B")
    add("wg_bf16_n128_tb", "mn_128B", k_major("128B", A_OFF), mn_major("128B", 128, 2, B_OFF), "bf16, B N-major 128B")
    add("wg_bf16_n128_tb", "mn_none", k_major("none", A_OFF), mn_major("none", 128, 2, B_OFF), "bf16, B N-major no swizzle")
    for mode in ("32B", "128B"):
        add("wg_tf32_n64", f"k_{mode}", k_major(mode, A_OFF), k_major(mode, B_OFF), f"tf32 k8, K-major {mode}")
        add("wg_e4m3_n64", f"k_{mode}", k_major(mode, A_OFF), k_major(mode, B_OFF), f"e4m3 k32, K-major {mode}")
    add("wg_e5m2_n128_f16acc", "k_64B", k_major("64B", A_OFF), k_major("64B", B_OFF), "e5m2 k32, f16 accumulators, K-major 64B")
    add("wg_s8_n64", "k_128B", k_major("128B", A_OFF), k_major("128B", B_OFF), "s8 k32, s32 accumulators, K-major 128B")
    aregs = {ab: save(f"aregs_{ab}", RNG.integers(0, 2**32, 512, dtype=np.uint64).astype(np.uint32) & MASKS[ab]) for ab in ("f16", "e4m3")}
    for mode in ("none", "128B"):
        add("wg_rs_f16_n64", f"k_{mode}", "0", k_major(mode, B_OFF), f"A from registers, B K-major {mode}", aregs=aregs["f16"])
    add("wg_rs_f16_n128_tb", "mn_128B", "0", mn_major("128B", 128, 2, B_OFF), "A from registers, B N-major 128B", aregs=aregs["f16"])
    add("wg_rs_e4m3_n64", "k_128B", "0", k_major("128B", B_OFF), "e4m3 A from registers, B K-major 128B", aregs=aregs["e4m3"])
    for mode in ("none", "128B"):
        add("wg_sp_f16_n64", f"k_{mode}", k_major(mode, A_OFF), k_major(mode, B_OFF), f"sparse k32, K-major {mode}", meta="0x44444444")
    return out


IMAGES: dict[str, str] = {}
#: register-A fragments: random bits made small values (f16: two halves of -2..2 in steps of 0.5 (sign, exponent 14..16,
#: one mantissa bit); e4m3: four bytes of them)
MASKS = {"f16": np.uint32(0xC600C600), "e4m3": np.uint32(0xC4C4C4C4)}


# ------------------------------------------------------------------------------------------------- TMA entries

def tmap(dtype: str, dims: list[int], box: list[int], swizzle: str, buffer: str, strides: list[int] | None = None) -> str:
    d = "x".join(map(str, dims)) + ("@" + ",".join(map(str, strides)) if strides else "")
    return f"tmap:{dtype}:{d}:{'x'.join(map(str, box))}:{swizzle}:{buffer}"


def tma_entries() -> list[dict]:
    out = []
    elem = {"u8": 1, "f16": 2, "f32": 4, "f64": 8}
    tensor = save("tensor", RNG.integers(0, 2**32, 1 << 18, dtype=np.uint64).astype(np.uint32))  # 1 MiB of random words
    simg = save("simg", RNG.integers(0, 2**32, IMAGE // 4, dtype=np.uint64).astype(np.uint32))

    def load(tag: str, dtype: str, dims: list[int], box: list[int], swizzle: str, coords: list[int], readback: bool = True,
             strides: list[int] | None = None):
        rank = len(dims)
        kernel = f"tma_load_{5 if rank == 4 else rank}d"
        if rank == 4:  # the 5D kernel with a unit fifth dimension
            dims, box, coords = dims + [1], box + [1], coords + [0]
            strides = strides and strides + [strides[-1] * 2]
        nbytes = int(np.prod(box)) * elem[dtype]
        span = {"none": 16, "32B": 32, "64B": 64, "128B": 128}[swizzle]
        footprint = nbytes // (box[0] * elem[dtype]) * max(box[0] * elem[dtype], span)  # rows padded to the swizzle span
        cs = (coords + [0] * 5)[:5]
        out.append({"name": f"hop_tma_ld_{tag}", "origin": "written here: TMA load probe", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": kernel, "grid": [1, 1, 1], "block": [128, 1, 1], "smem": footprint + 1024,
                    "args": [tmap(dtype, dims, box, swizzle, tensor, strides), *map(str, cs), str(nbytes),
                             f"zeros:{footprint if readback else 0}", str(footprint // 16 if readback else 0)],
                    "problem": f"one {rank}D TMA load of a {'x'.join(map(str, box))} {dtype} box, {swizzle} swizzle, at {coords}"
                               + ("" if readback else ", no read-back")})

    def store(tag: str, dtype: str, dims: list[int], box: list[int], swizzle: str, coords: list[int]):
        rank = len(dims)
        nbytes = int(np.prod(box)) * elem[dtype]
        out.append({"name": f"hop_tma_st_{tag}", "origin": "written here: TMA store probe", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": f"tma_store_{rank}d", "grid": [1, 1, 1], "block": [128, 1, 1],
                    "smem": max(nbytes, 1024),
                    "args": [tmap(dtype, dims, box, swizzle, f"zeros:{int(np.prod(dims)) * elem[dtype]}"), *map(str, (coords + [0] * 3)[:3]),
                             simg, str(nbytes // 16)],
                    "problem": f"one {rank}D TMA store of a {'x'.join(map(str, box))} {dtype} box, {swizzle} swizzle, at {coords}"})

    for sw, inner in (("none", 64), ("32B", 16), ("64B", 32), ("128B", 64)):
        load(f"2d_f16_{sw}", "f16", [256, 64], [inner, 32], sw, [64, 8])
        load(f"2d_f16_{sw}_bare", "f16", [256, 64], [inner, 32], sw, [64, 8], readback=False)
        store(f"2d_f16_{sw}", "f16", [256, 64], [inner, 32], sw, [64, 8])
    load("2d_f16_128B_half", "f16", [256, 64], [32, 16], "128B", [0, 0])
    load("2d_f16_64B_quarter", "f16", [256, 64], [8, 16], "64B", [8, 0])
    load("2d_f16_none_oob", "f16", [104, 40], [64, 32], "none", [64, 24])
    load("2d_f16_128B_oob", "f16", [104, 40], [64, 32], "128B", [64, 24])
    load("2d_f16_128B_oob_neg", "f16", [104, 40], [64, 32], "128B", [-16, -8])
    load("2d_f16_128B_box256", "f16", [256, 256], [64, 256], "128B", [0, 0])
    load("2d_f32_128B_pitch", "f32", [48, 64], [32, 16], "128B", [16, 4], strides=[256])
    load("1d_u8", "u8", [4096], [256], "none", [1024])
    load("1d_f64", "f64", [512], [16], "none", [32])
    load("3d_f16_64B", "f16", [64, 16, 8], [32, 8, 4], "64B", [16, 4, 2])
    load("4d_f32_32B", "f32", [16, 8, 4, 4], [8, 4, 2, 2], "32B", [4, 2, 1, 1])
    load("5d_f16_none", "f16", [32, 4, 4, 4, 4], [16, 2, 2, 2, 2], "none", [8, 1, 1, 1, 1])
    store("2d_f16_none_oob", "f16", [104, 40], [64, 32], "none", [64, 24])
    store("2d_f16_128B_oob", "f16", [104, 40], [64, 32], "128B", [64, 24])
    store("1d_f32", "f32", [2048], [128], "none", [256])
    store("3d_u8_32B", "u8", [64, 16, 8], [32, 8, 2], "32B", [16, 4, 2])

    src = save("bulk_src", RNG.integers(0, 256, 65536, dtype=np.uint8))
    for tag, so, do, n in (("16", 0, 0, 16), ("256", 16, 64, 256), ("4k", 4096, 1024, 4096), ("12k_odd", 48, 1040, 12304)):
        out.append({"name": f"hop_bulk_ld_{tag}", "origin": "written here: bulk copy probe", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": "bulk_load", "grid": [1, 1, 1], "block": [128, 1, 1], "smem": do + n + 1024,
                    "args": [src, str(so), str(do), str(n), f"zeros:{do + n}", str((do + n) // 16)],
                    "problem": f"one cp.async.bulk of {n} B from global offset {so} to shared offset {do}, read back"})
        out.append({"name": f"hop_bulk_st_{tag}", "origin": "written here: bulk copy probe", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": "bulk_store", "grid": [1, 1, 1], "block": [128, 1, 1], "smem": so + n + 1024,
                    "args": [f"zeros:{do + n}", str(do), str(so), str(n), simg, str(min(so + n + 1023, IMAGE) // 16)],
                    "problem": f"one cp.async.bulk of {n} B from shared offset {so} to global offset {do}"})
    for count, tx, n in ((1, 0, 16), (3, 256, 256), (2, 4096, 1024)):
        out.append({"name": f"hop_mbar_{count}_{tx}_{n}", "origin": "written here: mbarrier state probe", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": "mbar_states", "grid": [1, 1, 1], "block": [32, 1, 1], "smem": 4096,
                    "args": [src, str(count), str(tx), str(n), "zeros:256"],
                    "problem": f"the mbarrier's word after init({count}), arrivals, expect_tx({tx}), a {n}-byte bulk copy"})
    return out


# ------------------------------------------------------------------------------------------------- GEMMs

def gemm_entries() -> list[dict]:
    m, n, k = 128, 256, 256
    a = save("gemm_a", (RNG.integers(-4, 5, m * k) / 4).astype(np.float16))
    b = save("gemm_b", (RNG.integers(-4, 5, n * k) / 4).astype(np.float16))
    ta = tmap("f16", [k, m], [64, 64], "128B", a)
    out = []
    for kernel, bn in (("hopper_gemm_n64", 64), ("hopper_gemm_n128", 128), ("hopper_gemm_n128_stg", 128)):
        tb = tmap("f16", [k, n], [64, bn], "128B", b)
        stg = kernel.endswith("stg")
        args = [ta, tb] + ([f"zeros:{m * n * 4}", str(n)] if stg else [tmap("f32", [n, m], [bn, 64], "none", f"zeros:{m * n * 4}")]) + [str(k)]
        smem = 2 * (64 + bn) * 64 * 2 + (0 if stg else 64 * bn * 4)
        out.append({"name": kernel, "origin": "written here: TMA-fed wgmma GEMM (src/hopper_gemm.cu)", "source": "src/hopper_gemm.cu",
                    "ptx": "ptx/hopper_gemm.ptx", "kernel": kernel, "grid": [n // bn, m // 64, 1], "block": [128, 1, 1], "smem": smem,
                    "args": args,
                    "problem": f"C({m}x{n}) f32 = A({m}x{k}) B({n}x{k})^T f16, {64}x{bn} CTA tiles, TMA 128B-swizzled loads in 2 stages, "
                               + ("fragments stored to global" if stg else "C tile through shared memory and a TMA store")})
    return out


# ------------------------------------------------------------------------------------------------- the held-out set

def holdout_entries(seed: int = 2929) -> list[dict]:
    """Probes drawn at random after the model was fixed (``--holdout``): wgmma descriptors with random modes, offsets,
    strides and base offsets (each operand inside the image, by the simulator's own address decoder), TMA boxes of
    random rank, type, size, position (partly outside too) and swizzle, bulk copies of random size and offsets."""
    from simsmem.kernel.isa.gmma import addresses

    rng = np.random.default_rng(seed)
    out = []
    kernels = ["wg_f16_n64", "wg_f16_n64_ta", "wg_f16_n64_tb", "wg_f16_n64_tab", "wg_f16_n24", "wg_f16_n128", "wg_bf16_n128_tb",
               "wg_tf32_n64", "wg_e4m3_n64", "wg_rs_f16_n64", "wg_f16_n64_f16acc", "wg_s8_n64"]

    def operand(rows: int, size: int, mn: bool) -> str:
        while True:
            mode = str(rng.choice(list(MODES)))
            field, width = MODES[mode]
            base = int(rng.integers(0, 8)) if mode != "none" and rng.random() < 0.3 else 0
            if mn:
                lbo, sbo = 16 * int(rng.integers(1, 129)), 16 * int(rng.integers(1, 129))
                start = 16 * int(rng.integers(0, 1024))
            elif mode == "none":
                lbo, sbo, start = 16 * int(rng.integers(8, 65)), 16 * int(rng.integers(8, 129)), 16 * int(rng.integers(0, 1024))
            else:
                lbo, sbo = 16, 8 * width + 16 * int(rng.integers(0, 33))
                start = 32 * int(rng.integers(0, width // 32)) + width * int(rng.integers(0, 64))
            d = int(desc(start, lbo, sbo, field, base), 16)
            a = addresses(np.array([d], dtype=np.uint64), rows, 32 // size, size, mn)
            if a.max() + size <= IMAGE:
                return hex(d)

    for k in range(24):
        kernel = kernels[k % len(kernels)]
        ab, n, acc, ta, tb, a_regs, _ = WG_KERNELS[kernel]
        size = TYPES[ab][1]
        nd = n // 2 if acc in ("f32", "s32") else n // 4
        da = "0" if a_regs else operand(64, size, bool(ta))
        db = operand(n, size, bool(tb))
        aregs = f"npy:data/hopper_aregs_{ab}.npy" if a_regs else "zeros:0"
        out.append({"name": f"hold_{kernel}_{k}", "origin": "written here: wgmma probe, held out (random descriptors)",
                    "source": "src/probe_hopper.cu", "ptx": "ptx/probe_hopper.ptx", "kernel": kernel, "grid": [1, 1, 1], "block": [128, 1, 1],
                    "smem": IMAGE, "args": [f"npy:data/hopper_img_{ab}.npy", str(IMAGE // 16), da, db, aregs, "0", f"zeros:{128 * nd * 4}"],
                    "problem": f"one wgmma {kernel[3:]}, descriptors A {da} B {db} (relative to the dynamic shared memory)"})
    tensor = "npy:data/hopper_tensor.npy"
    elem = {"u8": 1, "f16": 2, "f32": 4, "f64": 8}
    for k in range(14):
        dtype = str(rng.choice(list(elem)))
        e = elem[dtype]
        rank = int(rng.choice([1, 2, 2, 2, 3, 4, 5]))
        swizzle = "none" if rank == 1 else str(rng.choice(list(SWIZZLES)))
        span = SWIZZLES[swizzle] or 256
        row_units = int(rng.integers(1, span // 16 + 1))  # the box's row: 16-byte units, at most the swizzle span
        box = [16 * row_units // e] + [int(rng.integers(1, 9)) for _ in range(rank - 1)]
        dims = [box[0] * int(rng.integers(1, 4)) + int(rng.integers(0, 3)) * 16 // e] + [b + int(rng.integers(0, 6)) for b in box[1:]]
        coords = [int(rng.integers(-b // 2, d - b // 2 + 1)) for b, d in zip(box, dims)]
        store = k % 3 == 2 and rank <= 3
        nbytes = int(np.prod(box)) * e
        rows = nbytes // (box[0] * e)
        footprint = rows * max(box[0] * e, SWIZZLES[swizzle])
        if footprint > 96 * 1024 or int(np.prod(dims)) * e > 1 << 20:  # shared memory, and the 1 MiB tensor
            box[1:] = [1] * (rank - 1)
            dims[1:] = [2] * (rank - 1)
            coords[1:] = [0] * (rank - 1)
            nbytes = box[0] * e
            footprint = max(nbytes, SWIZZLES[swizzle])
        if store:
            out.append({"name": f"hold_tma_st_{k}", "origin": "written here: TMA store probe, held out (random box)", "source": "src/probe_hopper.cu",
                        "ptx": "ptx/probe_hopper.ptx", "kernel": f"tma_store_{rank}d", "grid": [1, 1, 1], "block": [128, 1, 1], "smem": footprint + 1024,
                        "args": [tmap(dtype, dims, box, swizzle, f"zeros:{int(np.prod(dims)) * e}"), *map(str, (coords + [0] * 3)[:3]),
                                 "npy:data/hopper_simg.npy", str(footprint // 16)],
                        "problem": f"one {rank}D TMA store of a {'x'.join(map(str, box))} {dtype} box of a {'x'.join(map(str, dims))} tensor, {swizzle}, at {coords}"})
            continue
        kdims, kbox, kcoords = (dims + [1], box + [1], coords + [0]) if rank == 4 else (dims, box, coords)
        out.append({"name": f"hold_tma_ld_{k}", "origin": "written here: TMA load probe, held out (random box)", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": f"tma_load_{5 if rank == 4 else rank}d", "grid": [1, 1, 1], "block": [128, 1, 1],
                    "smem": footprint + 1024,
                    "args": [tmap(dtype, kdims, kbox, swizzle, tensor), *map(str, (kcoords + [0] * 5)[:5]), str(nbytes), f"zeros:{footprint}", str(footprint // 16)],
                    "problem": f"one {rank}D TMA load of a {'x'.join(map(str, box))} {dtype} box of a {'x'.join(map(str, dims))} tensor, {swizzle}, at {coords}"})
    for k in range(6):
        n, so, do = 16 * int(rng.integers(1, 512)), 16 * int(rng.integers(0, 256)), 16 * int(rng.integers(0, 256))
        kind = "load" if k % 2 == 0 else "store"
        if kind == "load":
            args = ["npy:data/hopper_bulk_src.npy", str(so), str(do), str(n), f"zeros:{do + n}", str((do + n) // 16)]
            smem = do + n + 1024
        else:
            args = [f"zeros:{do + n}", str(do), str(so), str(n), "npy:data/hopper_simg.npy", str(min(so + n + 1023, IMAGE) // 16)]
            smem = so + n + 1024
        out.append({"name": f"hold_bulk_{kind}_{k}", "origin": "written here: bulk copy probe, held out", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": f"bulk_{kind}", "grid": [1, 1, 1], "block": [128, 1, 1], "smem": smem, "args": args,
                    "problem": f"one cp.async.bulk {kind} of {n} B (global offset {so if kind == 'load' else do}, shared {do if kind == 'load' else so})"})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--holdout", action="store_true", help="write manifest_hopper_holdout.json only (random probes, after the model)")
    a = ap.parse_args()
    if a.holdout:
        entries = holdout_entries()
        (HERE / "manifest_hopper_holdout.json").write_text(json.dumps(entries, indent=1) + "\n")
        print(len(entries), "held-out entries")
        return 0
    (HERE / "src" / "probe_hopper.cu").write_text(write_source())
    for stem in ("probe_hopper", "hopper_gemm"):
        subprocess.run([a.nvcc, "-arch=sm_90a", "-ptx", str(HERE / "src" / f"{stem}.cu"), "-o", str(HERE / "ptx" / f"{stem}.ptx")], check=True)
    triton = [e for e in json.loads((HERE / "manifest_triton.json").read_text()) if e["name"].endswith(("_sm90", "_sm90_w8"))]
    entries = wgmma_entries() + tma_entries() + gemm_entries() + triton
    (HERE / "manifest_hopper.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Make the fixed inputs (data/*.npy) of the new realk kernels. Deterministic: every file has its own seeded
generator, so re-running this script rewrites identical files (checked by `python3 make_data.py --check`).

The three files copied from ../shared/realk (f32_red, f32_t64, f32_softmax) are not made here.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20261127


def rng(name: str) -> np.random.Generator:
    h = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")
    return np.random.default_rng([SEED, h])


def u32_edge(r: np.random.Generator, n: int, frac: float = 0.25) -> np.ndarray:
    """Random uint32 with a fraction of edge cases."""
    v = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0, 1, 2, 3, 0xFFFFFFFF, 0xFFFFFFFE, 0x80000000, 0x7FFFFFFF, 0x80000001, 0x10000, 0xFFFF,
                      0x8000, 0xFF, 0x100, 31, 32, 33, 63, 64, 0x55555555, 0xAAAAAAAA, 0x00FF00FF],
                     dtype=np.uint32)
    pick = r.random(n) < frac
    v[pick] = r.choice(edges, pick.sum())
    small = r.random(n) < 0.15
    v[small] = r.integers(0, 100, small.sum()).astype(np.uint32)
    return v


def u64_edge(r: np.random.Generator, n: int, frac: float = 0.25) -> np.ndarray:
    v = r.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + r.integers(0, 2, n, dtype=np.uint64)
    edges = np.array([0, 1, 2, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFE, 0x8000000000000000, 0x7FFFFFFFFFFFFFFF,
                      0xFFFFFFFF, 0x100000000, 0x80000000, 0xFFFFFFFF80000000, 63, 64, 65, 127, 10**18],
                     dtype=np.uint64)
    pick = r.random(n) < frac
    v[pick] = r.choice(edges, pick.sum())
    small = r.random(n) < 0.15
    v[small] = r.integers(0, 1000, small.sum()).astype(np.uint64)
    mid = r.random(n) < 0.15
    v[mid] = r.integers(0, 2**32, mid.sum(), dtype=np.uint64)
    return v


F32_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.5, np.inf, -np.inf, np.nan, 1e-40, -1e-40,
                      1.1754944e-38, 3.4028235e38, -3.4028235e38, 1e38, 1e-38, 65504.0, 65520.0, 2.0**31,
                      -2.0**31, 2.0**32, 4294967040.0, 2.0**63, 1e20, -1e20, 0.49999997, 1e-7, 6e-8],
                     dtype=np.float32)


def f32_edge(r: np.random.Generator, n: int, scale: float, frac: float = 0.25) -> np.ndarray:
    v = (r.standard_normal(n) * scale).astype(np.float32)
    wide = r.random(n) < 0.2
    v[wide] = (r.standard_normal(wide.sum()) * 10.0 ** r.integers(-30, 30, wide.sum())).astype(np.float32)
    pick = r.random(n) < frac
    v[pick] = r.choice(F32_EDGES, pick.sum())
    return v


def half_words(r: np.random.Generator, n: int, bf16: bool = False) -> np.ndarray:
    """uint32 words of two 16-bit floats (f16 bits; the kernel also reads them as bf16)."""
    x = (r.standard_normal(2 * n) * 4).astype(np.float16)
    bits = x.view(np.uint16).copy()
    edges = np.array([0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7BFF, 0x0001, 0x03FF, 0x0400,
                      0x7F80, 0xFF80, 0x7FC0, 0x0080, 0x3F80], dtype=np.uint16)
    pick = r.random(2 * n) < 0.2
    bits[pick] = r.choice(edges, pick.sum())
    return bits.view(np.uint32)


def make() -> dict[str, np.ndarray]:
    d: dict[str, np.ndarray] = {}
    n = 8192
    d["f32_ga"] = rng("f32_ga").standard_normal(n).astype(np.float32)
    d["f32_gb"] = rng("f32_gb").standard_normal(n).astype(np.float32)
    d["f64_t64"] = rng("f64_t64").standard_normal(64 * 64)
    d["u8_t64"] = rng("u8_t64").integers(0, 256, 64 * 64, dtype=np.uint8)
    d["u16_t64"] = rng("u16_t64").integers(0, 65536, 64 * 64, dtype=np.uint16)
    # histograms: 8192 words = 32768 bytes each
    d["u32_hist_uniform"] = rng("u32_hist_uniform").integers(0, 2**32, 8192, dtype=np.uint64).astype(np.uint32)
    r = rng("u32_hist_skewed")
    z = np.minimum(r.zipf(1.6, 4 * 8192) - 1, 255)     # Zipf ranks: rank 0 about 45% of the bytes
    perm = r.permutation(256)                          # the popular ranks land on scattered byte values
    d["u32_hist_skewed"] = perm[z].astype(np.uint8).view(np.uint32)
    d["u32_keys"] = rng("u32_keys").integers(0, 2**20, 4096, dtype=np.uint64).astype(np.uint32)
    d["i32_scan"] = rng("i32_scan").integers(-100, 101, 2048).astype(np.int32)
    d["f16_ha"] = (rng("f16_ha").standard_normal(128 * 256) * 0.5).astype(np.float16)
    d["f16_hb"] = (rng("f16_hb").standard_normal(256 * 128) * 0.5).astype(np.float16)
    d["i32_flags"] = rng("i32_flags").integers(0, 4, 512).astype(np.int32)
    d["i32_sel"] = rng("i32_sel").integers(0, 8, 1024).astype(np.int32)
    # divergence probes: per-thread trip counts (some warps uniform, most mixed)
    r = rng("i32_trips")
    t = r.integers(0, 41, 1024).astype(np.int32)
    t[0:32] = 7            # warp 0: every lane 7 trips
    t[32:64] = 0           # warp 1: no trip at all
    t[64:96] = np.arange(32)  # warp 2: lane l makes l trips
    d["i32_trips"] = t
    d["f32_pos"] = rng("f32_pos").random(1024).astype(np.float32)
    d["f32_thr"] = (rng("f32_thr").random(1024) * 40).astype(np.float32)
    r = rng("f32_div")
    a = (r.standard_normal(1024) * 100).astype(np.float32)
    b = (r.standard_normal(1024) * 10).astype(np.float32)
    slow = r.random(1024) < 0.08          # about 8% of lanes need the slow path
    kinds = r.integers(0, 6, 1024)
    b[slow & (kinds == 0)] = np.float32(1e-39)          # denormal divisor
    a[slow & (kinds == 1)] = np.float32(3e38)           # huge dividend, small divisor: overflow
    b[slow & (kinds == 1)] = np.float32(1e-3)
    a[slow & (kinds == 2)] = np.float32(1e-39)          # denormal dividend
    b[slow & (kinds == 3)] = np.float32(0.0)
    b[slow & (kinds == 4)] = np.float32(np.inf)
    b[slow & (kinds == 5)] = np.float32(3e38)
    d["f32_diva"], d["f32_divb"] = a, b
    # ISA checks: 256 threads
    m = 256
    for k in "abc":
        d[f"u32_isa_{k}"] = u32_edge(rng(f"u32_isa_{k}"), m)
    r = rng("u32_isa_d")
    dv = u32_edge(r, m, frac=0.3)
    dv[:8] = [0, 1, 0xFFFFFFFF, 0x80000000, 2, 7, 0xFFFFFFFE, 3]
    d["u32_isa_d"] = dv
    d["u32_isa_a"][:8] = [7, 0x80000000, 0x80000000, 5, 0xFFFFFFF9, 100, 0x7FFFFFFF, 0]  # INT_MIN / -1 is lane 2
    for k in "abd":
        d[f"u64_isa_{k}"] = u64_edge(rng(f"u64_isa_{k}"), m)
    d["u64_isa_d"][:6] = [0, 1, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000, 3, 0xFFFFFFFF]
    d["u64_isa_a"][:6] = [5, 0x8000000000000000, 0x8000000000000000, 9, 0xFFFFFFFFFFFFFFF7, 0]
    d["f32_isa_x"] = f32_edge(rng("f32_isa_x"), m, 10.0)
    d["f32_isa_y"] = f32_edge(rng("f32_isa_y"), m, 10.0)
    d["f32_isa_z"] = f32_edge(rng("f32_isa_z"), m, 10.0)
    r = rng("f32_isa_w")   # angles: |w| < 100, few specials (no infinities: sinf of +-inf takes the slow path)
    w = (r.random(m) * 200 - 100).astype(np.float32)
    w[r.random(m) < 0.1] = r.choice(np.array([0.0, -0.0, np.nan, 1e-40, 0.5, -0.5, 3.1415927, 1e-7],
                                             dtype=np.float32), 1)[0]
    w[:8] = [0.0, -0.0, np.nan, 1e-40, 0.5, 88.0, -88.0, 3.1415927]
    d["f32_isa_w"] = w
    for k in "xyz":
        r = rng(f"f64_isa_{k}")
        v = r.standard_normal(m) * 10.0 ** r.integers(-20, 20, m)
        pick = r.random(m) < 0.2
        v[pick] = r.choice(np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, 2.2e-308, 1.7e308,
                                     0.5, 2.5, -3.5]), pick.sum())
        d[f"f64_isa_{k}"] = v
    r = rng("f32_cvt_x")
    x = (r.standard_normal(m) * 10.0 ** r.integers(-3, 12, m)).astype(np.float32)
    pick = r.random(m) < 0.3
    x[pick] = r.choice(F32_EDGES, pick.sum())
    x[:16] = [0.5, 1.5, 2.5, -0.5, -1.5, 127.5, 128.0, -128.5, 255.5, 256.0, 32767.5, -32768.5, 65535.5, 2.0**31,
              -2.0**31 - 256, 4294967296.0]
    d["f32_cvt_x"] = x
    d["u32_cvt_u"] = u32_edge(rng("u32_cvt_u"), m)
    r = rng("f64_cvt_d")
    v = r.standard_normal(m) * 10.0 ** r.integers(-10, 12, m)
    pick = r.random(m) < 0.25
    v[pick] = r.choice(np.array([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, np.inf, -np.inf, np.nan, 2.0**31, -2.0**31 - 1,
                                 4294967295.5, 1e300, 1e-300, 3.4028235677973366e38, 1.401298464324817e-45]),
                        pick.sum())
    d["f64_cvt_d"] = v
    for k in "pqr":
        d[f"u32_half_{k}"] = half_words(rng(f"u32_half_{k}"), m)
    d["u32_warp_v"] = u32_edge(rng("u32_warp_v"), m)
    d["u32_warp_s"] = rng("u32_warp_s").integers(0, 2**32, m, dtype=np.uint64).astype(np.uint32)
    return d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="only compare with the files in data/")
    a = ap.parse_args(argv)
    bad = 0
    for name, arr in make().items():
        p = HERE / "data" / f"{name}.npy"
        if a.check:
            old = np.load(p)
            same = old.dtype == arr.dtype and old.shape == arr.shape and old.tobytes() == arr.tobytes()
            if not same:
                print(f"differs: {p}")
                bad += 1
        else:
            np.save(p, arr)
    if a.check:
        print("data: " + ("all identical" if not bad else f"{bad} differ"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

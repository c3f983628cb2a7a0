"""Make the inputs of the calibration/isa kernels (data/*.npy): seeded, so re-running rewrites identical files
(``python3 make_data.py --check`` verifies them).

Every file is a (words, 128) uint32 array: word w of thread t at [w, t] (the kernels' ``IN(w)``). The matrix
kernels read their words form by form, trial by trial, in the order of their source; ``MMA_*`` below lists the
same forms in the same order: (words of A, of B, of C, how A/B words are made, how C words are made).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20261129
THREADS = 128
TRIALS = {"mma_float": 4, "mma_int": 2, "mma_f64": 4}  # the sources' TRIALS; the last float trial holds special values

MMA_FLOAT = [(4, 2, 4, "f16", "f32"), (4, 2, 2, "f16", "f16"), (4, 2, 4, "bf16", "f32"),
             (2, 1, 4, "f16", "f32"), (2, 1, 2, "f16", "f16"), (2, 1, 4, "bf16", "f32"),
             (4, 2, 4, "tf32", "f32"), (2, 1, 4, "tf32", "f32"),
             (4, 2, 4, "e4m3", "f32"), (4, 2, 4, "e5m2|e4m3", "f32"), (1, 0, 0, "u32", "")]
_I8 = [(1, 1, 2)] * 8 + [(2, 1, 4)] * 8 + [(4, 2, 4)] * 8
MMA_INT = [(a, b, c, "u32", "s32") for a, b, c in _I8] + [(1, 1, 2, "u32", "small"), (2, 1, 4, "u32", "small"), (4, 2, 4, "u32", "small"),
                                                          (4, 2, 4, "u32", "small"), (4, 2, 4, "u32", "s32"), (4, 2, 4, "u32", "s32")]
MMA_F64 = [(1, 1, 2, "f64", "f64"), (2, 1, 4, "f64", "f64"), (4, 2, 4, "f64", "f64"), (8, 4, 4, "f64", "f64")]


def rng(name: str) -> np.random.Generator:
    return np.random.default_rng([SEED, int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")])


def floats(r: np.random.Generator, shape, exp: int, mant: int, lo: int, hi: int, special: bool) -> np.ndarray:
    """Random sign, unbiased exponent in [lo, hi], random mantissa, as the bit patterns of a format with ``exp``
    exponent and ``mant`` mantissa bits; with ``special``, a fifth of them zeros, infinities, NaNs, subnormals and
    the largest finite values."""
    bias = (1 << (exp - 1)) - 1
    sign = r.integers(0, 2, shape, dtype=np.uint64) << np.uint64(exp + mant)
    e = (r.integers(lo, hi + 1, shape) + bias).astype(np.uint64) << np.uint64(mant)
    bits = sign | e | r.integers(0, 1 << mant, shape, dtype=np.uint64)
    if special:
        top = (1 << exp) - 1
        kinds = np.array([0, top << mant, (top << mant) | 1 << (mant - 1), 1, (1 << mant) - 1, ((top - 1) << mant) | ((1 << mant) - 1)], dtype=np.uint64)
        pick = r.random(shape) < 0.2
        bits[pick] = (r.choice(kinds, pick.sum()) | (r.integers(0, 2, pick.sum(), dtype=np.uint64) << np.uint64(exp + mant)))
    return bits


#: the exponent range of each float type's random values: wide (trial 0 and the last), narrow (the others: sums of
#: terms of one size, where they cancel and every rounding shows)
WIDE = {"f16": 8, "bf16": 20, "tf32": 20, "f32": 12, "f64": 30}
NARROW = 2


def words(r: np.random.Generator, kind: str, n: int, trial: int, last: bool) -> np.ndarray:
    """``n`` rows of 32-bit words of ``kind`` (f64: n/2 doubles, low word first)."""
    shape = (n, THREADS)
    span = WIDE.get(kind, 0) if trial == 0 or last else NARROW
    if kind in ("f16", "bf16"):
        h = floats(r, shape + (2,), *((5, 10) if kind == "f16" else (8, 7)), -span, span - 1, last)
        return (h[..., 0] | h[..., 1] << np.uint64(16)).astype(np.uint32)
    if kind in ("f32", "tf32"):
        return floats(r, shape, 8, 23, -span, span, last).astype(np.uint32)
    if kind.startswith(("e4m3", "e5m2")):
        b = r.integers(0, 256, shape + (4,), dtype=np.uint64)
        if not last:  # NaN (and e5m2's infinities) only in the last trial
            b = np.where((b & 0x7F) >= (0x7F if kind.startswith("e4m3") else 0x7C), b & 0xF3, b)
        return (b[..., 0] | b[..., 1] << np.uint64(8) | b[..., 2] << np.uint64(16) | b[..., 3] << np.uint64(24)).astype(np.uint32)
    if kind == "f64":
        d = floats(r, (n // 2, THREADS), 11, 52, -span, span, last)
        return np.stack([d & np.uint64(0xFFFFFFFF), d >> np.uint64(32)], axis=1).reshape(shape).astype(np.uint32)
    if kind == "s32":  # the last trial near INT_MIN / INT_MAX, where a sum overflows
        v = r.integers(-(1 << 20), 1 << 20, shape)
        if last:
            v = np.where(r.random(shape) < 0.5, (1 << 31) - 1 - r.integers(0, 1 << 16, shape), -(1 << 31) + r.integers(0, 1 << 16, shape))
        return v.astype(np.int64).astype(np.uint32)
    if kind == "small":
        return r.integers(0, 1000, shape).astype(np.uint32)
    return r.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)


def mma(name: str, forms: list) -> np.ndarray:
    r = rng(name)
    rows = []
    for na, nb, nc, ab, c in forms:
        a_kind, b_kind = (ab.split("|") * 2)[:2]
        scale = 2 if "f64" in (a_kind, c) else 1
        for s in range(TRIALS[name]):
            last = s == TRIALS[name] - 1
            rows += [words(r, a_kind, na * scale, s, last), words(r, b_kind, nb * scale, s, last)]
            if nc:
                rows.append(words(r, c, nc * scale, s, last))
    return np.concatenate(rows)


def plain(name: str, n: int) -> np.ndarray:
    """Random words with a third of them edge cases (0, 1, -1, INT_MIN, INT_MAX, small numbers)."""
    r = rng(name)
    v = r.integers(0, 1 << 32, (n, THREADS), dtype=np.uint64).astype(np.uint32)
    edges = np.array([0, 1, 2, 3, 7, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFF, 0x100, 31, 32, 0x3F800000, 0x7F800000, 0x7FC00000], dtype=np.uint32)
    pick = r.random(v.shape) < 0.15
    v[pick] = r.choice(edges, pick.sum())
    small = r.random(v.shape) < 0.2
    v[small] = r.integers(0, 64, small.sum())
    return v


def made() -> dict[str, np.ndarray]:
    return {"mma_float": mma("mma_float", MMA_FLOAT), "mma_int": mma("mma_int", MMA_INT), "mma_f64": mma("mma_f64", MMA_F64),
            "memory": plain("memory", 32), "control": plain("control", 16)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="verify data/*.npy instead of writing them")
    args = ap.parse_args()
    bad = 0
    for name, array in made().items():
        path = HERE / "data" / f"{name}.npy"
        if args.check:
            if not path.exists() or not np.array_equal(np.load(path), array):
                print(f"{path}: differs from what make_data.py makes")
                bad += 1
        else:
            path.parent.mkdir(exist_ok=True)
            np.save(path, array)
            print(f"{path.name}: {array.shape[0]} words x {array.shape[1]} threads")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

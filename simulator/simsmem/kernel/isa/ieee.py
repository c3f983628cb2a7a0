"""Correctly rounded float arithmetic in every IEEE rounding mode, vectorised.

numpy computes float32 and float64 sums and products rounded to nearest even only, and has no fused
multiply-add. The GPU's FADD/FMUL/FFMA and DADD/DMUL/DFMA round once, in the mode the instruction
names (RN, RZ, RM, RP). Here each result is computed in a wider working type (float64 for float32
operations, the x87 80-bit long double for float64 ones) with error-free transformations: the exact
product as the sum of two working numbers (Dekker), exact sums (TwoSum), and rounding to odd, which
keeps enough of the exact value that one final rounding to the target type, in any mode, is the
correct rounding of the exact result (Boldo and Melquiond, "Emulation of FMA and correctly rounded
sums: proved algorithms using rounding to odd", IEEE Trans. Computers 57(4), 2008).
"""

from __future__ import annotations

import math

import numpy as np

from ... import jit
from ...jit import compiled

F32 = np.float32
F64 = np.float64
LONG = np.longdouble
#: Whether numpy's long double is wide enough (64 significand bits or more) for exact float64 results; where it is
#: only a float64 (Windows, macOS on Arm), float64 fused multiply-adds and directed roundings are approximate.
LONG_EXACT = np.finfo(LONG).nmant >= 63

#: The canonical NaN the GPU's float units return for every NaN result.
NAN32 = np.uint32(0x7FFF_FFFF)


#: 16- and 8-bit float formats, results given as bit patterns: (exponent bits, significand bits, canonical NaN).
SMALL = {"F16": (5, 10, 0x7FFF), "BF16": (8, 7, 0x7FFF), "E4M3": (4, 3, 0x7F), "E5M2": (5, 2, 0x7F)}


def working(target) -> type:
    """The working type in which ``target`` results are computed exactly enough."""
    return F64 if target in SMALL or np.dtype(target) == np.dtype(F32) else LONG


def _bits(w) -> int:
    return np.finfo(w).nmant + 1


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s = a + b rounded, e = (a + b) - s exactly (0 where s is not finite)."""
    s = a + b
    bb = s - a
    with np.errstate(invalid="ignore"):
        e = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), e, np.zeros_like(e))


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p = a * b rounded, e = a * b - p exactly (Dekker's product: each operand split in halves whose partial
    products are exact), for finite a, b far from the working type's overflow and underflow."""
    w = a.dtype.type
    split = w(2.0) ** ((_bits(w) + 1) // 2) + w(1)
    with np.errstate(invalid="ignore", over="ignore"):
        p = a * b
        ga, gb = split * a, split * b
        ah, bh = ga - (ga - a), gb - (gb - b)
        al, bl = a - ah, b - bh
        e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl
    return p, np.where(np.isfinite(p), e, np.zeros_like(e))


def _odd(x: np.ndarray) -> np.ndarray:
    """Whether the last bit of each (finite) value's significand is 1."""
    w = x.dtype.type
    if w is F64:
        return (x.view(np.uint64) & np.uint64(1)) != 0
    m, _ = np.frexp(x)
    return np.fmod(np.ldexp(m, _bits(w)), w(2)) != 0


def round_odd(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The exact value s + e (s its rounding to nearest, e the rest) rounded to odd: s if exact or odd, else
    the neighbour of s on e's side."""
    move = (e != 0) & ~_odd(s)
    if not move.any():
        return s
    toward = np.where(e > 0, s.dtype.type(np.inf), s.dtype.type(-np.inf))
    return np.where(move, np.nextafter(s, toward), s)


def narrow(w: np.ndarray, target, mode: str) -> np.ndarray:
    """Working values rounded to ``target`` in ``mode`` (RN, RZ, RM, RP); exact for values rounded to odd."""
    with np.errstate(over="ignore"):
        r = w.astype(target)
    if mode == "RN":
        return r
    back = r.astype(w.dtype)
    t = np.dtype(target).type
    if mode == "RZ":
        return np.where(np.abs(back) > np.abs(w), np.nextafter(r, t(0)), r)
    if mode == "RM":
        return np.where(back > w, np.nextafter(r, t(-np.inf)), r)
    return np.where(back < w, np.nextafter(r, t(np.inf)), r)


def small(x, fmt: str, mode: str = "RN", satfinite: bool = False) -> np.ndarray:
    """float64 values (exact, or rounded to odd) rounded in ``mode`` to the 16- or 8-bit format ``fmt`` of SMALL, as
    uint32 bit patterns: subnormals kept, overflow to infinity or the largest finite value as the mode says (always
    the largest under ``satfinite`` and for E4M3, which has no infinity), NaN the format's canonical NaN."""
    ebits, mbits, nan = SMALL[fmt]
    bias = (1 << (ebits - 1)) - 1
    top, mtop = ((1 << ebits) - 1, (1 << mbits) - 2) if fmt == "E4M3" else ((1 << ebits) - 2, (1 << mbits) - 1)
    maxbits = (top << mbits) | mtop
    inf = maxbits if fmt == "E4M3" or satfinite else (top + 1) << mbits
    x = np.asarray(x, dtype=F64)
    if fmt == "F16" and mode == "RN" and not satfinite:  # numpy's conversion rounds so, once (test_ieee)
        with np.errstate(over="ignore"):
            bits = x.astype(np.float16).view(np.uint16).astype(np.uint32)
        return np.where(np.isnan(x), np.uint32(nan), bits)
    neg = np.signbit(x)
    a = np.where(np.isfinite(x), np.abs(x), 0.0)
    _, e = np.frexp(a)
    e = np.maximum(e.astype(np.int64) - 1, 1 - bias)  # the binade's exponent (the subnormals': the smallest normal's)
    scaled = np.ldexp(a, mbits - e)  # exact: significand units of the result's binade
    n = np.floor(scaled)
    rem = scaled - n
    if mode == "RN":
        up = (rem > 0.5) | ((rem == 0.5) & (np.fmod(n, 2) == 1))
    elif mode == "RZ":
        up = np.zeros_like(neg)
    else:
        up = (rem > 0) & (neg if mode == "RM" else ~neg)
    n = n + up
    bits = ((e + bias - 1) << mbits) + n.astype(np.int64)  # n may carry into the next binade: still right
    grow = (mode == "RN") | ((mode == "RP") & ~neg) | ((mode == "RM") & neg)
    bits = np.where(bits > maxbits, np.where(grow, inf, maxbits), bits)
    bits = np.where(np.isinf(x), inf, np.where(a == 0, 0, bits))
    bits = bits | (neg.astype(np.int64) << (ebits + mbits))
    return np.where(np.isnan(x), nan, bits).astype(np.uint32)


def fma(a, b, c, mode: str, target) -> np.ndarray:
    """a * b + c (``c`` None: a * b) rounded once to ``target`` in ``mode``; IEEE signs of zero, infinities, NaN.
    ``target``: float32 or float64, or a format of SMALL (the result then its bit patterns)."""
    if target is F32 and mode == "RN":
        fast = _nearest32(a, b, c)
        if fast is not None:
            return fast
    return exact_fma(a, b, c, mode, target)


def exact_fma(a, b, c, mode: str, target) -> np.ndarray:
    """``fma`` without its quick path for float32 rounded to nearest."""
    w = working(target)
    args = np.broadcast_arrays(*(np.asarray(x).astype(w) for x in ((a, b) if c is None else (a, b, c))))
    a, b, cw = args[0], args[1], (args[2] if c is not None else None)
    finite = np.isfinite(a) & np.isfinite(b)
    if cw is not None:
        finite &= np.isfinite(cw)
    if w is LONG and not LONG_EXACT:  # pragma: no cover - no wider type: rounded twice
        with np.errstate(invalid="ignore", over="ignore"):
            return narrow(a * b if cw is None else a * b + cw, target, mode)
    if w is F64:  # float32 (or narrower) operands: their product is exact in a float64
        uh = np.where(finite, a, 0) * np.where(finite, b, 0)
        v = uh if cw is None else round_odd(*two_sum(np.where(finite, cw, 0), uh))
    else:
        uh, ul = two_prod(np.where(finite, a, 0), np.where(finite, b, 0))
        if cw is None:
            v = round_odd(uh, ul)
        else:
            th, tl = two_sum(np.where(finite, cw, 0), uh)
            v = round_odd(*two_sum(th, round_odd(*two_sum(tl, ul))))
    with np.errstate(invalid="ignore", over="ignore"):
        plain = a * b if cw is None else a * b + cw  # infinities and NaN as IEEE has them
    # an exact zero: a zero product's sign, or a zero sum's (+0, but -0 rounding down; -0 + -0 is -0)
    zero = finite & (v == 0)
    psign = np.signbit(a) ^ np.signbit(b)
    if cw is None:
        zsign = psign
    else:
        both = ((a == 0) | (b == 0)) & (cw == 0)
        zsign = np.where(both, (psign | np.signbit(cw)) if mode == "RM" else (psign & np.signbit(cw)), mode == "RM")
    if target in SMALL:
        ebits, mbits, _ = SMALL[target]
        r = small(np.where(finite, v, plain), target, mode)
        return np.where(zero, zsign.astype(np.uint32) << np.uint32(ebits + mbits), r).astype(np.uint32)
    r = np.where(finite, narrow(v, target, mode), plain.astype(target))
    t = np.dtype(target).type
    return np.where(zero, np.where(zsign, t(-0.0), t(0.0)), r).astype(target)


def fma64(a: float, b: float, c: float) -> float:
    """One float64 a * b + c rounded once to nearest even: IEEE 754's fusedMultiplyAdd, its signs of zero, infinities
    and NaN (which NaN comes out is left to the caller: DMMA's rule is ``floating.dfma_bits``). In plain Python the
    exact sum of rationals, divided once (Python's int / int rounds correctly); compiled (numba, which has no fused
    multiply-add), LLVM's ``llvm.fma.f64``: the CPU's FMA instruction, or the C library's correctly rounded fma().
    tests/test_ieee.py holds both to ``exact_fma``."""
    a, b, c = float(a), float(b), float(c)  # Python's floats: no warnings, inf * 0 is NaN
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c  # an infinite or NaN product is exact
    if not math.isfinite(c):
        return c  # a finite product does not change it (a * b rounded could overflow: not added)
    from fractions import Fraction  # here: only the plain version needs it

    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:  # +0 but where the product and c are zeros of one sign (IEEE's exact zero sum, rounding to nearest)
        zero_product = a == 0 or b == 0
        negative = zero_product and c == 0 and (math.copysign(1, a) * math.copysign(1, b) < 0) and math.copysign(1, c) < 0
        return -0.0 if negative else 0.0
    try:
        return exact.numerator / exact.denominator
    except OverflowError:  # past the largest float64 once rounded
        return math.inf if exact > 0 else -math.inf


@jit.on_load
def _fma64_compiled() -> None:
    """``fma64`` compiled: ``llvm.fma.f64`` (never contracted or reassociated: it is the fused operation itself). numba
    caches a caller by its own file only: after an edit here, clear its callers' caches (floating.dfma_bits, matrix._dmma)."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def llvm_fma(typingctx, a, b, c):  # pragma: no cover - compiled
        def fused(context, builder, signature, args):
            return builder.call(builder.module.declare_intrinsic("llvm.fma", [ir.DoubleType()] * 3), args)
        return types.float64(types.float64, types.float64, types.float64), fused

    @overload(fma64)
    def _fma64(a, b, c):  # pragma: no cover - compiled
        def fused(a, b, c):
            return llvm_fma(float(a), float(b), float(c))
        return fused


def _nearest32(a, b, c) -> np.ndarray | None:
    """float32 a * b (+ c) rounded to nearest the quick way, or None where that could be wrong. The float64 product of
    two float32 is exact, so the float64 result is the exact one rounded once; rounding it again to float32 is the
    correct rounding unless it fell exactly on a float32 halfway point (low 29 bits 1000...0), or the result is not
    a normal float32 (zero, subnormal, overflow, NaN), which the exact path handles."""
    c = F32(0) if c is None else c  # + 0 changes no normal result
    if a.shape == b.shape == c.shape and a.ndim == 1:  # columns as they are
        shape = a.shape
    else:
        shape = np.broadcast(a, b, c).shape
        a, b, c = [np.broadcast_to(x, shape).reshape(-1) for x in (a, b, c)]
    out = np.empty(shape, dtype=F32)
    return out if _nearest32_lanes(a, b, c, out.reshape(-1)) else None


@compiled(cache=True, nogil=True)
def _nearest32_lanes(a: np.ndarray, b: np.ndarray, c: np.ndarray, out: np.ndarray) -> bool:  # pragma: no cover - compiled
    """``_nearest32`` lane by lane into ``out``; False at the first lane the quick way could get wrong."""
    for i in range(len(out)):
        v = np.float64(a[i]) * np.float64(b[i]) + np.float64(c[i])
        mag = abs(v)
        if not 2.0**-126 <= mag < 2.0**128 or np.float64(v).view(np.uint64) & np.uint64(0x1FFF_FFFF) == np.uint64(0x1000_0000):
            return False
        out[i] = np.float32(v)
    return True


def canonical_nan(r: np.ndarray) -> np.ndarray:
    """float32 results with every NaN the GPU's canonical 0x7FFFFFFF."""
    r = np.asarray(r, dtype=F32)
    nan = np.isnan(r)
    if not nan.any():
        return r
    return np.where(nan, NAN32.view(F32), r)

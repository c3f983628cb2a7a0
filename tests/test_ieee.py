"""kernel/isa/ieee.py: the compiled quick path of float32 fused multiply-adds rounded to nearest gives the exact
path's bits wherever it answers, and leaves it the cases rounding twice could get wrong (halfway points, zeros,
subnormals, overflow, infinities, NaN); DMMA's compiled chain of float64 fused multiply-adds, and its plain-Python
version, give the exact path's bits with DFMA's NaN rule."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from simsmem.jit import plain_calls
from simsmem.kernel.isa.floating import INVALID64, dfma_bits, nan64
from simsmem.kernel.isa.ieee import _nearest32, exact_fma, fma, small
from simsmem.kernel.isa.matrix import _dmma, tensor_sum

F32 = np.float32
EDGES = np.array([0x0, 0x8000_0000, 0x1, 0x807F_FFFF, 0x0080_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000,
                  0x7FC0_0000, 0x7FFF_FFFF, 0x3F80_0000, 0xBF80_0000, 0x3380_0000, 0x3F80_0001, 0x1F80_0000, 0x5F80_0000],
                 dtype=np.uint32).view(F32)


def _same(a, b, c) -> None:
    with np.errstate(all="ignore"):  # as the tracer runs them
        got, want = fma(a, b, c, "RN", F32), exact_fma(a, b, c, "RN", F32)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@given(st.lists(st.integers(0, 2**32 - 1), min_size=3, max_size=3 * 64), st.booleans())
def test_quick_equals_exact(bits: list[int], add: bool) -> None:
    """Random bit patterns (every class of float32) lane by lane and mixed with edge cases, and whole columns of them
    with exponents within 2^+-30 (normal results, which the quick path answers)."""
    raw = np.array(bits[: len(bits) // 3 * 3], dtype=np.uint32).reshape(3, -1)
    for v in (raw.view(F32), ((raw & np.uint32(0x807F_FFFF)) | ((np.uint32(97) + (raw >> np.uint32(23)) % np.uint32(61)) << np.uint32(23))).view(F32)):
        _same(v[0], v[1], v[2] if add else None)
        for j in range(v.shape[1]):
            _same(v[0, j : j + 1], v[1, j], v[2, j] if add else None)
        for e in EDGES:
            _same(v[0], np.full_like(v[1], e), v[2] if add else None)
            _same(v[0], v[1], np.full_like(v[2], e))


def test_quick_path_cases() -> None:
    """Normal results in range come back from the quick path; halfway points and non-normal results do not."""
    one, tiny = F32(1), F32(2.0**-24)
    lanes = np.array([1.5, -3.25, 7.0], dtype=F32)
    np.testing.assert_array_equal(_nearest32(lanes, lanes, lanes), (lanes.astype(np.float64) ** 2 + lanes).astype(F32))
    assert _nearest32(one, tiny, one) is None  # 1 + 2^-24: halfway between 1 and 1 + 2^-23
    assert _nearest32(np.array([1, 1], dtype=F32), np.array([2, tiny], dtype=F32), one) is None  # one lane halfway
    assert _nearest32(F32(2.0**-100), F32(2.0**-40), None) is None  # subnormal
    assert _nearest32(F32(2.0**100), F32(2.0**40), None) is None  # overflow
    assert _nearest32(one, one, F32(-1)) is None  # zero
    assert _nearest32(one, F32(np.nan), one) is None
    assert _nearest32(F32(np.inf), one, one) is None
    _same(one, tiny, one)
    _same(np.array([1, -1], dtype=F32), F32(2.0**-24) + np.array([0, 2.0**-47], dtype=F32), np.array([1, -1], dtype=F32))
    _same(np.ones((4, 2), dtype=F32), F32(3), F32(1))  # packed pairs (HFMA2.F32)


def test_float16_nearest() -> None:
    """float64 values to float16 rounded to nearest even (numpy's conversion, once) give the nearer of the directed
    roundings' results (ties: the even one; infinity counts as 2^16): values near every halfway point, just off them
    (where rounding twice would fail), spread over all exponents, and specials."""
    rng = np.random.default_rng(0)
    base = rng.integers(0, 0x7BFF, 20000).astype(np.uint16)
    lo, hi = base.view(np.float16).astype(np.float64), (base + 1).view(np.float16).astype(np.float64)
    mid = (lo + hi) / 2
    off = mid + rng.choice([-1, 1], len(mid)) * np.ldexp(mid, -rng.integers(12, 52, len(mid)))
    spread = rng.standard_normal(20000) * np.exp2(rng.integers(-30, 20, 20000))
    x = np.concatenate([mid, off, spread, [0.0, 65504.0, 65519.99, 65520.0, 1e6, np.inf, 2.0**-25, 2.0**-24, 3 * 2.0**-26, 1e-9]])
    x = np.concatenate([x, -x])
    rn, down, up = (small(x, "F16", mode) for mode in ("RN", "RM", "RP"))

    def value(bits):
        v = bits.astype(np.uint16).view(np.float16).astype(np.float64)
        return np.where(np.isinf(v), np.copysign(65536.0, v), v)

    dd, du = np.abs(x - value(down)), np.abs(x - value(up))
    want = np.where(dd < du, down, np.where(du < dd, up, np.where(down % 2 == 0, down, up)))
    want = np.where(np.isinf(x), down, want)
    np.testing.assert_array_equal(rn, want)
    assert small(np.array([np.nan]), "F16")[0] == 0x7FFF


# float64: DMMA's chain of fused multiply-adds (matrix._dmma, floating.dfma_bits, ieee.fma64), compiled and plain, against
# the vectorised exact path (exact_fma in long double) with DFMA's NaN rule (nan64), as DMMA computed it before.

EDGES64 = np.array([0x0, 0x8000_0000_0000_0000, 0x1, 0x8000_0000_0000_0003, 0x000F_FFFF_FFFF_FFFF, 0x0010_0000_0000_0000,
                    0x7FEF_FFFF_FFFF_FFFF, 0xFFEF_FFFF_FFFF_FFFF, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000,
                    0x7FF8_0000_0000_0000, 0xFFF8_0000_0000_0001, 0x7FF0_0000_0000_0001, 0xFFF4_0000_DEAD_BEEF,
                    0x3FF0_0000_0000_0000, 0xBFF0_0000_0000_0000, 0x3FF0_0000_0000_0001, 0x3CA0_0000_0000_0000,
                    0x3CB0_0000_0000_0000, 0x1FF0_0000_0000_0000, 0x5FF0_0000_0000_0000, 0x7FE0_0000_0000_0000],
                   dtype=np.uint64)


def _reference(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """DFMA rounded to nearest as bits, the vectorised way: exact_fma, then the NaN operands' rule."""
    x, y, z = (v.view(np.float64) for v in np.broadcast_arrays(a, b, c))
    with np.errstate(all="ignore"):
        r = exact_fma(x, y, z, "RN", np.float64).view(np.uint64)
    return nan64(r, [(v.view(np.uint64), v) for v in (x, z, y)])


def _bits64(rng, n: int) -> np.ndarray:
    """Random float64 bit patterns: a third any, the rest with exponents within 2^+-60 of one (sums that cancel)."""
    raw = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    near = (raw & np.uint64(0x800F_FFFF_FFFF_FFFF)) | ((np.uint64(1023 - 60) + (raw >> np.uint64(52)) % np.uint64(121)) << np.uint64(52))
    return np.where(np.arange(n) % 3 == 0, raw, near)


def _lanes(a, b, c):
    """dfma_bits lane by lane: compiled, and as plain Python (ieee.fma64 by rationals)."""
    compiled = np.array([dfma_bits(x, y, z) for x, y, z in zip(a, b, c)], dtype=np.uint64)
    with plain_calls():
        plain = np.array([dfma_bits(x, y, z) for x, y, z in zip(a, b, c)], dtype=np.uint64)
    return compiled, plain


def test_dfma_bits_equals_exact() -> None:
    """Every pair of edge cases against random c, random triples, and c = -(a b rounded), whose result is the product's
    exact rounding error (or a tie's neighbour): each lane's bits as the vectorised exact path gives them."""
    rng = np.random.default_rng(1)
    e = len(EDGES64)
    a, b = np.repeat(EDGES64, e), np.tile(EDGES64, e)
    c = _bits64(rng, e * e)
    a2, b2, c2 = (_bits64(rng, 3000) for _ in range(3))
    x, y = _bits64(rng, 1000), _bits64(rng, 1000)
    with np.errstate(all="ignore"):
        cancel = (-(x.view(np.float64) * y.view(np.float64))).view(np.uint64)
    for trio in ((a, b, c), (c, a, b), (b, c, a), (a2, b2, c2), (x, y, cancel), (EDGES64, EDGES64, EDGES64[::-1])):
        want = _reference(*trio)
        compiled, plain = _lanes(*trio)
        np.testing.assert_array_equal(compiled, want)
        np.testing.assert_array_equal(plain, want)


def test_fma64_rounding_cases() -> None:
    """Cases a double rounding or a wrong zero would get wrong, in both versions of fma64 (through dfma_bits)."""
    def f(v):
        return np.array(v, dtype=np.float64).view(np.uint64)

    u = 2.0**-52
    cases = [  # (a, b, c, want)
        (1 + u, 1 + u, -1.0, 2 * u + u * u),  # the product's low bits kept
        (1 + u, 1 - u, -1.0, -u * u),
        (2.0**-1074, 0.5, 0.0, 0.0),  # half the smallest subnormal: ties to even, 0
        (3 * 2.0**-1074, 0.5, 0.0, 2 * 2.0**-1074),  # 1.5 units: to even, 2
        (-(2.0**-1074), 0.25, 0.0, -0.0),  # rounds to a negative zero
        (0.0, -1.0, 0.0, 0.0),  # -0 + +0: +0
        (-0.0, 1.0, -0.0, -0.0),  # -0 + -0: -0
        (1.0, 1.0, -1.0, 0.0),  # an exact zero sum: +0
        (np.finfo(np.float64).max, 2.0, -np.inf, -np.inf),  # a product that would overflow, against infinity
        (np.finfo(np.float64).max, 1 + u, -np.finfo(np.float64).max, np.finfo(np.float64).max * u),
        (np.finfo(np.float64).max, 1.0, 2.0**970, np.inf),  # halfway past the largest (odd): to even, infinity
        (np.finfo(np.float64).max, 1.0, 2.0**970 * (1 - u), np.finfo(np.float64).max),  # just under halfway
    ]
    a, b, c, want = (f([case[k] for case in cases]) for k in range(4))
    compiled, plain = _lanes(a, b, c)
    np.testing.assert_array_equal(compiled, want)
    np.testing.assert_array_equal(plain, want)
    np.testing.assert_array_equal(_reference(a, b, c), want)
    assert dfma_bits(f(0.0), f(np.inf), f(1.0)) == INVALID64 == _reference(f([0.0]), f([np.inf]), f([1.0]))[0]


def test_dmma_chain() -> None:
    """matrix._dmma (compiled and plain) is the k-ordered chain of vectorised DFMAs from C: warps with NaN operands (the
    rule lane by lane), and warps without, whose infinities, zeros and overflows make invalid operations (the row path)."""
    rng = np.random.default_rng(2)
    no_nan = EDGES64[~np.isnan(EDGES64.view(np.float64))]
    met = {"NaN": False, "invalid": False}
    for w, m, k, n in ((1, 8, 4, 8), (3, 16, 8, 8), (2, 16, 16, 8), (4, 8, 4, 8)):
        a, b, c = (_bits64(rng, w * r * s).reshape(w, r, s) for r, s in ((m, k), (k, n), (m, n)))
        a[0].reshape(-1)[:: 7] = rng.choice(EDGES64, len(a[0].reshape(-1)[:: 7]))  # warp 0: NaN likely
        for x, every in ((a, 5), (b, 6), (c, 9)):  # the other warps (and B, C of warp 0): specials but no NaN
            flat = x[1:].reshape(-1)
            flat[:: every] = rng.choice(no_nan, len(flat[:: every]))
            values = (x[1:] if x is a else x).view(np.float64)
            values[np.isnan(values)] = -3.0  # a NaN of the random bits
        want = c
        for j in range(k):
            want = _reference(a[..., j : j + 1], b[..., j : j + 1, :], want)
        met["NaN"] |= bool(np.isnan(a[0].view(np.float64)).any())
        met["invalid"] |= bool((want[1:] == INVALID64).any())
        compiled = np.empty_like(c)
        _dmma(a, b, c, compiled)
        plain = np.empty_like(c)
        with plain_calls():
            _dmma(a, b, c, plain)
        np.testing.assert_array_equal(compiled, want)
        np.testing.assert_array_equal(plain, want)
    assert met == {"NaN": True, "invalid": True}  # both paths met what they are for


def test_tensor_sum_plain() -> None:
    """HMMA's compiled sum (matrix.tensor_sum, held to the H200 by tests/test_isa.py) and its plain-Python version agree
    on f16, bf16 and tf32 products with zeros of both signs, subnormals, sums past float32's range and infinities and
    NaN, k of 4, 8 and 16."""
    rng = np.random.default_rng(3)

    def draw(shape, kind):
        n = int(np.prod(shape))
        if kind == "f16":
            bits = rng.integers(0, 2**16, n).astype(np.uint16)
            near = (bits & np.uint16(0x83FF)) | (rng.integers(10, 20, n).astype(np.uint16) << np.uint16(10))
            v = np.where(rng.random(n) < 0.7, near, bits).view(np.float16).astype(np.float64)
        else:
            bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
            near = (bits & np.uint32(0x807F_FFFF)) | (rng.integers(100, 150, n).astype(np.uint32) << np.uint32(23))
            w = np.where(rng.random(n) < 0.7, near, bits) & np.uint32({"bf16": 0xFFFF_0000, "tf32": 0xFFFF_E000, "f32": 0xFFFF_FFFF}[kind])
            with np.errstate(invalid="ignore"):  # signalling NaN
                v = w.view(np.float32).astype(np.float64)
        r = rng.random(n)
        return np.where(r < 0.05, 0.0, np.where(r < 0.08, -0.0, np.where(r < 0.085, rng.choice([np.inf, -np.inf, np.nan], n), v))).reshape(shape)

    for trial in range(18):
        kind, k = ("f16", "bf16", "tf32")[trial % 3], (4, 8, 16)[trial // 3 % 3]
        A, B, C = draw((3, 16, k), kind), draw((3, k, 8), kind), draw((3, 16, 8), "f32")
        C[0] = -0.0 if trial % 2 else 0.0  # a zero accumulator: the sign of a sum that cuts to zero
        with np.errstate(all="ignore"):  # as the tracer runs them
            compiled = tensor_sum(A, B, C)
            with plain_calls():
                plain = tensor_sum(A, B, C)
        np.testing.assert_array_equal(compiled.view(np.uint32), plain.view(np.uint32))

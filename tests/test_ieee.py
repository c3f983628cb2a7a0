"""kernel/isa/ieee.py: the compiled quick path of float32 fused multiply-adds rounded to nearest gives the exact
path's bits wherever it answers, and leaves it the cases rounding twice could get wrong (halfway points, zeros,
subnormals, overflow, infinities, NaN)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from simsmem.kernel.isa.ieee import _nearest32, exact_fma, fma, small

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

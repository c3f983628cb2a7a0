"""kernel/isa/ieee.py: the compiled quick path of float32 fused multiply-adds rounded to nearest gives the exact
path's bits wherever it answers, and leaves it the cases rounding twice could get wrong (halfway points, zeros,
subnormals, overflow, infinities, NaN)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from simsmem.kernel.isa.ieee import _nearest32, exact_fma, fma

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

"""The packed and vector float atomics (ATOMG/REDG ``.ADD.F16x2``/``.BF16x2``, ``.MIN.F16x4``, ``.MAX.BF16x4``,
``.ADD.F32x2``, ``.ADD.BF16x8``; the generic ``ATOM.E.ADD.F16x2`` on global and shared words) against the PTX ISA's
semantics, computed here independently of the executor.

calibration/isa's ``isa_atomics_packed`` (src/atomics_packed.cu, written here) was measured on an H200 after these
expectations were written (runs/2026-11-29-packed): tests/test_isa.py holds the executor to the GPU's bits, every row
but the order-dependent old values of the shared-word adds. This file stays as the independent oracle: the PTX ISA's ``atom``/``red`` ``.add.noftz`` (each half's exact sum rounded once to nearest, subnormals
kept), ``.min``/``.max`` (-0 below +0, a NaN operand gives the other), and f32 ``.add`` on normal numbers, each thread
on its own words; the shared words' sums are exact in any order. A NaN result is taken to be the half units' canonical
0x7FFF (HADD2's, measured), which the H200 bore out.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_isa import _buffer, traced

N = 128  # threads of the probe's one CTA


def _mix(x) -> np.ndarray:
    """The kernel's ``hash`` (a 32-bit integer mixer) of each value."""
    x = np.asarray(x, dtype=np.uint64) & 0xFFFFFFFF
    for shift, mul in ((16, 0x7FEB352D), (15, 0x846CA68B), (16, None)):
        x ^= x >> shift
        if mul:
            x = (x * mul) & 0xFFFFFFFF
    return x.astype(np.uint32)


def _halves(word: int, bf16: bool) -> list[float]:
    if bf16:
        return [float(np.uint32((int(word) >> s & 0xFFFF) << 16).view(np.float32)) for s in (0, 16)]
    return [float(np.uint16(int(word) >> s & 0xFFFF).view(np.float16)) for s in (0, 16)]


def _round(x: float, bf16: bool) -> int:
    """x rounded to nearest even f16 or bf16, as bits (NaN: 0x7FFF)."""
    if math.isnan(x):
        return 0x7FFF
    if not bf16:
        with np.errstate(over="ignore"):
            return int(np.float16(x).view(np.uint16))  # numpy rounds a float64 to float16 once, to nearest even
    if math.isinf(x):
        return 0xFF80 if x < 0 else 0x7F80
    step = 2.0 ** max(math.frexp(abs(x))[1] - 8, -133)  # 8 significant bits; bf16's subnormal quantum 2^-133
    v = round(abs(x) / step) * step  # the quotient is exact; round() goes to even
    return int(np.float32(math.copysign(math.inf if v >= 2.0**128 else v, x)).view(np.uint32)) >> 16


def _add(a: int, b: int, bf16: bool) -> int:
    lo, hi = (_round(x + y, bf16) for x, y in zip(_halves(a, bf16), _halves(b, bf16)))  # f16, bf16 sums: exact or harmless in float64
    return lo | hi << 16


def _min_max(a: int, b: int, bf16: bool, smaller: bool) -> int:
    out = []
    for k, (x, y) in enumerate(zip(_halves(a, bf16), _halves(b, bf16))):
        hx, hy = int(a) >> 16 * k & 0xFFFF, int(b) >> 16 * k & 0xFFFF
        if math.isnan(x) or math.isnan(y):
            out.append(0x7FFF if math.isnan(x) and math.isnan(y) else hy if math.isnan(x) else hx)
        else:
            out.append(hx if ((x, math.copysign(1, x)) <= (y, math.copysign(1, y))) == smaller else hy)
    return out[0] | out[1] << 16


@pytest.fixture(scope="module")
def probe():
    """(memory words of the probe's output buffer, their rows, the operands of thread t, the seed of a word)."""
    _, launch, _, _ = traced("isa_atomics_packed")
    flat = _buffer(launch, 0)
    t = np.arange(N)
    return flat, flat.reshape(-1, N), [_mix(t * 8 + i + 1) for i in range(8)], lambda j, k=1, i=0: _mix(0x10000 + j * N + k * t + i)


def _each(f) -> np.ndarray:
    return np.array([f(k) for k in range(N)], dtype=np.uint32)


def test_packed_adds(probe):
    """ATOMG and REDG .ADD.F16x2/.BF16x2, the generic ATOM.E.ADD.F16x2 on global words: the words after, the old values."""
    flat, rows, v, seed = probe
    for j, operand, bf16, returned in ((0, 0, False, 1), (2, 1, True, 3), (4, 2, False, None), (5, 3, True, None), (24, 2, False, 25)):
        assert (flat[j * N : (j + 1) * N] == _each(lambda k: _add(seed(j)[k], v[operand][k], bf16))).all(), f"row {j}"
        if returned is not None:
            assert (rows[returned] == seed(j)).all(), f"row {returned}"


def test_vector_forms(probe):
    """.MIN.F16x4 and .MAX.BF16x4 (PTX .v2 .f16x2/.bf16x2), .ADD.F32x2 (.v2 .f32), .ADD.BF16x8 (.v4 .bf16x2): each 32-bit
    word of a thread's 8 or 16 bytes apart."""
    flat, rows, v, seed = probe
    t = np.arange(N)
    normal = np.uint32(0x807FFFFF)
    for i in range(2):
        at = 6 * N + 2 * t + i
        assert (flat[at] == _each(lambda k: _min_max(seed(6, 2, i)[k], v[4 + i][k], False, True))).all()
        assert (rows[8 + i] == seed(6, 2, i)).all()
        assert (flat[10 * N + 2 * t + i] == _each(lambda k: _min_max(seed(10, 2, i)[k], v[6 + i][k], True, False))).all()
        old = seed(12, 2, i) & normal | np.uint32(0x3F800000)
        value = v[i] & normal | np.uint32((0x3F000000, 0x40000000)[i])
        assert (flat[12 * N + 2 * t + i] == (old.view(np.float32) + value.view(np.float32)).view(np.uint32)).all()
        assert (rows[14 + i] == old).all()
    for i in range(4):
        assert (flat[16 * N + 4 * t + i] == _each(lambda k: _add(seed(16, 4, i)[k], v[4 + i][k], True))).all()
        assert (rows[20 + i] == seed(16, 4, i)).all()


def test_generic_packed_add_on_shared_words(probe):
    """ATOM.E.ADD.F16x2 on shared words fails there (its predicate output false) and ptxas's ATOMS.CAST.SPIN loop after
    it adds: 128 threads adding 1.0 to both halves of 4 words leave 32.0 (0x5000) in each, each thread seeing one of
    0.0 .. 31.0 before it."""
    _, rows, _, _ = probe
    assert (rows[27, :4] == 0x5000_5000).all()
    t = np.arange(N)
    for word in range(4):
        seen = rows[26][t % 4 == word]
        assert ((seen & 0xFFFF) == seen >> 16).all()
        assert sorted((seen & 0xFFFF).tolist()) == [int(np.float16(i).view(np.uint16)) for i in range(32)]

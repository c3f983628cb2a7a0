"""CuTe's Swizzle<B,M,S>: the mask formula against a bit-by-bit oracle, bijection, involution, the seeds' tables.

Model for the tests: Triton's swizzle tests (a fast analytic path checked against a brute-force
oracle); CuTe's definition is cute/swizzle.hpp (``offset ^ shiftr(offset & yyy_msk, S)``).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from simsmem.errors import SimsmemError
from simsmem.tiles.swizzle import (
    IDENTITY,
    TMA_MODES,
    Swizzle,
    from_sbm,
    keeps_vectors,
    recast,
    xor_rows,
)
from strategies import SMALL_SWIZZLES, swizzles


def oracle(sw: Swizzle, x: int) -> int:
    """Bit by bit: bit ``i`` of YYY flips bit ``i`` of ZZZ (YYY above ZZZ by S; below it for S < 0)."""
    out = x
    for i in range(sw.bits):
        y, z = (sw.base + sw.shift + i, sw.base + i) if sw.shift >= 0 else (sw.base + i, sw.base - sw.shift + i)
        out ^= (x >> y & 1) << z
    return out


@pytest.mark.parametrize("sw", SMALL_SWIZZLES, ids=str)
def test_mask_formula_equals_bitwise_oracle_exhaustively(sw):
    xs = np.arange(1 << 13)
    assert sw(xs).tolist() == [oracle(sw, int(x)) for x in xs]


@pytest.mark.parametrize("sw", SMALL_SWIZZLES, ids=str)
def test_bijection_on_every_period_exhaustively(sw):
    """Offsets [k*size, (k+1)*size) map onto themselves, one to one."""
    for k in range(3):
        block = np.arange(k * sw.size, (k + 1) * sw.size)
        assert np.array_equal(np.sort(sw(block)), block)


@given(swizzles(), st.lists(st.integers(0, 2**40), min_size=1, max_size=64))
def test_involution_and_oracle_on_large_offsets(sw, xs):
    """f(f(x)) == x (so f is a bijection on all offsets) and the formula agrees with the oracle."""
    for x in xs:
        assert sw(sw(x)) == x
        assert sw(x) == oracle(sw, x)
    arr = np.array(xs, dtype=np.int64)
    assert sw(arr).tolist() == [sw(x) for x in xs]
    assert len(set(sw(arr).tolist())) == len(set(xs))


def test_masks_and_notation():
    """CuTe's example masks: Sw<3,4,3> reads bits 7..9 into bits 4..6; negative S reads below."""
    sw = Swizzle(3, 4, 3)
    assert (sw.yyy_mask, sw.zzz_mask, sw.size, str(sw)) == (0b1110000000, 0b1110000, 1024, "Sw<3,4,3>")
    neg = Swizzle(2, 1, -3)
    assert (neg.yyy_mask, neg.zzz_mask, str(neg)) == (0b110, 0b110000, "Sw<2,1,-3>")
    assert neg(0b110) == 0b110110
    assert sw.describe() == "Sw<3,4,3>: bits 7..9 xor'd into bits 4..6, bits 0..3 kept; repeats every 1024 offsets"
    assert Swizzle(1, 3, 3).describe() == "Sw<1,3,3>: bit 6 xor'd into bit 3, bits 0..2 kept; repeats every 128 offsets"


def test_zero_shift_is_the_identity():
    """pycute recursed forever on a zero shift; Swizzle(0, M, 0) is the identity."""
    for m in range(5):
        sw = Swizzle(0, m, 0)
        assert sw.is_identity and sw(12345) == 12345
    assert IDENTITY(np.arange(8)).tolist() == list(range(8))


@pytest.mark.parametrize("bms", [(2, 0, 1), (3, 4, -2), (-1, 0, 1), (1, -1, 2)])
def test_invalid_parameters_are_errors(bms):
    with pytest.raises(SimsmemError):
        Swizzle(*bms)


def test_seed000_xor_table():
    """Seed 000 (bank confict和冲突消解), its SMS=(3,0,3) table: physical column = col ^ row, 8x8."""
    seed = [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [1, 0, 3, 2, 5, 4, 7, 6],
        [2, 3, 0, 1, 6, 7, 4, 5],
        [3, 2, 1, 0, 7, 6, 5, 4],
        [4, 5, 6, 7, 0, 1, 2, 3],
        [5, 4, 7, 6, 1, 0, 3, 2],
        [6, 7, 4, 5, 2, 3, 0, 1],
        [7, 6, 5, 4, 3, 2, 1, 0],
    ]
    sw = xor_rows(8)
    assert sw == Swizzle(3, 0, 3)
    row, col = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    physical = sw(row * 8 + col)
    assert (physical // 8 == row).all()
    assert (physical % 8).tolist() == seed


def test_seed004_address_table():
    """Seed 004 (MMA分析Bank Conflict与Swizzle), T0..T15: gAddr = tx * 8 -> g2sAddr = swizzle<3,1,3>(gAddr)."""
    g2s = [0, 8, 16, 24, 32, 40, 48, 56, 72, 64, 88, 80, 104, 96, 120, 112]
    sw = from_sbm(3, 1, 3)
    assert sw == Swizzle(1, 3, 3)
    assert [sw(tx * 8) for tx in range(16)] == g2s


@pytest.mark.parametrize("s,b,m", [(s, b, m) for s in range(1, 6) for b in range(0, 4) for m in range(0, 5) if s >= b])
def test_seed004_template_is_cute_with_parameters_reordered(s, b, m):
    """Seed 004's ``((addr >> S) & (((1 << B) - 1) << M)) ^ addr``, verbatim, equals CuTe Swizzle<B,M,S>."""
    addr = np.arange(1 << 12)
    assert np.array_equal(((addr >> s) & (((1 << b) - 1) << m)) ^ addr, from_sbm(s, b, m)(addr))


def test_xor_rows_transpose():
    """Seed 002's swizzled transpose stores s_data[x][x ^ y]: Sw<5,0,5> of the logical [x][y] offset."""
    x, y = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    assert np.array_equal(xor_rows(32)(x * 32 + y), x * 32 + (x ^ y))
    with pytest.raises(SimsmemError):
        xor_rows(24)


def test_tma_128b_is_seed000_chunk_swizzle():
    """Seed 000, "TMA中的swizzling": 16-byte chunk i16 = byte / 16, row y16 = i16 / 8, column x16 = i16 % 8;
    the chunk moves to column (y16 ^ x16) % 8 of its 128-byte row, bytes inside a chunk stay."""
    b = np.arange(1 << 14)
    i16 = b // 16
    y16, x16 = i16 // 8, i16 % 8
    expected = (y16 * 8 + (y16 ^ x16) % 8) * 16 + b % 16
    assert np.array_equal(TMA_MODES["128B"](b), expected)


@pytest.mark.parametrize("mode,span", [("32B", 32), ("64B", 64), ("128B", 128)])
def test_tma_modes_swizzle_16_byte_chunks_within_their_span(mode, span):
    """CU_TENSOR_MAP_SWIZZLE_{32,64,128}B: the 16-byte chunk index within each span is xor'd with the
    128-byte row index modulo the chunks per span; chunks stay whole and inside their span."""
    b = np.arange(1 << 14)
    chunks = span // 16
    out = TMA_MODES[mode](b)
    assert np.array_equal(out % 16, b % 16)
    assert np.array_equal(out // span, b // span)
    assert np.array_equal(out // 16 % chunks, (b // 16 % chunks) ^ (b // 128 % chunks))
    assert TMA_MODES["none"].is_identity


@given(swizzles(max_base=10), st.sampled_from([1, 2, 4, 8, 16]), st.lists(st.integers(0, 2**30), min_size=1, max_size=32))
def test_recast_keeps_the_permutation(sw, elem, xs):
    """A byte swizzle and its element form move elements identically (where the element form exists)."""
    try:
        on_elements = recast(sw, 1, elem)
    except SimsmemError:
        assert sw.base < elem.bit_length() - 1 and not sw.is_identity
        return
    for e in xs:
        assert sw(e * elem) == on_elements(e) * elem
    assert recast(on_elements, elem, 1) == (sw if not sw.is_identity else IDENTITY)


def test_recast_examples_and_vectors():
    """TMA 128B (Sw<3,4,3> on bytes) is Sw<3,3,3> on halves and Sw<3,2,3> on floats (CuTe's recast)."""
    assert recast(TMA_MODES["128B"], 1, 2) == Swizzle(3, 3, 3)
    assert recast(TMA_MODES["128B"], 1, 4) == Swizzle(3, 2, 3)
    assert recast(Swizzle(1, 3, 3), 2, 1) == TMA_MODES["32B"]  # seed 004's swizzle is TMA's 32B mode
    with pytest.raises(SimsmemError):
        recast(Swizzle(1, 0, 3), 1, 2)
    with pytest.raises(SimsmemError):
        recast(Swizzle(1, 4, 3), 1, 3)
    assert keeps_vectors(Swizzle(3, 3, 3), 8) and not keeps_vectors(Swizzle(3, 2, 3), 8) and keeps_vectors(IDENTITY, 16)

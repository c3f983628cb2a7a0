"""Layouts (CuTe's shape:stride), composed with swizzles, and shared-memory tiles (row, col) -> byte offset."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from simsmem.errors import SimsmemError
from simsmem.tiles.layout import ComposedLayout, Layout, row_major, tile
from simsmem.tiles.swizzle import IDENTITY, TMA_MODES, Swizzle, from_sbm, recast
from strategies import SMALL_SWIZZLES, swizzles


def test_layout_maps_and_prints_in_cute_notation():
    lay = Layout((4, 8), (8, 1))
    assert str(lay) == "(4,8):(8,1)"
    assert str(Layout((8,), (2,))) == "8:2"
    assert (lay(0, 0), lay(1, 0), lay(3, 7), lay.size, lay.cosize) == (0, 8, 31, 32, 32)
    assert row_major(16, 16, pad=8) == Layout((16, 16), (24, 1))
    assert row_major(16, 16, pad=8).cosize == 15 * 24 + 16
    assert Layout((4, 8), (1, 4))(3, 7) == 31  # column-major
    with pytest.raises(SimsmemError):
        Layout((4, 8), (1,))
    with pytest.raises(SimsmemError):
        lay(1)


def test_composed_layout_notation_and_meaning():
    """CuTe prints a swizzled layout as ``Sw<B,M,S> o offset o shape:stride`` and maps c -> Sw(offset + L(c))."""
    sw = Swizzle(3, 3, 3)
    comp = ComposedLayout(sw, 0, row_major(64, 64))
    assert str(comp) == "Sw<3,3,3> o 0 o (64,64):(64,1)"
    row, col = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    assert np.array_equal(comp(row, col), sw(row * 64 + col))
    shifted = ComposedLayout(sw, 4096, row_major(64, 64))
    assert np.array_equal(shifted(row, col), sw(4096 + row * 64 + col))


@pytest.mark.parametrize("sw", SMALL_SWIZZLES, ids=str)
def test_swizzle_composed_with_a_layout_is_a_bijection(sw):
    """Exhaustive: over a row-major tile of a whole number of swizzle periods, the image is a permutation."""
    cols = 1 << max(3, (sw.size.bit_length() - 1) // 2)
    rows = max(1, 2 * sw.size // cols)
    row, col = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    image = ComposedLayout(sw, 0, row_major(rows, cols))(row, col).ravel()
    assert np.array_equal(np.sort(image), np.arange(rows * cols))


@given(swizzles(max_bits=4, max_base=6, max_shift=8), st.integers(1, 40), st.integers(1, 40), st.integers(0, 9), st.integers(0, 1 << 12))
def test_composition_with_padding_stays_one_to_one(sw, rows, cols, pad, offset):
    """Any swizzle over any padded tile at any offset: distinct elements get distinct offsets."""
    row, col = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    image = ComposedLayout(sw, offset, row_major(rows, cols, pad))(row, col)
    assert len(np.unique(image)) == rows * cols


def test_tile_byte_offsets_seed_formulas():
    """The seeds' index expressions, written as tiles (calibration/h100/src/seeds.cu)."""
    x, y = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    # trans_pad: s_data[32][33] of ints, [x][y]
    assert np.array_equal(tile(32, 32, 4, pad=1).byte_offset(x, y), (x * 33 + y) * 4)
    # trans_swizzle: s_data[x][x ^ y]
    assert np.array_equal(tile(32, 32, 4, swizzle=Swizzle(5, 0, 5)).byte_offset(x, y), (x * 32 + (x ^ y)) * 4)
    # v5: smem_a + swizzle<3,1,3>((tx % 16) * 16 + (tx / 16) * 8), halves
    tx = np.arange(32)
    a = tile(16, 16, 2, swizzle=from_sbm(3, 1, 3))
    raw = (tx % 16) * 16 + (tx // 16) * 8
    assert np.array_equal(a.byte_offset(tx % 16, (tx // 16) * 8), 2 * (((raw >> 3) & 8) ^ raw))
    # v3: smem_a[16][16 + 8], [tx / 2][(tx % 2) * 8]
    assert np.array_equal(tile(16, 16, 2, pad=8).byte_offset(tx // 2, (tx % 2) * 8), 2 * ((tx // 2) * 24 + (tx % 2) * 8))


def test_tile_base_swizzles_shared_memory_addresses():
    """A tile ``base`` bytes into shared memory: the swizzle sees the whole address, as TMA's does."""
    t = tile(8, 64, 2, swizzle=recast(TMA_MODES["128B"], 1, 2), base=1024 + 128)
    r = np.arange(8)
    assert np.array_equal(t.byte_offset(r, 0), TMA_MODES["128B"](1024 + 128 + r * 128))
    assert str(t) == "Sw<3,3,3> o 576 o (8,64):(64,1) (2-byte elements)"
    assert tile(16, 16, 2, pad=8).footprint == 15 * 48 + 32
    with pytest.raises(SimsmemError):
        tile(8, 8, 2, base=3)


def test_tile_rejects_split_or_misaligned_accesses():
    with pytest.raises(SimsmemError, match="moves elements inside"):
        tile(16, 16, 2, swizzle=Swizzle(3, 2, 3)).check_vectors(16, "STS.128")
    with pytest.raises(SimsmemError, match="misaligns"):
        tile(16, 16, 2, pad=2).check_vectors(16, "STS.128")
    with pytest.raises(SimsmemError, match="whole"):
        tile(16, 16, 4).check_vectors(2, "STS.U16")
    tile(16, 16, 2, pad=8, swizzle=Swizzle(3, 3, 3)).check_vectors(16, "STS.128")
    tile(16, 16, 2, swizzle=IDENTITY).check_vectors(16, "STS.128")

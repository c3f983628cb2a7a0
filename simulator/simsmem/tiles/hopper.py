"""Where Hopper's ops without lanes touch shared memory: a wgmma's operands through their matrix descriptors, and a TMA
box. The machine (``kernel/isa/gmma.py``, ``kernel/tensormap.py``) moves data by these, ``explain`` draws them.

A matrix descriptor (64 bits): start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29), stride byte offset
>> 4 (32-45), base offset (49-51), swizzle mode (62-63: none, 128B, 64B, 32B). Its operand is one of CUTLASS's
canonical layouts (cute/atom/mma_traits_sm90_gmma.hpp). K-major: row r at start + (r % 8) * W + (r // 8) * SBO (W
the swizzle atom's row, 16 bytes unswizzled), its 16-byte K chunks at + c * LBO unswizzled, + c * 16 swizzled.
M/N-major: 16-byte core-matrix columns along M/N SBO apart and 8-K groups LBO apart unswizzled; swizzled, W bytes of
M/N in a row, 8 K rows of them, the next W of M/N at + LBO and the next 8 K at + SBO. The swizzle Swizzle<b,4,3> (b =
3, 2, 1 for 128B, 64B, 32B) acts on the absolute shared address, its XOR taken from bits 7.. less the base offset.

A TMA box lands row by row (a row: the box's first dimension), each row at ``pitch`` bytes (the row's bytes, or the
swizzle span if that is wider), then the same swizzle on the absolute address (``swizzle``).
"""

from __future__ import annotations

import attrs
import numpy as np

#: swizzle mode field -> bytes of one row of the swizzle atom (16: no swizzle, 8x16-byte core matrices)
WIDTH = np.array([16, 128, 64, 32], dtype=np.int64)


@attrs.frozen
class Descriptor:
    """A wgmma matrix descriptor's fields (bytes), as arrays: one entry per descriptor."""

    start: np.ndarray
    lbo: np.ndarray
    sbo: np.ndarray
    base: np.ndarray
    mode: np.ndarray

    @classmethod
    def of(cls, value) -> Descriptor:
        """The fields of 64-bit descriptors (an array of them, or one)."""
        u = np.asarray(value, dtype=np.uint64)

        def field(low: int, bits: int) -> np.ndarray:
            return (u >> np.uint64(low) & np.uint64((1 << bits) - 1)).astype(np.int64)
        return cls(field(0, 14) << 4, field(16, 14) << 4, field(32, 14) << 4, field(49, 3), field(62, 2))


def addresses(desc, rows: int, k: int, size: int, mn_major: bool) -> np.ndarray:
    """Shared-window byte address of element (row, k) of an operand (rows along M or N) of ``size``-byte elements,
    per descriptor: (len(desc), rows, k). An element never straddles a 16-byte chunk, so its bytes follow it."""
    f = Descriptor.of(np.atleast_1d(desc))
    start, lbo, sbo, base, mode = (x[:, None, None] for x in (f.start, f.lbo, f.sbo, f.base, f.mode))
    width = WIDTH[mode]
    i, kk = np.arange(rows)[:, None], np.arange(k)[None, :]
    if mn_major:
        mb = i * size
        plain = (mb >> 4) * sbo + (kk & 7) * 16 + (kk >> 3) * lbo + (mb & 15)
        swizzled = mb // width * lbo + (kk & 7) * width + (kk >> 3) * sbo + mb % width
    else:
        kb = kk * size
        if ((mode != 0) & (kb >= width)).any():
            raise ValueError(f"a K-major operand {k * size} bytes wide does not fit the {int(width[mode != 0].min())}-byte swizzle atom")
        plain = (i & 7) * 16 + (i >> 3) * sbo + (kb >> 4) * lbo + (kb & 15)
        swizzled = (i & 7) * width + (i >> 3) * sbo + kb
    a = start + np.where(mode != 0, swizzled, plain)
    return a ^ (((a >> 7) - base) & (width // 16 - 1)) << 4


def swizzle(addr: np.ndarray, span: int) -> np.ndarray:
    """``Swizzle<b,4,3>`` of byte addresses for a ``span``-byte swizzle (b = log2(span / 16); 0: none)."""
    if not span:
        return addr
    bits = (span // 16).bit_length() - 1
    return addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)


def box_rows(box: tuple[int, ...]) -> np.ndarray:
    """Each element's row (its index over the box's dimensions after the first) and column, dimension 0 fastest:
    (rank, elements) multi-indices."""
    return np.indices(box[::-1]).reshape(len(box), -1)[::-1].astype(np.int64)


def box_addresses(smem: int, box: tuple[int, ...], elem: int, span: int) -> np.ndarray:
    """Shared address of every element of a TMA box landing at ``smem`` (dimension 0 fastest)."""
    idx = box_rows(box)
    row = np.zeros(idx.shape[1], dtype=np.int64)
    for d in range(len(box) - 1, 0, -1):
        row = row * box[d] + idx[d]
    pitch = max(box[0] * elem, span)
    return swizzle(smem + row * pitch + idx[0] * elem, span)


def encode(start: int, lbo: int, sbo: int, mode: int, base: int = 0) -> int:
    """A matrix descriptor of byte fields (``Descriptor.of`` backwards; start, LBO and SBO multiples of 16)."""
    return (start >> 4 & 0x3FFF) | (lbo >> 4 & 0x3FFF) << 16 | (sbo >> 4 & 0x3FFF) << 32 | (base & 7) << 49 | (mode & 3) << 62


def describe(plain: np.ndarray, placed: np.ndarray, size: int, mn_major: bool) -> list[int] | None:
    """The matrix descriptors (one per 32-byte K step) that make a wgmma read an operand whose element (row, k) (rows
    along M or N) sits at ``placed[row, k]``, or None if none does. ``plain`` holds the addresses before any swizzle:
    it gives the start, leading and stride byte offsets; each swizzle mode (and base offset) is kept only where
    ``addresses`` gives every placed address back."""
    rows, ks = placed.shape
    k = 32 // size  # elements of K one wgmma reads
    if rows % 8 or ks % k or not rows:
        return None
    chunk = 16 // size  # elements in 16 bytes
    for mode in (1, 2, 3, 0):
        w = int(WIDTH[mode])
        if mn_major:
            along = chunk if mode == 0 else w // size  # the next 16 bytes (core matrix) or the next atom along M/N
            lbo = int(plain[0, 8] - plain[0, 0]) if mode == 0 else (int(plain[along, 0] - plain[0, 0]) if along < rows else 16)
            sbo = int(plain[along, 0] - plain[0, 0]) if mode == 0 and along < rows else (16 if mode == 0 else int(plain[0, 8] - plain[0, 0]))
        else:
            lbo = int(plain[0, chunk] - plain[0, 0]) if mode == 0 else 16
            sbo = int(plain[8, 0] - plain[0, 0]) if rows > 8 else 16
        if lbo <= 0 or sbo <= 0 or lbo % 16 or sbo % 16:
            continue
        for base in sorted({0, int(plain[0, 0]) >> 7 & 7}) if mode else (0,):
            descs = [encode(int(plain[0, j * k]), lbo, sbo, mode, base) for j in range(ks // k)]
            if all(np.array_equal(addresses(np.array([d], dtype=np.uint64), rows, k, size, mn_major)[0], placed[:, j * k : (j + 1) * k])
                   for j, d in enumerate(descs)):
                return descs
    return None

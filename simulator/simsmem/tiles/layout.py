"""Layouts: CuTe's ``shape:stride`` maps from coordinates to offsets, composed with a swizzle.

A shared-memory tile is a ``Tile``: a ``ComposedLayout`` (swizzle o offset o layout, as CuTe writes
``Sw<3,3,3> o 0 o (64,64):(64,1)``) from ``(row, col)`` to element offsets, and the element size
that turns them into byte offsets. Coordinates may be ints or numpy arrays.
"""

from __future__ import annotations

import math

import attrs
import numpy as np

from ..errors import SimsmemError
from .swizzle import IDENTITY, Swizzle, keeps_vectors


@attrs.frozen
class Layout:
    """CuTe's ``shape:stride``: coordinate ``c`` goes to offset ``sum(c[i] * stride[i])``."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]

    def __attrs_post_init__(self) -> None:
        if len(self.shape) != len(self.stride) or not self.shape:
            raise SimsmemError(str(self), "shape and stride need the same, non-zero rank")
        if min(self.shape) < 1 or min(self.stride) < 0:
            raise SimsmemError(str(self), "extents must be positive and strides non-negative")

    def __call__(self, *coord):
        """The offset of coordinate ``coord`` (one int or array per mode)."""
        if len(coord) != len(self.shape):
            raise SimsmemError(str(self), f"expected {len(self.shape)} coordinates, got {len(coord)}")
        return sum(c * d for c, d in zip(coord, self.stride))

    @property
    def size(self) -> int:
        """How many coordinates the layout maps."""
        return math.prod(self.shape)

    @property
    def cosize(self) -> int:
        """One past the largest offset it maps to."""
        return self(*(n - 1 for n in self.shape)) + 1

    def __str__(self) -> str:
        if len(self.shape) == 1:
            return f"{self.shape[0]}:{self.stride[0]}"
        return f"({','.join(map(str, self.shape))}):({','.join(map(str, self.stride))})"


def row_major(rows: int, cols: int, pad: int = 0) -> Layout:
    """A ``rows x cols`` tile stored row by row, each row ``cols + pad`` elements apart (padding)."""
    return Layout((rows, cols), (cols + pad, 1))


@attrs.frozen
class ComposedLayout:
    """CuTe's ``swizzle o offset o layout``: ``coord -> swizzle(offset + layout(coord))``."""

    swizzle: Swizzle
    offset: int
    layout: Layout

    def __call__(self, *coord):
        return self.swizzle(self.offset + self.layout(*coord))

    def __str__(self) -> str:
        return f"{self.swizzle} o {self.offset} o {self.layout}"


@attrs.frozen
class Tile:
    """A 2-D tile of ``elem_bytes``-byte elements in shared memory: ``(row, col) -> byte offset``.

    The swizzle acts on element offsets, counted from the start of shared memory (``base``
    elements in, as CuTe swizzles shared-memory addresses); for a swizzle on byte offsets (TMA's
    modes) use ``swizzle.recast(sw, 1, elem_bytes)``.
    """

    layout: ComposedLayout
    elem_bytes: int

    @property
    def rows(self) -> int:
        return self.layout.layout.shape[0]

    @property
    def cols(self) -> int:
        return self.layout.layout.shape[1]

    def byte_offset(self, row, col):
        """Where element ``(row, col)`` lives, in bytes from the start of shared memory."""
        return self.elem_bytes * self.layout(row, col)

    @property
    def footprint(self) -> int:
        """Bytes of shared memory from address 0 to the end of the tile's last-placed element."""
        row, col = np.meshgrid(np.arange(self.rows), np.arange(self.cols), indexing="ij")
        return int(self.byte_offset(row, col).max()) + self.elem_bytes

    def check_vectors(self, access_bytes: int, where: str) -> None:
        """Reject layouts that split or misalign an access of ``access_bytes`` (whole elements, in order)."""
        vec, rest = divmod(access_bytes, self.elem_bytes)
        inner = self.layout.layout
        if rest or vec < 1:
            raise SimsmemError(where, f"a {access_bytes}-byte access does not cover whole {self.elem_bytes}-byte elements")
        if not keeps_vectors(self.layout.swizzle, vec):
            raise SimsmemError(where, f"{self.layout.swizzle} moves elements inside one {access_bytes}-byte access (needs 2**M >= {vec} elements)")
        if any(d % vec for d in inner.stride if d != 1) or self.layout.offset % vec:
            raise SimsmemError(where, f"{self} misaligns {access_bytes}-byte accesses (row stride and base must be multiples of {vec} elements)")

    def __str__(self) -> str:
        return f"{self.layout} ({self.elem_bytes}-byte elements)"


def tile(rows: int, cols: int, elem_bytes: int, pad: int = 0, swizzle: Swizzle = IDENTITY, base: int = 0) -> Tile:
    """A row-major tile with ``pad`` elements of padding per row, swizzled, ``base`` bytes into shared memory."""
    if elem_bytes < 1:
        raise SimsmemError("tile", f"element size {elem_bytes} must be positive")
    if base < 0 or base % elem_bytes:
        raise SimsmemError("tile", f"base {base} must be a non-negative multiple of the {elem_bytes}-byte element")
    return Tile(ComposedLayout(swizzle, base // elem_bytes, row_major(rows, cols, pad)), elem_bytes)
